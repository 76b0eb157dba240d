//! What the operating system holds a renderer to, beyond its sealed environment.
//!
//! - **An allowlist of files.** On Linux with Landlock (5.13 and later) each renderer may read
//!   only the staged copy of its input ([`super::stage`]), its own executable (and, for a
//!   dynamically linked one, the system's shared libraries), and write only its scratch
//!   directory. The kernel enforces it: a path the renderer was not given cannot be opened,
//!   whatever Helm or Kustomize make of the input.
//! - **The stage as its root.** In the new user namespace the renderer also gets a mount
//!   namespace whose root (`pivot_root`, as bubblewrap does) holds only what it may use, each
//!   bound at its own absolute path: the stage, its executable (and shared libraries), its
//!   scratch directory and `/dev/null`. The real checkout, `$HOME` and `/proc` do not exist for
//!   it, with or without Landlock; what it only reads is bound read-only.
//! - **No network.** Each renderer starts in a new user namespace and a new network namespace,
//!   which has no interface but a loopback that is down: no connection leaves the process,
//!   `localhost` included (Go never sends loopback through a proxy, so the proxy variables alone
//!   do not stop it). With Landlock ABI 4 (Linux 6.7) the kernel also refuses every TCP connect
//!   and bind; with the system-call filter below refusing every other kind of Internet socket
//!   (UDP, raw), where user namespaces are refused (most container-based CI) the network is
//!   still closed.
//! - **A system-call filter** (seccomp, built with rust-vmm's `seccompiler`): a system call of
//!   another architecture's (the 32-bit `int 0x80` entry) or of the x32 ABI kills the
//!   renderer; `socket` is refused but for TCP over IPv4 and IPv6 (no Unix socket — a
//!   container runtime's is reachable through neither namespaces nor Landlock — no UDP, no
//!   raw socket, no netlink), as are `socketpair`, `io_uring` (whose operations open sockets
//!   past `socket`'s filter) and the calls that change mounts or namespaces.
//! - **Bounded memory.** A limit on the data segment (`RLIMIT_DATA`, which counts the memory a
//!   process writes to and not the address space Go reserves up front), with `GOMEMLIMIT` a
//!   quarter below it so that Go's collector works harder before the limit is reached.
//! - **Nothing left behind.** The renderer is killed when podcycle dies (`PR_SET_PDEATHSIG`),
//!   and cannot gain privileges through what it runs (`PR_SET_NO_NEW_PRIVS`).
//!
//! [`confinement`] says which of these the system allows, once per run; a render that cannot be
//! confined does not run in untrusted mode (`--isolated`), and elsewhere the run says so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Whether renderers run without a network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sandbox {
    /// In new user and network namespaces.
    Active,
    /// In a new network namespace only (a privileged podcycle where user namespaces are off).
    NetworkOnly,
    /// Not available: why.
    Unavailable(String),
}

impl Sandbox {
    pub fn is_active(&self) -> bool {
        !matches!(self, Sandbox::Unavailable(_))
    }

    /// One line for `--show-settings`.
    pub(crate) fn describe(&self) -> String {
        match self {
            Sandbox::Active => {
                "active: renderers run in new user and network namespaces (no network)".to_owned()
            }
            Sandbox::NetworkOnly => {
                "active: renderers run in a new network namespace (no network)".to_owned()
            }
            Sandbox::Unavailable(why) => {
                format!("inactive: {why}; remote resources are still refused before rendering")
            }
        }
    }
}

/// What to say once before rendering: the confinement the system cannot give.
pub(crate) fn warning() -> Option<String> {
    confinement()
        .shortfall()
        .map(|why| format!("renderers run without full confinement: {why}"))
}

/// The sandbox this system allows, found once per run.
pub fn sandbox() -> &'static Sandbox {
    static SANDBOX: OnceLock<Sandbox> = OnceLock::new();
    SANDBOX.get_or_init(probe)
}

