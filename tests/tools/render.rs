//! Helm charts and Kustomize overlays rendered by the real tools, with findings reported at
//! the template, base or patch line that wrote them (`testdata/render/`). Every test here needs
//! `helm` and `kustomize` (or `kubectl`) on `PATH`; what happens without them is tested in
//! `tests/it/render.rs`.

use std::path::{Path, PathBuf};
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
            "render::a_file_dependency_in_the_repository_is_staged_as_helm_dependency_build_would",
            a_file_dependency_in_the_repository_is_staged_as_helm_dependency_build_would,
        ),
        needs(
            Tool::Renderers,
            "render::a_file_dependency_outside_the_repository_is_refused",
            a_file_dependency_outside_the_repository_is_refused,
        ),
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
            "render::a_changed_chart_or_overlay_file_reports_its_owners_findings",
            a_changed_chart_or_overlay_file_reports_its_owners_findings,
        ),
        needs(
            Tool::Renderers,
            "render::a_changed_values_file_of_a_clean_chart_says_the_chart_is_clean",
            a_changed_values_file_of_a_clean_chart_says_the_chart_is_clean,
        ),
        needs(
            Tool::Renderers,
            "render::kustomizes_messages_name_paths_as_users_write_them",
            kustomizes_messages_name_paths_as_users_write_them,
        ),
        needs(
            Tool::Renderers,
            "render::the_notes_name_the_renderer_that_ran",
            the_notes_name_the_renderer_that_ran,
        ),
        needs(
            Tool::Renderers,
            "render::the_load_restrictor_is_kustomizes_and_the_screens_still_apply",
            the_load_restrictor_is_kustomizes_and_the_screens_still_apply,
        ),
        needs(
            Tool::Renderers,
            "render::the_language_server_publishes_a_charts_findings_when_its_values_are_saved",
            the_language_server_publishes_a_charts_findings_when_its_values_are_saved,
        ),
        needs(
            Tool::Renderers,
            "render::a_chart_rendered_for_two_releases_names_each",
            a_chart_rendered_for_two_releases_names_each,
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
        needs(
            Tool::Renderers,
            "render::a_second_run_reuses_renders_and_reports_the_same",
            a_second_run_reuses_renders_and_reports_the_same,
        ),
        needs(
            Tool::Renderers,
            "render::a_second_run_reuses_refusals_and_renders_what_the_environment_stopped",
            a_second_run_reuses_refusals_and_renders_what_the_environment_stopped,
        ),
        needs(
            Tool::Renderers,
            "render::an_overlay_is_built_with_metadata_only_to_place_findings",
            an_overlay_is_built_with_metadata_only_to_place_findings,
        ),
        needs(
            Tool::Renderers,
            "render::an_overlay_is_judged_as_deployed_when_build_metadata_changes_its_build",
            an_overlay_is_judged_as_deployed_when_build_metadata_changes_its_build,
        ),
        needs(
            Tool::Renderers,
            "render::a_json_patch_that_appends_a_container_is_credited_with_it_alone",
            a_json_patch_that_appends_a_container_is_credited_with_it_alone,
        ),
        needs(
            Tool::Renderers,
            "render::renderer_warnings_are_counted_once_per_renderer",
            renderer_warnings_are_counted_once_per_renderer,
        ),
        needs(
            Tool::Renderers,
            "render::a_duplicate_key_in_a_chart_says_nothing_of_kustomize",
            a_duplicate_key_in_a_chart_says_nothing_of_kustomize,
        ),
        needs(
            Tool::Renderers,
            "render::fix_says_why_an_overlays_findings_are_not_fixed",
            fix_says_why_an_overlays_findings_are_not_fixed,
        ),
    ]
}

/// `--fix` on an overlay's patch (here inline in its kustomization): the findings are the
/// overlay build's, which no fix is written for, and the closing line says so rather than only
/// "Fixed 0 findings".
fn fix_says_why_an_overlays_findings_are_not_fixed() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(Path::new("testdata/render/sidecar-add"), dir.path());
    let output = crate::common::podcycle()
        .current_dir(dir.path())
        .args([
            "check",
            "--no-cache",
            "--fix",
            "overlays/prod/kustomization.yaml",
        ])
        .output()
        .unwrap();
    let out = stdout(&output) + &stderr(&output);
    assert!(
        out.contains("Fixed 0 findings in 0 files; 2 findings of Helm charts and Kustomize overlays not fixed: they are found in the rendered output"),
        "{out}"
    );
}

