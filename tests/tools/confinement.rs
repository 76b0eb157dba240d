//! The render confinement on every kind of Linux machine podcycle meets, emulated with a
//! seccomp filter that makes the kernel refuse what such a machine refuses: user namespaces
//! (most container-based CI), Landlock (kernels before 5.13 or without it at boot), or both
//! switched off (`PODCYCLE_NO_RENDER_SANDBOX=1`). The filter is installed in the podcycle process
//! the test starts, so podcycle probes and confines exactly as it would there.
//!
//! In untrusted mode (`--isolated`) a render runs only where files are held to the stage and
//! the network is closed; elsewhere it is not rendered, with the reason, which fails
//! `--fail-on-unrendered` and reaches SARIF. Outside untrusted mode the run renders and says
//! once, on standard error and in SARIF, what the confinement lacked.

use std::os::unix::process::CommandExt;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use libtest_mimic::Trial;
use serde_json::Value;

use crate::common::{code, git, git_init, podcycle, stderr, stdout, watched, write};
use crate::tool::{Tool, needs};

const BAD: &str = include_str!("../../testdata/cli/bad.yaml");
const LIMIT: Duration = Duration::from_secs(60);

/// What the machine refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Machine {
    /// Nothing: user and network namespaces and Landlock.
    Confined,
    /// New user namespaces (and so network namespaces, unprivileged).
    NoNamespaces,
    /// Landlock.
    NoLandlock,
    /// Neither namespaces nor Landlock.
    Neither,
    /// `PODCYCLE_NO_RENDER_SANDBOX=1`.
    SwitchedOff,
}

const MACHINES: [Machine; 5] = [
    Machine::Confined,
    Machine::NoNamespaces,
    Machine::NoLandlock,
    Machine::Neither,
    Machine::SwitchedOff,
];

impl Machine {
    /// Whether a renderer is fully confined there: files held by Landlock, and the network
    /// closed by a network namespace or by Landlock's TCP rules (ABI 4, which this machine has).
    fn confines(self) -> bool {
        matches!(self, Machine::Confined | Machine::NoNamespaces)
    }

    /// The system calls the kernel refuses there, with the error it gives.
    fn refused(self) -> &'static [(libc::c_long, libc::c_int)] {
        const UNSHARE: (libc::c_long, libc::c_int) = (libc::SYS_unshare, libc::EPERM);
        const LANDLOCK: [(libc::c_long, libc::c_int); 3] = [
            (libc::SYS_landlock_create_ruleset, libc::ENOSYS),
            (libc::SYS_landlock_add_rule, libc::ENOSYS),
            (libc::SYS_landlock_restrict_self, libc::ENOSYS),
        ];
        const NEITHER: [(libc::c_long, libc::c_int); 4] =
            [UNSHARE, LANDLOCK[0], LANDLOCK[1], LANDLOCK[2]];
        match self {
            Machine::Confined | Machine::SwitchedOff => &[],
            Machine::NoNamespaces => &[UNSHARE],
            Machine::NoLandlock => &LANDLOCK,
            Machine::Neither => &NEITHER,
        }
    }

    /// `command`, run as on this machine.
    fn run(self, command: &mut Command) -> Output {
        if self == Machine::SwitchedOff {
            command.env("PODCYCLE_NO_RENDER_SANDBOX", "1");
        }
        let refused = self.refused();
        if !refused.is_empty() {
            let filter = seccomp_filter(refused);
            // SAFETY: between fork and exec the closure calls only `prctl` on a filter built
            // before the fork.
            unsafe {
                command.pre_exec(move || {
                    let program = libc::sock_fprog {
                        len: filter.len() as libc::c_ushort,
                        filter: filter.as_ptr().cast_mut(),
                    };
                    if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0
                        || libc::prctl(
                            libc::PR_SET_SECCOMP,
                            libc::SECCOMP_MODE_FILTER,
                            &raw const program,
                        ) != 0
                    {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
        }
        watched(LIMIT, command.stdin(Stdio::null()), &mut |_| {})
    }
}

/// A classic BPF program for seccomp: each system call of `refused` fails with its error,
/// every other one is allowed.
fn seccomp_filter(refused: &[(libc::c_long, libc::c_int)]) -> Vec<libc::sock_filter> {
    const LOAD_NUMBER: u16 = (libc::BPF_LD | libc::BPF_W | libc::BPF_ABS) as u16;
    const JUMP_IF_EQUAL: u16 = (libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K) as u16;
    const RETURN: u16 = (libc::BPF_RET | libc::BPF_K) as u16;
    let statement = |code, k| libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    };
    // `seccomp_data.nr` is the first field.
    let mut program = vec![statement(LOAD_NUMBER, 0)];
    for &(number, error) in refused {
        program.push(libc::sock_filter {
            code: JUMP_IF_EQUAL,
            jt: 0,
            jf: 1,
            k: number as u32,
        });
        program.push(statement(RETURN, libc::SECCOMP_RET_ERRNO | error as u32));
    }
    program.push(statement(RETURN, libc::SECCOMP_RET_ALLOW));
    program
}

pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "confinement::untrusted_mode_renders_only_where_renderers_are_confined",
            untrusted_mode_renders_only_where_renderers_are_confined,
        ),
        needs(
            Tool::Renderers,
            "confinement::elsewhere_rendering_unconfined_is_said_once",
            elsewhere_rendering_unconfined_is_said_once,
        ),
    ]
}

