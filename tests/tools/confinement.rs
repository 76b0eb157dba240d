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
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use podcycle::render::process::{Limits, Outcome, find_executable, run};
use podcycle::render::sandbox::{Access, Landlock, confinement};

use libtest_mimic::{Failed, Trial};
use serde_json::Value;

use crate::common::{code, podcycle, stderr, stdout, watched, write};
use crate::security::Server;
use crate::tool::{Skipped, Tool, needs_or_skips};
use crate::tool::{git, git_init};

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
    /// closed by a network namespace or by Landlock's TCP rules (ABI 4, which this machine has)
    /// with the system-call filter refusing every other Internet socket.
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
        needs_or_skips(
            Tool::Renderers,
            "confinement::a_renderer_reads_only_what_it_is_given",
            a_renderer_reads_only_what_it_is_given,
        ),
        needs_or_skips(
            Tool::Renderers,
            "confinement::without_namespaces_landlock_keeps_renderers_off_loopback",
            without_namespaces_landlock_keeps_renderers_off_loopback,
        ),
        needs_or_skips(
            Tool::Renderers,
            "confinement::every_file_of_the_stage_is_in_the_cache_key",
            every_file_of_the_stage_is_in_the_cache_key,
        ),
        needs_or_skips(
            Tool::Renderers,
            "confinement::a_renderer_opens_no_unix_socket",
            a_renderer_opens_no_unix_socket,
        ),
        needs_or_skips(
            Tool::Renderers,
            "confinement::the_reproductions_hold_on_every_machine",
            the_reproductions_hold_on_every_machine,
        ),
        // Run by the test above, in a process of its own on an emulated machine.
        Trial::test(CHILD, child_builds_a_remote_resource).with_ignored_flag(true),
        needs_or_skips(
            Tool::Renderers,
            "confinement::a_stand_in_is_held_on_every_machine",
            a_stand_in_is_held_on_every_machine,
        ),
        Trial::test(STAND_IN_CHILD, child_runs_the_stand_in).with_ignored_flag(true),
        needs_or_skips(
            Tool::Renderers,
            "confinement::an_absolute_load_path_reads_nothing_of_the_checkout",
            an_absolute_load_path_reads_nothing_of_the_checkout,
        ),
        needs_or_skips(
            Tool::Renderers,
            "confinement::untrusted_mode_renders_only_where_renderers_are_confined",
            untrusted_mode_renders_only_where_renderers_are_confined,
        ),
        needs_or_skips(
            Tool::Renderers,
            "confinement::elsewhere_rendering_unconfined_is_said_once",
            elsewhere_rendering_unconfined_is_said_once,
        ),
    ]
}

