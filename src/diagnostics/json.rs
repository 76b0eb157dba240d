//! A diagnostic placed in its file, as the JSON format writes it: the shape of
//! `podcycle check --format json` (DESIGN.md §1, docs/output.md), which `podcycle explain`
//! lists under each pod too.

use serde::Serialize;

use super::{Diagnostic, Enforcement, Severity};
use crate::model::ObjectRef;
use crate::source::{SourceFile, Span};

/// One finding as the JSON format writes it.
#[derive(Clone, Debug, Serialize)]
pub struct JsonDiagnostic {
    pub rule: &'static str,
    pub severity: Severity,
    pub enforcement: Enforcement,
    pub message: String,
    pub help: Option<String>,
    pub notes: Vec<String>,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub object: Option<ObjectRef>,
    pub container: Option<String>,
    pub field: Option<String>,
    pub labels: Vec<JsonLabel>,
    /// Set for a finding in the output of Helm or Kustomize, mapped back to `file`.
    pub rendered: Option<JsonRendered>,
}

#[derive(Clone, Debug, Serialize)]
pub struct JsonLabel {
    pub message: String,
    /// The file the label points into: the finding's own, a values file, a base or a patch.
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

/// Where a finding in rendered output comes from.
#[derive(Clone, Debug, Serialize)]
pub struct JsonRendered {
    /// `helm` or `kustomize`.
    pub tool: &'static str,
    /// The chart or overlay directory.
    pub input: String,
    /// `exact` (the line that wrote the field), `object` (the object's declaration: the field's
    /// line is not known) or `file` (only the file is known; the position is its start).
    pub placement: &'static str,
}

impl JsonDiagnostic {
    pub fn new(file: &SourceFile, diagnostic: &Diagnostic) -> JsonDiagnostic {
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
            rendered: diagnostic.rendered.as_ref().map(|rendered| JsonRendered {
                tool: rendered.tool.as_str(),
                input: rendered.input.clone(),
                placement: rendered.placement.as_str(),
            }),
        }
    }
}

/// Line and column (1-based, columns in characters, end exclusive) of a span.
pub(crate) fn range(file: &SourceFile, span: Span) -> (usize, usize, usize, usize) {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    (start.line, start.column, end.line, end.column)
}
