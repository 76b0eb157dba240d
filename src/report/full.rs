use std::io::{self, Write};

use annotate_snippets::renderer::DecorStyle;
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer};

use super::FileReport;
use crate::diagnostics::{Diagnostic, Placement, RenderTool, Rendered, Severity};
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
    let labels: Vec<(&SourceFile, Span, &str)> = diagnostic
        .labels
        .iter()
        .map(|l| (l.file_or(file), l.span, l.message.as_str()))
        .collect();
    let mut notes = diagnostic.notes.clone();
    let mut placed = true;
    if let Some(rendered) = &diagnostic.rendered {
        notes.extend(placement_note(diagnostic, rendered));
        placed = rendered.placement != Placement::File;
    }
    render_snippet(
        renderer,
        file,
        Snippet {
            severity: diagnostic.severity,
            rule: Some(diagnostic.rule),
            message: &diagnostic.message,
            span: placed.then_some(diagnostic.span),
            labels: &labels,
            notes: &notes,
            help: diagnostic.help.as_deref(),
        },
    )
}

/// What the reader of a finding in rendered output needs to know: where it was rendered, and
/// when the line is not the one that wrote the field, that it is not.
pub fn placement_note(diagnostic: &Diagnostic, rendered: &Rendered) -> Vec<String> {
    let command = match rendered.tool {
        RenderTool::Helm => "helm template",
        RenderTool::Kustomize => "kustomize build",
    };
    let mut notes = vec![format!(
        "found in the output of `{command} {}`",
        rendered.input
    )];
    let field = diagnostic.field.as_deref().unwrap_or("the field");
    let object = diagnostic
        .object
        .as_ref()
        .map_or_else(|| "the object".to_owned(), |o| o.display_name());
    match rendered.placement {
        Placement::Exact => {}
        Placement::Object => notes.push(format!(
            "podcycle cannot place `{field}` exactly in this file; it points at the declaration of {object}"
        )),
        Placement::File => notes.push(format!(
            "podcycle cannot place this finding exactly in this file: it is about `{field}` of {object}"
        )),
    }
    notes
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
            span: Some(span),
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
    /// `None` for a finding about a whole file.
    span: Option<Span>,
    labels: &'a [(&'a SourceFile, Span, &'a str)],
    notes: &'a [String],
    help: Option<&'a str>,
}

fn render_snippet(renderer: &Renderer, file: &SourceFile, shown: Snippet<'_>) -> String {
    let level = match shown.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let title = level.primary_title(shown.message);
    let title = match shown.rule {
        Some(rule) => title.id(rule),
        None => title,
    };
    // One snippet for the finding's own file, then one for each other file a label points
    // into, in the order the labels name them.
    let mut files: Vec<&SourceFile> = vec![file];
    for (other, _, _) in shown.labels {
        if !files
            .iter()
            .any(|f| std::ptr::eq(*f, *other) || f.path == other.path)
        {
            files.push(other);
        }
    }
    let mut group: Group<'_> = match shown.span {
        Some(span) => title.element(excerpt(file, Some(span), shown.labels)),
        None if shown.labels.iter().any(|(f, _, _)| same(f, file)) => {
            title.element(excerpt(file, None, shown.labels))
        }
        None => title.element(Origin::path(file.path.as_str())),
    };
    for other in &files[1..] {
        group = group.element(excerpt(other, None, shown.labels));
    }
    for note in shown.notes {
        group = group.element(Level::NOTE.message(note.as_str()));
    }
    if let Some(help) = shown.help {
        group = group.element(Level::HELP.message(help));
    }
    renderer.render(&[group])
}

fn same(a: &SourceFile, b: &SourceFile) -> bool {
    std::ptr::eq(a, b) || a.path == b.path
}

/// The lines of `file` that the primary span (if it is in this file) and the labels in this
/// file touch, annotated; only those lines are handed to the renderer, not the whole file.
fn excerpt<'a>(
    file: &'a SourceFile,
    primary: Option<Span>,
    labels: &'a [(&'a SourceFile, Span, &'a str)],
) -> annotate_snippets::Snippet<'a, annotate_snippets::Annotation<'a>> {
    let labels: Vec<(Span, &str)> = labels
        .iter()
        .filter(|(f, _, _)| same(f, file))
        .map(|&(_, span, message)| (visible(file, span), message))
        .collect();
    let primary = primary.map(|span| visible(file, span));
    let spans: Vec<Span> = primary
        .iter()
        .copied()
        .chain(labels.iter().map(|l| l.0))
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
    let local = move |span: Span| (span.start as usize - start)..(span.end as usize - start);
    let mut snippet = annotate_snippets::Snippet::source(&file.text[start..end])
        .path(file.path.as_str())
        .line_start(first_line + 1)
        .fold(true);
    if let Some(span) = primary {
        snippet = snippet.annotation(AnnotationKind::Primary.span(local(span)));
    }
    for (span, message) in labels {
        snippet = snippet.annotation(AnnotationKind::Context.span(local(span)).label(message));
    }
    snippet
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
