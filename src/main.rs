use std::process::ExitCode;

// The pipeline allocates a node, a string and a JSON value per YAML scalar; mimalloc makes
// that markedly cheaper than the system allocator (docs/performance.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_arena_eager_commit` and `mi_option_purge_delay` (the same numbers in
/// mimalloc 2 and 3, `mimalloc.h`; the Rust bindings do not name them).
const ARENA_EAGER_COMMIT: libmimalloc_sys::mi_option_t = 4;
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Commit arena memory as it is used, and hand freed pages back after 2 ms instead of 1 s
/// (mimalloc 3's default; 10 ms in mimalloc 2): a run over many files then peaks at what it
/// holds, not at every tree it has freed (on 15 MB of real manifests, 18 MB instead of
/// 25–30 MB at the default).
///
/// Not at once: pages handed back the moment they are free are taken back by the next
/// document's tree, each a page fault and a page zeroed. On the generated corpus of the
/// benchmarks that was an eighth of the CPU time (system time 0.26 s against 0.09 s after
/// 2 ms; CPU time 0.88×, wall time 0.89×); 2 ms raised the median peak by 0.5 MB there and
/// 1.1 MB on the real manifests (docs/performance.md).
///
/// mimalloc's own environment variables (`MIMALLOC_PURGE_DELAY`, ...) still decide where they
/// are set, as mimalloc documents: an option set here would override them.
extern "C" fn tune_allocator() {
    for (option, variable, value) in [
        (ARENA_EAGER_COMMIT, c"MIMALLOC_ARENA_EAGER_COMMIT", 0),
        (PURGE_DELAY, c"MIMALLOC_PURGE_DELAY", 2),
    ] {
        if !is_set(variable) {
            // SAFETY: `mi_option_set` only stores a number; it may be called at any time.
            unsafe { libmimalloc_sys::mi_option_set(option, value) };
        }
    }
}

/// Whether the environment sets `variable`, read without allocating: on Linux this runs
/// before the allocator's options are set.
#[cfg(unix)]
fn is_set(variable: &std::ffi::CStr) -> bool {
    // SAFETY: `getenv` reads the environment, which nothing changes this early.
    unsafe { !libc::getenv(variable.as_ptr()).is_null() }
}

#[cfg(not(unix))]
fn is_set(variable: &std::ffi::CStr) -> bool {
    variable
        .to_str()
        .is_ok_and(|name| std::env::var_os(name).is_some())
}

// The arena options count from mimalloc's first allocation, which the standard library makes
// before `main`; on Linux, a constructor runs before that.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static TUNE_ALLOCATOR: extern "C" fn() = tune_allocator;

fn main() -> ExitCode {
    // Elsewhere, as early as `main` allows: the purge delay still applies.
    #[cfg(not(target_os = "linux"))]
    tune_allocator();
    podcycle::cli::main()
}
