use std::io::{self, Write};

use super::{FileReport, range};
use crate::diagnostics::Placement;

/// `file:line:col: severity[rule] message`, the format editors' quickfix lists read.
pub fn write(out: &mut dyn Write, reports: &[FileReport]) -> io::Result<()> {
    for report in reports {
        for diagnostic in &report.diagnostics {
            if diagnostic
                .rendered
                .as_ref()
                .is_some_and(|r| r.placement == Placement::File)
            {
                // No line is known: say so rather than point at line 1.
                writeln!(
                    out,
                    "{}: {}[{}] {} (in `{}`; no exact line)",
                    report.file.path,
                    diagnostic.severity,
                    diagnostic.rule,
                    diagnostic.message,
                    diagnostic.field.as_deref().unwrap_or("the file")
                )?;
                continue;
            }
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
