//! Pod templates inside custom workload kinds (`testdata/custom/`), and kinds users add in
//! `.podcycle.yaml`.

use crate::common::{code, podcycle, run, stdout};

#[test]
fn every_built_in_custom_kind_is_linted_like_its_controller() {
    let output = run(&["check", "--format", "concise", "testdata/custom/kinds.yaml"]);
    assert_eq!(code(&output), 1);
    let found: Vec<(String, String)> = stdout(&output)
        .lines()
        .filter_map(|line| {
            let mut parts = line.splitn(4, ':');
            let (_, line_number, _, rest) =
                (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
            let rule = rest.split('[').nth(1)?.split(']').next()?;
            Some((line_number.to_owned(), rule.to_owned()))
        })
        .collect();
    let expected = [
        ("9", "workload-restart-policy"), // Argo Rollout: ReplicaSets need Always
        ("26", "prestop-exceeds-grace-period"), // OpenShift DeploymentConfig
        ("40", "init-container-probe"),   // OpenKruise CloneSet
        ("53", "workload-restart-policy"), // OpenKruise Advanced StatefulSet
        ("69", "undeclared-port"),        // OpenKruise Advanced DaemonSet
        ("82", "unknown-field"),          // Knative Service; its own fields are known
        ("91", "workload-restart-policy"), // KEDA ScaledJob: a Job's pods
        ("114", "init-container-probe"),  // Argo Workflows template
        ("132", "prestop-exceeds-grace-period"), // Kubeflow PyTorchJob
        ("154", "init-container-probe"),  // Ray worker group
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(l, r)| ((*l).to_owned(), (*r).to_owned()))
        .collect();
    assert_eq!(found, expected, "{}", stdout(&output));
    assert!(stdout(&output).contains("is not allowed in a Rollout"));
}

#[test]
fn users_add_their_own_kinds() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".podcycle.yaml"),
        "pod-templates:\n  - apiVersion: example.com/v1\n    kind: Widget\n    path: spec.pods[*].template\n    like: Deployment\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("widget.yaml"),
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  pods:\n    - template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n            - name: a\n              image: x\n",
    )
    .unwrap();
    let output = podcycle()
        .current_dir(dir.path())
        .args(["check", "--format", "concise"])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&output),
        "widget.yaml:9:26: error[workload-restart-policy] restartPolicy `OnFailure` is not allowed in a Widget: only `Always` is: the API server accepts the Widget, then rejects the pods its controller creates from it\nFound 1 error in 1 of 1 file.\n"
    );
    // Without the entry, the kind is not a workload podcycle knows.
    let output = podcycle()
        .current_dir(dir.path())
        .args(["check", "--no-config", "--format", "concise"])
        .output()
        .unwrap();
    assert_eq!(code(&output), 0, "{}", stdout(&output));
}

#[test]
fn chainsaw_assertions_get_document_checks_only() {
    // The test's assert files (listed in chainsaw-test.yaml, or holding JMESPath keys) are
    // expected state; the file it applies is a manifest. Named on the command line, since
    // a test's directory is excluded by default when walked.
    let output = run(&["check", "--format", "concise", "testdata/chainsaw/scaling"]);
    assert_eq!(
        stdout(&output),
        "testdata/chainsaw/scaling/deployment.yaml:17:13: error[prestop-exceeds-grace-period] the preStop `sleep` action of 20s is longer than `terminationGracePeriodSeconds` (5s), which the API server rejects\nFound 1 error in 1 of 4 files.\n1 finding fixable with `podcycle check --fix`.\n"
    );
    // Without its folder (standard input), the JMESPath keys alone tell.
    let ready = std::fs::read("testdata/chainsaw/scaling/ready.yaml").unwrap();
    let output = crate::common::output_with_stdin(
        podcycle().args(["check", "--format", "concise", "-"]),
        &ready,
    );
    assert_eq!(stdout(&output), "No problems found in 1 file.\n");
}

/// A custom resource is accepted whatever its pod template says; what Kubernetes refuses is
/// the pods (or ReplicaSets) its controller creates. The findings say so, and carry that
/// claim (`controller`), not the API server's.
#[test]
fn rejections_in_custom_kinds_are_the_controllers_pods() {
    let manifest = "\
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: shop}
spec:
  template:
    spec:
      terminationGracePeriodSeconds: 60
      initContainers:
      - name: init
        image: busybox
        readinessProbe: {exec: {command: [\"true\"]}}
      containers:
      - name: web
        image: nginx
        lifecycle:
          preStop:
            sleep: {seconds: 90}
      - name: web
        image: nginx
";
    let output = crate::common::output_with_stdin(
        podcycle().args(["check", "--format", "json", "-"]),
        manifest.as_bytes(),
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let findings = json.as_array().unwrap();
    let rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert_eq!(
        rules,
        [
            "init-container-probe",
            "prestop-exceeds-grace-period",
            "duplicate-container-name"
        ]
    );
    for finding in findings {
        assert_eq!(finding["enforcement"], "controller", "{finding}");
        assert_eq!(finding["severity"], "error", "{finding}");
        let message = finding["message"].as_str().unwrap();
        assert!(
            message.contains("controller creates"),
            "the message says who refuses: {message}"
        );
        assert!(
            !message.ends_with("which the API server rejects"),
            "{message}"
        );
    }
    // The same template in a built-in kind is the API server's to reject.
    let deployment = manifest
        .replace("argoproj.io/v1alpha1", "apps/v1")
        .replace("kind: Rollout", "kind: Deployment")
        .replace(
            "spec:\n  template:",
            "spec:\n  selector: {matchLabels: {app: shop}}\n  template:\n    metadata: {labels: {app: shop}}",
        );
    let output = crate::common::output_with_stdin(
        podcycle().args(["check", "--format", "json", "-"]),
        deployment.as_bytes(),
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    for finding in json.as_array().unwrap() {
        assert_eq!(finding["enforcement"], "api-server", "{finding}");
    }
}
