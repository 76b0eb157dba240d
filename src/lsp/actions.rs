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
/// diagnostic starts, or the rule added to such a comment already there.
pub(crate) fn ignore_comment(text: &Text<'_>, diagnostic: &Diagnostic) -> Option<TextEdit> {
    // A suppression needs a reason, and an edit cannot ask for one: the placeholder says what
    // is left to do, and `unused-suppression` reports it until it is replaced.
    crate::ignore_comment::ignore_comment(text.text, text.lines, diagnostic, REASON_PLACEHOLDER)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::apply;
    use crate::lsp::convert::Encoding;
    use crate::source::LineIndex;

    /// Where the comment goes is `ignore_comment`'s (tested there); the editor's comment carries
    /// the placeholder reason that `unused-suppression` keeps reporting until it is replaced.
    #[test]
    fn the_quick_fix_writes_the_placeholder_reason() {
        let source = "spec:\n  readinessProbe: {}\n";
        let lines = LineIndex::new(source);
        let text = Text {
            text: source,
            lines: &lines,
            encoding: Encoding::Utf16,
        };
        let start = source.find("readinessProbe").unwrap();
        let diagnostic = Diagnostic::new(
            "init-container-probe",
            crate::diagnostics::Severity::Error,
            crate::diagnostics::Enforcement::ApiServer,
            Span::new(start, start + "readinessProbe".len()),
            String::new(),
        );
        let edit = ignore_comment(&text, &diagnostic).unwrap();
        assert_eq!(
            apply(source, &[edit]),
            format!(
                "spec:\n  # podcycle: ignore[init-container-probe] {REASON_PLACEHOLDER}\n  readinessProbe: {{}}\n"
            )
        );
    }
}
