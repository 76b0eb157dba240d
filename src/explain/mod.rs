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

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainFormat {
    /// A timeline for the terminal.
    Text,
    /// The JSON schema of docs/explain.md.
    Json,
    /// Markdown with Mermaid Gantt charts, for GitHub issues and pull requests.
    Mermaid,
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
    match format {
        ExplainFormat::Text => text::write(out, pods),
        ExplainFormat::Json => json::write(out, pods),
        ExplainFormat::Mermaid => mermaid::write(out, pods),
    }
}
