//! Suppressions: comments and annotations that silence named rules where they apply, and the
//! problems with the suppressions themselves, which `unused-suppression` reports.
//!
//! - `# podcycle: ignore[rule-a, rule-b] reason` at the end of a line applies to the outermost
//!   mapping entry or list item that starts on that line, with everything under it; alone on
//!   its line, to the one that starts on the next line with YAML on it.
//! - `# podcycle: ignore-file[rule] reason` applies to the whole document it is in.
//! - The annotation `podcycle.io/ignore: "rule-a,rule-b"`, with `podcycle.io/ignore-reason`,
//!   applies to the object that carries it; so does kube-linter's
//!   `ignore-check.kube-linter.io/<check>` for the rules in [`KUBE_LINTER_EQUIVALENTS`].
//!
//! A diagnostic is silenced when its primary span starts where a suppression of its rule
//! applies.

use crate::diagnostics::Diagnostic;
use crate::model::AnyObject;
use crate::model::path::PathSegment;
use crate::rules::{ALL_RULES, Rule, find_rule};
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use crate::suggest::did_you_mean;
use crate::yaml::{Comment, Document, NodeId, NodeKind, lookup};

/// What every suppression comment starts with.
pub const COMMENT_PREFIX: &str = "podcycle:";
/// The annotation that lists the rules to silence for an object.
pub const IGNORE_ANNOTATION: &str = "podcycle.io/ignore";
/// The annotation that says why; required with [`IGNORE_ANNOTATION`].
pub const REASON_ANNOTATION: &str = "podcycle.io/ignore-reason";
/// kube-linter's per-check ignore annotation: the check's name follows the prefix.
pub const KUBE_LINTER_ANNOTATION_PREFIX: &str = "ignore-check.kube-linter.io/";

/// kube-linter checks that mean what podcycle rules mean: kube-linter's ignore annotation for
/// the check silences these rules too. docs/suppressions.md documents the table.
pub const KUBE_LINTER_EQUIVALENTS: &[(&str, &[&str])] = &[
    // kubeconform in strict mode: fields the schema does not know, values of the wrong type.
    ("schema-validation", &["unknown-field", "invalid-type"]),
];

const COMMENT_FORMS: [&str; 2] = ["ignore", "ignore-file"];
const COMMENT_SYNTAX: &str =
    "write `# podcycle: ignore[rule-a, rule-b] reason` or `# podcycle: ignore-file[rule] reason`";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    Comment,
    Annotation,
    KubeLinter,
}

/// A rule name in a suppression.
#[derive(Debug)]
struct Named {
    name: String,
    /// Where the name is written.
    span: Span,
    rule: Option<&'static Rule>,
    used: bool,
}

#[derive(Debug)]
struct Suppression {
    origin: Origin,
    /// Where it applies; `None` for the whole document.
    scope: Option<Span>,
    names: Vec<Named>,
}

impl Suppression {
    fn covers(&self, at: u32) -> bool {
        self.scope
            .is_none_or(|scope| scope.start <= at && (at < scope.end || at == scope.start))
    }
}

/// Something to report about a suppression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuppressionProblem {
    pub span: Span,
    pub message: String,
    pub help: Option<String>,
}

impl SuppressionProblem {
    fn new(span: Span, message: impl Into<String>, help: impl Into<String>) -> Self {
        SuppressionProblem {
            span,
            message: message.into(),
            help: Some(help.into()),
        }
    }
}

/// The suppressions of one document.
#[derive(Debug, Default)]
pub struct Suppressions {
    active: Vec<Suppression>,
    /// Problems found while reading them: unreadable comments, missing reasons.
    problems: Vec<SuppressionProblem>,
}

