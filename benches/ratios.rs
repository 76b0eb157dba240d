//! The performance targets as ratios measured in one run: full check against the bare YAML
//! parse, rayon on all cores against one thread, and `podcycle check` on a small file against
//! `/bin/true`. Each round times every case once, in turn, so that a noisy neighbour on a shared
//! machine slows all of them alike; the table gives medians and the spread of per-round ratios.
//!
//! `cargo bench --bench ratios`; `PODCYCLE_BENCH_ROUNDS` (default 7) and
//! `PODCYCLE_BENCH_PROCESS_RUNS` (default 300) set the amount of work.

mod corpus;
#[allow(dead_code)]
mod process;

use std::hint::black_box;
use std::time::{Duration, Instant};

use podcycle::settings::Settings;
use podcycle::source::SourceFile;
use podcycle::yaml::{self, Comments};

// The allocator the `podcycle` binary uses, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !process::selected(&args, "ratios") {
        return;
    }
    let rounds = process::env_number("PODCYCLE_BENCH_ROUNDS", 7);
    let process_runs = process::env_number("PODCYCLE_BENCH_PROCESS_RUNS", 300);

    let corpus = &*corpus::CORPUS;
    println!("{}", corpus.describe());
    let before = process::machine_load();
    pipeline(corpus, rounds);
    small_file(process_runs);
    println!(
        "\nThe machine: {before} before; {} after. Above a few percent of CPU pressure, \
         the machine was shared, and the parallel speedup reads low.",
        process::machine_load()
    );
}

fn pipeline(corpus: &corpus::Corpus, rounds: usize) {
    let settings = Settings::default();
    let threads = corpus::thread_counts();
    let pools: Vec<rayon::ThreadPool> = threads.iter().map(|&n| corpus::pool(n)).collect();
    let mut parse = Vec::new();
    let mut check = Vec::new();
    let mut parallel: Vec<Vec<Duration>> = vec![Vec::new(); pools.len()];
    for _ in 0..rounds {
        parse.push(time(|| {
            for file in &corpus.files {
                yaml::for_each_document_with(black_box(&file.text), Comments::Skip, |document| {
                    black_box(document);
                });
            }
        }));
        check.push(time(|| {
            black_box(corpus::lint_all(black_box(&corpus.files), &settings));
        }));
        for (pool, times) in pools.iter().zip(&mut parallel) {
            let contents = corpus::contents(&corpus.files);
            times.push(time(|| {
                black_box(pool.install(|| corpus::check_all(contents, &settings)));
            }));
        }
    }

    let mb = corpus.bytes as f64 / 1e6;
    println!("\n{rounds} rounds over {mb:.1} MB\n");
    println!("| case | median | MB/s (median) | fastest | MB/s (fastest) |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let row = |name: &str, times: &[Duration]| {
        let median = median(times);
        let fastest = times.iter().min().copied().unwrap_or_default();
        println!(
            "| {name} | {} | {:.1} | {} | {:.1} |",
            millis(median),
            mb / median.as_secs_f64(),
            millis(fastest),
            mb / fastest.as_secs_f64(),
        );
    };
    row(
        "bare YAML parse (documents into the tree, no comments), 1 thread",
        &parse,
    );
    row("full check (`lint_file`), 1 thread", &check);
    for (n, times) in threads.iter().zip(&parallel) {
        row(
            &format!("`check` after reading (`lint_bytes` in `par_iter`), pool of {n}"),
            times,
        );
    }

    println!("\n| ratio | median of rounds | range | fastest over fastest |");
    println!("| --- | ---: | --- | ---: |");
    ratio_row("full check / parse (target ≤ 1.5)", &check, &parse);
    if let [one, .., all] = parallel.as_slice() {
        let n = threads[threads.len() - 1];
        ratio_row(
            &format!("speedup, {n} threads over 1 (target ≈ {n})"),
            one,
            all,
        );
    }
}

fn small_file(runs: usize) {
    let file = SourceFile::new("small-app.yaml", corpus::SMALL_FILE);
    let settings = Settings::default();
    let in_process = mean_of(2_000, || {
        black_box(corpus::lint_one(black_box(&file), &settings));
    });

    // Alternate in blocks so that both sides see the same machine.
    let block = 10;
    let mut podcycle = Duration::ZERO;
    let mut floor = Duration::ZERO;
    for _ in 0..runs.div_ceil(block) {
        podcycle += time(|| (0..block).for_each(|_| corpus::run_small_file_check()));
        floor += time(|| (0..block).for_each(|_| corpus::run_bin_true()));
    }
    let count = (runs.div_ceil(block) * block) as u32;
    let (podcycle, floor) = (podcycle / count, floor / count);
    println!(
        "\nsmall file ({} bytes), {count} process runs each, mean per run\n",
        corpus::SMALL_FILE.len()
    );
    println!("| case | mean |");
    println!("| --- | ---: |");
    println!("| `lint_file` in process | {} |", millis(in_process));
    println!(
        "| `podcycle check testdata/small-app.yaml`, start to exit (target < 5 ms) | {} |",
        millis(podcycle)
    );
    println!("| `/bin/true`, start to exit | {} |", millis(floor));
    println!(
        "| podcycle beyond `/bin/true` | {} ({:.1}× `/bin/true`) |",
        millis(podcycle.saturating_sub(floor)),
        podcycle.as_secs_f64() / floor.as_secs_f64()
    );
}

fn time(work: impl FnOnce()) -> Duration {
    let start = Instant::now();
    work();
    start.elapsed()
}

fn mean_of(iterations: u32, mut work: impl FnMut()) -> Duration {
    work();
    time(|| (0..iterations).for_each(|_| work())) / iterations
}

fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

/// Prints the median and range of `numerator[i] / denominator[i]` over the rounds, and the
/// ratio of the fastest times, the least disturbed by other work.
fn ratio_row(name: &str, numerator: &[Duration], denominator: &[Duration]) {
    let mut ratios: Vec<f64> = numerator
        .iter()
        .zip(denominator)
        .map(|(n, d)| n.as_secs_f64() / d.as_secs_f64())
        .collect();
    ratios.sort_by(f64::total_cmp);
    let fastest = |times: &[Duration]| times.iter().min().copied().unwrap_or_default();
    println!(
        "| {name} | {:.2} | {:.2}–{:.2} | {:.2} |",
        ratios[ratios.len() / 2],
        ratios[0],
        ratios[ratios.len() - 1],
        fastest(numerator).as_secs_f64() / fastest(denominator).as_secs_f64(),
    );
}

fn millis(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1e3)
}
