//! What the language server does for each change of a document, on a 2,000-line manifest:
//! lint it (the `check` pipeline), keep the Kubernetes documents' findings, convert them to
//! the protocol's diagnostics with UTF-16 ranges, and serialise the notification. Debouncing
//! and the transport are left out: this is the work per change once the typing pauses.
//!
//! A file of a directory of many manifests with a budget is judged with the directory's scope:
//! `change_in_a_directory` measures a change of it read as before the workspace's index, every
//! neighbour read again from disk (a fresh index per change), and from a warm index, with and
//! without a client that reports changed files (without, each lint looks at every file's size
//! and time).
//!
//! `cargo bench --bench lsp`

use divan::{Bencher, black_box};
use lsp_types::{PublishDiagnosticsParams, Uri};
use podcycle::lint::{FileRole, Within};
use podcycle::lsp::convert::{ClientInfo, Encoding};
use podcycle::lsp::{Workspace, lsp_diagnostics, lsp_diagnostics_in};
use podcycle::run::{FilePlan, RunOptions, WorkspaceIndex};
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
        podcycle::lint::lint_file(
            &file,
            &settings,
            FileRole::Manifest,
            Within::Itself,
            &mut |_| {},
        )
    });
}

/// A Deployment of the directory of [`directory`].
fn deployment(name: &str, comment: &str) -> String {
    format!(
        "# {comment}\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: {name}}}\nspec:\n  replicas: 3\n  selector: {{matchLabels: {{app: {name}}}}}\n  template:\n    metadata: {{labels: {{app: {name}, tier: web}}}}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n        readinessProbe: {{httpGet: {{path: /, port: 80}}}}\n"
    )
}

/// A directory of `files` manifests: Deployments, and a budget over all of them.
fn directory(files: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..files - 1 {
        let name = format!("web-{i}");
        std::fs::write(
            dir.path().join(format!("{name}.yaml")),
            deployment(&name, "v1"),
        )
        .unwrap();
    }
    std::fs::write(
        dir.path().join("pdb.yaml"),
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 100%\n  selector: {matchLabels: {tier: web}}\n",
    )
    .unwrap();
    dir
}

#[derive(Clone, Copy, Debug)]
enum Neighbours {
    /// Every neighbour read again at each change.
    ReadAgain,
    /// From the index; each lint looks at the files' sizes and times.
    Index,
    /// From the index of a client that reports changed files.
    WatchedIndex,
}

/// `HOW`: 0 every neighbour read again, 1 from the index, 2 from the index of a client that
/// reports changed files ([`Neighbours`]).
#[divan::bench(args = [50, 200], consts = [0, 1, 2])]
fn change_in_a_directory<const HOW: usize>(bencher: Bencher, files: usize) {
    let how = [
        Neighbours::ReadAgain,
        Neighbours::Index,
        Neighbours::WatchedIndex,
    ][HOW];
    let dir = directory(files);
    let root = dir.path().canonicalize().unwrap();
    let path = root.join("web-0.yaml");
    let uri: Uri = format!("file://{}", path.display()).parse().unwrap();
    let settings = Settings::default();
    let plan = FilePlan::new(settings.clone(), FileRole::Manifest);
    let options = RunOptions::default();
    let index = WorkspaceIndex::default();
    index.set_watched(matches!(how, Neighbours::WatchedIndex));
    let workspace = Workspace {
        index: &index,
        options: &options,
        config: None,
    };
    // Two texts, one per change, so that the changed file's own part is read every time.
    let texts = [
        std::sync::Arc::new(deployment("web-0", "typed")),
        std::sync::Arc::new(deployment("web-0", "typed again")),
    ];
    let kinds = podcycle::model::custom::PodTemplateKinds::default();
    let context = podcycle::run::DirectoryContext {
        options: &options,
        config: None,
        kinds: &kinds,
    };
    let scoped = index.scope_of(&path, &texts[0], FileRole::Manifest, &context);
    assert_eq!(scoped.scope.map(|s| s.workloads().len()), Some(files - 1));
    let mut change = 0;
    bencher.bench_local(|| {
        change += 1;
        let text = &texts[change % 2];
        match how {
            Neighbours::ReadAgain => {
                lsp_diagnostics(&uri, black_box(text), &settings, FileRole::Manifest, CLIENT)
            }
            Neighbours::Index | Neighbours::WatchedIndex => {
                index.open(&path, std::sync::Arc::clone(text));
                let (diagnostics, generation) =
                    lsp_diagnostics_in(&workspace, &uri, black_box(text), &plan, CLIENT);
                assert!(generation.is_some());
                diagnostics
            }
        }
    });
}