#[cfg(target_os = "linux")]
fn probe() -> Sandbox {
    if std::env::var_os("PODCYCLE_NO_RENDER_SANDBOX").is_some() {
        return Sandbox::Unavailable("switched off by PODCYCLE_NO_RENDER_SANDBOX".to_owned());
    }
    let both = libc::CLONE_NEWUSER | libc::CLONE_NEWNET;
    match try_namespaces(both, false) {
        Ok(()) => Sandbox::Active,
        Err(first) => match try_namespaces(libc::CLONE_NEWNET, false) {
            Ok(()) => Sandbox::NetworkOnly,
            Err(_) => Sandbox::Unavailable(format!(
                "the kernel refuses new user and network namespaces ({first})"
            )),
        },
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Sandbox {
    Sandbox::Unavailable("network namespaces exist only on Linux".to_owned())
}

/// Whether a child process may create the namespaces in `flags` (and, with `mounts`, make
/// every mount of its new mount namespace private): a fork that tries and exits.
#[cfg(target_os = "linux")]
fn try_namespaces(flags: libc::c_int, mounts: bool) -> Result<(), std::io::Error> {
    // SAFETY: the child calls only async-signal-safe functions (`unshare`, `mount`, `_exit`)
    // before it exits, so forking a multi-threaded process is sound; the parent waits for that
    // child alone, by its id.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            let made = libc::unshare(flags) == 0
                && (!mounts
                    || libc::mount(
                        std::ptr::null(),
                        c"/".as_ptr(),
                        std::ptr::null(),
                        libc::MS_REC | libc::MS_PRIVATE,
                        std::ptr::null(),
                    ) == 0);
            let code = if made { 0 } else { *libc::__errno_location() };
            libc::_exit(code.clamp(0, 255));
        }
        let mut status = 0;
        if libc::waitpid(pid, &raw mut status, 0) != pid {
            return Err(std::io::Error::last_os_error());
        }
        if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
            Ok(())
        } else if libc::WIFEXITED(status) {
            Err(std::io::Error::from_raw_os_error(libc::WEXITSTATUS(status)))
        } else {
            Err(std::io::Error::other("the probe did not exit"))
        }
    }
}

/// Whether the kernel holds renderers to an allowlist of files (and, from ABI 4, closes TCP).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Landlock {
    /// Enforced, at this ABI version.
    Enforced { abi: u8 },
    /// Not available: why.
    Unavailable(String),
}

/// Everything the system holds renderers to, found once per run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Confinement {
    pub namespaces: Sandbox,
    pub landlock: Landlock,
    pub root: StageRoot,
    pub system_calls: SystemCalls,
}

/// Whether the renderer's root is the stage (a mount namespace and `pivot_root`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StageRoot {
    Pivoted,
    /// Not available: why.
    Unavailable(String),
}

/// Whether the system-call filter holds the renderer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SystemCalls {
    Filtered,
    /// Not available: why.
    Unavailable(String),
}

/// The first Landlock ABI that restricts TCP connect and bind (Linux 6.7).
const LANDLOCK_NETWORK_ABI: u8 = 4;

impl Confinement {
    /// Whether the network is closed to renderers: a network namespace, or Landlock's TCP
    /// rules with the system-call filter refusing every other Internet socket (Landlock holds
    /// TCP only: UDP to loopback went through it).
    pub(crate) fn network_closed(&self) -> bool {
        self.namespaces.is_active()
            || (matches!(self.landlock, Landlock::Enforced { abi } if abi >= LANDLOCK_NETWORK_ABI)
                && self.system_calls == SystemCalls::Filtered)
    }

    /// Why a renderer would not be fully confined — files held to the stage, network closed
    /// — or `None` when it is.
    pub fn shortfall(&self) -> Option<String> {
        let files = match &self.landlock {
            Landlock::Enforced { .. } => None,
            Landlock::Unavailable(why) => Some(format!("files are not held to the stage ({why})")),
        };
        let network = (!self.network_closed()).then(|| match &self.namespaces {
            Sandbox::Unavailable(why) => format!("the network is open ({why})"),
            _ => "the network is open".to_owned(),
        });
        let calls = match &self.system_calls {
            SystemCalls::Filtered => None,
            SystemCalls::Unavailable(why) => Some(format!(
                "Unix sockets and other architectures' system calls are not refused ({why})"
            )),
        };
        let all: Vec<String> = [files, network, calls].into_iter().flatten().collect();
        (!all.is_empty()).then(|| all.join("; "))
    }

    /// One line for `--show-settings`.
    pub(crate) fn describe(&self) -> String {
        let landlock = match &self.landlock {
            Landlock::Enforced { abi } if *abi >= LANDLOCK_NETWORK_ABI => {
                format!("Landlock ABI {abi} (files and TCP)")
            }
            Landlock::Enforced { abi } => format!("Landlock ABI {abi} (files)"),
            Landlock::Unavailable(why) => format!("no Landlock ({why})"),
        };
        let state = if self.shortfall().is_none() {
            "confined"
        } else {
            "not fully confined"
        };
        let root = match &self.root {
            StageRoot::Pivoted => "the stage is the renderer's root".to_owned(),
            StageRoot::Unavailable(why) => {
                format!("the renderer sees the whole file system ({why})")
            }
        };
        let calls = match &self.system_calls {
            SystemCalls::Filtered => "system calls filtered".to_owned(),
            SystemCalls::Unavailable(why) => format!("no system-call filter ({why})"),
        };
        format!(
            "{state}: {}; {root}; {landlock}; {calls}",
            self.namespaces.describe()
        )
    }

