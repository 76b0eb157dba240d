//! Opening files that a pull request controls.
//!
//! podcycle runs in CI on repositories anyone can change, and git stores symbolic links. A link
//! committed as `.podcycle.yaml -> ~/.docker/config.json` must not print the job's secrets as
//! error snippets, `kustomization.yaml -> /dev/zero` must not read until memory runs out, and a
//! FIFO must not hang the job. Every file podcycle reads on a user's behalf — manifests named or
//! found, configuration files, kustomizations, in the command line and the language server alike
//! — goes through [`read_file`], which:
//!
//! - follows a symbolic link only when it leads to a place inside the *tree*: the current
//!   directory for paths under it (in CI, the checkout), else the directory that holds the
//!   path, and not into a `.git` directory (where the checkout keeps its credentials). A link
//!   out of the tree or into `.git` is not read; the error names its target;
//! - reads regular files only: a directory, FIFO, socket or device is refused without reading
//!   (it is opened non-blocking, so a FIFO cannot hang the open), and so is anything on the
//!   kernel's `/proc` and `/sys` file systems, which claim to be regular files;
//! - reads at most [`FileKind::max_bytes`], checked before reading and while reading (a file
//!   that grows, or a pseudo-file that reports no size, stops at the cap).
//!
//! A run that reads many files reads them through one [`Reader`], which asks for the current
//! directory once and resolves each directory's real path once, so that the checks cost no
//! system call per file beyond the open, one `fstat` and the reads.
//!
//! [`create_file`] is the writing side: `--output` and `podcycle init` never write through a
//! symbolic link.

use std::collections::HashMap;
use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

const MIB: u64 = 1024 * 1024;

/// What a file is read as; each kind has its own size cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileKind {
    /// A manifest to lint or explain: named on the command line, found by walking a directory,
    /// given on standard input.
    Manifest,
    /// A configuration file, `.podcycle.yaml`.
    Config,
    /// A `kustomization.yaml`, read for the patches it lists.
    Kustomization,
    /// A baseline of recorded findings (`check --baseline`).
    Baseline,
    /// A file of a Helm chart, copied for Helm to render.
    ChartFile,
}

impl FileKind {
    /// The most podcycle reads of a file of this kind. Manifests far beyond any real one (the
    /// largest CRD bundles are tens of MiB) still fit; configuration and kustomization files are
    /// small by nature.
    pub(crate) const fn max_bytes(self) -> u64 {
        match self {
            FileKind::Manifest => 256 * MIB,
            FileKind::Config => MIB,
            FileKind::Kustomization => 16 * MIB,
            // About 200 bytes a finding: a million findings.
            FileKind::Baseline => 256 * MIB,
            // Helm's own limit for a file of a chart (`MaxDecompressedFileSize`).
            FileKind::ChartFile => 5 * MIB,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            FileKind::Manifest => "a manifest",
            FileKind::Config => "a configuration file",
            FileKind::Kustomization => "a kustomization",
            FileKind::Baseline => "a baseline",
            FileKind::ChartFile => "a file of a chart (Helm's limit)",
        }
    }
}

