//! Carets and labels of findings in rendered charts and overlays, placed as in plain files: on
//! the value where a plain file's finding marks the value, on the key where it marks the key,
//! and for a chart's value that a values file supplied, a label at that value
//! (`testdata/render/checkout`, an overlay; `testdata/render/billing` and
//! `testdata/render/gate`, charts).

use libtest_mimic::Trial;
use serde_json::Value;

use crate::common::{check, code, stderr, stdout};
use crate::render::{finding, json};
use crate::tool::{Tool, needs};

/// The tests of this file.
pub fn trials() -> Vec<Trial> {
    vec![
        needs(
            Tool::Renderers,
            "placement::an_overlay_marks_the_same_part_of_a_field_as_a_plain_file",
            an_overlay_marks_the_same_part_of_a_field_as_a_plain_file,
        ),
        needs(
            Tool::Renderers,
            "placement::a_charts_value_is_labelled_where_its_values_file_set_it",
            a_charts_value_is_labelled_where_its_values_file_set_it,
        ),
        needs(
            Tool::Renderers,
            "placement::a_list_item_an_action_wrote_is_placed_at_the_action",
            a_list_item_an_action_wrote_is_placed_at_the_action,
        ),
    ]
}

/// `(file, line, column, end line, end column)` of a finding or a label.
type Place = (String, u64, u64, u64, u64);