/// These tests emulate machines that confine less than this one: it must confine fully
/// (Landlock with ABI 4, user namespaces).
fn machine_confines() -> Result<(), Skipped> {
    match confinement() {
        found
            if found.shortfall().is_none()
                && matches!(found.landlock, Landlock::Enforced { abi } if abi >= 4)
                && found.namespaces.is_active() =>
        {
            Ok(())
        }
        found => Err(Skipped(format!(
            "this machine does not fully confine renderers: {found:?}"
        ))),
    }
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

fn untrusted_mode_renders_only_where_renderers_are_confined() -> Result<(), Skipped> {
    machine_confines()?;
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
    Ok(())
}

fn elsewhere_rendering_unconfined_is_said_once() -> Result<(), Skipped> {
    machine_confines()?;
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
    Ok(())
}

/// `kustomize build` with `args` in `dir`, confined to `access`.
fn kustomize(dir: &Path, args: &[&str], access: &Access) -> Outcome {
    let program = find_executable(Path::new("kustomize")).expect("kustomize is on PATH");
    let mut arguments = vec![std::ffi::OsStr::new("build"), dir.as_os_str()];
    arguments.extend(args.iter().map(std::ffi::OsStr::new));
    run(
        &program,
        &arguments,
        dir,
        access,
        &Limits::new(LIMIT),
        &podcycle::render::Budget::unlimited(),
    )
}

/// Beneath every screen: Kustomize told to load a file outside what it was given (an absolute
/// path, with `LoadRestrictionsNone`) cannot open it. Given the file's directory as well, it
/// reads it — the harness sees a leak when there is one.
fn a_renderer_reads_only_what_it_is_given() -> Result<(), Skipped> {
    machine_confines()?;
    let overlay = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = "Hunter2_SECRET_7f3a";
    write(outside.path(), "token", secret);
    write(
        overlay.path(),
        "kustomization.yaml",
        &format!(
            "configMapGenerator:\n- name: c\n  files: [cfg={}]\n",
            outside.path().join("token").display()
        ),
    );
    let restrictor = ["--load-restrictor", "LoadRestrictionsNone"];
    let given = |dirs: &[&Path]| Access {
        read: dirs.iter().map(|d| d.to_path_buf()).collect(),
        write: Vec::new(),
    };
    let leaked = kustomize(
        overlay.path(),
        &restrictor,
        &given(&[overlay.path(), outside.path()]),
    );
    assert!(
        matches!(&leaked, Outcome::Output { text, .. } if text.contains(secret)),
        "{leaked:?}"
    );
    let held = kustomize(overlay.path(), &restrictor, &given(&[overlay.path()]));
    let Outcome::Failed(failure) = &held else {
        panic!("the file outside was read: {held:?}");
    };
    // Not there for it (the stage is its root), or refused by Landlock.
    let said = format!("{failure:?}");
    assert!(
        said.contains("no such file or directory") || said.contains("permission denied"),
        "{failure:?}"
    );
    assert!(!format!("{held:?}").contains(secret), "{held:?}");
    Ok(())
}

const CHILD: &str = "confinement::child_builds_a_remote_resource";

/// Where user namespaces are refused there is no network namespace: Landlock's TCP rules alone
/// keep Kustomize from the runner's loopback. This test starts itself again as the child below,
/// on a machine that refuses user namespaces; on one that refuses Landlock too the request goes
/// through, so the harness sees a leak when there is one.
fn without_namespaces_landlock_keeps_renderers_off_loopback() -> Result<(), Skipped> {
    machine_confines()?;
    for (machine, reaches) in [(Machine::NoNamespaces, false), (Machine::Neither, true)] {
        let server = Server::start();
        let output = machine.run(
            Command::new(std::env::current_exe().unwrap())
                .args(["--exact", CHILD, "--ignored", "--test-threads", "1"])
                .env("PODCYCLE_TEST_URL", server.url()),
        );
        assert!(
            output.status.success(),
            "{machine:?}: {}{}",
            stdout(&output),
            stderr(&output)
        );
        assert!(stdout(&output).contains("1 passed"), "{}", stdout(&output));
        assert_eq!(
            server.requests() > 0,
            reaches,
            "{machine:?}: {}",
            stdout(&output)
        );
    }
    Ok(())
}

/// Builds a kustomization of one remote resource (`PODCYCLE_TEST_URL`) with what podcycle
/// would hold Kustomize to on this machine, and says what came of it.
fn child_builds_a_remote_resource() -> Result<(), Failed> {
    let url = std::env::var("PODCYCLE_TEST_URL").map_err(|_| "PODCYCLE_TEST_URL is not set")?;
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "kustomization.yaml",
        &format!("resources: [{url}]\n"),
    );
    let access = Access {
        read: vec![dir.path().to_owned()],
        write: Vec::new(),
    };
    let outcome = kustomize(dir.path(), &[], &access);
    println!("confinement: {:?}\noutcome: {outcome:?}", confinement());
    Ok(())
}