/// Why a file was not read. `Display` says it without the path, for messages of the form
/// `path: reason`; names in it (a link's target) are escaped for terminals and logs.
#[derive(Debug)]
pub(crate) enum ReadError {
    NotFound,
    PermissionDenied,
    /// A directory, FIFO, socket, device, or a file of `/proc` or `/sys`.
    NotRegular {
        what: &'static str,
    },
    /// A symbolic link (here or in a directory on the way) that leads out of the tree.
    LinkOutside {
        target: PathBuf,
        tree: PathBuf,
    },
    /// A symbolic link (here or in a directory on the way) that leads into a `.git`
    /// directory: `.git/config` holds the checkout's credentials.
    LinkIntoGit {
        target: PathBuf,
    },
    /// A symbolic link to nothing.
    DanglingLink {
        target: PathBuf,
    },
    TooLarge {
        kind: FileKind,
    },
    Other(io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("no such file or directory"),
            ReadError::PermissionDenied => f.write_str("permission denied"),
            ReadError::NotRegular { what } => {
                write!(
                    f,
                    "{what}, not a regular file; podcycle reads only regular files"
                )
            }
            ReadError::LinkOutside { target, tree } => write!(
                f,
                "a symbolic link to {}, outside {}; podcycle does not follow links out of the tree it checks",
                shown(target),
                shown(tree)
            ),
            ReadError::LinkIntoGit { target } => write!(
                f,
                "a symbolic link to {}, inside a `.git` directory; podcycle does not follow links into version control data",
                shown(target)
            ),
            ReadError::DanglingLink { target } => {
                write!(
                    f,
                    "a symbolic link to {}, which does not exist",
                    shown(target)
                )
            }
            ReadError::TooLarge { kind } => write!(
                f,
                "larger than {} MiB, the most podcycle reads of {}",
                kind.max_bytes() / MIB,
                kind.noun()
            ),
            ReadError::Other(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<io::Error> for ReadError {
    fn from(error: io::Error) -> ReadError {
        match error.kind() {
            io::ErrorKind::NotFound => ReadError::NotFound,
            io::ErrorKind::PermissionDenied => ReadError::PermissionDenied,
            _ => ReadError::Other(error),
        }
    }
}

fn shown(path: &Path) -> String {
    format!(
        "`{}`",
        crate::escape::escape_controls(&path.to_string_lossy())
    )
}

/// Reads a file the way podcycle reads every file it is pointed at (see the module's
/// documentation): regular files only, up to the kind's size cap, following symbolic links only
/// inside the tree — the current directory when `path` is under it, else `path`'s directory.
/// To read many files, read them through one [`Reader`].
pub(crate) fn read_file(path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
    Reader::default().read(path, kind)
}

/// [`read_file`] with the tree given: symbolic links may lead anywhere under `tree`, and
/// nowhere else. `path` is expected under `tree`.
pub(crate) fn read_file_within(
    path: &Path,
    tree: &Path,
    kind: FileKind,
) -> Result<Vec<u8>, ReadError> {
    Reader::default().read_within(path, tree, kind)
}

/// Reads files as [`read_file`] does, remembering what every read of a run would otherwise
/// ask the system again: the current directory, and the real path of each directory (found
/// from its parent's with one `lstat`, where resolving a path from the root takes a
/// `readlink` for every component). A file named by a plain name in a directory so resolved
/// is opened at its real path without following a last link; only a file that is a link is
/// resolved on its own. The checks are the same, made before the file is opened.
///
/// A reader is for one run: a directory replaced by a link after it was resolved is read
/// through its old real path (as a file replaced between resolving and opening always was).
#[derive(Debug, Default)]
pub(crate) struct Reader {
    cwd: OnceLock<PathBuf>,
    /// Each directory as named → its real path.
    directories: Mutex<HashMap<PathBuf, PathBuf>>,
}

impl Reader {
    /// Reads `path` like [`read_file`].
    pub(crate) fn read(&self, path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
        let cwd = self.cwd()?;
        // The common case, without building the absolute path: a relative path that never
        // steps up is under the current directory.
        if path.is_relative() && !path.components().any(|c| c == Component::ParentDir) {
            return self.read_within(path, cwd, kind);
        }
        self.read_within(path, &tree_of(path, cwd), kind)
    }

    fn cwd(&self) -> io::Result<&Path> {
        if let Some(cwd) = self.cwd.get() {
            return Ok(cwd);
        }
        let cwd = std::env::current_dir()?;
        Ok(self.cwd.get_or_init(|| cwd))
    }

    /// Reads `path` like [`read_file_within`].
    pub(crate) fn read_within(
        &self,
        path: &Path,
        tree: &Path,
        kind: FileKind,
    ) -> Result<Vec<u8>, ReadError> {
        let tree = self.real_directory(tree)?;
        let (file, size) = match self.open_by_name(path, &tree) {
            Some(opened) => opened?,
            None => open_regular(&resolve_within(path, &tree)?)?,
        };
        // Room for the size the file has now, so that the bytes are read into one allocation
        // of their own size (growing by doubling leaves up to half of it unused for the whole
        // run).
        let size = size.min(kind.max_bytes());
        read_capped_into(
            file,
            kind,
            Vec::with_capacity(usize::try_from(size).unwrap_or(0)),
        )
    }

    /// Opens `path` at the real path of its directory when its last component is a plain name
    /// and not a symbolic link (the open refuses to follow one), and [`admit`] lets it. `None`
    /// when `path` must be resolved whole: a link, a path ending in `..` or `/`, a directory
    /// that cannot be resolved, a refusal (resolving the whole path says why).
    #[cfg(unix)]
    fn open_by_name(&self, path: &Path, tree: &Path) -> Option<Result<(File, u64), ReadError>> {
        let Some(Component::Normal(name)) = path.components().next_back() else {
            return None;
        };
        if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
            return None;
        }
        let directory = self.real_directory(parent_or_current(path)).ok()?;
        let target = directory.join(name);
        // A refusal is rare: resolving the whole path says it as it always has (a missing
        // file behind a link out of the tree is missing, not outside).
        admit(path, &target, tree).ok()?;
        match open_regular(&target) {
            Err(ReadError::Other(error)) if error.raw_os_error() == Some(libc::ELOOP) => None,
            opened => Some(opened),
        }
    }

    #[cfg(not(unix))]
    fn open_by_name(&self, _: &Path, _: &Path) -> Option<Result<(File, u64), ReadError>> {
        None
    }

    /// The real path of a directory: its parent's real path and its name, when it is not a
    /// symbolic link; else what the system resolves it to. Remembered for the run.
    fn real_directory(&self, directory: &Path) -> io::Result<PathBuf> {
        let known = |directories: &Mutex<HashMap<PathBuf, PathBuf>>| {
            let directories = directories.lock().unwrap_or_else(PoisonError::into_inner);
            directories.get(directory).cloned()
        };
        if let Some(real) = known(&self.directories) {
            return Ok(real);
        }
        let real = match directory.components().next_back() {
            Some(Component::Normal(name)) => {
                let parent = self.real_directory(parent_or_current(directory))?;
                let candidate = parent.join(name);
                match std::fs::symlink_metadata(&candidate) {
                    Ok(metadata) if metadata.is_dir() => candidate,
                    _ => std::fs::canonicalize(directory)?,
                }
            }
            _ => std::fs::canonicalize(directory)?,
        };
        self.directories
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(directory.to_owned(), real.clone());
        Ok(real)
    }
}

/// The directory that holds `path`: its parent, or `.` for a bare name.
fn parent_or_current(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Reads standard input, up to the cap of `kind`.
pub(crate) fn read_stdin(kind: FileKind) -> Result<Vec<u8>, ReadError> {
    read_capped(io::stdin().lock(), kind)
}

/// Reads everything `reader` gives, up to the cap of `kind`.
pub(crate) fn read_capped(reader: impl Read, kind: FileKind) -> Result<Vec<u8>, ReadError> {
    read_capped_into(reader, kind, Vec::new())
}

fn read_capped_into(
    reader: impl Read,
    kind: FileKind,
    mut bytes: Vec<u8>,
) -> Result<Vec<u8>, ReadError> {
    let max = kind.max_bytes();
    reader.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooLarge { kind });
    }
    Ok(bytes)
}

/// The tree symbolic links may lead into for `path`, seen from `cwd`: `cwd` when `path` is
/// under it, else the directory that holds `path`.
pub(crate) fn tree_of(path: &Path, cwd: &Path) -> PathBuf {
    let absolute = lexically_absolute(path, cwd);
    if absolute.starts_with(cwd) {
        return cwd.to_owned();
    }
    match absolute.parent() {
        Some(parent) => parent.to_owned(),
        None => absolute,
    }
}

/// `path` made absolute against `cwd`, with `.` and `..` resolved by name (as the user reads
/// the path, before any link is followed).
fn lexically_absolute(path: &Path, cwd: &Path) -> PathBuf {
    let mut absolute = PathBuf::new();
    for component in cwd.join(path).components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                absolute.pop();
            }
            other => absolute.push(other),
        }
    }
    absolute
}