/// A checkout holding a chart with a bad pod, every file committed.
fn checkout() -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    git_init(root);
    write(
        root,
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    );
    write(root, "web/values.yaml", "replicas: 1\n");
    write(root, "web/templates/pod.yaml", BAD);
    git(root, &["add", "-A"]);
    tree
}

fn sarif(output: &Output) -> Value {
    serde_json::from_str(&stdout(output)).unwrap_or_else(|e| panic!("{e}: {}", stdout(output)))
}

/// The run's notifications in SARIF, as text.
fn notifications(log: &Value) -> String {
    log["runs"][0]["invocations"][0]["toolExecutionNotifications"].to_string()
}

fn untrusted_mode_renders_only_where_renderers_are_confined() {
    let tree = checkout();
    for machine in MACHINES {
        let output = machine.run(podcycle().current_dir(tree.path()).args([
            "check",
            "--isolated",
            "--fail-on-unrendered",
            "--no-cache",
            "--format",
            "sarif",
            "web",
        ]));
        let log = sarif(&output);
        let results = log["runs"][0]["results"].as_array().unwrap();
        let refused = "untrusted mode renders only where renderers can be confined";
        assert_eq!(code(&output), 1, "{machine:?}: {}", stderr(&output));
        if machine.confines() {
            assert!(!results.is_empty(), "{machine:?}: the chart renders");
            assert!(!stderr(&output).contains(refused), "{machine:?}");
        } else {
            assert!(results.is_empty(), "{machine:?}: nothing rendered");
            assert!(
                stderr(&output).contains(refused),
                "{machine:?}: {}",
                stderr(&output)
            );
            assert!(notifications(&log).contains(refused), "{machine:?}: {log}");
        }
    }
}

fn elsewhere_rendering_unconfined_is_said_once() {
    let tree = checkout();
    for machine in MACHINES {
        let output = machine.run(podcycle().current_dir(tree.path()).args([
            "check",
            "--no-cache",
            "--format",
            "sarif",
            "web",
        ]));
        let log = sarif(&output);
        let results = log["runs"][0]["results"].as_array().unwrap();
        assert_eq!(code(&output), 1, "{machine:?}: {}", stderr(&output));
        assert!(!results.is_empty(), "{machine:?}: the chart renders");
        let said = "renderers run without full confinement";
        let times = stderr(&output).matches(said).count();
        if machine.confines() {
            assert_eq!(times, 0, "{machine:?}: {}", stderr(&output));
        } else {
            assert_eq!(times, 1, "{machine:?}: {}", stderr(&output));
            assert!(notifications(&log).contains(said), "{machine:?}: {log}");
        }
    }
}