impl Suppressions {
    /// Reads the suppression comments of `document` and the annotations of its `objects`.
    pub fn read(file: &SourceFile, document: &Document, objects: &[AnyObject]) -> Suppressions {
        let mut suppressions = Suppressions::default();
        let mut scopes = None;
        for comment in &document.comments {
            let Some(directive) = parse_comment(comment) else {
                continue;
            };
            match directive {
                Err(problem) => suppressions.problems.push(problem),
                Ok(Directive {
                    whole_document,
                    names,
                }) => {
                    let scope = if whole_document {
                        None
                    } else {
                        let scopes = scopes.get_or_insert_with(|| Scopes::of(document));
                        Some(comment_scope(file, document, scopes, comment.span))
                    };
                    suppressions.active.push(Suppression {
                        origin: Origin::Comment,
                        scope,
                        names,
                    });
                }
            }
        }
        suppressions.read_annotations(file, document, objects);
        suppressions
    }

    pub fn is_empty(&self) -> bool {
        self.active.is_empty() && self.problems.is_empty()
    }

    fn read_annotations(&mut self, file: &SourceFile, document: &Document, objects: &[AnyObject]) {
        for object in objects {
            let path = [
                PathSegment::Key("metadata".to_owned()),
                PathSegment::Key("annotations".to_owned()),
            ];
            let located = lookup(document, object.root, &path);
            let Some(entries) = located
                .complete
                .then(|| document.mapping(located.node))
                .flatten()
            else {
                continue;
            };
            let scope = Some(document.node(object.root).span);
            let text_of = |key: &str| {
                entries.iter().find_map(|&(k, v)| {
                    (document.scalar_str(k) == Some(key))
                        .then(|| document.scalar_str(v))
                        .flatten()
                })
            };
            let has_reason = text_of(REASON_ANNOTATION).is_some_and(has_words);
            for &(key, value) in entries {
                let Some(key_text) = document.scalar_str(key) else {
                    continue;
                };
                let key_span = document.node(key).span;
                if key_text == IGNORE_ANNOTATION {
                    if !has_reason {
                        self.problems.push(SuppressionProblem::new(
                            key_span,
                            format!("`{IGNORE_ANNOTATION}` without a reason"),
                            format!("add the annotation `{REASON_ANNOTATION}` saying why the rules do not apply"),
                        ));
                        continue;
                    }
                    let value_span = document.node(document.resolve(value)).span;
                    let Some(list) = document.scalar_str(value) else {
                        self.problems.push(SuppressionProblem::new(
                            value_span,
                            format!("`{IGNORE_ANNOTATION}` must be a string"),
                            "list the rules separated by commas: `\"rule-a,rule-b\"`",
                        ));
                        continue;
                    };
                    let names = annotation_names(file, value_span, list);
                    if names.is_empty() {
                        self.problems.push(SuppressionProblem::new(
                            value_span,
                            format!("`{IGNORE_ANNOTATION}` names no rule"),
                            "list the rules separated by commas: `\"rule-a,rule-b\"`",
                        ));
                        continue;
                    }
                    self.active.push(Suppression {
                        origin: Origin::Annotation,
                        scope,
                        names,
                    });
                } else if let Some(check) = key_text.strip_prefix(KUBE_LINTER_ANNOTATION_PREFIX) {
                    let Some((_, rules)) =
                        KUBE_LINTER_EQUIVALENTS.iter().find(|(c, _)| *c == check)
                    else {
                        continue;
                    };
                    self.active.push(Suppression {
                        origin: Origin::KubeLinter,
                        scope,
                        names: rules
                            .iter()
                            .map(|&name| Named {
                                name: name.to_owned(),
                                span: key_span,
                                rule: find_rule(name),
                                used: false,
                            })
                            .collect(),
                    });
                }
            }
        }
    }

    /// Removes the diagnostics a suppression silences, and remembers which suppressions did.
    pub fn silence(&mut self, diagnostics: &mut Vec<Diagnostic>) {
        if self.active.is_empty() {
            return;
        }
        diagnostics.retain(|diagnostic| {
            let mut silenced = false;
            for suppression in &mut self.active {
                if !suppression.covers(diagnostic.span.start) {
                    continue;
                }
                for named in &mut suppression.names {
                    if named.rule.is_some_and(|r| r.name == diagnostic.rule) {
                        named.used = true;
                        silenced = true;
                    }
                }
            }
            !silenced
        });
    }

