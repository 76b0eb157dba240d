//! The directories of a repository that hold test inputs rather than what it deploys, for
//! `podcycle init` to write as excludes: those the default excludes skip (`testdata`, golden
//! files, test harnesses' directories), and test and fixture directories that hold YAML or
//! JSON the defaults do not already skip.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::{TOOL_DIRECTORIES, excluded_directory, has_manifest_extension};

/// Names of directories that usually hold tests' inputs: not excluded by default, since some
/// projects deploy from them, but worth excluding where they hold manifests.
const FIXTURE_DIRECTORIES: [&str; 5] = ["test", "tests", "e2e", "fixtures", "__fixtures__"];

/// The directories found under a repository's root, relative to it, in walk order (by name).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct FixtureDirectories {
    /// Skipped by the default excludes (`testdata`, `golden`, test harnesses' directories).
    pub(crate) excluded_by_default: Vec<PathBuf>,
    /// Test and fixture directories that hold YAML or JSON the default excludes do not skip.
    pub(crate) fixtures: Vec<PathBuf>,
}

/// Walks `root` as a run does (ignore files honoured, tool directories skipped), not below the
/// directories it finds.
pub(crate) fn fixture_directories(root: &Path) -> FixtureDirectories {
    let mut found = FixtureDirectories::default();
    let mut walk = WalkBuilder::new(root);
    walk.follow_links(false)
        .hidden(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let name = entry.file_name();
            let tool = entry.file_type().is_some_and(|t| t.is_dir())
                && TOOL_DIRECTORIES.iter().any(|tool| name == OsStr::new(tool));
            // Not below a directory found: it is excluded whole.
            let below_found = entry.depth() > 1
                && entry.path().parent().is_some_and(|parent| {
                    parent.file_name().is_some_and(is_fixture) || excluded_directory(parent)
                });
            !tool && !below_found
        });
    for entry in walk.build().flatten() {
        if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        if excluded_directory(entry.path()) {
            found.excluded_by_default.push(relative.to_owned());
        } else if is_fixture(entry.file_name()) && holds_manifest_files(entry.path()) {
            found.fixtures.push(relative.to_owned());
        }
    }
    found
}

fn is_fixture(name: &OsStr) -> bool {
    FIXTURE_DIRECTORIES.iter().any(|f| name == OsStr::new(f))
}

/// Whether a YAML or JSON file is somewhere under `dir`, outside what the default excludes
/// skip.
fn holds_manifest_files(dir: &Path) -> bool {
    WalkBuilder::new(dir)
        .follow_links(false)
        .hidden(false)
        .filter_entry(|entry| {
            entry.depth() == 0
                || !entry.file_type().is_some_and(|t| t.is_dir())
                || !excluded_directory(entry.path())
        })
        .build()
        .flatten()
        .any(|entry| {
            entry.file_type().is_some_and(|t| t.is_file()) && has_manifest_extension(entry.path())
        })
}