fn place(item: &Value) -> Place {
    let number = |key: &str| {
        item[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {item:#}"))
    };
    (
        item["file"].as_str().unwrap().to_owned(),
        number("line"),
        number("column"),
        number("end_line"),
        number("end_column"),
    )
}

/// `(place, message)` of each label.
fn labels(diagnostic: &Value) -> Vec<(Place, String)> {
    diagnostic["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (place(l), l["message"].as_str().unwrap().to_owned()))
        .collect()
}

/// A place on one line of a file under `testdata/render/`.
fn at(file: &str, line: u64, column: u64, end_column: u64) -> Place {
    (
        format!("testdata/render/{file}"),
        line,
        column,
        line,
        end_column,
    )
}

/// Asserts where a finding of `rule` in the file ending in `file` is, and its labels in order.
fn assert_placed<'a>(
    items: &'a [Value],
    rule: &str,
    file: &str,
    expected: Place,
    expected_labels: &[(Place, &str)],
) -> &'a Value {
    let found = finding(items, rule, file);
    assert_eq!(place(found), expected, "{found:#}");
    let expected_labels: Vec<(Place, String)> = expected_labels
        .iter()
        .map(|(place, message)| (place.clone(), (*message).to_owned()))
        .collect();
    assert_eq!(labels(found), expected_labels, "{found:#}");
    found
}

fn an_overlay_marks_the_same_part_of_a_field_as_a_plain_file() {
    let output = check(&["--format", "json", "testdata/render/checkout/overlays/prod"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    let base = "checkout/base/deployment.yaml";
    let kustomization = "checkout/overlays/prod/kustomization.yaml";

    // The base wrote the container's name (the inline patch only repeats it to match the
    // container): the caret is on the name, where the base alone, linted as a plain file, has it.
    let name = assert_placed(
        &items,
        "invalid-container-name",
        base,
        at(base, 16, 17, 29),
        &[],
    );
    assert_eq!(name["rendered"]["tool"], "kustomize");
    let plain = json(&check(&[
        "--format",
        "json",
        &format!("testdata/render/{base}"),
    ]));
    let plain_name = finding(&plain, "invalid-container-name", base);
    assert_eq!(place(plain_name), place(name));

    // A finding at a key stays at the key; the labels at the values of the patch and the base.
    assert_placed(
        &items,
        "prestop-exceeds-grace-period",
        base,
        at(base, 24, 13, 20),
        &[
            (
                at("checkout/overlays/prod/grace-patch.yaml", 8, 38, 40),
                "grace period of 10s set here (by this patch)",
            ),
            (
                at(base, 14, 38, 40),
                "a patch overrides the value `60` set here",
            ),
        ],
    );
    // The inline JSON patch wrote the timeout: the caret on its `value`; the period's label on
    // the base's value.
    assert_placed(
        &items,
        "probe-timeout-exceeds-period",
        kustomization,
        at(kustomization, 10, 16, 18),
        &[(at(base, 22, 28, 29), "period of 5s set here")],
    );
    // The inline strategic-merge patch wrote the port: the caret on `http` in the
    // kustomization's block, the value it replaced labelled in the base.
    assert_placed(
        &items,
        "undeclared-port",
        kustomization,
        at(kustomization, 22, 49, 53),
        &[(
            at(base, 21, 43, 47),
            "a patch overrides the value `8080` set here",
        )],
    );

    // What the full text shows: the carets under the values.
    let full = stdout(&check(&["testdata/render/checkout/overlays/prod"]));
    for expected in [
        "--> testdata/render/checkout/base/deployment.yaml:16:17",
        "--> testdata/render/checkout/overlays/prod/kustomization.yaml:10:16",
        "::: testdata/render/checkout/overlays/prod/grace-patch.yaml:8:38",
        "10 |         value: 10\n   |                ^^\n",
        "22 |             periodSeconds: 5\n   |                            - period of 5s set here\n",
    ] {
        assert!(full.contains(expected), "no `{expected}` in\n{full}");
    }
}

fn a_charts_value_is_labelled_where_its_values_file_set_it() {
    let output = check(&["--format", "json", "testdata/render/billing"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    let template = "billing/templates/deployment.yaml";
    let values = "billing/values.yaml";

    // `{{ .Values.name | quote }}`: the caret on the action that wrote the value, and a label
    // on the value in values.yaml.
    assert_placed(
        &items,
        "invalid-container-name",
        template,
        at(template, 16, 17, 43),
        &[(at(values, 1, 7, 18), "`.Values.name` is set here")],
    );
    // A finding at a key of the template's literal text stays there; the grace period came
    // through `default`, and its value in values.yaml is labelled as well.
    assert_placed(
        &items,
        "prestop-exceeds-grace-period",
        template,
        at(template, 25, 13, 20),
        &[
            (at(template, 14, 38, 70), "grace period of 10s set here"),
            (at(values, 2, 8, 10), "`.Values.grace` is set here"),
        ],
    );
    // A block formatted in by `toYaml`: the caret on the action, the labels on the values.
    assert_placed(
        &items,
        "probe-timeout-exceeds-period",
        template,
        at(template, 21, 13, 62),
        &[
            (at(template, 21, 13, 62), "period of 5s set here"),
            (
                at(values, 6, 19, 21),
                "`.Values.readinessProbe.timeoutSeconds` is set here",
            ),
            (
                at(values, 5, 18, 19),
                "`.Values.readinessProbe.periodSeconds` is set here",
            ),
        ],
    );
    // Literal text inside a flow mapping: the caret on the port's value.
    let port = assert_placed(
        &items,
        "undeclared-port",
        template,
        at(template, 23, 43, 47),
        &[],
    );
    assert_eq!(port["rendered"]["placement"], "exact");

    // The same in the full text and in SARIF.
    let full = stdout(&check(&["testdata/render/billing"]));
    for expected in [
        "::: testdata/render/billing/values.yaml:1:7",
        " 1 | name: Billing_API\n   |       ----------- `.Values.name` is set here\n",
        " 2 | grace: 10\n   |        -- `.Values.grace` is set here\n",
    ] {
        assert!(full.contains(expected), "no `{expected}` in\n{full}");
    }
    let sarif: Value =
        serde_json::from_slice(&check(&["--format", "sarif", "testdata/render/billing"]).stdout)
            .unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    let name = results
        .iter()
        .find(|r| r["ruleId"] == "invalid-container-name")
        .unwrap();
    let related = &name["relatedLocations"][0]["physicalLocation"];
    assert_eq!(
        related["artifactLocation"]["uri"],
        "testdata/render/billing/values.yaml"
    );
    assert_eq!(
        (
            &related["region"]["startLine"],
            &related["region"]["startColumn"],
            &related["region"]["endColumn"]
        ),
        (&Value::from(1), &Value::from(7), &Value::from(18))
    );

    // A values file given for the run: the label at its value.
    let output = check(&[
        "--format",
        "json",
        "--helm-values",
        "testdata/render/billing/values-prod.yaml",
        "testdata/render/billing",
    ]);
    assert_placed(
        &json(&output),
        "invalid-container-name",
        template,
        at(template, 16, 17, 43),
        &[(
            at("billing/values-prod.yaml", 1, 7, 19),
            "`.Values.name` is set here",
        )],
    );

    // A subchart's value set in its parent's values.yaml: the label at the parent's value.
    let items = json(&check(&["--format", "json", "testdata/render/platform"]));
    let prestop = finding(
        &items,
        "prestop-exceeds-grace-period",
        "charts/worker/templates/worker.yaml",
    );
    assert!(
        labels(prestop).contains(&(
            at("platform/values.yaml", 2, 16, 17),
            "`.Values.gracePeriod` is set here".to_owned()
        )),
        "{prestop:#}"
    );
}

/// `- --port={{ .Values.port }}`: the label on the `args` item an action wrote part of sits on
/// that action, no longer in a note saying it cannot be placed.
fn a_list_item_an_action_wrote_is_placed_at_the_action() {
    let output = check(&["--format", "json", "testdata/render/gate"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let items = json(&output);
    let template = "gate/templates/deployment.yaml";
    let deadlock = assert_placed(
        &items,
        "poststart-deadlock",
        template,
        at(template, 16, 13, 22),
        &[(
            at(template, 23, 22, 40),
            "`config-server` serves port 9000 here",
        )],
    );
    // Placed, so no note says it could not be.
    assert_eq!(deadlock["notes"], Value::Array(Vec::new()), "{deadlock:#}");
}
