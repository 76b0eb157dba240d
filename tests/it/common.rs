//! Helpers shared by the test harnesses.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use podcycle::explain::mermaid::validate_gantt;
use podcycle::lint::FileRole;
use podcycle::report::FileReport;
use podcycle::run::{FilePlan, lint_bytes};
use podcycle::settings::Settings;
use podcycle::versions::KubeVersion;

/// Lints file contents named `name` as `check` lints a file of manifests given alone, with
/// `settings` and the default fail level, keeping the whole text: the one entry point,
/// `podcycle::run::lint_bytes`, with the plan of a file on its own.
pub fn lint_bytes_alone(name: &str, bytes: Vec<u8>, settings: &Settings) -> FileReport {
    let plan = FilePlan::new(settings.clone(), FileRole::Manifest);
    lint_bytes(name.to_owned(), bytes, &plan, &mut |_| {})
}

/// [`lint_bytes_alone`] on text.
pub fn lint_text(path: &str, text: &str, settings: &Settings) -> FileReport {
    lint_bytes_alone(path, text.as_bytes().to_vec(), settings)
}

/// Applies a `--kube-version X.Y` written in the comments at the top of a fixture or doc
/// example (`# podcycle check --kube-version 1.28`), so cases can target a cluster version.
pub fn with_header_options(text: &str, mut settings: Settings) -> Settings {
    let header = text
        .lines()
        .take_while(|line| line.trim_start().starts_with('#'));
    for line in header {
        let mut words = line.split_whitespace();
        while let Some(word) = words.next() {
            if word == "--kube-version" {
                let version: KubeVersion = words
                    .next()
                    .and_then(|v| v.parse().ok())
                    .unwrap_or_else(|| panic!("bad --kube-version in `{line}`"));
                settings = settings.with_kube_version(version);
            } else if word == "--platform" {
                let platforms = words
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .map(|name| {
                        podcycle::lifecycle::platforms::platform(name)
                            .unwrap_or_else(|| panic!("bad --platform in `{line}`"))
                    })
                    .collect();
                settings = settings.with_platforms(platforms);
            }
        }
    }
    settings
}

/// The `podcycle` binary, with the colour variables of the environment running the tests
/// removed, so output does not depend on it, and its render cache (and the cache's key) in
/// the build's temporary directory rather than in the repository or the home directory.
pub fn podcycle() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_podcycle"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    command
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("PODCYCLE_NO_CACHE")
        .env("PODCYCLE_CACHE_DIR", scratch.join("render-cache"))
        .env("XDG_CACHE_HOME", scratch.join("user-cache"));
    command
}

/// `podcycle ARGS` with nothing on standard input.
pub fn run(args: &[&str]) -> Output {
    podcycle()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("podcycle runs")
}

/// `podcycle check ARGS` with nothing on standard input.
pub fn check(args: &[&str]) -> Output {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    run(&all)
}

/// Runs `command` with `input` on its standard input and collects its output.
///
/// The input is written from a thread while the output is read, so neither side can block
/// the other, and a child that exits before reading all of it (a usage error, an unsupported
/// version) is not a failure of the test: the broken pipe of that write is ignored, and the
/// test asserts on the exit status and output instead.
pub fn output_with_stdin(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("podcycle runs");
    let mut stdin = child.stdin.take().expect("standard input is piped");
    let input = input.to_vec();
    let writer = thread::spawn(move || match stdin.write_all(&input) {
        Err(error) if error.kind() != ErrorKind::BrokenPipe => Err(error),
        _ => Ok(()),
    });
    let output = child.wait_with_output().expect("podcycle runs");
    writer
        .join()
        .expect("the writer thread does not panic")
        .expect("standard input is written");
    output
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What `podcycle ARGS` prints on a terminal (a pseudo-terminal from util-linux `script`),
/// with `env` set and the colour variables of the test environment removed. Linux only.
pub fn on_terminal(args: &[&str], env: &[(&str, &str)]) -> String {
    let quote = |word: &str| format!("'{}'", word.replace('\'', r"'\''"));
    let command: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_podcycle"))
        .chain(args.iter().copied())
        .map(quote)
        .collect();
    let mut script = Command::new("script");
    script
        .args([
            "--quiet",
            "--return",
            "--command",
            &command.join(" "),
            "/dev/null",
        ])
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CI")
        .env("TERM", "xterm-256color")
        .stdin(Stdio::null());
    for (name, value) in env {
        script.env(name, value);
    }
    let output = script
        .output()
        .expect("util-linux `script` runs podcycle on a pseudo-terminal");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn code(output: &Output) -> i32 {
    output
        .status
        .code()
        .expect("podcycle exits with a status, not a signal")
}

/// The ```mermaid blocks of the Markdown output, each checked against the Gantt grammar.
pub fn check_mermaid(name: &str, markdown: &str) {
    let mut blocks = 0;
    let mut rest = markdown;
    while let Some(start) = rest.find("```mermaid\n") {
        let body = &rest[start + "```mermaid\n".len()..];
        let end = body.find("```").expect("a closed block");
        if let Err(problem) = validate_gantt(&body[..end]) {
            panic!(
                "{name}: the Gantt chart is not valid Mermaid: {problem}\n{}",
                &body[..end]
            );
        }
        blocks += 1;
        rest = &body[end + 3..];
    }
    assert!(
        blocks > 0 || markdown.is_empty(),
        "{name}: no Mermaid block"
    );
}

/// The manifests under `root` (`*.yaml`, `*.yml`, `*.json`), in sorted order.
pub fn manifests(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .extension()
                .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Writes `text` to `dir/name`, making the directories on the way.
pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs `command` to its end, reading its output while it runs (a report can be larger than a
/// pipe holds), calling `watch` with its process id every few milliseconds, and failing the
/// test if it is still running after `limit`.
pub fn watched(limit: Duration, command: &mut Command, watch: &mut dyn FnMut(u32)) -> Output {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let read = |stream: &mut dyn std::io::Read| {
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        bytes
    };
    let stdout_reader = std::thread::spawn(move || read(&mut out));
    let stderr_reader = std::thread::spawn(move || read(&mut err));
    let started = Instant::now();
    let status = loop {
        watch(child.id());
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("{command:?} was still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    Output {
        status,
        stdout: stdout_reader.join().unwrap(),
        stderr: stderr_reader.join().unwrap(),
    }
}

/// The peak resident memory (`VmHWM`) in bytes of the process `pid`, as far as it is known.
pub fn high_water(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .unwrap_or(0)
        * 1024
}
