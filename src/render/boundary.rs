//! What a chart or overlay may read: the files of the repository it is in, and nothing of the
//! repository's `.git` directory.
//!
//! Helm follows every symbolic link in a chart, and Kustomize follows links to what a
//! kustomization names: `files/passwd -> /etc/passwd` read with `.Files.Get`, or
//! `files/gc -> ../../.git/config` (the checkout's token under GitHub's default
//! `persist-credentials`), would be printed in findings. A link that stays in the repository is
//! fine; one that leaves it, or reaches `.git`, `/proc`, `/dev` or `/sys`, makes the chart or
//! overlay "not rendered", with the link named and its target never opened.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// The directory a chart or overlay may read below.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Boundary {
    /// Canonical.
    root: PathBuf,
}

impl Boundary {
    /// The repository `dir` is in: the nearest directory at or above it that holds `.git` (git's
    /// top level), else the nearest that holds a `.podcycle.yaml` (the configuration's root),
    /// else the current directory when `dir` is under it, else `dir` itself.
    pub(crate) fn of(dir: &Path) -> Boundary {
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_owned());
        let dir = dir.canonicalize().unwrap_or(dir);
        let holding = |marker: &str| {
            dir.ancestors()
                .find(|ancestor| std::fs::symlink_metadata(ancestor.join(marker)).is_ok())
                .map(Path::to_owned)
        };
        let cwd = std::env::current_dir()
            .ok()
            .and_then(|cwd| cwd.canonicalize().ok())
            .filter(|cwd| dir.starts_with(cwd));
        let root = holding(".git")
            // The configuration file's name (`config` is above this layer).
            .or_else(|| holding(".podcycle.yaml"))
            .or(cwd)
            .unwrap_or_else(|| dir.clone());
        Boundary { root }
    }
    /// A boundary at `root` (made canonical).
    pub(crate) fn at(root: &Path) -> Boundary {
        Boundary {
            root: root.canonicalize().unwrap_or_else(|_| root.to_owned()),
        }
    }

    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Where `path` leads once every symbolic link on the way is followed, when that is a place
    /// a renderer may read: under the root, outside `.git`. `shown` is how the path is named in
    /// the refusal.
    pub(crate) fn resolve(&self, path: &Path, shown: &str) -> Result<PathBuf, Escape> {
        let escape = |why| Escape {
            path: shown.to_owned(),
            target: link_text(path),
            why,
        };
        let target = match path.canonicalize() {
            Ok(target) => target,
            Err(_) if std::fs::symlink_metadata(path).is_ok() => {
                return Err(escape(Why::Dangling));
            }
            // Missing altogether: the renderer's to report, as it would anywhere.
            Err(_) => return Ok(path.to_owned()),
        };
        if ["/proc", "/dev", "/sys"]
            .iter()
            .any(|system| target.starts_with(system))
        {
            return Err(escape(Why::System));
        }
        if !target.starts_with(&self.root) {
            return Err(escape(Why::Outside(self.root.clone())));
        }
        if in_git(&target, &self.root) && !in_git(&normalize(path), &self.root) {
            return Err(escape(Why::Git));
        }
        Ok(target)
    }

    /// Whether `path` names a place in the repository's `.git` (or any `.git` below the root).
    pub(crate) fn names_git(&self, path: &Path) -> bool {
        in_git(&normalize(path), &self.root)
    }
}

fn in_git(path: &Path, root: &Path) -> bool {
    crate::safe_fs::in_git_directory(path, root)
}

/// `path` with `.` and `..` resolved by name, without touching the file system (a `..` past
/// the start of a relative path is kept).
pub(crate) fn normalize(path: &Path) -> PathBuf {
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

/// What a link says, as committed (`/etc/passwd`, `../../.git/config`), for the message; the
/// path itself when it is not a link but a directory on its way is.
fn link_text(path: &Path) -> String {
    match std::fs::read_link(path) {
        Ok(target) => target.to_string_lossy().into_owned(),
        Err(_) => path
            .canonicalize()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// A path a renderer must not read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Escape {
    /// The link (or the path through a linked directory), as users know it.
    pub(crate) path: String,
    /// Where it points, as written in the link.
    pub(crate) target: String,
    pub(crate) why: Why,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Why {
    Outside(PathBuf),
    Git,
    System,
    Dangling,
}

impl fmt::Display for Escape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let link = format!("`{}` is a symbolic link to `{}`", self.path, self.target);
        match &self.why {
            Why::Outside(root) => write!(
                f,
                "{link}, outside the repository ({}); podcycle does not let renderers follow links out of it",
                root.display()
            ),
            Why::Git => write!(
                f,
                "{link}, inside a `.git` directory; podcycle does not let renderers read version control data"
            ),
            Why::System => write!(
                f,
                "{link}, a file of the system; podcycle does not let renderers follow links out of the repository"
            ),
            Why::Dangling => write!(f, "{link}, which does not exist"),
        }
    }
}

impl std::error::Error for Escape {}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn links_in_the_repository_resolve_and_others_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "x").unwrap();
        std::fs::create_dir_all(root.join("chart/files")).unwrap();
        std::fs::write(root.join("shared.txt"), "x").unwrap();
        let boundary = Boundary::of(&root.join("chart"));
        assert_eq!(boundary.root(), root);
        let link = |name: &str, target: &str| {
            let path = root.join("chart/files").join(name);
            symlink(target, &path).unwrap();
            path
        };
        let inside = link("shared", "../../shared.txt");
        assert_eq!(
            boundary.resolve(&inside, "files/shared").unwrap(),
            root.join("shared.txt")
        );
        let passwd = link("passwd", "/etc/passwd");
        let error = boundary.resolve(&passwd, "files/passwd").unwrap_err();
        assert!(matches!(error.why, Why::Outside(_)), "{error}");
        assert!(
            error
                .to_string()
                .starts_with("`files/passwd` is a symbolic link to `/etc/passwd`, outside"),
            "{error}"
        );
        let git = link("gc", "../../.git/config");
        assert_eq!(
            boundary.resolve(&git, "files/gc").unwrap_err().why,
            Why::Git
        );
        let environ = link("environ", "/proc/self/environ");
        assert_eq!(
            boundary.resolve(&environ, "files/environ").unwrap_err().why,
            Why::System
        );
        let dangling = link("gone", "nowhere");
        assert_eq!(
            boundary.resolve(&dangling, "files/gone").unwrap_err().why,
            Why::Dangling
        );
    }
}
