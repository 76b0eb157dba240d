//! Both source maps over arbitrary rendered output, for the fuzz target: whatever headers,
//! origins, annotations and paths the output holds, no finding is placed in (and no label
//! carries a byte of) a file the stage did not copy, and no staged file is read twice.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::helm::{Chart, StagedChart};
use super::stage::{self, Listings, Staged, StagedTree};
use crate::diagnostics::{Diagnostic, Enforcement, Label, Severity};
use crate::source::{SourceFile, Span};

/// What the files outside the stages hold: it must never reach a finding.
const SECRET: &str = "PODCYCLE_FUZZ_SECRET_BYTES";

/// A chart and an overlay, staged once, beside files the stages do not copy.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
    chart: Chart,
    staged_chart: Staged,
    overlay: PathBuf,
    staged_overlay: StagedTree,
    /// A file outside the repository.
    outside: PathBuf,
    /// How many files each stage holds.
    chart_files: usize,
    overlay_files: usize,
}

const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: {{ .Values.grace }}\n      containers:\n      - name: web\n        image: nginx\n";

fn fixture() -> Result<&'static Fixture, String> {
    static FIXTURE: OnceLock<Result<Fixture, String>> = OnceLock::new();
    FIXTURE
        .get_or_init(|| {
            let error = |e: &dyn std::fmt::Display| e.to_string();
            let dir = tempfile::tempdir().map_err(|e| error(&e))?;
            // Named so that the fuzzer's inputs can name the repository's copy (`../repo/…`).
            let top = dir.path().canonicalize().map_err(|e| error(&e))?;
            let root = top.join("repo");
            let secret = format!("kind: Deployment  # {SECRET}\nmetadata:\n  name: web  # {SECRET}\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: {SECRET}\n");
            let files: [(&str, String); 11] = [
                (".podcycle.yaml", String::new()),
                ("web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 1.0.0\n".into()),
                ("web/values.yaml", "grace: 30\n".into()),
                ("web/templates/deployment.yaml", DEPLOYMENT.into()),
                ("web/templates/_helpers.tpl", "{{ define \"x\" }}\nname: y\n{{ end }}\n".into()),
                ("web/secret.yaml", secret.clone()),
                ("overlay/kustomization.yaml", "resources: [deployment.yaml]\npatches:\n- path: patch.yaml\n- patch: |\n    kind: Deployment\n    metadata:\n      name: web\n    spec:\n      replicas: 2\n".into()),
                ("overlay/deployment.yaml", DEPLOYMENT.replace("{{ .Values.grace }}", "30")),
                ("overlay/patch.yaml", "kind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      terminationGracePeriodSeconds: 10\n".into()),
                ("secret.yaml", secret.clone()),
                ("../outside/secret.yaml", secret),
            ];
            for (path, text) in &files {
                let target = root.join(path);
                std::fs::create_dir_all(target.parent().unwrap_or(&root)).map_err(|e| error(&e))?;
                std::fs::write(&target, text).map_err(|e| error(&e))?;
            }
            let listings = Listings::default();
            let chart_dir = root.join("web");
            // The chart's own `secret.yaml` is staged (a chart's file), but is no template.
            let staged_chart =
                stage::stage(&chart_dir, "web", &[], &listings, true).map_err(|e| error(&e))?;
            let chart = super::helm::read_chart(&chart_dir).map_err(|e| error(&e))?;
            let overlay = root.join("overlay");
            let boundary = super::boundary::Boundary::of(&overlay);
            let staged_overlay = stage::stage_tree(
                std::slice::from_ref(&overlay),
                &[],
                &boundary,
                &listings,
                true,
            )
            .map_err(|e| error(&e))?;
            let chart_files = staged_chart.files(&chart_dir, &[]).len();
            let overlay_files = staged_overlay.files(&[&root]).len();
            Ok(Fixture {
                outside: top.join("outside/secret.yaml"),
                _dir: dir,
                root,
                chart,
                staged_chart,
                overlay,
                staged_overlay,
                chart_files,
                overlay_files,
            })
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Places a finding at every node of every document of `output` (and a label at its
/// neighbour) through both source maps. `@ROOT@` in `output` stands for the repository's
/// absolute path and `@OUT@` for a file outside it, so that short inputs reach both.
pub fn place_everywhere(output: &str) -> Result<(), String> {
    let fixture = fixture()?;
    let root = fixture.root.to_string_lossy();
    let text = output
        .replace(SECRET, "")
        .replace("@ROOT@", &root)
        .replace("@OUT@", &fixture.outside.to_string_lossy());
    let rendered = SourceFile::new("fuzz (rendered)", text);
    let documents = crate::yaml::parse_stream(&rendered.text);
    let mut spans: Vec<Span> = Vec::new();
    for document in &documents {
        spans.extend(document.nodes.iter().map(|node| node.span).take(256));
    }
    let chart_dir = fixture.chart.dir.clone();
    let staged = StagedChart {
        files: fixture.staged_chart.files(&chart_dir, &[]),
        chart: fixture.staged_chart.chart_key(),
        values: Vec::new(),
    };
    let mut helm = super::helm::HelmMap::new(&fixture.chart, "web".into(), staged, &rendered);
    let files = fixture.staged_overlay.files(&[&fixture.root]);
    let mut kustomize = super::kustomize::map_over(&fixture.overlay, files)
        .ok_or("the overlay's tree is not read")?;
    for (index, &span) in spans.iter().enumerate() {
        let label = spans.get(index + 1).copied().unwrap_or(span);
        let finding = || {
            let mut diagnostic = Diagnostic::new(
                "fuzz",
                Severity::Warning,
                Enforcement::Decoder,
                span,
                "finding".to_owned(),
            );
            diagnostic.labels.push(Label::new(label, "label"));
            diagnostic
        };
        let placed = [
            helm.place(&rendered, finding()),
            kustomize.place(&rendered, finding()),
        ];
        for (file, diagnostic) in &placed {
            check(file, diagnostic)?;
        }
    }
    let (helm_loads, kustomize_loads) = (
        helm.staged_files().loads(),
        kustomize.staged_files().loads(),
    );
    if helm_loads > fixture.chart_files || kustomize_loads > fixture.overlay_files {
        return Err(format!(
            "read {helm_loads} of {} staged chart files, {kustomize_loads} of {} overlay files",
            fixture.chart_files, fixture.overlay_files
        ));
    }
    Ok(())
}

/// A placed finding shows nothing of a file the stage did not copy as a template, base or
/// patch: the only staged file that holds the secret is the chart's `secret.yaml`, which is no
/// template, and the overlay's stage does not hold it.
fn check(file: &SourceFile, diagnostic: &Diagnostic) -> Result<(), String> {
    let mut files = vec![file];
    files.extend(diagnostic.labels.iter().filter_map(|l| l.file.as_deref()));
    if let Some(file) = files.iter().find(|f| f.text.contains(SECRET)) {
        return Err(format!(
            "placed in `{}`, which is no staged source",
            file.path
        ));
    }
    let texts = std::iter::once(&diagnostic.message)
        .chain(diagnostic.labels.iter().map(|l| &l.message))
        .chain(&diagnostic.notes);
    for text in texts {
        if text.contains(SECRET) {
            return Err(format!(
                "a message carries bytes of a file outside the stage: {text}"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The harness holds on what the maps place and what they refuse: staged sources in many
    /// spellings, and paths out of the stage, absolute and by climbing.
    #[test]
    fn headers_and_origins_of_every_spelling_hold() {
        let deployment = DEPLOYMENT.replace("{{ .Values.grace }}", "30");
        let climb = "../".repeat(30);
        let mut inputs = Vec::new();
        for header in [
            "web/templates/deployment.yaml".to_owned(),
            "web/templates/../templates/./deployment.yaml".to_owned(),
            "web/templates/../secret.yaml".to_owned(),
            "web/templates/../../secret.yaml".to_owned(),
            "web@OUT@".to_owned(),
            format!("web/templates/{climb}dev/zero"),
        ] {
            inputs.push(format!("---\n# Source: {header}\n{deployment}"));
        }
        for origin in [
            "../repo/overlay/deployment.yaml".to_owned(),
            "../repo/overlay/../overlay/patch.yaml".to_owned(),
            "../repo/secret.yaml".to_owned(),
            "@OUT@".to_owned(),
            "@ROOT@/secret.yaml".to_owned(),
            format!("{climb}etc/passwd"),
        ] {
            inputs.push(deployment.replace(
                "  name: web\nspec:",
                &format!("  name: web\n  annotations:\n    config.kubernetes.io/origin: |\n      path: {origin}\n    alpha.config.kubernetes.io/transformations: |\n      - configuredIn: {origin}\n        configuredBy: {{kind: PatchTransformer}}\nspec:"),
            ));
        }
        for input in inputs {
            assert_eq!(place_everywhere(&input), Ok(()), "{input}");
        }
    }
}
