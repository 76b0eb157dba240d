use std::io::{self, Write};

use super::{FileReport, range};

/// `file:line:col: severity[rule] message`, the format editors' quickfix lists read.
pub fn write(out: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    for report in reports {
        for diagnostic in &report.diagnostics {
            let (line, column, _, _) = range(&report.file, diagnostic.span);
            writeln!(
                out,
                "{}:{line}:{column}: {}[{}] {}",
                report.file.path, diagnostic.severity, diagnostic.rule, diagnostic.message
            )?;
        }
    }
    Ok(())
}
