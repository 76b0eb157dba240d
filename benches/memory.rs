//! Peak memory of `podcycle check` and `podcycle explain` beside their throughput: the release
//! binary, run as a user runs it, on the generated corpus of `corpus.rs` written to disk and on
//! the shared corpus of real manifests when it is present, and on one 50 MB flow sequence (the
//! worst case: a node for every three bytes). Each round runs every case once, in turn; the
//! table gives medians of the wall and CPU time and the largest peak resident set size (the
//! kernel's `ru_maxrss` of the child, from `wait4`) against the size of the input. The targets
//! are a peak of at most twice the input for `check` and three times for `explain`.
//!
//! `cargo bench --bench memory`; `PODCYCLE_BENCH_ROUNDS` (default 5) sets the rounds and
//! `PODCYCLE_BENCH_CORPUS` the directory of real manifests (default: `../shared/corpus` or
//! `../../shared/corpus` beside the repository). `cargo bench --bench memory -- --write-corpus
//! DIR` only writes the generated corpus into `DIR` (for `benches/peers/`).

#[allow(dead_code)]
mod corpus;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, dir, command, format] = args.as_slice()
        && flag == MEASURE
    {
        let run = run_podcycle(Path::new(dir), command, format);
        println!(
            "{} {} {}",
            run.wall.as_nanos(),
            run.cpu.as_nanos(),
            run.max_rss
        );
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "--write-corpus") {
        let Some(dir) = args.get(at + 1) else {
            eprintln!("--write-corpus needs a directory");
            std::process::exit(2);
        };
        let bytes = write_corpus(Path::new(dir));
        println!(
            "wrote {} files, {:.1} MB, into {dir}",
            corpus::FILES,
            bytes as f64 / 1e6
        );
        return;
    }
    if args.iter().any(|a| a == "--list") {
        println!("memory: bench");
        return;
    }
    // `cargo bench` passes `--bench`; a filter naming another benchmark skips this one.
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if !args.iter().any(|a| a == "--bench")
        || filters.iter().any(|f| !"memory".contains(f.as_str()))
    {
        return;
    }
    let rounds = std::env::var("PODCYCLE_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(5);

    let generated = tempfile::tempdir().expect("a temporary directory");
    write_corpus(generated.path());
    let mut inputs = vec![Input::new("generated corpus", generated.path())];
    match real_corpus() {
        Some(dir) => inputs.push(Input::new("shared corpus", &dir)),
        None => println!(
            "no corpus of real manifests (set PODCYCLE_BENCH_CORPUS); measuring the generated inputs only"
        ),
    }
    let flow = tempfile::tempdir().expect("a temporary directory");
    write_flow_sequence(flow.path());
    inputs.push(Input::new("one flow sequence", flow.path()));
    // `check` in two formats, and `explain`, which streams its timelines, in two.
    let formats = [
        ("check", "full", 2),
        ("check", "json", 2),
        ("explain", "text", 3),
        ("explain", "json", 3),
    ];

    let before = cpu_pressure();
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); inputs.len() * formats.len()];
    for _ in 0..rounds {
        for (i, input) in inputs.iter().enumerate() {
            for (f, (command, format, _)) in formats.iter().enumerate() {
                runs[i * formats.len() + f].push(measure(&input.dir, command, format));
            }
        }
    }

    println!(
        "\n`podcycle check --no-render` and `podcycle explain`, {rounds} rounds, output to /dev/null\n"
    );
    println!(
        "| input | command | median wall | MB/s | median CPU (user+sys) | peak RSS (max of rounds) | peak / input | target |"
    );
    println!("| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |");
    for (i, input) in inputs.iter().enumerate() {
        for (f, (command, format, target)) in formats.iter().enumerate() {
            let runs = &runs[i * formats.len() + f];
            let wall = median(runs.iter().map(|r| r.wall));
            let cpu = median(runs.iter().map(|r| r.cpu));
            let peak = runs.iter().map(|r| r.max_rss).max().unwrap_or(0);
            let mb = input.bytes as f64 / 1e6;
            println!(
                "| {} ({} files, {mb:.1} MB) | {command} --format {format} | {:.0} ms | {:.1} | {:.0} ms | {:.1} MB | {:.2} | ≤ {target} |",
                input.name,
                input.files,
                wall.as_secs_f64() * 1e3,
                mb / wall.as_secs_f64(),
                cpu.as_secs_f64() * 1e3,
                peak as f64 / 1e6,
                peak as f64 / input.bytes as f64,
            );
        }
    }
    if let (Some(before), Some(after)) = (before, cpu_pressure()) {
        println!(
            "\nCPU pressure (share of time some runnable task waited for a CPU, last 10 s): \
             {before}% before, {after}% after; above a few percent, the machine was shared"
        );
    }
}

/// Writes the generated corpus under `dir`; returns its size in bytes.
fn write_corpus(dir: &Path) -> usize {
    let mut bytes = 0;
    for file in corpus::generate(corpus::FILES, corpus::WORKLOADS_PER_FILE) {
        let path = dir.join(&file.name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("creating the corpus directory");
        }
        std::fs::write(&path, &file.text).expect("writing the corpus");
        bytes += file.text.len();
    }
    bytes
}

