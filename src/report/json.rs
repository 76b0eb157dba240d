use std::io::{self, Write};

use serde::Serialize;

use super::{FileReport, RenderedFix, RunNotes, Unrendered, range, rendered_fixes};
use crate::diagnostics::{Diagnostic, Enforcement, Severity};
use crate::model::ObjectRef;
use crate::source::SourceFile;

/// One finding as the JSON format writes it (docs/output.md has the schema); `podcycle
/// explain` lists a pod's findings in the same shape.
#[derive(Clone, Debug, Serialize)]
pub struct JsonDiagnostic {
    pub(crate) rule: &'static str,
    pub(crate) severity: Severity,
    pub(crate) enforcement: Enforcement,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
    pub(crate) notes: Vec<String>,
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
    pub(crate) object: Option<ObjectRef>,
    pub(crate) container: Option<String>,
    /// The platform whose cut the finding is about (`gke-spot`), for the findings that judge a
    /// pod against one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) platform: Option<&'static str>,
    pub(crate) field: Option<String>,
    pub(crate) labels: Vec<JsonLabel>,
    /// Set for a finding in the output of Helm or Kustomize, mapped back to `file`.
    pub(crate) rendered: Option<JsonRendered>,
    /// The fixes that resolve it, as text edits (`check --format json` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fixes: Option<Vec<JsonFix>>,
}

/// A fix: what it does, whether `--fix` applies it without `--unsafe-fixes`, and its edits.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonFix {
    pub(crate) title: String,
    pub(crate) applicability: &'static str,
    pub(crate) edits: Vec<JsonEdit>,
}

/// Replace the range (end exclusive; empty for an insertion) with `content`.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonEdit {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
    pub(crate) content: String,
}

impl JsonFix {
    fn new(file: &SourceFile, rendered: &RenderedFix<'_>) -> JsonFix {
        JsonFix {
            title: rendered.fix.title.clone(),
            applicability: rendered.fix.applicability.as_str(),
            edits: rendered
                .edits
                .iter()
                .map(|edit| {
                    let (line, column, end_line, end_column) = range(file, edit.span);
                    JsonEdit {
                        line,
                        column,
                        end_line,
                        end_column,
                        content: edit.text.clone(),
                    }
                })
                .collect(),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonLabel {
    pub(crate) message: String,
    /// The file the label points into: the finding's own, a values file, a base or a patch.
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) end_line: usize,
    pub(crate) end_column: usize,
}

/// Where a finding in rendered output comes from.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct JsonRendered {
    /// `helm` or `kustomize`.
    pub(crate) tool: &'static str,
    /// The chart or overlay directory.
    pub(crate) input: String,
    /// `exact` (the line that wrote the field), `object` (the object's declaration: the field's
    /// line is not known) or `file` (only the file is known; the position is its start).
    pub(crate) placement: &'static str,
}

impl JsonDiagnostic {
    pub(crate) fn new(file: &SourceFile, diagnostic: &Diagnostic) -> JsonDiagnostic {
        let (line, column, end_line, end_column) = range(file, diagnostic.span);
        JsonDiagnostic {
            rule: diagnostic.rule,
            severity: diagnostic.severity,
            enforcement: diagnostic.enforcement,
            message: diagnostic.message.clone(),
            help: diagnostic.help.clone(),
            notes: diagnostic.notes.clone(),
            file: file.path.clone(),
            line,
            column,
            end_line,
            end_column,
            object: diagnostic.object.clone(),
            container: diagnostic.container.clone(),
            platform: diagnostic.platform,
            field: diagnostic.field.clone(),
            labels: diagnostic
                .labels
                .iter()
                .map(|label| {
                    let labelled = label.file_or(file);
                    let (line, column, end_line, end_column) = range(labelled, label.span);
                    JsonLabel {
                        message: label.message.clone(),
                        file: labelled.path.clone(),
                        line,
                        column,
                        end_line,
                        end_column,
                    }
                })
                .collect(),
            fixes: None,
            rendered: diagnostic.rendered.as_ref().map(|rendered| JsonRendered {
                tool: rendered.tool.as_str(),
                input: rendered.input.clone(),
                placement: rendered.placement.as_str(),
            }),
        }
    }
}

/// The `rule` of an entry that stands for a chart or overlay not rendered.
pub(crate) const NOT_RENDERED: &str = "not-rendered";

/// A JSON array of every finding, in output order (docs/output.md), then one entry for each
/// chart or overlay that was not rendered: in the same shape as a finding, so that a consumer
/// of the array sees what was not checked rather than a clean result (as ruff reports a file
/// it cannot read).
pub(crate) fn write(out: &mut dyn Write, reports: &[FileReport], run: &RunNotes) -> io::Result<()> {
    let mut items: Vec<JsonDiagnostic> = reports
        .iter()
        .flat_map(|report| {
            let fixes = rendered_fixes(&report.file, &report.diagnostics);
            report
                .diagnostics
                .iter()
                .zip(fixes)
                .map(|(diagnostic, fixes)| JsonDiagnostic {
                    fixes: Some(
                        fixes
                            .iter()
                            .map(|fix| JsonFix::new(&report.file, fix))
                            .collect(),
                    ),
                    ..JsonDiagnostic::new(&report.file, diagnostic)
                })
        })
        .collect();
    items.extend(run.unrendered.iter().map(not_rendered));
    serde_json::to_writer_pretty(&mut *out, &items)?;
    writeln!(out)
}

fn not_rendered(unrendered: &Unrendered) -> JsonDiagnostic {
    JsonDiagnostic {
        rule: NOT_RENDERED,
        severity: Severity::Warning,
        enforcement: Enforcement::Advice,
        message: unrendered.sentence(),
        help: None,
        notes: vec![format!(
            "podcycle did not lint what the {} renders: its findings are not known",
            unrendered.noun()
        )],
        file: unrendered.file.clone(),
        line: 1,
        column: 1,
        end_line: 1,
        end_column: 1,
        object: None,
        container: None,
        platform: None,
        field: None,
        labels: Vec::new(),
        rendered: Some(JsonRendered {
            tool: unrendered.tool.as_str(),
            input: unrendered.input.clone(),
            placement: "file",
        }),
        fixes: Some(Vec::new()),
    }
}
