//! Directories that hold a test harness's own file: a test case, with its inputs and its
//! expected state, not what a repository deploys. Each marker is the file the harness itself
//! looks for, under its default name:
//!
//! - `kyverno-test.yaml`: `kyverno test DIR` runs every file of that name below `DIR`
//!   (kyverno/kyverno `cmd/cli/kubectl-kyverno/test/load.go`, `loadLocalTest`; the default of
//!   `--file-name` in `cmd/cli/kubectl-kyverno/commands/test/command.go`). The older name
//!   `test.yaml` has not been read since Kyverno 1.7 ("Remove support for test.yaml") and names
//!   too many other files to tell anything.
//! - `chainsaw-test.yaml` or `chainsaw-test.yml`: Chainsaw's test file (kyverno/chainsaw
//!   `pkg/discovery/load.go`, `tryLoadTestFiles`, `.yaml` first and then `.yml`; the default
//!   `testFile`, `chainsaw-test`, in `pkg/apis/v1alpha1/configuration.go`).
//! - a test step's assert or errors file, `<index>-assert….yaml` or `<index>-errors….yaml`:
//!   what KUTTL compares the cluster with after a step of a test case (kudobuilder/kuttl
//!   `internal/file/name.go`, `Parse`: an index, then `assert` or `errors` as the first part of
//!   the name), and the step files of a Chainsaw test written without a test file
//!   (`pkg/discovery/step.go`, `TryFindStepFiles`: `<index>-assert.yaml`,
//!   `<index>-errors.yaml`). No deployment has a file that asserts the state of the cluster.
//!
//! Not markers: KUTTL's `kuttl-test.yaml` configures a whole suite and names its test
//! directories in `testDirs`; it may sit at a repository's root, beside what the repository
//! deploys, and the test cases below it are found by their assert files. Nor a step file
//! alone (`00-install.yaml`): numbered manifests are a common way to order a deployment.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};
use std::time::SystemTime;

/// The harnesses whose test directories are excluded by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Harness {
    /// `kyverno test`.
    KyvernoCli,
    /// `chainsaw test`.
    Chainsaw,
    /// A KUTTL test case, or a Chainsaw test written as KUTTL's steps.
    TestSteps,
}

/// A test directory's marker: which harness, and the file that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Marker {
    pub harness: Harness,
    pub file: String,
}

impl Marker {
    /// `a Chainsaw test (chainsaw-test.yaml)`.
    pub(crate) fn describe(&self) -> String {
        let what = match self.harness {
            Harness::KyvernoCli => "a Kyverno CLI test",
            Harness::Chainsaw => "a Chainsaw test",
            Harness::TestSteps => "a KUTTL or Chainsaw test case",
        };
        format!("{what} ({})", self.file)
    }
}

/// The marker of the harness whose test `name` says its directory is, if any.
fn marker_of(name: &str) -> Option<Harness> {
    match name {
        "kyverno-test.yaml" => Some(Harness::KyvernoCli),
        "chainsaw-test.yaml" | "chainsaw-test.yml" => Some(Harness::Chainsaw),
        _ => is_check_step(name).then_some(Harness::TestSteps),
    }
}

/// `00-assert.yaml`, `1-errors-pods.yaml`, `02-assert.gotmpl.yaml`: an index, then `assert` or
/// `errors` (in any case, as KUTTL reads it) as the name's first part, then `.yaml`, `.yml`
/// (Chainsaw) or `.gotmpl.yaml` (KUTTL's templates).
fn is_check_step(name: &str) -> bool {
    let Some((index, rest)) = name.split_once('-') else {
        return false;
    };
    if index.is_empty() || !index.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    let Some(stem) = [".gotmpl.yaml", ".yaml", ".yml"]
        .iter()
        .find_map(|extension| rest.strip_suffix(extension))
    else {
        return false;
    };
    if stem.contains('.') {
        return false;
    }
    let first = stem.split('-').next().unwrap_or_default();
    first.eq_ignore_ascii_case("assert") || first.eq_ignore_ascii_case("errors")
}

/// What was found in a directory, with the modification time it was found at.
type Found = (Option<SystemTime>, Option<Marker>);

