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
//! of each fixture is pinned by a snapshot in `tests/snapshots/`.

use std::fs;
use std::path::{Path, PathBuf};

use podcycle::cli::render_for_tests;
use podcycle::rules::ALL_RULES;
use podcycle::settings::{Selector, Settings};

mod common;

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
    let shown = path.to_string_lossy().replace('\\', "/");
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
    let name = format!("{rule}__{}", path.file_stem().unwrap().to_string_lossy());
    insta::with_settings!({ snapshot_path => "snapshots/rules", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, rendered);
    });
    Ok(())
}

#[test]
fn fixtures_match_their_markers() {
    let failures: Vec<String> = fixtures()
        .iter()
        .filter_map(|(rule, path)| check_fixture(rule, path).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn every_rule_has_failing_and_passing_fixtures() {
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
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn enable_lines_name_extra_rules() {
    assert_eq!(
        enabled_rules("# expect: no diagnostics\n# enable: [a, b-c]\nx: 1  # enable: [no]\n"),
        ["a", "b-c"]
    );
}

#[test]
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
