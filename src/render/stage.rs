//! The stage: the private copy of a chart or an overlay's tree that a renderer reads, and the
//! only files it may read ([`super::sandbox`] has the kernel hold it there).
//!
//! A renderer never sees the user's tree. podcycle copies what it may read into a temporary
//! directory with its own safe reader:
//! - only the files git tracks (outside a git repository, every file): never `.git`, and never
//!   an untracked file, such as the credentials an earlier CI step wrote into the checkout;
//! - each symbolic link that stays in the repository resolved by podcycle itself, and the
//!   input refused when one leaves it or reaches `.git`, `/proc`, `/dev` or `/sys` (see
//!   `render::boundary`). The copy holds no link at all, so there is nothing left to follow.
//!
//! The stage's digest covers every path and byte in it: the render cache keys a render by it,
//! so that nothing a renderer could read escapes the key.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::render::boundary::{Boundary, Escape};
use crate::render::staged::{StageList, StagedFiles};
use crate::safe_fs::{self, FileKind, ReadError, describe_io_error};

/// The files a renderer may be given in a repository, relative to its top level; `None`
/// outside git, where every file counts.
#[derive(Debug)]
pub(crate) struct Tracked {
    files: Option<HashSet<PathBuf>>,
    /// Every directory that holds one of `files`, the root's (empty) path among them.
    dirs: HashSet<PathBuf>,
    root: PathBuf,
    untrusted: bool,
}

impl Tracked {
    /// Whether the file (or link) at `path` (under the root) may be staged.
    fn allows(&self, path: &Path) -> bool {
        match (&self.files, path.strip_prefix(&self.root)) {
            (None, _) => true,
            (Some(files), Ok(relative)) => files.contains(relative),
            (Some(_), Err(_)) => false,
        }
    }

    /// Whether the directory at `path` (under the root) holds a file that may be staged: any
    /// other is not walked at all (an ignored `node_modules/`, a virtual environment's links).
    fn holds(&self, path: &Path) -> bool {
        match (&self.files, path.strip_prefix(&self.root)) {
            (None, _) => true,
            (Some(_), Ok(relative)) => self.dirs.contains(relative),
            (Some(_), Err(_)) => false,
        }
    }
}

/// The listings of what renderers may be given, made once per run (a [`super::Tools`] holds
/// them) and repository.
#[derive(Debug, Default)]
pub(crate) struct Listings(Mutex<Vec<Arc<Tracked>>>);

impl Listings {
    /// The files a renderer may be given in the repository at `root` (a [`Boundary`]'s root):
    /// those git tracks; and, unless `untrusted`, the new files git does not ignore, so that a
    /// chart being written renders before it is added (an ignored file — a local `.env` —
    /// never). In untrusted mode an untracked file is never given: it was not in the pull
    /// request, so something on the machine wrote it.
    pub(crate) fn tracked(&self, root: &Path, untrusted: bool) -> Result<Arc<Tracked>, StageError> {
        let found = self.0.lock().ok().and_then(|listed| {
            listed
                .iter()
                .find(|t| t.root == root && t.untrusted == untrusted)
                .cloned()
        });
        if let Some(found) = found {
            return Ok(found);
        }
        let files = if std::fs::symlink_metadata(root.join(".git")).is_ok() {
            Some(git_ls_files(root, untrusted)?)
        } else {
            None
        };
        let mut dirs = HashSet::new();
        for file in files.iter().flatten() {
            for dir in file.ancestors().skip(1) {
                if !dirs.insert(dir.to_owned()) {
                    break;
                }
            }
        }
        let tracked = Arc::new(Tracked {
            files,
            dirs,
            root: root.to_owned(),
            untrusted,
        });
        if let Ok(mut listed) = self.0.lock() {
            listed.push(Arc::clone(&tracked));
        }
        Ok(tracked)
    }
}

/// `git ls-files`, run with no configuration beyond the repository's own and nothing in it
/// that starts a program (`core.fsmonitor`).
fn git_ls_files(root: &Path, untrusted: bool) -> Result<HashSet<PathBuf>, StageError> {
    let failed = |why: String| StageError::Tracked {
        root: root.to_owned(),
        why,
    };
    let git = absolute_git().ok_or_else(|| failed("git is not on PATH".to_owned()))?;
    let output = std::process::Command::new(git)
        .arg("-C")
        .arg(root)
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.untrackedCache=false",
            "ls-files",
            "-z",
            "--cached",
        ])
        .args(if untrusted {
            &[][..]
        } else {
            &["--others", "--exclude-standard"][..]
        })
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| failed(format!("cannot run git: {}", describe_io_error(&e))))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let line = stderr.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
        return Err(failed(format!(
            "git ls-files failed: {}",
            crate::escape::escape_controls(line.trim())
        )));
    }
    Ok(output
        .stdout
        .split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(path_of_bytes)
        .collect())
}

