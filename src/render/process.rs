//! Running a renderer: only `helm template` and `kustomize build` (or `kubectl kustomize`),
//! found by absolute path, in an environment that leaves them nothing to reach: an empty
//! `PATH` (no `git`, no plugins, no post-renderers to start), empty Helm and Kustomize homes,
//! no kubeconfig, proxies that refuse every connection, no standard input, no network where
//! the system allows it ([`super::sandbox`]), and limits on time (its own and the run's
//! [`Budget`]), memory and output, each enforced while it runs.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use wait_timeout::ChildExt;

use super::budget::Budget;
use super::sandbox::Access;

/// The most a renderer may print on standard output before it is stopped.
pub(crate) const MAX_OUTPUT: u64 = 64 * 1024 * 1024;
/// The memory a renderer may use by default.
pub(crate) const DEFAULT_MEMORY: u64 = 1024 * 1024 * 1024;
/// How much of standard error is kept for the message.
const MAX_ERROR_OUTPUT: u64 = 64 * 1024;
/// How often a running renderer is looked at for its limits.
const POLL: Duration = Duration::from_millis(25);

/// What a renderer may use.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// How long one renderer may run.
    pub(crate) timeout: Duration,
    /// Bytes of memory (its data segment).
    pub(crate) memory: u64,
    /// Bytes of standard output.
    pub(crate) output: u64,
}

impl Limits {
    pub fn new(timeout: Duration) -> Limits {
        Limits {
            timeout,
            memory: DEFAULT_MEMORY,
            output: MAX_OUTPUT,
        }
    }
}

/// What running a renderer gave.
#[derive(Debug)]
pub enum Outcome {
    /// It exited with 0: its standard output, and what it warned about on standard error.
    Output {
        text: String,
        warnings: Vec<String>,
    },
    Failed(Failure),
}

/// Why a renderer gave no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// It ran and refused: its standard error (at most 64 KiB of it).
    Exited { stderr: String },
    /// Stopped at its own time limit.
    TimedOut(Duration),
    /// Stopped when the run's render budget ran out.
    BudgetSpent(String),
    /// Stopped at the memory limit, in bytes.
    OverMemory(u64),
    /// Stopped at the output cap, in bytes.
    OverOutput(u64),
    /// It could not run, or ended for a reason of the system's: why.
    Environment(String),
}

impl Failure {
    /// Why the input was not rendered, in a sentence, for a limit or the environment; a
    /// refusal's message is read from standard error by [`super::failure`].
    pub(crate) fn reason(&self) -> String {
        match self {
            Failure::Exited { stderr } => last_error_line(stderr)
                .unwrap_or_else(|| "exited with an error and no message".to_owned()),
            Failure::TimedOut(limit) => format!(
                "stopped after {}s (the render time limit; raise it with --render-timeout)",
                limit.as_secs()
            ),
            Failure::BudgetSpent(reason) => reason.clone(),
            Failure::OverMemory(limit) => format!(
                "stopped at {} MiB of memory (the renderer's limit; raise it with --render-memory)",
                limit >> 20
            ),
            Failure::OverOutput(limit) => format!(
                "stopped at {} MiB of output, the most podcycle reads",
                limit >> 20
            ),
            Failure::Environment(reason) => reason.clone(),
        }
    }
}

/// Finds an executable the way a shell would: a path with a `/` as given, else each directory
/// of `PATH` in turn.
pub fn find_executable(name: &Path) -> Option<PathBuf> {
    if name.components().count() > 1 {
        return is_executable(name).then(|| name.to_owned());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        metadata.is_file()
    }
}

