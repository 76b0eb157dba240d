use std::io::{self, Write};

use annotate_snippets::renderer::DecorStyle;
use annotate_snippets::{AnnotationKind, Group, Level, Renderer};

use super::FileReport;
use crate::diagnostics::{Diagnostic, Severity};
use crate::source::{SourceFile, Span, clamp_to_char_boundary};

/// rustc-style diagnostics with source snippets.
pub fn write(out: &mut dyn Write, reports: &[FileReport], color: bool) -> io::Result<()> {
    let renderer = renderer(color);
    let mut first = true;
    for report in reports {
        for diagnostic in &report.diagnostics {
            if !first {
                writeln!(out)?;
            }
            first = false;
            writeln!(out, "{}", render(&renderer, &report.file, diagnostic))?;
        }
    }
    Ok(())
}

fn render(renderer: &Renderer, file: &SourceFile, diagnostic: &Diagnostic) -> String {
    let labels: Vec<(Span, &str)> = diagnostic
        .labels
        .iter()
        .map(|l| (l.span, l.message.as_str()))
        .collect();
    render_snippet(
        renderer,
        file,
        Snippet {
            severity: diagnostic.severity,
            rule: Some(diagnostic.rule),
            message: &diagnostic.message,
            span: diagnostic.span,
            labels: &labels,
            notes: &diagnostic.notes,
            help: diagnostic.help.as_deref(),
        },
    )
}

/// A problem at a place in a file that is not a rule's finding (a configuration error), in the
/// same form as the findings.
pub fn render_problem(
    file: &SourceFile,
    span: Span,
    message: &str,
    help: Option<&str>,
    color: bool,
) -> String {
    render_snippet(
        &renderer(color),
        file,
        Snippet {
            severity: Severity::Error,
            rule: None,
            message,
            span,
            labels: &[],
            notes: &[],
            help,
        },
    )
}

fn renderer(color: bool) -> Renderer {
    if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    }
    .decor_style(DecorStyle::Ascii)
}

/// What one rendered message shows.
struct Snippet<'a> {
    severity: Severity,
    rule: Option<&'static str>,
    message: &'a str,
    span: Span,
    labels: &'a [(Span, &'a str)],
    notes: &'a [String],
    help: Option<&'a str>,
}

fn render_snippet(renderer: &Renderer, file: &SourceFile, shown: Snippet<'_>) -> String {
    let level = match shown.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    // Hand the renderer only the lines the message touches, not the whole file.
    let spans: Vec<Span> = std::iter::once(shown.span)
        .chain(shown.labels.iter().map(|l| l.0))
        .map(|span| visible(file, span))
        .collect();
    let first_line = spans
        .iter()
        .map(|s| file.lines.line_of(s.start as usize))
        .min()
        .unwrap_or(0);
    let last_line = spans
        .iter()
        .map(|s| file.lines.line_of(s.end as usize))
        .max()
        .unwrap_or(0);
    let start = file.lines.line_start(first_line);
    let end = if last_line + 1 < file.lines.line_count() {
        file.lines.line_start(last_line + 1)
    } else {
        file.text.len()
    };
    let excerpt = &file.text[start..end];
    let local = |span: Span| (span.start as usize - start)..(span.end as usize - start);

    let mut snippet = annotate_snippets::Snippet::source(excerpt)
        .path(file.path.as_str())
        .line_start(first_line + 1)
        .fold(true)
        .annotation(AnnotationKind::Primary.span(local(spans[0])));
    for ((_, message), &span) in shown.labels.iter().zip(&spans[1..]) {
        snippet = snippet.annotation(AnnotationKind::Context.span(local(span)).label(*message));
    }
    let title = level.primary_title(shown.message);
    let title = match shown.rule {
        Some(rule) => title.id(rule),
        None => title,
    };
    let mut group: Group<'_> = title.element(snippet);
    for note in shown.notes {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    if let Some(help) = shown.help {
        group = group.element(Level::HELP.message(help));
    }
    renderer.render(&[group])
}

/// A span the renderer can point at: at least one character wide where the text allows, and
/// on character boundaries.
fn visible(file: &SourceFile, span: Span) -> Span {
    let text = &file.text;
    let start = clamp_to_char_boundary(text, span.start as usize);
    let mut end = clamp_to_char_boundary(text, span.end as usize).max(start);
    if end == start {
        end = text[start..]
            .chars()
            .next()
            .filter(|&c| c != '\n' && c != '\r')
            .map_or(start, |c| start + c.len_utf8());
    }
    Span::new(start, end)
}