/// `git` from the directories of `PATH` that are absolute: a relative entry (`.`, or an empty
/// one) would find a `git` the checkout holds.
fn absolute_git() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(if cfg!(windows) { "git.exe" } else { "git" }))
        .find(|candidate| candidate.is_file())
}

#[cfg(unix)]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(bytes))
}

#[cfg(not(unix))]
fn path_of_bytes(bytes: &[u8]) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(bytes).replace('/', "\\"))
}

/// The most podcycle copies of a chart directory (Helm's own limit for a chart archive,
/// `MaxDecompressedChartSize`; it has none for a directory, whose `.helmignore` may leave out
/// much more).
const MAX_COPY_BYTES: u64 = 100 * 1024 * 1024;
/// Directories nested deeper than this are refused (a link cycle made of many links).
const MAX_DEPTH: usize = 64;
/// The most files and directories one stage holds: links that fan out to the same directories
/// would otherwise copy them without end.
const MAX_ENTRIES: usize = 50_000;

/// A chart copied for Helm, and how to name its copies in messages.
#[derive(Debug)]
pub(crate) struct Staged {
    /// Removed with the copy, once nothing reads it ([`Staged::files`]).
    dir: Arc<tempfile::TempDir>,
    /// The temporary directory that holds the copies, which Helm's messages may name.
    pub(crate) base: PathBuf,
    /// The chart's copy.
    pub(crate) chart: PathBuf,
    /// The values files' copies, in the order given.
    pub(crate) values: Vec<PathBuf>,
    /// Each temporary path and the user's name for it, longest first: renderer messages name
    /// the copies, findings and notes name what users wrote.
    pub(crate) names: Vec<(String, String)>,
    /// A hash of everything Helm can read in the copy: each directory's and file's path in it,
    /// and each file's bytes; then the values files. The render cache's key is made from it.
    pub(crate) digest: [u8; 32],
    /// Every file copied.
    list: StageList,
}

impl Staged {
    /// `text` with every path of the copy replaced by the user's name for it.
    pub(crate) fn clean(&self, text: &str) -> String {
        crate::render::clean_paths(text, &self.names)
    }

    /// What was copied, for the source map: the chart's files as the user's `chart` names
    /// them, and the values files as `values` does.
    pub(crate) fn files(&self, chart: &Path, values: &[PathBuf]) -> StagedFiles {
        let mut names = vec![(self.chart_key(), chart.to_owned())];
        for (copy, user) in self.values.iter().zip(values) {
            names.push((self.key(copy), user.clone()));
        }
        StagedFiles::new(&self.list, &self.base, Some(Arc::clone(&self.dir)), names)
    }

    /// The chart's copy, as a key of [`Staged::files`].
    pub(crate) fn chart_key(&self) -> String {
        self.key(&self.chart)
    }

    /// The values files' copies, as keys of [`Staged::files`].
    pub(crate) fn values_keys(&self) -> Vec<String> {
        self.values.iter().map(|copy| self.key(copy)).collect()
    }

    fn key(&self, copy: &Path) -> String {
        copy.strip_prefix(&self.base)
            .unwrap_or(copy)
            .to_string_lossy()
            .replace(std::path::MAIN_SEPARATOR, "/")
    }
}

