//! What runs once the files of a run are linted and its charts and overlays rendered: the
//! findings rendering placed in a file join the file's own, each once, and the reports are
//! put in their order.
//!
//! Passes that read several files at once belong here too: they run on the merged reports,
//! before they are ordered. Matching a PodDisruptionBudget or a HorizontalPodAutoscaler with
//! the workloads of the other files of its directory is not one of them: it must be known
//! while each file is linted, so that `explain` (which writes as it lints) and `--fix` see the
//! same matches as `check` ([`super::scopes`]).

use crate::diagnostics::Diagnostic;
use crate::report::FileReport;
use crate::source::SourceFile;

/// Adds findings to the report of their file, or a new one. A finding already there (a base
/// linted as it is, an overlay built twice) is kept once: the copy with the most labels.
/// With `compact`, the reports keep only the lines they show.
pub(crate) fn merge(reports: &mut Vec<FileReport>, incoming: Vec<FileReport>, compact: bool) {
    for mut report in incoming {
        match reports.iter_mut().find(|r| r.file.path == report.file.path) {
            Some(existing) => {
                // The file as read for the rendered findings holds the lines they show, which
                // the compacted report of the file may not.
                if existing.file.is_excerpt() && !report.file.is_excerpt() {
                    let os_path = existing.file.os_path.take();
                    existing.file = std::mem::replace(&mut report.file, SourceFile::new("", ""));
                    existing.file.os_path = os_path;
                }
                for diagnostic in report.diagnostics {
                    let same = existing
                        .diagnostics
                        .iter_mut()
                        .find(|d| d.same_finding(&diagnostic));
                    match same {
                        Some(kept) => {
                            // Found by two renderings (two releases of a chart): each says so.
                            let mut notes = std::mem::take(&mut kept.notes);
                            for note in &diagnostic.notes {
                                if !notes.contains(note) {
                                    notes.push(note.clone());
                                }
                            }
                            if kept.labels.len() < diagnostic.labels.len() {
                                *kept = diagnostic;
                            }
                            kept.notes = notes;
                        }
                        None => existing.diagnostics.push(diagnostic),
                    }
                }
                for object in report.objects {
                    if !existing.objects.contains(&object) {
                        existing.objects.push(object);
                    }
                }
                crate::diagnostics::sort(&mut existing.diagnostics);
                if compact {
                    existing.compact();
                }
            }
            None => {
                let mut unique: Vec<Diagnostic> = Vec::new();
                for diagnostic in std::mem::take(&mut report.diagnostics) {
                    if !unique.iter().any(|d| d.same_finding(&diagnostic)) {
                        unique.push(diagnostic);
                    }
                }
                crate::diagnostics::sort(&mut unique);
                report.diagnostics = unique;
                if compact {
                    report.compact();
                }
                reports.push(report);
            }
        }
    }
}

/// Puts the reports in the order every format writes them: standard input first, when it was
/// read (it is the first report), then the files by name.
pub(crate) fn order(reports: &mut Vec<FileReport>, stdin_first: bool) {
    let stdin = (stdin_first && !reports.is_empty()).then(|| reports.remove(0));
    reports.sort_by(|a, b| a.file.path.cmp(&b.file.path));
    if let Some(report) = stdin {
        reports.insert(0, report);
    }
}
