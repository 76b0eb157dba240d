//! `podcycle explain`: every format pinned by snapshots over `testdata/explain/`, Mermaid
//! output checked against the Gantt grammar, the command line's exit codes and messages, and
//! the outputs shown in docs/explain.md kept current.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

use crate::common::{self, check_mermaid, output_with_stdin, stderr, stdout};

use podcycle::cli::explain_for_tests;
use podcycle::explain::ExplainFormat;

const FORMATS: [(ExplainFormat, &str); 3] = [
    (ExplainFormat::Text, "text"),
    (ExplainFormat::Json, "json"),
    (ExplainFormat::Mermaid, "mermaid"),
];

fn yaml_files(dir: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::from(dir)];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[test]
fn output_is_deterministic() {
    let path = Path::new("testdata/explain/prestop-sleep.yaml");
    let text = fs::read_to_string(path).unwrap();
    for (format, _) in FORMATS {
        let first = explain_for_tests(&shown(path), &text, format);
        assert_eq!(first, explain_for_tests(&shown(path), &text, format));
    }
}

/// Whatever the rule fixtures hold — syntax errors, alias bombs, wrong types — explain
/// answers without panicking, and its charts stay valid.
#[test]
fn explain_survives_every_rule_fixture() {
    for path in yaml_files("rules") {
        let text = fs::read_to_string(&path).unwrap();
        for (format, _) in FORMATS {
            let output = explain_for_tests(&shown(&path), &text, format);
            if format == ExplainFormat::Mermaid {
                check_mermaid(&shown(&path), &output);
            }
        }
    }
}

#[test]
fn the_json_follows_the_documented_schema() {
    let text = fs::read_to_string("testdata/explain/sidecar-startup-probe.yaml").unwrap();
    let output = explain_for_tests("shop.yaml", &text, ExplainFormat::Json);
    let json: serde_json::Value = serde_json::from_str(&output).unwrap();
    let pod = &json["pods"][0];
    assert_eq!(pod["field"], "spec.template.spec");
    assert_eq!(pod["object"]["kind"], "Deployment");
    let startup = pod["startup"].as_array().unwrap();
    assert_eq!(startup[0]["container"], "envoy");
    assert_eq!(startup[0]["role"], "sidecar");
    assert_eq!(startup[1]["waits_for"][0]["container"], "envoy");
    assert_eq!(startup[1]["waits_for"][0]["event"], "started");
    let probe = &startup[0]["probes"]["startup"];
    assert_eq!(probe["window_bounds_seconds"]["min"], 30);
    assert_eq!(probe["window_bounds_seconds"]["max"], 33);
    let shutdown = &pod["shutdown"];
    assert_eq!(shutdown["grace_period_seconds"], 30);
    assert_eq!(shutdown["hard_bound_seconds"], 32);
    let containers = shutdown["containers"].as_array().unwrap();
    assert_eq!(containers[0]["container"], "shop");
    assert_eq!(containers[0]["stop_order"], 0);
    assert_eq!(containers[0]["term_window_seconds"], 30);
    assert_eq!(containers[1]["container"], "envoy");
    assert_eq!(containers[1]["stop_order"], 1);
    assert!(containers[1]["term_window_seconds"].is_null());
}