/// Runs `program` with `args` in `dir`, sealed and confined to `access` (and a scratch
/// directory of its own), within `limits` and `budget`.
pub fn run(
    program: &Path,
    args: &[&OsStr],
    dir: &Path,
    access: &Access,
    limits: &Limits,
    budget: &Budget,
) -> Outcome {
    if budget.is_spent() {
        return Outcome::Failed(Failure::BudgetSpent(budget.spent_reason()));
    }
    let home = match tempfile::Builder::new()
        .prefix("podcycle-render-")
        .tempdir()
    {
        Ok(home) => home,
        Err(error) => {
            return Outcome::Failed(Failure::Environment(format!(
                "cannot create a temporary directory: {error}"
            )));
        }
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .env_clear()
        .envs(sealed_environment(home.path()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut access = access.clone();
    access.write.push(home.path().to_owned());
    // Kept until the renderer has exited: the directory its root is made of.
    let _confined = match super::sandbox::confine(&mut command, program, &access, limits.memory) {
        Ok(confined) => confined,
        Err(why) => return Outcome::Failed(Failure::Environment(why)),
    };
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            return Outcome::Failed(Failure::Environment(format!(
                "cannot run {}: {}",
                program.display(),
                crate::safe_fs::describe_io_error(&error)
            )));
        }
    };
    let over_cap = Arc::new(AtomicBool::new(false));
    let stdout = child
        .stdout
        .take()
        .map(|out| capped_reader(out, limits.output, Arc::clone(&over_cap)));
    let stderr = child.stderr.take().map(|err| reader(err, MAX_ERROR_OUTPUT));
    // Stopped by a limit, or the exit status.
    let (stopped, status) = watch(&mut child, limits, budget, &over_cap);
    let stdout = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    if let Some(failure) = stopped {
        return Outcome::Failed(failure);
    }
    let Some(status) = status else {
        return Outcome::Failed(Failure::Environment(
            "lost track of the renderer".to_owned(),
        ));
    };
    if !status.success() {
        // Go's runtime ends a process that ran out of memory with status 2 (a fatal error);
        // Helm and Kustomize exit with 1 on every error of their own, so a template's `fail`
        // whose message reads like the runtime's is still the chart's refusal.
        if status.code() == Some(2) && out_of_memory(&stderr) {
            return Outcome::Failed(Failure::OverMemory(limits.memory));
        }
        if status.code().is_none() {
            return Outcome::Failed(Failure::Environment(format!(
                "the renderer was stopped by a signal{}",
                signal_of(&status).map_or_else(String::new, |s| format!(" ({s})"))
            )));
        }
        return Outcome::Failed(Failure::Exited { stderr });
    }
    match String::from_utf8(stdout) {
        Ok(text) => Outcome::Output {
            text,
            warnings: warnings(&stderr),
        },
        Err(_) => Outcome::Failed(Failure::Environment(
            "the output is not valid UTF-8".to_owned(),
        )),
    }
}

/// Waits for the child, killing it at the first limit it reaches: its time limit, the run's
/// budget, the output cap.
fn watch(
    child: &mut std::process::Child,
    limits: &Limits,
    budget: &Budget,
    over_cap: &AtomicBool,
) -> (Option<Failure>, Option<std::process::ExitStatus>) {
    let started = std::time::Instant::now();
    loop {
        let own = limits.timeout.saturating_sub(started.elapsed());
        let left = own.min(budget.remaining());
        let stop = if over_cap.load(Ordering::Relaxed) {
            Some(Failure::OverOutput(limits.output))
        } else if own.is_zero() {
            Some(Failure::TimedOut(limits.timeout))
        } else if left.is_zero() {
            Some(Failure::BudgetSpent(budget.spent_reason()))
        } else {
            None
        };
        if let Some(failure) = stop {
            let _ = child.kill();
            let _ = child.wait();
            return (Some(failure), None);
        }
        match child.wait_timeout(left.min(POLL)) {
            Ok(Some(status)) => {
                // The output may have gone over the cap just before the end.
                if over_cap.load(Ordering::Relaxed) {
                    return (Some(Failure::OverOutput(limits.output)), None);
                }
                return (None, Some(status));
            }
            Ok(None) => {}
            Err(error) => {
                let _ = child.kill();
                let _ = child.wait();
                return (
                    Some(Failure::Environment(format!(
                        "cannot wait for the renderer: {error}"
                    ))),
                    None,
                );
            }
        }
    }
}

/// Go's words when it cannot get memory: the heap, a thread's stack, its own tables.
fn out_of_memory(stderr: &str) -> bool {
    [
        "fatal error: runtime: out of memory",
        "fatal error: out of memory",
        "runtime: out of memory",
        "pthread_create failed",
        "cannot allocate memory",
        "failed to reserve page summary memory",
    ]
    .iter()
    .any(|words| stderr.contains(words))
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    status.signal().map(|signal| format!("signal {signal}"))
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> Option<String> {
    None
}

/// Reads standard output on a thread, up to `limit` bytes; past it, says so and stops reading,
/// so that the renderer is stopped at the cap instead of after it has printed everything.
fn capped_reader(
    mut pipe: impl Read + Send + 'static,
    limit: u64,
    over: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut pipe).take(limit + 1).read_to_end(&mut kept);
        if kept.len() as u64 > limit {
            over.store(true, Ordering::Relaxed);
            kept.clear();
        }
        kept
    })
}

