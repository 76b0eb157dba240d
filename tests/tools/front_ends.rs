//! One truth across the front ends: a chart whose configuration names a release and a values
//! file is rendered through `check`, `explain` and the language server, and all three report
//! the same findings at the same places of the template — with the configured values, which
//! change what is found.

use std::path::Path;

use libtest_mimic::Trial;
use lsp_types::NumberOrString;
use serde_json::Value;

use crate::common::{check, run};
use crate::lsp_client::{Client, capabilities, uri};
use crate::tool::{Tool, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "front_ends::check_explain_and_the_editor_render_a_configured_chart_alike",
            check_explain_and_the_editor_render_a_configured_chart_alike,
        ),
        needs(
            Tool::Renderers,
            "front_ends::the_editor_publishes_an_overlays_refusal_on_its_kustomization",
            the_editor_publishes_an_overlays_refusal_on_its_kustomization,
        ),
        needs(
            Tool::Renderers,
            "front_ends::the_editor_publishes_a_charts_refusal_where_helm_places_it",
            the_editor_publishes_a_charts_refusal_where_helm_places_it,
        ),
    ]
}

/// A finding in the template: rule, line, column, message.
type Found = (String, u64, u64, String);

/// `testdata/render/web`, copied under a configuration that renders it as release `shop` with
/// `values-prod.yaml` (a grace period of 30s instead of the chart's 20s).
fn configured_chart() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/render/web");
    let chart = dir.path().join("web");
    for relative in [
        "Chart.yaml",
        "values.yaml",
        "values-prod.yaml",
        "templates/_helpers.tpl",
        "templates/deployment.yaml",
    ] {
        let to = chart.join(relative);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(source.join(relative), to).unwrap();
    }
    std::fs::write(
        dir.path().join(".podcycle.yaml"),
        "helm:\n  charts:\n    - path: web\n      release: shop\n      values: [web/values-prod.yaml]\n",
    )
    .unwrap();
    dir
}

fn check_explain_and_the_editor_render_a_configured_chart_alike() {
    let dir = configured_chart();
    let chart = dir.path().join("web");
    let template = chart.join("templates/deployment.yaml");
    let in_template = |file: &str| file.ends_with("web/templates/deployment.yaml");
    // The findings of `check --format json`, or of `explain --format json` (the same shape),
    // in the template.
    let found_in_template = |findings: &Value| -> Vec<Found> {
        findings
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| in_template(d["file"].as_str().unwrap()))
            .map(found)
            .collect()
    };

    let checked = check(&["--format", "json", chart.to_str().unwrap()]);
    let checked: Value = serde_json::from_slice(&checked.stdout).expect("check writes JSON");
    let mut by_check = found_in_template(&checked);
    let objects: Vec<&str> = checked
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["object"]["name"].as_str())
        .collect();
    assert_eq!(objects, ["shop-web"], "the configured release: {checked:#}");

    let explained = run(&["explain", "--format", "json", chart.to_str().unwrap()]);
    let explained: Value = serde_json::from_slice(&explained.stdout).expect("explain writes JSON");
    let pods = explained["pods"].as_array().unwrap();
    assert_eq!(pods.len(), 1, "{explained:#}");
    assert_eq!(pods[0]["object"]["name"], "shop-web", "{explained:#}");
    assert!(
        in_template(pods[0]["file"].as_str().unwrap()),
        "{explained:#}"
    );
    let mut by_explain = found_in_template(&pods[0]["findings"]);

    let mut client = Client::start(capabilities(true));
    let document = uri(&template.display().to_string());
    client.open(&document, 1, &std::fs::read_to_string(&template).unwrap());
    let published = client.diagnostics(&document, Some(1));
    client.shutdown();
    let mut by_editor: Vec<Found> = published
        .diagnostics
        .iter()
        .map(|d| {
            let Some(NumberOrString::String(rule)) = &d.code else {
                panic!("a rule name: {d:?}");
            };
            // The editor's message goes on with the help and notes, a line each.
            let message = d.message.lines().next().unwrap_or_default().to_owned();
            let start = d.range.start;
            (
                rule.clone(),
                u64::from(start.line) + 1,
                u64::from(start.character) + 1,
                message,
            )
        })
        .collect();

    for findings in [&mut by_check, &mut by_explain, &mut by_editor] {
        findings.sort();
    }
    assert!(
        by_check.iter().any(
            |(rule, _, _, message)| rule == "prestop-exceeds-grace-period"
                && message.contains("(30s)")
        ),
        "the values file sets the grace period: {by_check:#?}"
    );
    assert_eq!(by_explain, by_check, "explain and check disagree");
    assert_eq!(by_editor, by_check, "the editor and check disagree");
}

/// A finding of `check --format json` or `explain --format json`.
fn found(finding: &Value) -> Found {
    (
        finding["rule"].as_str().unwrap().to_owned(),
        finding["line"].as_u64().unwrap(),
        finding["column"].as_u64().unwrap(),
        finding["message"].as_str().unwrap().to_owned(),
    )
}