/// Why a chart was not copied for Helm. Each names the chart's files as users know them
/// (`shown`), never the copy.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StageError {
    /// A link that leaves the repository or reaches what renderers must not read.
    #[error(transparent)]
    Refused(#[from] Escape),
    /// A directory to copy (a chart's, a kustomization's) resolves outside the repository.
    #[error(
        "the directory leads to {}, outside the repository ({})",
        resolved.display(),
        root.display()
    )]
    Outside { resolved: PathBuf, root: PathBuf },
    #[error(
        "`{shown}` is a symbolic link to a directory that holds it; a renderer would read it without end"
    )]
    LinkLoop { shown: String },
    #[error("`{shown}` is nested more than {MAX_DEPTH} directories deep")]
    TooDeep { shown: String },
    #[error(
        "a renderer would read more than {MAX_ENTRIES} files and directories (links that lead to the same directories again?), the most podcycle copies for one"
    )]
    TooMany,
    #[error(
        "the files a renderer would read hold more than {} MiB, the most podcycle copies for one",
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
    /// A directory or file to copy cannot be found.
    #[error("{shown}: {}", describe_io_error(source))]
    Missing {
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
    /// Which files git tracks could not be learnt: nothing is staged rather than an untracked
    /// file.
    #[error("cannot learn which files git tracks in {}: {why}", root.display())]
    Tracked { root: PathBuf, why: String },
    #[error("cannot copy the chart: {0}")]
    Copy(#[source] io::Error),
}

/// A new temporary directory for a stage, and its absolute path.
fn new_stage_dir(prefix: &str) -> Result<(tempfile::TempDir, PathBuf), StageError> {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(StageError::TempDir)?;
    let base = std::path::absolute(dir.path()).map_err(StageError::TempDir)?;
    Ok((dir, base))
}

/// Copies `chart` (shown to users as `shown`) and the values files into a new temporary
/// directory.
#[cfg(any(test, feature = "testing"))]
pub(crate) fn stage(
    chart: &Path,
    shown: &str,
    values: &[PathBuf],
    listings: &Listings,
    untrusted: bool,
) -> Result<Staged, StageError> {
    stage_with_dependencies(chart, shown, values, &[], listings, untrusted)
}

/// A chart directory of the repository copied into the chart's `charts/` (a `file://`
/// dependency, as `helm dependency build` would place it): its directory, the name of its copy
/// under `charts/`, and how users name it.
#[derive(Clone, Debug)]
pub(crate) struct ChartDependency {
    pub(crate) dir: PathBuf,
    pub(crate) name: String,
    pub(crate) shown: String,
}

/// Copies `chart` and the values files into a new temporary directory, with `dependencies`
/// copied into the copy's `charts/` by the same rules as the chart: inside the repository,
/// outside `.git`, only what git tracks.
pub(crate) fn stage_with_dependencies(
    chart: &Path,
    shown: &str,
    values: &[PathBuf],
    dependencies: &[ChartDependency],
    listings: &Listings,
    untrusted: bool,
) -> Result<Staged, StageError> {
    let (dir, base) = new_stage_dir("podcycle-chart-")?;
    let name = chart
        .canonicalize()
        .ok()
        .and_then(|c| c.file_name().map(ToOwned::to_owned))
        .unwrap_or_else(|| "chart".into());
    let copy = base.join("chart").join(name);
    let boundary = Boundary::of(chart);
    let tracked = listings.tracked(boundary.root(), untrusted)?;
    let mut copier = Copier::new(&boundary, &tracked, &base);
    let source = chart.canonicalize().map_err(|source| StageError::Missing {
        shown: shown.to_owned(),
        source,
    })?;
    if !source.starts_with(boundary.root()) {
        return Err(StageError::Outside {
            resolved: source,
            root: boundary.root().to_owned(),
        });
    }
    copier.copy_dir(&source, &copy, shown, 0)?;
    let mut names = vec![(copy.to_string_lossy().into_owned(), shown.to_owned())];
    for dependency in dependencies {
        let missing = |source| StageError::Missing {
            shown: dependency.shown.clone(),
            source,
        };
        let source = dependency.dir.canonicalize().map_err(missing)?;
        if !source.starts_with(boundary.root()) || boundary.names_git(&source) {
            return Err(StageError::Outside {
                resolved: source,
                root: boundary.root().to_owned(),
            });
        }
        let target = copy.join("charts").join(&dependency.name);
        if std::fs::symlink_metadata(&target).is_ok() {
            return Err(missing(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("the chart has `charts/{}` already", dependency.name),
            )));
        }
        copier.copy_dir(&source, &target, &dependency.shown, 1)?;
        names.push((
            target.to_string_lossy().into_owned(),
            dependency.shown.clone(),
        ));
    }
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
        dir: Arc::new(dir),
        base,
        chart: copy,
        values: copies,
        names,
        digest: *copier.digest.finalize().as_bytes(),
        list: copier.list,
    })
}

/// The directory, beside the repository in an overlay's copy, that holds podcycle's own
/// kustomization for the build.
pub(crate) const BUILD_DIR: &str = ".podcycle-build";

