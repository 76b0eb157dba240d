//! Throughput of the lint pipeline over a generated corpus: the bare YAML parse, the whole
//! `lint_file` pipeline on one thread, the same over all files with rayon on 1 and on all
//! cores, one small file, and the process start to exit. `cargo bench --bench pipeline`;
//! `benches/ratios.rs` measures the ratios between these in interleaved rounds; both are
//! described, with figures, in `docs/performance.md`.

mod corpus;

use std::hint::black_box;

use divan::Bencher;
use divan::counter::BytesCount;
use podcycle::settings::Settings;
use podcycle::source::SourceFile;
use podcycle::yaml::{self, Comments};

// The allocator the `podcycle` binary uses, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let corpus = &*corpus::CORPUS;
    eprintln!("{}", corpus.describe());
    divan::main();
}

#[divan::bench(sample_count = 10, sample_size = 1)]
fn parse(bencher: Bencher) {
    let corpus = &*corpus::CORPUS;
    bencher.counter(BytesCount::new(corpus.bytes)).bench(|| {
        for file in &corpus.files {
            yaml::for_each_document_with(black_box(&file.text), Comments::Skip, |document| {
                black_box(document);
            });
        }
    });
}

/// The whole pipeline, `lint_file`, file after file on one thread.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn check(bencher: Bencher) {
    let corpus = &*corpus::CORPUS;
    let settings = Settings::default();
    bencher
        .counter(BytesCount::new(corpus.bytes))
        .bench(|| corpus::lint_all(black_box(&corpus.files), &settings));
}

/// What `podcycle check` does once files are read (`lint_bytes` in `par_iter`), on a rayon
/// pool of `threads` threads.
#[divan::bench(sample_count = 10, sample_size = 1, args = corpus::thread_counts())]
fn check_parallel(bencher: Bencher, threads: usize) {
    let corpus = &*corpus::CORPUS;
    let settings = Settings::default();
    let pool = corpus::pool(threads);
    bencher
        .counter(BytesCount::new(corpus.bytes))
        .with_inputs(|| corpus::contents(&corpus.files))
        .bench_local_values(|contents| pool.install(|| corpus::check_all(contents, &settings)));
}

/// One small multi-document file, as a pre-commit hook or an editor lints it.
#[divan::bench]
fn small_file(bencher: Bencher) {
    let file = SourceFile::new("small-app.yaml", corpus::SMALL_FILE);
    let settings = Settings::default();
    bencher
        .counter(BytesCount::of_str(corpus::SMALL_FILE))
        .bench(|| corpus::lint_one(black_box(&file), &settings));
}

/// Process start to exit: `podcycle check testdata/small-app.yaml` against `/bin/true`.
mod process {
    use super::*;

    #[divan::bench(sample_count = 50, sample_size = 4)]
    fn podcycle_check_small_file() {
        corpus::run_small_file_check();
    }

    #[divan::bench(sample_count = 50, sample_size = 4)]
    fn bin_true() {
        corpus::run_bin_true();
    }
}
