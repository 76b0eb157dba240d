//! No input makes podcycle panic or hang, and every span it reports lies inside the text on
//! character boundaries.

use podcycle::settings::{Selector, Settings};
use proptest::prelude::*;

use crate::common::lint_bytes_alone;

fn all_rules() -> Settings {
    Settings::from_selectors(&[Selector::parse("all").unwrap()], &[], &[])
}

fn check_spans(bytes: Vec<u8>) {
    let report = lint_bytes_alone("fuzz.yaml", bytes, &all_rules());
    let text = &report.file.text;
    for diagnostic in &report.diagnostics {
        for span in std::iter::once(diagnostic.span).chain(diagnostic.labels.iter().map(|l| l.span))
        {
            let range = span.range();
            assert!(
                range.start <= range.end && range.end <= text.len(),
                "{range:?} outside {}",
                text.len()
            );
            assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
            let _ = report.file.line_col(span.start);
        }
    }
    // Rendering must not panic either, in any format.
    use podcycle::report::{Format, Options};
    for format in Format::ALL {
        let mut out = Vec::new();
        podcycle::report::write(
            &mut out,
            format,
            std::slice::from_ref(&report),
            &Options::default(),
        )
        .unwrap();
    }
}

/// Pieces of Kubernetes-shaped YAML, glued at random: keys the linter looks at, structure,
/// anchors, aliases, merge keys, quotes, flow collections and broken syntax.
fn yamlish() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("apiVersion: v1\n".to_owned()),
        Just("apiVersion: apps/v1\n".to_owned()),
        Just("kind: Pod\n".to_owned()),
        Just("kind: Deployment\n".to_owned()),
        Just("kind: CronJob\n".to_owned()),
        Just("kind: List\nitems:\n".to_owned()),
        Just("spec:\n".to_owned()),
        Just("  template:\n".to_owned()),
        Just("  initContainers:\n".to_owned()),
        Just("  containers:\n".to_owned()),
        Just("  - name: a\n".to_owned()),
        Just("    restartPolicy: Always\n".to_owned()),
        Just("    readinessProbe: {exec: {command: [x]}}\n".to_owned()),
        Just("    lifecycle:\n      preStop: {sleep: {seconds: 99}}\n".to_owned()),
        Just("    lifecycle: {postStart: {exec: {command: [sh, -c, 'sleep 9']}}}\n".to_owned()),
        Just("  terminationGracePeriodSeconds: 0\n".to_owned()),
        Just("- &a {name: x}\n".to_owned()),
        Just("- *a\n".to_owned()),
        Just("- <<: *a\n".to_owned()),
        Just("x: &b [*b]\n".to_owned()),
        Just("---\n".to_owned()),
        Just("...\n".to_owned()),
        Just("\t".to_owned()),
        Just("{[".to_owned()),
        Just("]}".to_owned()),
        Just("\"unterminated\n".to_owned()),
        Just("key: 'é✓𝄞'\n".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("\r\n".to_owned()),
        "[ -~]{0,12}",
        "[ \\t\\n:{}\\[\\]&*!|>'\"#%@`,-]{0,8}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        check_spans(bytes);
    }

    #[test]
    fn yaml_shaped_text_never_panics(text in yamlish()) {
        check_spans(text.into_bytes());
    }

    #[test]
    fn mutated_manifests_never_panic(cut in 0usize..2000, insert in "[ -~\\n\\t]{0,6}") {
        let manifest = include_str!("../../testdata/cli/bad.yaml");
        let cut = cut.min(manifest.len());
        let cut = (0..=cut).rev().find(|&i| manifest.is_char_boundary(i)).unwrap_or(0);
        let mutated = format!("{}{}{}", &manifest[..cut], insert, &manifest[cut..]);
        check_spans(mutated.into_bytes());
    }
}

#[test]
fn alias_bomb_is_bounded() {
    let mut text = String::from(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  labels:\n    l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n",
    );
    for level in 1..12 {
        let previous = level - 1;
        let aliases = vec![format!("*l{previous}"); 10].join(", ");
        text.push_str(&format!("    l{level}: &l{level} [{aliases}]\n"));
    }
    let report = lint_bytes_alone("bomb.yaml", text.into_bytes(), &all_rules());
    assert_eq!(report.diagnostics.len(), 1);
    assert!(report.diagnostics[0].message.contains("aliases expand"));
}