/// A transformer's configuration loads a JSON patch that no screen named: changing only the
/// patch to add a container with an invalid name made the second run say "No problems found"
/// from the render cache. The cache keys a build by everything in its stage, so the second run
/// renders again and reports the error.
fn every_file_of_the_stage_is_in_the_cache_key() -> Result<(), Skipped> {
    machine_confines()?;
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path();
    git_init(root);
    write(
        root,
        "o/pod.yaml",
        include_str!("../../testdata/cli/good.yaml"),
    );
    write(
        root,
        "o/kustomization.yaml",
        "resources: [pod.yaml]\ntransformers: [t.yaml]\n",
    );
    write(
        root,
        "o/t.yaml",
        "apiVersion: /builtin\nkind: PatchTransformer\nmetadata: {name: t}\npath: p.json\ntarget: {kind: Pod}\n",
    );
    write(
        root,
        "o/p.json",
        r#"[{"op": "replace", "path": "/metadata/name", "value": "good"}]"#,
    );
    let check = || {
        let output = podcycle()
            .current_dir(root)
            .env("PODCYCLE_CACHE_DIR", root.join(".cache"))
            .args(["check", "--format", "concise", "o"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (
            code(&output),
            format!("{}{}", stdout(&output), stderr(&output)),
        )
    };
    let (status, text) = check();
    assert_eq!(status, 0, "{text}");
    write(
        root,
        "o/p.json",
        r#"[{"op": "add", "path": "/spec/containers/-", "value": {"name": "Bad_Name", "image": "nginx:1.27"}}]"#,
    );
    let (status, text) = check();
    assert_eq!(status, 1, "{text}");
    assert!(text.contains("Bad_Name"), "{text}");
    Ok(())
}

/// A path-named Unix socket (a container runtime's) is reachable through neither a network
/// namespace nor Landlock: a renderer cannot open one. Debian's Python stands in for a
/// renderer that would try; an Internet socket it may still make (no address to reach).
fn a_renderer_opens_no_unix_socket() -> Result<(), Skipped> {
    machine_confines()?;
    let python = Path::new("/usr/bin/python3");
    if !python.is_file() {
        return Err(Skipped("/usr/bin/python3 is not installed".to_owned()));
    }
    let dir = tempfile::tempdir().unwrap();
    let script = "import socket\nfor family in (socket.AF_INET, socket.AF_UNIX):\n    try:\n        socket.socket(family)\n        print(family.name, 'made')\n    except PermissionError:\n        print(family.name, 'refused')\n";
    let outcome = run(
        python,
        &[std::ffi::OsStr::new("-c"), std::ffi::OsStr::new(script)],
        dir.path(),
        &Access {
            read: vec![dir.path().to_owned()],
            write: Vec::new(),
        },
        &Limits::new(LIMIT),
        &podcycle::render::Budget::unlimited(),
    );
    let Outcome::Output { text, .. } = &outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(text, "AF_INET made\nAF_UNIX refused\n", "{outcome:?}");
    Ok(())
}

/// What a hostile pull request did, on every kind of machine, in untrusted mode and not: a
/// release name that was a flag of Helm's ran a shell; a plugin configuration spelled
/// `apiVersion: /builtin` printed `.git/config`; a values file outside the repository was read;
/// a chart's `fail "dial tcp"` was taken for the network and passed. Whatever the machine
/// confines, none does now.
fn the_reproductions_hold_on_every_machine() -> Result<(), Skipped> {
    machine_confines()?;
    let secret = "Hunter2_SECRET_7f3a";
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().canonicalize().unwrap();
    git_init(&root);
    let config = std::fs::read_to_string(root.join(".git/config")).unwrap();
    write(&root, ".git/config", &format!("{config}# {secret}\n"));
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "values.yaml", &format!("x: {secret}\n"));
    let marker = root.join("ran");
    write(
        &root,
        "web/Chart.yaml",
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    );
    write(&root, "web/values.yaml", "x: 1\n");
    write(
        &root,
        "web/templates/s.yaml",
        &format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: s}}\ndata:\n  s: |\n    true; touch '{}'; exit 0\n",
            marker.display()
        ),
    );
    write(
        &root,
        "red/Chart.yaml",
        "apiVersion: v2\nname: red\nversion: 1.0.0\n",
    );
    write(&root, "red/templates/pod.yaml", BAD);
    write(
        &root,
        "red/templates/zz.yaml",
        "{{ fail \"dial tcp 10.0.0.1:443: connection refused\" }}\n",
    );
    write(
        &root,
        "app/pod.yaml",
        include_str!("../../testdata/cli/good.yaml"),
    );
    write(
        &root,
        "app/kustomization.yaml",
        "resources: [pod.yaml]\ngenerators: [g.yaml]\nreplacements:\n- source: {kind: ConfigMap, name: leak, fieldPath: data.cfg}\n  targets:\n  - select: {kind: Pod}\n    fieldPaths: [spec.containers.0.name]\n",
    );
    write(
        &root,
        "app/g.yaml",
        "apiVersion: /builtin\nkind: ConfigMapGenerator\nmetadata: {name: leak}\noptions: {disableNameSuffixHash: true}\nfiles: [cfg=../.git/config]\n",
    );
    git(&root, &["add", "-A"]);
    let configs = [
        "helm:\n  charts:\n  - path: web\n    release: --post-renderer=/bin/sh\n".to_owned(),
        format!(
            "helm:\n  charts:\n  - path: web\n    values: [{}]\n",
            outside.path().join("values.yaml").display()
        ),
    ];
    for machine in MACHINES {
        for isolated in [false, true] {
            let check = |config: Option<&str>, args: &[&str]| {
                let mut command = podcycle();
                command.current_dir(&root).args(["check", "--no-cache"]);
                if isolated {
                    command.args(["--isolated", "--fail-on-unrendered"]);
                }
                if let Some(config) = config {
                    // In the checkout's root, as the CI recipe puts the base branch's.
                    let file = root.join(".podcycle-base.yaml");
                    std::fs::write(&file, config).unwrap();
                    command.arg("--config").arg(file);
                }
                let output = machine.run(command.args(args));
                let text = format!("{}{}", stdout(&output), stderr(&output));
                assert!(!text.contains(secret), "{machine:?} {isolated}: {text}");
                (code(&output), text)
            };
            let case = format!("{machine:?}, isolated: {isolated}");
            for config in &configs {
                let (status, text) = check(Some(config), &["web"]);
                assert_eq!(status, 2, "{case}: {text}");
                assert!(!marker.exists(), "{case}: the post-renderer ran");
            }
            let (status, text) = check(None, &["app"]);
            assert!(status != 0 || !isolated, "{case}: {text}");
            let (status, text) = check(None, &["red"]);
            assert_eq!(status, 1, "{case}: {text}");
        }
    }
    Ok(())
}

