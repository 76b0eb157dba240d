//! The files a render may be mapped back onto: the stage's own list of what it copied, and
//! the one reader through which the source maps open any of them.
//!
//! What a renderer prints is the pull request's data: a `# Source:` header, an
//! `config.kubernetes.io/origin` annotation or a `configuredIn` path can name anything
//! (`/home/ci/.ssh/id_rsa`, `web/templates/../../../../etc/shadow`). podcycle never resolves
//! such a path on the file system. A path taken from a render is normalised as text, relative
//! to the stage, and looked up in [`StagedFiles`]: what is absolute, what climbs out of the
//! stage and what the stage did not copy is not opened at all, and the finding stays where the
//! output put it. A file that is listed is read from the copy, checked against the hash of the
//! bytes that were copied, and loaded once, whatever spelling names it; so the source maps'
//! memory and time follow the stage and the output, never the number of ways to name a file.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crate::safe_fs::{self, FileKind};
use crate::source::SourceFile;

/// One file of the stage.
#[derive(Debug)]
struct Entry {
    /// The hash of the bytes copied; `None` for a file the stage holds only by size (larger
    /// than a renderer loads), which is never read.
    hash: Option<[u8; 32]>,
    loaded: OnceLock<Option<Arc<SourceFile>>>,
}

/// What a stage copied, by path relative to the stage's directory (`/`-separated, normalised):
/// the only files a source map, or the report of a render, reads.
pub(crate) struct StagedFiles {
    /// Keeps the copy for as long as the maps read it.
    _dir: Option<Arc<tempfile::TempDir>>,
    /// The stage's directory.
    base: PathBuf,
    entries: BTreeMap<String, Entry>,
    /// Each staged directory or file (relative to `base`) and the user's path for it, longest
    /// first: findings name what users wrote, never the copy.
    names: Vec<(String, PathBuf)>,
    /// How many files were read, for the tests that hold each to one read.
    loads: AtomicUsize,
}

impl std::fmt::Debug for StagedFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagedFiles")
            .field("files", &self.entries.len())
            .finish_non_exhaustive()
    }
}

/// The list a stage builds while it copies.
#[derive(Debug, Default)]
pub(crate) struct StageList {
    entries: BTreeMap<String, Option<[u8; 32]>>,
}

impl StageList {
    /// A file copied with `bytes` at `relative` (to the stage's directory).
    pub(crate) fn copied(&mut self, relative: &Path, bytes: &[u8]) {
        if let Some(key) = key_of_relative(relative) {
            self.entries
                .insert(key, Some(*blake3::hash(bytes).as_bytes()));
        }
    }

    /// A file the stage holds only by its size, never to be read.
    pub(crate) fn held(&mut self, relative: &Path) {
        if let Some(key) = key_of_relative(relative) {
            self.entries.insert(key, None);
        }
    }
}

impl StagedFiles {
    /// The files of `list`, copied under `base`, which `dir` keeps; `names` says how users name
    /// each staged directory or file (relative to `base`).
    pub(crate) fn new(
        list: &StageList,
        base: &Path,
        dir: Option<Arc<tempfile::TempDir>>,
        names: Vec<(String, PathBuf)>,
    ) -> StagedFiles {
        let mut names: Vec<(String, PathBuf)> = names
            .into_iter()
            .map(|(staged, user)| (staged, lexical(&user)))
            .collect();
        names.sort_by_key(|(staged, _)| std::cmp::Reverse(staged.len()));
        StagedFiles {
            _dir: dir,
            base: base.to_owned(),
            entries: list
                .entries
                .iter()
                .map(|(key, hash)| {
                    (
                        key.clone(),
                        Entry {
                            hash: *hash,
                            loaded: OnceLock::new(),
                        },
                    )
                })
                .collect(),
            names,
            loads: AtomicUsize::new(0),
        }
    }

    /// How many files the stage copied.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the stage copied a file at `key`.
    pub(crate) fn contains(&self, key: &str) -> bool {
        self.entries.contains_key(key)
    }

    /// The key of a file named by `path` relative to the staged directory `dir` (both as a
    /// render names them: `/`-separated text), when the stage copied it: `None` for an absolute
    /// path, one that climbs out of the stage, or a file the stage does not hold.
    pub(crate) fn find(&self, dir: &str, path: &str) -> Option<String> {
        if path.starts_with('/') {
            return None;
        }
        let key = normalise(&format!("{dir}/{path}"))?;
        self.contains(&key).then_some(key)
    }

    /// The key of one of the user's files (a path podcycle itself found, such as a patch a
    /// kustomization lists), when the stage copied it.
    pub(crate) fn key_of(&self, path: &Path) -> Option<String> {
        let path = lexical(path);
        self.names.iter().find_map(|(staged, user)| {
            let rest = path.strip_prefix(user).ok()?;
            let rest = key_of_relative(rest).unwrap_or_default();
            let key = if rest.is_empty() {
                staged.clone()
            } else {
                format!("{staged}/{rest}")
            };
            self.contains(&key).then_some(key)
        })
    }