    /// Stable words for the render cache's key: a render kept under one confinement is not
    /// handed out under another.
    pub(crate) fn key(&self) -> String {
        let namespaces = match self.namespaces {
            Sandbox::Active => "userns+netns",
            Sandbox::NetworkOnly => "netns",
            Sandbox::Unavailable(_) => "none",
        };
        let root = match self.root {
            StageRoot::Pivoted => "root",
            StageRoot::Unavailable(_) => "no-root",
        };
        let calls = match self.system_calls {
            SystemCalls::Filtered => "seccomp2",
            SystemCalls::Unavailable(_) => "no-seccomp",
        };
        match self.landlock {
            Landlock::Enforced { abi } => format!("{namespaces} {root} landlock{abi} {calls}"),
            Landlock::Unavailable(_) => format!("{namespaces} {root} no-landlock {calls}"),
        }
    }
}

/// The confinement this system allows, found once per run.
pub fn confinement() -> &'static Confinement {
    static CONFINEMENT: OnceLock<Confinement> = OnceLock::new();
    CONFINEMENT.get_or_init(|| Confinement {
        namespaces: sandbox().clone(),
        landlock: landlock(),
        root: stage_root(),
        system_calls: system_calls(),
    })
}

#[cfg(target_os = "linux")]
fn system_calls() -> SystemCalls {
    match system_call_filters() {
        Ok(_) => SystemCalls::Filtered,
        Err(why) => SystemCalls::Unavailable(why),
    }
}

#[cfg(not(target_os = "linux"))]
fn system_calls() -> SystemCalls {
    SystemCalls::Unavailable("seccomp exists only on Linux".to_owned())
}

/// Whether the renderer can have the stage as its root: where it gets namespaces, a forked
/// child that makes a mount namespace and its mounts private (where the kernel or a security
/// module gives a new user namespace no capabilities, this is refused).
#[cfg(target_os = "linux")]
fn stage_root() -> StageRoot {
    let flags = match sandbox() {
        Sandbox::Active => libc::CLONE_NEWUSER | libc::CLONE_NEWNET | libc::CLONE_NEWNS,
        Sandbox::NetworkOnly => libc::CLONE_NEWNET | libc::CLONE_NEWNS,
        Sandbox::Unavailable(why) => return StageRoot::Unavailable(why.clone()),
    };
    match try_namespaces(flags, true) {
        Ok(()) => StageRoot::Pivoted,
        Err(error) => StageRoot::Unavailable(format!(
            "the kernel refuses a mount namespace to the renderer ({error})"
        )),
    }
}

#[cfg(not(target_os = "linux"))]
fn stage_root() -> StageRoot {
    StageRoot::Unavailable("mount namespaces exist only on Linux".to_owned())
}

#[cfg(target_os = "linux")]
fn landlock() -> Landlock {
    if std::env::var_os("PODCYCLE_NO_RENDER_SANDBOX").is_some() {
        return Landlock::Unavailable("switched off by PODCYCLE_NO_RENDER_SANDBOX".to_owned());
    }
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with this flag and no attributes the call only reports the ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    if abi < 1 {
        let error = std::io::Error::last_os_error();
        let why = match error.raw_os_error() {
            Some(libc::ENOSYS) => "the kernel has no Landlock (Linux 5.13 or later)".to_owned(),
            Some(libc::EOPNOTSUPP) => "Landlock is not enabled at boot".to_owned(),
            _ => format!("Landlock is refused ({error})"),
        };
        return Landlock::Unavailable(why);
    }
    Landlock::Enforced {
        abi: u8::try_from(abi).unwrap_or(u8::MAX),
    }
}

#[cfg(not(target_os = "linux"))]
fn landlock() -> Landlock {
    Landlock::Unavailable("Landlock exists only on Linux".to_owned())
}

/// What one renderer may touch: besides these, its own executable (with the system's shared
/// libraries when it is dynamically linked).
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// Directories and files it may read.
    pub read: Vec<PathBuf>,
    /// Directories it may read and write (its scratch directory).
    pub write: Vec<PathBuf>,
}

