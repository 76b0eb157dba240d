//! "Explain this pod": the `podcycle/explain` request gives `podcycle explain`'s timeline — as
//! text and as Mermaid Markdown — for the object under the editor's cursor, or for the pods a
//! Helm template or Kustomize patch writes. It is computed by the same `Explaining` the
//! command feeds, from the document's text and plan, so the editor and the terminal never tell
//! two stories.
//!
//! Request: `{"textDocument": {"uri": …}, "position": {"line": …, "character": …}}`.
//! Result: `{"pods": N, "text": …, "mermaid": …, "message": …}`; with no pod, `message` says
//! why.

use std::path::Path;

use lsp_types::{Position, TextDocumentIdentifier};
use serde::{Deserialize, Serialize};

use crate::explain::{ExplainFormat, ExplainWriter, PodFilter};
use crate::run::{EditorPlan, Explaining, Ready, Renderer, RunOptions};
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
/// there, where no object holds it), planned as the editor lints the file. A Helm template or
/// a Kustomize patch is explained through its rendered chart or overlay: the pods it writes.
pub(crate) fn explain_at(
    plan: &EditorPlan,
    options: &RunOptions,
    path: Option<&Path>,
    name: &str,
    text: &str,
    offset: usize,
) -> ExplainResult {
    let unexplained = |message: String| ExplainResult {
        message: Some(message),
        ..ExplainResult::default()
    };
    let Some(file_plan) = &plan.file else {
        return unexplained(format!(
            "the configuration excludes this file; `podcycle explain {name}` explains it all the same"
        ));
    };
    if let (Some(path), false) = (path, plan.renders.is_empty()) {
        return explain_rendered(plan, options, path, text);
    }
    let filter = PodFilter {
        at: Some(u32::try_from(offset).unwrap_or(u32::MAX)),
        ..PodFilter::default()
    };
    let file = SourceFile::new(name, text);
    let explained = |format| {
        let mut run = Explaining::new(&filter, ExplainWriter::new(Vec::new(), format));
        let written = run.file(
            Ready::Bytes(name.to_owned(), text.as_bytes().to_vec()),
            file_plan,
        );
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

/// The pods a template or patch writes, from its rendered chart or overlay, as
/// `podcycle explain` shows a chart; the file is judged as saved.
fn explain_rendered(
    plan: &EditorPlan,
    options: &RunOptions,
    path: &Path,
    text: &str,
) -> ExplainResult {
    let on_disk = crate::safe_fs::read_file(path, crate::safe_fs::FileKind::Manifest)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok());
    if on_disk.as_deref() != Some(text) {
        return ExplainResult {
            message: Some(format!(
                "{} is explained through what renders it, as saved: save it first",
                path.display()
            )),
            ..ExplainResult::default()
        };
    }
    let renderer = Renderer::new(options);
    let filter = PodFilter::default();
    let mut result = ExplainResult::default();
    for format in [ExplainFormat::Text, ExplainFormat::Mermaid] {
        let mut run = Explaining::new(&filter, ExplainWriter::new(Vec::new(), format));
        for job in &plan.renders {
            let mut job = job.clone();
            // Only the pods this file writes.
            job.named_templates = vec![path.to_owned()];
            match renderer.render(&job) {
                Ok(output) => run.rendered(output, &job).expect("writing to memory"),
                Err(not_rendered) => {
                    let sentence = crate::run::rendering::unrendered(&job, not_rendered).sentence();
                    result.message = Some(sentence);
                }
            }
        }
        let pods = run.writer.written();
        let out = run.writer.finish().expect("writing to memory");
        let out = String::from_utf8_lossy(&out).into_owned();
        match format {
            ExplainFormat::Text => {
                result.pods = pods;
                result.text = out;
            }
            _ => result.mermaid = out,
        }
    }
    if result.pods == 0 && result.message.is_none() {
        result.message = Some(format!(
            "no pod spec is written by {} in what renders it",
            path.display()
        ));
    }
    result
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
