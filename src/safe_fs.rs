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
//! [`create_file`] is the writing side: `--output` and `podcycle init` never write through a
//! symbolic link.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::{self, Read};
use std::path::{Component, Path, PathBuf};

const MIB: u64 = 1024 * 1024;

/// What a file is read as; each kind has its own size cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
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
    pub const fn max_bytes(self) -> u64 {
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
pub enum ReadError {
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
pub fn read_file(path: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
    let cwd = std::env::current_dir()?;
    let tree = tree_of(path, &cwd);
    read_file_within(path, &tree, kind)
}

/// [`read_file`] with the tree given: symbolic links may lead anywhere under `tree`, and
/// nowhere else. `path` is expected under `tree`.
pub fn read_file_within(path: &Path, tree: &Path, kind: FileKind) -> Result<Vec<u8>, ReadError> {
    let target = resolve_within(path, tree)?;
    let file = open_regular(&target)?;
    // Room for the size the file has now, so that the bytes are read into one allocation of
    // their own size (growing by doubling leaves up to half of it unused for the whole run).
    let size = file.metadata().map_or(0, |m| m.len()).min(kind.max_bytes());
    read_capped_into(
        file,
        kind,
        Vec::with_capacity(usize::try_from(size).unwrap_or(0)),
    )
}

/// Reads standard input, up to the cap of `kind`.
pub fn read_stdin(kind: FileKind) -> Result<Vec<u8>, ReadError> {
    read_capped(io::stdin().lock(), kind)
}

/// Reads everything `reader` gives, up to the cap of `kind`.
pub fn read_capped(reader: impl Read, kind: FileKind) -> Result<Vec<u8>, ReadError> {
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
pub fn tree_of(path: &Path, cwd: &Path) -> PathBuf {
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

/// Where `path` leads after every symbolic link, provided that is under `tree`.
fn resolve_within(path: &Path, tree: &Path) -> Result<PathBuf, ReadError> {
    let tree = std::fs::canonicalize(tree)?;
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
    if !target.starts_with(&tree) {
        return Err(ReadError::LinkOutside { target, tree });
    }
    if let Some(what) = kernel_file_system(&target) {
        return Err(ReadError::NotRegular { what });
    }
    // A path named inside `.git` is the user's choice; a link that leads there is not.
    let named_in_git = path.components().any(|c| c.as_os_str() == ".git");
    if !named_in_git && in_git_directory(&target, &tree) {
        return Err(ReadError::LinkIntoGit { target });
    }
    Ok(target)
}

/// Whether `path` is inside a `.git` directory (or is one) below `tree`.
pub fn in_git_directory(path: &Path, tree: &Path) -> bool {
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
/// was resolved) and without blocking on a FIFO, and checks it is a regular file within the
/// size cap before anything is read.
fn open_regular(path: &Path) -> Result<File, ReadError> {
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
    Ok(file)
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
pub enum WriteError {
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
pub enum Existing {
    /// Empty it and write anew (`--output`, `init --force`).
    Replace,
    /// Refuse ([`WriteError::AlreadyExists`]): `init` without `--force`.
    Keep,
}

/// Creates (or replaces) a file for writing without following a symbolic link: not the file
/// itself (an existing link, or a dangling one that would create its target), and not a
/// directory on the way that leads out of the tree [`read_file`] uses.
pub fn create_file(path: &Path, existing: Existing) -> Result<File, WriteError> {
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
pub fn describe_io_error(error: &std::io::Error) -> String {
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
