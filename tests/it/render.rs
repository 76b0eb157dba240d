//! Rendering without the renderers, and what decides whether a chart or overlay is rendered:
//! nothing passes for clean when `helm` or `kustomize` is missing, what would reach the network
//! is refused, `--no-render`, `--isolated` and excludes. The tests that run the real tools are
//! in `tests/tools/render.rs`.

use std::path::Path;

use serde_json::Value;

use crate::common::{check, code, podcycle, stderr, stdout};

/// A directory with a `helm` and a `kustomize` that `--show-files` finds (it runs neither), for
/// a listing that does not depend on what this machine has installed.
fn stub_renderers() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for name in ["helm", "kustomize"] {
        let path = dir.path().join(name);
        std::fs::write(&path, "#!/bin/sh\nexit 1\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
    dir
}

#[test]
fn without_the_tools_nothing_passes_for_clean() {
    let output = podcycle()
        .env("PATH", "")
        .args(["check", "testdata/render/web", "testdata/render/shop"])
        .output()
        .unwrap();
    // A warning by default: the exit code is that of the files linted.
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    let err = stderr(&output);
    assert!(err.contains("Helm chart testdata/render/web not rendered: helm not found — install it or pass --helm"), "{err}");
    assert!(
        err.contains(
            "Kustomize overlay testdata/render/shop/overlays/prod not rendered: kustomize not found"
        ),
        "{err}"
    );
    let out = stdout(&output);
    assert!(
        out.contains("1 Helm chart not rendered: helm not found — install it or pass --helm"),
        "{out}"
    );
    assert!(
        out.contains("1 Kustomize overlay not rendered: kustomize not found"),
        "{out}"
    );
    // The templates are not read as plain YAML.
    assert!(!out.contains("yaml-syntax"), "{out}");

    let failing = podcycle()
        .env("PATH", "")
        .args(["check", "--fail-on-unrendered", "testdata/render/web"])
        .output()
        .unwrap();
    assert_eq!(code(&failing), 1);

    let named = podcycle()
        .env("PATH", "")
        .args(["check", "testdata/render/web/templates/deployment.yaml"])
        .output()
        .unwrap();
    assert!(
        stderr(&named).contains("not linted: testdata/render/web/templates/deployment.yaml (Helm templates are linted through their chart)"),
        "{}",
        stderr(&named)
    );
    assert!(!stdout(&named).contains("yaml-syntax"));

    // Machine formats say so too.
    let sarif: Value = serde_json::from_slice(
        &podcycle()
            .env("PATH", "")
            .args(["check", "--format", "sarif", "testdata/render/web"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let notification = &sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][0];
    assert_eq!(notification["level"], "warning");
    assert!(
        notification["message"]["text"]
            .as_str()
            .unwrap()
            .contains("helm not found")
    );
    // The JSON array: an entry in the shape of a finding, after the findings.
    let json: Value = serde_json::from_slice(
        &podcycle()
            .env("PATH", "")
            .args(["check", "--format", "json", "testdata/render/web"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let items = json.as_array().unwrap();
    assert_eq!(items.len(), 1, "{json:#}");
    assert_eq!(items[0]["rule"], "not-rendered");
    assert_eq!(items[0]["severity"], "warning");
    assert_eq!(items[0]["file"], "testdata/render/web/Chart.yaml");
    assert_eq!(
        (items[0]["line"].as_u64(), items[0]["column"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        items[0]["rendered"],
        serde_json::json!({"tool": "helm", "input": "testdata/render/web", "placement": "file"})
    );
    assert!(
        items[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("Helm chart testdata/render/web not rendered: helm not found"),
        "{json:#}"
    );
    let github = podcycle()
        .env("PATH", "")
        .args(["check", "--format", "github", "testdata/render/web"])
        .output()
        .unwrap();
    assert!(
        stdout(&github).starts_with(
            "::warning file=testdata/render/web/Chart.yaml,title=podcycle%3A not rendered::"
        ),
        "{}",
        stdout(&github)
    );
}

#[test]
fn what_would_reach_the_network_is_not_rendered() {
    // No tool runs for these: the reason is found first.
    let output = check(&["testdata/render/unvendored", "testdata/render/remote"]);
    let err = stderr(&output);
    assert!(
        err.contains("Helm chart testdata/render/unvendored not rendered: dependency `redis` not vendored under charts/ — run `helm dependency build`; podcycle never downloads charts"),
        "{err}"
    );
    assert!(
        err.contains("Kustomize overlay testdata/render/remote not rendered: refers to the remote resource `github.com/example/deploy//base?ref=v1.0.0`"),
        "{err}"
    );
}

#[test]
fn no_render_is_said_and_show_files_lists_what_is_rendered_and_skipped() {
    // Asked for, so said once under the summary, and nothing on standard error.
    let output = check(&["--no-render", "testdata/render"]);
    assert_eq!(stderr(&output), "");
    let out = stdout(&output);
    assert!(
        out.contains("\n10 Helm charts not rendered: --no-render\n"),
        "{out}"
    );
    let renderers = stub_renderers();
    let listing = stdout(
        &podcycle()
            .env("PATH", renderers.path())
            .args(["check", "--show-files", "testdata/render"])
            .output()
            .unwrap(),
    );
    for line in [
        "testdata/render/web: render (Helm chart)",
        "testdata/render/web/templates: skip (Helm templates: linted through the rendered chart)",
        "testdata/render/platform/charts/common: skip (vendored chart: rendered with the chart that depends on it)",
        "testdata/render/shop/overlays/prod: render (Kustomize overlay)",
        "testdata/render/shop/components/probes: skip (Kustomize component: built with the overlays that use it)",
        "testdata/render/shop/base/deployment.yaml: lint",
        "testdata/render/shop/overlays/prod/grace-patch.yaml: lint (patch or expected state: document checks only)",
    ] {
        assert!(
            listing.lines().any(|l| l == line),
            "missing `{line}` in\n{listing}"
        );
    }
}

#[test]
fn isolated_runs_read_only_the_named_configuration_and_no_ignore_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bad = std::fs::read_to_string("testdata/cli/bad.yaml").unwrap();
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("deploy/app.yaml", &bad);
    write("hidden/app.yaml", &bad);
    write(".gitignore", "hidden/\n");
    write(".ignore", "*.yaml\n");
    write("deploy/.podcycle.yaml", "fail-on: never\n");
    let run = |args: &[&str]| {
        podcycle()
            .current_dir(root)
            .arg("check")
            .args(args)
            .output()
            .unwrap()
    };
    // The pull request's own files switch the gate off.
    let bypassed = run(&["--format", "concise"]);
    assert_eq!(code(&bypassed), 0, "{}", stdout(&bypassed));
    assert!(
        stdout(&bypassed).contains("skipped by ignore files"),
        "the summary says what ignore files left out: {}",
        stdout(&bypassed)
    );
    // Isolated: every file, and no configuration but the one named.
    let isolated = run(&["--isolated", "--format", "concise"]);
    assert_eq!(code(&isolated), 1, "{}", stdout(&isolated));
    let text = stdout(&isolated);
    assert!(text.contains("deploy/app.yaml:"), "{text}");
    assert!(text.contains("hidden/app.yaml:"), "{text}");
    write("ci.yaml", "fail-on: error\n");
    let named = run(&[
        "--isolated",
        "--config",
        "ci.yaml",
        "--format",
        "concise",
        "deploy",
    ]);
    assert_eq!(code(&named), 1);
}

#[test]
fn an_excluded_directory_excludes_a_file_named_under_it() {
    let output = check(&[
        "--exclude",
        "testdata/cli",
        "--force-exclude",
        "testdata/cli/bad.yaml",
    ]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    assert!(!stdout(&output).contains("bad.yaml"));
    assert!(Path::new("testdata/cli/bad.yaml").is_file());
}

/// pre-commit names the changed files: a chart's values, metadata, helper or `files/`, an
/// overlay's patch or a base resource. Each brings in the chart or the overlays (their roots)
/// that read it, and says so; a plain manifest brings in nothing.
#[test]
fn a_named_chart_or_overlay_file_renders_its_owner() {
    let renderers = stub_renderers();
    let shown = |file: &str| {
        let output = podcycle()
            .env("PATH", renderers.path())
            .args(["check", "--show-files", file])
            .output()
            .unwrap();
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        stdout(&output)
    };
    for file in [
        "values.yaml",
        "Chart.yaml",
        "templates/_helpers.tpl",
        "files/lifecycle.yaml",
    ] {
        let file = format!("testdata/render/changed/{file}");
        let text = shown(&file);
        assert!(
            text.contains(&format!(
                "testdata/render/changed: render (Helm chart), for {file}\n"
            )),
            "{text}"
        );
        assert!(!text.contains(&format!("{file}: lint")), "{text}");
    }
    // An ordinary template is linted through its chart, its own findings alone.
    let text = shown("testdata/render/changed/templates/deployment.yaml");
    assert!(
        text.contains("testdata/render/changed: render (Helm chart, for testdata/render/changed/templates/deployment.yaml)\n"),
        "{text}"
    );
    for file in ["overlays/prod/grace-patch.yaml", "base/deployment.yaml"] {
        let file = format!("testdata/render/shop/{file}");
        let text = shown(&file);
        assert!(
            text.contains(&format!(
                "testdata/render/shop/overlays/prod: render (Kustomize overlay), for {file}\n"
            )),
            "{text}"
        );
        // The file itself is still linted as it is (a patch as a patch).
        assert!(text.contains(&format!("{file}: lint")), "{text}");
    }
    let text = shown("testdata/small-app.yaml");
    assert_eq!(text, "testdata/small-app.yaml: lint\n");
}

/// Without Helm, a named values file is not passed off as linted.
#[test]
fn a_named_values_file_of_a_chart_not_rendered_says_it_was_not_linted() {
    let output = podcycle()
        .env("PATH", "")
        .args(["check", "testdata/render/changed/values.yaml"])
        .output()
        .unwrap();
    let err = stderr(&output);
    assert!(
        err.contains("not linted: testdata/render/changed/values.yaml (a chart's files are read through the rendered chart)"),
        "{err}"
    );
    assert!(!stdout(&output).contains("No problems found in 1 file"));
}

/// pre-commit names only the changed files and hides the output of a passing hook: a commit
/// that changes only a chart's values, without `helm` to render the chart, is checked by
/// nothing, and fails with the reason rather than pass. A walk only warns; `fail-on: never`,
/// `--no-render` and `--no-fail-on-unrendered` pass.
#[test]
fn a_named_file_checked_only_through_a_chart_not_rendered_fails_the_run() {
    let run = |args: &[&str]| {
        podcycle()
            .env("PATH", "")
            .arg("check")
            .args(args)
            .output()
            .unwrap()
    };
    let values = "testdata/render/changed/values.yaml";
    let output = run(&["--format", "concise", values]);
    assert_eq!(code(&output), 1, "{}", stdout(&output));
    let out = stdout(&output);
    assert_eq!(
        out.lines().next(),
        Some("Nothing checked: 1 Helm chart not rendered (see below)."),
        "{out}"
    );
    assert!(
        out.contains("\nexit 1: testdata/render/changed/values.yaml is checked only through Helm chart testdata/render/changed, which was not rendered (`--no-fail-on-unrendered` passes such a run)\n"),
        "{out}"
    );
    // The chart's files were not read at all: not said to be read through it.
    assert!(
        !out.contains("read only through the rendered chart"),
        "{out}"
    );
    assert!(
        out.contains(
            "1 chart file (values, Chart.yaml, files/) not read: its chart was not rendered"
        ),
        "{out}"
    );
    let statistics = stdout(&run(&["--statistics", values]));
    assert_eq!(
        statistics.lines().next(),
        Some("Not fully checked: 1 Helm chart not rendered (see below); nothing found."),
        "{statistics}"
    );
    // A patch named alone: the overlay it belongs to is not built.
    let patch = "testdata/render/shop/overlays/prod/grace-patch.yaml";
    assert_eq!(code(&run(&[patch])), 1);
    for (args, why) in [
        (&["--no-fail-on-unrendered", values][..], "opted out"),
        (&["--fail-on", "never", values], "fail-on never"),
        (&["--no-render", values], "rendering turned off"),
        (&["testdata/render/changed"], "a walk"),
    ] {
        let output = run(args);
        assert_eq!(code(&output), 0, "{why}: {}", stdout(&output));
        assert!(
            !stdout(&output).contains("No problems found"),
            "{why}: {}",
            stdout(&output)
        );
    }
    // Asked for, a walk fails too.
    assert_eq!(
        code(&run(&["--fail-on-unrendered", "testdata/render/changed"])),
        1
    );
}

/// `fail-on-unrendered: false` in the configuration is the same opt-out, for a repository that
/// deliberately does not install helm; `true` fails a walk.
#[test]
fn the_configuration_decides_whether_an_unrendered_chart_fails() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("web");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("values.yaml"), "replicas: 1\n").unwrap();
    let run = |config: &str, path: &str| {
        std::fs::write(dir.path().join(".podcycle.yaml"), config).unwrap();
        let output = podcycle()
            .env("PATH", "")
            .current_dir(dir.path())
            .args(["check", path])
            .output()
            .unwrap();
        code(&output)
    };
    assert_eq!(run("{}\n", "web/values.yaml"), 1);
    assert_eq!(run("fail-on-unrendered: false\n", "web/values.yaml"), 0);
    assert_eq!(run("{}\n", "web"), 0);
    assert_eq!(run("fail-on-unrendered: true\n", "web"), 1);
}

/// Every format says what was not rendered: the machine formats carry it as an entry or a
/// count, so that a tool reading them does not take the run for clean.
#[test]
fn every_format_says_what_was_not_rendered() {
    let run = |format: &str| {
        let output = podcycle()
            .env("PATH", "")
            .args(["check", "--format", format, "testdata/render/changed"])
            .output()
            .unwrap();
        stdout(&output)
    };
    let gitlab: Value = serde_json::from_str(&run("gitlab")).unwrap();
    assert_eq!(gitlab[0]["check_name"], "not-rendered", "{gitlab:#}");
    assert_eq!(
        gitlab[0]["location"]["path"],
        "testdata/render/changed/Chart.yaml"
    );
    let sarif: Value = serde_json::from_str(&run("sarif")).unwrap();
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["properties"],
        serde_json::json!({"notRendered": 1, "notRead": 0})
    );
    let json: Value = serde_json::from_str(&run("json")).unwrap();
    assert_eq!(json[0]["rule"], "not-rendered");
    assert!(run("github").starts_with("::warning file=testdata/render/changed/Chart.yaml,"));
    assert!(run("junit").contains("<skipped"), "{}", run("junit"));
    for format in ["full", "concise"] {
        assert_eq!(
            run(format).lines().next(),
            Some("Nothing checked: 1 Helm chart not rendered (see below)."),
            "{format}"
        );
    }
}

/// `--show-files` says which charts and overlays cannot be rendered here and why, and that
/// their files are then not read.
#[test]
fn show_files_says_what_cannot_be_rendered() {
    let output = podcycle()
        .env("PATH", "")
        .args([
            "check",
            "--show-files",
            "testdata/render/changed/values.yaml",
            "testdata/render/unvendored",
        ])
        .output()
        .unwrap();
    let listing = stdout(&output);
    for line in [
        "testdata/render/changed: cannot render (Helm chart), for testdata/render/changed/values.yaml: helm not found — install it or pass --helm",
        "testdata/render/changed/values.yaml: skip (chart file: not read, as its chart cannot be rendered)",
        "testdata/render/unvendored/templates: skip (Helm templates: not linted, as their chart cannot be rendered)",
    ] {
        assert!(
            listing.lines().any(|l| l == line),
            "missing `{line}` in\n{listing}"
        );
    }
    let renderers = stub_renderers();
    let output = podcycle()
        .env("PATH", renderers.path())
        .args(["check", "--show-files", "testdata/render/unvendored"])
        .output()
        .unwrap();
    assert!(
        stdout(&output).contains("testdata/render/unvendored: cannot render (Helm chart): dependency `redis` not vendored under charts/"),
        "{}",
        stdout(&output)
    );
}
