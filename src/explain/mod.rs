//! `podcycle explain`: the lifecycle model of each pod spec as a timeline people can read
//! (`text`), tools can use (`json`) and GitHub can draw (`mermaid`), with the findings of
//! `check` for the same pod. docs/explain.md describes the output.

mod json;
pub mod mermaid;
pub mod model;
mod select;
mod text;

use std::io::{self, Write};

pub use model::PodExplanation;
pub use select::{ObjectSelector, Selection};

use crate::lint::ObjectVisit;
use crate::model::ObjectRef;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    /// A timeline for the terminal.
    Text,
    /// The JSON schema of docs/explain.md.
    Json,
    /// Markdown with Mermaid Gantt charts, for GitHub issues and pull requests.
    Mermaid,
}

impl ExplainFormat {
    pub const ALL: [ExplainFormat; 3] = [
        ExplainFormat::Text,
        ExplainFormat::Json,
        ExplainFormat::Mermaid,
    ];

    /// The name `--format` takes, and one line on what it is.
    pub fn name_and_description(self) -> (&'static str, &'static str) {
        match self {
            ExplainFormat::Text => ("text", "a timeline for the terminal"),
            ExplainFormat::Json => ("json", "the JSON schema of docs/explain.md"),
            ExplainFormat::Mermaid => (
                "mermaid",
                "Markdown with Mermaid Gantt charts, for GitHub issues and pull requests",
            ),
        }
    }
}

/// What a file holds for explain: its pods, and the selected objects without one.
#[derive(Debug, Default)]
pub struct FileExplanation {
    pub pods: Vec<PodExplanation>,
    /// Workload objects seen in the file (for suggestions when `--object` matches nothing).
    pub objects: Vec<ObjectRef>,
    /// Selected objects whose pod spec could not be decoded, with where they are.
    pub unreadable: Vec<(ObjectRef, String)>,
    /// Objects named by `--object` without a pod spec (a patch, a template without `spec`).
    pub without_pod_spec: Vec<(ObjectRef, String)>,
}

impl FileExplanation {
    /// Takes in one object met while linting, if `selection` wants it.
    pub fn visit(&mut self, visit: &ObjectVisit<'_>, selection: &Selection) {
        let object = &visit.object.object;
        self.objects.push(object.clone());
        if !selection.wants_object(object) {
            return;
        }
        if let Some(pod) = PodExplanation::from_visit(visit) {
            self.pods.push(pod);
            return;
        }
        let span = visit.document.node(visit.object.root).span;
        let at = format!(
            "{}:{}",
            visit.file.path,
            visit.file.line_col(span.start).line
        );
        let undecodable = visit
            .diagnostics
            .iter()
            .any(|d| matches!(d.rule, "invalid-type" | "yaml-syntax"));
        if undecodable {
            self.unreadable.push((object.clone(), at));
        } else if selection.object.is_some() {
            self.without_pod_spec.push((object.clone(), at));
        }
    }
}

/// Writes the explanations in `format`.
pub fn write(
    out: &mut dyn Write,
    format: ExplainFormat,
    pods: &[PodExplanation],
) -> io::Result<()> {
    let write_pod = match format {
        ExplainFormat::Json => return json::write(out, pods),
        ExplainFormat::Text => text::write_pod,
        ExplainFormat::Mermaid => mermaid::write_pod,
    };
    // Names come from the manifest: no control character of theirs reaches a terminal or log.
    let mut filtered = crate::escape::ControlFilter::new(out);
    let out: &mut dyn Write = &mut filtered;
    for (index, pod) in pods.iter().enumerate() {
        if index > 0 {
            writeln!(out)?;
        }
        write_pod(out, pod)?;
    }
    Ok(())
}

/// How a format writes the notes and findings under a pod: headings, bullet, and the quote
/// around rule names and places (backticks in Markdown).
struct ListStyle {
    notes: &'static str,
    findings: &'static str,
    bullet: &'static str,
    code: &'static str,
}

/// The notes and the findings of `check`, each under its heading when there are any.
fn write_notes_and_findings(
    out: &mut dyn Write,
    pod: &PodExplanation,
    style: &ListStyle,
) -> io::Result<()> {
    let code = style.code;
    let notes: Vec<String> = pod.notes.iter().map(|note| note.text.clone()).collect();
    let findings: Vec<String> = pod
        .findings
        .iter()
        .map(|f| {
            format!(
                "{}[{code}{}{code}] {code}{}:{}:{}{code}: {}",
                f.severity, f.rule, f.file, f.line, f.column, f.message
            )
        })
        .collect();
    for (heading, items) in [(style.notes, notes), (style.findings, findings)] {
        if items.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{heading}")?;
        for item in items {
            writeln!(out, "{}{item}", style.bullet)?;
        }
    }
    Ok(())
}
