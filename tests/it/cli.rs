//! The command line as users run it: exit codes, formats, standard input, discovery.

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;

use crate::common::{code, on_terminal, output_with_stdin, podcycle, run, stderr, stdout};

#[test]
fn full_format() {
    let output = run(&["check", "testdata/cli/bad.yaml"]);
    assert_eq!(code(&output), 1);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn concise_format() {
    let output = run(&[
        "check",
        "--format",
        "concise",
        "testdata/cli/bad.yaml",
        "testdata/cli/good.yaml",
    ]);
    assert_eq!(code(&output), 1);
    insta::assert_snapshot!(stdout(&output), @r"
    testdata/cli/bad.yaml:17:9: error[init-container-probe] readinessProbe is not allowed on init container `migrate`
    testdata/cli/bad.yaml:24:11: warning[poststart-blocks-sidecar] postStart of `web` delays the start of sidecar `istio-proxy`
    testdata/cli/bad.yaml:27:11: error[prestop-exceeds-grace-period] the preStop `sleep` action of 25s is longer than `terminationGracePeriodSeconds` (20s), which the API server rejects
    Found 2 errors, 1 warning in 1 of 2 files.
    1 finding fixable with `podcycle check --fix`.
    ");
}

#[test]
fn json_format_follows_the_schema() {
    let output = run(&["check", "--format", "json", "testdata/cli/bad.yaml"]);
    assert_eq!(code(&output), 1);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let items = value.as_array().unwrap();
    assert_eq!(items.len(), 3);
    let probe = &items[0];
    assert_eq!(probe["rule"], "init-container-probe");
    assert_eq!(probe["severity"], "error");
    assert_eq!(probe["enforcement"], "api-server");
    assert_eq!(probe["file"], "testdata/cli/bad.yaml");
    assert_eq!(
        (probe["line"].as_u64(), probe["column"].as_u64()),
        (Some(17), Some(9))
    );
    assert_eq!(
        (probe["end_line"].as_u64(), probe["end_column"].as_u64()),
        (Some(17), Some(23))
    );
    assert_eq!(
        probe["object"],
        serde_json::json!({"api_version": "apps/v1", "kind": "Deployment", "name": "web", "namespace": "shop"})
    );
    assert_eq!(probe["container"], "migrate");
    assert_eq!(
        probe["field"],
        "spec.template.spec.initContainers[0].readinessProbe"
    );
    let prestop = &items[2];
    // A `sleep` action longer than the grace period is rejected; an exec sleep would not be.
    assert_eq!(
        (&prestop["severity"], &prestop["enforcement"]),
        (&"error".into(), &"api-server".into())
    );
    assert_eq!(items[1]["enforcement"], "runtime");
    assert_eq!(
        prestop["labels"][0]["message"],
        "grace period of 20s set here"
    );
    assert_eq!(prestop["labels"][0]["line"], 13);
    insta::assert_snapshot!(stdout(&output));
}

#[test]
fn clean_input_exits_zero() {
    let output = run(&["check", "testdata/cli/good.yaml"]);
    assert_eq!(code(&output), 0);
    assert_eq!(stdout(&output), "No problems found in 1 file.\n");
}

#[test]
fn fail_on_sets_the_threshold() {
    let info = [
        "check",
        "--format",
        "concise",
        "testdata/cli/info-only.yaml",
    ];
    assert_eq!(code(&run(&info)), 0, "info is below the default threshold");
    let mut args = info.to_vec();
    args.extend(["--fail-on", "info"]);
    assert_eq!(code(&run(&args)), 1);
    assert_eq!(
        code(&run(&[
            "check",
            "--fail-on",
            "never",
            "testdata/cli/bad.yaml"
        ])),
        0
    );
    assert_eq!(
        code(&run(&[
            "check",
            "--fail-on",
            "error",
            "--select",
            "poststart-blocks-sidecar",
            "testdata/cli/bad.yaml"
        ])),
        0
    );
}

#[test]
fn standard_input_with_a_file_name() {
    let output = output_with_stdin(
        podcycle().args([
            "check",
            "--format",
            "concise",
            "--stdin-filename",
            "deploy/app.yaml",
            "-",
        ]),
        &fs::read("testdata/cli/bad.yaml").unwrap(),
    );
    assert_eq!(code(&output), 1);
    assert!(
        stdout(&output).starts_with("deploy/app.yaml:17:9: error[init-container-probe]"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn usage_errors_exit_two_with_a_message() {
    let missing = run(&["check", "no/such/file.yaml"]);
    assert_eq!(code(&missing), 2);
    assert_eq!(
        stderr(&missing),
        "podcycle: error: no/such/file.yaml: no such file or directory\n"
    );

    let unknown = run(&[
        "check",
        "--select",
        "init-container-probes",
        "testdata/cli/good.yaml",
    ]);
    assert_eq!(code(&unknown), 2);
    assert!(
        stderr(&unknown).contains("did you mean `init-container-probe`?"),
        "{}",
        stderr(&unknown)
    );

    let bad_flag = run(&["check", "--format", "xml"]);
    assert_eq!(code(&bad_flag), 2);

    let twice = run(&["check", "-", "-"]);
    assert_eq!(code(&twice), 2);
}

#[test]
fn select_ignore_and_extend_select() {
    let concise = |extra: &[&str]| {
        let mut args = vec!["check", "--format", "concise", "testdata/cli/bad.yaml"];
        args.extend(extra);
        stdout(&run(&args))
            .lines()
            .filter(|l| l.contains('['))
            .count()
    };
    assert_eq!(concise(&[]), 3);
    assert_eq!(concise(&["--select", "correctness"]), 2);
    assert_eq!(concise(&["--ignore", "init-container-probe,suspicious"]), 1);
    assert_eq!(
        concise(&[
            "--select",
            "init-container-probe",
            "--extend-select",
            "suspicious"
        ]),
        2
    );
}

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn directories_are_walked_with_ignore_files_excludes_and_helm_charts() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bad = fs::read_to_string("testdata/cli/bad.yaml").unwrap();
    write(root, "deploy/app.yaml", &bad);
    write(root, "deploy/app.yml", &bad);
    write(
        root,
        "deploy/app.json",
        "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"spec\": {\"restartPolicy\": 1}}",
    );
    write(root, "deploy/notes.txt", &bad);
    write(root, "ignored/app.yaml", &bad);
    write(root, ".ignore", "ignored/\n");
    write(root, "vendor/app.yaml", &bad);
    write(
        root,
        "chart/Chart.yaml",
        "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    );
    write(
        root,
        "chart/templates/deployment.yaml",
        "{{ .Values.broken }}: [\n",
    );
    write(root, ".hidden/app.yaml", &bad);
    write(root, ".git/app.yaml", &bad);

    let output = podcycle()
        .current_dir(root)
        .args(["check", "--format", "concise", "--exclude", "vendor"])
        .output()
        .unwrap();
    let files: std::collections::BTreeSet<&str> = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        // `file:line:col: …` lines only, not the summary; and not Helm's refusal of the
        // broken chart where `helm` is installed (a `render-error` in the template): the
        // template itself is not linted as YAML.
        .filter(|l| {
            l.split(':')
                .nth(1)
                .is_some_and(|n| n.parse::<usize>().is_ok())
                && !l.contains("error[render-error]")
        })
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(
        files.into_iter().collect::<Vec<_>>(),
        [
            ".hidden/app.yaml",
            "deploy/app.json",
            "deploy/app.yaml",
            "deploy/app.yml"
        ]
    );
    assert_eq!(code(&output), 1);

    // A file named on the command line is linted whatever its name.
    let explicit = podcycle()
        .current_dir(root)
        .args(["check", "--format", "concise", "deploy/notes.txt"])
        .output()
        .unwrap();
    assert_eq!(code(&explicit), 1);
}

/// What a whole repository holds besides manifests, in the shapes public repositories have
/// them (Istio's injection templates under a chart's `files/` and its Go-templated test data,
/// documentation snippets wrapped in Jekyll's `{% raw %}`, a dev container's JSON with
/// comments, KEP metadata, a GitHub workflow).
fn repository_with_other_files(root: &Path) {
    let good = fs::read_to_string("testdata/cli/good.yaml").unwrap();
    write(root, "deploy/web.yaml", &good);
    write(
        root,
        "deploy/broken.yaml",
        "apiVersion: apps/v1\n    kind: Deployment\n    metadata: {name: web}\n",
    );
    write(
        root,
        "injector/templates/inject.yaml",
        "{{- define \"resources\" }}\n  requests: {}\n{{- end }}\napiVersion: v1\nkind: Pod\n",
    );
    write(
        root,
        "injector/templates/namespace.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .ns }}\n",
    );
    write(
        root,
        "make/config/bind/service.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: bind\nspec:\n  clusterIP: {SERVICE_IP_PREFIX}.16\n",
    );
    write(
        root,
        "docs/snippets/secret.yaml",
        "{% raw %}\napiVersion: v1\nkind: Secret\nstringData:\n  a: \"{{ .password }}\"\n{% endraw %}\n",
    );
    write(
        root,
        ".devcontainer/devcontainer.json",
        "{\n  // Dev container definition. Reference: https://containers.dev/\n  \"name\": \"dev\",\n}\n",
    );
    write(
        root,
        "keps/1/kep.yaml",
        "title: \"Quota\" per flavor\nauthors: [\"@a\"]\n",
    );
    write(
        root,
        ".github/workflows/ci.yaml",
        "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n    - run: echo ${{ github.sha }}\n",
    );
    write(
        root,
        "chart/Chart.yaml",
        "apiVersion: v2\nname: chart\nversion: 1.0.0\n",
    );
    write(root, "chart/values.yaml", "replicas: 1\n");
    write(
        root,
        "chart/files/injection-template.yaml",
        "{{- $containers := list }}\nspec:\n  {{- range .Spec.Containers }}\n",
    );
}

/// A walked manifest that holds a placeholder is told a template by its lint's own parse: in a
/// directory judged together too, where its objects then join nothing.
#[test]
fn a_template_told_by_its_lint_joins_no_directory() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let check = |args: &[&str]| {
        stdout(
            &podcycle()
                .current_dir(root)
                .args(["check", "--no-render"])
                .args(args)
                .arg(".")
                .output()
                .unwrap(),
        )
    };
    write(
        root,
        "deploy/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.25\n",
    );
    write(
        root,
        "deploy/hpa.yaml",
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 6\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  clusterIP: {SERVICE_IP_PREFIX}.16\n",
    );
    let out = check(&["--format", "concise"]);
    assert!(!out.contains("replicas-with-autoscaler"), "{out}");
    assert!(out.contains("No problems found in 1 file."), "{out}");
    assert!(
        out.contains("1 templated file not linted: it is not a Kubernetes manifest"),
        "{out}"
    );
    let listing = check(&["--show-files"]);
    assert!(
        listing.contains("deploy/hpa.yaml: skip (template for another tool (`{VAR}` on line 15): not a manifest as it is)"),
        "{listing}"
    );
    // `explain` shows nothing of it either, though its first document parses.
    write(
        root,
        "deploy/hpa.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: templated\nspec:\n  containers:\n  - name: a\n    image: nginx:1.25\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  clusterIP: {SERVICE_IP_PREFIX}.16\n",
    );
    let out = stdout(
        &podcycle()
            .current_dir(root)
            .args(["explain", "--no-render", "--format", "json", "."])
            .output()
            .unwrap(),
    );
    assert!(out.contains("\"web\""), "{out}");
    assert!(!out.contains("templated"), "{out}");
    // Filled in, it is a manifest of the directory: its autoscaler is the Deployment's.
    write(
        root,
        "deploy/hpa.yaml",
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 2\n  maxReplicas: 6\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  clusterIP: 10.0.0.16\n  selector: {app: $(APP)}\n",
    );
    let out = check(&["--format", "concise"]);
    assert!(out.contains("deploy/web.yaml:6:"), "{out}");
    assert!(out.contains("replicas-with-autoscaler"), "{out}");
}

#[test]
fn walked_files_that_are_not_manifests_are_counted_not_judged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    repository_with_other_files(root);
    let check = |args: &[&str]| {
        podcycle()
            .current_dir(root)
            .args(["check", "--no-render", "--format", "concise"])
            .args(args)
            .output()
            .unwrap()
    };

    // Only the manifest that does not parse is reported; the rest is counted, with what it is.
    let output = check(&[]);
    assert_eq!(code(&output), 1);
    let out = stdout(&output);
    assert_eq!(
        out.lines()
            .filter(|l| l.contains("error["))
            .map(|l| l.split(':').next().unwrap())
            .collect::<Vec<_>>(),
        ["deploy/broken.yaml"],
        "{out}"
    );
    assert!(
        out.contains("Found 1 error in 1 of 2 files; 1 Helm chart not rendered (see below)."),
        "{out}"
    );
    assert!(
        out.contains("\n4 templated files and 3 other YAML or JSON files not linted: they are not Kubernetes manifests (`--show-files` lists them)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "\n3 chart files (values, Chart.yaml, files/) not read: their charts were not rendered\n"
        ),
        "{out}"
    );

    // `--show-files` says why of each.
    let listing = stdout(&check(&["--show-files"]));
    for line in [
        "deploy/broken.yaml: lint",
        "injector/templates/inject.yaml: skip (template for another tool (`{{` on line 1): not a manifest as it is)",
        "injector/templates/namespace.yaml: skip (template for another tool (`{{` on line 4): not a manifest as it is)",
        "docs/snippets/secret.yaml: skip (template for another tool (`{%` on line 1): not a manifest as it is)",
        "make/config/bind/service.yaml: skip (template for another tool (`{VAR}` on line 6): not a manifest as it is)",
        ".devcontainer/devcontainer.json: skip (not a Kubernetes manifest: no document has apiVersion and kind)",
        "keps/1/kep.yaml: skip (not a Kubernetes manifest: no document has apiVersion and kind)",
        ".github/workflows/ci.yaml: skip (not a Kubernetes manifest: no document has apiVersion and kind)",
        "chart/values.yaml: skip (chart file: not read, as its chart cannot be rendered)",
        "chart/files/injection-template.yaml: skip (chart file: not read, as its chart cannot be rendered)",
    ] {
        assert!(
            listing.lines().any(|l| l == line),
            "missing `{line}` in\n{listing}"
        );
    }

    // A file named on the command line is linted whatever it is, as pre-commit passes it.
    let named = check(&[
        "injector/templates/inject.yaml",
        ".devcontainer/devcontainer.json",
        "make/config/bind/service.yaml",
    ]);
    assert_eq!(code(&named), 1);
    let out = stdout(&named);
    assert!(out.contains("injector/templates/inject.yaml:1:"), "{out}");
    assert!(out.contains(".devcontainer/devcontainer.json:3:"), "{out}");
    assert!(out.contains("make/config/bind/service.yaml:6:"), "{out}");

    // Nothing but files that are not manifests: said, not passed off as a clean run.
    let only_other = check(&["keps", "docs"]);
    assert_eq!(code(&only_other), 0);
    assert_eq!(
        stderr(&only_other),
        "podcycle: warning: no Kubernetes manifests, Helm charts or Kustomize overlays found to check\n"
    );
    assert!(
        stdout(&only_other).contains("1 templated file and 1 other YAML or JSON file not linted"),
        "{}",
        stdout(&only_other)
    );
}

#[test]
fn a_file_reached_twice_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let bad = fs::read_to_string("testdata/cli/bad.yaml").unwrap();
    write(root, "deploy/web.yaml", &bad);
    let absolute = root.join("deploy/web.yaml");
    let once = podcycle()
        .current_dir(root)
        .args(["check", "--format", "json", "deploy/web.yaml"])
        .output()
        .unwrap();
    let twice = podcycle()
        .current_dir(root)
        .args([
            "check",
            "--format",
            "json",
            "deploy/web.yaml",
            "./deploy/web.yaml",
        ])
        .arg(&absolute)
        .args(["deploy", "."])
        .output()
        .unwrap();
    assert_eq!(code(&twice), 1);
    let findings = |output: &std::process::Output| -> Vec<serde_json::Value> {
        serde_json::from_slice(&output.stdout).unwrap()
    };
    assert!(!findings(&once).is_empty());
    assert_eq!(findings(&twice), findings(&once));
    let summary = podcycle()
        .current_dir(root)
        .args([
            "check",
            "--format",
            "concise",
            "deploy/web.yaml",
            "./deploy/web.yaml",
            ".",
        ])
        .output()
        .unwrap();
    assert!(
        stdout(&summary).contains("in 1 of 1 file."),
        "{}",
        stdout(&summary)
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_do_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a/pod.yaml",
        &fs::read_to_string("testdata/cli/good.yaml").unwrap(),
    );
    std::os::unix::fs::symlink("..", dir.path().join("a/loop")).unwrap();
    let output = podcycle()
        .current_dir(dir.path())
        .args(["check"])
        .output()
        .unwrap();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), "No problems found in 1 file.\n");
}

