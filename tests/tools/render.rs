//! Helm charts and Kustomize overlays rendered by the real tools, with findings reported at
//! the template, base or patch line that wrote them (`testdata/render/`). Every test here needs
//! `helm` and `kustomize` (or `kubectl`) on `PATH`; what happens without them is tested in
//! `tests/it/render.rs`.

use std::path::Path;
use std::process::Output;

use libtest_mimic::Trial;
use serde_json::Value;

use crate::common::{check, code, stderr, stdout};
use crate::tool::{Tool, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "render::values_that_feed_the_grace_period_and_prestop_are_labelled",
            values_that_feed_the_grace_period_and_prestop_are_labelled,
        ),
        needs(
            Tool::Renderers,
            "render::a_library_chart_helper_and_a_dependency_are_placed_in_their_own_files",
            a_library_chart_helper_and_a_dependency_are_placed_in_their_own_files,
        ),
        needs(
            Tool::Renderers,
            "render::an_overlay_patch_that_conflicts_with_its_base_labels_both_sides",
            an_overlay_patch_that_conflicts_with_its_base_labels_both_sides,
        ),
        needs(
            Tool::Renderers,
            "render::every_format_uses_the_same_mapping",
            every_format_uses_the_same_mapping,
        ),
        needs(
            Tool::Renderers,
            "render::a_template_named_on_the_command_line_is_linted_through_its_chart",
            a_template_named_on_the_command_line_is_linted_through_its_chart,
        ),
        needs(
            Tool::Renderers,
            "render::the_language_server_publishes_a_templates_findings_through_its_chart",
            the_language_server_publishes_a_templates_findings_through_its_chart,
        ),
        needs(
            Tool::Renderers,
            "render::what_cannot_be_placed_exactly_says_so",
            what_cannot_be_placed_exactly_says_so,
        ),
        needs(
            Tool::Renderers,
            "render::the_render_error_examples_are_what_helm_does",
            the_render_error_examples_are_what_helm_does,
        ),
    ]
}

fn json(output: &Output) -> Vec<Value> {
    serde_json::from_slice::<Value>(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(output), stderr(output)))
        .as_array()
        .expect("an array")
        .clone()
}

fn finding<'a>(items: &'a [Value], rule: &str, file_suffix: &str) -> &'a Value {
    items
        .iter()
        .find(|d| d["rule"] == rule && d["file"].as_str().is_some_and(|f| f.ends_with(file_suffix)))
        .unwrap_or_else(|| panic!("no {rule} in {file_suffix}: {items:#?}"))
}