    /// What is wrong with the suppressions, after [`Suppressions::silence`]. A rule that is
    /// not enabled is never reported unused, and neither is any rule when `complete` is false
    /// (the document could not be read whole, so its rules did not all run).
    pub fn problems(&self, settings: &Settings, complete: bool) -> Vec<SuppressionProblem> {
        let mut problems = self.problems.clone();
        for suppression in &self.active {
            if suppression.origin == Origin::KubeLinter {
                continue;
            }
            for named in &suppression.names {
                match named.rule {
                    None => problems.push(unknown_rule(named)),
                    Some(rule)
                        if complete
                            && !named.used
                            && rule.name != crate::rules::UNUSED_SUPPRESSION.name
                            && settings.enabled(rule.name).is_some() =>
                    {
                        let help = if suppression.names.len() == 1 {
                            "remove the suppression".to_owned()
                        } else {
                            format!("remove `{}` from the list", named.name)
                        };
                        problems.push(SuppressionProblem::new(
                            named.span,
                            format!("suppression of `{}` silences nothing", named.name),
                            help,
                        ));
                    }
                    Some(_) => {}
                }
            }
        }
        problems
    }
}

fn unknown_rule(named: &Named) -> SuppressionProblem {
    let names: Vec<&str> = ALL_RULES.iter().map(|r| r.name).collect();
    let help = match did_you_mean(&named.name, &names) {
        Some(suggestion) => format!("did you mean `{suggestion}`?"),
        None if crate::rules::Category::from_name(&named.name).is_some() => {
            "suppressions name rules, not categories; `podcycle rules` lists them".to_owned()
        }
        None => "`podcycle rules` lists the rules".to_owned(),
    };
    SuppressionProblem::new(
        named.span,
        format!("unknown rule `{}` in suppression", named.name),
        help,
    )
}

/// The reason after a comment's rule list. A second ` #` starts another remark (a note, or a
/// test marker), which is not the reason.
fn reason_text(after: &str) -> &str {
    let cut = after
        .char_indices()
        .find(|&(i, c)| c == '#' && after[..i].ends_with(char::is_whitespace))
        .map_or(after.len(), |(i, _)| i);
    &after[..cut]
}

/// Whether a reason says something: punctuation alone does not count.
fn has_words(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

#[derive(Debug)]
struct Directive {
    whole_document: bool,
    names: Vec<Named>,
}

/// Reads a `# podcycle: …` comment; `None` for any other comment.
fn parse_comment(comment: &Comment) -> Option<Result<Directive, SuppressionProblem>> {
    let text = &*comment.text;
    // The text starts right after `#`.
    let base = comment.span.start as usize + 1;
    let lead = text.len() - text.trim_start().len();
    let rest = text[lead..].strip_prefix(COMMENT_PREFIX)?;
    let mut at = lead + COMMENT_PREFIX.len();
    at += rest.len() - rest.trim_start().len();
    let form_len = text[at..]
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .unwrap_or(text.len() - at);
    let form = &text[at..at + form_len];
    let span_of = |start: usize, end: usize| Span::new(base + start, base + end);
    let whole_document = match form {
        "ignore" => false,
        "ignore-file" => true,
        _ => {
            let help = match did_you_mean(form, &COMMENT_FORMS) {
                Some(suggestion) if !form.is_empty() => format!("did you mean `{suggestion}`?"),
                _ => COMMENT_SYNTAX.to_owned(),
            };
            let span = if form.is_empty() {
                comment.span
            } else {
                span_of(at, at + form_len)
            };
            let message = if form.is_empty() {
                "suppression comment without `ignore` or `ignore-file`".to_owned()
            } else {
                format!("unknown suppression `{form}`")
            };
            return Some(Err(SuppressionProblem::new(span, message, help)));
        }
    };
    at += form_len;
    let Some(open) = text[at..].strip_prefix('[').map(|_| at) else {
        return Some(Err(SuppressionProblem::new(
            comment.span,
            format!("`{form}` must name its rules in brackets"),
            COMMENT_SYNTAX,
        )));
    };
    let Some(close) = text[open..].find(']').map(|i| open + i) else {
        return Some(Err(SuppressionProblem::new(
            comment.span,
            "the rule list has no closing `]`",
            COMMENT_SYNTAX,
        )));
    };
    let mut names = Vec::new();
    let mut start = open + 1;
    for piece in text[open + 1..close].split(',') {
        let trimmed = piece.trim();
        if !trimmed.is_empty() {
            let offset = start + (piece.len() - piece.trim_start().len());
            names.push(Named {
                name: trimmed.to_owned(),
                span: span_of(offset, offset + trimmed.len()),
                rule: find_rule(trimmed),
                used: false,
            });
        }
        start += piece.len() + 1;
    }
    if names.is_empty() {
        return Some(Err(SuppressionProblem::new(
            span_of(open, close + 1),
            "the suppression names no rule",
            "name the rules to silence: `# podcycle: ignore[rule] reason`",
        )));
    }
    if !has_words(reason_text(&text[close + 1..])) {
        return Some(Err(SuppressionProblem::new(
            comment.span,
            "suppression without a reason",
            format!(
                "say why after the brackets: `# podcycle: {form}[{}] the reason`",
                text[open + 1..close].trim()
            ),
        )));
    }
    Some(Ok(Directive {
        whole_document,
        names,
    }))
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
                rule: find_rule(name),
                used: false,
            }
        })
        .collect()
}