/// Where `path` leads after every symbolic link, provided [`admit`] lets it be read. `tree` is
/// a real path.
fn resolve_within(path: &Path, tree: &Path) -> Result<PathBuf, ReadError> {
    let target = match std::fs::canonicalize(path) {
        Ok(target) => target,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            // A link to nothing: say where it points rather than "no such file".
            return Err(match std::fs::read_link(path) {
                Ok(target) => ReadError::DanglingLink { target },
                Err(_) => ReadError::NotFound,
            });
        }
        Err(error) => return Err(error.into()),
    };
    admit(path, &target, tree)?;
    Ok(target)
}

/// Whether the file named `path`, whose real path is `target`, may be read: `target` must be
/// under `tree` (a real path), not on a kernel file system, and not inside a `.git`
/// directory unless `path` names it so. Checked before the file is opened, by both routes to
/// it ([`Reader::read_within`]): every check of where a path leads belongs here.
fn admit(path: &Path, target: &Path, tree: &Path) -> Result<(), ReadError> {
    if !target.starts_with(tree) {
        return Err(ReadError::LinkOutside {
            target: target.to_owned(),
            tree: tree.to_owned(),
        });
    }
    if let Some(what) = kernel_file_system(target) {
        return Err(ReadError::NotRegular { what });
    }
    // A path named inside `.git` is the user's choice; a link that leads there is not.
    let named_in_git = path.components().any(|c| c.as_os_str() == ".git");
    if !named_in_git && in_git_directory(target, tree) {
        return Err(ReadError::LinkIntoGit {
            target: target.to_owned(),
        });
    }
    Ok(())
}

