//! The objects applied together: a PodDisruptionBudget or a HorizontalPodAutoscaler is matched
//! with the workloads of every manifest of its directory, as `kubectl apply -f DIR` applies
//! them together — not only those of its own file. (A rendered chart or overlay is one output,
//! its own scope.)
//!
//! The scope of a directory is gathered before its files are linted and travels in their
//! [`FilePlan`], so that `check`, `explain` and `--fix` lint each file against the same
//! objects and never disagree. Only directories where a file names a budget or an autoscaler
//! get one: elsewhere a file's own scope says the same.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::files::{read_path, text_of};
use super::options::FilePlan;
use crate::discovery::MANIFEST_EXTENSIONS;
use crate::discovery::classify::{FileClass, classify};
use crate::discovery::roles::role_by_name;
use crate::lint::FileRole;
use crate::model::scope::{Placed, Scope, may_hold_scope};
use crate::safe_fs::Reader;
use crate::settings::Settings;
use crate::source::SourceFile;

/// Gives every manifest of a directory that holds a budget or an autoscaler, among `files`,
/// the scope of all the manifests of that directory in `files`. Files that cannot be read are
/// left out of it (linting them reports why).
pub fn share_directory_scopes(files: &mut [(PathBuf, FilePlan)]) {
    let mut by_directory: BTreeMap<&Path, Vec<usize>> = BTreeMap::new();
    for (index, (path, plan)) in files.iter().enumerate() {
        if plan.role == FileRole::Manifest {
            let directory = path.parent().unwrap_or(Path::new(""));
            by_directory.entry(directory).or_default().push(index);
        }
    }
    // One file alone is its own scope already.
    let candidates: Vec<usize> = by_directory
        .into_values()
        .filter(|members| members.len() > 1)
        .flatten()
        .collect();
    let reader = Reader::default();
    let names_matched_kind: Vec<bool> = candidates
        .par_iter()
        .map(|&index| {
            // A directory where no file names a budget or an autoscaler matches nothing
            // across its files.
            read_path(&reader, &files[index].0)
                .is_ok_and(|(_, bytes)| may_hold_scope(&String::from_utf8_lossy(&bytes)))
        })
        .collect();
    let mut shared: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (&index, _) in candidates
        .iter()
        .zip(&names_matched_kind)
        .filter(|(_, named)| **named)
    {
        let directory = directory_of(&files[index].0);
        shared.insert(directory, Vec::new());
    }
    for &index in &candidates {
        if let Some(members) = shared.get_mut(&directory_of(&files[index].0)) {
            members.push(index);
        }
    }
    for members in shared.into_values() {
        let scopes: Vec<Scope> = members
            .par_iter()
            .filter_map(|&index| {
                let (path, plan) = &files[index];
                let (name, bytes) = read_path(&reader, path).ok()?;
                let file = SourceFile::new(name, text_of(bytes).0);
                Some(Scope::read_part(&file, plan.settings.pod_templates()))
            })
            .collect();
        if let Some(why) = alternatives(&scopes) {
            let why: Arc<str> = Arc::from(why);
            for index in members {
                files[index].1.alone_because = Some(Arc::clone(&why));
            }
            continue;
        }
        let scope = Arc::new(Scope::union(scopes));
        for index in members {
            files[index].1.scope = Some(Arc::clone(&scope));
        }
    }
}

/// Why the files of one directory are alternatives rather than one deployment: the first
/// object of a kind, namespace and name that two of them hold.
fn alternatives(parts: &[Scope]) -> Option<String> {
    let mut first: HashMap<(&str, Option<&str>, &str), &Placed> = HashMap::new();
    for part in parts {
        for (object, at) in part.placed_objects() {
            let Some(name) = object.name.as_deref() else {
                continue;
            };
            let key = (object.kind.as_str(), object.namespace.as_deref(), name);
            match first.get(&key) {
                Some(earlier) if earlier.file != at.file => {
                    return Some(format!(
                        "`{}` is in both {} and {}, so the files of this directory are alternatives, not judged together",
                        object.display_name(),
                        earlier.display(),
                        at.display()
                    ));
                }
                Some(_) => {}
                None => {
                    first.insert(key, at);
                }
            }
        }
    }
    None
}

fn directory_of(path: &Path) -> PathBuf {
    path.parent().unwrap_or(Path::new("")).to_path_buf()
}

/// The scope of a file open in the editor, as `check` on its directory gives it: the manifests
/// beside it (read from disk) and its own text as the editor holds it. `None` (with why, when
/// the directory holds alternatives) when the file is its own scope: no file of the directory
/// names a budget or an autoscaler, or the file is not on disk.
pub fn editor_scope(
    path: &Path,
    text: &str,
    settings: &Settings,
    role: FileRole,
) -> (Option<Arc<Scope>>, Option<Arc<str>>) {
    if role != FileRole::Manifest {
        return (None, None);
    }
    let Some(directory) = path.parent() else {
        return (None, None);
    };
    let Ok(entries) = std::fs::read_dir(directory) else {
        return (None, None);
    };
    let reader = Reader::default();
    let kinds = settings.pod_templates();
    let mut siblings: Vec<(PathBuf, String)> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .map(|entry| entry.path())
        .filter(|sibling| sibling.as_path() != path)
        .filter(|sibling| {
            sibling
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| MANIFEST_EXTENSIONS.contains(&e))
                && role_by_name(sibling) == FileRole::Manifest
        })
        .filter_map(|sibling| {
            let (_, bytes) = read_path(&reader, &sibling).ok()?;
            let text = text_of(bytes).0;
            (classify(&sibling, &text) == FileClass::Manifest).then_some((sibling, text))
        })
        .collect();
    if siblings.is_empty()
        || !(may_hold_scope(text) || siblings.iter().any(|(_, t)| may_hold_scope(t)))
    {
        return (None, None);
    }
    siblings.sort();
    let own = SourceFile::new(path.display().to_string(), text.to_owned());
    let mut parts = vec![Scope::read_part(&own, kinds)];
    parts.extend(siblings.into_iter().map(|(sibling, text)| {
        Scope::read_part(&SourceFile::new(sibling.display().to_string(), text), kinds)
    }));
    if let Some(why) = alternatives(&parts) {
        return (None, Some(Arc::from(why)));
    }
    (Some(Arc::new(Scope::union(parts))), None)
}