#[test]
fn a_closed_pipe_ends_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let document = fs::read_to_string("testdata/cli/bad.yaml").unwrap();
    write(
        dir.path(),
        "many.yaml",
        &vec![document.as_str(); 2000].join("---\n"),
    );
    let mut child = podcycle()
        .current_dir(dir.path())
        .args(["check", "many.yaml"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // Dropping the reader closes the pipe while podcycle is still writing.
    let output = child.wait_with_output().unwrap();
    assert_eq!(code(&output), 0);
    assert_eq!(stderr(&output), "");
}

#[test]
fn completions_into_a_closed_pipe_end_quietly() {
    // `podcycle completions bash | head -2`: the reader is gone before the script is written.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = podcycle()
        .args(["completions", "bash"])
        .stdout(writer)
        .output()
        .unwrap();
    assert_eq!(code(&output), 0);
    assert_eq!(stderr(&output), "");
}

#[test]
fn colour_follows_the_flag_and_environment() {
    let plain = run(&["check", "testdata/cli/bad.yaml"]);
    assert!(!stdout(&plain).contains('\u{1b}'), "no colour when piped");
    let forced = run(&["check", "--color", "always", "testdata/cli/bad.yaml"]);
    assert!(stdout(&forced).contains('\u{1b}'));
    let by_env = podcycle()
        .env("CLICOLOR_FORCE", "1")
        .args(["check", "testdata/cli/bad.yaml"])
        .output()
        .unwrap();
    assert!(stdout(&by_env).contains('\u{1b}'));
    let never = podcycle()
        .env("CLICOLOR_FORCE", "1")
        .args(["check", "--color", "never", "testdata/cli/bad.yaml"])
        .output()
        .unwrap();
    assert!(!stdout(&never).contains('\u{1b}'));
}

/// On a terminal, both human formats are coloured unless the environment says otherwise by
/// any of the usual conventions.
#[cfg(target_os = "linux")]
#[test]
fn colour_on_a_terminal_follows_the_conventions() {
    for format in ["full", "concise"] {
        let args = ["check", "--format", format, "testdata/cli/bad.yaml"];
        let coloured = on_terminal(&args, &[]);
        assert!(coloured.contains("podcycle") || coloured.contains("bad.yaml"));
        assert!(
            coloured.contains('\u{1b}'),
            "{format} on a terminal: {coloured}"
        );
        for (name, value) in [("NO_COLOR", "1"), ("CLICOLOR", "0"), ("TERM", "dumb")] {
            let plain = on_terminal(&args, &[(name, value)]);
            assert!(plain.contains("bad.yaml"), "{plain}");
            assert!(
                !plain.contains('\u{1b}'),
                "{format} with {name}={value}: {plain}"
            );
        }
        let forced = on_terminal(&args, &[("TERM", "dumb"), ("CLICOLOR_FORCE", "1")]);
        assert!(
            forced.contains('\u{1b}'),
            "{format}: CLICOLOR_FORCE wins over TERM=dumb"
        );
    }
}

#[test]
fn stdin_filename_alone_reads_standard_input() {
    let manifest = fs::read("testdata/cli/bad.yaml").unwrap();
    let output = output_with_stdin(
        podcycle().args([
            "check",
            "--format",
            "concise",
            "--stdin-filename",
            "deploy/web.yaml",
        ]),
        &manifest,
    );
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("deploy/web.yaml:17:9: error[init-container-probe]"),
        "{}",
        stdout(&output)
    );
    // Beside paths, standard input must be asked for with `-`.
    let output = output_with_stdin(
        podcycle().args([
            "check",
            "--stdin-filename",
            "web.yaml",
            "testdata/cli/good.yaml",
        ]),
        &manifest,
    );
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("no `-` is among the paths"),
        "{}",
        stderr(&output)
    );
    assert_eq!(stdout(&output), "");
}

