use std::io::{self, Write};

use serde::Serialize;

use super::{FileReport, range};
use crate::diagnostics::Severity;
use crate::model::ObjectRef;

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    rule: &'a str,
    severity: Severity,
    message: &'a str,
    help: Option<&'a str>,
    notes: &'a [String],
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    object: Option<&'a ObjectRef>,
    container: Option<&'a str>,
    field: Option<&'a str>,
    labels: Vec<JsonLabel<'a>>,
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    message: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
}

/// A JSON array of every finding, in output order (DESIGN.md §1, docs/output.md).
pub fn write(out: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    let mut items = Vec::new();
    for report in reports {
        for diagnostic in &report.diagnostics {
            let (line, column, end_line, end_column) = range(&report.file, diagnostic.span);
            items.push(JsonDiagnostic {
                rule: diagnostic.rule,
                severity: diagnostic.severity,
                message: &diagnostic.message,
                help: diagnostic.help.as_deref(),
                notes: &diagnostic.notes,
                file: &report.file.path,
                line,
                column,
                end_line,
                end_column,
                object: diagnostic.object.as_ref(),
                container: diagnostic.container.as_deref(),
                field: diagnostic.field.as_deref(),
                labels: diagnostic
                    .labels
                    .iter()
                    .map(|label| {
                        let (line, column, end_line, end_column) = range(&report.file, label.span);
                        JsonLabel {
                            message: &label.message,
                            line,
                            column,
                            end_line,
                            end_column,
                        }
                    })
                    .collect(),
            });
        }
    }
    serde_json::to_writer_pretty(&mut *out, &items)?;
    writeln!(out)
}
