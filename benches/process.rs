//! What the benchmarks that run `podcycle` as a user does share: running one command and
//! reading its resource use from the kernel, in a fresh process so that the peak memory is the
//! command's own, and the state of the machine around a run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The argument that makes a benchmark program run one command, print what it used, and exit
/// (see [`measure`]).
const MEASURE: &str = "--measure-one";

/// What one run of a command used.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub wall: Duration,
    pub user: Duration,
    pub system: Duration,
    /// Peak resident set size, bytes.
    pub max_rss: u64,
}

impl Run {
    /// User and system CPU time.
    pub fn cpu(&self) -> Duration {
        self.user + self.system
    }
}

/// When this program was started by [`measure`]: runs the command it was given, prints what it
/// used, and returns `true` (the program should exit).
pub fn serve_measure(args: &[String]) -> bool {
    let [flag, dir, program, command @ ..] = args else {
        return false;
    };
    if flag != MEASURE {
        return false;
    }
    let run = run_command(Path::new(program), command, Path::new(dir));
    println!(
        "{} {} {} {}",
        run.wall.as_nanos(),
        run.user.as_nanos(),
        run.system.as_nanos(),
        run.max_rss
    );
    true
}

/// Runs `program ARGS` in `dir`, its output discarded, from a fresh copy of this benchmark
/// program that holds nothing else, and reads what it used from that copy.
///
/// A process's peak RSS (`ru_maxrss`) starts from that of the memory it was forked from: at
/// `exec`, Linux counts the high-water mark of the old address space, which for a forked child
/// is a copy of its parent's. A benchmark that holds a generated corpus would add tens of MB to
/// every run it starts; the fresh copy is a few MB, and it is the parent of the measured
/// process.
pub fn measure(program: &Path, args: &[&str], dir: &Path) -> Run {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let output = Command::new(exe)
        .arg(MEASURE)
        .arg(dir)
        .arg(program)
        .args(args)
        .stderr(Stdio::inherit())
        .output()
        .expect("the measuring process runs");
    assert!(
        output.status.success(),
        "measuring {} in {} failed",
        program.display(),
        dir.display()
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|field| field.parse().expect("a number from the measuring process"))
        .collect();
    let [wall, user, system, max_rss] = fields[..] else {
        panic!("unexpected output from the measuring process: {text}");
    };
    Run {
        wall: Duration::from_nanos(wall),
        user: Duration::from_nanos(user),
        system: Duration::from_nanos(system),
        max_rss,
    }
}

/// Runs the command, output discarded, and reads the child's resource use from `wait4`. A
/// command that fails (exit code above 1: 1 is findings) stops the benchmark.
// `wait4` reaps the child, which `Child::wait` cannot do while giving its resource use.
#[allow(clippy::zombie_processes)]
fn run_command(program: &Path, args: &[String], dir: &Path) -> Run {
    let start = Instant::now();
    let child = Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|error| panic!("{} does not run: {error}", program.display()));
    let pid = libc::pid_t::try_from(child.id()).expect("a process id");
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills in; the child is ours and not yet
    // waited for (`Child` is never waited on below).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, pid, "waiting for {}", program.display());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= 1,
        "{} {} failed in {}",
        program.display(),
        args.join(" "),
        dir.display()
    );
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Run {
        wall,
        user: time(usage.ru_utime),
        system: time(usage.ru_stime),
        // Linux gives kilobytes.
        max_rss: usage.ru_maxrss as u64 * 1024,
    }
}

/// The files `podcycle check --show-files` says it lints under `dir`, and their bytes: the
/// input is what podcycle reads, not every file in the directory.
pub fn linted_input(dir: &Path) -> (usize, u64) {
    let output = Command::new(env!("CARGO_BIN_EXE_podcycle"))
        .args(["check", "--no-config", "--show-files", "."])
        .current_dir(dir)
        .output()
        .expect("podcycle runs");
    let listing = String::from_utf8_lossy(&output.stdout);
    let mut files = 0;
    let mut bytes = 0;
    for line in listing.lines() {
        let Some((path, what)) = line.split_once(": ") else {
            continue;
        };
        if what.starts_with("lint") {
            files += 1;
            bytes += std::fs::metadata(dir.join(path)).map_or(0, |m| m.len());
        }
    }
    (files, bytes)
}

/// The directory of real manifests: `PODCYCLE_BENCH_CORPUS`, else the shared corpus beside the
/// repository or beside its parent (a worktree).
pub fn real_corpus() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PODCYCLE_BENCH_CORPUS") {
        return Some(PathBuf::from(dir));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|relative| root.join(relative))
        .find(|dir| dir.is_dir())
}

pub fn median<T: Copy + PartialOrd>(values: impl IntoIterator<Item = T>) -> T {
    let mut sorted: Vec<T> = values.into_iter().collect();
    assert!(!sorted.is_empty(), "a median of nothing");
    sorted.sort_by(|a, b| a.partial_cmp(b).expect("comparable figures"));
    sorted[sorted.len() / 2]
}

/// How busy the machine is: Linux's CPU pressure (the share of the last 10 s in which some
/// runnable task waited for a CPU) and the load average over 1 minute, as far as they are known.
pub fn machine_load() -> String {
    let pressure = std::fs::read_to_string("/proc/pressure/cpu")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("some "))?.to_owned();
            let field = line.split_whitespace().find(|f| f.starts_with("avg10="))?;
            Some(field["avg10=".len()..].to_owned())
        });
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|text| text.split_whitespace().next().map(str::to_owned));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    match (pressure, load) {
        (Some(pressure), Some(load)) => {
            format!("CPU pressure {pressure}%, load average {load} on {cores} cores")
        }
        (None, Some(load)) => format!("load average {load} on {cores} cores"),
        (Some(pressure), None) => format!("CPU pressure {pressure}%"),
        (None, None) => "unknown".to_owned(),
    }
}

/// Whether `cargo bench` asked for the benchmark `name`: `--list` prints it and answers no, as
/// does a run without `--bench` (`cargo test` builds benchmarks too) or with a filter naming
/// another benchmark.
pub fn selected(args: &[String], name: &str) -> bool {
    if args.iter().any(|a| a == "--list") {
        println!("{name}: bench");
        return false;
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    args.iter().any(|a| a == "--bench") && filters.iter().all(|f| name.contains(f.as_str()))
}

/// A positive number from the environment variable `name`, else `default`.
pub fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}