#[test]
fn a_missing_path_prints_only_the_error() {
    for format in ["full", "concise"] {
        let output = run(&[
            "check",
            "--format",
            format,
            "testdata/cli/no-such-file.yaml",
        ]);
        assert_eq!(code(&output), 2);
        assert_eq!(stdout(&output), "", "{format}");
        assert_eq!(
            stderr(&output),
            "podcycle: error: testdata/cli/no-such-file.yaml: no such file or directory\n"
        );
    }
    // Machine formats still write a valid (empty) document for the tools that read it.
    let output = run(&[
        "check",
        "--format",
        "json",
        "testdata/cli/no-such-file.yaml",
    ]);
    assert_eq!(code(&output), 2);
    assert_eq!(stdout(&output).trim(), "[]");
}

#[test]
fn rules_and_rule_commands() {
    let list = run(&["rules"]);
    assert_eq!(code(&list), 0);
    assert!(
        stdout(&list)
            .lines()
            .any(|l| l.starts_with("init-container-probe ") && l.contains("correctness"))
    );
    let json: serde_json::Value =
        serde_json::from_slice(&run(&["rules", "--format", "json"]).stdout).unwrap();
    assert!(
        json.as_array()
            .unwrap()
            .iter()
            .any(|r| r["name"] == "poststart-blocks-sidecar" && r["default_severity"] == "warning")
    );

    let doc = run(&["rule", "prestop-exceeds-grace-period"]);
    assert_eq!(code(&doc), 0);
    assert!(stdout(&doc).starts_with("# prestop-exceeds-grace-period\n"));
    assert!(stdout(&doc).contains("## Why is this bad?"));

    let unknown = run(&["rule", "prestop-exceed-grace-period"]);
    assert_eq!(code(&unknown), 2);
    assert!(stderr(&unknown).contains("did you mean `prestop-exceeds-grace-period`?"));

    // A word of rules' names, not a misspelt name: the rules that have it.
    let word = run(&["rule", "prestop"]);
    assert_eq!(code(&word), 2);
    assert!(
        stderr(&word)
            .contains("rules whose names contain `prestop`: `prestop-exceeds-grace-period`"),
        "{}",
        stderr(&word)
    );

    // The list has a header row, and its columns line up with it.
    let text = stdout(&list);
    let header = text.lines().next().unwrap();
    assert!(header.starts_with("rule "), "{header}");
    let row = text
        .lines()
        .find(|l| l.starts_with("init-container-probe "))
        .unwrap();
    for column in ["category", "severity", "enforced by", "summary"] {
        let at = header.find(column).unwrap();
        assert!(
            at > 0 && row.as_bytes()[at - 1] == b' ' && row.as_bytes()[at] != b' ',
            "{column}:\n{header}\n{row}"
        );
    }
}