/// The cases where `explain` used to contradict `check`: each is now told the same way by
/// both, and the timeline no longer shows what cannot happen.
#[test]
fn explain_no_longer_contradicts_check() {
    let explain = |yaml: &str| explain_for_tests("p.yaml", yaml, ExplainFormat::Text);
    let json = |yaml: &str| -> serde_json::Value {
        serde_json::from_str(&explain_for_tests("p.yaml", yaml, ExplainFormat::Json)).unwrap()
    };
    // A readiness probe on a port the container does not declare never passes.
    let undeclared = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: web\n    image: nginx\n    readinessProbe:\n      httpGet: {path: /, port: http}\n";
    let text = explain(undeclared);
    assert!(
        text.contains("never passes (the container declares no port `http`)"),
        "{text}"
    );
    assert!(text.contains("the pod never becomes Ready"), "{text}");
    assert!(!text.contains("Ready ≥0s"), "{text}");
    assert!(json(undeclared)["pods"][0]["earliest_ready_seconds"].is_null());
    // A classic init container that never exits does not run to completion.
    let never = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - name: proxy\n    image: envoyproxy/envoy:v1.31\n  containers:\n  - name: web\n    image: nginx\n";
    let text = explain(never);
    assert!(text.contains("proxy ─never exits→ web"), "{text}");
    assert!(!text.contains("runs to completion"), "{text}");
    assert!(!text.contains("exit 0"), "{text}");
    // A native sidecar on 1.28 is a classic init container that keeps running.
    let sidecar = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - name: proxy\n    image: example/proxy:1\n    restartPolicy: Always\n  containers:\n  - name: web\n    image: nginx\n";
    let settings = podcycle::settings::Settings::default()
        .with_kube_version(podcycle::versions::KubeVersion::new(28));
    let text =
        podcycle::cli::explain_for_tests_with("p.yaml", sidecar, ExplainFormat::Text, &settings);
    assert!(text.contains("never exits (a sidecar runs until it is stopped, and Kubernetes 1.28 drops its `restartPolicy: Always`)"), "{text}");
    assert!(!text.contains("runs to completion"), "{text}");
    // A preStop sleep longer than the grace period is rejected: no shutdown is drawn.
    let rejected = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  terminationGracePeriodSeconds: 60\n  containers:\n  - name: web\n    image: nginx\n    lifecycle:\n      preStop:\n        sleep: {seconds: 90}\n";
    let text = explain(rejected);
    assert!(!text.contains("cut off"), "{text}");
    assert!(
        text.contains("the API server rejects the pod, so this shutdown never happens"),
        "{text}"
    );
    assert_eq!(
        json(rejected)["pods"][0]["shutdown"]["containers"][0]["prestop_rejected"],
        true
    );
    let mermaid = explain_for_tests("p.yaml", rejected, ExplainFormat::Mermaid);
    assert!(!mermaid.contains("cut off"), "{mermaid}");
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Any mix of containers, hooks, probes and grace periods — valid or not, with extreme
    /// numbers — is explained without a panic, and its charts stay valid Mermaid.
    #[test]
    fn any_pod_spec_is_explained(
        containers in proptest::collection::vec(
            (0..3u8, 0..5u8, 0..5u8, proptest::num::i64::ANY, proptest::option::of(proptest::num::i32::ANY)),
            0..5,
        ),
        grace in proptest::option::of(proptest::num::i64::ANY),
    ) {
        let mut yaml = String::from("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n");
        if let Some(grace) = grace {
            yaml.push_str(&format!("  terminationGracePeriodSeconds: {grace}\n"));
        }
        let (init, app): (Vec<_>, Vec<_>) = containers.iter().enumerate().partition(|(_, c)| c.0 < 2);
        for (list, items) in [("initContainers", init), ("containers", app)] {
            yaml.push_str(&format!("  {list}:\n"));
            for (index, &(kind, post_start, pre_stop, seconds, probe)) in items {
                yaml.push_str(&format!("  - name: c{index}\n"));
                if kind == 1 {
                    yaml.push_str("    restartPolicy: Always\n");
                }
                let hook = |which: u8| match which {
                    1 => format!("sleep: {{seconds: {seconds}}}"),
                    2 => format!("exec: {{command: [sleep, \"{seconds}\"]}}"),
                    3 => "tcpSocket: {port: 80}".to_owned(),
                    _ => "exec: {command: [/drain]}".to_owned(),
                };
                if post_start > 0 || pre_stop > 0 {
                    yaml.push_str("    lifecycle:\n");
                    if post_start > 0 {
                        yaml.push_str(&format!("      postStart: {{{}}}\n", hook(post_start)));
                    }
                    if pre_stop > 0 {
                        yaml.push_str(&format!("      preStop: {{{}}}\n", hook(pre_stop)));
                    }
                }
                if let Some(n) = probe {
                    for name in ["startupProbe", "readinessProbe", "livenessProbe"] {
                        yaml.push_str(&format!(
                            "    {name}: {{exec: {{command: [\"true\"]}}, initialDelaySeconds: {n}, periodSeconds: {n}, failureThreshold: {n}, timeoutSeconds: {n}, successThreshold: {n}, terminationGracePeriodSeconds: {}}}\n",
                            i64::from(n) * 3
                        ));
                    }
                }
            }
        }
        for (format, _) in FORMATS {
            let output = explain_for_tests("p.yaml", &yaml, format);
            proptest::prop_assert!(!output.is_empty(), "nothing explained:\n{yaml}");
            if format == ExplainFormat::Mermaid {
                check_mermaid("p.yaml", &output);
            }
        }
    }
}