/// Whether `path` is inside a `.git` directory (or is one) below `tree`.
pub(crate) fn in_git_directory(path: &Path, tree: &Path) -> bool {
    path.strip_prefix(tree)
        .unwrap_or(path)
        .components()
        .any(|component| component.as_os_str() == ".git")
}

/// `/proc` and `/sys` hold the kernel's views (a process's environment, devices) dressed as
/// regular files.
fn kernel_file_system(path: &Path) -> Option<&'static str> {
    if !cfg!(target_os = "linux") {
        return None;
    }
    if path.starts_with("/proc") {
        Some("a file of the kernel's /proc file system")
    } else if path.starts_with("/sys") {
        Some("a file of the kernel's /sys file system")
    } else {
        None
    }
}

/// Opens `path` for reading without following a last symbolic link (one swapped in since it
/// was resolved) and without blocking on a FIFO, and checks it is a regular file before
/// anything is read. Gives its size too.
fn open_regular(path: &Path) -> Result<(File, u64), ReadError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(ReadError::NotRegular {
            what: describe_type(&metadata.file_type()),
        });
    }
    Ok((file, metadata.len()))
}

fn describe_type(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        return "a directory";
    }
    if file_type.is_symlink() {
        return "a symbolic link";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    "a special file"
}

/// Why an output file was not created.
#[derive(Debug)]
pub(crate) enum WriteError {
    /// The path is a symbolic link (dangling or not).
    Link {
        target: PathBuf,
    },
    /// A directory on the way is a link that leads out of the tree.
    LinkOutside {
        target: PathBuf,
        tree: PathBuf,
    },
    AlreadyExists,
    Io(io::Error),
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Link { target } => write!(
                f,
                "it is a symbolic link to {}; podcycle does not write through links (remove the link, or name another file)",
                shown(target)
            ),
            WriteError::LinkOutside { target, tree } => write!(
                f,
                "its directory is a symbolic link to {}, outside {}; podcycle does not write through links",
                shown(target),
                shown(tree)
            ),
            WriteError::AlreadyExists => f.write_str("it already exists"),
            WriteError::Io(error) => f.write_str(&describe_io_error(error)),
        }
    }
}

