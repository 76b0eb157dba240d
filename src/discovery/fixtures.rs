//! The directories of a repository that the default excludes skip (`testdata`, golden files,
//! directories named for tests, test harnesses' directories), for `podcycle init` to name.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ignore::WalkBuilder;

use super::{TOOL_DIRECTORIES, excluded_directory, has_manifest_extension};

/// The directories under `root` that the default excludes skip and that hold YAML or JSON,
/// relative to it, in walk order (by name). The walk is a run's (ignore files honoured, tool directories skipped), and does
/// not go below the directories it finds: each is excluded whole.
pub(crate) fn excluded_by_default(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut walk = WalkBuilder::new(root);
    walk.follow_links(false)
        .hidden(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| {
            let name = entry.file_name();
            let tool = entry.file_type().is_some_and(|t| t.is_dir())
                && TOOL_DIRECTORIES.iter().any(|tool| name == OsStr::new(tool));
            let below_found =
                entry.depth() > 1 && entry.path().parent().is_some_and(excluded_directory);
            !tool && !below_found
        });
    for entry in walk.build().flatten() {
        if entry.depth() == 0 || !entry.file_type().is_some_and(|t| t.is_dir()) {
            continue;
        }
        if excluded_directory(entry.path()) && holds_manifest_files(entry.path()) {
            let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
            found.push(relative.to_owned());
        }
    }
    found
}

/// Whether a YAML or JSON file is somewhere under `dir`.
fn holds_manifest_files(dir: &Path) -> bool {
    WalkBuilder::new(dir)
        .follow_links(false)
        .hidden(false)
        .build()
        .flatten()
        .any(|entry| {
            entry.file_type().is_some_and(|t| t.is_file()) && has_manifest_extension(entry.path())
        })
}