// ---- the command line ----

fn podcycle(args: &[&str], stdin: Option<&str>) -> Output {
    match stdin {
        Some(input) => output_with_stdin(common::podcycle().args(args), input.as_bytes()),
        None => common::run(args),
    }
}

#[test]
fn explains_a_file_and_exits_0() {
    let output = podcycle(&["explain", "testdata/explain/poststart-exec.yaml"], None);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("Pod/startup-sequence-test"), "{text}");
    assert!(
        text.contains("after container1's postStart returns"),
        "{text}"
    );
    // What is wrong is the findings' to say, as `check` says it.
    assert!(
        text.contains("`container2` starts only after the postStart of `container1` returns"),
        "{text}"
    );
}

#[test]
fn reads_standard_input() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n";
    let output = podcycle(&["explain", "-", "--format", "json"], Some(pod));
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(json["pods"][0]["file"], "-");
}

#[test]
fn selects_one_object_the_way_kubectl_names_it() {
    let output = podcycle(
        &[
            "explain",
            "testdata/explain/workloads.yaml",
            "--object",
            "sts/statefulset",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("StatefulSet/statefulset"), "{text}");
    assert_eq!(text.matches("startup  (").count(), 1, "{text}");
}

#[test]
fn an_unknown_object_is_a_usage_error_with_a_suggestion() {
    let output = podcycle(
        &[
            "explain",
            "testdata/explain/workloads.yaml",
            "--object",
            "Deployment/deploymnt",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "podcycle: error: no object `Deployment/deploymnt` in testdata/explain/workloads.yaml; did you mean `Deployment/deployment`?\n"
    );
    let output = podcycle(
        &[
            "explain",
            "testdata/explain/init-app.yaml",
            "--object",
            "Job/x",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains(
            "no object `Job/x` in testdata/explain/init-app.yaml; it holds `Pod/date-tail`"
        ),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_malformed_object_is_a_usage_error() {
    for (object, expected) in [
        ("web", "expected KIND/NAME"),
        ("Service/web", "`Service` is not a kind with a pod spec"),
        ("Pod/", "the name is missing"),
    ] {
        let output = podcycle(
            &[
                "explain",
                "testdata/explain/init-app.yaml",
                "--object",
                object,
            ],
            None,
        );
        assert_eq!(output.status.code(), Some(2), "{object}");
        assert!(
            stderr(&output).contains(expected),
            "{object}: {}",
            stderr(&output)
        );
    }
}

#[test]
fn selects_one_container() {
    let output = podcycle(
        &[
            "explain",
            "testdata/explain/prestop-sleep.yaml",
            "--container",
            "mesh-proxy",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.contains("mesh-proxy"), "{text}");
    assert!(!text.contains("  api "), "{text}");
    let output = podcycle(
        &[
            "explain",
            "testdata/explain/prestop-sleep.yaml",
            "--container",
            "mesh-prxy",
        ],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no container `mesh-prxy` in testdata/explain/prestop-sleep.yaml; did you mean `mesh-proxy`?"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_missing_path_exits_2_and_no_pod_exits_1() {
    let output = podcycle(&["explain", "testdata/explain/no-such-file.yaml"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no such file or directory"),
        "{}",
        stderr(&output)
    );
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n";
    let output = podcycle(&["explain", "-"], Some(service));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no pod spec found in -"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn an_unreadable_pod_spec_is_named_on_stderr() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: 3\n";
    let output = podcycle(&["explain", "-"], Some(pod));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("Pod/p (-:1) has a pod spec that cannot be read"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn a_patch_without_pod_spec_is_skipped_unless_selected() {
    let patch =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n";
    let output = podcycle(&["explain", "-"], Some(patch));
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("no pod spec found in -"),
        "{}",
        stderr(&output)
    );
    let output = podcycle(&["explain", "-", "--object", "Deployment/web"], Some(patch));
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "podcycle: Deployment/web (-:1) has no pod spec to explain\n"
    );
}

#[test]
fn usage_errors_from_clap_exit_2() {
    let output = podcycle(&["explain", "x.yaml", "--format", "svg"], None);
    assert_eq!(output.status.code(), Some(2));
    let output = podcycle(
        &["explain", "x.yaml", "--config", "c.yaml", "--no-config"],
        None,
    );
    assert_eq!(output.status.code(), Some(2));
}

// ---- docs/explain.md ----

/// docs/explain.md shows real output: each `<!-- podcycle explain FILE --format F -->`
/// marker is followed by a fenced block that must equal what the tool prints today.
#[test]
fn the_docs_show_current_output() {
    let path = Path::new("docs/explain.md");
    let doc = fs::read_to_string(path).unwrap();
    let mut updated = String::new();
    let mut stale = Vec::new();
    let mut rest = doc.as_str();
    let marker = "<!-- podcycle explain ";
    while let Some(at) = rest.find(marker) {
        let line_end = at + rest[at..].find('\n').unwrap() + 1;
        let args: Vec<&str> = rest[at + marker.len()..line_end]
            .trim_end()
            .trim_end_matches("-->")
            .split_whitespace()
            .collect();
        let (rollout, args) = match args.split_first() {
            Some((&"--rollout", rest)) => (true, rest.to_vec()),
            _ => (false, args),
        };
        let [file, "--format", format] = args[..] else {
            panic!("malformed marker: {}", &rest[at..line_end]);
        };
        let format = match format {
            "text" => ExplainFormat::Text,
            "json" => ExplainFormat::Json,
            "mermaid" => ExplainFormat::Mermaid,
            other => panic!("unknown format {other}"),
        };
        let input = fs::read_to_string(file).unwrap();
        let output = if rollout {
            podcycle::cli::explain_rollout_for_tests(
                file,
                &input,
                format,
                &podcycle::settings::Settings::default(),
            )
        } else {
            explain_for_tests(file, &input, format)
        };
        // The block: a fence of four backticks (the Mermaid output holds fences of three).
        let after = &rest[line_end..];
        let (fence, language) = match format {
            ExplainFormat::Mermaid => ("````", "markdown"),
            ExplainFormat::Text => ("```", "text"),
            ExplainFormat::Json => ("```", "json"),
        };
        let open = format!("{fence}{language}\n");
        let close = format!("{fence}\n");
        let block_end = if after.starts_with(&open) {
            let body = &after[open.len()..];
            open.len() + body.find(&close).expect("a closed block") + close.len()
        } else {
            0
        };
        let expected = format!("{open}{output}{close}");
        if after[..block_end] != expected {
            stale.push(format!("{file} --format {}", args[2]));
        }
        updated.push_str(&rest[..line_end]);
        updated.push_str(&expected);
        rest = &after[block_end..];
    }
    updated.push_str(rest);
    if stale.is_empty() {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        fs::write(path, updated).unwrap();
    } else {
        panic!(
            "docs/explain.md shows stale output for: {}\nrun `UPDATE_DOCS=1 cargo test --test it explain::` to refresh it",
            stale.join(", ")
        );
    }
}

/// The findings under a timeline are those `check` reports: suppressed ones are left out.
#[test]
fn suppressed_findings_are_not_listed() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - name: init\n    image: busybox:1.36\n    readinessProbe: {exec: {command: [\"true\"]}}\n  containers:\n  - {name: app, image: example/app:1.0}\n";
    let shown = explain_for_tests("pod.yaml", pod, ExplainFormat::Text);
    assert!(shown.contains("error[init-container-probe]"), "{shown}");
    let suppressed = pod.replace(
        "    readinessProbe:",
        "    # podcycle: ignore[init-container-probe] migrating to a sidecar next sprint\n    readinessProbe:",
    );
    let shown = explain_for_tests("pod.yaml", &suppressed, ExplainFormat::Text);
    assert!(!shown.contains("init-container-probe"), "{shown}");
}

/// `--kube-version` judges the findings listed under the timeline.
#[test]
fn kube_version_judges_the_findings() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - {name: proxy, image: example/proxy:1.0, restartPolicy: Always}\n  containers:\n  - {name: app, image: example/app:1.0}\n";
    let newest = podcycle(&["explain", "-"], Some(pod));
    assert!(
        !stdout(&newest).contains("unsupported-feature"),
        "{}",
        stdout(&newest)
    );
    let old = podcycle(&["explain", "--kube-version", "1.28", "-"], Some(pod));
    assert!(
        stdout(&old).contains("error[unsupported-feature]"),
        "{}",
        stdout(&old)
    );
    let bad = podcycle(&["explain", "--kube-version", "2.0", "-"], Some(pod));
    assert_eq!(bad.status.code(), Some(2));
}

/// A directory with a pod whose postStart holds back the next container
/// (`poststart-delays-containers`), and a configuration that ignores that rule.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("pod.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: hooked}\nspec:\n  containers:\n  - name: a\n    image: x\n    lifecycle:\n      postStart: {sleep: {seconds: 5}}\n  - name: b\n    image: x\n",
    )
    .unwrap();
    fs::write(
        dir.path().join(".podcycle.yaml"),
        "ignore: [poststart-delays-containers]\n",
    )
    .unwrap();
    dir
}

fn explain_in(dir: &Path, args: &[&str]) -> Output {
    common::podcycle()
        .arg("explain")
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("podcycle runs")
}

#[test]
fn explains_the_current_directory_by_default_with_its_configuration() {
    let dir = project();
    let output = explain_in(dir.path(), &[]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(text.starts_with("Pod/hooked  pod.yaml:4"), "{text}");
    // The configuration ignores the rule, as `check` would.
    assert!(!text.contains("poststart-delays-containers"), "{text}");
}

#[test]
fn config_and_no_config_choose_the_configuration_as_for_check() {
    let dir = project();
    let output = explain_in(dir.path(), &["--no-config", "pod.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("info[poststart-delays-containers]"));

    fs::write(
        dir.path().join("strict.yaml"),
        "severity:\n  poststart-delays-containers: error\n",
    )
    .unwrap();
    let output = explain_in(dir.path(), &["--config", "strict.yaml", "pod.yaml"]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("error[poststart-delays-containers]"),
        "{}",
        stdout(&output)
    );

    fs::write(dir.path().join("broken.yaml"), "ignor: [x]\n").unwrap();
    let output = explain_in(dir.path(), &["--config", "broken.yaml", "pod.yaml"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stdout(&output).is_empty(), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("broken.yaml"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn no_pod_gives_a_valid_empty_json_result() {
    let service = "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n";
    let output = podcycle(&["explain", "-", "--format", "json"], Some(service));
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("valid JSON");
    assert_eq!(json, serde_json::json!({"pods": []}));
}

#[test]
fn every_container_is_killed_by_the_latest_sigkill() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - {name: app, image: x}\n";
    let output = podcycle(&["explain", "-"], Some(pod));
    let text = stdout(&output);
    assert!(text.contains("every container is killed by 30s"), "{text}");
    assert!(text.contains("SIGKILL at 30s"), "{text}");
}

#[test]
fn a_container_without_a_name_is_named_by_its_place() {
    let pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers:\n  - image: busybox\n    command: [sleep, '5']\n  containers:\n  - {name: web, image: x, lifecycle: {postStart: {sleep: {seconds: 3}}}}\n  - image: x\n    lifecycle:\n      postStart: {sleep: {seconds: 2}}\n";
    for format in ["text", "mermaid", "json"] {
        let output = podcycle(&["explain", "-", "--format", format], Some(pod));
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        let out = stdout(&output);
        assert!(out.contains("the 2nd container"), "{format}: {out}");
        assert!(out.contains("the 1st init container"), "{format}: {out}");
        // The timeline never prints a name empty (the findings are `check`'s messages).
        if format == "json" {
            assert!(!out.contains("\"container\": \"\""), "{out}");
            continue;
        }
        let timeline = out
            .lines()
            .filter(|l| !l.contains("invalid-value") && !l.contains("poststart-delays-containers"));
        for line in timeline {
            assert!(
                line.starts_with("```") || !line.contains("``"),
                "{format}: {line}"
            );
        }
    }
    let output = podcycle(&["explain", "-"], Some(pod));
    let text = stdout(&output);
    assert!(text.contains("the 1st init container sleeps 5s"), "{text}");
}

/// `explain --rollout --format json` lists every budget a rollout names, once. Budgets are
/// listed by their group, known by its address; a file that is its own scope drops its groups
/// once explained, and the next file's were often made at the same address, so that their
/// budgets were left out of the list (half of them here).
#[test]
fn every_budget_a_rollout_names_is_listed() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..30 {
        let text = format!(
            "apiVersion: apps/v1
kind: Deployment
metadata: {{name: web-{n}}}
spec:
  replicas: 2
  selector:
    matchLabels: {{app: web-{n}}}
  template:
    metadata:
      labels: {{app: web-{n}}}
    spec:
      containers:
        - {{name: web, image: web:1}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: web-{n}}}
spec:
  minAvailable: 1
  selector:
    matchLabels: {{app: web-{n}}}
"
        );
        common::write(dir.path(), &format!("s{n}/all.yaml"), &text);
    }
    let output = common::podcycle()
        .args([
            "explain",
            "--no-config",
            "--rollout",
            "--format",
            "json",
            ".",
        ])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let listed: Vec<&str> = json["disruption_budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|budget| budget["id"].as_str().unwrap())
        .collect();
    let mut named: Vec<&str> = json["rollouts"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|rollout| rollout["disruption_budgets"].as_array().unwrap())
        .map(|id| id.as_str().unwrap())
        .collect();
    assert_eq!(named.len(), 30);
    named.sort_unstable();
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, named, "each named budget listed once");
}

/// `explain` marks where each platform in effect stops the pod — placed there by the spec, or
/// named by `--platform` — in every format, and the steps that do not happen; the same
/// platforms `check`'s findings name.
#[test]
fn the_shutdown_shows_each_platform_s_cut() {
    let spot = "rules/shutdown-exceeds-platform-notice/gke-spot.yaml";
    let text = stdout(&common::run(&["explain", "--no-config", spot]));
    assert!(
        text.contains(
            "✂ gke-spot: GKE's graceful node shutdown on a Spot preemption stops the pod at 15s"
        ),
        "{text}"
    );
    assert!(
        text.contains("does not happen: the rest of api's preStop hook after 15s"),
        "{text}"
    );
    assert!(
        text.contains("proxy's stop after the app containers"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_slice(
        &common::run(&["explain", "--no-config", "--format", "json", spot]).stdout,
    )
    .unwrap();
    for pod in json["pods"].as_array().unwrap() {
        let cuts = pod["shutdown"]["platform_cuts"].as_array().unwrap();
        assert_eq!(cuts.len(), 1, "{pod}");
        assert_eq!(cuts[0]["platform"], "gke-spot");
        assert_eq!(cuts[0]["seconds"], 15);
        // `check` judges the same platform on the same pod.
        let findings = pod["findings"].as_array().unwrap();
        assert!(
            findings
                .iter()
                .any(|f| f["rule"] == "shutdown-exceeds-platform-notice"
                    && f["platform"] == "gke-spot"),
            "{pod}"
        );
    }
    let mermaid = stdout(&common::run(&[
        "explain",
        "--no-config",
        "--format",
        "mermaid",
        spot,
    ]));
    assert!(
        mermaid.contains("gke-spot stops the pod at 15s :crit, milestone"),
        "{mermaid}"
    );
    check_mermaid(spot, &mermaid);

    let off_spot = "rules/shutdown-exceeds-platform-notice/named-platform.yaml";
    let quiet = stdout(&common::run(&["explain", "--no-config", off_spot]));
    assert!(!quiet.contains('✂'), "{quiet}");
    let named = stdout(&common::run(&[
        "explain",
        "--no-config",
        "--platform",
        "gke-spot",
        off_spot,
    ]));
    assert!(
        named.contains("✂ gke-spot:") && named.contains("named by the settings"),
        "{named}"
    );
}
