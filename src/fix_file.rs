//! `check --fix` and `--diff`: apply the fixes of a file's findings — the same fixes, turned
//! into text edits the same way, as the editor's quick fixes ([`crate::fix`]) — pass after
//! pass until no finding with an applicable fix is left.
//!
//! Each pass takes, for every finding, its first fix that is allowed (safe, or unsafe too
//! with `--unsafe-fixes`) and renders on the current text, and skips those whose edits
//! overlap an edit already taken (the next pass, on the new text, gets to them). Text outside
//! the edits is never touched, so comments and formatting stay. A pass that would make the
//! file unreadable YAML is undone, and fixing stops there.

use std::collections::BTreeMap;

use crate::diagnostics::Diagnostic;
use crate::fix::{Applicability, TextEdit, apply, text_edits};
use crate::yaml::parse_stream;

/// At most this many passes over a file: each fixes what the previous one left, and a fix
/// that keeps producing new fixable findings must not loop forever.
pub(crate) const MAX_PASSES: usize = 10;

/// What fixing a file did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Fixed {
    /// The text after every pass.
    pub(crate) text: String,
    /// How many findings each rule had fixed.
    pub(crate) by_rule: BTreeMap<&'static str, usize>,
    /// A pass was undone because its result did not read as YAML (a bug in a fix).
    pub(crate) undone: bool,
}

impl Fixed {}

#[cfg(test)]
impl Fixed {
    fn count(&self) -> usize {
        self.by_rule.values().sum()
    }
}

/// The edits of one pass over `text` and the rules of the findings they fix; none when no
/// finding has an allowed fix that renders.
pub(crate) fn one_pass(
    text: &str,
    diagnostics: &[Diagnostic],
    allowed: Applicability,
) -> (Vec<TextEdit>, Vec<&'static str>) {
    let mut taken: Vec<TextEdit> = Vec::new();
    let mut rules = Vec::new();
    if diagnostics.iter().all(|d| d.fixes.is_empty()) {
        return (taken, rules);
    }
    let documents = parse_stream(text);
    for diagnostic in diagnostics {
        let usable = diagnostic
            .fixes
            .iter()
            .filter(|fix| fix.applicability <= allowed)
            .find_map(|fix| text_edits(text, &documents, fix));
        let Some(edits) = usable else {
            continue;
        };
        // The same edit from two findings (two rules asking for the same sidecar) is one.
        let new: Vec<TextEdit> = edits.into_iter().filter(|e| !taken.contains(e)).collect();
        if new
            .iter()
            .any(|edit| taken.iter().any(|t| overlap(t, edit)))
        {
            continue;
        }
        taken.extend(new);
        rules.push(diagnostic.rule);
    }
    (taken, rules)
}

/// Two edits conflict when their spans overlap, or both insert at the same place (the order
/// of the insertions would be a guess).
fn overlap(a: &TextEdit, b: &TextEdit) -> bool {
    if a.span.is_empty() && b.span.is_empty() {
        return a.span.start == b.span.start;
    }
    a.span.start < b.span.end && b.span.start < a.span.end
}

/// Fixes `text` pass after pass; `lint` gives the findings of a text (with the file's
/// settings).
pub(crate) fn fix_text(
    text: &str,
    allowed: Applicability,
    lint: &mut dyn FnMut(&str) -> Vec<Diagnostic>,
) -> Fixed {
    let mut fixed = Fixed {
        text: text.to_owned(),
        ..Fixed::default()
    };
    let mut diagnostics = lint(text);
    for _ in 0..MAX_PASSES {
        let (edits, rules) = one_pass(&fixed.text, &diagnostics, allowed);
        if edits.is_empty() {
            break;
        }
        let next = apply(&fixed.text, &edits);
        let next_diagnostics = lint(&next);
        if syntax_errors(&next_diagnostics) > syntax_errors(&diagnostics) || next == fixed.text {
            fixed.undone = next != fixed.text;
            break;
        }
        for rule in rules {
            *fixed.by_rule.entry(rule).or_default() += 1;
        }
        fixed.text = next;
        diagnostics = next_diagnostics;
    }
    fixed
}