/// A chart is rendered by Helm: what `kustomize build` would do is no concern of its findings.
fn a_duplicate_key_in_a_chart_says_nothing_of_kustomize() {
    let output = check(&[
        "--format",
        "json",
        "--no-cache",
        "testdata/render/duplicated",
    ]);
    let items = json(&output);
    let duplicate = finding(&items, "duplicate-key", "templates/deployment.yaml");
    assert_eq!(
        duplicate["message"],
        "`app` is written twice: `kubectl apply -f` keeps only the last value"
    );
}

/// Kustomize prints a deprecation for every kustomization that has one: counted once per
/// renderer, shown with `--verbose`.
fn renderer_warnings_are_counted_once_per_renderer() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let base = std::fs::read_to_string("testdata/render/sidecar-add/base/deployment.yaml")
        .unwrap()
        .replace("seconds: 30", "seconds: 5");
    crate::common::write(root, "base/deployment.yaml", &base);
    crate::common::write(
        root,
        "base/kustomization.yaml",
        "resources:\n  - deployment.yaml\n",
    );
    for overlay in ["a", "b", "c"] {
        crate::common::write(
            root,
            &format!("{overlay}/kustomization.yaml"),
            "bases:\n  - ../base\ncommonLabels:\n  tier: web\n",
        );
    }
    let run = |verbose: bool| {
        let mut command = crate::common::podcycle();
        command.current_dir(root).args(["check", "--no-cache"]);
        if verbose {
            command.arg("--verbose");
        }
        command.output().unwrap()
    };
    let output = run(false);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "podcycle: warning: kustomize printed 6 deprecation warnings; `--verbose` shows them\n"
    );
    let verbose = stderr(&run(true));
    assert_eq!(verbose.lines().count(), 6, "{verbose}");
    assert!(
        verbose.contains("podcycle: warning: kustomize a: # Warning: 'bases' is deprecated."),
        "{verbose}"
    );
}

