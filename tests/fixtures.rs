//! Every rule's executable specification: `rules/<rule-name>/*.yaml`.
//!
//! A fixture is linted with only its folder's rule enabled. Markers in YAML comments say what
//! must be reported:
//! - `# error: [rule-name]` (or `warning:` / `info:`) at the end of a line: a diagnostic of
//!   that rule and severity starts on this line;
//! - the same marker alone on a line applies to the next line that is not a marker;
//! - `# expect: no diagnostics` as the first line: the file must stay silent;
//! - `# enable: [rule-a, rule-b]` alone on a line: run these rules too (for fixtures about
//!   suppressions, which need the rules they silence).
//!
//! Markers are comments that start with `error:`, `warning:`, `info:`, `expect:` or `enable:`;
//! a suppression comment (`# podcycle: ignore[…] reason`) is YAML the rules read, never a
//! marker, and a marker may follow it on the same line.
//!
//! Every diagnostic must be claimed by a marker and every marker matched. The full rendering
//! of each fixture that reports something is pinned by a snapshot in `tests/snapshots/rules/`.
//!
//! The `podcycle explain` fixtures in `testdata/explain/` are here too: each is rendered in every
//! format, pinned by snapshots in `tests/snapshots/explain/`.
//!
//! Every fixture is a test of its own (the binary uses libtest-mimic as its harness), so one
//! failure does not hide the others and `cargo test --test fixtures NAME` runs one:
//! `rules::<rule-name>::<file>` and `explain::<file>::<format>`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Failed, Trial};
use podcycle::cli::{explain_for_tests, render_for_tests};
use podcycle::explain::ExplainFormat;
use podcycle::rules::ALL_RULES;
use podcycle::settings::{Selector, Settings};

// The integration tests' helpers; this harness uses a few of them.
#[allow(dead_code)]
#[path = "it/common.rs"]
mod common;

fn main() -> ExitCode {
    let arguments = Arguments::from_args();
    let mut trials = Vec::new();
    for (rule, path) in fixtures() {
        let name = format!("rules::{rule}::{}", file_name(&path));
        trials.push(Trial::test(name, move || {
            check_fixture(&rule, &path).map_err(Failed::from)
        }));
    }
    for path in explain_fixtures() {
        for (format, format_name) in EXPLAIN_FORMATS {
            let name = format!("explain::{}::{format_name}", file_name(&path));
            let path = path.clone();
            trials.push(Trial::test(name, move || {
                check_explain_fixture(&path, format, format_name);
                Ok(())
            }));
        }
    }
    trials.extend([
        Trial::test("meta::every_rule_has_failing_and_passing_fixtures", || {
            every_rule_has_failing_and_passing_fixtures().map_err(Failed::from)
        }),
        Trial::test(
            "meta::rule_files_are_named_for_their_category_and_rule",
            || rule_files_are_named_for_their_category_and_rule().map_err(Failed::from),
        ),
        Trial::test("meta::enable_lines_name_extra_rules", || {
            enable_lines_name_extra_rules();
            Ok(())
        }),
        Trial::test("meta::marker_grammar", || {
            marker_grammar();
            Ok(())
        }),
    ]);
    libtest_mimic::run(&arguments, trials).exit_code()
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone)]
struct Expected {
    line: usize,
    severity: String,
    rule: String,
}

fn markers(text: &str) -> (Vec<Expected>, bool) {
    let mut expected = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let silent = text
        .lines()
        .next()
        .is_some_and(|l| l.trim() == "# expect: no diagnostics");
    for (index, line) in text.lines().enumerate() {
        let Some((code, comment)) = split_marker(line) else {
            if !line.trim().is_empty() {
                for (severity, rule) in pending.drain(..) {
                    expected.push(Expected {
                        line: index + 1,
                        severity,
                        rule,
                    });
                }
            }
            continue;
        };
        let parsed = parse_marker(comment)
            .unwrap_or_else(|| panic!("malformed marker on line {}: {line}", index + 1));
        if code.trim().is_empty() {
            pending.push(parsed);
        } else {
            expected.push(Expected {
                line: index + 1,
                severity: parsed.0,
                rule: parsed.1,
            });
        }
    }
    assert!(
        pending.is_empty(),
        "a marker at the end of the file applies to no line"
    );
    (expected, silent)
}

/// Splits `code  # error: [rule]` into the code and the marker comment.
fn split_marker(line: &str) -> Option<(&str, &str)> {
    ["# error:", "# warning:", "# info:"]
        .iter()
        .filter_map(|m| line.find(m))
        .min()
        .map(|at| (&line[..at], &line[at + 2..]))
}

/// The rules named by `# enable: [...]` lines.
fn enabled_rules(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| line.trim().strip_prefix("# enable:"))
        .flat_map(|list| {
            let list = list.trim();
            let inner = list
                .strip_prefix('[')
                .and_then(|l| l.strip_suffix(']'))
                .unwrap_or_else(|| panic!("malformed `# enable:` line: {list}"));
            inner
                .split(',')
                .map(|r| r.trim().to_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn parse_marker(comment: &str) -> Option<(String, String)> {
    let (severity, rest) = comment.split_once(':')?;
    let rest = rest.trim();
    let rule = rest.strip_prefix('[')?.split_once(']')?.0;
    Some((severity.trim().to_owned(), rule.to_owned()))
}

fn fixtures() -> Vec<(String, PathBuf)> {
    let mut all = Vec::new();
    for entry in fs::read_dir("rules").expect("rules/ exists") {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let rule = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "yaml" || e == "yml" || e == "json")
            })
            .collect();
        files.sort();
        all.extend(files.into_iter().map(|f| (rule.clone(), f)));
    }
    all.sort();
    all
}

