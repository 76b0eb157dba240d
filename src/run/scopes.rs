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
use crate::lint::FileRole;
use crate::model::scope::{Placed, Scope, may_hold_scope};
use crate::safe_fs::Reader;
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
        // Every directory here has more than one manifest and one that names a budget or an
        // autoscaler.
        let decided = directory_scope(members.len(), true, || {
            members
                .par_iter()
                .filter_map(|&index| {
                    let (path, plan) = &files[index];
                    let (name, bytes) = read_path(&reader, path).ok()?;
                    let file = SourceFile::new(name, text_of(bytes).0);
                    Some(Scope::read_part(&file, plan.settings.pod_templates()))
                })
                .collect()
        });
        match decided {
            DirectoryScope::Own => {}
            DirectoryScope::Alternatives(why) => {
                for index in members {
                    files[index].1.alone_because = Some(Arc::clone(&why));
                }
            }
            DirectoryScope::Shared(scope) => {
                for index in members {
                    files[index].1.scope = Some(Arc::clone(&scope));
                }
            }
        }
    }
}

/// How the manifests of one directory are judged.
#[derive(Clone, Debug)]
pub(crate) enum DirectoryScope {
    /// Each file is its own scope: the directory has one manifest, or none names a budget or
    /// an autoscaler.
    Own,
    /// Two files hold one object: each file is its own scope, for this reason.
    Alternatives(Arc<str>),
    /// One scope of every manifest of the directory.
    Shared(Arc<Scope>),
}

/// How `check` judges the manifests of a directory, decided from what they hold — the one
/// decision `check` ([`share_directory_scopes`]) and the language server's workspace index
/// make, so that they cannot drift apart. `members`: the directory's manifests, those that
/// cannot be read among them; `names`: whether the text of one of them names a budget or an
/// autoscaler ([`may_hold_scope`]); `parts`: the parts ([`Scope::read_part`]) of those that can
/// be read, asked for only when the directory is judged together.
pub(crate) fn directory_scope(
    members: usize,
    names: bool,
    parts: impl FnOnce() -> Vec<Scope>,
) -> DirectoryScope {
    if members < 2 || !names {
        return DirectoryScope::Own;
    }
    let parts = parts();
    match alternatives(&parts) {
        Some(why) => DirectoryScope::Alternatives(Arc::from(why)),
        None => DirectoryScope::Shared(Arc::new(Scope::union(parts))),
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
