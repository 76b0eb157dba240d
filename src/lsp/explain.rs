//! "Explain this pod": the `podcycle/explain` request gives `podcycle explain`'s timeline — as
//! text and as Mermaid Markdown — for the object under the editor's cursor. It is computed by
//! the same [`Explaining`] the command feeds, from the document's text and settings, so the
//! editor and the terminal never tell two stories.
//!
//! Request: `{"textDocument": {"uri": …}, "position": {"line": …, "character": …}}`.
//! Result: `{"pods": N, "text": …, "mermaid": …, "message": …}`; with no pod, `message` says
//! why.

use std::path::Path;

use lsp_types::{Position, TextDocumentIdentifier};
use serde::{Deserialize, Serialize};

use crate::explain::{ExplainFormat, ExplainWriter, Explaining, Selection};
use crate::lint::{FileRole, lint_file_with};
use crate::settings::Settings;
use crate::source::SourceFile;
use crate::text::name_list;

pub const METHOD: &str = "podcycle/explain";

#[derive(Debug, Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExplainParams {
    pub text_document: TextDocumentIdentifier,
    pub position: Position,
}

#[derive(Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ExplainResult {
    /// How many pods are explained.
    pub pods: usize,
    /// What `podcycle explain --format text` prints for them.
    pub text: String,
    /// What `podcycle explain --format mermaid` prints for them.
    pub mermaid: String,
    /// Why nothing is explained, or what to know about what is.
    pub message: Option<String>,
}

/// Explains the pod of the object at byte `offset` of `text` (or the pods of the document
/// there, where no object holds it). `settings` is `None` when the configuration excludes the
/// file.
pub fn explain_at(
    path: Option<&Path>,
    name: &str,
    text: &str,
    settings: Option<&Settings>,
    role: FileRole,
    offset: usize,
) -> ExplainResult {
    let unexplained = |message: String| ExplainResult {
        message: Some(message),
        ..ExplainResult::default()
    };
    if let Some(chart) = path.and_then(crate::render::helm::chart_of_template) {
        let chart = crate::render::display(&chart);
        return unexplained(format!(
            "a Helm template is explained from the rendered chart: `helm template {chart} | podcycle explain -`"
        ));
    }
    let Some(settings) = settings else {
        return unexplained(format!(
            "the configuration excludes this file; `podcycle explain {name}` explains it all the same"
        ));
    };
    let file = SourceFile::new(name, text);
    let selection = Selection {
        at: Some(u32::try_from(offset).unwrap_or(u32::MAX)),
        ..Selection::default()
    };
    let explained = |format| {
        let mut run = Explaining::new(&selection, ExplainWriter::new(Vec::new(), format));
        let mut written = Ok(());
        lint_file_with(&file, settings, role, &mut |visit| {
            if written.is_ok() {
                written = run.visit(visit);
            }
        });
        let pods = run.writer.written();
        let message = (pods == 0).then(|| nothing_explained(&run, &file, offset));
        let out = written
            .and_then(|()| run.writer.finish())
            .expect("writing to memory");
        (pods, String::from_utf8_lossy(&out).into_owned(), message)
    };
    let (pods, text, message) = explained(ExplainFormat::Text);
    let (_, mermaid, _) = explained(ExplainFormat::Mermaid);
    ExplainResult {
        pods,
        text,
        mermaid,
        message,
    }
}

/// Why no pod is explained at `offset`, as `podcycle explain` says it.
fn nothing_explained(run: &Explaining<'_, Vec<u8>>, file: &SourceFile, offset: usize) -> String {
    if let Some((object, at)) = run.unreadable.first() {
        return format!(
            "{} ({at}) has a pod spec that cannot be read; its problems say why",
            object.display_name()
        );
    }
    if let Some((object, at)) = run.without_pod_spec.first() {
        return format!(
            "{} ({at}) has no pod spec to explain",
            object.display_name()
        );
    }
    if run.objects.is_empty() {
        return "no workload object in this file (explain reads Pods, PodTemplates and workload controllers)".to_owned();
    }
    let line = file
        .line_col(u32::try_from(offset).unwrap_or(u32::MAX))
        .line;
    let objects: Vec<&str> = run.objects.iter().map(String::as_str).collect();
    format!(
        "no workload object at line {line}; put the cursor in one of {}",
        name_list(objects)
    )
}
