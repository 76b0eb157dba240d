use std::io::{self, Write};

use super::{FileReport, range};
use crate::diagnostics::Placement;
use crate::escape::escape_controls;

/// `file:line:col: severity[rule] message`, the format editors' quickfix lists read. One line
/// per finding whatever the manifest holds: file names and messages are escaped.
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
                    escape_controls(&report.file.path),
                    diagnostic.severity,
                    diagnostic.rule,
                    escape_controls(&diagnostic.message),
                    escape_controls(diagnostic.field.as_deref().unwrap_or("the file"))
                )?;
                continue;
            }
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