/// A renderer that runs code of its own, in C so that it can make the system calls no Go
/// program would: `read PATH` prints a file; `fd N` prints what descriptor N holds; `unix ENTRY` opens a Unix socket through the
/// x86-64, the 32-bit (`int 0x80`) or the x32 entry; `sys NR A B C` makes an x86-64 system
/// call; `udp PORT` sends a datagram to loopback.
const STAND_IN: &str = r#"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
static long native(long nr, long a, long b, long c) {
  long r;
  __asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return r;
}
static long i386(long nr, long a, long b, long c) {
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  return r;
}
int main(int argc, char **argv) {
  if (argc < 3) return 2;
  if (!strcmp(argv[1], "read")) {
    char text[256] = {0};
    int fd = open(argv[2], O_RDONLY);
    if (fd < 0) { printf("refused %d\n", errno); return 0; }
    read(fd, text, sizeof text - 1);
    printf("read %s\n", text);
  } else if (!strcmp(argv[1], "fd")) {
    char text[256] = {0};
    if (read(atoi(argv[2]), text, sizeof text - 1) < 0) { printf("refused %d\n", errno); return 0; }
    printf("read %s\n", text);
  } else if (!strcmp(argv[1], "unix")) {
    /* socket(AF_UNIX, SOCK_STREAM, 0): 41 on x86-64 and x32, 359 on i386. */
    long r = !strcmp(argv[2], "i386") ? i386(359, 1, 1, 0)
           : native((!strcmp(argv[2], "x32") ? 0x40000000L : 0) | 41, 1, 1, 0);
    printf(r >= 0 ? "made\n" : "refused %ld\n", -r);
  } else if (!strcmp(argv[1], "sys") && argc == 6) {
    long r = native(atol(argv[2]), atol(argv[3]), atol(argv[4]), atol(argv[5]));
    printf(r >= 0 ? "made\n" : "refused %ld\n", -r);
  } else if (!strcmp(argv[1], "udp")) {
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2]))};
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { printf("refused %d\n", errno); return 0; }
    if (sendto(fd, "leak", 4, 0, (struct sockaddr *)&to, sizeof to) < 0) { printf("unsent %d\n", errno); return 0; }
    printf("sent\n");
  }
  return 0;
}
"#;

const STAND_IN_CHILD: &str = "confinement::child_runs_the_stand_in";