    /// The staged files under the staged directory `dir`, in order.
    pub(crate) fn under<'a>(&'a self, dir: &str) -> impl Iterator<Item = &'a str> + 'a {
        let prefix = format!("{dir}/");
        self.entries
            .range(prefix.clone()..)
            .map(|(key, _)| key.as_str())
            .take_while(move |key| key.starts_with(&prefix))
    }

    /// The text of the staged file `key`, read from the copy once, and only when its bytes are
    /// the ones the stage copied; named as users name the file.
    pub(crate) fn load(&self, key: &str) -> Option<Arc<SourceFile>> {
        let entry = self.entries.get(key)?;
        entry
            .loaded
            .get_or_init(|| {
                let hash = entry.hash?;
                self.loads.fetch_add(1, Ordering::Relaxed);
                let bytes = safe_fs::read_file_within(
                    &self.base.join(key),
                    &self.base,
                    FileKind::ChartFile,
                )
                .ok()?;
                // The copy is read-only to the renderer; a copy that changed is not trusted.
                if *blake3::hash(&bytes).as_bytes() != hash {
                    return None;
                }
                let text = String::from_utf8(bytes).ok()?;
                Some(Arc::new(SourceFile::new(self.shown(key), text)))
            })
            .clone()
    }

    /// How users name the staged file `key`.
    pub(crate) fn shown(&self, key: &str) -> String {
        let named = self.names.iter().find_map(|(staged, user)| {
            if key == staged {
                return Some(user.clone());
            }
            let rest = key.strip_prefix(staged.as_str())?.strip_prefix('/')?;
            Some(user.join(rest))
        });
        match named {
            Some(path) => crate::render::shown_path(&path),
            None => key.to_owned(),
        }
    }

    /// How many files have been read.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn loads(&self) -> usize {
        self.loads.load(Ordering::Relaxed)
    }
}

/// A renderer's refusal, placed only in a file the stage copied: its message is the renderer's,
/// and the file and line it names may be the chart's or overlay's own words (`{{ fail
/// "execution error at (web/templates/../../../x:1:1): " }}`). A refusal placed anywhere else is
/// placed at `fallback` (the chart's `Chart.yaml`, the overlay's kustomization) as a whole.
pub(crate) fn refusal_within(
    verdict: crate::render::Verdict,
    files: &StagedFiles,
    fallback: &Path,
) -> crate::render::Verdict {
    match verdict {
        crate::render::Verdict::Refused(mut refusal) if files.key_of(&refusal.file).is_none() => {
            refusal.file = fallback.to_owned();
            refusal.line = None;
            refusal.column = None;
            refusal.length = 0;
            crate::render::Verdict::Refused(refusal)
        }
        other => other,
    }
}

/// `a/./b/../c` as `a/c`; `None` for a path that climbs above where it starts, or names nothing.
pub(crate) fn normalise(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// A relative path of the stage as a key; `None` when it is not plain UTF-8 names (nothing a
/// render's text names).
fn key_of_relative(relative: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(name) => parts.push(name.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// A path made absolute and normalised as text, without asking the file system.
fn lexical(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    let mut normal = PathBuf::new();
    for component in absolute.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;

    fn staged(files: &[(&str, &str)]) -> (tempfile::TempDir, StagedFiles) {
        let dir = tempfile::tempdir().unwrap();
        let mut list = StageList::default();
        for (path, text) in files {
            let target = dir.path().join(path);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::write(&target, text).unwrap();
            list.copied(Path::new(path), text.as_bytes());
        }
        let files = StagedFiles::new(
            &list,
            dir.path(),
            None,
            vec![("chart/web".to_owned(), PathBuf::from("charts/web"))],
        );
        (dir, files)
    }

    #[test]
    fn paths_are_normalised_as_text_and_never_leave_the_stage() {
        assert_eq!(normalise("a/./b/../c").as_deref(), Some("a/c"));
        assert_eq!(normalise("a/../../b"), None);
        assert_eq!(normalise("a/.."), None);
        let (_dir, files) = staged(&[("chart/web/templates/a.yaml", "kind: Pod\n")]);
        for spelling in [
            "templates/a.yaml",
            "templates/../templates/a.yaml",
            "./templates//a.yaml",
        ] {
            assert_eq!(
                files.find("chart/web", spelling).as_deref(),
                Some("chart/web/templates/a.yaml"),
                "{spelling}"
            );
        }
        for outside in [
            "/etc/passwd",
            "../../../etc/passwd",
            "templates/../../../../etc/passwd",
            "templates/b.yaml",
        ] {
            assert_eq!(files.find("chart/web", outside), None, "{outside}");
        }
    }

    #[test]
    fn each_file_is_read_once_and_only_as_it_was_copied() {
        let (dir, files) = staged(&[
            ("chart/web/templates/a.yaml", "kind: Pod\n"),
            ("chart/web/values.yaml", "a: 1\n"),
        ]);
        for _ in 0..40 {
            let file = files.load("chart/web/templates/a.yaml").unwrap();
            assert_eq!(file.path, "charts/web/templates/a.yaml");
        }
        assert_eq!(files.loads(), 1);
        std::fs::write(dir.path().join("chart/web/values.yaml"), "a: 2\n").unwrap();
        assert!(files.load("chart/web/values.yaml").is_none());
        assert_eq!(
            files
                .key_of(Path::new("charts/web/x/../values.yaml"))
                .as_deref(),
            Some("chart/web/values.yaml")
        );
        assert_eq!(files.key_of(Path::new("charts/web/missing.yaml")), None);
        let under: Vec<&str> = files.under("chart/web/templates").collect();
        assert_eq!(under, ["chart/web/templates/a.yaml"]);
    }
}
