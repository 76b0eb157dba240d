//! Parser edge cases end to end: every input gets exact positions, nothing panics, and one bad
//! document does not hide the others.

use podcycle::settings::{Selector, Settings};

use crate::common::lint_bytes_alone;

/// (rule, line, column) of every finding, with every rule enabled but the opinionated
/// pedantic ones, which would flag every container of these inputs.
fn findings_of(name: &str, bytes: Vec<u8>) -> Vec<(String, usize, usize)> {
    let settings = Settings::from_selectors(
        &[Selector::parse("all").unwrap()],
        &[],
        &[Selector::parse("pedantic").unwrap()],
    );
    let report = lint_bytes_alone(name, bytes, &settings);
    report
        .diagnostics
        .iter()
        .map(|d| {
            let at = report.file.line_col(d.span.start);
            (d.rule.to_owned(), at.line, at.column)
        })
        .collect()
}

fn findings(path: &str) -> Vec<(String, usize, usize)> {
    let bytes = std::fs::read(format!("testdata/yaml/{path}")).unwrap();
    findings_of(path, bytes)
}

fn f(rule: &str, line: usize, column: usize) -> (String, usize, usize) {
    (rule.to_owned(), line, column)
}

#[test]
fn anchors_and_merge_keys_point_where_the_value_is_written() {
    assert_eq!(
        findings("anchors.yaml"),
        [
            // The anchored probe on `migrate` itself.
            f("init-container-probe", 10, 5),
            // `livenessProbe: *probe` on base-init: the key is where it is used.
            f("init-container-probe", 15, 5),
            // merged-init inherits livenessProbe through `<<: *base`: the key sits in the anchor.
            f("init-container-probe", 15, 5),
        ]
    );
}

#[test]
fn flow_style_and_json_have_exact_columns() {
    assert_eq!(findings("flow.yaml"), [f("init-container-probe", 1, 97)]);
    // Columns count characters: the non-ASCII annotation does not shift later lines.
    assert_eq!(
        findings("manifest.json"),
        [f("workload-restart-policy", 10, 26)]
    );
}

#[test]
fn a_json_stream_is_read_object_by_object_as_kubectl_reads_it() {
    // Objects one after another, on their own lines or back to back: k8s.io/apimachinery's
    // YAMLOrJSONDecoder decodes them in turn.
    assert_eq!(findings("stream.json"), [f("init-container-probe", 8, 7)]);
}

#[test]
fn bom_and_crlf_do_not_move_positions() {
    assert_eq!(findings("bom.yaml"), [f("init-container-probe", 9, 5)]);
    assert_eq!(findings("crlf.yaml"), [f("init-container-probe", 9, 5)]);
}

#[test]
fn tab_indentation_is_a_syntax_error() {
    assert_eq!(findings("tabs.yaml"), [f("yaml-syntax", 7, 2)]);
}

#[test]
fn a_broken_document_does_not_hide_the_others() {
    let found = findings("broken-among-good.yaml");
    assert_eq!(
        found
            .iter()
            .filter(|(r, ..)| r == "init-container-probe")
            .count(),
        2,
        "{found:?}"
    );
    assert_eq!(
        found.iter().filter(|(r, ..)| r == "yaml-syntax").count(),
        1,
        "{found:?}"
    );
    assert_eq!(found[1].0, "yaml-syntax");
    assert!(found[1].1 >= 11 && found[1].1 <= 12, "{found:?}");
}

#[test]
fn duplicate_keys_are_reported_at_the_second() {
    assert_eq!(findings("duplicate-keys.yaml"), [f("duplicate-key", 5, 3)]);
}

#[test]
fn yaml_1_1_scalars_are_typed_like_kubectl() {
    // `tty: yes`, `stdin: on`, `defaultMode: 0644` and `10.0` decode; `value: on` is a boolean
    // where a string belongs.
    assert_eq!(findings("yaml11.yaml"), [f("invalid-type", 15, 14)]);
}

#[test]
fn files_without_workloads_are_silent() {
    for name in ["not-kubernetes.yaml", "empty.yaml", "only-comments.yaml"] {
        assert_eq!(findings(name), [], "{name}");
    }
}

#[test]
fn invalid_utf8_is_reported_and_the_rest_is_linted() {
    let mut bytes = b"apiVersion: v1\nkind: Pod\nmetadata:\n  name: \xff\xfe\nspec:\n  initContainers:\n  - {name: i, image: b, startupProbe: {exec: {command: [x]}}}\n  containers: [{name: c, image: d}]\n".to_vec();
    let found = findings_of("bad.yaml", std::mem::take(&mut bytes));
    assert_eq!(
        found,
        [f("yaml-syntax", 4, 9), f("init-container-probe", 7, 25)]
    );
}

#[test]
fn deep_nesting_is_refused_without_overflowing() {
    let depth = 500;
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    x: {}{}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    let found = findings_of("deep.yaml", text.into_bytes());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "yaml-syntax");
    let block = (0..depth)
        .map(|i| format!("{}k:\n", " ".repeat(i)))
        .collect::<String>();
    let found = findings_of("deep-block.yaml", block.into_bytes());
    assert_eq!(found.len(), 1, "{found:?}");
}

#[test]
fn many_documents_are_all_linted() {
    let document = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  initContainers: [{name: i, image: b, startupProbe: {exec: {command: [x]}}}]\n  containers: [{name: c, image: d}]\n";
    let count = 10_000;
    let text = vec![document; count].join("---\n");
    let found = findings_of("many.yaml", text.into_bytes());
    assert_eq!(found.len(), count);
    assert_eq!(
        found.last().unwrap(),
        &f("init-container-probe", 7 * (count - 1) + 5, 40)
    );
}

#[test]
fn recursive_and_unknown_aliases_are_errors() {
    let found = findings_of("recursive.yaml", b"a: &x [1, *x]\n".to_vec());
    assert_eq!(found, [f("yaml-syntax", 1, 11)]);
    let found = findings_of("unknown.yaml", b"a: *nope\n".to_vec());
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, "yaml-syntax");
}
