//! The private copy of a chart that Helm renders.
//!
//! Helm's loader follows every symbolic link of a chart directory (it logs them and goes on),
//! so Helm never sees the user's tree: podcycle copies the chart, its vendored dependencies and
//! the values files into a temporary directory with its own safe reader, resolving each link
//! that stays in the repository itself and refusing the chart when one leaves it or reaches
//! `.git`, `/proc`, `/dev` or `/sys` (see [`super::super::boundary`]). The copy holds no link
//! at all, so there is nothing left for Helm to follow. Files inside a `.git` directory are not
//! copied: they are never part of a chart.

use std::io;
use std::path::{Path, PathBuf};

use crate::render::boundary::{Boundary, Escape};
use crate::safe_fs::{self, FileKind, ReadError, describe_io_error};

/// The most podcycle copies of a chart directory (Helm's own limit for a chart archive,
/// `MaxDecompressedChartSize`; it has none for a directory, whose `.helmignore` may leave out
/// much more).
const MAX_COPY_BYTES: u64 = 100 * 1024 * 1024;
/// Directories nested deeper than this are refused (a link cycle made of many links).
const MAX_DEPTH: usize = 64;

/// A chart copied for Helm, and how to name its copies in messages.
#[derive(Debug)]
pub(crate) struct Staged {
    /// Removed with the copy.
    _dir: tempfile::TempDir,
    /// The temporary directory that holds the copies, which Helm's messages may name.
    pub base: PathBuf,
    /// The chart's copy.
    pub chart: PathBuf,
    /// The values files' copies, in the order given.
    pub values: Vec<PathBuf>,
    /// Each temporary path and the user's name for it, longest first: renderer messages name
    /// the copies, findings and notes name what users wrote.
    pub names: Vec<(String, String)>,
    /// A hash of everything Helm can read in the copy: each directory's and file's path in it,
    /// and each file's bytes; then the values files. The render cache's key is made from it.
    pub digest: [u8; 32],
}

impl Staged {
    /// `text` with every path of the copy replaced by the user's name for it.
    pub(crate) fn clean(&self, text: &str) -> String {
        crate::render::clean_paths(text, &self.names)
    }
}

/// Why a chart was not copied for Helm. Each names the chart's files as users know them
/// (`shown`), never the copy.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StageError {
    /// A link that leaves the repository or reaches what renderers must not read.
    #[error(transparent)]
    Refused(#[from] Escape),
    /// The chart directory itself resolves outside the repository.
    #[error(
        "the chart directory leads to {}, outside the repository ({})",
        resolved.display(),
        root.display()
    )]
    ChartOutside { resolved: PathBuf, root: PathBuf },
    #[error(
        "`{shown}` is a symbolic link to a directory that holds it; Helm would read it without end"
    )]
    LinkLoop { shown: String },
    #[error("`{shown}` is nested more than {MAX_DEPTH} directories deep")]
    TooDeep { shown: String },
    #[error(
        "the chart directory holds more than {} MiB, the most podcycle copies for Helm",
        MAX_COPY_BYTES >> 20
    )]
    TooLarge,
    /// A file of the chart, or a values file, that podcycle does not read.
    #[error("`{shown}`: {source}")]
    Unreadable {
        shown: String,
        #[source]
        source: ReadError,
    },
    #[error("values file {shown}: {source}")]
    ValuesFile {
        shown: String,
        #[source]
        source: ReadError,
    },
    /// The chart directory cannot be found.
    #[error("{shown}: {}", describe_io_error(source))]
    NoChart {
        shown: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot read `{shown}`: {}", describe_io_error(source))]
    ListDir {
        shown: String,
        #[source]
        source: io::Error,
    },
    /// A file of the chart whose kind cannot be learnt.
    #[error("`{shown}`: {}", describe_io_error(source))]
    Metadata {
        shown: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot create a temporary directory: {0}")]
    TempDir(#[source] io::Error),
    #[error("cannot copy the chart: {0}")]
    Copy(#[source] io::Error),
}

/// Copies `chart` (shown to users as `shown`) and the values files into a new temporary
/// directory.
pub(crate) fn stage(chart: &Path, shown: &str, values: &[PathBuf]) -> Result<Staged, StageError> {
    let dir = tempfile::Builder::new()
        .prefix("podcycle-chart-")
        .tempdir()
        .map_err(StageError::TempDir)?;
    let base = std::path::absolute(dir.path()).map_err(StageError::TempDir)?;
    let name = chart
        .canonicalize()
        .ok()
        .and_then(|c| c.file_name().map(ToOwned::to_owned))
        .unwrap_or_else(|| "chart".into());
    let copy = base.join("chart").join(name);
    let boundary = Boundary::of(chart);
    let mut copier = Copier {
        boundary: &boundary,
        bytes: 0,
        within: Vec::new(),
        base: base.clone(),
        digest: blake3::Hasher::new(),
    };
    let source = chart.canonicalize().map_err(|source| StageError::NoChart {
        shown: shown.to_owned(),
        source,
    })?;
    if !source.starts_with(boundary.root()) {
        return Err(StageError::ChartOutside {
            resolved: source,
            root: boundary.root().to_owned(),
        });
    }
    copier.copy_dir(&source, &copy, shown, 0)?;
    let mut names = vec![(copy.to_string_lossy().into_owned(), shown.to_owned())];
    let mut copies = Vec::new();
    for (index, path) in values.iter().enumerate() {
        let shown_values = crate::render::display(path);
        let within = Boundary::of(path.parent().unwrap_or(Path::new(".")));
        let bytes = safe_fs::read_file_within(path, within.root(), FileKind::Manifest).map_err(
            |source| StageError::ValuesFile {
                shown: shown_values.clone(),
                source,
            },
        )?;
        let target = base.join("values").join(format!("{index}.yaml"));
        write(&target, &bytes)?;
        copier.record(b'v', &target, &bytes);
        names.push((target.to_string_lossy().into_owned(), shown_values));
        copies.push(target);
    }
    names.push((base.to_string_lossy().into_owned(), ".".to_owned()));
    names.sort_by_key(|(temporary, _)| std::cmp::Reverse(temporary.len()));
    Ok(Staged {
        _dir: dir,
        base,
        chart: copy,
        values: copies,
        names,
        digest: *copier.digest.finalize().as_bytes(),
    })
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), StageError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(StageError::Copy)?;
    }
    std::fs::write(path, bytes).map_err(StageError::Copy)
}

struct Copier<'a> {
    boundary: &'a Boundary,
    bytes: u64,
    /// The source directories being copied, outermost first: a link back to one of them
    /// would copy without end.
    within: Vec<PathBuf>,
    /// The temporary directory: paths in the digest are relative to it.
    base: PathBuf,
    digest: blake3::Hasher,
}

