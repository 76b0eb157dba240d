//! GitHub Actions workflow commands: one `::error`, `::warning` or `::notice` line per finding,
//! which GitHub shows as annotations on the pull request.

use std::io::{self, Write};

use super::{FileReport, range};
use crate::diagnostics::{Placement, Severity};
use crate::escape::escape_controls;

/// `::error file=…,line=…,endLine=…,col=…,endColumn=…,title=…::message`.
///
/// GitHub reads `col` and `endColumn` only when the annotation starts and ends on one line,
/// and counts `endColumn` inclusively; podcycle's ends are exclusive, so one is taken off.
pub(crate) fn write(
    out: &mut dyn Write,
    reports: &[FileReport],
    run: &super::RunNotes,
) -> io::Result<()> {
    // What could not be rendered is a warning on the chart or kustomization file.
    for unrendered in &run.unrendered {
        writeln!(
            out,
            "::warning file={},title={}::{}",
            escape_property(&unrendered.file),
            escape_property("podcycle: not rendered"),
            escape_data(&escape_controls(&unrendered.sentence()))
        )?;
    }
    for report in reports {
        for diagnostic in &report.diagnostics {
            let command = match diagnostic.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let (line, column, end_line, end_column) = range(&report.file, diagnostic.span);
            let mut properties = format!("file={}", escape_property(&report.file.path));
            let placement = diagnostic.rendered.as_ref().map(|r| r.placement);
            // A finding placed only in its file is a file-level annotation.
            if placement != Some(Placement::File) {
                properties.push_str(&format!(",line={line},endLine={end_line}"));
            }
            if line == end_line && placement != Some(Placement::File) {
                let last = end_column.saturating_sub(1).max(column);
                properties.push_str(&format!(",col={column},endColumn={last}"));
            }
            let title = escape_property(&format!("podcycle({})", diagnostic.rule));
            // Each piece on its own line: the text is escaped first, so that only these
            // newlines remain (as `%0A`).
            let mut message = escape_controls(&diagnostic.message).into_owned();
            for note in &super::full::notes(diagnostic) {
                message.push_str("\nnote: ");
                message.push_str(&escape_controls(note));
            }
            if let Some(help) = &diagnostic.help {
                message.push_str("\nhelp: ");
                message.push_str(&escape_controls(help));
            }
            writeln!(
                out,
                "::{command} {properties},title={title}::{}",
                escape_data(&message)
            )?;
        }
    }
    Ok(())
}

/// The message of a command: `%`, CR and LF are written as `%25`, `%0D` and `%0A`.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value: control characters escaped for the log, then as the message, and `:` and
/// `,` too, since they separate properties.
fn escape_property(text: &str) -> String {
    escape_data(&escape_controls(text))
        .replace(':', "%3A")
        .replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_github_requires() {
        assert_eq!(escape_data("100%\r\nnext: a,b"), "100%25%0D%0Anext: a,b");
        assert_eq!(escape_property("c:/a,b%.yaml"), "c%3A/a%2Cb%25.yaml");
        assert_eq!(escape_property("a\n::x\u{1b}"), "a\\n%3A%3Ax\\u{1b}");
    }
}