/// What must outlive a confined renderer: the directory its root is made of.
#[derive(Default)]
#[must_use = "the renderer's root is removed when this is dropped"]
pub(crate) struct Confined {
    #[cfg(target_os = "linux")]
    _root: Option<tempfile::TempDir>,
}

/// Confines the renderer `command` will start: `program` with `access`, the sandbox this system
/// allows, and at most `memory` bytes of data. An error when the confinement cannot be built.
/// The renderer starts in `command`'s current directory, which must be in `access`.
pub(crate) fn confine(
    command: &mut Command,
    program: &Path,
    access: &Access,
    memory: u64,
) -> Result<Confined, String> {
    // Go's soft limit, a quarter below the hard one: a large chart makes the collector work
    // harder instead of reaching the limit.
    command.env("GOMEMLIMIT", format!("{}B", memory / 4 * 3));
    // Rendering is sequential; threads beyond two only add stacks to the data limit.
    command.env("GOMAXPROCS", "2");
    #[allow(unused_mut)]
    let mut confined = Confined::default();
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        #[cfg(target_os = "linux")]
        let namespaces = match sandbox() {
            Sandbox::Active => libc::CLONE_NEWUSER | libc::CLONE_NEWNET,
            Sandbox::NetworkOnly => libc::CLONE_NEWNET,
            Sandbox::Unavailable(_) => 0,
        };
        #[cfg(target_os = "linux")]
        let root = match confinement().root {
            StageRoot::Pivoted => {
                let dir = command
                    .get_current_dir()
                    .map(Path::to_owned)
                    .ok_or("the renderer has no directory to start in")?;
                Some(RootPlan::new(program, access, &dir)?)
            }
            StageRoot::Unavailable(_) => None,
        };
        #[cfg(target_os = "linux")]
        let namespaces = namespaces | if root.is_some() { libc::CLONE_NEWNS } else { 0 };
        #[cfg(target_os = "linux")]
        let ruleset = match &confinement().landlock {
            Landlock::Enforced { abi } => Some(landlock_ruleset(*abi, program, access)?),
            Landlock::Unavailable(_) => None,
        };
        // Where the filter cannot be built (an architecture seccompiler does not know), the
        // renderer runs without it and the confinement says so.
        #[cfg(target_os = "linux")]
        let filters = system_call_filters().unwrap_or_default();
        #[cfg(not(target_os = "linux"))]
        let _ = (program, access);
        let limit = libc::rlimit {
            rlim_cur: memory as libc::rlim_t,
            rlim_max: memory as libc::rlim_t,
        };
        #[cfg(target_os = "linux")]
        let mounts = root.as_ref().map(RootPlan::mounts);
        // SAFETY: between fork and exec the closure calls only async-signal-safe functions
        // (`close_range`, `fcntl`, `getrlimit`, `prctl`, `unshare`, `mount`, `statvfs`, `chdir`,
        // `syscall`, `setrlimit`) on values prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                // Before anything else: no descriptor podcycle inherited (a file, a socket, a
                // directory to walk out of the root from) reaches the renderer. Close-on-exec
                // rather than closed, so that the Landlock ruleset stays usable until exec.
                mark_inherited_close_on_exec();
                #[cfg(target_os = "linux")]
                {
                    use std::os::fd::AsRawFd;
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0
                        || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    if namespaces != 0 && libc::unshare(namespaces) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    if let Some(mounts) = &mounts {
                        mounts.enter()?;
                    }
                    // Landlock after the mounts: a Landlock domain may not change them.
                    if let Some(ruleset) = &ruleset
                        && libc::syscall(
                            libc::SYS_landlock_restrict_self,
                            ruleset.as_raw_fd(),
                            0 as libc::c_uint,
                        ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    for filter in &filters {
                        let program = libc::sock_fprog {
                            len: filter.len() as libc::c_ushort,
                            // `seccompiler`'s instruction is the kernel's `struct sock_filter`, as libc's is.
                            filter: filter.as_ptr().cast::<libc::sock_filter>().cast_mut(),
                        };
                        if libc::prctl(
                            libc::PR_SET_SECCOMP,
                            libc::SECCOMP_MODE_FILTER,
                            &raw const program,
                        ) != 0
                        {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                }
                if libc::setrlimit(libc::RLIMIT_DATA, &raw const limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        #[cfg(target_os = "linux")]
        {
            confined._root = root.map(|plan| plan.dir);
        }
    }
    #[cfg(not(unix))]
    let _ = (program, access);
    Ok(confined)
}

/// Marks every descriptor above standard error close-on-exec. Called between fork and exec:
/// only `close_range` (Linux 5.11), or else `getrlimit` and `fcntl` up to the descriptor limit.
fn mark_inherited_close_on_exec() {
    #[cfg(target_os = "linux")]
    {
        const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
        // SAFETY: a system call on integers.
        if unsafe {
            libc::syscall(
                libc::SYS_close_range,
                3 as libc::c_uint,
                libc::c_uint::MAX,
                CLOSE_RANGE_CLOEXEC,
            )
        } == 0
        {
            return;
        }
    }
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `getrlimit` writes the struct it is given.
    let highest = if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &raw mut limit) } == 0 {
        // Descriptors above the soft limit can exist (opened before it was lowered), but not
        // above the hard one; bounded so that an infinite limit does not loop for ever.
        limit.rlim_max.min(1 << 20) as libc::c_int
    } else {
        1 << 16
    };
    for fd in 3..highest {
        // SAFETY: `fcntl` on a descriptor that may not exist fails with EBADF, harmlessly.
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// The renderer's root, laid out before the fork: an empty directory holding a mount point at
/// the absolute path of everything the renderer may use, so that the child only mounts (an
/// unmapped user creates no file in a user namespace). The paths are the ones the renderer is
/// given, so its arguments and messages are the same whichever root it has.
#[cfg(target_os = "linux")]
struct RootPlan {
    dir: tempfile::TempDir,
    /// The root, then each bind mount: its source, its mount point under the root, and
    /// whether it is writable.
    root: std::ffi::CString,
    binds: Vec<(std::ffi::CString, std::ffi::CString, bool)>,
    /// Where the renderer starts.
    cwd: std::ffi::CString,
}

/// What the child mounts, borrowed from the plan (which the parent keeps).
#[cfg(target_os = "linux")]
struct RootMounts {
    root: std::ffi::CString,
    binds: Vec<(std::ffi::CString, std::ffi::CString, bool)>,
    cwd: std::ffi::CString,
}

#[cfg(target_os = "linux")]
impl RootPlan {
    fn new(program: &Path, access: &Access, cwd: &Path) -> Result<RootPlan, String> {
        use std::os::unix::ffi::OsStrExt;
        let error = |what: &str, e: std::io::Error| {
            format!("cannot lay out the renderer's root ({what}): {e}")
        };
        let c_string = |path: &Path| {
            std::ffi::CString::new(path.as_os_str().as_bytes())
                .map_err(|_| format!("{} has a NUL byte", path.display()))
        };
        let absolute = |path: &Path| std::path::absolute(path).map_err(|e| error("a path", e));
        let program = absolute(program)?;
        let canonical = program
            .canonicalize()
            .map_err(|e| error("the renderer", e))?;
        // (source, the path the renderer knows it by, writable)
        let mut wanted: Vec<(PathBuf, PathBuf, bool)> = vec![(canonical.clone(), program, false)];
        if is_dynamically_linked(&canonical) {
            wanted.extend(
                SHARED_LIBRARIES
                    .iter()
                    .map(|path| (PathBuf::from(path), PathBuf::from(path), false)),
            );
        }
        for (paths, writable) in [(&access.read, false), (&access.write, true)] {
            for path in paths {
                let path = absolute(path)?;
                wanted.push((path.clone(), path, writable));
            }
        }
        wanted.push(("/dev/null".into(), "/dev/null".into(), true));
        // What does not exist is not bound (a system without `/lib32`).
        wanted.retain(|(source, _, _)| source.exists());
        // Outer directories first, so that an inner mount is not hidden beneath an outer one.
        wanted.sort_by_key(|(_, target, _)| target.components().count());
        let dir = tempfile::Builder::new()
            .prefix("podcycle-root-")
            .tempdir()
            .map_err(|e| error("a temporary directory", e))?;
        let mut binds = Vec::new();
        for (source, target, writable) in &wanted {
            let point = dir.path().join(target.strip_prefix("/").unwrap_or(target));
            let made = if source.is_dir() {
                std::fs::create_dir_all(&point)
            } else {
                point
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::File::create(&point).map(drop))
            };
            made.map_err(|e| error(&target.display().to_string(), e))?;
            binds.push((c_string(source)?, c_string(&point)?, *writable));
        }
        Ok(RootPlan {
            root: c_string(dir.path())?,
            dir,
            binds,
            cwd: c_string(&absolute(cwd)?)?,
        })
    }

    fn mounts(&self) -> RootMounts {
        RootMounts {
            root: self.root.clone(),
            binds: self.binds.clone(),
            cwd: self.cwd.clone(),
        }
    }
}

#[cfg(target_os = "linux")]
impl RootMounts {
    /// In the child, in its new mount namespace: binds each path, read-only unless it is
    /// writable, makes the root read-only, and pivots onto it, detaching the old root so that
    /// no path leads back to the machine's file system.
    ///
    /// # Safety
    /// Between fork and exec only: it changes the process's mounts and root.
    unsafe fn enter(&self) -> std::io::Result<()> {
        let check = |result: libc::c_int| {
            if result == 0 {
                Ok(())
            } else {
                Err(std::io::Error::last_os_error())
            }
        };
        let null = std::ptr::null::<libc::c_char>();
        // SAFETY: every pointer is a NUL-terminated string that outlives the calls.
        unsafe {
            // Nothing mounted here reaches the parent's namespace.
            check(libc::mount(
                null,
                c"/".as_ptr(),
                null,
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            check(libc::mount(
                self.root.as_ptr(),
                self.root.as_ptr(),
                null,
                libc::MS_BIND,
                std::ptr::null(),
            ))?;
            for (source, point, writable) in &self.binds {
                check(libc::mount(
                    source.as_ptr(),
                    point.as_ptr(),
                    null,
                    libc::MS_BIND | libc::MS_REC,
                    std::ptr::null(),
                ))?;
                if !writable {
                    read_only(point)?;
                }
            }
            read_only(&self.root)?;
            check(libc::chdir(self.root.as_ptr()))?;
            if libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            check(libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
            check(libc::chdir(self.cwd.as_ptr()))
        }
    }
}

/// Remounts the bind mount at `point` read-only, keeping the flags it has (a user namespace
/// may not drop `nosuid`, `nodev` or `noexec` from a mount it was given).
///
/// # Safety
/// Between fork and exec only.
#[cfg(target_os = "linux")]
unsafe fn read_only(point: &std::ffi::CStr) -> std::io::Result<()> {
    // `statvfs`'s `ST_*` flags are the `MS_*` mount flags of the same names.
    let kept = libc::MS_NOSUID
        | libc::MS_NODEV
        | libc::MS_NOEXEC
        | libc::MS_NOATIME
        | libc::MS_NODIRATIME
        | libc::MS_RELATIME;
    // SAFETY: `point` is NUL-terminated; `stat` is written by the kernel.
    unsafe {
        let mut stat: libc::statvfs = std::mem::zeroed();
        if libc::statvfs(point.as_ptr(), &raw mut stat) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let flags = (stat.f_flag as libc::c_ulong) & kept;
        if libc::mount(
            std::ptr::null(),
            point.as_ptr(),
            std::ptr::null(),
            libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | flags,
            std::ptr::null(),
        ) != 0
        {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The Landlock ruleset for one renderer, built before the fork (the child only calls
/// `landlock_restrict_self` on it): every file access the ABI knows is handled, and granted
/// only beneath `access` and the program; at ABI 4 and later TCP connect and bind are handled
/// and never granted; at ABI 6 and later abstract Unix sockets and signals are scoped to the
/// renderer.
#[cfg(target_os = "linux")]
fn landlock_ruleset(
    abi: u8,
    program: &Path,
    access: &Access,
) -> Result<std::os::fd::OwnedFd, String> {
    use landlock::{
        ABI, Access as _, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
        path_beneath_rules,
    };
    let abi = match abi {
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        6 => ABI::V6,
        _ => ABI::V7,
    };
    let program = program
        .canonicalize()
        .unwrap_or_else(|_| program.to_owned());
    let mut read = vec![program.clone()];
    if is_dynamically_linked(&program) {
        read.extend(SHARED_LIBRARIES.iter().map(PathBuf::from));
    }
    read.extend(access.read.iter().cloned());
    let write = access
        .write
        .iter()
        .cloned()
        .chain([PathBuf::from("/dev/null")]);
    let error = |e: landlock::RulesetError| format!("cannot build the Landlock ruleset: {e}");
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(abi))
        .map_err(error)?;
    if abi >= ABI::V4 {
        ruleset = ruleset
            .handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp)
            .map_err(error)?;
    }
    if abi >= ABI::V6 {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket | Scope::Signal)
            .map_err(error)?;
    }
    let created = ruleset
        .create()
        .map_err(error)?
        .add_rules(path_beneath_rules(&read, AccessFs::from_read(abi)))
        .map_err(error)?
        .add_rules(path_beneath_rules(write, AccessFs::from_all(abi)))
        .map_err(error)?;
    let fd: Option<std::os::fd::OwnedFd> = created.into();
    fd.ok_or_else(|| "the kernel did not create a Landlock ruleset".to_owned())
}

/// The seccomp filters a renderer runs under, built once with rust-vmm's `seccompiler` (each
/// checks the architecture first and kills the process on any other: the 32-bit `int 0x80`
/// entry of an x86-64 process has its own numbers, `socketcall` among them):
///
/// - `socket` is refused (`EACCES`) but for a TCP socket over IPv4 or IPv6: no Unix socket
///   (a path-named one — a container runtime's, an agent's — is reachable through neither a
///   network namespace nor Landlock), no UDP or raw socket (Landlock holds only TCP, so where
///   there is no network namespace UDP to loopback went through), no netlink or packet socket.
///   Helm and Kustomize need none of them to render. `socketpair` is refused too.
/// - `io_uring_setup`, `io_uring_enter` and `io_uring_register` are refused (`EPERM`):
///   `io_uring` opens sockets and files by operations no filter sees.
/// - The calls that change mounts or namespaces are refused (`EPERM`), so that the stage root
///   holds where Landlock (which forbids them too) is not there.
/// - On x86-64, a call of the x32 ABI (its numbers carry bit 30 and share the architecture
///   value) kills the process. `seccompiler` does not check that bit, so two instructions
///   placed before its program do.
#[cfg(target_os = "linux")]
fn system_call_filters() -> Result<Vec<seccompiler::BpfProgram>, String> {
    static FILTERS: OnceLock<Result<Vec<seccompiler::BpfProgram>, String>> = OnceLock::new();
    FILTERS.get_or_init(build_filters).clone()
}

#[cfg(target_os = "linux")]
fn build_filters() -> Result<Vec<seccompiler::BpfProgram>, String> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    use std::collections::BTreeMap;
    let error = |e: seccompiler::BackendError| format!("cannot build the system-call filter: {e}");
    let arch = std::env::consts::ARCH
        .try_into()
        .map_err(|_| format!("seccompiler does not know {}", std::env::consts::ARCH))?;
    let differs = |argument: u8, values: &[u64]| -> Result<SeccompRule, String> {
        let conditions = values
            .iter()
            .map(|value| {
                SeccompCondition::new(argument, SeccompCmpArgLen::Dword, SeccompCmpOp::Ne, *value)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(error)?;
        SeccompRule::new(conditions).map_err(error)
    };
    // A stream socket, with or without the flags `socket` takes in its type.
    let stream = libc::SOCK_STREAM as u64;
    let (nonblocking, cloexec) = (libc::SOCK_NONBLOCK as u64, libc::SOCK_CLOEXEC as u64);
    let sockets: BTreeMap<i64, Vec<SeccompRule>> = [
        (
            libc::SYS_socket,
            vec![
                differs(0, &[libc::AF_INET as u64, libc::AF_INET6 as u64])?,
                differs(
                    1,
                    &[
                        stream,
                        stream | nonblocking,
                        stream | cloexec,
                        stream | nonblocking | cloexec,
                    ],
                )?,
                differs(2, &[0, libc::IPPROTO_TCP as u64])?,
            ],
        ),
        (libc::SYS_socketpair, Vec::new()),
    ]
    .into_iter()
    .collect();
    let refused: BTreeMap<i64, Vec<SeccompRule>> = [
        libc::SYS_io_uring_setup,
        libc::SYS_io_uring_enter,
        libc::SYS_io_uring_register,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_chroot,
        libc::SYS_unshare,
        libc::SYS_setns,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
    ]
    .into_iter()
    .map(|number| (number, Vec::new()))
    .collect();
    let build = |rules, action| -> Result<BpfProgram, String> {
        let filter =
            SeccompFilter::new(rules, SeccompAction::Allow, action, arch).map_err(error)?;
        BpfProgram::try_from(filter).map_err(error)
    };
    let mut sockets = build(sockets, SeccompAction::Errno(libc::EACCES as u32))?;
    let refused = build(refused, SeccompAction::Errno(libc::EPERM as u32))?;
    if cfg!(target_arch = "x86_64") {
        const X32_SYSCALL_BIT: u32 = 0x4000_0000;
        let op = |code: u16, jt, jf, k| seccompiler::sock_filter { code, jt, jf, k };
        let x32 = [
            // `seccomp_data.nr`, at offset 0.
            op((libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16, 0, 0, 0),
            op(
                (libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K) as u16,
                0,
                1,
                X32_SYSCALL_BIT,
            ),
            op(
                (libc::BPF_RET | libc::BPF_K) as u16,
                0,
                0,
                libc::SECCOMP_RET_KILL_PROCESS,
            ),
        ];
        sockets.splice(0..0, x32);
    }
    Ok(vec![sockets, refused])
}

/// Where the dynamic loader and the system's shared libraries live: a dynamically linked
/// renderer (Helm or Kustomize built with cgo) cannot start without reading them. They hold
/// no secrets of the machine.
#[cfg(target_os = "linux")]
const SHARED_LIBRARIES: &[&str] = &[
    "/lib",
    "/lib32",
    "/lib64",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/etc/ld.so.cache",
];

/// Whether an ELF executable names a program interpreter (the dynamic loader): a 64-bit ELF
/// file with a `PT_INTERP` program header. Anything else (a static Go binary, a script, a file
/// that cannot be read) gets no shared libraries; a script then cannot start its interpreter,
/// and the render fails with the reason.
#[cfg(target_os = "linux")]
fn is_dynamically_linked(program: &Path) -> bool {
    use std::io::Read;
    const PT_INTERP: u32 = 3;
    let mut head = [0u8; 4096];
    let Ok(read) = std::fs::File::open(program).and_then(|mut file| file.read(&mut head)) else {
        return false;
    };
    let head = &head[..read];
    // 64-bit (class 2), little-endian (data 1).
    if head.len() < 64 || &head[..4] != b"\x7fELF" || head[4] != 2 || head[5] != 1 {
        return false;
    }
    let u16_at = |at: usize| u16::from_le_bytes([head[at], head[at + 1]]) as usize;
    let offset = u64::from_le_bytes(head[0x20..0x28].try_into().unwrap_or_default());
    let Ok(offset) = usize::try_from(offset) else {
        return false;
    };
    let (size, count) = (u16_at(0x36), u16_at(0x38));
    (0..count).any(|index| {
        let at = offset + index * size;
        head.get(at..at + 4).is_some_and(|kind| {
            u32::from_le_bytes(kind.try_into().unwrap_or_default()) == PT_INTERP
        })
    })
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Landlock's TCP rules close the network only with the filter that refuses every other
    /// Internet socket: UDP to loopback went through them alone.
    #[test]
    fn without_a_network_namespace_tcp_rules_alone_do_not_close_the_network() {
        let mut found = Confinement {
            namespaces: Sandbox::Unavailable("refused".to_owned()),
            landlock: Landlock::Enforced { abi: 4 },
            root: StageRoot::Unavailable("refused".to_owned()),
            system_calls: SystemCalls::Filtered,
        };
        assert!(found.network_closed());
        assert_eq!(found.shortfall(), None);
        found.system_calls = SystemCalls::Unavailable("an unknown architecture".to_owned());
        assert!(!found.network_closed());
        let shortfall = found.shortfall().unwrap();
        assert!(shortfall.contains("the network is open"), "{shortfall}");
        assert!(shortfall.contains("Unix sockets"), "{shortfall}");
    }

    /// This system's filter builds, and kills the x32 entry before anything else.
    #[test]
    fn the_system_call_filter_builds() {
        let filters = system_call_filters().unwrap();
        assert_eq!(filters.len(), 2);
        if cfg!(target_arch = "x86_64") {
            assert_eq!(filters[0][2].k, libc::SECCOMP_RET_KILL_PROCESS);
        }
    }

    /// Where the kernel allows namespaces, a confined process sees no network interface that
    /// is up; where it does not, the probe says why.
    #[test]
    fn a_confined_process_has_no_network() {
        let mut command = Command::new("/bin/sh");
        command
            .args(["-c", "cat /proc/net/dev"])
            .current_dir("/bin");
        let access = Access {
            read: ["/bin", "/usr/bin", "/proc"].map(PathBuf::from).to_vec(),
            write: Vec::new(),
        };
        let _confined = confine(&mut command, Path::new("/bin/sh"), &access, 1 << 30).unwrap();
        let output = command.output().unwrap();
        let text = String::from_utf8_lossy(&output.stdout);
        match sandbox() {
            Sandbox::Unavailable(why) => {
                eprintln!("no sandbox here: {why}");
                assert!(!why.is_empty());
            }
            _ => {
                let interfaces: Vec<&str> = text
                    .lines()
                    .skip(2)
                    .filter_map(|line| line.split(':').next())
                    .map(str::trim)
                    .collect();
                assert_eq!(interfaces, ["lo"], "{text}");
            }
        }
    }
}
