//! What the language server does for each change of a document, on a 2,000-line manifest:
//! lint it (the `check` pipeline), keep the Kubernetes documents' findings, convert them to
//! the protocol's diagnostics with UTF-16 ranges, and serialise the notification. Debouncing
//! and the transport are left out: this is the work per change once the typing pauses.
//!
//! `cargo bench --bench lsp`

use divan::{Bencher, black_box};
use lsp_types::{PublishDiagnosticsParams, Uri};
use podcycle::lint::FileRole;
use podcycle::lsp::convert::{ClientInfo, Encoding};
use podcycle::lsp::lsp_diagnostics;
use podcycle::settings::Settings;

// The allocator the `podcycle` binary uses, so that the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    divan::main();
}

/// Documents from the test data, repeated until the stream has at least `lines` lines; each
/// has findings, so conversion is measured too.
fn manifest(lines: usize) -> String {
    let pieces = [
        include_str!("../testdata/lsp/web.yaml"),
        include_str!("../rules/prestop-exceeds-grace-period/invalid.yaml"),
        include_str!("../rules/init-container-probe/invalid.yaml"),
        include_str!("../rules/poststart-blocks-sidecar/invalid.yaml"),
    ];
    let mut text = String::new();
    let mut i = 0;
    while text.lines().count() < lines {
        if !text.is_empty() {
            text.push_str("---\n");
        }
        text.push_str(pieces[i % pieces.len()]);
        i += 1;
    }
    text
}

const CLIENT: ClientInfo = ClientInfo {
    encoding: Encoding::Utf16,
    related_information: true,
};

#[divan::bench(args = [2_000])]
fn change_to_published_diagnostics(bencher: Bencher, lines: usize) {
    let text = manifest(lines);
    let uri: Uri = "file:///work/deploy/all.yaml".parse().unwrap();
    let settings = Settings::default();
    bencher.bench(|| {
        let diagnostics = lsp_diagnostics(
            &uri,
            black_box(&text),
            &settings,
            FileRole::Manifest,
            CLIENT,
        );
        let params = PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics,
            version: Some(2),
        };
        serde_json::to_string(&params).unwrap()
    });
}

/// The lint alone, for comparison: what `check` spends on the same text.
#[divan::bench(args = [2_000])]
fn lint_only(bencher: Bencher, lines: usize) {
    let text = manifest(lines);
    let settings = Settings::default();
    bencher.bench(|| {
        let file = podcycle::source::SourceFile::new("all.yaml", black_box(text.as_str()));
        podcycle::lint::lint_file(&file, &settings)
    });
}
