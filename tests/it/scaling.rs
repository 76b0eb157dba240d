//! Cost that stays linear in the input: `explain` of a pod with thousands of sidecars and app
//! containers, `missing-prestop-delay` with thousands of Services, and the memory `explain`
//! keeps while it streams many pods. Asserted as ratios of sizes and as memory limits with a
//! wide margin — never as wall-clock times.

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{self, output_with_stdin, stdout};

/// A pod with `n` native sidecars and `n` app containers.
fn wide_pod(n: usize) -> String {
    let mut yaml = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: wide}\nspec:\n  initContainers:\n",
    );
    for i in 0..n {
        yaml.push_str(&format!(
            "  - {{name: s{i}, image: x, restartPolicy: Always}}\n"
        ));
    }
    yaml.push_str("  containers:\n");
    for i in 0..n {
        yaml.push_str(&format!("  - {{name: a{i}, image: x}}\n"));
    }
    yaml
}

fn explain_bytes(input: &str, format: &str) -> usize {
    let output = output_with_stdin(
        common::podcycle().args(["explain", "-", "--format", format]),
        input.as_bytes(),
    );
    assert_eq!(output.status.code(), Some(0));
    output.stdout.len()
}

#[test]
fn explaining_many_sidecars_and_app_containers_is_linear() {
    // Each sidecar waits for every app container on shutdown; listing them for each sidecar
    // made the output (and the memory) grow with the square of the containers.
    for format in ["json", "text"] {
        let small = explain_bytes(&wide_pod(300), format);
        let large = explain_bytes(&wide_pod(1200), format);
        let ratio = large as f64 / small as f64;
        assert!(
            ratio < 5.0,
            "{format}: 4 times the containers gave {ratio:.1} times the output ({small} → {large} bytes)"
        );
    }
}

/// A Deployment with `containers` app containers on port 80 and `services` Services that all
/// select it and send traffic to port 80.
fn served_pod(containers: usize, services: usize) -> String {
    let mut yaml = String::from(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n",
    );
    for i in 0..containers {
        yaml.push_str(&format!(
            "      - {{name: c{i}, image: x, ports: [{{containerPort: 80}}]}}\n"
        ));
    }
    for i in 0..services {
        yaml.push_str(&format!(
            "---\napiVersion: v1\nkind: Service\nmetadata: {{name: s{i}}}\nspec: {{selector: {{app: web}}, ports: [{{port: 80}}]}}\n"
        ));
    }
    yaml
}

/// What `check` reports with only `missing-prestop-delay`, in the concise format.
fn missing_prestop(input: &str) -> String {
    let output = output_with_stdin(
        common::podcycle().args([
            "check",
            "-",
            "--select",
            "missing-prestop-delay",
            "--format",
            "concise",
        ]),
        input.as_bytes(),
    );
    stdout(&output)
}

fn missing_prestop_findings(input: &str) -> (usize, usize) {
    let text = missing_prestop(input);
    let findings = text
        .lines()
        .filter(|l| l.contains("[missing-prestop-delay]"))
        .count();
    (findings, text.len())
}

#[test]
fn naming_the_services_of_every_container_is_linear() {
    let (small_findings, small) = missing_prestop_findings(&served_pod(200, 200));
    let (large_findings, large) = missing_prestop_findings(&served_pod(800, 800));
    assert_eq!((small_findings, large_findings), (200, 800));
    // Each message names a few Services and says there are more: 4 times the containers and
    // Services give about 4 times the output, not 16.
    let ratio = large as f64 / small as f64;
    assert!(
        ratio < 5.0,
        "{ratio:.1} times the output ({small} → {large} bytes)"
    );
    let line = missing_prestop(&served_pod(3, 5));
    assert!(
        line.contains("receives traffic from Services `s0`, `s1`, `s2` and more"),
        "{line}"
    );
}

