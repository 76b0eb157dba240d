//! Throughput of `podcycle check` over many files, run as a user runs it, beside builds of
//! other commits: `podcycle check --no-config --format json .` in a directory of manifests,
//! output discarded. Walking, opening, checking and reading every file, linting on every core
//! and writing the report all count, which the in-process benchmarks (`pipeline`, `ratios`) do
//! not see.
//!
//! Each round runs every build once, in an order that turns by one each round, so that a busy
//! neighbour slows them alike; before the rounds, each build runs once untimed, to warm the page
//! cache. The table gives medians of wall time, user and system CPU time, cores' worth of CPU
//! per wall second, and the largest peak resident set size (`wait4`, from a fresh process:
//! see `process.rs`), and the median and range of the per-round ratios of each build's wall
//! and CPU time to the first baseline's. Then the targets, checked on this tree's build.
//!
//! `cargo bench --bench throughput`. Environment:
//! - `PODCYCLE_BENCH_BASELINES`: commits (anything `git rev-parse` takes) or paths of
//!   `podcycle` binaries, separated by commas; default `main`. A commit is built once, in
//!   release, from `git archive` of it, into `target/baselines/` (`cargo build --locked`;
//!   the first build of one takes as long as a release build of the tree), and reused after.
//!   Empty measures this tree alone.
//! - `PODCYCLE_BENCH_INPUT`: `real` (the shared corpus, `PODCYCLE_BENCH_CORPUS` or
//!   `../shared/corpus`), `generated` (the corpus of `corpus.rs`, written to a temporary
//!   directory), or `both`; default `real` when that corpus is there, else `generated`.
//! - `PODCYCLE_BENCH_ROUNDS`: rounds, default 7.

#[allow(dead_code)]
mod corpus;
mod process;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use process::{Run, machine_load, measure, median};

/// What is run in the corpus directory.
const CHECK: [&str; 5] = ["check", "--no-config", "--format", "json", "."];

/// The targets, on this tree's build: megabytes read per wall second, cores' worth of CPU per
/// wall second, and peak memory over the input.
const TARGET_MB_PER_S: f64 = 100.0;
const TARGET_CORES: f64 = 1.8;
const TARGET_PEAK_OVER_INPUT: f64 = 1.0;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if process::serve_measure(&args) {
        return;
    }
    if !process::selected(&args, "throughput") {
        return;
    }
    let rounds = process::env_number("PODCYCLE_BENCH_ROUNDS", 7);
    let baselines = std::env::var("PODCYCLE_BENCH_BASELINES").unwrap_or_else(|_| "main".into());
    let mut builds: Vec<Build> = baselines
        .split(',')
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(Build::baseline)
        .collect();
    builds.push(Build {
        name: "this tree".to_owned(),
        binary: PathBuf::from(env!("CARGO_BIN_EXE_podcycle")),
    });

    let generated = tempfile::tempdir().expect("a temporary directory");
    let inputs = inputs(generated.path());
    for input in &inputs {
        println!(
            "\n## {} ({} files, {:.1} MB): `podcycle {}`, {rounds} rounds\n",
            input.name,
            input.files,
            input.bytes as f64 / 1e6,
            CHECK.join(" ")
        );
        println!("before: {}", machine_load());
        let runs = measure_builds(&builds, &input.dir, rounds);
        println!("after: {}\n", machine_load());
        table(&builds, &runs, input);
        targets(&builds, &runs, input);
    }
}

/// A `podcycle` binary to measure.
struct Build {
    name: String,
    binary: PathBuf,
}

impl Build {
    /// A binary given by its path, or built from a commit.
    fn baseline(spec: &str) -> Build {
        let path = Path::new(spec);
        if path.is_file() {
            return Build {
                name: spec.to_owned(),
                binary: path.to_owned(),
            };
        }
        let commit = git(&["rev-parse", "--verify", &format!("{spec}^{{commit}}")])
            .unwrap_or_else(|| panic!("`{spec}` is neither a binary nor a commit"));
        let short = git(&["rev-parse", "--short", &commit]).unwrap_or_else(|| commit.clone());
        // A commit by its short name; a branch or tag with the commit it names now.
        let name = if commit.starts_with(spec) {
            short.clone()
        } else {
            format!("{spec} ({short})")
        };
        Build {
            name,
            binary: built(&commit, &short),
        }
    }
}

/// The release binary of `commit`, built once into `target/baselines/`.
fn built(commit: &str, short: &str) -> PathBuf {
    let baselines = target_dir().join("baselines");
    let binary = baselines.join(format!("podcycle-{commit}"));
    if binary.is_file() {
        return binary;
    }
    let source = baselines.join("src").join(commit);
    if !source.join("Cargo.toml").is_file() {
        println!("extracting {short} into {}", source.display());
        std::fs::create_dir_all(&source).expect("creating the baseline's source directory");
        let mut archive = Command::new("git")
            .args(["archive", "--format=tar", commit])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("git runs");
        let unpacked = Command::new("tar")
            .args(["-x", "-C"])
            .arg(&source)
            .stdin(archive.stdout.take().expect("git's output"))
            .status()
            .expect("tar runs");
        assert!(
            archive.wait().is_ok_and(|s| s.success()) && unpacked.success(),
            "extracting {short} failed"
        );
    }
    println!(
        "building {short} in release (once; kept in {})",
        baselines.display()
    );
    let target = baselines.join("target");
    let status = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["build", "--release", "--locked", "--bin", "podcycle"])
        .current_dir(&source)
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building {short} failed");
    std::fs::copy(target.join("release/podcycle"), &binary).expect("copying the built binary");
    binary
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
}

