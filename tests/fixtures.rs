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
//! Every fixture whose findings come with fixes is also fixed end to end with `podcycle check
//! --fix` (`fix::<rule-name>::<file>`): the fixed findings are gone, every comment is kept,
//! lines outside the edits are untouched, and a second run changes nothing.
//!
//! A rule of the render layer (`Check::Render`: `render-error`) looks at no manifest: its
//! fixtures are folders, `rules/<rule-name>/<fixture>/`, each a Helm chart or a Kustomize
//! overlay that `podcycle check` renders with the real tools (they must be on `PATH`; without
//! them the fixture is reported as ignored, with the reason, unless
//! `PODCYCLE_REQUIRE_RENDERERS=1` makes that a failure). Markers go in
//! any of its files; a silent fixture starts its `Chart.yaml` or kustomization with
//! `# expect: no diagnostics`.
//!
//! Every fixture is a test of its own (the binary uses libtest-mimic as its harness), so one
//! failure does not hide the others and `cargo test --test fixtures NAME` runs one:
//! `rules::<rule-name>::<file>` and `explain::<file>::<format>`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Completion, Failed, Trial};
use podcycle::cli::{explain_for_tests_with, explain_rollout_for_tests, render_for_tests};
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
    for (rule, dir) in render_fixtures() {
        let name = format!("rules::{rule}::{}", file_name(&dir));
        trials.push(Trial::ignorable_test(name, move || {
            if let Some(reason) = renderers_missing() {
                let required = std::env::var_os("PODCYCLE_REQUIRE_RENDERERS")
                    .is_some_and(|v| !v.is_empty() && v != "0");
                if required {
                    return Err(Failed::from(format!(
                        "{reason}, and PODCYCLE_REQUIRE_RENDERERS is set"
                    )));
                }
                return Ok(Completion::ignored_with(format!(
                    "{reason}; PODCYCLE_REQUIRE_RENDERERS=1 makes this a failure"
                )));
            }
            check_render_fixture(&rule, &dir).map_err(Failed::from)?;
            Ok(Completion::Completed)
        }));
    }
    for path in explain_fixtures("testdata/explain") {
        for (format, format_name) in EXPLAIN_FORMATS {
            let name = format!("explain::{}::{format_name}", file_name(&path));
            let path = path.clone();
            trials.push(Trial::test(name, move || {
                check_explain_fixture(&path, format, format_name, false);
                Ok(())
            }));
        }
    }
    for path in explain_fixtures("testdata/explain-rollout") {
        for (format, format_name) in EXPLAIN_FORMATS {
            let name = format!("explain-rollout::{}::{format_name}", file_name(&path));
            let path = path.clone();
            trials.push(Trial::test(name, move || {
                check_explain_fixture(&path, format, format_name, true);
                Ok(())
            }));
        }
    }
    for (rule, path) in fixtures() {
        if fixture_has_fixes(&rule, &path) {
            let name = format!("fix::{rule}::{}", file_name(&path));
            trials.push(Trial::test(name, move || {
                fix_fixture(&rule, &path).map_err(Failed::from)
            }));
        }
    }
    trials.extend([
        Trial::test("meta::rules_with_fixes_have_fixtures_they_fix", || {
            rules_with_fixes_have_fixtures_they_fix().map_err(Failed::from)
        }),
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

/// The settings a fixture is linted with: its folder's rule, the rules its `# enable:` lines
/// name, and the `--kube-version` of its header.
fn fixture_settings(rule: &str, text: &str) -> Result<Settings, String> {
    let selectors = fixture_rules(rule, text)
        .iter()
        .map(|name| Selector::parse(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|unknown| unknown.to_string())?;
    if !matches!(selectors[0], Selector::Rule(_)) {
        return Err(format!("no rule named `{rule}`"));
    }
    let settings = Settings::from_selectors(&selectors, &[], &[]);
    Ok(common::with_header_options(text, settings))
}

fn fixture_rules(rule: &str, text: &str) -> Vec<String> {
    let mut names = vec![rule.to_owned()];
    names.extend(enabled_rules(text));
    names
}

fn check_fixture(rule: &str, path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).unwrap();
    let (mut expected, silent) = markers(&text);
    let settings = fixture_settings(rule, &text)?;
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
    let render_fixtures = render_fixtures();
    for rule in ALL_RULES {
        let files: Vec<PathBuf> = fixtures
            .iter()
            .chain(&render_fixtures)
            .filter(|(r, _)| r == rule.name)
            .map(|(_, p)| render_marker_file(p).unwrap_or_else(|| p.clone()))
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
    for (rule, _) in fixtures.iter().chain(&render_fixtures) {
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

/// Whether a rule is reported by the render layer, with charts and overlays as fixtures.
fn renders(rule: &str) -> bool {
    ALL_RULES
        .iter()
        .any(|r| r.name == rule && matches!(r.check, podcycle::rules::Check::Render))
}

/// The fixtures of the render layer's rules: the folders in their `rules/<rule-name>/`.
fn render_fixtures() -> Vec<(String, PathBuf)> {
    let mut all = Vec::new();
    for entry in fs::read_dir("rules").expect("rules/ exists") {
        let dir = entry.unwrap().path();
        let rule = file_name(&dir);
        if !dir.is_dir() || !renders(&rule) {
            continue;
        }
        for fixture in fs::read_dir(&dir).unwrap() {
            let fixture = fixture.unwrap().path();
            if fixture.is_dir() {
                all.push((rule.clone(), fixture));
            }
        }
    }
    all.sort();
    all
}

/// The file of a chart or overlay fixture that says whether it is silent.
fn render_marker_file(dir: &Path) -> Option<PathBuf> {
    ["Chart.yaml", "kustomization.yaml"]
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
}

/// Every file of a fixture folder, sorted.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut pending = vec![dir.to_owned()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Why a chart or overlay fixture cannot run here: the renderers are missing.
fn renderers_missing() -> Option<&'static str> {
    let on_path = |name: &str| {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(name).is_file()))
    };
    let found = on_path("helm") && (on_path("kustomize") || on_path("kubectl"));
    (!found).then_some("`helm` and `kustomize` (or `kubectl`) are not both on PATH")
}

/// One chart or overlay fixture: rendered by `podcycle check` with only its rule, every
/// finding claimed by a marker in the file it is in, and the output pinned by a snapshot.
fn check_render_fixture(rule: &str, dir: &Path) -> Result<(), String> {
    let marker_file = render_marker_file(dir)
        .ok_or_else(|| format!("{}: neither a chart nor an overlay", shown(dir)))?;
    let silent = fs::read_to_string(&marker_file)
        .unwrap()
        .starts_with("# expect: no diagnostics");
    let mut expected: Vec<(String, Expected)> = Vec::new();
    for file in files_under(dir) {
        let Ok(text) = fs::read_to_string(&file) else {
            continue;
        };
        for marker in markers(&text).0 {
            expected.push((shown(&file), marker));
        }
    }
    let run = |format: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_podcycle"))
            .args([
                "check",
                "--no-config",
                "--fail-on",
                "never",
                "--color",
                "never",
            ])
            .args(["--select", rule, "--format", format])
            .arg(dir)
            .output()
            .expect("podcycle runs")
    };
    let json = run("json");
    let found: Vec<serde_json::Value> = serde_json::from_slice(&json.stdout)
        .map_err(|e| format!("{e}: {}", String::from_utf8_lossy(&json.stderr)))?;
    let mut actual: Vec<(String, Expected)> = found
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap_or_default().to_owned(),
                Expected {
                    line: usize::try_from(d["line"].as_u64().unwrap_or(0)).unwrap_or(0),
                    severity: d["severity"].as_str().unwrap_or_default().to_owned(),
                    rule: d["rule"].as_str().unwrap_or_default().to_owned(),
                },
            )
        })
        .collect();
    expected.sort();
    actual.sort();
    let full = String::from_utf8_lossy(&run("full").stdout).into_owned();
    if silent {
        let stderr = String::from_utf8_lossy(&json.stderr);
        if !actual.is_empty() || stderr.contains("not rendered") {
            return Err(format!(
                "{}: expected no diagnostics, got:\n{full}{stderr}",
                shown(dir)
            ));
        }
        return Ok(());
    }
    if expected.is_empty() {
        return Err(format!("{}: has no markers", shown(dir)));
    }
    if expected != actual {
        return Err(format!(
            "{}: markers and diagnostics differ\n  expected: {expected:?}\n  actual:   {actual:?}\n{full}",
            shown(dir)
        ));
    }
    let name = format!("{rule}__{}", file_name(dir));
    insta::with_settings!({ snapshot_path => "snapshots/rules", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, full);
    });
    Ok(())
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

