//! Writing suppression comments: `# podcycle: ignore[rule] reason` on its own line above the
//! line where a finding starts, indented like it, or the rule added to such a comment that is
//! already there. The editor's "ignore" quick fix writes one; `check --add-ignore REASON`
//! writes one for every current finding of a file.

use crate::diagnostics::Diagnostic;
use crate::fix::TextEdit;
use crate::source::{LineIndex, Span};
use crate::suppression::{COMMENT_PREFIX, REASON_PLACEHOLDER};

/// Rules that a comment cannot silence: a syntax error is fixed, not ignored.
pub(crate) const NOT_SUPPRESSIBLE: &[&str] = &["yaml-syntax"];

/// Why a reason cannot be written into a comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadReason {
    #[error("the reason must say something: `--add-ignore \"known before rollout\"`")]
    Empty,
    #[error("the reason must be one line of text, without control characters")]
    Control,
    #[error(
        "`{REASON_PLACEHOLDER}` is the placeholder that `unused-suppression` reports; give the reason itself"
    )]
    Placeholder,
    #[error("the reason cannot contain ` #`, which would end it inside the comment")]
    EndsComment,
}

/// Whether a reason can be written into a comment.
pub(crate) fn check_reason(reason: &str) -> Result<(), BadReason> {
    if !reason.chars().any(char::is_alphanumeric) {
        return Err(BadReason::Empty);
    }
    if reason.chars().any(char::is_control) {
        return Err(BadReason::Control);
    }
    if reason.trim() == REASON_PLACEHOLDER {
        return Err(BadReason::Placeholder);
    }
    if reason.contains(" #") {
        return Err(BadReason::EndsComment);
    }
    Ok(())
}

/// The edit that silences `rules` on `line` (0-based) of `text`: the rules added to an ignore
/// comment alone on the line above, or a new comment line above it. `None` when the comment
/// above names them all already.
pub(crate) fn ignore_line(
    text: &str,
    lines: &LineIndex,
    line: usize,
    rules: &[&str],
    reason: &str,
) -> Option<TextEdit> {
    if line > 0 {
        let above = lines.line_start(line - 1);
        let content = &text[above..lines.content_end(text, line - 1)];
        if let Some((names, close)) = ignore_list(content) {
            let missing: Vec<&str> = rules
                .iter()
                .copied()
                .filter(|rule| !names.split(',').any(|name| name.trim() == *rule))
                .collect();
            if missing.is_empty() {
                return None;
            }
            return Some(TextEdit {
                span: Span::empty(above + close),
                text: format!(", {}", missing.join(", ")),
            });
        }
    }
    let start = lines.line_start(line);
    let indent: String = text[start..]
        .chars()
        .take_while(|&c| c == ' ' || c == '\t')
        .collect();
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    Some(TextEdit {
        span: Span::empty(start),
        text: format!(
            "{indent}# {COMMENT_PREFIX} ignore[{}] {reason}{newline}",
            rules.join(", ")
        ),
    })
}

/// The edit that silences one finding (the editor's quick fix).
pub(crate) fn ignore_comment(
    text: &str,
    lines: &LineIndex,
    diagnostic: &Diagnostic,
    reason: &str,
) -> Option<TextEdit> {
    if NOT_SUPPRESSIBLE.contains(&diagnostic.rule) {
        return None;
    }
    let line = lines.line_of(diagnostic.span.start as usize);
    ignore_line(text, lines, line, &[diagnostic.rule], reason)
}

/// The rule list of a line that holds only an ignore comment, and the offset of its `]`.
fn ignore_list(line: &str) -> Option<(&str, usize)> {
    let trimmed = line.trim_start();
    let rest = trimmed.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix(COMMENT_PREFIX)?.trim_start();
    let list = rest.strip_prefix("ignore[")?;
    let close = list.find(']')?;
    let offset = line.len() - list.len() + close;
    Some((&list[..close], offset))
}

