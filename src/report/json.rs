use std::io::{self, Write};

use super::FileReport;
pub use crate::diagnostics::{JsonDiagnostic, JsonLabel};

/// A JSON array of every finding, in output order (DESIGN.md §1, docs/output.md).
pub fn write(out: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    let items: Vec<JsonDiagnostic> = reports
        .iter()
        .flat_map(|report| {
            report
                .diagnostics
                .iter()
                .map(|diagnostic| JsonDiagnostic::new(&report.file, diagnostic))
        })
        .collect();
    serde_json::to_writer_pretty(&mut *out, &items)?;
    writeln!(out)
}
