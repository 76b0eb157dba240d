//! Output formats. Each reporter writes the diagnostics of every file, already sorted.

mod concise;
mod full;
mod github;
mod json;
mod junit;
mod sarif;
mod summary;

use std::io::{self, Write};

use crate::diagnostics::{Diagnostic, Severity};
use crate::model::ObjectRef;
use crate::source::SourceFile;

pub use full::{placement_note, render_problem};
pub use json::{JsonDiagnostic, JsonLabel};
pub use sarif::percent_encode;
pub use summary::Summary;

/// A linted file and its findings.
#[derive(Debug)]
pub struct FileReport {
    pub file: SourceFile,
    pub diagnostics: Vec<Diagnostic>,
    /// The workload objects in the file (JUnit reports one test case per object).
    pub objects: Vec<ObjectRef>,
    /// The least severity that fails the run for this file (`fail-on`); `None` for never.
    pub fail_at: Option<Severity>,
}

impl FileReport {
    /// Whether a finding fails the run.
    pub fn fails(&self, diagnostic: &Diagnostic) -> bool {
        self.fail_at.is_some_and(|at| diagnostic.severity >= at)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Source snippets with labels and help, like rustc (the default).
    Full,
    /// One line per finding: `file:line:col: severity[rule] message`.
    Concise,
    /// A JSON array of findings (see docs/output.md).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands, shown as annotations on pull requests.
    Github,
    /// JUnit XML: a test suite per file, a test case per object.
    Junit,
}

/// What some formats need besides the findings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// ANSI colours in the full format.
    pub color: bool,
    /// The directory relative paths are relative to, as a `file://` URI ending with `/`;
    /// SARIF names it as the base of its artifact URIs.
    pub source_root: Option<String>,
}

impl Format {
    pub const ALL: [Format; 6] = [
        Format::Full,
        Format::Concise,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Junit,
    ];

    /// Human formats end with a summary line; machine formats print nothing else.
    pub fn is_human(self) -> bool {
        matches!(self, Format::Full | Format::Concise)
    }
}

/// Writes the report in `format`.
pub fn write(
    out: &mut dyn Write,
    format: Format,
    reports: &[FileReport],
    options: &Options,
) -> io::Result<()> {
    match format {
        Format::Full => full::write(out, reports, options.color)?,
        Format::Concise => concise::write(out, reports)?,
        Format::Json => json::write(out, reports)?,
        Format::Sarif => sarif::write(out, reports, options)?,
        Format::Github => github::write(out, reports)?,
        Format::Junit => junit::write(out, reports)?,
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

/// The `file://` URI of a directory, ending with `/`, for [`Options::source_root`].
pub fn directory_uri(directory: &std::path::Path) -> String {
    let mut path = directory.to_string_lossy().replace('\\', "/");
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    if !path.ends_with('/') {
        path.push('/');
    }
    format!("file://{}", sarif::percent_encode(&path))
}

/// Line and column (1-based, columns in characters, end exclusive) of a span.
pub(crate) fn range(file: &SourceFile, span: crate::source::Span) -> (usize, usize, usize, usize) {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    (start.line, start.column, end.line, end.column)
}
