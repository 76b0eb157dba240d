//! What the operating system holds a renderer to, beyond its sealed environment.
//!
//! - **An allowlist of files.** On Linux with Landlock (5.13 and later) each renderer may read
//!   only the staged copy of its input ([`super::stage`]), its own executable (and, for a
//!   dynamically linked one, the system's shared libraries), and write only its scratch
//!   directory. The kernel enforces it: a path the renderer was not given cannot be opened,
//!   whatever Helm or Kustomize make of the input.
//! - **No network.** Each renderer starts in a new user namespace and a new network namespace,
//!   which has no interface but a loopback that is down: no connection leaves the process,
//!   `localhost` included (Go never sends loopback through a proxy, so the proxy variables alone
//!   do not stop it). With Landlock ABI 4 (Linux 6.7) the kernel also refuses every TCP connect
//!   and bind, so that where user namespaces are refused (most container-based CI) the network
//!   is still closed.
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
    match try_unshare(both) {
        Ok(()) => Sandbox::Active,
        Err(first) => match try_unshare(libc::CLONE_NEWNET) {
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

/// Whether a child process may create the namespaces in `flags`: a fork that tries and exits.
#[cfg(target_os = "linux")]
fn try_unshare(flags: libc::c_int) -> Result<(), std::io::Error> {
    // SAFETY: the child calls only async-signal-safe functions (`unshare`, `_exit`) before it
    // exits, so forking a multi-threaded process is sound; the parent waits for that child
    // alone, by its id.
    unsafe {
        let pid = libc::fork();
        if pid < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if pid == 0 {
            let code = if libc::unshare(flags) == 0 {
                0
            } else {
                *libc::__errno_location()
            };
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
}

/// The first Landlock ABI that restricts TCP connect and bind (Linux 6.7).
const LANDLOCK_NETWORK_ABI: u8 = 4;

impl Confinement {
    /// Whether the network is closed to renderers: a network namespace, or Landlock's TCP
    /// rules.
    pub(crate) fn network_closed(&self) -> bool {
        self.namespaces.is_active()
            || matches!(self.landlock, Landlock::Enforced { abi } if abi >= LANDLOCK_NETWORK_ABI)
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
        match (files, network) {
            (None, None) => None,
            (Some(one), None) | (None, Some(one)) => Some(one),
            (Some(files), Some(network)) => Some(format!("{files}; {network}")),
        }
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
        format!("{state}: {}; {landlock}", self.namespaces.describe())
    }

    /// Stable words for the render cache's key: a render kept under one confinement is not
    /// handed out under another.
    pub(crate) fn key(&self) -> String {
        let namespaces = match self.namespaces {
            Sandbox::Active => "userns+netns",
            Sandbox::NetworkOnly => "netns",
            Sandbox::Unavailable(_) => "none",
        };
        match self.landlock {
            Landlock::Enforced { abi } => format!("{namespaces} landlock{abi}"),
            Landlock::Unavailable(_) => format!("{namespaces} no-landlock"),
        }
    }
}

/// The confinement this system allows, found once per run.
pub fn confinement() -> &'static Confinement {
    static CONFINEMENT: OnceLock<Confinement> = OnceLock::new();
    CONFINEMENT.get_or_init(|| Confinement {
        namespaces: sandbox().clone(),
        landlock: landlock(),
    })
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

/// Confines the renderer `command` will start: `program` with `access`, the sandbox this system
/// allows, and at most `memory` bytes of data. An error when the allowlist cannot be built.
pub(crate) fn confine(
    command: &mut Command,
    program: &Path,
    access: &Access,
    memory: u64,
) -> Result<(), String> {
    // Go's soft limit, a quarter below the hard one: a large chart makes the collector work
    // harder instead of reaching the limit.
    command.env("GOMEMLIMIT", format!("{}B", memory / 4 * 3));
    // Rendering is sequential; threads beyond two only add stacks to the data limit.
    command.env("GOMAXPROCS", "2");
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
        let ruleset = match &confinement().landlock {
            Landlock::Enforced { abi } => Some(landlock_ruleset(*abi, program, access)?),
            Landlock::Unavailable(_) => None,
        };
        #[cfg(target_os = "linux")]
        let no_unix_sockets = no_unix_sockets();
        #[cfg(not(target_os = "linux"))]
        let _ = (program, access);
        let limit = libc::rlimit {
            rlim_cur: memory as libc::rlim_t,
            rlim_max: memory as libc::rlim_t,
        };
        // SAFETY: between fork and exec the closure calls only async-signal-safe functions
        // (`prctl`, `unshare`, `syscall`, `setrlimit`) on values prepared before the fork.
        unsafe {
            command.pre_exec(move || {
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
                    if let Some(ruleset) = &ruleset
                        && libc::syscall(
                            libc::SYS_landlock_restrict_self,
                            ruleset.as_raw_fd(),
                            0 as libc::c_uint,
                        ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    let filter = libc::sock_fprog {
                        len: no_unix_sockets.len() as libc::c_ushort,
                        filter: no_unix_sockets.as_ptr().cast_mut(),
                    };
                    if libc::prctl(
                        libc::PR_SET_SECCOMP,
                        libc::SECCOMP_MODE_FILTER,
                        &raw const filter,
                    ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                }
                if libc::setrlimit(libc::RLIMIT_DATA, &raw const limit) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    #[cfg(not(unix))]
    let _ = (program, access);
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

/// A seccomp filter that refuses `socket(AF_UNIX, …)` with `EACCES`: a path-named Unix socket
/// (a container runtime's, an agent's) is reachable through neither a network namespace nor
/// Landlock, and neither renderer needs one to render. Every other call is allowed.
#[cfg(target_os = "linux")]
fn no_unix_sockets() -> Vec<libc::sock_filter> {
    const LOAD: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JUMP_IF_EQUAL: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const RETURN: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    // `struct seccomp_data`: the call's number at 0, its first argument's low half at 16 on a
    // little-endian machine, 20 on a big-endian one.
    const FIRST_ARGUMENT: u32 = if cfg!(target_endian = "little") {
        16
    } else {
        20
    };
    let op = |code, jt, jf, k| libc::sock_filter { code, jt, jf, k };
    vec![
        op(LOAD, 0, 0, 0),
        op(JUMP_IF_EQUAL, 0, 3, libc::SYS_socket as u32),
        op(LOAD, 0, 0, FIRST_ARGUMENT),
        op(JUMP_IF_EQUAL, 0, 1, libc::AF_UNIX as u32),
        op(RETURN, 0, 0, libc::SECCOMP_RET_ERRNO | libc::EACCES as u32),
        op(RETURN, 0, 0, libc::SECCOMP_RET_ALLOW),
    ]
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

    /// Where the kernel allows namespaces, a confined process sees no network interface that
    /// is up; where it does not, the probe says why.
    #[test]
    fn a_confined_process_has_no_network() {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", "cat /proc/net/dev"]);
        let access = Access {
            read: ["/bin", "/usr/bin", "/proc"].map(PathBuf::from).to_vec(),
            write: Vec::new(),
        };
        confine(&mut command, Path::new("/bin/sh"), &access, 1 << 30).unwrap();
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