impl std::error::Error for WriteError {}

/// How [`create_file`] treats a file that exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Existing {
    /// Empty it and write anew (`--output`, `init --force`).
    Replace,
    /// Refuse ([`WriteError::AlreadyExists`]): `init` without `--force`.
    Keep,
}

/// Creates (or replaces) a file for writing without following a symbolic link: not the file
/// itself (an existing link, or a dangling one that would create its target), and not a
/// directory on the way that leads out of the tree [`read_file`] uses.
pub(crate) fn create_file(path: &Path, existing: Existing) -> Result<File, WriteError> {
    if let Ok(target) = std::fs::read_link(path) {
        return Err(WriteError::Link { target });
    }
    let cwd = std::env::current_dir().map_err(WriteError::Io)?;
    let parent = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    let tree = tree_of(&parent.join("_"), &cwd);
    if let (Ok(resolved), Ok(tree)) = (std::fs::canonicalize(&parent), std::fs::canonicalize(&tree))
        && !resolved.starts_with(&tree)
    {
        return Err(WriteError::LinkOutside {
            target: resolved,
            tree,
        });
    }
    let mut options = OpenOptions::new();
    options.write(true);
    match existing {
        Existing::Replace => options.create(true).truncate(true),
        Existing::Keep => options.create_new(true),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A link swapped in after the check above fails to open (ELOOP) instead of being
        // followed; a FIFO without a reader fails instead of blocking.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    match options.open(path) {
        Ok(file) => Ok(file),
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {
            Err(match std::fs::read_link(path) {
                Ok(target) => WriteError::Link { target },
                Err(_) => WriteError::AlreadyExists,
            })
        }
        Err(error) => Err(match std::fs::read_link(path) {
            Ok(target) => WriteError::Link { target },
            Err(_) => WriteError::Io(error),
        }),
    }
}