/// podcycle's own repository is quiet: its rule fixtures, written to be wrong, are left out by
/// its `.podcycle.yaml`.
#[test]
fn podcycle_s_own_repository_is_quiet() {
    let output = run(&["check", "--format", "concise", "."]);
    assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
    let text = stdout(&output);
    let findings: Vec<&str> = text
        .lines()
        .filter(|line| {
            [": error[", ": warning[", ": info["]
                .iter()
                .any(|s| line.contains(s))
        })
        .collect();
    assert_eq!(findings, Vec::<&str>::new());
}

#[test]
fn an_empty_directory_warns() {
    let dir = tempfile::tempdir().unwrap();
    let output = podcycle()
        .current_dir(dir.path())
        .args(["check"])
        .output()
        .unwrap();
    assert_eq!(code(&output), 0);
    assert_eq!(
        stderr(&output),
        "podcycle: warning: no YAML or JSON files found to check\n"
    );
}

/// The example at the top of the README is what podcycle prints for
/// `testdata/readme/deploy/web.yaml`, word for word.
#[test]
fn the_readme_example_is_real_output() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let command = "```console\n$ podcycle check deploy/\n";
    let start = readme
        .find(command)
        .expect("the README shows `podcycle check deploy/`")
        + command.len();
    let shown = &readme[start..start + readme[start..].find("```\n").unwrap()];
    let output = podcycle()
        .args(["check", "deploy/"])
        .current_dir(root.join("testdata/readme"))
        .output()
        .unwrap();
    assert_eq!(stdout(&output), shown, "update the README's example");
}

