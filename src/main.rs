use std::process::ExitCode;

// The pipeline allocates a node, a string and a JSON value per YAML scalar; mimalloc makes
// that markedly cheaper than the system allocator (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    podcycle::cli::main()
}
