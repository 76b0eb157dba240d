use std::io::{self, Write};

use annotate_snippets::renderer::{DEFAULT_ERROR_STYLE, DEFAULT_INFO_STYLE, DEFAULT_WARNING_STYLE};
use anstyle::{Effects, Style};

use super::{FileReport, range};
use crate::diagnostics::{Placement, Severity};
use crate::escape::escape_controls;

/// `file:line:col: severity[rule] message`, the format editors' quickfix lists read. One line
/// per finding whatever the manifest holds: file names and messages are escaped. With colour,
/// the place is bold and the severity coloured as in the full format.
pub(crate) fn write(out: &mut dyn Write, reports: &[FileReport], color: bool) -> io::Result<()> {
    let paint = |style: Style| if color { style } else { Style::new() };
    let place = paint(Style::new().effects(Effects::BOLD));
    for report in reports {
        let path = escape_controls(&report.file.path);
        for diagnostic in &report.diagnostics {
            if diagnostic
                .rendered
                .as_ref()
                .is_some_and(|r| r.placement == Placement::File)
            {
                // No line is known: say so rather than point at line 1.
                writeln!(
                    out,
                    "{place}{path}:{place:#} {}[{}] {} (in `{}`; no exact line)",
                    diagnostic.severity,
                    diagnostic.rule,
                    escape_controls(&diagnostic.message),
                    escape_controls(diagnostic.field.as_deref().unwrap_or("the file"))
                )?;
                continue;
            }
            let (line, column, _, _) = range(&report.file, diagnostic.span);
            let level = paint(match diagnostic.severity {
                Severity::Error => DEFAULT_ERROR_STYLE,
                Severity::Warning => DEFAULT_WARNING_STYLE,
                Severity::Info => DEFAULT_INFO_STYLE,
            });
            writeln!(
                out,
                "{place}{path}:{line}:{column}:{place:#} {level}{}[{}]{level:#} {}{}",
                diagnostic.severity,
                diagnostic.rule,
                escape_controls(&diagnostic.message),
                values_set_at(diagnostic)
            )?;
        }
    }
    Ok(())
}

/// ` (value set at values.yaml:12:9)`: where the values a chart's finding comes from were set,
/// which the full format labels. A line such as `{{- toYaml . | nindent 12 }}` says nothing of
/// the value without it.
fn values_set_at(diagnostic: &crate::diagnostics::Diagnostic) -> String {
    let places: Vec<String> = diagnostic
        .labels
        .iter()
        .filter(|label| label.message.starts_with("`.Values."))
        .filter_map(|label| {
            let file = label.file.as_ref()?;
            let (line, column, _, _) = range(file, label.span);
            Some(format!("{}:{line}:{column}", escape_controls(&file.path)))
        })
        .collect();
    match places.len() {
        0 => String::new(),
        1 => format!(" (value set at {})", places[0]),
        _ => format!(" (values set at {})", places.join(", ")),
    }
}