/// Runs `podcycle ARGS` with its output thrown away and returns its peak resident memory in
/// bytes, read from the kernel's accounting of that one child (`wait4`).
#[cfg(target_os = "linux")]
// The child is reaped with `wait4`, which std's `wait` cannot do, to read its own usage.
#[allow(clippy::zombie_processes)]
fn peak_memory(args: &[&str], dir: &Path) -> u64 {
    let child = Command::new(env!("CARGO_BIN_EXE_podcycle"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("podcycle runs");
    let pid = libc::pid_t::try_from(child.id()).expect("a pid");
    let mut stderr = child.stderr.expect("stderr is piped");
    let mut errors = String::new();
    let _ = stderr.read_to_string(&mut errors);
    let mut status = 0;
    // SAFETY: `wait4` fills `status` and `usage`, both valid for writes, for our own child,
    // which nothing else waits for.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let waited = unsafe { libc::wait4(pid, &raw mut status, 0, &raw mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    assert!(libc::WIFEXITED(status), "podcycle did not exit: {errors}");
    // `ru_maxrss` is in kibibytes on Linux.
    u64::try_from(usage.ru_maxrss).expect("a size") * 1024
}

/// `n` Deployments, each with an init container, a native sidecar, hooks and probes.
fn many_pods(n: usize) -> String {
    let mut yaml = String::new();
    for i in 0..n {
        yaml.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web-{i}\nspec:\n  selector:\n    matchLabels: {{app: web}}\n  template:\n    metadata:\n      labels: {{app: web}}\n    spec:\n      initContainers:\n      - name: migrate\n        image: example/migrate:1\n        command: [\"sh\", \"-c\", \"sleep 5; ./migrate\"]\n      - name: proxy\n        image: envoyproxy/envoy:v1.31\n        restartPolicy: Always\n        startupProbe:\n          tcpSocket: {{port: 9901}}\n      containers:\n      - name: web\n        image: example/web:1\n        ports: [{{name: http, containerPort: 8080}}]\n        lifecycle:\n          postStart: {{sleep: {{seconds: 3}}}}\n          preStop: {{sleep: {{seconds: 10}}}}\n        readinessProbe: {{httpGet: {{path: /ready, port: http}}, periodSeconds: 5}}\n"
        ));
    }
    yaml
}

#[cfg(target_os = "linux")]
#[test]
fn explain_streams_pods_in_memory_near_the_input_size() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("one.yaml"), many_pods(1)).unwrap();
    let input = many_pods(2000);
    fs::write(dir.path().join("many.yaml"), &input).unwrap();
    let size = input.len() as u64;
    let check = peak_memory(&["check", "--no-config", "many.yaml"], dir.path());
    for format in ["text", "json"] {
        let base = peak_memory(
            &["explain", "--no-config", "--format", format, "one.yaml"],
            dir.path(),
        );
        let peak = peak_memory(
            &["explain", "--no-config", "--format", format, "many.yaml"],
            dir.path(),
        );
        // Holding every explanation until the end took more than 7 times the input; streaming
        // keeps the file and one document.
        assert!(
            peak.saturating_sub(base) <= 3 * size,
            "{format}: explain of {size} bytes peaked at {peak} bytes ({base} for one pod)"
        );
        // And nothing per pod on top of what linting the file takes.
        assert!(
            peak <= check + check / 4,
            "{format}: explain peaked at {peak} bytes, check at {check}"
        );
    }
}

/// A document of `values` scalars in one flow sequence (`[1,1,…]`, two bytes a value),
/// followed by a Pod whose preStop sleep outlasts its grace period.
fn huge_flow_then_pod(values: usize) -> String {
    let mut yaml = String::with_capacity(values * 2 + 400);
    yaml.push('[');
    yaml.push_str(&"1,".repeat(values));
    yaml.push_str("1]\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: after}\nspec:\n  terminationGracePeriodSeconds: 5\n  containers:\n  - name: app\n    image: example/app:1\n    lifecycle: {preStop: {sleep: {seconds: 30}}}\n");
    yaml
}

#[test]
fn a_document_over_the_value_limit_is_reported_and_the_next_one_linted() {
    // The memory this bounds is measured by `cargo bench --bench memory` (one 50 MB flow
    // sequence); here, what the user sees.
    let input = huge_flow_then_pod(podcycle::yaml::MAX_DOCUMENT_VALUES + 1000);
    let output = output_with_stdin(
        common::podcycle().args(["check", "--no-config", "--format", "json", "-"]),
        input.as_bytes(),
    );
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let diagnostics = report.as_array().unwrap();
    let found: Vec<(&str, &str, u64)> = diagnostics
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap(),
                d["enforcement"].as_str().unwrap(),
                d["line"].as_u64().unwrap(),
            )
        })
        .collect();
    // Reported at the value that would go over, as the API server's; the next document is
    // still linted.
    assert_eq!(
        found,
        [
            ("yaml-syntax", "api-server", 1),
            ("prestop-exceeds-grace-period", "api-server", 11)
        ]
    );
    let first = &diagnostics[0];
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains("more than 2 million values"),
        "{first:#}"
    );
    // The value that would go over: the sequence is the first value, so this is its
    // two millionth item, two bytes an item after the `[`.
    assert_eq!(
        first["column"].as_u64(),
        Some(2 * podcycle::yaml::MAX_DOCUMENT_VALUES as u64)
    );
}

/// Every count a manifest can set to the largest value the API server takes: a Deployment
/// rolled one pod at a time, one scaled by an autoscaler, a StatefulSet's ordinals and a Job's
/// attempts.
const LARGEST_COUNTS: &str = include_str!("../../testdata/scale/largest-counts.yaml");

