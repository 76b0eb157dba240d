//! `check --statistics`: how many findings each rule has at each severity, and how many
//! `--fix` would fix, instead of the findings themselves.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::diagnostics::Severity;
use crate::fix::Applicability;
use crate::report::{FileReport, Format};

#[derive(Serialize)]
struct Row {
    rule: &'static str,
    severity: Severity,
    count: usize,
    fixable: usize,
}

/// Writes the counts, most frequent first: a JSON array with `--format json`, else a table.
pub(crate) fn write(
    out: &mut dyn Write,
    format: Format,
    reports: &[FileReport],
    allowed: Applicability,
    run: &crate::report::RunNotes,
) -> io::Result<()> {
    // One row per rule and severity: a rule whose findings differ in severity (by what
    // enforces each, or by a severity override for some files) has a row for each.
    let mut rows: BTreeMap<(&'static str, Severity), Row> = BTreeMap::new();
    for report in reports {
        let edited = crate::fix::edits_file(&report.file.path);
        for diagnostic in &report.diagnostics {
            let row = rows
                .entry((diagnostic.rule, diagnostic.severity))
                .or_insert(Row {
                    rule: diagnostic.rule,
                    severity: diagnostic.severity,
                    count: 0,
                    fixable: 0,
                });
            row.count += 1;
            if edited && diagnostic.fixes.iter().any(|f| f.applicability <= allowed) {
                row.fixable += 1;
            }
        }
    }
    // Findings that only an unsafe fix resolves, when those are not applied.
    let hidden = reports
        .iter()
        .filter(|report| crate::fix::edits_file(&report.file.path))
        .flat_map(|report| &report.diagnostics)
        .filter(|d| {
            allowed == Applicability::Safe
                && !d.fixes.is_empty()
                && d.fixes.iter().all(|f| f.applicability > allowed)
        })
        .count();
    let mut rows: Vec<Row> = rows.into_values().collect();
    rows.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then(a.rule.cmp(b.rule))
            .then(b.severity.cmp(&a.severity))
    });
    if format == Format::Json {
        serde_json::to_writer_pretty(&mut *out, &rows)?;
        return writeln!(out);
    }
    let count_width = rows
        .iter()
        .map(|r| r.count.to_string().len())
        .max()
        .unwrap_or(1);
    let rule_width = rows.iter().map(|r| r.rule.len()).max().unwrap_or(0);
    for row in &rows {
        let fixable = if row.fixable > 0 {
            format!("  {} fixable", row.fixable)
        } else {
            String::new()
        };
        let line = format!(
            "{:>count_width$}  {:rule_width$}  {:7}{fixable}",
            row.count,
            row.rule,
            row.severity.as_str()
        );
        writeln!(out, "{}", line.trim_end())?;
    }
    let total: usize = rows.iter().map(|r| r.count).sum();
    let fixable: usize = rows.iter().map(|r| r.fixable).sum();
    let findings = if total == 1 { "finding" } else { "findings" };
    // Never a clean line over what was not checked; the lines under it say what and why.
    let gaps = run.gaps();
    if total == 0 {
        return match gaps {
            None => writeln!(out, "No problems found."),
            Some(gaps) => writeln!(out, "Not fully checked: {gaps} (see below); nothing found."),
        };
    }
    let mut line = format!("Found {total} {findings}");
    if fixable > 0 {
        let option = if allowed == Applicability::Unsafe {
            "--fix --unsafe-fixes"
        } else {
            "--fix"
        };
        line.push_str(&format!("; {fixable} fixable with `{option}`"));
    }
    if hidden > 0 {
        let (joint, more) = if fixable > 0 {
            (", and", " more")
        } else {
            (";", " fixable")
        };
        line.push_str(&format!(
            "{joint} {hidden}{more} with `--fix --unsafe-fixes`"
        ));
    }
    if let Some(gaps) = gaps {
        line.push_str(&format!("; {gaps} (see below)"));
    }
    writeln!(out, "{line}.")
}