impl Copier<'_> {
    /// Adds an entry of the copy to the digest: its kind, its path in the copy and its bytes,
    /// each length-prefixed.
    fn record(&mut self, kind: u8, target: &Path, bytes: &[u8]) {
        let relative = target.strip_prefix(&self.base).unwrap_or(target);
        let relative = relative.as_os_str().as_encoded_bytes();
        self.digest.update(&[kind]);
        self.digest.update(&(relative.len() as u64).to_le_bytes());
        self.digest.update(relative);
        self.digest.update(&(bytes.len() as u64).to_le_bytes());
        self.digest.update(bytes);
    }

    /// Copies the directory `source` (canonical) to `target`; `shown` names it in messages.
    fn copy_dir(
        &mut self,
        source: &Path,
        target: &Path,
        shown: &str,
        depth: usize,
    ) -> Result<(), StageError> {
        if depth > MAX_DEPTH {
            return Err(StageError::TooDeep {
                shown: shown.to_owned(),
            });
        }
        std::fs::create_dir_all(target).map_err(StageError::Copy)?;
        self.record(b'd', target, b"");
        let entries = std::fs::read_dir(source).map_err(|source| StageError::ListDir {
            shown: shown.to_owned(),
            source,
        })?;
        let mut names: Vec<std::ffi::OsString> = entries
            .filter_map(|entry| entry.ok().map(|e| e.file_name()))
            .collect();
        names.sort();
        self.within.push(source.to_owned());
        for name in names {
            if name == ".git" {
                continue;
            }
            let path = source.join(&name);
            let shown = format!("{shown}/{}", name.to_string_lossy());
            self.copy_entry(&path, &target.join(&name), &shown, depth)?;
        }
        self.within.pop();
        Ok(())
    }

    fn copy_entry(
        &mut self,
        path: &Path,
        target: &Path,
        shown: &str,
        depth: usize,
    ) -> Result<(), StageError> {
        let no_metadata = |source| StageError::Metadata {
            shown: shown.to_owned(),
            source,
        };
        let metadata = std::fs::symlink_metadata(path).map_err(no_metadata)?;
        let (resolved, metadata) = if metadata.file_type().is_symlink() {
            let resolved = self.boundary.resolve(path, shown)?;
            let metadata = std::fs::metadata(&resolved).map_err(no_metadata)?;
            (resolved, metadata)
        } else {
            (path.to_owned(), metadata)
        };
        if metadata.is_dir() {
            if self.within.iter().any(|dir| dir.starts_with(&resolved)) {
                return Err(StageError::LinkLoop {
                    shown: shown.to_owned(),
                });
            }
            return self.copy_dir(&resolved, target, shown, depth + 1);
        }
        let bytes =
            match safe_fs::read_file_within(&resolved, self.boundary.root(), FileKind::ChartFile) {
                Ok(bytes) => bytes,
                Err(ReadError::TooLarge { .. }) => {
                    // Larger than Helm loads: a file of the same kind of size, left empty, so
                    // that Helm refuses it in its own words, or skips it when `.helmignore`
                    // says so, without podcycle reading it.
                    let size = FileKind::ChartFile.max_bytes() + 1;
                    self.record(b'p', target, &size.to_le_bytes());
                    return placeholder(target, size);
                }
                Err(source) => {
                    return Err(StageError::Unreadable {
                        shown: shown.to_owned(),
                        source,
                    });
                }
            };
        self.bytes += bytes.len() as u64;
        if self.bytes > MAX_COPY_BYTES {
            return Err(StageError::TooLarge);
        }
        self.record(b'f', target, &bytes);
        write(target, &bytes)
    }
}

