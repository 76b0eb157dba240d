//! The role of each file found: complete manifests, or partial objects — Kustomize patches,
//! and the expected-state files of test frameworks (kuttl, Chainsaw). A patch is a partial object that
//! Kustomize merges into a full one, so object rules would report fields it leaves out on
//! purpose (a Job patch without `restartPolicy`) and its merge directives (`$patch: delete`).
//! Partial objects get the document checks (syntax, duplicate keys) only; the overlay that
//! uses a patch is built and linted whole.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use rayon::prelude::*;
use serde_json::Value;

use super::listed::Listed;
use crate::lint::FileRole;
use crate::render::kustomize::KUSTOMIZATION_FILES;
use crate::safe_fs::{FileKind, Reader};
use crate::yaml;

/// Whether a file is a patch by the conventions of Kustomize repositories: it sits in a
/// `patches` directory, or a word of its name is `patch` (`job-patch.yaml`,
/// `delete.patch.yaml`, `patch_env.yaml`), or a kustomization next to it lists it as a patch.
#[derive(Debug, Default)]
pub struct PatchIndex {
    /// Files listed as patches by a kustomization, by directory.
    listed: HashMap<PathBuf, HashSet<PathBuf>>,
    /// Reads the kustomizations and tests of every directory a run walks.
    reader: Reader,
    /// Which kustomizations and tests the walk's listing of a directory showed: those it did
    /// not are not opened.
    listed_files: HashMap<PathBuf, Listed>,
}

impl PatchIndex {
    /// Whether `check` lints the file as manifests or as patches.
    pub fn role(&mut self, path: &Path) -> FileRole {
        if self.is_patch(path) {
            FileRole::Patch
        } else {
            FileRole::Manifest
        }
    }

    pub(crate) fn is_patch(&mut self, path: &Path) -> bool {
        if is_patch_by_name(path) {
            return true;
        }
        let directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let reader = &self.reader;
        let shown = self.listed_files.get(&directory).copied();
        let listed = self
            .listed
            .entry(directory.clone())
            .or_insert_with(|| partial_files(reader, &directory, shown));
        listed.contains(&normalize(path))
    }

    /// Notes which kustomizations and tests a walked directory's listing showed.
    pub(crate) fn listed_in(&mut self, directory: PathBuf, listed: Listed) {
        self.listed_files.insert(directory, listed);
    }

    /// Takes in what another index learnt of listings ([`PatchIndex::listed_in`]).
    pub(crate) fn merge_listed(&mut self, other: PatchIndex) {
        self.listed_files.extend(other.listed_files);
    }

    /// Reads the kustomizations and tests beside these files on every core, ahead of
    /// [`PatchIndex::role`] asking about the files one at a time: a walk of a repository asks
    /// in every directory.
    pub(crate) fn read_beside(&mut self, files: &[PathBuf]) {
        let mut directories: Vec<PathBuf> = files
            .iter()
            .filter(|path| !is_patch_by_name(path))
            .map(|path| path.parent().map(Path::to_path_buf).unwrap_or_default())
            .filter(|directory| !self.listed.contains_key(directory))
            .collect();
        directories.sort();
        directories.dedup();
        let reader = &self.reader;
        let shown = &self.listed_files;
        let listed: Vec<(PathBuf, HashSet<PathBuf>)> = directories
            .into_par_iter()
            .map(|directory| {
                let listed = partial_files(reader, &directory, shown.get(&directory).copied());
                (directory, listed)
            })
            .collect();
        self.listed.extend(listed);
    }
}

/// The files of `directory` that its kustomizations list as patches and its Chainsaw tests as
/// expected state; `shown`, what a listing of it showed, when the walk listed it.
fn partial_files(reader: &Reader, directory: &Path, shown: Option<Listed>) -> HashSet<PathBuf> {
    let may_hold = |name: &str| shown.is_none_or(|shown| shown.may_hold(name));
    let mut listed = listed_patches(reader, directory, may_hold);
    listed.extend(chainsaw_assertions(reader, directory, may_hold));
    listed
}

/// The files a Chainsaw test in `directory` (`chainsaw-test.yaml`) asserts or expects as
/// errors, and the test file itself: expected state with JMESPath expressions, not objects to
/// apply. Files the test applies stay manifests.
fn chainsaw_assertions(
    reader: &Reader,
    directory: &Path,
    may_hold: impl Fn(&str) -> bool,
) -> HashSet<PathBuf> {
    let mut found = HashSet::new();
    for name in CHAINSAW_TEST_FILES
        .into_iter()
        .filter(|name| may_hold(name))
    {
        let test = directory.join(name);
        let Ok(bytes) = reader.read(&test, FileKind::Manifest) else {
            continue;
        };
        found.insert(normalize(&test));
        let text = String::from_utf8_lossy(&bytes);
        for document in yaml::parse_stream(&text) {
            let Some(root) = document.root else { continue };
            let Ok(value) = yaml::to_json(&document, root) else {
                continue;
            };
            let mut files = Vec::new();
            chainsaw_files(&value, &mut files, 0);
            for file in files {
                found.insert(normalize(&directory.join(file)));
            }
        }
    }
    found
}