fn explain_fixtures(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|_| panic!("{dir}/ exists"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    assert!(!files.is_empty(), "{dir}/ has no fixtures");
    files.sort();
    files
}

/// One explain fixture in one format (`--rollout` when `rollouts`): valid JSON, charts that
/// follow the Gantt grammar, and the output pinned by a snapshot.
fn check_explain_fixture(path: &Path, format: ExplainFormat, format_name: &str, rollouts: bool) {
    let text = fs::read_to_string(path).unwrap();
    let file_stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    let stem = if rollouts {
        format!("rollout-{file_stem}")
    } else {
        file_stem
    };
    // A `--kube-version` at the top of the fixture judges it for that version.
    let settings = common::with_header_options(&text, Settings::default());
    let output = if rollouts {
        explain_rollout_for_tests(&shown(path), &text, format, &settings)
    } else {
        explain_for_tests_with(&shown(path), &text, format, &settings)
    };
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

/// Whether linting the fixture gives a finding with a fix.
fn fixture_has_fixes(rule: &str, path: &Path) -> bool {
    let text = fs::read_to_string(path).unwrap();
    let Ok(settings) = fixture_settings(rule, &text) else {
        return false;
    };
    common::lint_text(&shown(path), &text, &settings)
        .diagnostics
        .iter()
        .any(|d| !d.fixes.is_empty())
}

/// The options `podcycle check` needs to lint the fixture as this harness does.
fn fixture_args(rule: &str, text: &str) -> Vec<String> {
    let mut args = vec![
        "check".to_owned(),
        "--no-config".to_owned(),
        "--fail-on".to_owned(),
        "never".to_owned(),
        "--select".to_owned(),
        fixture_rules(rule, text).join(","),
    ];
    let header = text.lines().take_while(|l| l.trim_start().starts_with('#'));
    for line in header {
        let mut words = line.split_whitespace();
        while let Some(word) = words.next() {
            if (word == "--kube-version" || word == "--platform")
                && let Some(value) = words.next()
            {
                args.extend([word.to_owned(), value.to_owned()]);
            }
        }
    }
    args
}

fn podcycle_json(
    args: &[String],
    extra: &[&str],
    file: &Path,
) -> Result<serde_json::Value, String> {
    let output = common::podcycle()
        .args(args)
        .args(extra)
        .args(["--format", "json"])
        .arg(file)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if output.status.code() != Some(0) {
        return Err(format!(
            "podcycle {args:?} {extra:?} exited with {:?}: {}",
            output.status.code(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| e.to_string())
}

/// The comments of a YAML text, in order.
fn comments(text: &str) -> Vec<String> {
    podcycle::yaml::parse_stream(text)
        .iter()
        .flat_map(|document| document.comments.iter().map(|c| c.text.to_string()))
        .collect()
}

/// `podcycle check --fix --unsafe-fixes` on a copy of the fixture.
fn fix_fixture(rule: &str, path: &Path) -> Result<(), String> {
    let text = fs::read_to_string(path).unwrap();
    let args = fixture_args(rule, &text);
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let copy = dir.path().join(file_name(path));
    fs::write(&copy, &text).unwrap();
    let shown = shown(path);

    let before = podcycle_json(&args, &[], &copy)?;
    let key = |d: &serde_json::Value| {
        (
            d["rule"].clone(),
            d["object"].clone(),
            d["field"].clone(),
            d["container"].clone(),
        )
    };
    let fixable: Vec<_> = before
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["fixes"].as_array().unwrap().is_empty())
        .collect();
    if fixable.is_empty() {
        return Err(format!("{shown}: the JSON report has no fixes"));
    }
    // Every line an edit of any fix may replace (1-based, inclusive).
    let editable: Vec<(u64, u64)> = fixable
        .iter()
        .flat_map(|d| d["fixes"].as_array().unwrap().iter())
        .flat_map(|f| f["edits"].as_array().unwrap().iter())
        .map(|e| (e["line"].as_u64().unwrap(), e["end_line"].as_u64().unwrap()))
        .collect();

    let fixed_run = podcycle_json(&args, &["--fix", "--unsafe-fixes"], &copy)?;
    let fixed = fs::read_to_string(&copy).unwrap();
    if fixed == text {
        return Err(format!("{shown}: --fix changed nothing"));
    }
    for finding in &fixable {
        if fixed_run
            .as_array()
            .unwrap()
            .iter()
            .any(|d| key(d) == key(finding))
        {
            return Err(format!(
                "{shown}: --fix left {} at line {}:\n{fixed}",
                finding["rule"], finding["line"]
            ));
        }
    }
    let (old_comments, new_comments) = (comments(&text), comments(&fixed));
    let mut remaining = new_comments.iter();
    for comment in &old_comments {
        if !remaining.any(|c| c == comment) {
            return Err(format!(
                "{shown}: --fix lost the comment `#{comment}`:\n{fixed}"
            ));
        }
    }
    let diff = similar::TextDiff::from_lines(&text, &fixed);
    for change in diff.iter_all_changes() {
        if change.tag() == similar::ChangeTag::Delete {
            let line = change.old_index().unwrap() as u64 + 1;
            if !editable
                .iter()
                .any(|&(start, end)| start <= line && line <= end)
            {
                return Err(format!(
                    "{shown}: --fix changed line {line}, which no fix edits: {}",
                    change.value()
                ));
            }
        }
    }
    // A second run finds nothing left to fix.
    podcycle_json(&args, &["--fix", "--unsafe-fixes"], &copy)?;
    if fs::read_to_string(&copy).unwrap() != fixed {
        return Err(format!("{shown}: a second --fix changed the file again"));
    }
    let output = common::podcycle()
        .args(&args)
        .args(["--diff", "--unsafe-fixes"])
        .arg(&copy)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    if output.status.code() != Some(0) || !output.stdout.is_empty() {
        return Err(format!(
            "{shown}: --diff after --fix shows changes:\n{}",
            String::from_utf8_lossy(&output.stdout)
        ));
    }
    Ok(())
}

/// A rule that declares fixes has a fixture that shows one; a rule that declares none never
/// offers one.
fn rules_with_fixes_have_fixtures_they_fix() -> Result<(), String> {
    use podcycle::fix::FixAvailability;
    let mut problems = Vec::new();
    for rule in ALL_RULES {
        let mut fixed = false;
        for (folder, path) in fixtures() {
            let text = fs::read_to_string(&path).unwrap();
            let Ok(settings) = fixture_settings(&folder, &text) else {
                continue;
            };
            let report = common::lint_text(&shown(&path), &text, &settings);
            fixed |= report
                .diagnostics
                .iter()
                .any(|d| d.rule == rule.name && !d.fixes.is_empty());
        }
        match (rule.fix, fixed) {
            (FixAvailability::None, true) => problems.push(format!(
                "{}: offers fixes, but declares none (`fix: Sometimes` in declare_rule!)",
                rule.name
            )),
            (FixAvailability::Sometimes | FixAvailability::Always, false) => problems.push(
                format!("{}: declares fixes, but no fixture shows one", rule.name),
            ),
            _ => {}
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
