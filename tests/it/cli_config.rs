//! The command line with configuration files, outputs and suppressions.
//! The `podcycle` binary end to end: configuration discovery and errors, command-line
//! overrides, `--output`, `init`, suppressions from standard input, exit codes.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{output_with_stdin, stderr, stdout};

const BIN: &str = env!("CARGO_BIN_EXE_podcycle");

/// A fresh directory for one test.
fn workspace(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli")
        .join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(dir: &Path, path: &str, text: &str) {
    let path = dir.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("CLICOLOR_FORCE")
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

/// `podcycle check --format json [--stdin-filename NAME] -` with `input` on standard input.
fn check_stdin(dir: &Path, name: Option<&str>, input: &str) -> Output {
    let mut args = vec!["check", "--format", "json"];
    if let Some(name) = name {
        args.extend(["--stdin-filename", name]);
    }
    args.push("-");
    output_with_stdin(
        Command::new(BIN)
            .args(args)
            .current_dir(dir)
            .env_remove("CLICOLOR_FORCE")
            .env("NO_COLOR", "1"),
        input.as_bytes(),
    )
}

/// (file, rule, severity) of each finding, from the JSON format.
fn findings(output: &Output) -> Vec<(String, String, String)> {
    let value: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(output), stderr(output)));
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_owned(),
                d["rule"].as_str().unwrap().to_owned(),
                d["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn finding(file: &str, rule: &str, severity: &str) -> (String, String, String) {
    (file.to_owned(), rule.to_owned(), severity.to_owned())
}

/// An advice finding (`poststart-delays-containers`, info) and a suspicious one
/// (`poststart-blocks-sidecar`, warning, when `mesh` counts as a sidecar).
const POD: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: example/web:1.0
    lifecycle:
      postStart:
        exec:
          command: [\"/bin/warm-cache\"]
  - name: mesh
    image: example/mesh:1.0
";

/// A correctness finding (`init-container-probe`, error).
const PROBE: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: migrate
spec:
  initContainers:
  - name: migrate
    image: example/migrate:1.0
    readinessProbe:
      exec:
        command: [\"true\"]
  containers:
  - name: app
    image: example/app:1.0
";

#[test]
fn the_nearest_configuration_applies_to_each_file() {
    let dir = workspace("nearest");
    write(
        &dir,
        ".podcycle.yaml",
        "severity:\n  poststart-delays-containers: warning\n",
    );
    write(&dir, "a/pod.yaml", POD);
    write(
        &dir,
        "b/.podcycle.yaml",
        "ignore: [advice]\nsidecars:\n  - names: [mesh]\n",
    );
    write(&dir, "b/pod.yaml", POD);
    let output = run(&dir, &["check", "--format", "json", "."]);
    assert_eq!(
        findings(&output),
        [
            finding("a/pod.yaml", "poststart-delays-containers", "warning"),
            finding("b/pod.yaml", "poststart-blocks-sidecar", "warning"),
        ]
    );
    assert_eq!(output.status.code(), Some(1));

    // Linting from inside a directory still finds the configuration above it.
    let output = run(&dir.join("a"), &["check", "--format", "json", "pod.yaml"]);
    assert_eq!(
        findings(&output),
        [finding(
            "pod.yaml",
            "poststart-delays-containers",
            "warning"
        )]
    );

    let output = run(&dir, &["check", "--format", "json", "--no-config", "."]);
    assert_eq!(
        findings(&output),
        [
            finding("a/pod.yaml", "poststart-delays-containers", "info"),
            finding("b/pod.yaml", "poststart-delays-containers", "info"),
        ]
    );
    assert_eq!(output.status.code(), Some(0));

    // `--config` applies one file to everything.
    let output = run(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--config",
            "b/.podcycle.yaml",
            "a",
        ],
    );
    assert_eq!(
        findings(&output),
        [finding("a/pod.yaml", "poststart-blocks-sidecar", "warning")]
    );
}

#[test]
fn the_command_line_overrides_the_configuration() {
    let dir = workspace("override");
    write(
        &dir,
        ".podcycle.yaml",
        "ignore: [advice, correctness]\nfail-on: error\n",
    );
    write(&dir, "pod.yaml", POD);
    write(&dir, "probe.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "json", "."]);
    assert_eq!(findings(&output), []);
    let output = run(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--extend-select",
            "advice",
            "--fail-on",
            "info",
            ".",
        ],
    );
    assert_eq!(
        findings(&output),
        [finding("pod.yaml", "poststart-delays-containers", "info")]
    );
    assert_eq!(output.status.code(), Some(1));
    let output = run(
        &dir,
        &["check", "--format", "json", "--select", "correctness", "."],
    );
    assert_eq!(
        findings(&output),
        [finding("probe.yaml", "init-container-probe", "error")]
    );
    assert_eq!(output.status.code(), Some(1));
}

#[test]
fn fail_on_from_the_configuration_sets_the_exit_code() {
    let dir = workspace("fail-on");
    write(&dir, "pod.yaml", POD);
    write(&dir, ".podcycle.yaml", "fail-on: info\n");
    assert_eq!(run(&dir, &["check", "pod.yaml"]).status.code(), Some(1));
    write(
        &dir,
        ".podcycle.yaml",
        "fail-on: never\nseverity: {poststart-delays-containers: error}\n",
    );
    assert_eq!(run(&dir, &["check", "pod.yaml"]).status.code(), Some(0));
    assert_eq!(
        run(&dir, &["check", "--fail-on", "error", "pod.yaml"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn exclude_and_per_path_ignores() {
    let dir = workspace("exclude");
    write(
        &dir,
        ".podcycle.yaml",
        "exclude: [vendor]\nper-path-ignores:\n  \"legacy/**\": [init-container-probe]\n",
    );
    write(&dir, "vendor/probe.yaml", PROBE);
    write(&dir, "legacy/probe.yaml", PROBE);
    write(&dir, "probe.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "json", "."]);
    assert_eq!(
        findings(&output),
        [finding("probe.yaml", "init-container-probe", "error")]
    );
    // A file named on the command line is linted, unless --force-exclude says otherwise.
    let output = run(&dir, &["check", "--format", "json", "vendor/probe.yaml"]);
    assert_eq!(findings(&output).len(), 1);
    let output = run(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--force-exclude",
            "vendor/probe.yaml",
        ],
    );
    assert_eq!(findings(&output), []);
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn testdata_and_golden_files_are_excluded_by_default_and_counted() {
    let dir = workspace("default-excludes");
    write(&dir, "deploy/probe.yaml", PROBE);
    write(&dir, "pkg/testdata/probe.yaml", PROBE);
    write(&dir, "render/golden/probe.yaml", PROBE);
    write(&dir, "render/probe.golden.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "concise", "."]);
    let out = stdout(&output);
    assert!(out.contains("deploy/probe.yaml:"), "{out}");
    assert!(!out.contains("testdata/probe.yaml:"), "{out}");
    assert!(!out.contains("golden/probe.yaml:"), "{out}");
    assert!(!out.contains("probe.golden.yaml:"), "{out}");
    assert!(
        out.contains("3 files in testdata, golden files, tests' or test harnesses' directories not linted: excluded by default"),
        "{out}"
    );
    // Named on the command line, a file or a directory is linted.
    let output = run(
        &dir,
        &["check", "--format", "json", "pkg/testdata/probe.yaml"],
    );
    assert_eq!(findings(&output).len(), 1);
    let output = run(&dir, &["check", "--format", "json", "pkg/testdata"]);
    assert_eq!(findings(&output).len(), 1);
    // `extend-exclude` adds to the defaults; `exclude` replaces them.
    write(&dir, ".podcycle.yaml", "extend-exclude: [deploy]\n");
    let output = run(&dir, &["check", "--format", "json", "."]);
    assert_eq!(findings(&output), []);
    write(&dir, ".podcycle.yaml", "exclude: [golden]\n");
    let output = run(&dir, &["check", "--format", "json", "."]);
    let files: Vec<String> = findings(&output).into_iter().map(|f| f.0).collect();
    assert_eq!(
        files,
        [
            "deploy/probe.yaml",
            "pkg/testdata/probe.yaml",
            "render/probe.golden.yaml"
        ]
    );
}

#[test]
fn test_harnesses_directories_are_excluded_by_default_and_counted() {
    let dir = workspace("harness-excludes");
    write(&dir, "deploy/probe.yaml", PROBE);
    // A Kyverno CLI test, a Chainsaw test and a KUTTL test case, each with an input.
    write(
        &dir,
        "policies/pods/.kyverno-test/kyverno-test.yaml",
        "name: pods\n",
    );
    write(&dir, "policies/pods/.kyverno-test/probe.yaml", PROBE);
    write(
        &dir,
        "e2e-chainsaw/upgrade/chainsaw-test.yaml",
        "kind: Test\n",
    );
    write(&dir, "e2e-chainsaw/upgrade/resources/probe.yaml", PROBE);
    write(&dir, "suite/case/00-install.yaml", PROBE);
    write(&dir, "suite/case/00-assert.yaml", "kind: Pod\n");
    // Numbered manifests alone are a deployment in order.
    write(&dir, "ordered/00-probe.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "concise", "."]);
    let out = stdout(&output);
    assert!(out.contains("deploy/probe.yaml:"), "{out}");
    assert!(out.contains("ordered/00-probe.yaml:"), "{out}");
    assert!(!out.contains(".kyverno-test/probe.yaml:"), "{out}");
    assert!(!out.contains("resources/probe.yaml:"), "{out}");
    assert!(!out.contains("00-install.yaml:"), "{out}");
    assert!(
        out.contains("6 files in testdata, golden files, tests' or test harnesses' directories not linted: excluded by default"),
        "{out}"
    );
    let output = run(&dir, &["check", "--show-files", "."]);
    let shown = stdout(&output);
    for line in [
        "policies/pods/.kyverno-test/probe.yaml: skip (excluded by default: in policies/pods/.kyverno-test, a Kyverno CLI test (kyverno-test.yaml)",
        "e2e-chainsaw/upgrade/resources/probe.yaml: skip (excluded by default: in e2e-chainsaw/upgrade, a Chainsaw test (chainsaw-test.yaml)",
        "suite/case/00-install.yaml: skip (excluded by default: in suite/case, a KUTTL or Chainsaw test case (00-assert.yaml)",
    ] {
        assert!(shown.contains(line), "{line}\n{shown}");
    }
    // Named on the command line, a file or a directory is linted.
    let output = run(
        &dir,
        &["check", "--format", "json", "suite/case/00-install.yaml"],
    );
    assert_eq!(findings(&output).len(), 1);
    let output = run(&dir, &["check", "--format", "json", "e2e-chainsaw/upgrade"]);
    assert_eq!(findings(&output).len(), 1);
    // `podcycle init` names them among what the defaults skip.
    let output = run(&dir, &["init", "-"]);
    let written = stdout(&output);
    assert!(
        written.contains("# Skipped here by the default excludes: e2e-chainsaw/upgrade, policies/pods/.kyverno-test, suite/case.\n"),
        "{written}"
    );
    // `exclude` replaces the defaults, these too.
    write(&dir, ".podcycle.yaml", "exclude: [deploy]\n");
    let output = run(&dir, &["check", "--format", "json", "."]);
    let mut files: Vec<String> = findings(&output).into_iter().map(|f| f.0).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "e2e-chainsaw/upgrade/resources/probe.yaml",
            "ordered/00-probe.yaml",
            "policies/pods/.kyverno-test/probe.yaml",
            "suite/case/00-install.yaml",
        ]
    );
}

/// A program's tests and their inputs live in directories named for them; one so named that is
/// a Kustomize root (an environment called `test`) is deployed, and linted.
#[test]
fn directories_named_for_tests_are_excluded_by_default_unless_deployed() {
    let dir = workspace("tests-excludes");
    write(&dir, "deploy/probe.yaml", PROBE);
    write(&dir, "test/e2e/manifests/probe.yaml", PROBE);
    write(&dir, "controller/injector/fake/data/probe.yaml", PROBE);
    write(&dir, "web/__fixtures__/probe.yaml", PROBE);
    write(
        &dir,
        "envs/test/kustomization.yaml",
        "resources: [probe.yaml]\n",
    );
    write(&dir, "envs/test/probe.yaml", PROBE);
    // Names that only look like it are linted.
    write(&dir, "latest/probe.yaml", PROBE);
    write(&dir, "e2e-env/probe.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "json", "."]);
    let mut files: Vec<String> = findings(&output).into_iter().map(|f| f.0).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "deploy/probe.yaml",
            "e2e-env/probe.yaml",
            "envs/test/probe.yaml",
            "latest/probe.yaml",
        ]
    );
    let output = run(&dir, &["check", "--format", "concise", "."]);
    let out = stdout(&output);
    assert!(
        out.contains("3 files in testdata, golden files, tests' or test harnesses' directories not linted: excluded by default"),
        "{out}"
    );
    let output = run(&dir, &["check", "--show-files", "."]);
    let shown = stdout(&output);
    assert!(
        shown.contains("test/e2e/manifests/probe.yaml: skip (excluded by default: in test/e2e, a directory of tests"),
        "{shown}"
    );
    assert!(
        shown.contains("controller/injector/fake/data/probe.yaml: skip (excluded by default: in controller/injector/fake, a directory of tests"),
        "{shown}"
    );
    // Named on the command line, it is linted.
    let output = run(&dir, &["check", "--format", "json", "test/e2e"]);
    assert_eq!(findings(&output).len(), 1);
    // `podcycle init` names them; `exclude` replaces the defaults.
    let output = run(&dir, &["init", "-"]);
    let written = stdout(&output);
    assert!(
        written.contains("# Skipped here by the default excludes: controller/injector/fake, test, web/__fixtures__.\n"),
        "{written}"
    );
    write(&dir, ".podcycle.yaml", "exclude: []\n");
    let output = run(&dir, &["check", "--format", "json", "."]);
    assert_eq!(findings(&output).len(), 7);
}

/// Only `testdata` itself is Go's directory of test inputs: a directory whose name merely
/// looks like it is linted unless the configuration adds it.
#[test]
fn only_a_directory_named_testdata_is_excluded_by_default() {
    let dir = workspace("testdata-lookalikes");
    write(&dir, "pkg/testdata2/probe.yaml", PROBE);
    write(&dir, "pkg/test-data/probe.yaml", PROBE);
    write(&dir, "pkg/testdata-old/probe.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "json", "."]);
    let mut files: Vec<String> = findings(&output).into_iter().map(|f| f.0).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "pkg/test-data/probe.yaml",
            "pkg/testdata-old/probe.yaml",
            "pkg/testdata2/probe.yaml"
        ]
    );
    write(
        &dir,
        ".podcycle.yaml",
        "extend-exclude: [testdata2, test-data]\n",
    );
    let output = run(&dir, &["check", "--format", "json", "."]);
    let files: Vec<String> = findings(&output).into_iter().map(|f| f.0).collect();
    assert_eq!(files, ["pkg/testdata-old/probe.yaml"]);
}

#[test]
fn configuration_errors_are_located_and_exit_2() {
    let dir = workspace("invalid");
    write(&dir, "pod.yaml", POD);
    write(
        &dir,
        ".podcycle.yaml",
        "# settings\nselect: [advice]\nignroe: [correctness]\n",
    );
    let output = run(&dir, &["check", "pod.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(err.contains("error: unknown key `ignroe`"), "{err}");
    assert!(err.contains(".podcycle.yaml:3:1"), "{err}");
    assert!(err.contains("did you mean `ignore`?"), "{err}");
    assert!(stdout(&output).is_empty());

    write(
        &dir,
        ".podcycle.yaml",
        "select: [advise]\nseverity: {duplicate-key: fatal}\n",
    );
    let err = stderr(&run(&dir, &["check", "pod.yaml"]));
    assert!(err.contains(".podcycle.yaml:1:10"), "{err}");
    assert!(err.contains("did you mean `advice`?"), "{err}");
    assert!(err.contains("unknown severity `fatal`"), "{err}");

    let output = run(&dir, &["check", "--config", "missing.yaml", "pod.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot read configuration missing.yaml"));
    // --no-config skips the broken file.
    assert_eq!(
        run(&dir, &["check", "--no-config", "pod.yaml"])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn output_goes_to_a_file() {
    let dir = workspace("output");
    write(&dir, "probe.yaml", PROBE);
    let output = run(
        &dir,
        &[
            "check",
            "--format",
            "sarif",
            "--output",
            "out/report.sarif",
            "probe.yaml",
        ],
    );
    // The directory does not exist: a usage error, not a panic.
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("cannot write out/report.sarif"));
    fs::create_dir(dir.join("out")).unwrap();
    let output = run(
        &dir,
        &[
            "check",
            "--format",
            "sarif",
            "-o",
            "out/report.sarif",
            "probe.yaml",
        ],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).is_empty());
    // The report is in the file, and the log still says what was found.
    assert_eq!(stderr(&output), "Found 1 error in 1 of 1 file.\n");
    let sarif: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(dir.join("out/report.sarif")).unwrap()).unwrap();
    let result = &sarif["runs"][0]["results"][0];
    assert_eq!(result["ruleId"], "init-container-probe");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        9
    );
    let base = sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
}

#[test]
fn init_writes_a_starter_configuration_once() {
    let dir = workspace("init");
    let output = run(&dir, &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = fs::read_to_string(dir.join(".podcycle.yaml")).unwrap();
    assert!(written.starts_with("# yaml-language-server: $schema="));
    let again = run(&dir, &["init"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(stderr(&again).contains("already exists"));
    assert_eq!(run(&dir, &["init", "--force"]).status.code(), Some(0));
    assert_eq!(stdout(&run(&dir, &["init", "-"])), written);
    // The starter configuration is valid and changes nothing.
    write(&dir, "pod.yaml", POD);
    let output = run(&dir, &["check", "--format", "json", "pod.yaml"]);
    assert_eq!(
        findings(&output),
        [finding("pod.yaml", "poststart-delays-containers", "info")]
    );
}

#[test]
fn init_writes_the_excludes_it_detects() {
    let dir = workspace("init-excludes");
    write(&dir, "deploy/probe.yaml", PROBE);
    write(&dir, "tests/probe.yaml", PROBE);
    write(&dir, "docs/test/readme.md", "no manifests\n");
    write(&dir, "pkg/testdata/probe.yaml", PROBE);
    let output = run(&dir, &["init"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let written = fs::read_to_string(dir.join(".podcycle.yaml")).unwrap();
    assert!(
        written.contains("# Skipped here by the default excludes: pkg/testdata, tests.\n"),
        "{written}"
    );
    assert!(!written.contains("\nextend-exclude:"), "{written}");
    assert!(
        stderr(&output).contains("(it names the 2 directories the default excludes skip here)"),
        "{}",
        stderr(&output)
    );
    let output = run(&dir, &["check", "--format", "json", "."]);
    assert_eq!(
        findings(&output),
        [finding(
            "deploy/probe.yaml",
            "init-container-probe",
            "error"
        )]
    );
}

#[test]
fn annotations_suppress_in_rendered_manifests_on_stdin() {
    let dir = workspace("stdin");
    let rendered = PROBE.replace(
        "  name: migrate\n",
        "  name: migrate\n  annotations:\n    podcycle.io/ignore: init-container-probe\n    podcycle.io/ignore-reason: removed by our admission webhook\n",
    );
    let output = check_stdin(&dir, None, &rendered);
    assert_eq!(findings(&output), []);
    assert_eq!(output.status.code(), Some(0));
    let output = check_stdin(&dir, Some("chart/rendered.yaml"), PROBE);
    assert_eq!(
        findings(&output),
        [finding(
            "chart/rendered.yaml",
            "init-container-probe",
            "error"
        )]
    );
}

#[test]
fn the_stdin_filename_finds_its_configuration() {
    let dir = workspace("stdin-config");
    write(&dir, "chart/.podcycle.yaml", "ignore: [correctness]\n");
    let output = check_stdin(&dir, Some("chart/rendered.yaml"), PROBE);
    assert_eq!(findings(&output), []);
}

#[test]
fn github_annotations_and_junit_from_the_command_line() {
    let dir = workspace("formats");
    write(&dir, "probe.yaml", PROBE);
    let output = run(&dir, &["check", "--format", "github", "probe.yaml"]);
    let out = stdout(&output);
    assert!(
        out.starts_with("::error file=probe.yaml,line=9,endLine=9,col=5,endColumn=18,title=podcycle(init-container-probe)::"),
        "{out}"
    );
    let output = run(&dir, &["check", "--format", "junit", "probe.yaml"]);
    let out = stdout(&output);
    assert!(
        out.contains("<testcase name=\"Pod/migrate\" classname=\"probe.yaml\">"),
        "{out}"
    );
    assert!(out.contains("type=\"init-container-probe\""), "{out}");
}

/// Findings of two rules that `invalid-value` was split into: `negative-probe-field` (line 9)
/// and `invalid-container-port` (line 12).
const SPLIT: &str = "\
apiVersion: v1
kind: Pod
metadata:
  name: web
spec:
  containers:
  - name: web
    image: nginx:1.25
    readinessProbe: {tcpSocket: {port: 8080}, periodSeconds: -5}
    ports:
    - containerPort: 8080
      protocol: tcp
";

#[test]
fn a_former_rule_name_selects_ignores_and_sets_the_severity_of_its_successors() {
    let dir = workspace("former-name");
    write(&dir, "pod.yaml", SPLIT);
    let all = findings(&run(&dir, &["check", "--format", "json", "pod.yaml"]));
    assert_eq!(
        all,
        [
            finding("pod.yaml", "negative-probe-field", "error"),
            finding("pod.yaml", "invalid-container-port", "error"),
        ]
    );
    let selected = run(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--select",
            "invalid-value",
            "pod.yaml",
        ],
    );
    assert_eq!(findings(&selected), all, "{}", stderr(&selected));
    let ignored = run(
        &dir,
        &[
            "check",
            "--format",
            "json",
            "--ignore",
            "invalid-value",
            "pod.yaml",
        ],
    );
    assert_eq!(findings(&ignored), [], "{}", stderr(&ignored));

    write(
        &dir,
        ".podcycle.yaml",
        "severity:\n  invalid-value: warning\n",
    );
    let lowered = run(&dir, &["check", "--format", "json", "pod.yaml"]);
    assert_eq!(
        findings(&lowered),
        [
            finding("pod.yaml", "negative-probe-field", "warning"),
            finding("pod.yaml", "invalid-container-port", "warning"),
        ],
        "{}",
        stderr(&lowered)
    );
}

#[test]
fn a_suppression_of_a_former_rule_name_silences_its_successors() {
    let dir = workspace("former-name-suppression");
    let suppressed = SPLIT.replace(
        "    ports:\n",
        "    # podcycle: ignore[invalid-value] the port is declared by the chart's values\n    ports:\n",
    );
    let output = check_stdin(&dir, Some("pod.yaml"), &suppressed);
    // The port finding is silenced, and the suppression is used, so not reported.
    assert_eq!(
        findings(&output),
        [finding("pod.yaml", "negative-probe-field", "error")]
    );
    let useless = SPLIT.replace(
        "  containers:\n",
        "  # podcycle: ignore[invalid-value] nothing of it is here\n  activeDeadlineSeconds: 60\n  containers:\n",
    );
    let output = check_stdin(&dir, Some("pod.yaml"), &useless);
    assert!(
        findings(&output).contains(&finding("pod.yaml", "unused-suppression", "warning")),
        "{}",
        stdout(&output)
    );
}

#[test]
fn the_rule_command_lists_the_successors_of_a_former_name() {
    let dir = workspace("former-name-rule");
    let output = run(&dir, &["rule", "invalid-value"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    for successor in [
        "negative-probe-field",
        "invalid-container-port",
        "missing-containers",
    ] {
        assert!(text.contains(&format!("- {successor}: ")), "{text}");
    }
}

/// `--isolated` reads no configuration but the one named with `--config`, for `explain` as for
/// `check`: a pull request's `.podcycle.yaml` — here one whose release would be a flag of
/// Helm's — changes nothing of what runs.
#[test]
fn isolated_runs_read_no_configuration_of_the_tree() {
    let dir = workspace("isolated");
    write(
        &dir,
        ".podcycle.yaml",
        "helm:\n  charts:\n  - path: web\n    release: --post-renderer=/bin/sh\n",
    );
    write(
        &dir,
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: a, image: x}\n",
    );
    for command in ["check", "explain"] {
        let read = run(&dir, &[command, "--no-render", "pod.yaml"]);
        assert_eq!(read.status.code(), Some(2), "{command}: {}", stderr(&read));
        assert!(
            stderr(&read).contains("is not a release name Helm takes"),
            "{command}: {}",
            stderr(&read)
        );
        let isolated = run(&dir, &[command, "--isolated", "--no-render", "pod.yaml"]);
        assert_eq!(
            isolated.status.code(),
            Some(0),
            "{command}: {}",
            stderr(&isolated)
        );
    }
}

/// A StatefulSet with `maxUnavailable`, whose gate (MaxUnavailableStatefulSet) was on by
/// default in 1.35.0 to 1.35.3 and is off from 1.35.4.
const STATEFULSET_MAX_UNAVAILABLE: &str = "apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: cache
spec:
  serviceName: cache
  replicas: 6
  selector:
    matchLabels: {app: cache}
  updateStrategy:
    rollingUpdate:
      maxUnavailable: 2
  template:
    metadata:
      labels: {app: cache}
    spec:
      containers:
      - name: cache
        image: example/cache:1.0
";

#[test]
fn kube_version_takes_a_patch_release_from_the_flag_and_the_configuration() {
    let dir = workspace("patch-version");
    write(&dir, "sts.yaml", STATEFULSET_MAX_UNAVAILABLE);
    let rules = |args: &[&str]| -> Vec<String> {
        let mut all = vec![
            "check",
            "--format",
            "json",
            "--select",
            "unsupported-feature",
        ];
        all.extend(args);
        all.push("sts.yaml");
        findings(&run(&dir, &all))
            .into_iter()
            .map(|(_, rule, _)| rule)
            .collect()
    };
    // As `kubectl version` prints the server, and with a vendor's suffix.
    for quiet in ["1.35.2", "v1.35.3", "v1.35.0-eks-4c5d6e", "1.37"] {
        assert!(rules(&["--kube-version", quiet]).is_empty(), "{quiet}");
    }
    for dropped in ["1.35.4", "1.35", "v1.35.7+k3s1", "1.36.1"] {
        assert_eq!(
            rules(&["--kube-version", dropped]),
            ["unsupported-feature"],
            "{dropped}"
        );
    }
    write(&dir, ".podcycle.yaml", "kube-version: \"1.35.2\"\n");
    assert!(rules(&[]).is_empty());
    let shown = stdout(&run(&dir, &["check", "--show-settings", "sts.yaml"]));
    assert!(shown.contains("kube-version: 1.35.2\n"), "{shown}");
    write(&dir, ".podcycle.yaml", "kube-version: \"1.35.4\"\n");
    assert_eq!(rules(&[]), ["unsupported-feature"]);

    // A malformed version is refused with the forms it takes, on the command line and at the
    // configuration's key.
    let output = run(&dir, &["check", "--kube-version", "1.35.x", "sts.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("invalid Kubernetes version `1.35.x`; write it as 1.MINOR or 1.MINOR.PATCH"),
        "{err}"
    );
    write(&dir, ".podcycle.yaml", "kube-version: \"1.35.2.1\"\n");
    let output = run(&dir, &["check", "sts.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    assert!(
        err.contains("invalid Kubernetes version `1.35.2.1`"),
        "{err}"
    );
    assert!(err.contains(".podcycle.yaml:1:15"), "{err}");
    assert!(err.contains("`MAJOR.MINOR.PATCH`"), "{err}");
}