/// The mapping entries (key to end of value) and list items of a document, with their depth:
/// the places a line suppression can apply to.
struct Scopes {
    spans: Vec<(Span, usize)>,
}

impl Scopes {
    fn of(document: &Document) -> Scopes {
        let mut spans = Vec::new();
        let mut stack: Vec<(NodeId, usize)> = document.root.into_iter().map(|r| (r, 0)).collect();
        while let Some((id, depth)) = stack.pop() {
            match &document.node(id).kind {
                NodeKind::Mapping(entries) => {
                    for &(key, value) in entries {
                        let span = document.node(key).span.cover(document.node(value).span);
                        spans.push((span, depth));
                        stack.push((value, depth + 1));
                    }
                }
                NodeKind::Sequence(items) => {
                    for &item in items {
                        spans.push((document.node(item).span, depth));
                        stack.push((item, depth + 1));
                    }
                }
                NodeKind::Scalar(_) | NodeKind::Alias(_) => {}
            }
        }
        Scopes { spans }
    }

    /// The outermost entry or item that starts in `line` (a byte range).
    fn outermost_in(&self, line: Span) -> Option<Span> {
        self.spans
            .iter()
            .filter(|(span, _)| line.start <= span.start && span.start < line.end)
            .min_by_key(|(span, depth)| (*depth, std::cmp::Reverse(span.end)))
            .map(|(span, _)| *span)
    }
}

