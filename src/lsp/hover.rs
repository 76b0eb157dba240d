//! Hover on a diagnostic's range: the documentation of the rules reported there.

use lsp_types::{Hover, HoverContents, MarkupContent, MarkupKind};

use super::convert::Text;
use crate::diagnostics::Diagnostic;
use crate::rules::find_rule;

/// The hover for the position at byte `offset`, when diagnostics cover it.
pub(crate) fn hover(text: &Text<'_>, diagnostics: &[Diagnostic], offset: usize) -> Option<Hover> {
    let here: Vec<&Diagnostic> = diagnostics
        .iter()
        .filter(|d| d.span.start as usize <= offset && offset <= d.span.end as usize)
        .collect();
    let first = here.first()?;
    let mut sections: Vec<String> = Vec::new();
    let mut shown: Vec<&str> = Vec::new();
    for diagnostic in &here {
        let Some(rule) = find_rule(diagnostic.rule) else {
            continue;
        };
        if shown.contains(&rule.name) {
            continue;
        }
        shown.push(rule.name);
        sections.push(format!(
            "**{}** ({} {}, {}): {}\n\n{}\n\n[Rule documentation]({})",
            rule.name,
            rule.category,
            diagnostic.severity,
            diagnostic.enforcement,
            rule.summary,
            rule.documentation().trim_end(),
            rule.url()
        ));
    }
    if sections.is_empty() {
        return None;
    }
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value: sections.join("\n\n---\n\n"),
        }),
        range: Some(text.range(first.span)),
    })
}
