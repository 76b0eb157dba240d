//! JUnit XML for CI systems that show test reports (GitLab, Jenkins, Azure Pipelines): one test
//! suite per file, one test case per object, and one for the file as a whole (its syntax and
//! keys). Findings at or above the fail level are failures carrying each finding's rule,
//! location and message; findings below it leave the test passing and are listed in its
//! `system-out`.

use std::io::{self, Write};

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{FileReport, range};
use crate::diagnostics::Diagnostic;
use crate::model::ObjectRef;

pub fn write(out: &mut dyn Write, reports: &[FileReport], run: &super::RunNotes) -> io::Result<()> {
    let mut junit = Report::new("podcycle");
    // A chart or overlay that was not rendered: a skipped test, with the reason.
    if !run.unrendered.is_empty() {
        let mut suite = TestSuite::new("rendering");
        for unrendered in &run.unrendered {
            let mut status = TestCaseStatus::skipped();
            status.set_message(unrendered.reason.clone());
            let mut case = TestCase::new(
                format!("{} {}", unrendered.noun(), unrendered.input),
                status,
            );
            case.set_classname(unrendered.file.as_str());
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    for report in reports {
        let path = report.file.path.as_str();
        let mut suite = TestSuite::new(path);
        // The file as a whole: findings that belong to no object.
        suite.add_test_case(test_case(
            report,
            path,
            report.diagnostics.iter().filter(|d| d.object.is_none()),
        ));
        let mut objects: Vec<&ObjectRef> = Vec::new();
        for object in &report.objects {
            if !objects.contains(&object) {
                objects.push(object);
            }
        }
        for object in objects {
            let name = match &object.namespace {
                Some(namespace) => format!("{} in {namespace}", object.display_name()),
                None => object.display_name(),
            };
            suite.add_test_case(test_case(
                report,
                &name,
                report
                    .diagnostics
                    .iter()
                    .filter(|d| d.object.as_ref() == Some(object)),
            ));
        }
        junit.add_test_suite(suite);
    }
    junit
        .serialize(&mut *out)
        .map_err(|error| io::Error::other(error.to_string()))
}

fn test_case<'d>(
    report: &FileReport,
    name: &str,
    diagnostics: impl Iterator<Item = &'d Diagnostic>,
) -> TestCase {
    let (failing, passing): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        diagnostics.partition(|d| report.fails(d));
    let status = if failing.is_empty() {
        TestCaseStatus::success()
    } else {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        let message = match failing.as_slice() {
            [one] => format!("{}[{}] {}", one.severity, one.rule, one.message),
            many => format!("{} findings", many.len()),
        };
        let mut rules: Vec<&str> = Vec::new();
        for diagnostic in &failing {
            if !rules.contains(&diagnostic.rule) {
                rules.push(diagnostic.rule);
            }
        }
        status
            .set_message(message)
            .set_type(rules.join(", "))
            .set_description(listing(report, &failing));
        status
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(report.file.path.as_str());
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
            report.file.path, diagnostic.severity, diagnostic.rule, diagnostic.message
        ));
        if let Some(help) = &diagnostic.help {
            text.push_str(&format!("  help: {help}\n"));
        }
    }
    text
}