const WEB_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n";
const API_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec: {containers: [{name: api, image: nginx}]}\n";
/// A budget that, matched with `web`'s 2 replicas, never allows an eviction.
const WEB_BUDGET: &str = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 2\n  selector: {matchLabels: {app: web}}\n";

/// The rules and files of `check --format json` findings, as `rule file` lines.
fn rules_by_file(output: &std::process::Output) -> Vec<String> {
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut found: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {}",
                d["rule"].as_str().unwrap(),
                d["file"].as_str().unwrap()
            )
        })
        .collect();
    found.sort();
    found
}

#[test]
fn budgets_are_matched_with_the_workloads_of_their_directory_only() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Same directory, two files: matched.
    write(root, "same/deploy.yaml", WEB_DEPLOYMENT);
    write(root, "same/pdb.yaml", WEB_BUDGET);
    // The budget's workload in another directory: not matched; the directory's own workload
    // is not selected.
    write(root, "apart/pdb.yaml", WEB_BUDGET);
    write(root, "apart/api.yaml", API_DEPLOYMENT);
    write(root, "elsewhere/deploy.yaml", WEB_DEPLOYMENT);

    let output = podcycle()
        .current_dir(root)
        .args(["check", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(
        rules_by_file(&output),
        [
            "disruption-budget-blocks-eviction same/pdb.yaml",
            "disruption-budget-selects-nothing apart/pdb.yaml",
        ],
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );

    // Each file alone is its own scope: nothing to match, nothing said.
    let output = podcycle()
        .current_dir(root)
        .args(["check", "--no-config", "--format", "json", "same/pdb.yaml"])
        .output()
        .unwrap();
    assert_eq!(rules_by_file(&output), Vec::<String>::new());

    // `explain --rollout` reads the same scope: the budget beside the Deployment, and no other.
    let explained = |path: &str| {
        let output = podcycle()
            .current_dir(root)
            .args(["explain", "--no-config", "--rollout", path])
            .output()
            .unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let same = explained("same");
    assert!(
        same.contains("PodDisruptionBudget/web allows no eviction"),
        "{same}"
    );
    let elsewhere = explained(".");
    assert_eq!(
        elsewhere.matches("PodDisruptionBudget/web").count(),
        1,
        "{elsewhere}"
    );
}

/// An autoscaler of `web` named `name`, as a file of its own.
fn web_autoscaler(name: &str) -> String {
    format!(
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {{name: {name}}}\nspec:\n  scaleTargetRef: {{apiVersion: apps/v1, kind: Deployment, name: web}}\n  maxReplicas: 5\n"
    )
}

#[test]
fn autoscalers_in_files_of_their_own_are_alternatives_unless_their_target_is_beside_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Two guides' autoscalers, each applied alone, for a Deployment of another directory.
    write(root, "app/deploy.yaml", WEB_DEPLOYMENT);
    write(root, "app/hpa/cpu.yaml", &web_autoscaler("web-cpu"));
    write(root, "app/hpa/gpu.yaml", &web_autoscaler("web-gpu"));
    // The Deployment beside them: the directory is applied together.
    write(root, "together/deploy.yaml", WEB_DEPLOYMENT);
    write(root, "together/cpu.yaml", &web_autoscaler("web-cpu"));
    write(root, "together/memory.yaml", &web_autoscaler("web-memory"));
    // Both in one file: applied together, wherever the Deployment is.
    write(
        root,
        "one-file/hpa.yaml",
        &format!(
            "{}---\n{}",
            web_autoscaler("web-cpu"),
            web_autoscaler("web-memory")
        ),
    );
    let output = podcycle()
        .current_dir(root)
        .args(["check", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    assert_eq!(
        rules_by_file(&output),
        [
            "autoscalers-share-target one-file/hpa.yaml",
            "autoscalers-share-target one-file/hpa.yaml",
            "autoscalers-share-target together/cpu.yaml",
            "autoscalers-share-target together/memory.yaml",
        ],
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

#[test]
fn files_holding_the_same_object_are_alternatives_not_one_deployment() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    // Two golden renders of one chart's budget, and a DaemonSet its selector would pick.
    let budget = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: agent}\nspec:\n  maxUnavailable: 1\n  selector: {matchLabels: {app: agent}}\n";
    write(root, "renders/default.yaml", budget);
    write(root, "renders/prod.yaml", budget);
    write(
        root,
        "renders/agent.yaml",
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec: {containers: [{name: agent, image: agent}]}\n",
    );
    // A file of the same directory with a budget over its own workload is still judged with
    // its own objects.
    write(
        root,
        "renders/web.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: web}]}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 100%\n  selector: {matchLabels: {app: web}}\n",
    );
    let output = podcycle()
        .current_dir(root)
        .args(["check", "--no-config", "--format", "json", "."])
        .output()
        .unwrap();
    // Judged together, they were two overlapping budgets, each over a DaemonSet without a
    // scale; alone, each budget selects nothing its own file shows.
    assert_eq!(
        rules_by_file(&output),
        vec!["disruption-budget-blocks-eviction renders/web.yaml".to_owned()],
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let shown = podcycle()
        .current_dir(root)
        .args(["check", "--no-config", "--show-files", "."])
        .output()
        .unwrap();
    let shown = String::from_utf8(shown.stdout).unwrap();
    assert!(
        shown.contains(
            "renders/agent.yaml: lint (its own scope: `PodDisruptionBudget/agent` is in both renders/default.yaml:3 and renders/prod.yaml:3, so the files of this directory are alternatives, not judged together)"
        ),
        "{shown}"
    );
}

/// A 60 s drain on GKE Spot nodes is reported with no configuration, and JSON and SARIF name
/// the platform; the same Deployment off Spot nodes is quiet until `--platform` names one.
#[test]
fn a_platform_s_cut_is_found_from_the_manifest_or_the_flag() {
    let spot = "rules/shutdown-exceeds-platform-notice/gke-spot.yaml";
    let output = run(&["check", "--no-config", "--format", "json", spot]);
    let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let cut: Vec<&serde_json::Value> = value
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["rule"] == "shutdown-exceeds-platform-notice")
        .collect();
    assert_eq!(cut.len(), 2, "{value}");
    assert!(cut.iter().all(|d| d["platform"] == "gke-spot"), "{value}");
    let output = run(&["check", "--no-config", "--format", "sarif", spot]);
    let log: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .filter(|r| r["ruleId"] == "shutdown-exceeds-platform-notice")
            .all(|r| r["properties"]["platform"] == "gke-spot"),
        "{log}"
    );

    let off_spot = "rules/shutdown-exceeds-platform-notice/named-platform.yaml";
    let select = ["--select", "shutdown-exceeds-platform-notice"];
    let quiet = run(&[
        &["check", "--no-config", "--format", "json"][..],
        &select,
        &[off_spot],
    ]
    .concat());
    assert_eq!(stdout(&quiet).trim(), "[]");
    let named = run(&[
        &[
            "check",
            "--no-config",
            "--format",
            "json",
            "--platform",
            "aws-spot,gke-spot",
        ][..],
        &select,
        &[off_spot],
    ]
    .concat());
    let value: serde_json::Value = serde_json::from_slice(&named.stdout).unwrap();
    assert_eq!(value[0]["platform"], "gke-spot", "{value}");
    let unknown = run(&["check", "--platform", "gke-spto", off_spot]);
    assert_eq!(code(&unknown), 2);
    assert!(stderr(&unknown).contains("unknown platform `gke-spto`"));
}