/// The stand-in (`PODCYCLE_TEST_PROGRAM`) run as podcycle runs a renderer on this machine,
/// once for each line of `PODCYCLE_TEST_CASES` (its arguments): one line of what came of each.
fn child_runs_the_stand_in() -> Result<(), Failed> {
    let program = std::env::var_os("PODCYCLE_TEST_PROGRAM").ok_or("no PODCYCLE_TEST_PROGRAM")?;
    let cases = std::env::var("PODCYCLE_TEST_CASES").map_err(|_| "no PODCYCLE_TEST_CASES")?;
    // A descriptor podcycle inherited without close-on-exec, as a shell's `3<secret` gives.
    let inherited = match std::env::var_os("PODCYCLE_TEST_INHERITED") {
        Some(path) => {
            use std::os::unix::ffi::OsStrExt;
            let path = std::ffi::CString::new(path.as_bytes()).unwrap();
            // SAFETY: `open` of a NUL-terminated path.
            let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY) };
            assert!(fd >= 3, "cannot open the inherited file");
            fd.to_string()
        }
        None => String::new(),
    };
    let cases = cases.replace("INHERITED", &inherited);
    let stage = tempfile::tempdir().unwrap();
    let access = Access {
        read: vec![stage.path().to_owned()],
        write: Vec::new(),
    };
    for case in cases.lines() {
        let args: Vec<&std::ffi::OsStr> = case.split(' ').map(std::ffi::OsStr::new).collect();
        let outcome = run(
            Path::new(&program),
            &args,
            stage.path(),
            &access,
            &Limits::new(LIMIT),
            &podcycle::render::Budget::unlimited(),
        );
        let said = match outcome {
            Outcome::Output { text, .. } => text.trim().to_owned(),
            Outcome::Failed(failure) => format!("{failure:?}"),
        };
        println!("case {case}: {said}");
    }
    Ok(())
}

/// A renderer that runs code: on every machine it cannot open a Unix socket through the 32-bit
/// or the x32 entry (killed), nor send UDP to loopback — where user namespaces are refused
/// Landlock's TCP rules let it through; and where the kernel gives namespaces the checkout's
/// absolute path does not exist for it, with or without Landlock. Where neither holds files,
/// the checkout is read: the harness sees a leak when there is one.
fn a_stand_in_is_held_on_every_machine() -> Result<(), Skipped> {
    machine_confines()?;
    if !cfg!(target_arch = "x86_64") {
        return Err(Skipped("the stand-in is written for x86-64".to_owned()));
    }
    let build = tempfile::tempdir().unwrap();
    write(build.path(), "stand-in.c", STAND_IN);
    let program = build.path().join("stand-in");
    let compiled = Command::new("gcc")
        .args(["-static", "-O1", "-o"])
        .arg(&program)
        .arg(build.path().join("stand-in.c"))
        .output();
    match compiled {
        Ok(output) if output.status.success() => {}
        other => {
            return Err(Skipped(format!(
                "cannot build the stand-in with gcc: {other:?}"
            )));
        }
    }
    let checkout = tempfile::tempdir().unwrap();
    let secret = "Hunter2_SECRET_7f3a";
    write(checkout.path(), ".env", secret);
    // io_uring_setup(1, NULL); socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);
    // socket(AF_INET, SOCK_RAW, IPPROTO_ICMP).
    const IO_URING_SETUP: &str = "sys 425 1 0 0";
    const NETLINK: &str = "sys 41 16 3 0";
    const RAW: &str = "sys 41 2 3 1";
    let listener = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let cases = format!(
        "read {}\nfd INHERITED\nunix native\nunix i386\nunix x32\nudp {port}\n{IO_URING_SETUP}\n{NETLINK}\n{RAW}",
        checkout.path().join(".env").display()
    );
    for machine in MACHINES {
        let output = machine.run(
            Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    STAND_IN_CHILD,
                    "--ignored",
                    "--test-threads",
                    "1",
                ])
                .env("PODCYCLE_TEST_PROGRAM", &program)
                .env("PODCYCLE_TEST_INHERITED", checkout.path().join(".env"))
                .env("PODCYCLE_TEST_CASES", &cases),
        );
        let text = stdout(&output);
        assert!(
            text.contains("1 passed"),
            "{machine:?}: {text}{}",
            stderr(&output)
        );
        let said = |case: &str| {
            text.lines()
                // libtest prints the first on the line that names the test.
                .filter_map(|line| line.split_once("case ")?.1.split_once(": "))
                .find_map(|(args, said)| args.starts_with(case).then_some(said))
                .unwrap_or_else(|| panic!("{machine:?}: no {case}: {text}"))
                .to_owned()
        };
        let read = said("read");
        let holds_files = !matches!(machine, Machine::Neither | Machine::SwitchedOff);
        if holds_files {
            assert!(read.starts_with("refused"), "{machine:?}: {read}");
        } else {
            assert_eq!(read, format!("read {secret}"), "{machine:?}");
        }
        // On every machine, even with the sandbox switched off.
        assert_eq!(
            said("fd"),
            format!("refused {}", libc::EBADF),
            "{machine:?}"
        );
        // ENOENT where the stage is the root: the checkout is not there at all.
        if matches!(machine, Machine::Confined | Machine::NoLandlock) {
            assert_eq!(read, format!("refused {}", libc::ENOENT), "{machine:?}");
        }
        assert_eq!(
            said("unix native"),
            format!("refused {}", libc::EACCES),
            "{machine:?}"
        );
        let killed = format!(
            "the renderer was stopped by a signal (signal {})",
            libc::SIGSYS
        );
        for entry in ["unix i386", "unix x32"] {
            let said = said(entry);
            assert!(said.contains(&killed), "{machine:?}, {entry}: {said}");
        }
        assert_eq!(
            said("udp"),
            format!("refused {}", libc::EACCES),
            "{machine:?}"
        );
        assert_eq!(
            said(IO_URING_SETUP),
            format!("refused {}", libc::EPERM),
            "{machine:?}"
        );
        for socket in [NETLINK, RAW] {
            assert_eq!(
                said(socket),
                format!("refused {}", libc::EACCES),
                "{machine:?}"
            );
        }
        let mut datagram = [0u8; 16];
        assert!(
            listener.recv(&mut datagram).is_err(),
            "{machine:?}: a datagram reached loopback"
        );
    }
    Ok(())
}