/// Where a `# podcycle: ignore[…]` comment applies: the outermost entry or item that starts on
/// its line, or, alone on its line, on the next line with YAML on it. Without such an entry,
/// the line itself; an own-line comment with nothing after it applies nowhere.
fn comment_scope(file: &SourceFile, document: &Document, scopes: &Scopes, comment: Span) -> Span {
    let line_of = |offset: usize| file.lines.line_of(offset);
    let line_range = |line: usize| {
        let start = file.lines.line_start(line);
        let end = if line + 1 < file.lines.line_count() {
            file.lines.line_start(line + 1)
        } else {
            file.text.len()
        };
        Span::new(start, end)
    };
    let line = line_of(comment.start as usize);
    let before = file
        .text
        .get(file.lines.line_start(line)..comment.start as usize)
        .unwrap_or_default();
    let target = if before.trim().is_empty() {
        let next = document
            .nodes
            .iter()
            .map(|node| node.span.start)
            .filter(|&start| start >= comment.end)
            .min();
        match next {
            Some(start) => line_of(start as usize),
            None => return Span::empty(comment.start as usize),
        }
    } else {
        line
    };
    let range = line_range(target);
    scopes.outermost_in(range).unwrap_or(range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_stream;

    fn comment(text: &str) -> Comment {
        Comment {
            span: Span::new(0, text.len() + 1),
            text: text.into(),
        }
    }

    fn names(directive: &Directive) -> Vec<(&str, bool)> {
        directive
            .names
            .iter()
            .map(|n| (n.name.as_str(), n.rule.is_some()))
            .collect()
    }

    #[test]
    fn reads_the_comment_forms() {
        let parsed = parse_comment(&comment(
            " podcycle: ignore[duplicate-key, nope] kept on purpose",
        ))
        .unwrap()
        .unwrap();
        assert!(!parsed.whole_document);
        assert_eq!(names(&parsed), [("duplicate-key", true), ("nope", false)]);
        // `#` is at offset 0, so the text starts at 1.
        assert_eq!(parsed.names[1].span, Span::new(34, 38));
        let parsed = parse_comment(&comment("podcycle:ignore-file[yaml-syntax] generated"))
            .unwrap()
            .unwrap();
        assert!(parsed.whole_document);
        assert!(parse_comment(&comment(" just a comment about podcycle")).is_none());
    }

    #[test]
    fn unreadable_comments_are_problems() {
        let problem = |text: &str| parse_comment(&comment(text)).unwrap().unwrap_err();
        let p = problem(" podcycle: ignroe[duplicate-key] reason");
        assert_eq!(p.message, "unknown suppression `ignroe`");
        assert_eq!(p.help.as_deref(), Some("did you mean `ignore`?"));
        assert_eq!(
            problem(" podcycle: ignore duplicate-key").message,
            "`ignore` must name its rules in brackets"
        );
        assert_eq!(
            problem(" podcycle: ignore[duplicate-key reason").message,
            "the rule list has no closing `]`"
        );
        assert_eq!(
            problem(" podcycle: ignore[ , ] x").message,
            "the suppression names no rule"
        );
        assert_eq!(
            problem(" podcycle: ignore[duplicate-key]  -- ").message,
            "suppression without a reason"
        );
        assert_eq!(
            problem(" podcycle: ignore[duplicate-key] # a note is not a reason").message,
            "suppression without a reason"
        );
        assert!(
            parse_comment(&comment(" podcycle: ignore[duplicate-key] see issue#4"))
                .unwrap()
                .is_ok()
        );
        assert_eq!(
            problem(" podcycle:").message,
            "suppression comment without `ignore` or `ignore-file`"
        );
    }

    fn scope_text(text: &str, marker: &str) -> String {
        let file = SourceFile::new("t.yaml", text);
        let documents = parse_stream(text);
        let document = &documents[0];
        let comment = document
            .comments
            .iter()
            .find(|c| c.text.contains(marker))
            .unwrap();
        let scopes = Scopes::of(document);
        let span = comment_scope(&file, document, &scopes, comment.span);
        text[span.range()].to_owned()
    }

    #[test]
    fn line_comments_apply_to_the_outermost_node_on_their_line() {
        let text = "\
spec:
  containers:
  - name: a # A
    image: x
  # B
  - name: b
    lifecycle: # C
      postStart: {}
  restartPolicy: Never # D
  # E
";
        assert_eq!(scope_text(text, "A"), "name: a # A\n    image: x");
        assert_eq!(
            scope_text(text, "B"),
            "name: b\n    lifecycle: # C\n      postStart: {}"
        );
        assert_eq!(scope_text(text, "C"), "lifecycle: # C\n      postStart: {}");
        assert_eq!(scope_text(text, "D"), "restartPolicy: Never");
        assert_eq!(scope_text(text, "E"), "");
    }

    #[test]
    fn a_comment_on_a_line_without_a_node_applies_to_the_line() {
        let text = "args: [\n  a,\n] # A\n";
        assert_eq!(scope_text(text, "A"), "] # A\n");
    }
}