/// `(file, line, message)` of each label.
fn labels(diagnostic: &Value) -> Vec<(String, u64, String)> {
    diagnostic["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["file"].as_str().unwrap().to_owned(),
                l["line"].as_u64().unwrap(),
                l["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn values_that_feed_the_grace_period_and_prestop_are_labelled() {
    let output = check(&["--format", "json", "testdata/render/web"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "web/templates/deployment.yaml",
    );
    // The preStop came from `toYaml .` inside `with .Values.lifecycle`: the action's line.
    assert_eq!(
        (prestop["line"].as_u64(), prestop["column"].as_u64()),
        (Some(22), Some(13))
    );
    assert_eq!(
        prestop["rendered"],
        serde_json::json!({"tool": "helm", "input": "testdata/render/web", "placement": "exact"})
    );
    assert_eq!(
        labels(prestop),
        [
            (
                "testdata/render/web/templates/deployment.yaml".to_owned(),
                16,
                "grace period of 20s set here".to_owned()
            ),
            (
                "testdata/render/web/values.yaml".to_owned(),
                5,
                "`.Values.lifecycle.preStop` is set here".to_owned()
            ),
            (
                "testdata/render/web/values.yaml".to_owned(),
                3,
                "`.Values.pod.gracePeriod` is set here".to_owned()
            ),
        ]
    );
    // The grace period label points at the expression that wrote it.
    let grace = &prestop["labels"][0];
    assert_eq!(
        (grace["column"].as_u64(), grace["end_column"].as_u64()),
        (Some(38), Some(67))
    );

    // A values file given for the run overrides the chart's: it gets the label.
    let output = check(&[
        "--format",
        "json",
        "--helm-values",
        "testdata/render/web/values-prod.yaml",
        "testdata/render/web",
    ]);
    let items = json(&output);
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "web/templates/deployment.yaml",
    );
    assert!(
        prestop["message"]
            .as_str()
            .unwrap()
            .contains("`terminationGracePeriodSeconds` (30s)")
    );
    assert!(
        labels(prestop).contains(&(
            "testdata/render/web/values-prod.yaml".to_owned(),
            2,
            "`.Values.pod.gracePeriod` is set here".to_owned()
        )),
        "{prestop:#}"
    );
}

fn a_library_chart_helper_and_a_dependency_are_placed_in_their_own_files() {
    let output = check(&["--format", "json", "testdata/render/platform"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    // The library chart's `define` wrote the probe.
    let port = finding(
        &items,
        "undeclared-port",
        "charts/common/templates/_deployment.tpl",
    );
    assert_eq!(
        (port["line"].as_u64(), port["column"].as_u64()),
        (Some(21), Some(21))
    );
    // The dependency's template, with its value overridden by the parent's values.
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "charts/worker/templates/worker.yaml",
    );
    assert_eq!(prestop["line"].as_u64(), Some(19));
    assert!(
        labels(prestop).contains(&(
            "testdata/render/platform/values.yaml".to_owned(),
            2,
            "`.Values.gracePeriod` is set here".to_owned()
        )),
        "{prestop:#}"
    );
}

fn an_overlay_patch_that_conflicts_with_its_base_labels_both_sides() {
    let output = check(&["--format", "json", "testdata/render/shop"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    let prestop: Vec<&Value> = items
        .iter()
        .filter(|d| d["rule"] == "prestop-exceeds-grace-period")
        .collect();
    assert_eq!(prestop.len(), 1, "reported once: {items:#?}");
    let prestop = prestop[0];
    assert_eq!(prestop["file"], "testdata/render/shop/base/deployment.yaml");
    assert_eq!(prestop["line"].as_u64(), Some(19));
    assert_eq!(prestop["rendered"]["tool"], "kustomize");
    assert_eq!(
        labels(prestop),
        [
            (
                "testdata/render/shop/overlays/prod/grace-patch.yaml".to_owned(),
                8,
                "grace period of 10s set here (by this patch)".to_owned()
            ),
            (
                "testdata/render/shop/base/deployment.yaml".to_owned(),
                14,
                "a patch overrides the value `60` set here".to_owned()
            ),
        ]
    );
    // The component's inline JSON patch added the probe: its line in the kustomization.
    let port = finding(
        &items,
        "undeclared-port",
        "components/probes/kustomization.yaml",
    );
    assert_eq!(
        (port["line"].as_u64(), port["column"].as_u64()),
        (Some(10), Some(35))
    );
}

fn every_format_uses_the_same_mapping() {
    let concise = stdout(&check(&["--format", "concise", "testdata/render/web"]));
    assert!(
        concise.contains("testdata/render/web/templates/deployment.yaml:22:13: error[prestop-exceeds-grace-period]"),
        "{concise}"
    );
    let full = stdout(&check(&["--format", "full", "testdata/render/web"]));
    assert!(
        full.contains("--> testdata/render/web/templates/deployment.yaml:22:13"),
        "{full}"
    );
    assert!(
        full.contains("::: testdata/render/web/values.yaml:3:3"),
        "{full}"
    );
    assert!(
        full.contains("found in the output of `helm template testdata/render/web`"),
        "{full}"
    );
    let github = stdout(&check(&["--format", "github", "testdata/render/web"]));
    assert!(
        github.contains(
            "::error file=testdata/render/web/templates/deployment.yaml,line=22,endLine=22,col=13"
        ),
        "{github}"
    );
    let sarif: Value =
        serde_json::from_slice(&check(&["--format", "sarif", "testdata/render/web"]).stdout)
            .unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(
        result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "testdata/render/web/templates/deployment.yaml"
    );
    let related: Vec<&str> = result["relatedLocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            l["physicalLocation"]["artifactLocation"]["uri"]
                .as_str()
                .unwrap()
        })
        .collect();
    assert!(
        related.contains(&"testdata/render/web/values.yaml"),
        "{related:?}"
    );
    let junit = stdout(&check(&["--format", "junit", "testdata/render/web"]));
    assert!(
        junit.contains("testdata/render/web/templates/deployment.yaml:22:13"),
        "{junit}"
    );
}

fn a_template_named_on_the_command_line_is_linted_through_its_chart() {
    let output = check(&[
        "--format",
        "concise",
        "testdata/render/web/templates/deployment.yaml",
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(!text.contains("yaml-syntax"), "{text}");
    assert!(
        text.starts_with("testdata/render/web/templates/deployment.yaml:22:13:"),
        "{text}"
    );
    // The helper file has no finding of its own: nothing is reported for it.
    let output = check(&[
        "--format",
        "concise",
        "testdata/render/web/templates/_helpers.tpl",
    ]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
}

fn the_language_server_publishes_a_templates_findings_through_its_chart() {
    use podcycle::run::{Configs, EditorPlan, EditorRender, RunOptions};
    let template = Path::new("testdata/render/web/templates/deployment.yaml");
    let text = std::fs::read_to_string(template).unwrap();
    let options = RunOptions::default();
    let plan = EditorPlan::new(&options, &mut Configs::nearest(), Some(template));
    let Some(EditorRender::Findings(found)) = plan.rendered_findings(&options, template, &text)
    else {
        panic!("the chart renders");
    };
    assert_eq!(found.len(), 1, "{found:#?}");
    let file = podcycle::source::SourceFile::new("deployment.yaml", text.clone());
    assert_eq!(file.line_col(found[0].span.start).line, 22);
    // The values label points into values.yaml, which the editor links to.
    let values = found[0]
        .labels
        .iter()
        .find_map(|l| l.file.as_ref())
        .expect("a label in the values file");
    assert!(
        values.path.ends_with("testdata/render/web/values.yaml"),
        "{}",
        values.path
    );
    // Unsaved changes: nothing is claimed about a text the renderer has not seen.
    let edited = format!("{text}# editing\n");
    assert!(matches!(
        plan.rendered_findings(&options, template, &edited),
        Some(EditorRender::Unavailable(_))
    ));
    // A manifest that is neither a template nor a patch is linted as it is.
    let manifest = Path::new("testdata/cli/bad.yaml");
    let plan = EditorPlan::new(&options, &mut Configs::nearest(), Some(manifest));
    assert!(plan.rendered_findings(&options, manifest, "").is_none());
}

fn what_cannot_be_placed_exactly_says_so() {
    // Two `tpl` actions could each have written the grace period: no guess.
    let output = check(&["--format", "json", "testdata/render/generated"]);
    let items = json(&output);
    let grace = finding(
        &items,
        "zero-grace-period",
        "generated/templates/deployment.yaml",
    );
    assert_eq!(grace["rendered"]["placement"], "object");
    assert_eq!(grace["line"].as_u64(), Some(2), "the object's `kind:` line");
    assert_eq!(
        grace["field"],
        "spec.template.spec.terminationGracePeriodSeconds"
    );
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "generated/templates/deployment.yaml",
    );
    assert_eq!(prestop["rendered"]["placement"], "exact");
    assert!(
        prestop["notes"].as_array().unwrap().iter().any(|n| n
            .as_str()
            .unwrap()
            .contains("podcycle cannot place it in the chart")),
        "{prestop:#}"
    );
    let full = stdout(&check(&["testdata/render/generated"]));
    assert!(
        full.contains("podcycle cannot place `spec.template.spec.terminationGracePeriodSeconds` exactly in this file; it points at the declaration of Deployment/generated"),
        "{full}"
    );
}

/// The examples of `render-error` are chart templates: the first, rendered by Helm, is a
/// finding of the rule; the fixes are not.
fn the_render_error_examples_are_what_helm_does() {
    let rule = podcycle::rules::find_rule("render-error").unwrap();
    let examples = podcycle::docs::yaml_examples(rule);
    assert!(examples.len() >= 2, "a failing example and a fix");
    for (index, example) in examples.iter().enumerate() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("web");
        std::fs::create_dir_all(chart.join("templates")).unwrap();
        std::fs::write(
            chart.join("Chart.yaml"),
            "apiVersion: v2\nname: web\nversion: 1.0.0\n",
        )
        .unwrap();
        std::fs::write(chart.join("templates/deployment.yaml"), example).unwrap();
        let output = crate::common::podcycle()
            .current_dir(dir.path())
            .args([
                "check",
                "--select",
                "render-error",
                "--format",
                "json",
                "web",
            ])
            .output()
            .unwrap();
        let found = json(&output);
        if index == 0 {
            assert_eq!(found.len(), 1, "the example triggers it: {found:#?}");
            assert_eq!(found[0]["rule"], "render-error");
            assert_eq!(found[0]["file"], "web/templates/deployment.yaml");
        } else {
            assert!(
                found.is_empty(),
                "fix #{index} still triggers it: {found:#?}"
            );
            assert!(
                !stderr(&output).contains("not rendered"),
                "{}",
                stderr(&output)
            );
        }
    }
}