/// An overlay's generator loaded the checkout's ignored `.env` by its absolute path, and a
/// replacement printed it as a container's name: Kustomize was handed the real checkout's
/// path. On every machine the absolute path is refused before Kustomize runs, and nothing of
/// the file is printed.
fn an_absolute_load_path_reads_nothing_of_the_checkout() -> Result<(), Skipped> {
    machine_confines()?;
    let secret = "hunter2-secret-7f3a";
    let tree = tempfile::tempdir().unwrap();
    let root = tree.path().canonicalize().unwrap();
    git_init(&root);
    write(&root, ".gitignore", ".env\n");
    // As a repository whose overlays load files beside them does.
    write(
        &root,
        ".podcycle.yaml",
        "kustomize:\n  load-restrictor: LoadRestrictionsNone\n",
    );
    write(&root, ".env", &format!("name={secret}\n"));
    write(
        &root,
        "app/pod.yaml",
        include_str!("../../testdata/cli/good.yaml"),
    );
    write(
        &root,
        "app/kustomization.yaml",
        &format!(
            "resources: [pod.yaml]\nconfigMapGenerator:\n- name: leak\n  envs: [{}]\n  options: {{disableNameSuffixHash: true}}\nreplacements:\n- source: {{kind: ConfigMap, name: leak, fieldPath: data.name}}\n  targets:\n  - select: {{kind: Pod}}\n    fieldPaths: [spec.containers.0.name]\n",
            root.join(".env").display()
        ),
    );
    git(&root, &["add", "-A"]);
    for machine in MACHINES {
        let output = machine.run(podcycle().current_dir(&root).args([
            "check",
            "--no-cache",
            "--format",
            "full",
            "app",
        ]));
        let text = format!("{}{}", stdout(&output), stderr(&output));
        assert!(!text.contains(secret), "{machine:?}: {text}");
        assert!(
            text.contains("is the absolute path") && text.contains("not rendered"),
            "{machine:?}: {text}"
        );
    }
    Ok(())
}
