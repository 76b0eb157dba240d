//! `# podcycle: ignore[rule-a, rule-b] reason` and `# podcycle: ignore-file[rule] reason`:
//! reading one comment into the rules it names and its reason, or into what is wrong with it.

use super::{Named, SuppressionProblem};
use crate::rules::rules_named;
use crate::source::Span;
use crate::suggest::did_you_mean_help;
use crate::yaml::Comment;

/// What every suppression comment starts with.
pub(crate) const COMMENT_PREFIX: &str = "podcycle:";

/// The reason an editor's quick fix writes into a new suppression: an edit cannot ask for the
/// reason, so the comment says what is left to do, and `unused-suppression` reports it until it
/// is replaced.
pub const REASON_PLACEHOLDER: &str = "TODO: reason";

const COMMENT_FORMS: [&str; 2] = ["ignore", "ignore-file"];
const COMMENT_SYNTAX: &str =
    "write `# podcycle: ignore[rule-a, rule-b] reason` or `# podcycle: ignore-file[rule] reason`";

/// Words that stand in for a reason not yet written.
const PLACEHOLDER_WORDS: [&str; 6] = ["todo", "fixme", "tbd", "xxx", "reason", "placeholder"];

#[derive(Debug)]
pub(super) struct Directive {
    pub(crate) whole_document: bool,
    pub(crate) names: Vec<Named>,
    /// Where the reason is, when it is only a placeholder ([`REASON_PLACEHOLDER`]).
    pub(crate) placeholder: Option<Span>,
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
pub(super) fn has_words(text: &str) -> bool {
    text.chars().any(char::is_alphanumeric)
}

/// Whether a reason is only a stand-in for one: `TODO: reason`, `FIXME`, `tbd`.
pub(super) fn is_placeholder(text: &str) -> bool {
    let mut words = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .peekable();
    words.peek().is_some()
        && words.all(|word| PLACEHOLDER_WORDS.contains(&word.to_lowercase().as_str()))
}

/// The problem of a reason that is only a placeholder.
pub(super) fn placeholder_problem(span: Span) -> SuppressionProblem {
    SuppressionProblem::new(
        span,
        "the suppression's reason is a placeholder",
        "replace it with why the rule does not apply here",
    )
}

/// Reads a `# podcycle: …` comment; `None` for any other comment.
pub(super) fn parse_comment(comment: &Comment) -> Option<Result<Directive, SuppressionProblem>> {
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
            let help = match did_you_mean_help(form, &COMMENT_FORMS) {
                Some(suggestion) if !form.is_empty() => suggestion,
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
                rules: rules_named(trimmed),
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
    let reason = reason_text(&text[close + 1..]);
    if !has_words(reason) {
        return Some(Err(SuppressionProblem::new(
            comment.span,
            "suppression without a reason",
            format!(
                "say why after the brackets: `# podcycle: {form}[{}] the reason`",
                text[open + 1..close].trim()
            ),
        )));
    }
    let placeholder = is_placeholder(reason).then(|| {
        let lead = reason.len() - reason.trim_start().len();
        let start = close + 1 + lead;
        span_of(start, start + reason.trim().len())
    });
    Some(Ok(Directive {
        whole_document,
        names,
        placeholder,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

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
            .map(|n| (n.name.as_str(), !n.rules.is_empty()))
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
        assert_eq!(parsed.placeholder, None);
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

    #[test]
    fn placeholder_reasons_are_found() {
        let text = format!(" podcycle: ignore[duplicate-key] {REASON_PLACEHOLDER}");
        let parsed = parse_comment(&comment(&text)).unwrap().unwrap();
        let span = parsed.placeholder.expect("a placeholder");
        // The comment's text starts after `#`, at offset 1.
        assert_eq!(&format!("#{text}")[span.range()], REASON_PLACEHOLDER);
        for reason in ["TODO", "fixme", "TBD.", "reason", "<reason>"] {
            assert!(is_placeholder(reason), "{reason}");
        }
        for reason in ["TODO: remove after the 1.30 upgrade", "kept on purpose"] {
            assert!(!is_placeholder(reason), "{reason}");
        }
    }
}
