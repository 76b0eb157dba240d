//! Adopting podcycle on an existing repository, end to end through the binary: `--fix`,
//! `--diff`, `--unsafe-fixes`, baselines, `--add-ignore`, `--statistics`, `--show-settings`,
//! the GitLab format, shell completions, and the packaging files. (Every rule fixture with a
//! fix is fixed in `tests/fixtures.rs`.)

use std::fs;
use std::path::Path;

use crate::common::{code, podcycle, run, stderr, stdout};

/// `podcycle ARGS` run in `dir`.
fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    podcycle()
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("podcycle runs")
}

fn repository_with(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

const BAD: &str = include_str!("../../testdata/cli/bad.yaml");
const ZERO_GRACE: &str = "\
apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  terminationGracePeriodSeconds: 0  # fast failover
  containers:
  - name: web
    image: nginx:1.25
    lifecycle:
      preStop:
        httpGet: {path: /drain, port: 80}
";

#[test]
fn diff_shows_the_fixes_and_changes_nothing() {
    let dir = repository_with(&[("deploy/web.yaml", BAD)]);
    let output = run_in(dir.path(), &["check", "--diff", "deploy"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    insta::assert_snapshot!(stdout(&output), @r"
    --- a/deploy/web.yaml
    +++ b/deploy/web.yaml
    @@ -10,7 +10,7 @@
         metadata:
           labels: {app: web}
         spec:
    -      terminationGracePeriodSeconds: 20
    +      terminationGracePeriodSeconds: 55
           initContainers:
           - name: migrate
             image: example/migrate:1.0
    ");
    assert_eq!(
        stderr(&output),
        "podcycle: `--fix` would fix 1 finding in 1 file\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("deploy/web.yaml")).unwrap(),
        BAD
    );
}

#[test]
fn fix_writes_the_fixes_and_reports_what_is_left() {
    let dir = repository_with(&[("web.yaml", BAD)]);
    let output = run_in(
        dir.path(),
        &["check", "--fix", "--format", "concise", "web.yaml"],
    );
    assert_eq!(code(&output), 1);
    insta::assert_snapshot!(stdout(&output), @r"
    web.yaml:17:9: error[init-container-probe] readinessProbe is not allowed on init container `migrate`
    web.yaml:24:11: warning[poststart-blocks-sidecar] postStart of `web` delays the start of sidecar `istio-proxy`
    Found 1 error, 1 warning in 1 of 1 file.
    Fixed 1 finding in 1 file.
    ");
    let fixed = fs::read_to_string(dir.path().join("web.yaml")).unwrap();
    assert_eq!(
        fixed,
        BAD.replace(
            "terminationGracePeriodSeconds: 20",
            "terminationGracePeriodSeconds: 55"
        )
    );
    // Nothing is left to fix: a second run changes nothing.
    let again = run_in(dir.path(), &["check", "--fix", "web.yaml"]);
    assert!(stdout(&again).contains("Fixed 0 findings in 0 files."));
    assert_eq!(
        fs::read_to_string(dir.path().join("web.yaml")).unwrap(),
        fixed
    );
}

#[test]
fn unsafe_fixes_need_the_option() {
    let dir = repository_with(&[("web.yaml", ZERO_GRACE)]);
    let safe = run_in(dir.path(), &["check", "--diff", "web.yaml"]);
    assert_eq!(code(&safe), 0);
    assert_eq!(
        stderr(&safe),
        "podcycle: no fixes to apply; 1 finding has only an unsafe fix: add `--unsafe-fixes` to apply it\n"
    );
    let statistics = run_in(dir.path(), &["check", "--statistics", "web.yaml"]);
    assert_eq!(
        stdout(&statistics),
        "1  zero-grace-period  info\nFound 1 finding; 1 fixable with `--fix --unsafe-fixes`.\n"
    );
    let fixed = run_in(
        dir.path(),
        &["check", "--fix", "--unsafe-fixes", "web.yaml"],
    );
    assert_eq!(code(&fixed), 0, "{}", stdout(&fixed));
    assert_eq!(
        fs::read_to_string(dir.path().join("web.yaml")).unwrap(),
        ZERO_GRACE.replace("Seconds: 0  #", "Seconds: 30  #")
    );
}

#[test]
fn fix_leaves_json_files_and_symbolic_links_alone() {
    let json = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"terminationGracePeriodSeconds": 0, "containers": [{"name": "a", "image": "x", "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}]}}"#;
    let dir = repository_with(&[("pod.json", json)]);
    let output = run_in(
        dir.path(),
        &["check", "--fix", "--unsafe-fixes", "pod.json"],
    );
    // Not an error of the run: the finding stays, and the closing line says why it was not
    // fixed; nothing calls it fixable.
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(
        stdout(&output).ends_with("Found 1 error, 1 info in 1 of 1 file.\nFixed 0 findings in 0 files; 2 findings in JSON files not fixed: fixes are written as YAML, and JSON files are not edited.\n"),
        "{}",
        stdout(&output)
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("pod.json")).unwrap(),
        json
    );
    let diff = run_in(
        dir.path(),
        &["check", "--diff", "--unsafe-fixes", "pod.json"],
    );
    assert_eq!(code(&diff), 0);
    assert_eq!(
        stderr(&diff),
        "podcycle: no fixes to apply; 2 findings in JSON files not fixed: fixes are written as YAML, and JSON files are not edited\n"
    );
    let check = run_in(dir.path(), &["check", "pod.json"]);
    assert!(!stdout(&check).contains("fixable"), "{}", stdout(&check));
    #[cfg(unix)]
    {
        let dir = repository_with(&[("real.yaml", ZERO_GRACE)]);
        std::os::unix::fs::symlink(dir.path().join("real.yaml"), dir.path().join("link.yaml"))
            .unwrap();
        let output = run_in(
            dir.path(),
            &["check", "--fix", "--unsafe-fixes", "link.yaml"],
        );
        assert_eq!(code(&output), 2);
        assert!(
            stderr(&output).contains("symbolic link"),
            "{}",
            stderr(&output)
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("real.yaml")).unwrap(),
            ZERO_GRACE
        );
    }
}

#[test]
fn fix_cannot_write_standard_input() {
    let output = run(&["check", "--fix", "-"]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("`--fix` cannot write standard input back"));
}

#[test]
fn json_and_sarif_carry_the_fixes() {
    let output = run(&["check", "--format", "json", "testdata/cli/bad.yaml"]);
    let findings: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let prestop = &findings[2];
    assert_eq!(prestop["rule"], "prestop-exceeds-grace-period");
    assert_eq!(
        prestop["fixes"],
        serde_json::json!([{
            "title": "Raise terminationGracePeriodSeconds to 55",
            "applicability": "safe",
            "edits": [{"line": 13, "column": 38, "end_line": 13, "end_column": 40, "content": "55"}]
        }])
    );
    assert_eq!(findings[0]["fixes"], serde_json::json!([]));

    let output = run(&["check", "--format", "sarif", "testdata/cli/bad.yaml"]);
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let result = &log["runs"][0]["results"][2];
    assert_eq!(
        result["fixes"][0]["artifactChanges"][0]["replacements"][0],
        serde_json::json!({
            "deletedRegion": {"startLine": 13, "startColumn": 38, "endLine": 13, "endColumn": 40},
            "insertedContent": {"text": "55"}
        })
    );
    assert_eq!(result["fixes"][0]["properties"]["applicability"], "safe");
    // Field names keep their case in messages and rule descriptions, and every rule links to
    // the one documentation address editors use too.
    let message = log["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .unwrap();
    assert!(
        message.starts_with("readinessProbe is not allowed"),
        "{message}"
    );
    for descriptor in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .unwrap()
    {
        let rule = podcycle::rules::find_rule(descriptor["id"].as_str().unwrap()).unwrap();
        assert_eq!(descriptor["helpUri"], rule.url());
        assert!(rule.url().starts_with(podcycle::rules::RULE_DOCS_BASE_URL));
        if rule.name == "prestop-exceeds-grace-period" {
            assert_eq!(
                descriptor["shortDescription"]["text"],
                "preStop hook that takes the whole termination grace period or more."
            );
        }
    }
}

/// A repository with `deploy/web.yaml` and the baseline of its findings in `baseline.json`,
/// and what writing the baseline printed.
fn baselined_repository() -> (tempfile::TempDir, std::process::Output) {
    let dir = repository_with(&[("deploy/web.yaml", BAD)]);
    let written = run_in(
        dir.path(),
        &["check", "--write-baseline", "baseline.json", "deploy"],
    );
    assert_eq!(code(&written), 0, "{}", stderr(&written));
    (dir, written)
}

#[test]
fn baseline_round_trip() {
    let (dir, written) = baselined_repository();
    let root = dir.path();
    assert_eq!(
        stderr(&written),
        "podcycle: recorded 3 findings in baseline.json; `--baseline baseline.json` reports only new ones\n"
    );
    let baseline: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(root.join("baseline.json")).unwrap()).unwrap();
    assert_eq!(baseline["podcycle_baseline"], 2);
    assert_eq!(
        baseline["findings"][0],
        serde_json::json!({
            "rule": "init-container-probe", "file": "deploy/web.yaml",
            "object": {"kind": "Deployment", "namespace": "shop", "name": "web"},
            "field": "spec.template.spec.initContainers[name=migrate].readinessProbe"
        })
    );

    // Everything is baselined, from another directory too.
    let clean = run_in(root, &["check", "--baseline", "baseline.json", "deploy"]);
    assert_eq!(code(&clean), 0, "{}", stdout(&clean));
    assert_eq!(
        stderr(&clean),
        "podcycle: 3 findings in the baseline not shown\n"
    );
    let from_below = run_in(
        &root.join("deploy"),
        &["check", "--baseline", "../baseline.json", "web.yaml"],
    );
    assert_eq!(code(&from_below), 0, "{}", stdout(&from_below));

    // Lines added above and a reworded value keep the findings baselined; a new finding is
    // reported; a fixed one is counted as no longer occurring.
    let edited = format!("# moved down\n{}", BAD)
        .replace("seconds: 25", "seconds: 26")
        .replace("            command: [\"test\", \"-f\", \"/done\"]\n", "            command: [\"test\", \"-f\", \"/done\"]\n        livenessProbe:\n          exec: {command: [\"true\"]}\n")
        .replace("postStart:\n            exec:\n              command: [\"/warmup\"]\n          ", "");
    fs::write(root.join("deploy/web.yaml"), &edited).unwrap();
    let output = run_in(
        root,
        &[
            "check",
            "--baseline",
            "baseline.json",
            "--format",
            "concise",
            "deploy",
        ],
    );
    assert_eq!(code(&output), 1, "{edited}");
    insta::assert_snapshot!(stdout(&output), @r"
    deploy/web.yaml:21:9: error[init-container-probe] livenessProbe is not allowed on init container `migrate`
    Found 1 error in 1 of 1 file.
    ");
    assert_eq!(
        stderr(&output),
        "podcycle: 2 findings in the baseline not shown; 1 baseline entry no longer occur (`--write-baseline` records the findings anew)\n"
    );
}

#[test]
fn baselines_name_containers_and_old_ones_are_still_read() {
    let (dir, _) = baselined_repository();
    let root = dir.path();
    // A container added before the others moves them down their lists: their findings stay
    // baselined.
    let inserted = BAD
        .replace(
            "      initContainers:\n",
            "      initContainers:\n      - name: wait\n        image: busybox:1.36\n        command: [\"true\"]\n",
        )
        .replace(
            "      containers:\n",
            "      containers:\n      - name: log\n        image: busybox:1.36\n",
        );
    fs::write(root.join("deploy/web.yaml"), &inserted).unwrap();
    let output = run_in(root, &["check", "--baseline", "baseline.json", "deploy"]);
    assert_eq!(code(&output), 0, "{}", stdout(&output));
    assert_eq!(
        stderr(&output),
        "podcycle: 3 findings in the baseline not shown\n"
    );

    // A baseline of the first format, which named containers by their place, is read as
    // written: it matches the file it was recorded for.
    fs::write(root.join("deploy/web.yaml"), BAD).unwrap();
    let old = serde_json::json!({"podcycle_baseline": 1, "findings": [
        {"rule": "init-container-probe", "file": "deploy/web.yaml",
         "object": {"kind": "Deployment", "namespace": "shop", "name": "web"},
         "field": "spec.template.spec.initContainers[0].readinessProbe"},
    ]});
    fs::write(root.join("old.json"), old.to_string()).unwrap();
    let output = run_in(
        root,
        &[
            "check",
            "--baseline",
            "old.json",
            "--format",
            "concise",
            "deploy",
        ],
    );
    assert_eq!(
        stderr(&output),
        "podcycle: 1 finding in the baseline not shown\n"
    );
    assert!(
        !stdout(&output).contains("init-container-probe"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_bad_baseline_is_a_usage_error() {
    let dir = repository_with(&[("b.json", "{\"podcycle_baseline\": 9, \"findings\": []}")]);
    let output = run_in(dir.path(), &["check", "--baseline", "b.json", "."]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("invalid baseline b.json: baseline format 9"));
    let output = run_in(dir.path(), &["check", "--baseline", "missing.json", "."]);
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("cannot read baseline missing.json"));
}

#[test]
fn add_ignore_silences_every_finding_with_a_reason() {
    let dir = repository_with(&[("web.yaml", BAD)]);
    let output = run_in(
        dir.path(),
        &["check", "--add-ignore", "known before rollout", "web.yaml"],
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(
        stderr(&output),
        "podcycle: added 3 ignore comments in 1 file\n"
    );
    let text = fs::read_to_string(dir.path().join("web.yaml")).unwrap();
    assert!(text.contains(
        "      - name: migrate\n        image: example/migrate:1.0\n        # podcycle: ignore[init-container-probe] known before rollout\n        readinessProbe:\n"
    ), "{text}");
    // Every finding is silenced, and no suppression is unused.
    let check = run_in(dir.path(), &["check", "--select", "all", "web.yaml"]);
    assert_eq!(code(&check), 0, "{}", stdout(&check));
    // Nothing left: a second run adds nothing.
    let again = run_in(dir.path(), &["check", "--add-ignore", "again", "web.yaml"]);
    assert_eq!(
        stderr(&again),
        "podcycle: added 0 ignore comments in 0 files\n"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("web.yaml")).unwrap(),
        text
    );
}

#[test]
fn add_ignore_needs_a_reason() {
    let missing = run(&["check", "--add-ignore"]);
    assert_eq!(code(&missing), 2);
    let empty = run(&["check", "--add-ignore", " ", "testdata/cli/good.yaml"]);
    assert_eq!(code(&empty), 2);
    assert!(stderr(&empty).contains("the reason must say something"));
    let multiline = run(&["check", "--add-ignore", "a\nb", "testdata/cli/good.yaml"]);
    assert_eq!(code(&multiline), 2);
}

#[test]
fn statistics_count_findings_per_rule_and_severity() {
    let output = run(&[
        "check",
        "--statistics",
        "testdata/cli/bad.yaml",
        "testdata/lsp/web.yaml",
    ]);
    assert_eq!(code(&output), 1);
    insta::assert_snapshot!(stdout(&output), @r"
    2  init-container-probe          error    1 fixable
    1  container-restart-policy      error
    1  init-container-never-exits    warning  1 fixable
    1  poststart-blocks-sidecar      warning
    1  prestop-exceeds-grace-period  error    1 fixable
    1  prestop-exceeds-grace-period  warning  1 fixable
    Found 7 findings; 4 fixable with `--fix`.
    ");
    let json = run(&[
        "check",
        "--statistics",
        "--format",
        "json",
        "testdata/cli/bad.yaml",
    ]);
    let rows: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(
        rows[0],
        serde_json::json!({"rule": "init-container-probe", "severity": "error", "count": 1, "fixable": 0})
    );
}

#[test]
fn show_settings_names_the_configuration() {
    let dir = repository_with(&[
        (
            "deploy/.podcycle.yaml",
            "kube-version: \"1.29\"\nignore: [advice]\nseverity: {zero-grace-period: error}\n",
        ),
        ("deploy/web.yaml", BAD),
    ]);
    let output = run_in(dir.path(), &["check", "--show-settings", "deploy/web.yaml"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("file: deploy/web.yaml\nconfiguration: deploy/.podcycle.yaml\nexcluded: no\nrole: manifest\nkube-version: 1.29\nfail-on: warning\n"), "{text}");
    assert!(
        text.lines()
            .any(|line| line.split_whitespace().eq(["zero-grace-period", "error"])),
        "{text}"
    );
    assert!(
        text.contains("off: poststart-delays-containers, "),
        "{text}"
    );
    let json = run_in(
        dir.path(),
        &[
            "check",
            "--show-settings",
            "deploy/web.yaml",
            "--format",
            "json",
            "--no-config",
        ],
    );
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["configuration"], serde_json::Value::Null);
    assert_eq!(value["kube_version"], "1.37");
    // A chart's values and templates: as `--show-files` says, read through the chart.
    for (file, role) in [
        (
            "testdata/render/web/values.yaml",
            "chart file: read through the rendered chart",
        ),
        (
            "testdata/render/web/templates/deployment.yaml",
            "Helm template: linted through the rendered chart",
        ),
    ] {
        let text = stdout(&run(&["check", "--show-settings", file]));
        assert!(text.contains(&format!("\nrole: {role}\n")), "{text}");
    }
}

#[test]
fn gitlab_output_follows_gitlabs_schema() {
    let output = run(&[
        "check",
        "--no-config",
        "--format",
        "gitlab",
        "--select",
        "all",
        "rules",
        "testdata/cli",
        "testdata/report",
    ]);
    assert_eq!(code(&output), 1);
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(include_str!("../../testdata/gitlab/codeclimate.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    // GitLab's documentation: an array of issues, with these severities and a unique
    // fingerprint each.
    let issues = report.as_array().expect("an array");
    assert!(issues.len() > 50, "{}", issues.len());
    let mut fingerprints = std::collections::HashSet::new();
    for issue in issues {
        let errors: Vec<String> = validator
            .iter_errors(issue)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{issue}: {errors:?}");
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().unwrap()),
            "{issue}"
        );
        assert!(fingerprints.insert(issue["fingerprint"].as_str().unwrap().to_owned()));
        assert!(
            issue["location"]["positions"]["begin"]["line"]
                .as_u64()
                .unwrap()
                >= 1
        );
        assert!(!issue["location"]["path"].as_str().unwrap().starts_with('/'));
    }
    let first = run(&["check", "--format", "gitlab", "testdata/cli/bad.yaml"]);
    let first: serde_json::Value = serde_json::from_slice(&first.stdout).unwrap();
    assert_eq!(
        first[0],
        serde_json::json!({
            "type": "issue",
            "check_name": "init-container-probe",
            "description": "readinessProbe is not allowed on init container `migrate`",
            "content": {"body": "the API server rejects probes on init containers without `restartPolicy: Always`\n\nhelp: remove the probe, or make `migrate` a sidecar with `restartPolicy: Always`"},
            "categories": ["Bug Risk"],
            "severity": "major",
            "fingerprint": first[0]["fingerprint"].clone(),
            "location": {"path": "testdata/cli/bad.yaml", "positions": {"begin": {"line": 17, "column": 9}, "end": {"line": 17, "column": 23}}}
        })
    );
}

#[test]
fn completions_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = run(&["completions", shell]);
        assert_eq!(code(&output), 0);
        assert!(stdout(&output).contains("--add-ignore"), "{shell}");
    }
    let output = run(&["completions", "tcsh"]);
    assert_eq!(code(&output), 2);
}

#[test]
fn rules_say_which_have_fixes() {
    let output = run(&["rules"]);
    let text = stdout(&output);
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap()
            .to_owned()
    };
    assert!(line("prestop-exceeds-grace-period").contains(" fix  "));
    assert!(!line("duplicate-key").contains(" fix  "));
    let json = run(&["rules", "--format", "json"]);
    let rules: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let exec_sleep = rules
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == "prestop-exec-sleep")
        .unwrap();
    assert_eq!(exec_sleep["fix"], "always");
}

/// The Python packaging and the pre-commit hooks agree with Cargo.toml and with each other.
#[test]
fn packaging_files_agree() {
    let cargo = fs::read_to_string("Cargo.toml").unwrap();
    let version = cargo
        .lines()
        .find_map(|l| l.strip_prefix("version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap();
    let pyproject = fs::read_to_string("pyproject.toml").unwrap();
    assert!(pyproject.contains("build-backend = \"maturin\""));
    assert!(pyproject.contains("bindings = \"bin\""));
    assert!(
        pyproject.contains("\nlocked = true\n"),
        "the wheel is built with Cargo.lock"
    );
    assert!(pyproject.contains("name = \"podcycle\""));
    assert!(pyproject.contains("dynamic = [\"version\"]"));
    // The page pyproject.toml names, and the licence every manifest declares, in full (the
    // extension's package carries it too, so vsce needs no --skip-license).
    assert!(pyproject.contains("(docs/install.md)"));
    assert!(Path::new("docs/install.md").is_file());
    assert!(pyproject.contains("license = \"Apache-2.0\""));
    for licence in ["LICENSE", "editors/vscode/LICENSE"] {
        let text = fs::read_to_string(licence).unwrap();
        assert!(
            text.contains("Apache License\n                           Version 2.0, January 2004")
        );
        assert!(text.contains("END OF TERMS AND CONDITIONS"), "{licence}");
    }
    let mirror = fs::read_to_string("packaging/pre-commit/pyproject.toml").unwrap();
    assert!(
        mirror.contains(&format!("version = \"{version}\"")),
        "{mirror}"
    );
    assert!(
        mirror.contains(&format!("\"podcycle=={version}\"")),
        "{mirror}"
    );

    let hooks = |path: &str| -> Vec<serde_json::Value> {
        let text = fs::read_to_string(path).unwrap();
        let documents = podcycle::yaml::parse_stream(&text);
        let document = &documents[0];
        let value = podcycle::yaml::to_json(document, document.root.unwrap()).unwrap();
        value.as_array().unwrap().clone()
    };
    let main = hooks(".pre-commit-hooks.yaml");
    let python = hooks("packaging/pre-commit/.pre-commit-hooks.yaml");
    let languages: Vec<(&str, &str)> = main
        .iter()
        .chain(&python)
        .map(|h| (h["id"].as_str().unwrap(), h["language"].as_str().unwrap()))
        .collect();
    assert_eq!(
        languages,
        [
            // Built by pip through maturin, which pyproject.toml runs with `--locked`;
            // pre-commit's `language: rust` runs `cargo install` without it.
            ("podcycle", "python"),
            ("podcycle-system", "system"),
            ("podcycle", "python")
        ]
    );
    for hook in main.iter().chain(&python) {
        assert_eq!(hook["require_serial"], true, "{hook}");
        assert_eq!(
            hook["types_or"],
            serde_json::json!(["yaml", "json"]),
            "{hook}"
        );
        assert_eq!(
            hook["entry"], "podcycle check --force-exclude --format concise",
            "{hook}"
        );
    }
}