/// What Kustomize may read of an overlay, copied: the directories of its kustomizations, each
/// with everything below it, and the files they load from elsewhere in the repository, at the
/// same places relative to the repository's root.
#[derive(Debug)]
pub(crate) struct StagedTree {
    /// Removed with the copy, once nothing reads it ([`StagedTree::files`]).
    dir: Arc<tempfile::TempDir>,
    /// The temporary directory: the renderer may read all of it.
    pub(crate) base: PathBuf,
    /// The repository's root in the copy: `base` joined with `name`.
    pub(crate) repository: PathBuf,
    /// The name of the repository's root directory, which its copy bears.
    pub(crate) name: std::ffi::OsString,
    /// A hash of every directory, path and byte in the copy.
    pub(crate) digest: [u8; 32],
    /// Every file copied.
    list: StageList,
}

impl StagedTree {
    /// What was copied, for the source map: the repository's files as `roots` name the
    /// repository (its path as the user gave it, its real path).
    pub(crate) fn files(&self, roots: &[&Path]) -> StagedFiles {
        let name = self.name.to_string_lossy().into_owned();
        let names = roots
            .iter()
            .map(|root| (name.clone(), (*root).to_owned()))
            .collect();
        StagedFiles::new(&self.list, &self.base, Some(Arc::clone(&self.dir)), names)
    }
}

/// Copies `dirs` (with everything below each) and `files` of the repository `boundary` holds.
/// A file Kustomize would load that is not among them is not in the copy, so the build fails
/// with Kustomize's own message rather than read it.
pub(crate) fn stage_tree(
    dirs: &[PathBuf],
    files: &[PathBuf],
    boundary: &Boundary,
    listings: &Listings,
    untrusted: bool,
) -> Result<StagedTree, StageError> {
    let (dir, base) = new_stage_dir("podcycle-overlay-")?;
    let name = boundary
        .root()
        .file_name()
        .filter(|name| *name != BUILD_DIR)
        .map_or_else(|| "repository".into(), ToOwned::to_owned);
    let repository = base.join(&name);
    let tracked = listings.tracked(boundary.root(), untrusted)?;
    let mut copier = Copier::new(boundary, &tracked, &base);
    let inside = |path: &Path| -> Result<(PathBuf, PathBuf), StageError> {
        let canonical = path.canonicalize().map_err(|source| StageError::Missing {
            shown: crate::render::display(path),
            source,
        })?;
        match canonical.strip_prefix(boundary.root()) {
            Ok(relative) if !boundary.names_git(&canonical) => {
                Ok((canonical.clone(), relative.to_owned()))
            }
            _ => Err(StageError::Outside {
                resolved: canonical.clone(),
                root: boundary.root().to_owned(),
            }),
        }
    };
    let mut roots: Vec<(PathBuf, PathBuf)> =
        dirs.iter().map(|d| inside(d)).collect::<Result<_, _>>()?;
    roots.sort();
    roots.dedup();
    // A directory below another is copied with it.
    let mut kept: Vec<(PathBuf, PathBuf)> = Vec::new();
    for (canonical, relative) in roots {
        if !kept.iter().any(|(outer, _)| canonical.starts_with(outer)) {
            kept.push((canonical, relative));
        }
    }
    std::fs::create_dir_all(&repository).map_err(StageError::Copy)?;
    for (canonical, relative) in &kept {
        let shown = display_relative(relative);
        copier.copy_dir(canonical, &repository.join(relative), &shown, 0)?;
    }
    for file in files {
        let Ok((canonical, relative)) = inside(file) else {
            // Missing, or outside: Kustomize reports the first, the screen refused the second.
            continue;
        };
        if kept.iter().any(|(dir, _)| canonical.starts_with(dir)) {
            continue;
        }
        let shown = display_relative(&relative);
        copier.copy_entry(&canonical, &repository.join(&relative), &shown, 0)?;
    }
    Ok(StagedTree {
        dir: Arc::new(dir),
        base,
        repository,
        name,
        digest: *copier.digest.finalize().as_bytes(),
        list: copier.list,
    })
}

/// A path in a copy, relative to the repository's copy, with its bytes (`None`: a directory).
#[cfg(feature = "testing")]
pub type Copied = (PathBuf, Option<Vec<u8>>);

