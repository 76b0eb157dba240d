//! Output formats. Each reporter writes the diagnostics of every file, already sorted.

mod concise;
mod full;
mod json;
mod summary;

use std::io::{self, Write};

use crate::diagnostics::Diagnostic;
use crate::source::SourceFile;

pub use json::{JsonDiagnostic, JsonLabel};
pub use summary::Summary;

/// A linted file and its findings.
#[derive(Debug)]
pub struct FileReport {
    pub file: SourceFile,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source snippets with labels and help, like rustc (the default).
    Full,
    /// One line per finding: `file:line:col: severity[rule] message`.
    Concise,
    /// A JSON array of findings (see docs/output.md).
    Json,
}

impl Format {
    /// Human formats end with a summary line; machine formats print nothing else.
    pub fn is_human(self) -> bool {
        matches!(self, Format::Full | Format::Concise)
    }
}

/// Writes the report in `format`. `color` enables ANSI styles in the full format.
pub fn write(
    out: &mut dyn Write,
    format: Format,
    reports: &[FileReport],
    color: bool,
) -> io::Result<()> {
    match format {
        Format::Full => full::write(out, reports, color)?,
        Format::Concise => concise::write(out, reports)?,
        Format::Json => json::write(out, reports)?,
    }
    if format.is_human() {
        let summary = Summary::of(reports);
        if format == Format::Full && summary.total() > 0 {
            writeln!(out)?;
        }
        writeln!(out, "{summary}")?;
    }
    Ok(())
}

/// Line and column (1-based, columns in characters, end exclusive) of a span.
pub(crate) fn range(file: &SourceFile, span: crate::source::Span) -> (usize, usize, usize, usize) {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    (start.line, start.column, end.line, end.column)
}