/// A JSON 6902 `add` to `containers/-` writes the container it adds, not the base's: the
/// base's finding stays in the base, reported once, with no patch said to override it.
fn a_json_patch_that_appends_a_container_is_credited_with_it_alone() {
    let output = check(&[
        "--format",
        "json",
        "--no-cache",
        "testdata/render/sidecar-add",
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    let placed: Vec<(String, u64)> = items
        .iter()
        .map(|d| {
            assert_eq!(d["rule"], "prestop-exceeds-grace-period", "{d:#}");
            assert!(
                !labels(d).iter().any(|(_, _, m)| m.contains("patch")),
                "{d:#}"
            );
            (
                d["file"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        placed,
        [
            (
                "testdata/render/sidecar-add/base/deployment.yaml".to_owned(),
                17
            ),
            (
                "testdata/render/sidecar-add/overlays/prod/kustomization.yaml".to_owned(),
                14
            ),
        ]
    );
}

pub fn json(output: &Output) -> Vec<Value> {
    serde_json::from_slice::<Value>(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(output), stderr(output)))
        .as_array()
        .expect("an array")
        .clone()
}

pub fn finding<'a>(items: &'a [Value], rule: &str, file_suffix: &str) -> &'a Value {
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
    // The component's inline JSON patch added the probe: its line in the kustomization, at the
    // port's value `http`, as in a plain file.
    let port = finding(
        &items,
        "undeclared-port",
        "components/probes/kustomization.yaml",
    );
    assert_eq!(
        (port["line"].as_u64(), port["column"].as_u64()),
        (Some(10), Some(41))
    );
}

fn every_format_uses_the_same_mapping() {
    let concise = stdout(&check(&["--format", "concise", "testdata/render/web"]));
    assert!(
        concise.contains("testdata/render/web/templates/deployment.yaml:22:13: error[prestop-exceeds-grace-period]"),
        "{concise}"
    );
    // Where the values were set, which the full format labels, on the same line.
    assert!(
        concise.contains(" (values set at testdata/render/web/values.yaml:5:3, testdata/render/web/values.yaml:3:16)\n"),
        "{concise}"
    );
    let full = stdout(&check(&["--format", "full", "testdata/render/web"]));
    assert!(
        full.contains("--> testdata/render/web/templates/deployment.yaml:22:13"),
        "{full}"
    );
    assert!(
        full.contains("::: testdata/render/web/values.yaml:3:16"),
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
    // A helper renders nothing of its own but can change every template: the chart is
    // reported whole.
    let output = check(&[
        "--format",
        "concise",
        "testdata/render/web/templates/_helpers.tpl",
    ]);
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    assert!(
        stdout(&output).starts_with("testdata/render/web/templates/deployment.yaml:22:13:"),
        "{}",
        stdout(&output)
    );
}

/// What pre-commit runs (`.pre-commit-hooks.yaml`) on the files of one commit: a change to a
/// chart's values, metadata, helper or `files/`, or to an overlay's patch or base resource,
/// reports what the chart or overlay now renders, where it was written.
fn a_changed_chart_or_overlay_file_reports_its_owners_findings() {
    let hook = |file: &str| {
        let output = check(&["--force-exclude", "--format", "concise", file]);
        assert_eq!(code(&output), 1, "{file}: {}", stdout(&output));
        stdout(&output)
    };
    for file in [
        "values.yaml",
        "Chart.yaml",
        "templates/_helpers.tpl",
        "files/lifecycle.yaml",
    ] {
        let file = format!("testdata/render/changed/{file}");
        let text = hook(&file);
        assert!(
            text.starts_with("testdata/render/changed/templates/deployment.yaml:18:1: error[prestop-exceeds-grace-period]"),
            "{file}: {text}"
        );
        assert!(
            text.contains(&format!(
                "Helm chart testdata/render/changed rendered for {file}: 1 finding\n"
            )),
            "{text}"
        );
    }
    for file in ["overlays/prod/grace-patch.yaml", "base/deployment.yaml"] {
        let file = format!("testdata/render/shop/{file}");
        let text = hook(&file);
        assert!(
            text.contains("testdata/render/shop/base/deployment.yaml:19:13: error[prestop-exceeds-grace-period]"),
            "{file}: {text}"
        );
        assert!(
            text.contains(&format!(
                "Kustomize overlay testdata/render/shop/overlays/prod rendered for {file}: 2 findings\n"
            )),
            "{text}"
        );
    }
    // The values label of the finding points into the values file, as for a walked chart.
    let output = check(&["--format", "json", "testdata/render/changed/values.yaml"]);
    let items = json(&output);
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "templates/deployment.yaml",
    );
    assert!(
        labels(prestop)
            .iter()
            .any(|(file, line, _)| file == "testdata/render/changed/values.yaml" && *line == 2),
        "{prestop:#}"
    );
}

fn a_changed_values_file_of_a_clean_chart_says_the_chart_is_clean() {
    let sarif: Value = serde_json::from_slice(
        &check(&["--format", "sarif", "testdata/render/clean/values.yaml"]).stdout,
    )
    .unwrap();
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"],
        serde_json::json!([{
            "level": "note",
            "message": {"text": "Helm chart testdata/render/clean rendered for testdata/render/clean/values.yaml: no problems found."}
        }])
    );
    let output = check(&["--format", "concise", "testdata/render/clean/values.yaml"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "No problems found in 1 Helm chart.\n\
         1 chart file (values, Chart.yaml, files/) read only through the rendered chart\n\
         Helm chart testdata/render/clean rendered for testdata/render/clean/values.yaml: no problems found\n"
    );
}

/// Kustomize names the overlay as podcycle's temporary kustomization reaches it
/// (`'../../<checkout>/over'`) and other files by absolute path; the messages name them as
/// users do, from where podcycle runs.
fn kustomizes_messages_name_paths_as_users_write_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    crate::common::write(
        &root,
        "base/kustomization.yaml",
        "resources: [d.yaml, gone.yaml]\n",
    );
    crate::common::write(
        &root,
        "base/d.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    );
    crate::common::write(
        &root,
        "over/kustomization.yaml",
        "resources: [../base]\nnamePrefix: x-\n",
    );
    crate::common::write(
        &root,
        "bad/kustomization.yaml",
        "resources: [../base]\nnamePrefix: [x]\n",
    );
    let run = |cwd: &Path, dir: &str| {
        let output = crate::common::podcycle()
            .current_dir(cwd)
            .args(["check", "--format", "concise", dir])
            .output()
            .unwrap();
        format!("{}{}", stdout(&output), stderr(&output))
    };
    let root_text = root.to_string_lossy().into_owned();
    // A file of the base, from inside the overlay: relative, with `..`.
    let text = run(&root.join("over"), ".");
    assert!(
        text.contains("evalsymlink failure on '../base/gone.yaml'"),
        "{text}"
    );
    assert!(!text.contains(&format!("{root_text}/base/gone")), "{text}");
    // The overlay itself, as it was named, where its kustomization is refused.
    let text = run(&root, "bad");
    assert!(
        text.contains("bad/kustomization.yaml:1:1: error[render-error] `kustomize build` fails: invalid Kustomization"),
        "{text}"
    );
    assert!(!text.contains("podcycle-kustomize"), "{text}");
    assert!(!text.contains("../"), "{text}");
}

/// With only kubectl, overlays are built with `kubectl kustomize`, and the notes and help say
/// so. A `kubectl` that runs the `kustomize` on PATH stands in for it here.
fn the_notes_name_the_renderer_that_ran() {
    use std::os::unix::fs::PermissionsExt;
    let kustomize = std::env::split_paths(&std::env::var_os("PATH").unwrap())
        .map(|dir| dir.join("kustomize"))
        .find(|path| path.is_file());
    let Some(kustomize) = kustomize else {
        // Only kubectl is installed: it is the renderer already.
        let output = check(&["testdata/render/shop"]);
        assert!(stdout(&output).contains("`kubectl kustomize testdata/render/shop/overlays/prod`"));
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let kubectl = dir.path().join("kubectl");
    std::fs::write(
        &kubectl,
        format!(
            "#!/bin/sh\nshift\nexec '{}' build \"$@\"\n",
            kustomize.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&kubectl, std::fs::Permissions::from_mode(0o755)).unwrap();
    let kubectl = kubectl.to_string_lossy().into_owned();
    // A script cannot start under the render confinement (its interpreter is not on the
    // allowlist): this stand-in renders unconfined.
    let check = |args: &[&str]| {
        crate::common::podcycle()
            .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
            .arg("check")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap()
    };
    let output = check(&["--kustomize", &kubectl, "testdata/render/shop"]);
    let text = stdout(&output);
    assert!(
        text.contains(
            "note: found in the output of `kubectl kustomize testdata/render/shop/overlays/prod`"
        ),
        "{text}"
    );
    assert!(!text.contains("kustomize build"), "{text}");
    let refused = tempfile::tempdir().unwrap();
    crate::common::write(
        refused.path(),
        "o/kustomization.yaml",
        "resources: [gone.yaml]\n",
    );
    let overlay = refused.path().join("o");
    let output = check(&["--kustomize", &kubectl, overlay.to_str().unwrap()]);
    let text = stdout(&output);
    assert!(text.contains("`kubectl kustomize` fails:"), "{text}");
    assert!(
        text.contains("help: build the overlay with `kubectl kustomize "),
        "{text}"
    );
}

/// `kustomize.load-restrictor: LoadRestrictionsNone` builds an overlay whose patch is shared
/// from a sibling directory, as the repository's own `--load-restrictor` does; a file outside
/// the repository or in `.git` is still refused before Kustomize runs.
fn the_load_restrictor_is_kustomizes_and_the_screens_still_apply() {
    use crate::common::write;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    crate::tool::git_init(&root);
    write(
        &root,
        "base/kustomization.yaml",
        "resources: [deploy.yaml]\n",
    );
    write(
        &root,
        "base/deploy.yaml",
        &std::fs::read_to_string("testdata/render/shop/base/deployment.yaml").unwrap(),
    );
    let patch =
        std::fs::read_to_string("testdata/render/shop/overlays/prod/grace-patch.yaml").unwrap();
    write(&root, "shared/grace.yaml", &patch);
    write(
        &root,
        "prod/kustomization.yaml",
        "resources: [../base]\npatches: [{path: ../shared/grace.yaml}]\n",
    );
    let run = |dir: &str| {
        let output = crate::common::podcycle()
            .current_dir(&root)
            .args(["check", "--format", "concise", dir])
            .output()
            .unwrap();
        (
            code(&output),
            format!("{}{}", stdout(&output), stderr(&output)),
        )
    };
    // Kustomize's default: the patch is not below the overlay.
    let (status, text) = run("prod");
    assert_eq!(status, 1, "{text}");
    assert!(text.contains("error[render-error]"), "{text}");
    assert!(text.contains("is not in or below 'prod'"), "{text}");
    write(
        &root,
        ".podcycle.yaml",
        "kustomize:\n  load-restrictor: LoadRestrictionsNone\n",
    );
    let (status, text) = run("prod");
    assert_eq!(status, 1, "{text}");
    assert!(
        text.contains("base/deploy.yaml:19:13: error[prestop-exceeds-grace-period]"),
        "{text}"
    );
    // Outside the repository, or in .git: refused all the same, and Kustomize never runs.
    write(dir.path(), "outside.yaml", &patch);
    write(&root, ".git/grace.yaml", &patch);
    for (path, why) in [
        ("../../outside.yaml", "outside the repository"),
        ("../.git/grace.yaml", "inside a `.git` directory"),
    ] {
        write(
            &root,
            "prod/kustomization.yaml",
            &format!("resources: [../base]\npatches: [{{path: {path}}}]\n"),
        );
        let (_, text) = run("prod");
        assert!(
            text.contains("Kustomize overlay prod not rendered:"),
            "{text}"
        );
        assert!(text.contains(why), "{path}: {text}");
    }
}

/// Saving a chart's values file in the editor renders the chart, as pre-commit does, and
/// publishes its findings in the template that wrote them.
fn the_language_server_publishes_a_charts_findings_when_its_values_are_saved() {
    use crate::lsp_client::{Client, capabilities, uri};
    use lsp_types::notification::DidSaveTextDocument;
    let absolute = |path: &str| {
        std::fs::canonicalize(path)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    let values = uri(&absolute("testdata/render/changed/values.yaml"));
    let template = uri(&absolute(
        "testdata/render/changed/templates/deployment.yaml",
    ));
    let mut client = Client::start(capabilities(true));
    let text = std::fs::read_to_string("testdata/render/changed/values.yaml").unwrap();
    client.open(&values, 1, &text);
    client.notify::<DidSaveTextDocument>(lsp_types::DidSaveTextDocumentParams {
        text_document: lsp_types::TextDocumentIdentifier::new(values.clone()),
        text: None,
    });
    let published = client.diagnostics(&template, None);
    assert_eq!(published.diagnostics.len(), 1, "{published:#?}");
    let diagnostic = &published.diagnostics[0];
    assert_eq!(
        diagnostic.code,
        Some(lsp_types::NumberOrString::String(
            "prestop-exceeds-grace-period".to_owned()
        ))
    );
    assert_eq!(diagnostic.range.start.line, 17);
    client.shutdown();
}

/// A chart rendered once per `helm.charts` entry: each finding names the release, namespace
/// and values files that found it, and a finding both renderings share names both.
fn a_chart_rendered_for_two_releases_names_each() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    crate::tool::git_init(root);
    for file in [
        "Chart.yaml",
        "values.yaml",
        "values-prod.yaml",
        "templates/deployment.yaml",
        "templates/_helpers.tpl",
    ] {
        let text = std::fs::read_to_string(Path::new("testdata/render/web").join(file)).unwrap();
        crate::common::write(root, &format!("web/{file}"), &text);
    }
    crate::common::write(
        root,
        ".podcycle.yaml",
        "helm:\n  charts:\n    - path: web\n      release: web\n    - path: web\n      release: web-prod\n      namespace: prod\n      values: [web/values-prod.yaml]\n    - path: web\n      release: web-copy\n",
    );
    let output = crate::common::podcycle()
        .current_dir(root)
        .args(["check", "--format", "json", "web"])
        .output()
        .unwrap();
    let items = json(&output);
    let notes = |grace: &str| -> Vec<String> {
        let found = items
            .iter()
            .find(|d| d["message"].as_str().unwrap().contains(grace))
            .unwrap_or_else(|| panic!("{items:#?}"));
        found["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect()
    };
    // The default values find a grace period of 20s, in two releases.
    let default = notes("(20s)");
    assert!(
        default.contains(&"rendered as release `web`".to_owned()),
        "{default:?}"
    );
    assert!(
        default.contains(&"rendered as release `web-copy`".to_owned()),
        "{default:?}"
    );
    assert_eq!(
        notes("(30s)"),
        ["rendered as release `web-prod` in namespace `prod` with web/values-prod.yaml"]
    );
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

/// Copies the directory `from` to `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// Helm and Kustomize behind wrappers that note each run in one log, for counting what a
/// `podcycle check` started.
struct LoggedRenderers {
    dir: tempfile::TempDir,
    log: PathBuf,
    helm: PathBuf,
    kustomize: PathBuf,
}

impl LoggedRenderers {
    fn new() -> LoggedRenderers {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("runs.log");
        let real = |name: &str| {
            let path = podcycle::render::process::find_executable(Path::new(name)).unwrap();
            format!("exec '{}' \"$@\"", path.display())
        };
        let helm = logged_script(dir.path(), "helm", &log, &real("helm"));
        let kustomize = logged_script(dir.path(), "kustomize", &log, &real("kustomize"));
        LoggedRenderers {
            dir,
            log,
            helm,
            kustomize,
        }
    }

    /// A program named `name` that notes its run in the log, then runs `body` (shell).
    fn script(&self, name: &str, body: &str) -> PathBuf {
        logged_script(self.dir.path(), name, &self.log, body)
    }

    /// How many times the program named `name` ran.
    fn runs(&self, name: &str) -> usize {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter(|line| *line == name)
            .count()
    }

    /// `podcycle check --format json` in `root` with these renderers, the render cache at its
    /// default place, `extra` arguments, and `.`.
    fn check(&self, root: &Path, extra: &[&str]) -> Output {
        // A script cannot start under the render confinement (its interpreter is not on the
        // allowlist, nor is the log it writes): these tests count runs, so they render
        // unconfined.
        crate::common::podcycle()
            .current_dir(root)
            .env_remove("PODCYCLE_CACHE_DIR")
            .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
            .args(["check", "--format", "json", "--helm"])
            .arg(&self.helm)
            .arg("--kustomize")
            .arg(&self.kustomize)
            .args(extra)
            .arg(".")
            .output()
            .unwrap()
    }
}

/// An executable `dir/name` that notes `name` in `log`, then runs `body` (shell).
fn logged_script(dir: &Path, name: &str, log: &Path, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!("#!/bin/sh\necho {name} >> '{}'\n{body}\n", log.display()),
    )
    .unwrap();
    std::fs::set_permissions(
        &path,
        <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o755),
    )
    .unwrap();
    path
}

/// A chart and an overlay rendered once are not rendered again while nothing they read
/// changes: the second run starts no renderer and reports exactly what the first did, labels
/// and placement included. A changed values file renders its chart again, and `--no-cache`
/// renders everything.
fn a_second_run_reuses_renders_and_reports_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    copy_tree(Path::new("testdata/render/web"), &root.join("web"));
    copy_tree(Path::new("testdata/render/shop"), &root.join("shop"));
    let renderers = LoggedRenderers::new();
    let runs = || (renderers.runs("helm"), renderers.runs("kustomize"));
    let check = |extra: &[&str]| renderers.check(&root, extra);
    let first = check(&[]);
    assert_eq!(code(&first), 1, "{}", stderr(&first));
    let (helm_runs, kustomize_runs) = runs();
    assert!(helm_runs >= 1 && kustomize_runs >= 1, "{:?}", runs());
    assert!(root.join(".podcycle_cache/CACHEDIR.TAG").is_file());
    let second = check(&[]);
    assert_eq!(
        runs(),
        (helm_runs, kustomize_runs),
        "nothing rendered again"
    );
    assert_eq!(stdout(&second), stdout(&first));
    assert_eq!(stderr(&second), stderr(&first));
    let items = json(&second);
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "base/deployment.yaml",
    );
    assert_eq!(prestop["rendered"]["tool"], "kustomize");
    assert_eq!(labels(prestop).len(), 2, "{prestop:#?}");
    // A values file changed: its chart only is rendered again.
    let values = root.join("web/values.yaml");
    let mut text = std::fs::read_to_string(&values).unwrap();
    text.push_str("# changed\n");
    std::fs::write(&values, text).unwrap();
    check(&[]);
    assert_eq!(runs(), (helm_runs + 1, kustomize_runs));
    let uncached = check(&["--no-cache"]);
    assert_eq!(runs(), (2 * helm_runs + 1, 2 * kustomize_runs));
    assert_eq!(stdout(&uncached), stdout(&first));
}

/// A chart or an overlay the renderer refuses (`{{ fail }}`, a kustomization listing a file
/// that is not there) is a `render-error` decided by what it reads: a second run starts no
/// renderer and reports the refusal exactly as the first did, temporary paths cleaned. What
/// the environment causes (here a network error) is rendered again on the next run.
fn a_second_run_reuses_refusals_and_renders_what_the_environment_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    let chart = root.join("web");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 1.0.0\n",
    )
    .unwrap();
    std::fs::write(
        chart.join("templates/zz.yaml"),
        "{{ fail \"drainSeconds is required\" }}\n",
    )
    .unwrap();
    let overlay = root.join("deploy/prod");
    std::fs::create_dir_all(&overlay).unwrap();
    std::fs::write(
        overlay.join("kustomization.yaml"),
        "resources:\n- config.yaml\npatches:\n- path: patch.yaml\n",
    )
    .unwrap();
    std::fs::write(
        overlay.join("patch.yaml"),
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  level: debug\n",
    )
    .unwrap();
    std::fs::write(
        overlay.join("config.yaml"),
        "apiVersion: v1\nmetadata:\n  name: settings\n",
    )
    .unwrap();
    let renderers = LoggedRenderers::new();
    let runs = || renderers.runs("helm") + renderers.runs("kustomize");
    let check = |extra: &[&str]| renderers.check(&root, extra);
    let first = check(&[]);
    assert_eq!(code(&first), 1, "{}", stderr(&first));
    assert_eq!(runs(), 2, "one helm, one kustomize");
    let items = json(&first);
    let refused: Vec<&str> = items
        .iter()
        .filter(|d| d["rule"] == "render-error")
        .map(|d| d["file"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        refused,
        ["deploy/prod/kustomization.yaml", "web/templates/zz.yaml"],
        "{items:#?}"
    );
    let text = stdout(&first);
    assert!(
        !text.contains("/tmp") && !text.contains("podcycle-"),
        "{text}"
    );
    let second = check(&[]);
    assert_eq!(runs(), 2, "nothing rendered again");
    assert_eq!(stdout(&second), stdout(&first));
    assert_eq!(stderr(&second), stderr(&first));
    // An error of the environment's (a renderer stopped by a signal) is not kept: rendered
    // again each run. What it printed before does not matter.
    let offline = renderers.script(
        "offline",
        "echo 'Error: Get \"https://charts.example.com/index.yaml\": dial tcp: lookup charts.example.com: no such host' >&2\nkill -9 $$",
    );
    let with_offline_helm = || {
        crate::common::podcycle()
            .current_dir(&root)
            .env_remove("PODCYCLE_CACHE_DIR")
            .env("PODCYCLE_NO_RENDER_SANDBOX", "1")
            .args(["check", "--format", "json", "--helm"])
            .arg(&offline)
            .arg("web")
            .output()
            .unwrap()
    };
    let once = with_offline_helm();
    assert!(stderr(&once).contains("not rendered"), "{}", stderr(&once));
    with_offline_helm();
    assert_eq!(
        renderers.runs("offline"),
        2,
        "rendered again: {}",
        stderr(&once)
    );
}

/// An overlay is built without Kustomize's build metadata first, and again with it only when
/// its output has findings to place. What a build's lint found is kept beside it, for the
/// settings it was linted with: other settings (here an older Kubernetes) lint the same build
/// again and find what they find.
fn an_overlay_is_built_with_metadata_only_to_place_findings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    let write = |path: &str, text: &str| crate::common::write(&root, path, text);
    write(
        "base/deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels:\n      app: web\n  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n        - name: web\n          image: nginx:1.27\n",
    );
    write("base/kustomization.yaml", "resources:\n- deployment.yaml\n");
    write(
        "overlay/kustomization.yaml",
        "resources:\n- ../base\nnamePrefix: prod-\npatches:\n- path: sidecar.yaml\n",
    );
    // A native sidecar: nothing wrong with it on the newest Kubernetes, refused before 1.29.
    write(
        "overlay/sidecar.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      initContainers:\n        - name: proxy\n          image: envoyproxy/envoy:v1.31\n          restartPolicy: Always\n          ports:\n            - containerPort: 15021\n          startupProbe:\n            tcpSocket:\n              port: 15021\n",
    );
    let entries = || {
        std::fs::read_dir(root.join(".podcycle_cache"))
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| {
                let name = e.file_name();
                name != "CACHEDIR.TAG" && name != ".gitignore"
            })
            .count()
    };
    let renderers = LoggedRenderers::new();
    let first = renderers.check(&root, &[]);
    assert_eq!(code(&first), 0, "{}", stderr(&first));
    assert_eq!(json(&first), Vec::<Value>::new());
    assert_eq!(
        renderers.runs("kustomize"),
        1,
        "nothing found: not built again with build metadata"
    );
    assert_eq!(entries(), 2, "the build, and that its lint found nothing");
    // An older Kubernetes: the same build, linted again, has a finding, so the overlay is
    // built with build metadata to place it.
    let older = renderers.check(&root, &["--kube-version", "1.27"]);
    assert_eq!(code(&older), 1, "{}", stderr(&older));
    let items = json(&older);
    let refused = finding(&items, "unsupported-feature", "overlay/sidecar.yaml");
    assert_eq!(refused["rendered"]["tool"], "kustomize");
    assert_eq!(refused["line"], 11, "placed on `restartPolicy: Always`");
    assert_eq!(renderers.runs("kustomize"), 2);
    assert_eq!(
        entries(),
        4,
        "the build with metadata, and that the first build's lint found something"
    );
    let older_again = renderers.check(&root, &["--kube-version", "1.27"]);
    assert_eq!(renderers.runs("kustomize"), 2);
    assert_eq!(stdout(&older_again), stdout(&older));
    assert_eq!(stderr(&older_again), stderr(&older));
    let again = renderers.check(&root, &[]);
    assert_eq!(renderers.runs("kustomize"), 2);
    assert_eq!(stdout(&again), stdout(&first));
    assert_eq!(stderr(&again), stderr(&first));
    let uncached = renderers.check(&root, &["--no-cache", "--kube-version", "1.27"]);
    assert_eq!(renderers.runs("kustomize"), 4, "both builds again");
    assert_eq!(stdout(&uncached), stdout(&older));
}