/// Stages `dir` as an overlay's directory, the way [`stage_tree`] does, and lists the copy: each
/// path in it, relative to the repository's copy, with its bytes, or `None` for a directory; a
/// link in the copy is an error (the copy must hold none). For the fuzz target, which checks
/// that no byte from outside the repository or from `.git` reaches a copy.
#[cfg(feature = "testing")]
pub fn stage_and_list(dir: &Path) -> Result<Vec<Copied>, String> {
    let boundary = Boundary::of(dir);
    let staged = stage_tree(
        &[dir.to_owned()],
        &[],
        &boundary,
        &Listings::default(),
        true,
    )
    .map_err(|e| e.to_string())?;
    let mut listed = Vec::new();
    let mut pending = vec![staged.repository.clone()];
    while let Some(next) = pending.pop() {
        let entries = std::fs::read_dir(&next).map_err(|e| e.to_string())?;
        for entry in entries {
            let path = entry.map_err(|e| e.to_string())?.path();
            let kind = std::fs::symlink_metadata(&path).map_err(|e| e.to_string())?;
            let relative = path
                .strip_prefix(&staged.repository)
                .map_err(|e| e.to_string())?
                .to_owned();
            if kind.file_type().is_symlink() {
                return Err(format!("the copy holds a link: {}", relative.display()));
            }
            if kind.is_dir() {
                pending.push(path);
                listed.push((relative, None));
            } else {
                let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
                listed.push((relative, Some(bytes)));
            }
        }
    }
    Ok(listed)
}

fn display_relative(relative: &Path) -> String {
    if relative.as_os_str().is_empty() {
        ".".to_owned()
    } else {
        relative.to_string_lossy().into_owned()
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), StageError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(StageError::Copy)?;
    }
    std::fs::write(path, bytes).map_err(StageError::Copy)
}

struct Copier<'a> {
    boundary: &'a Boundary,
    /// Files and directories copied so far, and the most it copies.
    entries: usize,
    max_entries: usize,
    /// The files it may copy.
    tracked: &'a Tracked,
    bytes: u64,
    /// The source directories being copied, outermost first: a link back to one of them
    /// would copy without end.
    within: Vec<PathBuf>,
    /// The temporary directory: paths in the digest are relative to it.
    base: PathBuf,
    digest: blake3::Hasher,
    /// Every file copied, for the source maps.
    list: StageList,
}