/// Runs podcycle with `args` in `dir`, stopping it (and failing) once its resident memory
/// passes `limit` bytes or it runs for a minute; returns its output and peak memory.
fn bounded(args: &[&str], dir: &Path, limit: u64) -> (std::process::Output, u64) {
    let mut peak = 0;
    let mut command = common::podcycle();
    command.args(args).current_dir(dir).stdin(Stdio::null());
    let output = common::watched(
        std::time::Duration::from_secs(60),
        &mut command,
        &mut |pid| {
            peak = peak.max(common::high_water(pid));
            if peak > limit {
                // SAFETY: `pid` is our own child, still running.
                unsafe { libc::kill(libc::pid_t::try_from(pid).unwrap(), libc::SIGKILL) };
            }
        },
    );
    assert!(
        peak <= limit,
        "{args:?} passed {limit} bytes of memory ({peak}): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (output, peak)
}

#[cfg(target_os = "linux")]
#[test]
fn the_largest_counts_cost_what_small_ones_do() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("counts.yaml"), LARGEST_COUNTS).unwrap();
    // A run that listed a wave per replica aborted on a 1.6 GB allocation, or grew to many
    // GB; a small file's run stays near the binary's own size.
    const LIMIT: u64 = 200 << 20;
    for args in [
        &["check", "--no-config", "counts.yaml"][..],
        &["check", "--no-config", "--format", "json", "counts.yaml"],
        &["explain", "--no-config", "counts.yaml"],
        &["explain", "--no-config", "--format", "json", "counts.yaml"],
        &["explain", "--no-config", "--rollout", "counts.yaml"],
        &[
            "explain",
            "--no-config",
            "--rollout",
            "--format",
            "json",
            "counts.yaml",
        ],
        &[
            "explain",
            "--no-config",
            "--rollout",
            "--format",
            "mermaid",
            "counts.yaml",
        ],
    ] {
        let (output, _) = bounded(args, dir.path(), LIMIT);
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            output.stdout.len() < 200_000,
            "{args:?} wrote {} bytes",
            output.stdout.len()
        );
    }
    let (text, _) = bounded(
        &["explain", "--no-config", "--rollout", "counts.yaml"],
        dir.path(),
        LIMIT,
    );
    let text = stdout(&text);
    assert!(
        text.contains("… 2147483639 more waves …"),
        "the waves between the first and the last are counted:\n{text}"
    );
    let (json, _) = bounded(
        &[
            "explain",
            "--no-config",
            "--rollout",
            "--format",
            "json",
            "counts.yaml",
        ],
        dir.path(),
        LIMIT,
    );
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let web = json["rollouts"]
        .as_array()
        .and_then(|all| all.iter().find(|r| r["object"]["name"] == "web"))
        .unwrap_or_else(|| panic!("web is explained: {json}"));
    let deployment = &web["deployment"];
    assert_eq!(deployment["wave_count"], 2_147_483_647_i64);
    let numbers: Vec<i64> = deployment["waves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|wave| wave["number"].as_i64().unwrap())
        .collect();
    assert_eq!(
        numbers,
        [1, 2, 3, 4, 5, 2_147_483_645, 2_147_483_646, 2_147_483_647]
    );
}

/// `n` Deployments and `n` PodDisruptionBudgets in one file, every budget over every
/// Deployment's pods.
fn budgets_over_workloads(n: usize) -> String {
    let mut yaml = String::new();
    for i in 0..n {
        yaml.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web-{i}}}\nspec:\n  replicas: 3\n  selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec: {{containers: [{{name: web, image: example/web:1}}]}}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: pdb-{i}}}\nspec:\n  maxUnavailable: 1\n  selector: {{matchLabels: {{app: web}}}}\n"
        ));
    }
    yaml
}

#[test]
fn budgets_over_many_workloads_are_written_once() {
    // Every workload's entry repeated every budget with its list of covered workloads: the
    // output grew with the cube of their number. Now a rollout names its budgets by id (the
    // matches) and each budget is written once: the square.
    let json_bytes = |n: usize| {
        let output = output_with_stdin(
            common::podcycle().args(["explain", "--rollout", "--format", "json", "-"]),
            budgets_over_workloads(n).as_bytes(),
        );
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        output.stdout
    };
    let small = json_bytes(40);
    let json: serde_json::Value = serde_json::from_slice(&small).unwrap();
    assert_eq!(
        json["disruption_budgets"].as_array().map(Vec::len),
        Some(40)
    );
    let first = &json["rollouts"][0]["disruption_budgets"];
    assert_eq!(first.as_array().map(Vec::len), Some(40));
    assert_eq!(first[0], json["disruption_budgets"][0]["id"]);
    let large = json_bytes(160);
    let ratio = large.len() as f64 / small.len() as f64;
    assert!(
        ratio < 20.0,
        "4 times the budgets and workloads gave {ratio:.1} times the output ({} → {} bytes)",
        small.len(),
        large.len()
    );
    // And the text counts the budgets of one selector after the first few.
    let text = output_with_stdin(
        common::podcycle().args(["explain", "--rollout", "-"]),
        budgets_over_workloads(40).as_bytes(),
    );
    let text = stdout(&text);
    assert!(
        text.contains("… and 37 more budgets with the same selector"),
        "{text}"
    );
}