/// An overlay that `kustomize build` refuses (a patch that is not there): `check` reports the
/// refusal as `render-error` on the kustomization, and the editor publishes the same there when
/// the kustomization is open, beside the kustomization's own findings.
fn the_editor_publishes_an_overlays_refusal_on_its_kustomization() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    let kustomization = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - pod.yaml\npatches:\n  - path: missing-patch.yaml\n    target: {kind: Pod}\n";
    crate::common::write(&root, "overlay/kustomization.yaml", kustomization);
    crate::common::write(
        &root,
        "overlay/pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: nginx}]\n",
    );
    crate::tool::git(&root, &["add", "-A"]);
    let output = crate::common::podcycle()
        .current_dir(&root)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let checked: Value = serde_json::from_slice(&output.stdout).expect("check writes JSON");
    let mut by_check: Vec<Found> = checked
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["file"] == "overlay/kustomization.yaml")
        .map(found)
        .collect();
    assert!(
        by_check.iter().any(|f| f.0 == "render-error"),
        "check reports the refusal: {checked:#}"
    );

    let mut client = Client::start_with(lsp_types::InitializeParams {
        capabilities: capabilities(true),
        workspace_folders: Some(vec![lsp_types::WorkspaceFolder {
            uri: uri(root.to_str().unwrap()),
            name: "workspace".to_owned(),
        }]),
        ..lsp_types::InitializeParams::default()
    });
    let document = uri(root.join("overlay/kustomization.yaml").to_str().unwrap());
    client.open(&document, 1, kustomization);
    let published = client.diagnostics(&document, Some(1));
    // Closed, and a resource of the overlay saved: the overlay is rendered again and its
    // refusal published on the kustomization, which is not open.
    client.close(&document);
    client.diagnostics(&document, None);
    let pod = uri(root.join("overlay/pod.yaml").to_str().unwrap());
    client.open(
        &pod,
        1,
        &std::fs::read_to_string(root.join("overlay/pod.yaml")).unwrap(),
    );
    client.notify::<lsp_types::notification::DidSaveTextDocument>(
        lsp_types::DidSaveTextDocumentParams {
            text_document: lsp_types::TextDocumentIdentifier::new(pod.clone()),
            text: None,
        },
    );
    let on_save = client.diagnostics_until(&document, None, |p| !p.diagnostics.is_empty());
    client.shutdown();
    let rules_on_save: Vec<_> = on_save.diagnostics.iter().map(|d| d.code.clone()).collect();
    assert_eq!(
        rules_on_save,
        [Some(NumberOrString::String("render-error".to_owned()))]
    );
    let mut by_editor: Vec<Found> = published
        .diagnostics
        .iter()
        .map(|d| {
            let Some(NumberOrString::String(rule)) = &d.code else {
                panic!("a rule name: {d:?}");
            };
            // The editor's message goes on with the help and notes, a line each.
            let message = d.message.lines().next().unwrap_or_default().to_owned();
            let start = d.range.start;
            (
                rule.clone(),
                u64::from(start.line) + 1,
                u64::from(start.character) + 1,
                message,
            )
        })
        .collect();
    // The paths in a renderer's message are written from where each runs: `check` in the
    // workspace, the editor's server here.
    let prefix = format!("{}/", root.display());
    for finding in &mut by_editor {
        finding.3 = finding.3.replace(&prefix, "");
    }
    by_check.sort();
    by_editor.sort();
    assert_eq!(by_editor, by_check, "the editor and check disagree");
}

/// A chart whose template calls `fail`, and one whose `Chart.yaml` has a version that is not
/// one: `helm template` refuses both, and `check` reports `render-error` in the template at the line Helm names, and
/// on `Chart.yaml`. The editor publishes the same on each file when it is open.
fn the_editor_publishes_a_charts_refusal_where_helm_places_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    let failing = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n{{ fail \"the chart needs a region\" }}\n";
    crate::common::write(
        &root,
        "failing/Chart.yaml",
        "apiVersion: v2\nname: failing\nversion: 0.1.0\n",
    );
    crate::common::write(&root, "failing/templates/config.yaml", failing);
    let unversioned = "apiVersion: v2\nname: unversioned\nversion: not-a-version\n";
    crate::common::write(&root, "unversioned/Chart.yaml", unversioned);
    crate::common::write(
        &root,
        "unversioned/templates/config.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
    );
    crate::tool::git(&root, &["add", "-A"]);
    let output = crate::common::podcycle()
        .current_dir(&root)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let checked: Value = serde_json::from_slice(&output.stdout).expect("check writes JSON");
    let mut client = Client::start(capabilities(true));
    let prefix = format!("{}/", root.display());
    for (file, text) in [
        ("failing/templates/config.yaml", failing),
        ("unversioned/Chart.yaml", unversioned),
    ] {
        let mut by_check: Vec<Found> = checked
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["file"] == file)
            .map(found)
            .collect();
        assert!(
            by_check.iter().any(|f| f.0 == "render-error"),
            "check reports the refusal in {file}: {checked:#}"
        );
        let document = uri(root.join(file).to_str().unwrap());
        client.open(&document, 1, text);
        let mut by_editor: Vec<Found> = client
            .diagnostics(&document, Some(1))
            .diagnostics
            .iter()
            .map(|d| {
                let Some(NumberOrString::String(rule)) = &d.code else {
                    panic!("a rule name: {d:?}");
                };
                // The first line of the message; paths as written from where each runs.
                let message = d.message.lines().next().unwrap_or_default();
                (
                    rule.clone(),
                    u64::from(d.range.start.line) + 1,
                    u64::from(d.range.start.character) + 1,
                    message.replace(&prefix, ""),
                )
            })
            .collect();
        by_check.sort();
        by_editor.sort();
        assert_eq!(
            by_editor, by_check,
            "the editor and check disagree on {file}"
        );
    }
    client.shutdown();
}
