//! Code actions for the diagnostics under the cursor: the fixes rules attach (only where the
//! change is certain), and a suppression comment for every finding.

use std::collections::HashMap;

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, Uri, WorkspaceEdit};

use super::convert::{self, ClientInfo, Text};
use crate::diagnostics::Diagnostic;
use crate::fix::{TextEdit, text_edits};
use crate::source::Span;
use crate::suppression::REASON_PLACEHOLDER;
use crate::yaml::parse_stream;

/// Rules that a comment cannot silence: a syntax error is fixed, not ignored.
const NOT_SUPPRESSIBLE: &[&str] = &["yaml-syntax"];

/// The diagnostics a code action request is about: those that touch `range` (byte offsets),
/// and those the client lists in its context (Neovim sends the cursor's position and the
/// diagnostics of its line), matched by rule and range.
pub fn requested<'d>(
    text: &Text<'_>,
    diagnostics: &'d [Diagnostic],
    range: Span,
    listed: &[lsp_types::Diagnostic],
) -> Vec<&'d Diagnostic> {
    diagnostics
        .iter()
        .filter(|d| {
            let touches = d.span.start <= range.end && range.start <= d.span.end;
            touches
                || listed.iter().any(|l| {
                    l.code == Some(lsp_types::NumberOrString::String(d.rule.to_owned()))
                        && l.range == text.range(d.span)
                })
        })
        .collect()
}

/// The actions for `diagnostics`: each one's fixes (the first preferred), then a comment to
/// suppress it.
pub fn code_actions(
    uri: &Uri,
    text: &Text<'_>,
    diagnostics: &[&Diagnostic],
    client: ClientInfo,
) -> Vec<CodeActionOrCommand> {
    let mut documents = None;
    let mut actions = Vec::new();
    for &diagnostic in diagnostics {
        let published = convert::diagnostic(diagnostic, uri, text, client);
        let action = |title: String, edits: &[TextEdit], preferred: bool| {
            CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![published.clone()]),
                edit: Some(workspace_edit(uri, text, edits)),
                is_preferred: preferred.then_some(true),
                ..CodeAction::default()
            })
        };
        let mut preferred = true;
        for fix in &diagnostic.fixes {
            let documents = documents.get_or_insert_with(|| parse_stream(text.text));
            if let Some(edits) = text_edits(text.text, documents, fix) {
                actions.push(action(fix.title.clone(), &edits, preferred));
                preferred = false;
            }
        }
        if let Some(edit) = ignore_comment(text, diagnostic) {
            let title = format!("Ignore `{}` here (`# podcycle: ignore`)", diagnostic.rule);
            actions.push(action(title, &[edit], false));
        }
    }
    actions
}

fn workspace_edit(uri: &Uri, text: &Text<'_>, edits: &[TextEdit]) -> WorkspaceEdit {
    let edits = edits
        .iter()
        .map(|edit| lsp_types::TextEdit {
            range: text.range(edit.span),
            new_text: edit.text.clone(),
        })
        .collect();
    WorkspaceEdit {
        changes: Some(HashMap::from([(uri.clone(), edits)])),
        ..WorkspaceEdit::default()
    }
}

/// `# podcycle: ignore[rule] TODO: reason` alone on a new line above the line where the
/// diagnostic starts, indented like it; or the rule added to such a comment already there.
/// `None` when the rule is listed there already or cannot be suppressed.
pub fn ignore_comment(text: &Text<'_>, diagnostic: &Diagnostic) -> Option<TextEdit> {
    if NOT_SUPPRESSIBLE.contains(&diagnostic.rule) {
        return None;
    }
    let rule = diagnostic.rule;
    let lines = text.lines;
    let line = lines.line_of(diagnostic.span.start as usize);
    if line > 0 {
        let above = lines.line_start(line - 1);
        let content = &text.text[above..lines.content_end(text.text, line - 1)];
        if let Some((names, close)) = ignore_list(content) {
            if names.split(',').any(|name| name.trim() == rule) {
                return None;
            }
            return Some(TextEdit {
                span: Span::empty(above + close),
                text: format!(", {rule}"),
            });
        }
    }
    let start = lines.line_start(line);
    let indent: String = text.text[start..]
        .chars()
        .take_while(|&c| c == ' ' || c == '\t')
        .collect();
    let newline = if text.text.contains("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    Some(TextEdit {
        span: Span::empty(start),
        text: format!("{indent}# podcycle: ignore[{rule}] {REASON_PLACEHOLDER}{newline}"),
    })
}

/// The rule list of a line that holds only an ignore comment, and the offset of its `]`.
fn ignore_list(line: &str) -> Option<(&str, usize)> {
    let trimmed = line.trim_start();
    let rest = trimmed.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("podcycle:")?.trim_start();
    let list = rest.strip_prefix("ignore[")?;
    let close = list.find(']')?;
    let offset = line.len() - list.len() + close;
    Some((&list[..close], offset))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply;
    use crate::lsp::convert::Encoding;
    use crate::source::LineIndex;

    fn comment(source: &str, at: &str, rule: &'static str) -> Option<String> {
        let lines = LineIndex::new(source);
        let text = Text {
            text: source,
            lines: &lines,
            encoding: Encoding::Utf16,
        };
        let start = source.find(at).unwrap();
        let diagnostic = Diagnostic {
            rule,
            severity: crate::diagnostics::Severity::Error,
            enforcement: crate::diagnostics::Enforcement::ApiServer,
            message: String::new(),
            help: None,
            notes: Vec::new(),
            span: Span::new(start, start + at.len()),
            labels: Vec::new(),
            object: None,
            container: None,
            field: None,
            fixes: Vec::new(),
            rendered: None,
        };
        ignore_comment(&text, &diagnostic).map(|edit| apply(source, &[edit]))
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
}
