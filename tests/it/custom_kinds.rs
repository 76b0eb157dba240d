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
        "widget.yaml:9:26: error[workload-restart-policy] restartPolicy `OnFailure` is not allowed in a Widget: only `Always` is\nFound 1 error in 1 of 1 file.\n"
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
    // expected state; the file it applies is a manifest.
    let output = run(&["check", "--format", "concise", "testdata/chainsaw"]);
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