/// The edits that silence every suppressible finding of a file: one comment per line with
/// findings, naming their rules in order.
#[cfg(test)]
pub(crate) fn ignore_all(text: &str, diagnostics: &[Diagnostic], reason: &str) -> Vec<TextEdit> {
    let lines = LineIndex::new(text);
    let mut by_line: std::collections::BTreeMap<usize, Vec<&str>> =
        std::collections::BTreeMap::new();
    for diagnostic in diagnostics {
        if NOT_SUPPRESSIBLE.contains(&diagnostic.rule) {
            continue;
        }
        let rules = by_line
            .entry(lines.line_of(diagnostic.span.start as usize))
            .or_default();
        if !rules.contains(&diagnostic.rule) {
            rules.push(diagnostic.rule);
        }
    }
    by_line
        .iter()
        .filter_map(|(&line, rules)| ignore_line(text, &lines, line, rules, reason))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply;

    fn finding(rule: &'static str, source: &str, at: &str) -> Diagnostic {
        let start = source.find(at).unwrap();
        Diagnostic::new(
            rule,
            crate::diagnostics::Severity::Error,
            crate::diagnostics::Enforcement::Runtime,
            Span::new(start, start + at.len()),
            String::new(),
        )
    }

    fn comment(source: &str, at: &str, rule: &'static str) -> Option<String> {
        let lines = LineIndex::new(source);
        let diagnostic = finding(rule, source, at);
        ignore_comment(source, &lines, &diagnostic, "TODO: reason").map(|e| apply(source, &[e]))
    }

    #[test]
    fn inserts_a_comment_above_the_line() {
        assert_eq!(
            comment(
                "spec:\n  - name: a\n    readinessProbe: {}\n",
                "readinessProbe",
                "init-container-probe"
            )
            .unwrap(),
            "spec:\n  - name: a\n    # podcycle: ignore[init-container-probe] TODO: reason\n    readinessProbe: {}\n"
        );
        assert_eq!(
            comment("a: 1\r\nb: 2\r\n", "b", "x").unwrap(),
            "a: 1\r\n# podcycle: ignore[x] TODO: reason\r\nb: 2\r\n"
        );
    }

    #[test]
    fn extends_a_comment_that_is_there() {
        let source = "  # podcycle: ignore[a] known\n  b: 1\n";
        assert_eq!(
            comment(source, "b: 1", "c").unwrap(),
            "  # podcycle: ignore[a, c] known\n  b: 1\n"
        );
        assert_eq!(comment(source, "b: 1", "a"), None);
        assert_eq!(comment("a: [\n", "[", "yaml-syntax"), None);
    }

    #[test]
    fn one_comment_per_line_names_each_rule_once() {
        let source = "a: 1\nb: 2\n";
        let findings = [
            finding("x", source, "b"),
            finding("y", source, "2"),
            finding("x", source, "b: 2"),
            finding("z", source, "a"),
            finding("yaml-syntax", source, "a"),
        ];
        let edits = ignore_all(source, &findings, "known before rollout");
        assert_eq!(
            apply(source, &edits),
            "# podcycle: ignore[z] known before rollout\na: 1\n# podcycle: ignore[x, y] known before rollout\nb: 2\n"
        );
    }

    #[test]
    fn reasons_are_one_line_of_words() {
        assert!(check_reason("known before rollout").is_ok());
        assert_eq!(check_reason("  "), Err(BadReason::Empty));
        assert_eq!(check_reason("--"), Err(BadReason::Empty));
        assert_eq!(check_reason("a\nb"), Err(BadReason::Control));
        assert_eq!(check_reason("a \u{1b}[31m"), Err(BadReason::Control));
        assert_eq!(check_reason("a # b"), Err(BadReason::EndsComment));
        assert_eq!(check_reason("TODO: reason"), Err(BadReason::Placeholder));
    }
}
