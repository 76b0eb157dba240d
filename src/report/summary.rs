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
    /// Helm charts and Kustomize overlays that were not rendered, so not linted.
    pub(crate) unrendered_charts: usize,
    pub(crate) unrendered_overlays: usize,
    /// Files, and other paths given or walked, that could not be read (each named on
    /// standard error).
    pub(crate) unread_files: usize,
    pub(crate) unread_paths: usize,
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

    /// What the run should have checked and did not: `1 file not read, 7 Helm charts not
    /// rendered`; `None` when it checked everything it was given.
    pub(crate) fn gaps(&self) -> Option<String> {
        let counted = |items: &[(usize, &str)]| -> Vec<String> {
            items
                .iter()
                .filter(|(count, _)| *count > 0)
                .map(|(count, word)| plural(*count, word))
                .collect()
        };
        let unread = counted(&[(self.unread_files, "file"), (self.unread_paths, "path")]);
        let unrendered = counted(&[
            (self.unrendered_charts, "Helm chart"),
            (self.unrendered_overlays, "Kustomize overlay"),
        ]);
        let gaps: Vec<String> = [(unread, "not read"), (unrendered, "not rendered")]
            .into_iter()
            .filter(|(parts, _)| !parts.is_empty())
            .map(|(parts, what)| format!("{} {what}", parts.join(" and ")))
            .collect();
        (!gaps.is_empty()).then(|| gaps.join(", "))
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
        // The headline is the line people and hooks read: it never reads as clean over what
        // was not checked; the lines under it say what and why.
        let gaps = self.gaps();
        if self.total() == 0 {
            return match gaps {
                None => write!(f, "No problems found in {files}."),
                Some(gaps) if self.files == 0 && rendered.is_empty() => {
                    write!(f, "Nothing checked: {gaps} (see below).")
                }
                Some(gaps) => write!(
                    f,
                    "Not fully checked: {gaps} (see below); nothing found in {files}."
                ),
            };
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
            "Found {} in {} of {files}",
            parts.join(", "),
            self.files_with_findings
        )?;
        match gaps {
            None => write!(f, "."),
            Some(gaps) => write!(f, "; {gaps} (see below)."),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Summary, plural};

    #[test]
    fn the_headline_never_reads_clean_over_what_was_not_checked() {
        let clean = Summary {
            files: 1,
            charts: 1,
            ..Summary::default()
        };
        assert_eq!(
            clean.to_string(),
            "No problems found in 1 file and 1 Helm chart."
        );
        let partial = Summary {
            unrendered_charts: 7,
            ..clean
        };
        assert_eq!(
            partial.to_string(),
            "Not fully checked: 7 Helm charts not rendered (see below); nothing found in 1 file and 1 Helm chart."
        );
        let nothing = Summary {
            unrendered_charts: 1,
            ..Summary::default()
        };
        assert_eq!(
            nothing.to_string(),
            "Nothing checked: 1 Helm chart not rendered (see below)."
        );
        let found = Summary {
            files: 3,
            files_with_findings: 1,
            errors: 2,
            unread_files: 1,
            unrendered_overlays: 2,
            ..Summary::default()
        };
        assert_eq!(
            found.to_string(),
            "Found 2 errors in 1 of 3 files; 1 file not read, 2 Kustomize overlays not rendered (see below)."
        );
    }

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "Kustomize overlay"), "1 Kustomize overlay");
        assert_eq!(plural(2, "Kustomize overlay"), "2 Kustomize overlays");
        assert_eq!(plural(2, "directory"), "2 directories");
        assert_eq!(plural(0, "file"), "0 files");
    }
}
