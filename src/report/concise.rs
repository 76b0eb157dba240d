use std::io::{self, Write};

use super::{FileReport, range};
use crate::escape::escape_controls;

/// `file:line:col: severity[rule] message`, the format editors' quickfix lists read. One line
/// per finding whatever the manifest holds: file names and messages are escaped.
pub fn write(out: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    for report in reports {
        for diagnostic in &report.diagnostics {
            let (line, column, _, _) = range(&report.file, diagnostic.span);
            writeln!(
                out,
                "{}:{line}:{column}: {}[{}] {}",
                escape_controls(&report.file.path),
                diagnostic.severity,
                diagnostic.rule,
                escape_controls(&diagnostic.message)
            )?;
        }
    }
    Ok(())
}