/// Each directory looked at, so that the files of one directory list it once per run. An
/// entry is read again when the directory has changed since (the language server runs for
/// hours while files come and go).
static LOOKED_AT: LazyLock<Mutex<HashMap<PathBuf, Found>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// The marker of a test harness that `dir` holds, if it is a directory that holds one (the
/// first in the directory's listing order sorted by name).
pub(crate) fn test_directory(dir: &Path) -> Option<Marker> {
    let metadata = std::fs::symlink_metadata(dir).ok()?;
    if !metadata.is_dir() {
        return None;
    }
    let modified = metadata.modified().ok();
    if let Ok(looked_at) = LOOKED_AT.lock()
        && let Some((when, marker)) = looked_at.get(dir)
        && modified.is_some()
        && *when == modified
    {
        return marker.clone();
    }
    let marker = find_marker(dir);
    if let Ok(mut looked_at) = LOOKED_AT.lock() {
        looked_at.insert(dir.to_owned(), (modified, marker.clone()));
    }
    marker
}

fn find_marker(dir: &Path) -> Option<Marker> {
    let entries = std::fs::read_dir(dir).ok()?;
    let mut markers = Markers::default();
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            markers.see(&entry.file_name());
        }
    }
    markers.first()
}

/// The markers among the files of a directory listed once, for what lists it anyway (the walk's
/// look at what it left out): the first by name, as [`test_directory`] finds it.
#[derive(Debug, Default)]
pub(crate) struct Markers(Option<Marker>);

impl Markers {
    /// Notes a file of the directory.
    pub(crate) fn see(&mut self, name: &OsStr) {
        let Some(name) = name.to_str() else {
            return;
        };
        let Some(harness) = marker_of(name) else {
            return;
        };
        if self
            .0
            .as_ref()
            .is_none_or(|found| name < found.file.as_str())
        {
            self.0 = Some(Marker {
                harness,
                file: name.to_owned(),
            });
        }
    }

    pub(crate) fn first(self) -> Option<Marker> {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_harnesses_own_files_mark_their_directories() {
        for (name, harness) in [
            ("kyverno-test.yaml", Harness::KyvernoCli),
            ("chainsaw-test.yaml", Harness::Chainsaw),
            ("chainsaw-test.yml", Harness::Chainsaw),
            ("00-assert.yaml", Harness::TestSteps),
            ("1-errors.yaml", Harness::TestSteps),
            ("02-assert-pods.yaml", Harness::TestSteps),
            ("03-Assert.yaml", Harness::TestSteps),
            ("04-assert.gotmpl.yaml", Harness::TestSteps),
            ("05-errors.yml", Harness::TestSteps),
        ] {
            assert_eq!(marker_of(name), Some(harness), "{name}");
        }
        for name in [
            "test.yaml",
            "kuttl-test.yaml",
            ".chainsaw.yaml",
            "00-install.yaml",
            "00-deployment.yaml",
            "assert.yaml",
            "a-assert.yaml",
            "-assert.yaml",
            "00-asserts.yaml",
            "00-assert.json",
            "00-assert.old.yaml",
            "00-my-assert.yaml",
        ] {
            assert_eq!(marker_of(name), None, "{name}");
        }
    }

    #[test]
    fn a_listing_finds_the_first_marker_by_name_in_any_order() {
        let mut markers = Markers::default();
        for name in [
            "pod.yaml",
            "02-assert.yaml",
            "chainsaw-test.yaml",
            "01-errors.yaml",
        ] {
            markers.see(OsStr::new(name));
        }
        assert_eq!(
            markers.first(),
            Some(Marker {
                harness: Harness::TestSteps,
                file: "01-errors.yaml".to_owned()
            })
        );
        let mut none = Markers::default();
        none.see(OsStr::new("00-install.yaml"));
        assert_eq!(none.first(), None);
    }

    #[test]
    fn a_directory_is_read_again_once_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let case = dir.path().join("case");
        std::fs::create_dir(&case).unwrap();
        std::fs::write(case.join("00-install.yaml"), "kind: Pod\n").unwrap();
        assert_eq!(test_directory(&case), None);
        std::fs::write(case.join("00-assert.yaml"), "kind: Pod\n").unwrap();
        // A clock too coarse to see the change within the test: make it visible.
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::open(&case)
            .and_then(|f| f.set_modified(later))
            .unwrap();
        assert_eq!(
            test_directory(&case).map(|m| m.file),
            Some("00-assert.yaml".to_owned())
        );
        // A file is not a directory.
        assert_eq!(test_directory(&case.join("00-assert.yaml")), None);
    }
}