fn syntax_errors(diagnostics: &[Diagnostic]) -> usize {
    diagnostics
        .iter()
        .filter(|d| matches!(d.rule, "yaml-syntax" | "duplicate-key"))
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::{Fix, FixEdit};
    use crate::model::path::FieldPath;
    use crate::source::Span;

    fn finding(rule: &'static str, fixes: Vec<Fix>) -> Diagnostic {
        Diagnostic {
            fixes,
            ..Diagnostic::new(
                rule,
                crate::diagnostics::Severity::Error,
                crate::diagnostics::Enforcement::Runtime,
                Span::new(0, 1),
                String::new(),
            )
        }
    }

    fn set(keys: &[&str], value: &str) -> FixEdit {
        FixEdit::Set {
            path: FieldPath::from_keys(keys),
            value: value.to_owned(),
        }
    }

    #[test]
    fn a_pass_takes_the_first_allowed_fix_and_skips_overlaps() {
        let text = "spec:\n  a: 1\n  b: 2\n";
        let diagnostics = [
            finding(
                "x",
                vec![
                    Fix::new_unsafe("unsafe first", vec![set(&["spec", "a"], "9")]),
                    Fix::new("safe", vec![set(&["spec", "a"], "3")]),
                ],
            ),
            finding(
                "y",
                vec![Fix::new("same place", vec![set(&["spec", "a"], "4")])],
            ),
            finding(
                "z",
                vec![Fix::new("elsewhere", vec![set(&["spec", "b"], "5")])],
            ),
        ];
        let (edits, rules) = one_pass(text, &diagnostics, Applicability::Safe);
        assert_eq!(apply(text, &edits), "spec:\n  a: 3\n  b: 5\n");
        assert_eq!(rules, ["x", "z"]);
        let (edits, _) = one_pass(text, &diagnostics, Applicability::Unsafe);
        assert_eq!(apply(text, &edits), "spec:\n  a: 9\n  b: 5\n");
    }

    #[test]
    fn the_same_edit_from_two_findings_is_applied_once() {
        let text = "spec:\n  a: 1\n";
        let fix = || Fix::new("add", vec![set(&["spec", "b"], "2")]);
        let diagnostics = [finding("x", vec![fix()]), finding("y", vec![fix()])];
        let (edits, rules) = one_pass(text, &diagnostics, Applicability::Safe);
        assert_eq!(apply(text, &edits), "spec:\n  b: 2\n  a: 1\n");
        assert_eq!(rules, ["x", "y"]);
    }

    #[test]
    fn fixing_repeats_until_nothing_is_left_and_stops_on_broken_yaml() {
        // A finding on `a` until it is 3; each pass adds one.
        let mut lint = |text: &str| {
            let a: i32 = text
                .trim()
                .strip_prefix("a: ")
                .and_then(|v| v.parse().ok())
                .unwrap_or(99);
            if a < 3 {
                let next = (a + 1).to_string();
                vec![finding(
                    "x",
                    vec![Fix::new("inc", vec![set(&["a"], &next)])],
                )]
            } else {
                Vec::new()
            }
        };
        let fixed = fix_text("a: 1\n", Applicability::Safe, &mut lint);
        assert_eq!(fixed.text, "a: 3\n");
        assert_eq!(fixed.count(), 2);
        assert!(!fixed.undone);

        let mut breaking = |text: &str| {
            if text.contains('[') {
                vec![finding("yaml-syntax", Vec::new())]
            } else {
                vec![finding(
                    "x",
                    vec![Fix::new("break", vec![set(&["a"], "[")])],
                )]
            }
        };
        let fixed = fix_text("a: 1\n", Applicability::Safe, &mut breaking);
        assert_eq!(fixed.text, "a: 1\n");
        assert!(fixed.undone);
        assert_eq!(fixed.count(), 0);
    }
}
