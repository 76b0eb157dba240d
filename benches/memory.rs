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
mod process;

use std::path::{Path, PathBuf};
use std::time::Duration;

use process::{Run, machine_load, median};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if process::serve_measure(&args) {
        return;
    }
    if let Some(at) = args.iter().position(|a| a == "--write-corpus") {
        let Some(dir) = args.get(at + 1) else {
            eprintln!("--write-corpus needs a directory");
            std::process::exit(2);
        };
        let bytes = corpus::write(Path::new(dir));
        println!(
            "wrote {} files, {:.1} MB, into {dir}",
            corpus::FILES,
            bytes as f64 / 1e6
        );
        return;
    }
    if !process::selected(&args, "memory") {
        return;
    }
    let rounds = process::env_number("PODCYCLE_BENCH_ROUNDS", 5);

    let generated = tempfile::tempdir().expect("a temporary directory");
    corpus::write(generated.path());
    let mut inputs = vec![Input::new("generated corpus", generated.path())];
    match process::real_corpus() {
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

    let before = machine_load();
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
            let cpu: Duration = median(runs.iter().map(Run::cpu));
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
    println!(
        "\nThe machine: {before} before; {} after. Under load, the times are long; the peaks \
         are not.",
        machine_load()
    );
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

struct Input {
    name: &'static str,
    dir: PathBuf,
    /// The files `podcycle check` lints there, and their size.
    files: usize,
    bytes: u64,
}

impl Input {
    fn new(name: &'static str, dir: &Path) -> Input {
        let (files, bytes) = process::linted_input(dir);
        Input {
            name,
            dir: dir.to_owned(),
            files,
            bytes,
        }
    }
}

/// `podcycle check --no-render --format FORMAT .` (or `explain --format FORMAT .`) in `dir`.
fn measure(dir: &Path, command: &str, format: &str) -> Run {
    let args: &[&str] = match command {
        "check" => &["check", "--no-render", "--format", format, "."],
        _ => &[command, "--format", format, "."],
    };
    process::measure(Path::new(env!("CARGO_BIN_EXE_podcycle")), args, dir)
}
