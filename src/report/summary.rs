use std::fmt;

use super::FileReport;
use crate::diagnostics::Severity;

/// Counts for the closing line of the human formats.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Summary {
    pub(crate) files: usize,
    pub(crate) files_with_findings: usize,
    pub(crate) errors: usize,
    pub(crate) warnings: usize,
    pub(crate) infos: usize,
    /// Helm charts and Kustomize overlays rendered and linted.
    pub(crate) charts: usize,
    pub(crate) overlays: usize,
}

impl Summary {
    pub(crate) fn of(reports: &[FileReport]) -> Summary {
        let mut summary = Summary {
            files: reports.len(),
            ..Summary::default()
        };
        for report in reports {
            if !report.diagnostics.is_empty() {
                summary.files_with_findings += 1;
            }
            for diagnostic in &report.diagnostics {
                match diagnostic.severity {
                    Severity::Error => summary.errors += 1,
                    Severity::Warning => summary.warnings += 1,
                    Severity::Info => summary.infos += 1,
                }
            }
        }
        summary
    }

    pub(crate) fn total(&self) -> usize {
        self.errors + self.warnings + self.infos
    }
}

pub(crate) use crate::text::plural;

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut files = plural(self.files, "file");
        let rendered: Vec<String> = [
            (self.charts, "Helm chart"),
            (self.overlays, "Kustomize overlay"),
        ]
        .into_iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, word)| plural(count, word))
        .collect();
        if self.files == 0 && !rendered.is_empty() {
            // Only charts and overlays were read (their values or patches named): no file
            // count that reads as if nothing was.
            files = rendered.join(" and ");
        } else if !rendered.is_empty() {
            let separator = if rendered.len() > 1 { ", " } else { " and " };
            files = format!("{files}{separator}{}", rendered.join(" and "));
        }
        if self.total() == 0 {
            return write!(f, "No problems found in {files}.");
        }
        let parts: Vec<String> = [
            (self.errors, "error"),
            (self.warnings, "warning"),
            (self.infos, "info"),
        ]
        .into_iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, word)| plural(count, word))
        .collect();
        write!(
            f,
            "Found {} in {} of {files}.",
            parts.join(", "),
            self.files_with_findings
        )
    }
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "Kustomize overlay"), "1 Kustomize overlay");
        assert_eq!(plural(2, "Kustomize overlay"), "2 Kustomize overlays");
        assert_eq!(plural(2, "directory"), "2 directories");
        assert_eq!(plural(0, "file"), "0 files");
    }
}