/// Kustomize's own selectors see the build metadata's annotations: a patch that selects
/// `!config.kubernetes.io/origin` applies to what users deploy, not to the build podcycle asks
/// for to place findings. The overlay is judged as deployed: the finding is reported at the
/// overlay with a note, never dropped because the build with metadata differs or fails.
fn an_overlay_is_judged_as_deployed_when_build_metadata_changes_its_build() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::tool::git_init(&root);
    let write = |path: &str, text: &str| crate::common::write(&root, path, text);
    write(
        "base/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      terminationGracePeriodSeconds: 120\n      containers:\n      - name: web\n        image: nginx:1.25\n        lifecycle:\n          preStop:\n            sleep:\n              seconds: 60\n",
    );
    let patch = |selector: &str, op: &str| {
        format!(
            "resources:\n- deploy.yaml\npatches:\n- target:\n    kind: Deployment\n    annotationSelector: \"{selector}\"\n  patch: |-\n{op}"
        )
    };
    // Applies only without build metadata: what is deployed has a 10s grace period.
    let shorter = "    - op: replace\n      path: /spec/template/spec/terminationGracePeriodSeconds\n      value: 10\n";
    write(
        "base/kustomization.yaml",
        &patch("!config.kubernetes.io/origin", shorter),
    );
    write(
        "prod/kustomization.yaml",
        "resources:\n- ../base\nnamePrefix: prod-\n",
    );
    let renderers = LoggedRenderers::new();
    let judged = |why: &str| {
        for run in ["first", "warm"] {
            let output = renderers.check(&root, &[]);
            assert_eq!(code(&output), 1, "{run}: {}", stderr(&output));
            let items = json(&output);
            let found = finding(
                &items,
                "prestop-exceeds-grace-period",
                "prod/kustomization.yaml",
            );
            assert_eq!(found["file"], "prod/kustomization.yaml", "{run}: {found:#}");
            assert_eq!(found["rendered"]["placement"], "file", "{run}: {found:#}");
            assert!(
                found["message"].as_str().unwrap().contains("(10s)"),
                "{run}: {found:#}"
            );
            let notes = found["notes"].to_string();
            assert!(notes.contains(why), "{run}: {notes}");
        }
    };
    judged("the overlay builds otherwise");
    // The build with metadata fails: a patch that selects only with it removes a field the
    // base does not have. What is deployed still has its finding.
    let failing = "    - op: remove\n      path: /spec/template/spec/nothingHere\n";
    write(
        "base/kustomization.yaml",
        &format!(
            "{}- target:\n    kind: Deployment\n    annotationSelector: \"config.kubernetes.io/origin\"\n  patch: |-\n{failing}",
            patch("!config.kubernetes.io/origin", shorter)
        ),
    );
    judged("did not end");
}

