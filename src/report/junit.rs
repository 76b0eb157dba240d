//! JUnit XML for CI systems that show test reports (GitLab, Jenkins, Azure Pipelines): one test
//! suite per file, one test case per object, and one for the file as a whole (its syntax and
//! keys). Findings at or above the fail level are failures carrying each finding's rule,
//! location and message; findings below it leave the test passing and are listed in its
//! `system-out`.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{FileReport, range};
use crate::diagnostics::Diagnostic;
use crate::escape::escape_controls;
use crate::model::ObjectRef;

pub(crate) fn write(
    out: &mut dyn Write,
    reports: &[FileReport],
    run: &super::RunNotes,
) -> io::Result<()> {
    let mut junit = Report::new("podcycle");
    // A chart or overlay that was not rendered: a skipped test, with the reason.
    if !run.unrendered.is_empty() {
        let mut suite = TestSuite::new("rendering");
        for unrendered in &run.unrendered {
            let mut status = TestCaseStatus::skipped();
            status.set_message(escape_controls(&unrendered.reason).as_ref());
            let mut case = TestCase::new(
                format!("{} {}", unrendered.noun(), unrendered.input),
                status,
            );
            case.set_classname(escape_controls(&unrendered.file).as_ref());
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    for report in reports {
        let path = escape_controls(&report.file.path);
        let mut suite = TestSuite::new(path.as_ref());
        // One pass over the findings, grouped by object (the file as a whole for those that
        // belong to none); the objects in the order the file declares them.
        let mut by_object: HashMap<Option<&ObjectRef>, Vec<&Diagnostic>> = HashMap::new();
        for diagnostic in &report.diagnostics {
            by_object
                .entry(diagnostic.object.as_ref())
                .or_default()
                .push(diagnostic);
        }
        suite.add_test_case(test_case(
            report,
            &path,
            by_object.remove(&None).unwrap_or_default(),
        ));
        let mut seen: HashSet<&ObjectRef> = HashSet::new();
        let mut objects: Vec<&ObjectRef> = Vec::new();
        for object in &report.objects {
            if seen.insert(object) {
                objects.push(object);
            }
        }
        // Findings of an object the file's list lacks still get their test case.
        let mut unlisted: Vec<&ObjectRef> = by_object
            .keys()
            .flatten()
            .copied()
            .filter(|object| !seen.contains(object))
            .collect();
        unlisted.sort();
        objects.extend(unlisted);
        for object in objects {
            let name = match &object.namespace {
                Some(namespace) => format!("{} in {namespace}", object.display_name()),
                None => object.display_name(),
            };
            let name = escape_controls(&name);
            let diagnostics = by_object.remove(&Some(object)).unwrap_or_default();
            suite.add_test_case(test_case(report, &name, diagnostics));
        }
        junit.add_test_suite(suite);
    }
    junit
        .serialize(&mut *out)
        .map_err(|error| io::Error::other(error.to_string()))
}

fn test_case(report: &FileReport, name: &str, diagnostics: Vec<&Diagnostic>) -> TestCase {
    let (failing, passing): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        diagnostics.into_iter().partition(|d| report.fails(d));
    let status = if failing.is_empty() {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        let message = match failing.as_slice() {
            [one] => format!(
                "{}[{}] {}",
                one.severity,
                one.rule,
                escape_controls(&one.message)
            ),
            many => format!("{} findings", many.len()),
        };
        let mut seen = HashSet::new();
        let rules: Vec<&str> = failing
            .iter()
            .map(|d| d.rule)
            .filter(|rule| seen.insert(*rule))
            .collect();
        status
            .set_message(message)
            .set_type(rules.join(", "))
            .set_description(listing(report, &failing));
        status
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(escape_controls(&report.file.path).as_ref());
    if !passing.is_empty() {
        case.set_system_out(listing(report, &passing));
    }
    case
}

/// Each finding as `file:line:col: severity[rule] message`, with its help.
fn listing(report: &FileReport, diagnostics: &[&Diagnostic]) -> String {
    let mut text = String::new();
    for diagnostic in diagnostics {
        let (line, column, _, _) = range(&report.file, diagnostic.span);
        // A finding in rendered output placed only in its file has no line to name.
        let position = match diagnostic.rendered.as_ref().map(|r| r.placement) {
            Some(crate::diagnostics::Placement::File) => String::new(),
            _ => format!(":{line}:{column}"),
        };
        text.push_str(&format!(
            "{}{position}: {}[{}] {}\n",
            escape_controls(&report.file.path),
            diagnostic.severity,
            diagnostic.rule,
            escape_controls(&diagnostic.message)
        ));
        if let Some(help) = &diagnostic.help {
            text.push_str(&format!("  help: {}\n", escape_controls(help)));
        }
    }
    text
}