/// Reads a pipe to its end on a thread, keeping at most `limit` bytes and draining the rest so
/// that the child never blocks on a full pipe.
fn reader(mut pipe: impl Read + Send + 'static, limit: u64) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let _ = (&mut pipe).take(limit).read_to_end(&mut kept);
        let _ = std::io::copy(&mut pipe, &mut std::io::sink());
        kept
    })
}

/// The renderer's complaint, on one line: the last `Error: …` line of standard error, else its
/// last non-empty line. Helm ends with `Use --debug flag to render out invalid YAML` after the
/// error, which says nothing of it.
pub(crate) fn last_error_line(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let line = lines
        .iter()
        .rev()
        .find_map(|line| line.strip_prefix("Error: "))
        .or_else(|| lines.last().copied())?;
    Some(super::printable(line))
}

/// The most distinct warning lines kept of one renderer.
const MAX_WARNINGS: usize = 20;

/// What a renderer that succeeded said on standard error, one line each (Helm's and
/// Kustomize's warnings: a deprecated field, a value Helm could not merge). Kustomize repeats
/// a deprecation for every kustomization that has it: each line is kept once, with how many
/// times it came, and at most [`MAX_WARNINGS`] of them.
fn warnings(stderr: &str) -> Vec<String> {
    let mut distinct: Vec<(&str, usize)> = Vec::new();
    for line in stderr
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
    {
        match distinct.iter_mut().find(|(seen, _)| *seen == line) {
            Some((_, count)) => *count += 1,
            None => distinct.push((line, 1)),
        }
    }
    let more = distinct.len().saturating_sub(MAX_WARNINGS);
    let mut kept: Vec<String> = distinct
        .into_iter()
        .take(MAX_WARNINGS)
        .map(|(line, count)| match count {
            1 => super::printable(line),
            _ => format!("{} ({count} times)", super::printable(line)),
        })
        .collect();
    if more > 0 {
        kept.push(format!("and {} more", crate::text::plural(more, "line")));
    }
    kept
}