/// An empty file of `size` bytes (sparse: it takes no room).
fn placeholder(target: &Path, size: u64) -> Result<(), StageError> {
    write(target, b"")?;
    std::fs::OpenOptions::new()
        .write(true)
        .open(target)
        .and_then(|file| file.set_len(size))
        .map_err(StageError::Copy)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn repository() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "token").unwrap();
        std::fs::create_dir_all(root.join("web/templates")).unwrap();
        std::fs::write(root.join("web/Chart.yaml"), "name: web\n").unwrap();
        std::fs::write(root.join("web/templates/a.yaml"), "kind: Pod\n").unwrap();
        std::fs::write(root.join("shared.tpl"), "{{ define \"x\" }}{{ end }}\n").unwrap();
        (dir, root)
    }

    #[test]
    fn links_inside_the_repository_are_copied_as_files() {
        let (_dir, root) = repository();
        symlink("../../shared.tpl", root.join("web/templates/_shared.tpl")).unwrap();
        symlink("templates", root.join("web/more")).unwrap();
        let staged = stage(&root.join("web"), "web", &[]).unwrap();
        let copied = |path: &str| std::fs::symlink_metadata(staged.chart.join(path)).unwrap();
        assert!(copied("templates/_shared.tpl").is_file());
        assert!(copied("more").is_dir());
        assert!(copied("more/a.yaml").is_file());
        assert_eq!(
            staged.clean(&format!("{}/templates/x.yaml", staged.chart.display())),
            "web/templates/x.yaml"
        );
    }

    #[test]
    fn links_out_of_the_repository_or_into_git_refuse_the_chart() {
        for target in ["/etc/passwd", "../../.git/config", "/proc/self/environ"] {
            let (_dir, root) = repository();
            symlink(target, root.join("web/templates/leak")).unwrap();
            let error = stage(&root.join("web"), "web", &[]).unwrap_err();
            assert!(matches!(error, StageError::Refused(_)), "{target}: {error}");
            let error = error.to_string();
            assert!(
                error.starts_with(&format!(
                    "`web/templates/leak` is a symbolic link to `{target}`"
                )),
                "{target}: {error}"
            );
            assert!(!error.contains("token"), "{error}");
        }
        let (_dir, root) = repository();
        symlink("..", root.join("web/templates/loop")).unwrap();
        let error = stage(&root.join("web"), "web", &[]).unwrap_err();
        assert!(matches!(error, StageError::LinkLoop { .. }), "{error}");
        assert!(
            error.to_string().contains("a directory that holds it"),
            "{error}"
        );
    }

    #[test]
    fn values_files_are_read_the_same_way() {
        let (_dir, root) = repository();
        std::fs::write(root.join("prod.yaml"), "a: 1\n").unwrap();
        symlink(".git/config", root.join("gc.yaml")).unwrap();
        let staged = stage(&root.join("web"), "web", &[root.join("prod.yaml")]).unwrap();
        assert_eq!(std::fs::read(&staged.values[0]).unwrap(), b"a: 1\n");
        let error = stage(&root.join("web"), "web", &[root.join("gc.yaml")]).unwrap_err();
        assert!(
            matches!(
                &error,
                StageError::ValuesFile {
                    source: ReadError::LinkIntoGit { .. },
                    ..
                }
            ),
            "{error}"
        );
        assert!(
            error.to_string().contains("inside a `.git` directory"),
            "{error}"
        );
    }

    /// A file larger than Helm loads is not read: Helm gets one of that size and says so, or
    /// skips it when `.helmignore` does.
    #[test]
    fn files_larger_than_helm_loads_are_left_to_helm() {
        let (_dir, root) = repository();
        let big = std::fs::File::create(root.join("web/big.bin")).unwrap();
        big.set_len(FileKind::ChartFile.max_bytes() * 2).unwrap();
        let staged = stage(&root.join("web"), "web", &[]).unwrap();
        let copied = std::fs::metadata(staged.chart.join("big.bin")).unwrap();
        assert_eq!(copied.len(), FileKind::ChartFile.max_bytes() + 1);
    }

    #[test]
    fn special_files_refuse_the_chart() {
        let (_dir, root) = repository();
        let fifo = root.join("web/pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let error = stage(&root.join("web"), "web", &[]).unwrap_err();
        assert!(matches!(error, StageError::Unreadable { .. }), "{error}");
        assert!(error.to_string().contains("a named pipe (FIFO)"), "{error}");
    }
}
