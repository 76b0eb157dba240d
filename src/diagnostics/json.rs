//! A diagnostic placed in its file, as the JSON format writes it: the shape of
//! `podcycle check --format json` (DESIGN.md §1, docs/output.md), which `podcycle explain`
//! lists under each pod too.

use serde::Serialize;

use super::{Diagnostic, Severity};
use crate::model::ObjectRef;
use crate::source::{SourceFile, Span};

/// One finding as the JSON format writes it.
#[derive(Clone, Debug, Serialize)]
pub struct JsonDiagnostic {
    pub rule: &'static str,
    pub severity: Severity,
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
}

#[derive(Clone, Debug, Serialize)]
pub struct JsonLabel {
    pub message: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

impl JsonDiagnostic {
    pub fn new(file: &SourceFile, diagnostic: &Diagnostic) -> JsonDiagnostic {
        let (line, column, end_line, end_column) = range(file, diagnostic.span);
        JsonDiagnostic {
            rule: diagnostic.rule,
            severity: diagnostic.severity,
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
                    let (line, column, end_line, end_column) = range(file, label.span);
                    JsonLabel {
                        message: label.message.clone(),
                        line,
                        column,
                        end_line,
                        end_column,
                    }
                })
                .collect(),
        }
    }
}

/// Line and column (1-based, columns in characters, end exclusive) of a span.
pub(crate) fn range(file: &SourceFile, span: Span) -> (usize, usize, usize, usize) {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    (start.line, start.column, end.line, end.column)
}
