//! Running a renderer: only `helm template` and `kustomize build` (or `kubectl kustomize`),
//! found by absolute path, in an environment that leaves them nothing to reach: an empty
//! `PATH` (no `git`, no plugins, no post-renderers to start), empty Helm and Kustomize homes,
//! no kubeconfig, proxies that refuse every connection, no standard input, a time limit and a
//! cap on what they print.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use wait_timeout::ChildExt;

/// The most a renderer may print on standard output before it is stopped.
pub const MAX_OUTPUT: u64 = 64 * 1024 * 1024;
/// How much of standard error is kept for the message.
const MAX_ERROR_OUTPUT: u64 = 64 * 1024;

/// What running a renderer gave.
#[derive(Debug)]
pub enum Outcome {
    /// It exited with 0: its standard output.
    Output(String),
    /// It failed: why, in a sentence.
    Failed(String),
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

/// Runs `program` with `args` in `dir` and the sealed environment, for at most `timeout`.
pub fn run(program: &Path, args: &[&OsStr], dir: &Path, timeout: Duration) -> Outcome {
    let home = match tempfile::Builder::new()
        .prefix("podcycle-render-")
        .tempdir()
    {
        Ok(home) => home,
        Err(error) => {
            return Outcome::Failed(format!("cannot create a temporary directory: {error}"));
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
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            return Outcome::Failed(format!(
                "cannot run {}: {}",
                program.display(),
                crate::safe_fs::describe_io_error(&error)
            ));
        }
    };
    let stdout = child.stdout.take().map(|out| reader(out, MAX_OUTPUT + 1));
    let stderr = child.stderr.take().map(|err| reader(err, MAX_ERROR_OUTPUT));
    let status = match child.wait_timeout(timeout) {
        Ok(Some(status)) => Some(status),
        Ok(None) | Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            None
        }
    };
    let stdout = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let Some(status) = status else {
        return Outcome::Failed(format!(
            "stopped after {}s (the render time limit; raise it with --render-timeout)",
            timeout.as_secs()
        ));
    };
    if stdout.len() as u64 > MAX_OUTPUT {
        return Outcome::Failed(format!(
            "the output is larger than {} MiB",
            MAX_OUTPUT / (1024 * 1024)
        ));
    }
    if !status.success() {
        return Outcome::Failed(error_message(&stderr, status.code()));
    }
    match String::from_utf8(stdout) {
        Ok(text) => Outcome::Output(text),
        Err(_) => Outcome::Failed("the output is not valid UTF-8".to_owned()),
    }
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

/// The renderer's complaint, on one line: the last non-empty line of standard error, which is
/// where Helm and Kustomize put `Error: …`.
fn error_message(stderr: &[u8], code: Option<i32>) -> String {
    let text = String::from_utf8_lossy(stderr);
    let last = text
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .map(|line| line.strip_prefix("Error: ").unwrap_or(line).to_owned());
    match (last, code) {
        (Some(line), _) => super::printable(&line),
        (None, Some(code)) => format!("exited with status {code}"),
        (None, None) => "stopped by a signal".to_owned(),
    }
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

    fn shell(script: &str, timeout: Duration) -> Outcome {
        let dir = tempfile::tempdir().unwrap();
        run(
            Path::new("/bin/sh"),
            &[OsStr::new("-c"), OsStr::new(script)],
            dir.path(),
            timeout,
        )
    }

    #[test]
    fn the_environment_is_sealed() {
        let script = "echo \"$PATH|$HTTPS_PROXY|$KUBECONFIG\"; command -v ls || echo no-ls";
        let Outcome::Output(text) = shell(script, Duration::from_secs(20)) else {
            panic!("the shell failed");
        };
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains("podcycle-render-"), "{text}");
        assert!(lines[0].contains("|http://127.0.0.1:9|"), "{text}");
        assert_eq!(lines[1], "no-ls", "PATH is an empty directory: {text}");
    }

    #[test]
    fn failures_and_time_limits_are_reported() {
        match shell(
            "echo 'Error: chart is broken' >&2; exit 1",
            Duration::from_secs(20),
        ) {
            Outcome::Failed(message) => assert_eq!(message, "chart is broken"),
            Outcome::Output(_) => panic!("exit 1 is a failure"),
        }
        match shell("while :; do :; done", Duration::from_millis(200)) {
            Outcome::Failed(message) => assert!(message.contains("time limit"), "{message}"),
            Outcome::Output(_) => panic!("the limit stops it"),
        }
    }
}
