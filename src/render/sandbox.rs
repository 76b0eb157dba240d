//! What the operating system holds a renderer to, beyond its sealed environment.
//!
//! - **No network.** On Linux each renderer starts in a new user namespace and a new network
//!   namespace, which has no interface but a loopback that is down: no connection leaves the
//!   process, `localhost` included (Go never sends loopback through a proxy, so the proxy
//!   variables alone do not stop it). Where the kernel refuses new namespaces (unprivileged user
//!   namespaces switched off, a seccomp profile), renderers run without, with a warning; the
//!   screens of remote resources still apply.
//! - **Bounded memory.** A limit on the data segment (`RLIMIT_DATA`, which counts the memory a
//!   process writes to and not the address space Go reserves up front), with `GOMEMLIMIT` a
//!   quarter below it so that Go's collector works harder before the limit is reached.
//! - **Nothing left behind.** The renderer is killed when podcycle dies (`PR_SET_PDEATHSIG`),
//!   and cannot gain privileges through what it runs (`PR_SET_NO_NEW_PRIVS`).

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

/// What to warn about before rendering: the sandbox the kernel refused, on Linux (elsewhere
/// it does not exist, and `--show-settings` says so).
pub(crate) fn warning() -> Option<String> {
    match sandbox() {
        Sandbox::Unavailable(why) if cfg!(target_os = "linux") => Some(format!(
            "renderers run with the network reachable: {why}; remote resources are still refused before rendering"
        )),
        _ => None,
    }
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

/// Confines the renderer `command` will start: the sandbox this system allows, and at most
/// `memory` bytes of data.
pub(crate) fn confine(command: &mut Command, memory: u64) {
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
        let limit = libc::rlimit {
            rlim_cur: memory as libc::rlim_t,
            rlim_max: memory as libc::rlim_t,
        };
        // SAFETY: between fork and exec the closure calls only async-signal-safe functions
        // (`prctl`, `unshare`, `setrlimit`) on values prepared before the fork.
        unsafe {
            command.pre_exec(move || {
                #[cfg(target_os = "linux")]
                {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0
                        || libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    if namespaces != 0 && libc::unshare(namespaces) != 0 {
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
        confine(&mut command, 1 << 30);
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