/// `repository: file://../partials`: the library chart beside it is copied into the chart's
/// `charts/`, as `helm dependency build` would place it, and the chart renders; nothing is
/// downloaded.
fn a_file_dependency_in_the_repository_is_staged_as_helm_dependency_build_would() {
    let output = check(&["--format", "json", "testdata/render/local-dependency/app"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(
        !stderr(&output).contains("not rendered"),
        "{}",
        stderr(&output)
    );
    let items = json(&output);
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "local-dependency/app/templates/deployment.yaml",
    );
    assert_eq!(prestop["line"].as_u64(), Some(21));
    // Changed alone, the values file brings the chart in, and its dependency with it.
    let output = check(&[
        "--format",
        "concise",
        "testdata/render/local-dependency/app/values.yaml",
    ]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("testdata/render/local-dependency/app/templates/deployment.yaml:21:13: error[prestop-exceeds-grace-period]"),
        "{}",
        stdout(&output)
    );
}

/// A `file://` dependency that leads out of the repository is not copied: the chart is not
/// rendered, with the reason, and no byte of the directory outside reaches the output.
fn a_file_dependency_outside_the_repository_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    crate::tool::git_init(&root);
    copy_tree(
        Path::new("testdata/render/local-dependency/app"),
        &root.join("app"),
    );
    let chart = std::fs::read_to_string(root.join("app/Chart.yaml"))
        .unwrap()
        .replace("file://../partials", "file://../../partials");
    std::fs::write(root.join("app/Chart.yaml"), chart).unwrap();
    copy_tree(
        Path::new("testdata/render/local-dependency/partials"),
        &dir.path().join("partials"),
    );
    std::fs::write(
        dir.path().join("partials/templates/_labels.tpl"),
        "{{- define \"partials.labels\" -}}\nsecret: outside-the-repository\n{{- end -}}\n",
    )
    .unwrap();
    crate::tool::git(&root, &["add", "."]);
    let output = crate::common::podcycle()
        .current_dir(&root)
        .args(["check", "--format", "concise", "app"])
        .output()
        .unwrap();
    let all = format!("{}{}", stdout(&output), stderr(&output));
    assert!(
        all.contains("Helm chart app not rendered: the directory leads to"),
        "{all}"
    );
    assert!(all.contains("outside the repository"), "{all}");
    assert!(!all.contains("outside-the-repository"), "{all}");
    assert_eq!(code(&output), 0, "{all}");
}
