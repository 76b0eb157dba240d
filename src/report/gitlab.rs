//! GitLab Code Quality: a JSON array of issues in the subset of the Code Climate format that
//! GitLab reads (`testdata/gitlab/` has GitLab's schema and the notes on what it requires).

use std::collections::HashMap;
use std::io::{self, Write};

use serde::Serialize;

use super::{FileReport, range};
use crate::diagnostics::Severity;
use crate::fingerprint::{Fnv, Identity};

#[derive(Serialize)]
struct Issue {
    #[serde(rename = "type")]
    kind: &'static str,
    check_name: &'static str,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<Content>,
    categories: [&'static str; 1],
    severity: &'static str,
    /// Unique in the report and stable across edits that do not touch the finding: GitLab
    /// compares a merge request's issues with the target branch's by fingerprint.
    fingerprint: String,
    location: Location,
}

#[derive(Serialize)]
struct Content {
    body: String,
}

#[derive(Serialize)]
struct Location {
    path: String,
    positions: Positions,
}

#[derive(Serialize)]
struct Positions {
    begin: Position,
    end: Position,
}

#[derive(Serialize)]
struct Position {
    line: usize,
    column: usize,
}

pub(crate) fn write(
    out: &mut dyn Write,
    reports: &[FileReport],
    run: &super::RunNotes,
) -> io::Result<()> {
    // A chart or overlay not rendered is an issue on its chart or kustomization file, as in
    // the JSON format, so that the merge request's widget does not show a clean result.
    let mut issues: Vec<Issue> = run.unrendered.iter().map(not_rendered).collect();
    for report in reports {
        let path = report.file.path.replace('\\', "/");
        let mut seen: HashMap<String, usize> = HashMap::new();
        for diagnostic in &report.diagnostics {
            let identity = Identity::of(&path, &report.file, diagnostic).hash();
            let occurrence = seen.entry(identity.clone()).or_default();
            *occurrence += 1;
            let fingerprint = if *occurrence == 1 {
                identity
            } else {
                let mut hash = Fnv::default();
                hash.write(&identity);
                hash.write(&occurrence.to_string());
                format!("{:016x}", hash.finish())
            };
            let (line, column, end_line, end_column) = range(&report.file, diagnostic.span);
            let mut body = diagnostic.notes.join("\n\n");
            if let Some(help) = &diagnostic.help {
                if !body.is_empty() {
                    body.push_str("\n\n");
                }
                body.push_str("help: ");
                body.push_str(help);
            }
            issues.push(Issue {
                kind: "issue",
                check_name: diagnostic.rule,
                description: diagnostic.message.clone(),
                content: (!body.is_empty()).then_some(Content { body }),
                categories: ["Bug Risk"],
                severity: severity(diagnostic.severity),
                fingerprint,
                location: Location {
                    path: path.clone(),
                    positions: Positions {
                        begin: Position { line, column },
                        end: Position {
                            line: end_line,
                            column: end_column,
                        },
                    },
                },
            });
        }
    }
    serde_json::to_writer_pretty(&mut *out, &issues)?;
    writeln!(out)
}

fn not_rendered(unrendered: &super::Unrendered) -> Issue {
    let mut hash = Fnv::default();
    hash.write(super::json::NOT_RENDERED);
    hash.write(&unrendered.input);
    hash.write(&unrendered.reason);
    let start = Position { line: 1, column: 1 };
    Issue {
        kind: "issue",
        check_name: super::json::NOT_RENDERED,
        description: unrendered.sentence(),
        content: Some(Content {
            body: format!(
                "podcycle did not lint what the {} renders: its findings are not known",
                unrendered.noun()
            ),
        }),
        categories: ["Bug Risk"],
        severity: "minor",
        fingerprint: format!("{:016x}", hash.finish()),
        location: Location {
            path: unrendered.file.replace('\\', "/"),
            positions: Positions {
                begin: start,
                end: Position { line: 1, column: 1 },
            },
        },
    }
}

/// GitLab's scale is info, minor, major, critical, blocker; podcycle's three levels take the
/// lower three, as a linter's findings block nothing by themselves.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Info => "info",
        Severity::Warning => "minor",
        Severity::Error => "major",
    }
}
