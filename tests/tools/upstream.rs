//! What the tools themselves write passes without a warning: the chart `helm create` makes and
//! Kustomize's own examples (`testdata/upstream/`). A chart fresh from `helm create` that
//! fails `podcycle check` teaches its users to ignore podcycle on day one.

use libtest_mimic::Trial;
use serde_json::Value;

use crate::common::{code, podcycle, stderr, stdout};
use crate::tool::{Tool, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![needs(
        Tool::Renderers,
        "upstream::helm_create_and_kustomize_examples_pass_without_a_warning",
        helm_create_and_kustomize_examples_pass_without_a_warning,
    )]
}

fn helm_create_and_kustomize_examples_pass_without_a_warning() {
    let output = podcycle()
        .args(["check", "--format", "json", "testdata/upstream"])
        .output()
        .unwrap();
    assert_eq!(code(&output), 0, "{}\n{}", stdout(&output), stderr(&output));
    let findings: Vec<Value> = serde_json::from_slice(&output.stdout).unwrap();
    let loud: Vec<&Value> = findings
        .iter()
        .filter(|f| f["severity"] != "info")
        .collect();
    assert!(loud.is_empty(), "{loud:#?}");
    // Rendered, all of them: a chart or overlay not rendered would pass for nothing.
    assert!(
        !stderr(&output).contains("not rendered"),
        "{}",
        stderr(&output)
    );
    let summary = podcycle()
        .args(["check", "--format", "concise", "testdata/upstream"])
        .output()
        .unwrap();
    // Four overlays are roots; the three that `multibases` builds from are linted through it.
    assert!(
        stdout(&summary).contains(" 1 Helm chart and 4 Kustomize overlays.")
            && stdout(&summary).contains("3 Kustomize overlays linted through the overlays"),
        "{}",
        stdout(&summary)
    );
}