/// The trimmed output of a git command in the repository, if it succeeds.
fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stderr(Stdio::null())
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// A directory of manifests and what this tree's `podcycle` lints in it.
struct Input {
    name: &'static str,
    dir: PathBuf,
    files: usize,
    bytes: u64,
}

impl Input {
    fn new(name: &'static str, dir: PathBuf) -> Input {
        let (files, bytes) = process::linted_input(&dir);
        Input {
            name,
            dir,
            files,
            bytes,
        }
    }
}

/// The inputs `PODCYCLE_BENCH_INPUT` asks for; the generated corpus is written into `scratch`.
fn inputs(scratch: &Path) -> Vec<Input> {
    let real = process::real_corpus();
    let asked = std::env::var("PODCYCLE_BENCH_INPUT").unwrap_or_default();
    let (real_asked, generated_asked) = match asked.as_str() {
        "real" => (true, false),
        "generated" => (false, true),
        "both" => (true, true),
        "" => (real.is_some(), real.is_none()),
        other => panic!("PODCYCLE_BENCH_INPUT is `real`, `generated` or `both`, not `{other}`"),
    };
    let mut inputs = Vec::new();
    if real_asked {
        let dir = real.expect("the shared corpus: set PODCYCLE_BENCH_CORPUS to its directory");
        inputs.push(Input::new("real manifests", dir));
    }
    if generated_asked {
        corpus::write(scratch);
        inputs.push(Input::new("generated corpus", scratch.to_owned()));
    }
    inputs
}

/// `runs[build][round]`: one warm-up run of every build, then the rounds, the order of the
/// builds turning by one each round.
fn measure_builds(builds: &[Build], dir: &Path, rounds: usize) -> Vec<Vec<Run>> {
    for build in builds {
        measure(&build.binary, &CHECK, dir);
    }
    let mut runs = vec![Vec::with_capacity(rounds); builds.len()];
    for round in 0..rounds {
        for turn in 0..builds.len() {
            let index = (round + turn) % builds.len();
            runs[index].push(measure(&builds[index].binary, &CHECK, dir));
        }
    }
    runs
}

fn table(builds: &[Build], runs: &[Vec<Run>], input: &Input) {
    let reference = &builds[0].name;
    println!(
        "| build | wall (median, best) | MB/s | user CPU | system CPU | cores used | peak RSS | peak / input | wall ÷ {reference} | CPU ÷ {reference} |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (build, own) in builds.iter().zip(runs) {
        let wall = median(own.iter().map(|r| r.wall));
        let best = own.iter().map(|r| r.wall).min().unwrap_or_default();
        let peak = own.iter().map(|r| r.max_rss).max().unwrap_or(0);
        println!(
            "| {} | {}, {} | {:.0} | {} | {} | {:.2} | {:.1} MB | {:.2} | {} | {} |",
            build.name,
            seconds(wall),
            seconds(best),
            input.bytes as f64 / 1e6 / wall.as_secs_f64(),
            seconds(median(own.iter().map(|r| r.user))),
            seconds(median(own.iter().map(|r| r.system))),
            median(own.iter().map(cores)),
            peak as f64 / 1e6,
            peak as f64 / input.bytes as f64,
            ratio(own, &runs[0], |r| r.wall),
            ratio(own, &runs[0], Run::cpu),
        );
    }
}

/// The median of the per-round ratios of `figure`, and their range.
fn ratio(runs: &[Run], reference: &[Run], figure: impl Fn(&Run) -> Duration) -> String {
    let ratios: Vec<f64> = runs
        .iter()
        .zip(reference)
        .map(|(run, base)| figure(run).as_secs_f64() / figure(base).as_secs_f64())
        .collect();
    let low = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let high = ratios.iter().copied().fold(0.0, f64::max);
    format!("{:.2} ({low:.2}–{high:.2})", median(ratios.iter().copied()))
}

/// The targets, on this tree's build (the last): each met or missed, with the figure.
fn targets(builds: &[Build], runs: &[Vec<Run>], input: &Input) {
    let own = runs.last().expect("this tree's runs");
    let wall = median(own.iter().map(|r| r.wall));
    let throughput = input.bytes as f64 / 1e6 / wall.as_secs_f64();
    let busy = median(own.iter().map(cores));
    let peak = own.iter().map(|r| r.max_rss).max().unwrap_or(0) as f64 / input.bytes as f64;
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    println!();
    println!(
        "- at least {TARGET_MB_PER_S:.0} MB/s: {throughput:.0} MB/s, {}",
        verdict(throughput >= TARGET_MB_PER_S)
    );
    if builds.len() > 1 {
        let against: Vec<f64> = own
            .iter()
            .zip(&runs[0])
            .map(|(run, base)| run.wall.as_secs_f64() / base.wall.as_secs_f64())
            .collect();
        let ratio = median(against.iter().copied());
        println!(
            "- wall time at most {}'s: {ratio:.2}×, {}",
            builds[0].name,
            verdict(ratio <= 1.0)
        );
    }
    println!(
        "- at least {TARGET_CORES} cores' worth of CPU per wall second: {busy:.2}, {}",
        verdict(busy >= TARGET_CORES)
    );
    println!(
        "- peak memory at most {TARGET_PEAK_OVER_INPUT}× the input: {peak:.2}×, {}",
        verdict(peak <= TARGET_PEAK_OVER_INPUT)
    );
}

/// CPU time per second of wall time: how many cores' worth of work the run kept busy.
fn cores(run: &Run) -> f64 {
    run.cpu().as_secs_f64() / run.wall.as_secs_f64()
}

fn seconds(duration: Duration) -> String {
    format!("{:.3} s", duration.as_secs_f64())
}
