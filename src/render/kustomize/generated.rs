//! Files an overlay needs that the repository generates: a `params.env` that `make deploy`
//! writes, named by a `configMapGenerator`'s `envs`, and that the repository's `.gitignore`
//! keeps out of git. Such a file is never in the stage (only what git tracks, or does not
//! ignore, is given to Kustomize), so the build could only fail; the overlay is not rendered,
//! with the file named, rather than reported as an error the repository has no way to fix. A
//! missing file git does not ignore stays Kustomize's to refuse.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::tree::{Tree, is_remote, normalize};
use crate::render::boundary::Boundary;
use crate::render::files::read_text;

/// A file a kustomization loads that git ignores and the stage does not hold.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct GeneratedNeed {
    /// The file, relative to the repository's root.
    pub(crate) file: String,
    /// The field that names it: `configMapGenerator[0].envs[0]`.
    pub(crate) field: String,
    /// The kustomization it is named in, as users name it.
    pub(crate) kustomization: String,
}

impl std::fmt::Display for GeneratedNeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "needs {} (`{}` of {}), which git ignores: a generated file",
            crate::render::printable(&self.file),
            crate::render::printable(&self.field),
            crate::render::printable(&self.kustomization),
        )
    }
}

/// The first file the tree's kustomizations load that the repository's `.gitignore` files
/// ignore and that is not in the stage (`repository_copy`, the copy of `boundary`'s root).
/// Outside a git repository nothing is ignored by git.
pub(crate) fn ignored_need(
    tree: &Tree,
    boundary: &Boundary,
    repository_copy: &Path,
) -> Option<GeneratedNeed> {
    let root = boundary.root();
    if std::fs::symlink_metadata(root.join(".git")).is_err() {
        return None;
    }
    let mut ignores = Ignores::default();
    for kustomization in &tree.kustomizations {
        for load in &kustomization.loads {
            if is_remote(&load.value) {
                continue;
            }
            let Some(relative) = in_repository(&kustomization.dir.join(&load.value), root) else {
                continue;
            };
            if relative.as_os_str().is_empty()
                || std::fs::symlink_metadata(repository_copy.join(&relative)).is_ok()
            {
                continue;
            }
            let path = root.join(&relative);
            if ignores.ignored(root, &path) {
                return Some(GeneratedNeed {
                    file: relative.display().to_string(),
                    field: load.field.clone(),
                    kustomization: crate::render::shown_path(&kustomization.file),
                });
            }
        }
    }
    None
}

/// `path` relative to the repository's (canonical) `root`: its directory resolved, as the
/// stage resolves it, the file itself perhaps missing.
fn in_repository(path: &Path, root: &Path) -> Option<PathBuf> {
    let path = normalize(path);
    let parent = path.parent()?.canonicalize().ok()?;
    let relative = parent.strip_prefix(root).ok()?.join(path.file_name()?);
    Some(relative)
}

/// The `.gitignore` matchers of a repository's directories, each read once.
#[derive(Default)]
struct Ignores(HashMap<PathBuf, Option<Gitignore>>);

impl Ignores {
    /// Whether git ignores `path` (under `root`) by the repository's `.gitignore` files: the
    /// nearest file with a pattern that matches the path or a directory above it decides, a
    /// `!pattern` re-including it (gitignore(5)).
    fn ignored(&mut self, root: &Path, path: &Path) -> bool {
        let is_dir = path.is_dir();
        for dir in path.ancestors().skip(1) {
            if !dir.starts_with(root) {
                break;
            }
            let matcher = self
                .0
                .entry(dir.to_owned())
                .or_insert_with(|| gitignore_of(dir));
            if let Some(matcher) = matcher {
                let matched = matcher.matched_path_or_any_parents(path, is_dir);
                if matched.is_ignore() {
                    return true;
                }
                if matched.is_whitelist() {
                    return false;
                }
            }
        }
        false
    }
}

/// The patterns of `dir/.gitignore`, read as podcycle reads every file a pull request
/// controls; none when there is no such file or podcycle does not read it.
fn gitignore_of(dir: &Path) -> Option<Gitignore> {
    let text = read_text(&dir.join(".gitignore")).ok()?;
    let mut builder = GitignoreBuilder::new(dir);
    for line in text.lines() {
        // A line the matcher cannot read matches nothing, as git skips it.
        let _ = builder.add_line(None, line);
    }
    builder.build().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_gitignore_decides() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join(".gitignore"), "*.env\n/build/\n").unwrap();
        std::fs::write(root.join("a/.gitignore"), "!keep.env\n").unwrap();
        let mut ignores = Ignores::default();
        assert!(ignores.ignored(&root, &root.join("a/b/params.env")));
        assert!(!ignores.ignored(&root, &root.join("a/b/keep.env")));
        assert!(ignores.ignored(&root, &root.join("build/out.yaml")));
        assert!(!ignores.ignored(&root, &root.join("a/build/out.yaml")));
        assert!(!ignores.ignored(&root, &root.join("a/b/deploy.yaml")));
    }
}
