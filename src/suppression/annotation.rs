//! The annotations that silence rules for the object that carries them:
//! `podcycle.io/ignore: "rule-a,rule-b"` with `podcycle.io/ignore-reason`, and kube-linter's
//! `ignore-check.kube-linter.io/<check>` for the checks in [`KUBE_LINTER_EQUIVALENTS`].
//! Comments do not survive Helm or Kustomize; annotations do.

use super::comment::{has_words, is_placeholder, placeholder_problem};
use super::{Named, Origin, Suppression, SuppressionProblem};
use crate::model::AnyObject;
use crate::model::path::PathSegment;
use crate::rules::rules_named;
use crate::source::{SourceFile, Span};
use crate::yaml::{Document, lookup};

/// The annotation that lists the rules to silence for an object.
pub(crate) const IGNORE_ANNOTATION: &str = "podcycle.io/ignore";
/// The annotation that says why; required with [`IGNORE_ANNOTATION`].
pub(crate) const REASON_ANNOTATION: &str = "podcycle.io/ignore-reason";
/// kube-linter's per-check ignore annotation: the check's name follows the prefix.
pub(crate) const KUBE_LINTER_ANNOTATION_PREFIX: &str = "ignore-check.kube-linter.io/";

/// kube-linter checks that mean what podcycle rules mean: kube-linter's ignore annotation for
/// the check silences these rules too. docs/suppressions.md documents the table.
pub(crate) const KUBE_LINTER_EQUIVALENTS: &[(&str, &[&str])] = &[
    // kubeconform in strict mode: fields the schema does not know, values of the wrong type.
    ("schema-validation", &["unknown-field", "invalid-type"]),
];

/// The suppressions the annotations of `objects` make, and what is wrong with them.
pub(super) fn read(
    file: &SourceFile,
    document: &Document,
    objects: &[AnyObject],
    active: &mut Vec<Suppression>,
    problems: &mut Vec<SuppressionProblem>,
) {
    let path = [
        PathSegment::Key("metadata".to_owned()),
        PathSegment::Key("annotations".to_owned()),
    ];
    for object in objects {
        let located = lookup(document, object.root, &path);
        let Some(entries) = located
            .complete
            .then(|| document.mapping(located.node))
            .flatten()
        else {
            continue;
        };
        let scope = Some(document.node(object.root).span);
        let reason = entries.iter().find_map(|&(k, v)| {
            (document.scalar_str(k) == Some(REASON_ANNOTATION))
                .then(|| document.scalar_str(v).map(|text| (text, v)))
                .flatten()
        });
        let has_reason = reason.is_some_and(|(text, _)| has_words(text));
        for &(key, value) in entries {
            let Some(key_text) = document.scalar_str(key) else {
                continue;
            };
            let key_span = document.node(key).span;
            if key_text == IGNORE_ANNOTATION {
                if !has_reason {
                    problems.push(SuppressionProblem::new(
                        key_span,
                        format!("`{IGNORE_ANNOTATION}` without a reason"),
                        format!("add the annotation `{REASON_ANNOTATION}` saying why the rules do not apply"),
                    ));
                    continue;
                }
                let value_span = document.node(document.resolve(value)).span;
                let Some(list) = document.scalar_str(value) else {
                    problems.push(SuppressionProblem::new(
                        value_span,
                        format!("`{IGNORE_ANNOTATION}` must be a string"),
                        "list the rules separated by commas: `\"rule-a,rule-b\"`",
                    ));
                    continue;
                };
                let names = annotation_names(file, value_span, list);
                if names.is_empty() {
                    problems.push(SuppressionProblem::new(
                        value_span,
                        format!("`{IGNORE_ANNOTATION}` names no rule"),
                        "list the rules separated by commas: `\"rule-a,rule-b\"`",
                    ));
                    continue;
                }
                if let Some((text, node)) = reason
                    && is_placeholder(text)
                {
                    problems.push(placeholder_problem(
                        document.node(document.resolve(node)).span,
                    ));
                }
                active.push(Suppression {
                    origin: Origin::Annotation,
                    scope,
                    names,
                });
            } else if let Some(check) = key_text.strip_prefix(KUBE_LINTER_ANNOTATION_PREFIX) {
                let Some((_, rules)) = KUBE_LINTER_EQUIVALENTS.iter().find(|(c, _)| *c == check)
                else {
                    continue;
                };
                active.push(Suppression {
                    origin: Origin::KubeLinter,
                    scope,
                    names: rules
                        .iter()
                        .map(|&name| Named {
                            name: name.to_owned(),
                            span: key_span,
                            rules: rules_named(name),
                            used: false,
                        })
                        .collect(),
                });
            }
        }
    }
}

/// The names in an annotation value, each with its place in the source when it can be found
/// there (a plain or quoted scalar without escapes), else the whole value.
fn annotation_names(file: &SourceFile, value_span: Span, list: &str) -> Vec<Named> {
    let source = file.text.get(value_span.range()).unwrap_or_default();
    let mut searched = 0;
    list.split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            let span = match source[searched..].find(name) {
                Some(found) => {
                    let start = searched + found;
                    searched = start + name.len();
                    let offset = value_span.start as usize + start;
                    Span::new(offset, offset + name.len())
                }
                None => value_span,
            };
            Named {
                name: name.to_owned(),
                span,
                rules: rules_named(name),
                used: false,
            }
        })
        .collect()
}