/// The whole environment a renderer gets. Everything it could use to reach beyond the chart or
/// kustomization points into an empty temporary directory or at a closed port.
fn sealed_environment(home: &Path) -> Vec<(OsString, OsString)> {
    let dir = |name: &str| {
        let path = home.join(name);
        let _ = std::fs::create_dir_all(&path);
        path.into_os_string()
    };
    let empty_bin = dir("bin");
    let mut env: Vec<(OsString, OsString)> = vec![
        ("PATH".into(), empty_bin),
        ("HOME".into(), dir("home")),
        ("TMPDIR".into(), dir("tmp")),
        ("XDG_CACHE_HOME".into(), dir("cache")),
        ("XDG_CONFIG_HOME".into(), dir("config")),
        ("XDG_DATA_HOME".into(), dir("data")),
        // Helm: no plugins (`HELM_NO_PLUGINS`), no repositories, no registry credentials.
        ("HELM_NO_PLUGINS".into(), "1".into()),
        ("HELM_PLUGINS".into(), dir("helm-plugins")),
        ("HELM_CACHE_HOME".into(), dir("cache")),
        ("HELM_CONFIG_HOME".into(), dir("config")),
        ("HELM_DATA_HOME".into(), dir("data")),
        (
            "HELM_REPOSITORY_CONFIG".into(),
            home.join("repositories.yaml").into_os_string(),
        ),
        (
            "HELM_REGISTRY_CONFIG".into(),
            home.join("registry.json").into_os_string(),
        ),
        // Kustomize: no plugin home.
        ("KUSTOMIZE_PLUGIN_HOME".into(), dir("kustomize-plugins")),
        // No cluster.
        (
            "KUBECONFIG".into(),
            home.join("no-kubeconfig").into_os_string(),
        ),
        // No network: every HTTP(S) request goes to a port where nothing listens.
        ("HTTP_PROXY".into(), "http://127.0.0.1:9".into()),
        ("HTTPS_PROXY".into(), "http://127.0.0.1:9".into()),
        ("http_proxy".into(), "http://127.0.0.1:9".into()),
        ("https_proxy".into(), "http://127.0.0.1:9".into()),
        ("NO_PROXY".into(), "".into()),
        ("no_proxy".into(), "".into()),
        ("GIT_ALLOW_PROTOCOL".into(), "none".into()),
        ("GIT_TERMINAL_PROMPT".into(), "0".into()),
    ];
    // Windows needs these to start any process at all.
    for name in ["SYSTEMROOT", "SystemRoot"] {
        if let Some(value) = std::env::var_os(name) {
            env.push((name.into(), value));
        }
    }
    env
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    fn shell_with(script: &str, limits: Limits, budget: &Budget) -> Outcome {
        let dir = tempfile::tempdir().unwrap();
        // The shell and the commands the scripts run, which a renderer would not be given.
        let access = Access {
            read: vec!["/bin".into(), "/usr/bin".into(), dir.path().to_owned()],
            write: Vec::new(),
        };
        run(
            Path::new("/bin/sh"),
            &[OsStr::new("-c"), OsStr::new(script)],
            dir.path(),
            &access,
            &limits,
            budget,
        )
    }

    fn shell(script: &str, timeout: Duration) -> Outcome {
        shell_with(script, Limits::new(timeout), &Budget::unlimited())
    }

    #[test]
    fn the_environment_is_sealed() {
        let script = "echo \"$PATH|$HTTPS_PROXY|$KUBECONFIG\"; command -v ls || echo no-ls; echo careful >&2";
        let Outcome::Output { text, warnings } = shell(script, Duration::from_secs(20)) else {
            panic!("the shell failed");
        };
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("podcycle-render-"), "{text}");
        assert!(lines[0].contains("|http://127.0.0.1:9|"), "{text}");
        assert_eq!(lines[1], "no-ls", "PATH is an empty directory: {text}");
        assert_eq!(warnings, ["careful"], "standard error is kept");
        let repeated = shell(
            "for i in 1 2 3; do echo '# Warning: deprecated' >&2; done; echo other >&2",
            Duration::from_secs(20),
        );
        let Outcome::Output { warnings, .. } = repeated else {
            panic!("the shell failed");
        };
        assert_eq!(warnings, ["# Warning: deprecated (3 times)", "other"]);
    }

    /// A chart's `fail` whose message reads like Go's is the chart's refusal; only the
    /// runtime's own exit (status 2) is the memory limit.
    #[test]
    fn out_of_memory_is_judged_by_the_exit_not_the_words() {
        let words = "echo 'fatal error: runtime: out of memory' >&2";
        let chart = shell(&format!("{words}; exit 1"), Duration::from_secs(20));
        assert!(
            matches!(chart, Outcome::Failed(Failure::Exited { .. })),
            "{chart:?}"
        );
        let runtime = shell(&format!("{words}; exit 2"), Duration::from_secs(20));
        assert!(
            matches!(runtime, Outcome::Failed(Failure::OverMemory(_))),
            "{runtime:?}"
        );
    }

    #[test]
    fn failures_and_time_limits_are_reported() {
        match shell(
            "echo 'Error: chart is broken' >&2; echo 'Use --debug flag' >&2; exit 1",
            Duration::from_secs(20),
        ) {
            Outcome::Failed(failure) => assert_eq!(failure.reason(), "chart is broken"),
            Outcome::Output { .. } => panic!("exit 1 is a failure"),
        }
        match shell("while :; do :; done", Duration::from_millis(200)) {
            Outcome::Failed(failure) => {
                assert_eq!(failure, Failure::TimedOut(Duration::from_millis(200)));
            }
            Outcome::Output { .. } => panic!("the limit stops it"),
        }
    }

    /// The run's budget stops a renderer before its own limit, and one that has not started is
    /// not started.
    #[test]
    fn the_budget_stops_renderers() {
        let budget = Budget::new(Duration::from_millis(300));
        let started = std::time::Instant::now();
        let outcome = shell_with(
            "while :; do :; done",
            Limits::new(Duration::from_secs(60)),
            &budget,
        );
        assert!(
            matches!(outcome, Outcome::Failed(Failure::BudgetSpent(_))),
            "{outcome:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(20));
        let outcome = shell_with("echo hi", Limits::new(Duration::from_secs(60)), &budget);
        assert!(
            matches!(outcome, Outcome::Failed(Failure::BudgetSpent(_))),
            "{outcome:?}"
        );
    }

    /// An endless writer is stopped at the cap, not after it has written everything.
    #[test]
    fn output_is_capped_while_it_is_read() {
        let limits = Limits {
            output: 1024 * 1024,
            ..Limits::new(Duration::from_secs(60))
        };
        let started = std::time::Instant::now();
        let outcome = shell_with(
            "while :; do echo yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy; done",
            limits,
            &Budget::unlimited(),
        );
        assert_eq!(
            outcome.map_failure(),
            Some(Failure::OverOutput(1024 * 1024))
        );
        assert!(started.elapsed() < Duration::from_secs(30));
    }

    impl Outcome {
        fn map_failure(self) -> Option<Failure> {
            match self {
                Outcome::Failed(failure) => Some(failure),
                Outcome::Output { .. } => None,
            }
        }
    }
}