/// Writes `flow.yaml`, one flow sequence of 50 MB: `[1, 1, 1, …]`. The worst case for the
/// tree, whose memory goes mostly to nodes: here every three bytes of input are a node. It is
/// written a block at a time, not built in memory first.
fn write_flow_sequence(dir: &Path) {
    use std::io::Write;
    const BLOCKS: usize = 1_000;
    let block = "1, ".repeat(50_000_000 / 3 / BLOCKS);
    let file = std::fs::File::create(dir.join("flow.yaml")).expect("creating the flow sequence");
    let mut out = std::io::BufWriter::new(file);
    let mut write = |text: &str| {
        out.write_all(text.as_bytes())
            .expect("writing the flow sequence")
    };
    write("[");
    for _ in 0..BLOCKS {
        write(&block);
    }
    write("1]\n");
    out.flush().expect("writing the flow sequence");
}

/// The directory of real manifests: `PODCYCLE_BENCH_CORPUS`, else the shared corpus beside the
/// repository or beside its parent (a worktree).
fn real_corpus() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PODCYCLE_BENCH_CORPUS") {
        return Some(PathBuf::from(dir));
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["../shared/corpus", "../../shared/corpus"]
        .iter()
        .map(|relative| root.join(relative))
        .find(|dir| dir.is_dir())
}

struct Input {
    name: &'static str,
    dir: PathBuf,
    /// The files `podcycle check` lints there, and their size.
    files: usize,
    bytes: u64,
}

impl Input {
    /// Counts what `podcycle check --show-files` says it lints, so the input is the bytes
    /// podcycle reads, not every file in the directory.
    fn new(name: &'static str, dir: &Path) -> Input {
        let output = Command::new(env!("CARGO_BIN_EXE_podcycle"))
            .args(["check", "--no-render", "--show-files", "."])
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
        Input {
            name,
            dir: dir.to_owned(),
            files,
            bytes,
        }
    }
}

/// The argument that makes this program run one `podcycle check` and print what it used.
const MEASURE: &str = "--measure-one";

/// Runs [`run_podcycle`] in a fresh copy of this program, started before it has allocated
/// anything, and reads the result from its output.
///
/// A process's peak RSS (`ru_maxrss`) starts from that of the memory it was forked from: at
/// `exec`, Linux counts the high-water mark of the old address space, which for a forked
/// child is a copy of its parent's. This benchmark holds the generated corpus, tens of MB,
/// so its children would start above the peak of a small input. The fresh copy is a few MB,
/// and it is the parent of the measured process.
fn measure(dir: &Path, command: &str, format: &str) -> Run {
    let exe = std::env::current_exe().expect("the benchmark's own path");
    let output = Command::new(exe)
        .arg(MEASURE)
        .arg(dir)
        .arg(command)
        .arg(format)
        .stderr(Stdio::inherit())
        .output()
        .expect("the measuring process runs");
    assert!(
        output.status.success(),
        "measuring podcycle in {} failed",
        dir.display()
    );
    let text = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<u64> = text
        .split_whitespace()
        .map(|field| field.parse().expect("a number from the measuring process"))
        .collect();
    let [wall, cpu, max_rss] = fields[..] else {
        panic!("unexpected output from the measuring process: {text}");
    };
    Run {
        wall: Duration::from_nanos(wall),
        cpu: Duration::from_nanos(cpu),
        max_rss,
    }
}

#[derive(Clone, Copy)]
struct Run {
    wall: Duration,
    cpu: Duration,
    /// Bytes.
    max_rss: u64,
}

/// Runs `podcycle check --no-render --format FORMAT .` (or `explain --format FORMAT .`) in
/// `dir`, output discarded, and reads the child's resource use from `wait4`.
// `wait4` reaps the child, which `Child::wait` cannot do while giving its resource use.
#[allow(clippy::zombie_processes)]
fn run_podcycle(dir: &Path, command: &str, format: &str) -> Run {
    let args: &[&str] = match command {
        "check" => &["check", "--no-render", "--format", format, "."],
        _ => &[command, "--format", format, "."],
    };
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_podcycle"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("podcycle runs");
    let pid = libc::pid_t::try_from(child.id()).expect("a process id");
    let mut status = 0;
    // SAFETY: `rusage` is plain data that `wait4` fills in; the child is ours and not yet
    // waited for (`Child` is never waited on below).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert_eq!(waited, pid, "waiting for podcycle");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) <= 1,
        "podcycle {command} failed in {}",
        dir.display()
    );
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Run {
        wall,
        cpu: time(usage.ru_utime) + time(usage.ru_stime),
        // Linux gives kilobytes.
        max_rss: usage.ru_maxrss as u64 * 1024,
    }
}

fn median(values: impl Iterator<Item = Duration>) -> Duration {
    let mut sorted: Vec<Duration> = values.collect();
    sorted.sort();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

/// The `some avg10` figure of Linux's pressure stall information for the CPU.
fn cpu_pressure() -> Option<String> {
    let text = std::fs::read_to_string("/proc/pressure/cpu").ok()?;
    let line = text.lines().find(|l| l.starts_with("some "))?;
    let field = line.split_whitespace().find(|f| f.starts_with("avg10="))?;
    Some(field["avg10=".len()..].to_owned())
}