fn check_fixture(rule: &str, path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).unwrap();
    let (mut expected, silent) = markers(&text);
    let mut names = vec![rule.to_owned()];
    names.extend(enabled_rules(&text));
    let selectors = names
        .iter()
        .map(|name| Selector::parse(name))
        .collect::<Result<Vec<_>, _>>()?;
    if !matches!(selectors[0], Selector::Rule(_)) {
        return Err(format!("no rule named `{rule}`"));
    }
    let settings = Settings::from_selectors(&selectors, &[], &[]);
    let settings = common::with_header_options(&text, settings);
    let shown = shown(path);
    let (diagnostics, rendered) = render_for_tests(&shown, &text, &settings);
    let mut actual: Vec<Expected> = diagnostics
        .iter()
        .map(|(line, severity, rule)| Expected {
            line: *line,
            severity: severity.clone(),
            rule: rule.clone(),
        })
        .collect();
    expected.sort();
    actual.sort();
    if silent && !actual.is_empty() {
        return Err(format!(
            "{shown}: expected no diagnostics, got:\n{rendered}"
        ));
    }
    if !silent && expected.is_empty() {
        return Err(format!(
            "{shown}: has no markers; start it with `# expect: no diagnostics` if it must stay silent"
        ));
    }
    if expected != actual {
        return Err(format!(
            "{shown}: markers and diagnostics differ\n  expected: {expected:?}\n  actual:   {actual:?}\n{rendered}"
        ));
    }
    if silent {
        // Nothing to pin: the markers already say the output is empty.
        return Ok(());
    }
    let name = format!("{rule}__{}", path.file_stem().unwrap().to_string_lossy());
    insta::with_settings!({ snapshot_path => "snapshots/rules", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, rendered);
    });
    Ok(())
}

fn every_rule_has_failing_and_passing_fixtures() -> Result<(), String> {
    let fixtures = fixtures();
    let mut problems = Vec::new();
    for rule in ALL_RULES {
        let files: Vec<&PathBuf> = fixtures
            .iter()
            .filter(|(r, _)| r == rule.name)
            .map(|(_, p)| p)
            .collect();
        let silent = files
            .iter()
            .filter(|p| {
                fs::read_to_string(p)
                    .unwrap()
                    .starts_with("# expect: no diagnostics")
            })
            .count();
        if silent == 0 {
            problems.push(format!(
                "{}: no passing fixture (`# expect: no diagnostics`)",
                rule.name
            ));
        }
        if silent == files.len() {
            problems.push(format!("{}: no failing fixture", rule.name));
        }
    }
    for (rule, _) in &fixtures {
        if !ALL_RULES.iter().any(|r| r.name == rule) {
            problems.push(format!("rules/{rule}/ belongs to no registered rule"));
        }
    }
    problems.dedup();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

fn enable_lines_name_extra_rules() {
    assert_eq!(
        enabled_rules("# expect: no diagnostics\n# enable: [a, b-c]\nx: 1  # enable: [no]\n"),
        ["a", "b-c"]
    );
}

fn marker_grammar() {
    let (expected, silent) = markers("a: 1  # error: [x]\n# warning: [y]\n\nb: 2\n");
    assert!(!silent);
    assert_eq!(
        expected,
        [
            Expected {
                line: 1,
                severity: "error".into(),
                rule: "x".into()
            },
            Expected {
                line: 4,
                severity: "warning".into(),
                rule: "y".into()
            },
        ]
    );
}

/// A rule's file is `src/rules/<category>/<rule_name>.rs`: the folder names its category and
/// the file its name, so both can be found from either.
fn rule_files_are_named_for_their_category_and_rule() -> Result<(), String> {
    let problems: Vec<String> = ALL_RULES
        .iter()
        .filter_map(|rule| {
            let expected = format!(
                "src/rules/{}/{}.rs",
                rule.category,
                rule.name.replace('-', "_")
            );
            let actual = rule.source.replace('\\', "/");
            (actual != expected)
                .then(|| format!("{}: declared in {actual}, expected {expected}", rule.name))
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

const EXPLAIN_FORMATS: [(ExplainFormat, &str); 3] = [
    (ExplainFormat::Text, "text"),
    (ExplainFormat::Json, "json"),
    (ExplainFormat::Mermaid, "mermaid"),
];

fn explain_fixtures() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir("testdata/explain")
        .expect("testdata/explain/ exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    assert!(!files.is_empty(), "testdata/explain/ has no fixtures");
    files.sort();
    files
}

/// One explain fixture in one format: valid JSON, charts that follow the Gantt grammar, and
/// the output pinned by a snapshot.
fn check_explain_fixture(path: &Path, format: ExplainFormat, format_name: &str) {
    let text = fs::read_to_string(path).unwrap();
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let output = explain_for_tests(&shown(path), &text, format);
    match format {
        ExplainFormat::Mermaid => common::check_mermaid(&stem, &output),
        ExplainFormat::Json => {
            serde_json::from_str::<serde_json::Value>(&output)
                .unwrap_or_else(|e| panic!("{stem}: invalid JSON: {e}"));
        }
        ExplainFormat::Text => {}
    }
    insta::with_settings!({ snapshot_path => "snapshots/explain", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(format!("{stem}__{format_name}"), output);
    });
}
