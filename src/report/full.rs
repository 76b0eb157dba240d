use std::io::{self, Write};

use std::borrow::Cow;

use annotate_snippets::renderer::DecorStyle;
use annotate_snippets::{AnnotationKind, Group, Level, Origin, Renderer};

use super::FileReport;
use crate::diagnostics::{Diagnostic, Placement, RenderOrigin, Severity};
use crate::escape::{Remap, escape_controls, escape_source};
use crate::source::{SourceFile, Span};

/// rustc-style diagnostics with source snippets.
pub(crate) fn write(out: &mut dyn Write, reports: &[FileReport], color: bool) -> io::Result<()> {
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
    let notes = notes(diagnostic);
    let placed = diagnostic
        .rendered
        .as_ref()
        .is_none_or(|rendered| rendered.placement != Placement::File);
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

/// A finding's notes, then what its place in rendered output says ([`placement_note`]): what
/// every format prints after the message.
pub(crate) fn notes(diagnostic: &Diagnostic) -> Vec<String> {
    let mut notes = diagnostic.notes.clone();
    if let Some(rendered) = &diagnostic.rendered {
        notes.extend(placement_note(diagnostic, rendered));
    }
    notes
}

/// What the reader of a finding in rendered output needs to know: where it was rendered, and
/// when the line is not the one that wrote the field, that it is not.
pub(crate) fn placement_note(diagnostic: &Diagnostic, rendered: &RenderOrigin) -> Vec<String> {
    let command = rendered.command;
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
pub(crate) fn render_problem(
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
    /// Related places, each in its own file (the finding's, or a values file, a base…).
    labels: &'a [(&'a SourceFile, Span, &'a str)],
    notes: &'a [String],
    help: Option<&'a str>,
}

/// Places closer than this many lines share one excerpt (with `...` for the lines between);
/// farther ones get an excerpt each (`::: file:line:col`). Each diagnostic is then rendered in
/// time proportional to its own places, not to the lines between them: 20,000 duplicates of a
/// key, each pointing back at the first, would otherwise render every line in between 20,000
/// times.
const MERGE_GAP: usize = 16;
/// A span over more lines than this is drawn on its first line only (the machine formats keep
/// its whole range), for the same reason.
const MAX_SPAN_LINES: usize = 16;

/// A span to draw, with its lines (0-based).
struct Place<'a> {
    span: Span,
    first: usize,
    last: usize,
    label: Option<Cow<'a, str>>,
    primary: bool,
}

fn render_snippet(renderer: &Renderer, file: &SourceFile, shown: Snippet<'_>) -> String {
    let level = match shown.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let message = escape_controls(shown.message);
    let title = level.primary_title(message.as_ref());
    let title = match shown.rule {
        Some(rule) => title.id(rule),
        None => title,
    };
    // The finding's own file first, then each other file a label points into, in the order
    // the labels name them.
    let mut files: Vec<&SourceFile> = vec![file];
    for (other, _, _) in shown.labels {
        if !files.iter().any(|f| same(f, other)) {
            files.push(other);
        }
    }
    let excerpts: Vec<FileExcerpts<'_>> = files
        .iter()
        .map(|&each| {
            let primary = if same(each, file) { shown.span } else { None };
            excerpts(each, primary, shown.labels)
        })
        .collect();
    let mut group = Group::with_title(title);
    if excerpts[0].regions.is_empty() {
        group = group.element(Origin::path(excerpts[0].path.as_ref()));
    }
    for excerpt in &excerpts {
        for (region, (first, start, text, remap)) in excerpt.regions.iter().zip(&excerpt.texts) {
            let local = |span: Span| {
                remap.offset(span.start as usize - start)..remap.offset(span.end as usize - start)
            };
            let mut snippet = annotate_snippets::Snippet::source(text.as_ref())
                .path(excerpt.path.as_ref())
                .line_start(first + 1)
                .fold(true);
            for place in region {
                snippet = snippet.annotation(match (place.primary, place.label.as_deref()) {
                    (true, _) => AnnotationKind::Primary.span(local(place.span)),
                    (false, Some(label)) => {
                        AnnotationKind::Context.span(local(place.span)).label(label)
                    }
                    (false, None) => AnnotationKind::Context.span(local(place.span)),
                });
            }
            group = group.element(snippet);
        }
    }
    let notes: Vec<Cow<'_, str>> = shown.notes.iter().map(|n| escape_controls(n)).collect();
    for note in &notes {
        group = group.element(Level::NOTE.message(note.as_ref()));
    }
    let help = shown.help.map(escape_controls);
    if let Some(help) = &help {
        group = group.element(Level::HELP.message(help.as_ref()));
    }
    renderer.render(&[group])
}

fn same(a: &SourceFile, b: &SourceFile) -> bool {
    std::ptr::eq(a, b) || a.path == b.path
}

/// The excerpts of one file: its places grouped into regions of nearby lines, the primary's
/// region first, each with its escaped text.
struct FileExcerpts<'a> {
    path: Cow<'a, str>,
    regions: Vec<Vec<Place<'a>>>,
    texts: Vec<(usize, usize, Cow<'a, str>, Remap)>,
}

fn excerpts<'a>(
    file: &'a SourceFile,
    primary: Option<Span>,
    labels: &'a [(&'a SourceFile, Span, &'a str)],
) -> FileExcerpts<'a> {
    let regions = regions(file, primary, labels);
    let texts = regions
        .iter()
        .map(|region| {
            let (first, last) = lines_of(region);
            let start = file.line_start(first);
            let end = file.line_start(last + 1);
            let (excerpt, remap) = escape_source(file.slice(start..end));
            (first, start, excerpt, remap)
        })
        .collect();
    FileExcerpts {
        path: escape_controls(&file.path),
        regions,
        texts,
    }
}