/// An I/O error in the words a user expects after a path: "no such file or directory", not
/// "No such file or directory (os error 2)".
pub(crate) fn describe_io_error(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => error.to_string(),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    use std::os::unix::fs::symlink;

    fn tree() -> tempfile::TempDir {
        tempfile::tempdir().unwrap()
    }

    fn read(path: &Path, tree: &Path) -> Result<Vec<u8>, ReadError> {
        read_file_within(path, tree, FileKind::Config)
    }

    #[test]
    fn reads_regular_files_and_links_inside_the_tree() {
        let dir = tree();
        std::fs::create_dir(dir.path().join("base")).unwrap();
        std::fs::write(dir.path().join("base/app.yaml"), "kind: Pod\n").unwrap();
        symlink("base/app.yaml", dir.path().join("app.yaml")).unwrap();
        symlink("base", dir.path().join("overlay")).unwrap();
        for path in ["base/app.yaml", "app.yaml", "overlay/app.yaml"] {
            assert_eq!(
                read(&dir.path().join(path), dir.path()).unwrap(),
                b"kind: Pod\n",
                "{path}"
            );
        }
    }

    #[test]
    fn links_out_of_the_tree_are_named_not_read() {
        let outside = tree();
        let secret = outside.path().join("config.json");
        std::fs::write(&secret, "{\"auths\": \"secret\"}").unwrap();
        let dir = tree();
        let link = dir.path().join(".podcycle.yaml");
        symlink(&secret, &link).unwrap();
        let error = read(&link, dir.path()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, ReadError::LinkOutside { .. }), "{message}");
        assert!(message.contains("config.json"), "{message}");
        assert!(!message.contains("secret\""), "{message}");
        // Through a linked directory, too.
        symlink(outside.path(), dir.path().join("linked")).unwrap();
        let error = read(&dir.path().join("linked/config.json"), dir.path()).unwrap_err();
        assert!(matches!(error, ReadError::LinkOutside { .. }), "{error}");
    }

    /// One reader for many reads resolves each directory once; what it reads and refuses is
    /// what resolving each whole path from the root gives, in any order.
    #[test]
    fn a_reader_reads_and_refuses_as_resolving_each_path_whole() {
        let outside = tree();
        std::fs::write(outside.path().join("secret.yaml"), "token: x\n").unwrap();
        let dir = tree();
        let root = dir.path();
        std::fs::create_dir_all(root.join("base/deep")).unwrap();
        std::fs::write(root.join("base/app.yaml"), "kind: Pod\n").unwrap();
        std::fs::write(root.join("base/deep/job.yaml"), "kind: Job\n").unwrap();
        symlink("base", root.join("overlay")).unwrap();
        symlink(outside.path(), root.join("linked")).unwrap();
        symlink("base/app.yaml", root.join("app.yaml")).unwrap();
        symlink(outside.path().join("secret.yaml"), root.join("secret.yaml")).unwrap();
        symlink("nowhere.yaml", root.join("gone.yaml")).unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::write(root.join(".git/config"), "token: y\n").unwrap();
        symlink(".git", root.join("meta")).unwrap();
        symlink(".git/config", root.join("gc.yaml")).unwrap();
        let paths = [
            "base/app.yaml",
            "overlay/app.yaml",
            "overlay/deep/job.yaml",
            "base/deep/../app.yaml",
            "app.yaml",
            "linked/secret.yaml",
            "secret.yaml",
            "gone.yaml",
            "missing.yaml",
            "base/missing.yaml",
            "linked/missing.yaml",
            "base",
            "meta/config",
            "gc.yaml",
            ".git/config",
        ];
        let outcome = |result: Result<Vec<u8>, ReadError>| match result {
            Ok(bytes) => String::from_utf8(bytes).unwrap(),
            Err(error) => error.to_string(),
        };
        let real_root = std::fs::canonicalize(root).unwrap();
        let whole_path = |path: &Path| -> Result<Vec<u8>, ReadError> {
            let (file, _) = open_regular(&resolve_within(path, &real_root)?)?;
            read_capped(file, FileKind::Config)
        };
        let fresh: Vec<String> = paths
            .iter()
            .map(|path| outcome(whole_path(&root.join(path))))
            .collect();
        assert_eq!(fresh[2], "kind: Job\n");
        assert!(fresh[5].starts_with("a symbolic link to"), "{}", fresh[5]);
        assert!(fresh[6].starts_with("a symbolic link to"), "{}", fresh[6]);
        assert_ne!(fresh[12], "token: y\n");
        assert_ne!(fresh[13], "token: y\n");
        assert_eq!(fresh[14], "token: y\n");
        for order in [false, true] {
            let reader = Reader::default();
            let mut indices: Vec<usize> = (0..paths.len()).collect();
            if order {
                indices.reverse();
            }
            for i in indices {
                let read = reader.read_within(&root.join(paths[i]), root, FileKind::Config);
                assert_eq!(outcome(read), fresh[i], "{}", paths[i]);
            }
        }
    }

    /// `.git/config` holds the checkout's token (`persist-credentials`): a link inside the tree
    /// that leads there is refused, though the file is in the tree.
    #[test]
    fn links_into_git_are_refused() {
        let dir = tree();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(
            dir.path().join(".git/config"),
            "extraheader = AUTHORIZATION: basic c2VjcmV0\n",
        )
        .unwrap();
        symlink(".git/config", dir.path().join("gc.yaml")).unwrap();
        symlink(".git", dir.path().join("meta")).unwrap();
        for link in ["gc.yaml", "meta/config"] {
            let error = read(&dir.path().join(link), dir.path()).unwrap_err();
            assert!(
                matches!(error, ReadError::LinkIntoGit { .. }),
                "{link}: {error}"
            );
            assert!(!error.to_string().contains("c2VjcmV0"), "{error}");
        }
        // Named as it is, it is read: the user chose it.
        assert!(read(&dir.path().join(".git/config"), dir.path()).is_ok());
    }

    #[test]
    fn special_files_are_refused_without_reading() {
        let dir = tree();
        let zero = dir.path().join("zero.yaml");
        symlink("/dev/zero", &zero).unwrap();
        // Out of the tree, so not even opened.
        let error = read(&zero, dir.path()).unwrap_err();
        assert!(error.to_string().contains("/dev/zero"), "{error}");
        // Named within a tree that holds it: refused as a device.
        let error = read_file_within(
            Path::new("/dev/zero"),
            Path::new("/dev"),
            FileKind::Manifest,
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "a character device, not a regular file; podcycle reads only regular files"
        );
        let error = read_file_within(
            Path::new("/proc/self/environ"),
            Path::new("/"),
            FileKind::Manifest,
        )
        .unwrap_err();
        assert!(error.to_string().contains("/proc"), "{error}");
        let error = read(dir.path(), dir.path()).unwrap_err();
        assert!(error.to_string().starts_with("a directory"), "{error}");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tree();
        let fifo = dir.path().join("pipe.yaml");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here; the device test covers the same path
        }
        let error = read(&fifo, dir.path()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a named pipe (FIFO), not a regular file; podcycle reads only regular files"
        );
    }

    #[test]
    fn files_over_the_cap_are_refused() {
        let dir = tree();
        let big = dir.path().join(".podcycle.yaml");
        let file = File::create(&big).unwrap();
        file.set_len(FileKind::Config.max_bytes() + 1).unwrap();
        let error = read(&big, dir.path()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "larger than 1 MiB, the most podcycle reads of a configuration file"
        );
        // A stream is cut at the cap, however long it would go on.
        let endless = io::repeat(b'a');
        assert!(matches!(
            read_capped(endless, FileKind::Config),
            Err(ReadError::TooLarge { .. })
        ));
    }

    #[test]
    fn dangling_links_name_their_target() {
        let dir = tree();
        let link = dir.path().join("gone.yaml");
        symlink("nowhere.yaml", &link).unwrap();
        assert_eq!(
            read(&link, dir.path()).unwrap_err().to_string(),
            "a symbolic link to `nowhere.yaml`, which does not exist"
        );
        assert!(matches!(
            read(&dir.path().join("missing.yaml"), dir.path()),
            Err(ReadError::NotFound)
        ));
    }

    #[test]
    fn the_tree_is_the_current_directory_or_the_files_own() {
        let cwd = Path::new("/work/repo");
        assert_eq!(tree_of(Path::new("deploy/a.yaml"), cwd), cwd);
        assert_eq!(tree_of(Path::new("./a/../b.yaml"), cwd), cwd);
        assert_eq!(
            tree_of(Path::new("../other/a.yaml"), cwd),
            Path::new("/work/other")
        );
        assert_eq!(tree_of(Path::new("/etc/a.yaml"), cwd), Path::new("/etc"));
        assert_eq!(tree_of(Path::new("/work/repo/x/a.yaml"), cwd), cwd);
    }

    #[test]
    fn output_files_are_not_written_through_links() {
        let dir = tree();
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("report.sarif");
        symlink(&target, &link).unwrap();
        let error = create_file(&link, Existing::Replace).unwrap_err();
        assert!(matches!(error, WriteError::Link { .. }), "{error}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        // A dangling link would create its target.
        let dangling = dir.path().join("dangling.sarif");
        let created = dir.path().join("created.txt");
        symlink(&created, &dangling).unwrap();
        assert!(create_file(&dangling, Existing::Replace).is_err());
        assert!(!created.exists());
        // A plain path is created, then replaced.
        let plain = dir.path().join("plain.sarif");
        std::io::Write::write_all(&mut create_file(&plain, Existing::Replace).unwrap(), b"1")
            .unwrap();
        assert!(matches!(
            create_file(&plain, Existing::Keep),
            Err(WriteError::AlreadyExists)
        ));
        create_file(&plain, Existing::Replace).unwrap();
        assert_eq!(std::fs::read(&plain).unwrap(), b"");
    }
}