/// The names Chainsaw reads as a test.
const CHAINSAW_TEST_FILES: [&str; 3] = [
    "chainsaw-test.yaml",
    "chainsaw-test.yml",
    "chainsaw-test.json",
];

/// `file:` of every `assert` and `error` operation, at any depth of the test.
fn chainsaw_files<'a>(value: &'a Value, out: &mut Vec<&'a str>, depth: usize) {
    if depth > 32 {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                if matches!(key.as_str(), "assert" | "error")
                    && let Some(file) = value.get("file").and_then(Value::as_str)
                {
                    out.push(file);
                }
                chainsaw_files(value, out, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                chainsaw_files(item, out, depth + 1);
            }
        }
        _ => {}
    }
}

/// [`PatchIndex::role`] from the name alone, for input without a directory (standard input).
pub(crate) fn role_by_name(path: &Path) -> FileRole {
    if is_patch_by_name(path) {
        FileRole::Patch
    } else {
        FileRole::Manifest
    }
}

pub(crate) fn is_patch_by_name(path: &Path) -> bool {
    is_kustomize_patch_name(path) || is_kuttl_assertion(path)
}

fn is_kustomize_patch_name(path: &Path) -> bool {
    let in_patches_dir = path
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|name| name == "patches");
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let named_patch = stem
        .split(['-', '_', '.'])
        .any(|word| word.eq_ignore_ascii_case("patch") || word.eq_ignore_ascii_case("patches"));
    in_patches_dir || named_patch
}

/// kuttl's assert and error files (`01-assert.yaml`, `03-errors.yaml`,
/// `05-assert-with-default.yaml`) describe the state expected in a cluster, not objects to
/// apply, and are partial by design.
fn is_kuttl_assertion(path: &Path) -> bool {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let Some((step, rest)) = stem.split_once('-') else {
        return false;
    };
    !step.is_empty()
        && step.bytes().all(|b| b.is_ascii_digit())
        && (rest.starts_with("assert") || rest.starts_with("errors"))
}

/// The files a kustomization in `directory` uses as patches.
fn listed_patches(
    reader: &Reader,
    directory: &Path,
    may_hold: impl Fn(&str) -> bool,
) -> HashSet<PathBuf> {
    let mut found = HashSet::new();
    for name in KUSTOMIZATION_FILES
        .into_iter()
        .filter(|name| may_hold(name))
    {
        // A kustomization that cannot be read (missing, or refused: see `safe_fs`) lists
        // nothing; its patches are then linted as manifests, and say so by their findings.
        let Ok(bytes) = reader.read(&directory.join(name), FileKind::Kustomization) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for document in yaml::parse_stream(&text) {
            let Some(root) = document.root else { continue };
            let Ok(value) = yaml::to_json(&document, root) else {
                continue;
            };
            for file in patch_paths(&value) {
                found.insert(normalize(&directory.join(file)));
            }
        }
    }
    found
}

/// Paths under `patchesStrategicMerge` (strings that are file names, not inline patches),
/// and the `path` of each entry of `patches` and `patchesJson6902`.
fn patch_paths(kustomization: &Value) -> Vec<&str> {
    let mut paths = Vec::new();
    if let Some(entries) = kustomization
        .get("patchesStrategicMerge")
        .and_then(Value::as_array)
    {
        paths.extend(
            entries
                .iter()
                .filter_map(Value::as_str)
                .filter(|entry| !entry.contains('\n')),
        );
    }
    for key in ["patches", "patchesJson6902"] {
        if let Some(entries) = kustomization.get(key).and_then(Value::as_array) {
            paths.extend(
                entries
                    .iter()
                    .filter_map(|e| e.get("path"))
                    .filter_map(Value::as_str),
            );
        }
    }
    paths
}

/// Removes `.` and `..` components without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !normalized.pop() {
                    normalized.push("..");
                }
            }
            other => normalized.push(other),
        }
    }
    normalized
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn patch_file_names() {
        for path in [
            "a/job-patch.yaml",
            "delete.patch.yaml",
            "patch_env.yml",
            "x/patches/deployment.yaml",
            "patch.yaml",
        ] {
            assert!(is_patch_by_name(Path::new(path)), "{path}");
        }
        for path in [
            "tests/01-assert.yaml",
            "03-assert-with-view.yaml",
            "00-errors.yaml",
        ] {
            assert!(is_patch_by_name(Path::new(path)), "{path}");
        }
        for path in [
            "dispatcher.yaml",
            "deployment.yaml",
            "patchwork/deployment.yaml",
            "01-install.yaml",
            "assert.yaml",
        ] {
            assert!(!is_patch_by_name(Path::new(path)), "{path}");
        }
    }

    #[test]
    fn kustomization_patch_entries() {
        let kustomization = json!({
            "patchesStrategicMerge": ["set-env.yaml", "apiVersion: v1\nkind: Pod\n"],
            "patches": [{"path": "../common/replicas.yaml"}, {"patch": "inline"}],
            "patchesJson6902": [{"path": "json.yaml", "target": {}}]
        });
        assert_eq!(
            patch_paths(&kustomization),
            ["set-env.yaml", "../common/replicas.yaml", "json.yaml"]
        );
        assert_eq!(
            normalize(Path::new("a/b/../c/./d.yaml")),
            PathBuf::from("a/c/d.yaml")
        );
    }
}