/// The first and last line of a region.
fn lines_of(region: &[Place<'_>]) -> (usize, usize) {
    let first = region.iter().map(|p| p.first).min().unwrap_or(0);
    let last = region.iter().map(|p| p.last).max().unwrap_or(0);
    (first, last)
}

/// The lines (0-based, first and last of each excerpt) that this format shows of a
/// diagnostic's own file: what a report must keep of the file to render it.
pub(super) fn lines_shown(file: &SourceFile, diagnostic: &Diagnostic) -> Vec<(usize, usize)> {
    let labels: Vec<(&SourceFile, Span, &str)> = diagnostic
        .labels
        .iter()
        .map(|l| (l.file_or(file), l.span, l.message.as_str()))
        .collect();
    let placed = diagnostic
        .rendered
        .as_ref()
        .is_none_or(|rendered| rendered.placement != Placement::File);
    let primary = placed.then_some(diagnostic.span);
    regions(file, primary, &labels)
        .iter()
        .map(|region| lines_of(region))
        .collect()
}

/// The places of one file, grouped into regions of nearby lines; the primary's region first.
fn regions<'a>(
    file: &SourceFile,
    primary: Option<Span>,
    labels: &'a [(&'a SourceFile, Span, &'a str)],
) -> Vec<Vec<Place<'a>>> {
    let mut places: Vec<Place<'a>> = primary
        .map(|span| place(file, span, None, true))
        .into_iter()
        .chain(
            labels
                .iter()
                .filter(|(f, _, _)| same(f, file))
                .map(|&(_, span, label)| place(file, span, Some(escape_controls(label)), false)),
        )
        .collect();
    places.sort_by_key(|p| (p.first, !p.primary));

    // Places in line order, grouped into regions of nearby lines; the primary's region first.
    let mut regions: Vec<Vec<Place<'a>>> = Vec::new();
    for place in places {
        match regions.last_mut() {
            Some(region)
                if place.first <= region.iter().map(|p| p.last).max().unwrap_or(0) + MERGE_GAP =>
            {
                region.push(place)
            }
            _ => regions.push(vec![place]),
        }
    }
    if let Some(primary) = regions.iter().position(|r| r.iter().any(|p| p.primary)) {
        let region = regions.remove(primary);
        regions.insert(0, region);
    }
    regions
}

fn place<'a>(
    file: &SourceFile,
    span: Span,
    label: Option<Cow<'a, str>>,
    primary: bool,
) -> Place<'a> {
    let mut span = visible(file, span);
    let first = file.line_of(span.start as usize);
    let mut last = file.line_of(span.end as usize);
    if last - first > MAX_SPAN_LINES {
        let end = file.content_end(first).max(span.start as usize);
        span = visible(file, Span::new(span.start as usize, end));
        last = first;
    }
    Place {
        span,
        first,
        last,
        label,
        primary,
    }
}

/// A span the renderer can point at: at least one character wide where the text allows, and
/// on character boundaries.
fn visible(file: &SourceFile, span: Span) -> Span {
    let start = file.clamp_to_char_boundary(span.start as usize);
    let mut end = file.clamp_to_char_boundary(span.end as usize).max(start);
    if end == start {
        // The next character on the line, if any (the slice stops before the line break).
        let rest = file.slice(start..file.content_end(file.line_of(start)));
        end = rest.chars().next().map_or(start, |c| start + c.len_utf8());
    }
    Span::new(start, end)
}