impl<'a> Copier<'a> {
    fn new(boundary: &'a Boundary, tracked: &'a Tracked, base: &Path) -> Copier<'a> {
        Copier {
            boundary,
            tracked,
            entries: 0,
            max_entries: MAX_ENTRIES,
            bytes: 0,
            within: Vec::new(),
            base: base.to_owned(),
            digest: blake3::Hasher::new(),
            list: StageList::default(),
        }
    }

    /// Adds an entry of the copy to the digest: its kind, its path in the copy and its bytes,
    /// each length-prefixed.
    fn record(&mut self, kind: u8, target: &Path, bytes: &[u8]) {
        let relative = target.strip_prefix(&self.base).unwrap_or(target);
        match kind {
            b'f' | b'v' => self.list.copied(relative, bytes),
            b'p' => self.list.held(relative),
            _ => {}
        }
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
            // What git does not give a renderer is not looked at: not walked, no link of it
            // resolved, no special file opened.
            let given = match std::fs::symlink_metadata(&path) {
                Ok(kind) if kind.is_dir() => self.tracked.holds(&path),
                Ok(kind) if kind.is_file() || kind.file_type().is_symlink() => {
                    self.tracked.allows(&path)
                }
                _ => false,
            };
            if !given {
                continue;
            }
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
        self.entries += 1;
        if self.entries > self.max_entries {
            return Err(StageError::TooMany);
        }
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
        // A link git tracks to a file it does not give, or to what is no file (a FIFO).
        if !metadata.is_file() || !self.tracked.allows(&resolved) {
            return Ok(());
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
        git(&root, &["init", "-q"]);
        let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
        std::fs::write(root.join(".git/config"), config + "# token\n").unwrap();
        std::fs::create_dir_all(root.join("web/templates")).unwrap();
        std::fs::write(root.join("web/Chart.yaml"), "name: web\n").unwrap();
        std::fs::write(root.join("web/templates/a.yaml"), "kind: Pod\n").unwrap();
        std::fs::write(root.join("shared.tpl"), "{{ define \"x\" }}{{ end }}\n").unwrap();
        (dir, root)
    }

    fn git(root: &Path, args: &[&str]) {
        let status = std::process::Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// Untracked files are given to a renderer only in trusted mode, and ignored ones never:
    /// the credentials a CI step writes into the checkout stay out of the stage.
    #[test]
    fn only_the_files_git_knows_are_staged() {
        let (_dir, root) = repository();
        std::fs::write(root.join(".gitignore"), ".env\n").unwrap();
        git(&root, &["add", ".gitignore", "web/Chart.yaml"]);
        std::fs::write(root.join("web/.env"), "TOKEN=x").unwrap();
        std::fs::write(root.join("web/gha-creds.json"), "{}").unwrap();
        let staged = |untrusted| {
            let staged = stage(
                &root.join("web"),
                "web",
                &[],
                &Listings::default(),
                untrusted,
            )
            .unwrap();
            let mut found: Vec<String> =
                ["Chart.yaml", "templates/a.yaml", ".env", "gha-creds.json"]
                    .into_iter()
                    .filter(|name| staged.chart.join(name).exists())
                    .map(str::to_owned)
                    .collect();
            found.sort();
            found
        };
        assert_eq!(staged(true), ["Chart.yaml"]);
        assert_eq!(
            staged(false),
            ["Chart.yaml", "gha-creds.json", "templates/a.yaml"]
        );
    }

    /// Links that lead to the same directories again copied a tree of millions of entries;
    /// the copy stops at its cap. What git does not give is not walked: an ignored virtual
    /// environment's link out of the repository does not stop the chart.
    #[test]
    fn a_fan_of_links_stops_at_the_cap_and_untracked_links_are_not_followed() {
        let (_dir, root) = repository();
        for level in 0..4 {
            std::fs::create_dir_all(root.join(format!("web/t/d{level}"))).unwrap();
            for link in 0..4 {
                symlink(
                    format!("../d{}", level + 1),
                    root.join(format!("web/t/d{level}/l{link}")),
                )
                .unwrap();
            }
        }
        std::fs::create_dir_all(root.join("web/t/d4")).unwrap();
        std::fs::write(root.join("web/t/d4/f"), "x").unwrap();
        let boundary = Boundary::of(&root);
        let listings = Listings::default();
        let tracked = listings.tracked(boundary.root(), false).unwrap();
        let base = tempfile::tempdir().unwrap();
        let mut copier = Copier::new(&boundary, &tracked, base.path());
        copier.max_entries = 200;
        let error = copier
            .copy_dir(&root.join("web"), &base.path().join("web"), "web", 0)
            .unwrap_err();
        assert!(matches!(error, StageError::TooMany), "{error}");

        let (_dir, root) = repository();
        std::fs::write(root.join(".gitignore"), ".venv/\n").unwrap();
        std::fs::create_dir_all(root.join("web/.venv/bin")).unwrap();
        symlink("/usr/bin/python3", root.join("web/.venv/bin/python")).unwrap();
        let staged = stage(&root.join("web"), "web", &[], &Listings::default(), false).unwrap();
        assert!(!staged.chart.join(".venv").exists());
        assert!(staged.chart.join("Chart.yaml").exists());
    }

    #[test]
    fn links_inside_the_repository_are_copied_as_files() {
        let (_dir, root) = repository();
        symlink("../../shared.tpl", root.join("web/templates/_shared.tpl")).unwrap();
        symlink("templates", root.join("web/more")).unwrap();
        let staged = stage(&root.join("web"), "web", &[], &Listings::default(), false).unwrap();
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
            let error =
                stage(&root.join("web"), "web", &[], &Listings::default(), false).unwrap_err();
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
        let error = stage(&root.join("web"), "web", &[], &Listings::default(), false).unwrap_err();
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
        let staged = stage(
            &root.join("web"),
            "web",
            &[root.join("prod.yaml")],
            &Listings::default(),
            false,
        )
        .unwrap();
        assert_eq!(std::fs::read(&staged.values[0]).unwrap(), b"a: 1\n");
        let error = stage(
            &root.join("web"),
            "web",
            &[root.join("gc.yaml")],
            &Listings::default(),
            false,
        )
        .unwrap_err();
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
        let staged = stage(&root.join("web"), "web", &[], &Listings::default(), false).unwrap();
        let copied = std::fs::metadata(staged.chart.join("big.bin")).unwrap();
        assert_eq!(copied.len(), FileKind::ChartFile.max_bytes() + 1);
    }

    /// A named pipe is no file git tracks: it is left out without being opened (opening it
    /// would wait for a writer).
    #[test]
    fn special_files_are_never_opened() {
        let (_dir, root) = repository();
        let fifo = root.join("web/pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return;
        }
        let staged = stage(&root.join("web"), "web", &[], &Listings::default(), false).unwrap();
        assert!(!staged.chart.join("pipe").exists());
        assert!(staged.chart.join("Chart.yaml").exists());
    }
}
