//! Every output format over one shared set of findings: two files with a syntax error, a
//! duplicate key with a secondary label, findings of each severity, a span over several lines,
//! a suppression that silences nothing, and non-ASCII text. SARIF is also checked against the
//! SARIF 2.1.0 schema.

use std::fs;

use podcycle::fix::Placement;
use podcycle::report::{self, FileReport, Format, Options};
use podcycle::settings::{Selector, Settings};

use crate::common::lint_text;

const FILES: [&str; 2] = [
    "testdata/report/broken.yaml",
    "testdata/report/workloads.yaml",
];

/// Every rule but the opinionated ones, which would flag nearly every container here.
fn settings() -> Settings {
    Settings::from_selectors(
        &[Selector::parse("all").unwrap()],
        &[],
        &[Selector::parse("pedantic").unwrap()],
    )
}

fn reports() -> Vec<FileReport> {
    FILES
        .iter()
        .map(|path| lint_text(path, &fs::read_to_string(path).unwrap(), &settings()))
        .collect()
}

fn render(format: Format, reports: &[FileReport]) -> String {
    let options = Options {
        color: false,
        source_root: Some("file:///project/".to_owned()),
        ..Options::default()
    };
    let mut out = Vec::new();
    report::write(&mut out, format, reports, &options).unwrap();
    String::from_utf8(out).unwrap()
}

fn snapshot(name: &str, text: &str) {
    let text = text.replace(env!("CARGO_PKG_VERSION"), "[version]");
    insta::with_settings!({ snapshot_path => "snapshots/report", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn the_shared_findings_cover_what_the_formats_must_handle() {
    let reports = reports();
    let all: Vec<_> = reports.iter().flat_map(|r| &r.diagnostics).collect();
    assert!(all.iter().any(|d| d.rule == "yaml-syntax"));
    assert!(all.iter().any(|d| !d.labels.is_empty()));
    let multi_line = reports.iter().any(|r| {
        r.diagnostics
            .iter()
            .any(|d| r.file.line_col(d.span.start).line != r.file.line_col(d.span.end).line)
    });
    assert!(multi_line);
    for severity in ["error", "warning", "info"] {
        assert!(
            all.iter().any(|d| d.severity.as_str() == severity),
            "{severity}"
        );
    }
}

#[test]
fn full() {
    snapshot("full", &render(Format::Full, &reports()));
}

#[test]
fn concise() {
    snapshot("concise", &render(Format::Concise, &reports()));
}

#[test]
fn json() {
    snapshot("json", &render(Format::Json, &reports()));
}

#[test]
fn github() {
    snapshot("github", &render(Format::Github, &reports()));
}

#[test]
fn junit() {
    snapshot("junit", &render(Format::Junit, &reports()));
}

/// The rules' documentation is pinned by `tests/it/docs.rs`; here it is shortened to its page.
#[test]
fn sarif() {
    let mut log: serde_json::Value =
        serde_json::from_str(&render(Format::Sarif, &reports())).unwrap();
    for rule in log["runs"][0]["tool"]["driver"]["rules"]
        .as_array_mut()
        .unwrap()
    {
        let page = format!("[docs/rules/{}.md]", rule["id"].as_str().unwrap());
        rule["help"]["markdown"] = page.into();
    }
    snapshot("sarif", &serde_json::to_string_pretty(&log).unwrap());
}

fn sarif_schema() -> jsonschema::Validator {
    let schema: serde_json::Value = serde_json::from_str(
        &fs::read_to_string("testdata/sarif/sarif-schema-2.1.0.json").unwrap(),
    )
    .unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

fn assert_valid_sarif(text: &str) {
    let log: serde_json::Value = serde_json::from_str(text).unwrap();
    let validator = sarif_schema();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn sarif_follows_the_schema() {
    assert_valid_sarif(&render(Format::Sarif, &reports()));
    assert_valid_sarif(&render(Format::Sarif, &[]));
    // Without a source root, and with every rule's fixtures.
    let mut reports = Vec::new();
    for entry in fs::read_dir("rules").unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        // Folders are the render layer's fixtures, charts and overlays.
        for file in fs::read_dir(&dir)
            .unwrap()
            .filter(|f| f.as_ref().is_ok_and(|f| f.path().is_file()))
        {
            let path = file.unwrap().path().to_string_lossy().into_owned();
            reports.push(lint_text(
                &path,
                &fs::read_to_string(&path).unwrap(),
                &settings(),
            ));
        }
    }
    reports.sort_by(|a, b| a.file.path.cmp(&b.file.path));
    let mut out = Vec::new();
    report::write(&mut out, Format::Sarif, &reports, &Options::default()).unwrap();
    assert_valid_sarif(&String::from_utf8(out).unwrap());
}

#[test]
fn the_schema_check_catches_a_broken_log() {
    let broken = serde_json::json!({"version": "2.1.0", "runs": [{"results": []}]});
    assert!(!sarif_schema().is_valid(&broken));
}

fn fingerprints(text: &str) -> Vec<String> {
    let report = lint_text("app.yaml", text, &settings());
    let log: serde_json::Value = serde_json::from_str(&render(Format::Sarif, &[report])).unwrap();
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["partialFingerprints"]["podcycleFinding/v1"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn fingerprints_survive_lines_added_above() {
    let text = fs::read_to_string(FILES[1]).unwrap();
    let before = fingerprints(&text);
    let after = fingerprints(&format!("# a comment\n# another one\n{text}"));
    assert!(!before.is_empty());
    assert_eq!(before, after);
    let syntax = "a: [\n";
    assert_eq!(fingerprints(syntax), fingerprints(&format!("\n\n{syntax}")));
    // Two identical findings are told apart by their occurrence.
    let twice = "a: 1\na: 2\na: 3\n";
    let found = fingerprints(twice);
    assert_eq!(found.len(), 2);
    assert_ne!(found[0], found[1]);
}

#[test]
fn output_is_deterministic() {
    for format in Format::ALL {
        assert_eq!(render(format, &reports()), render(format, &reports()));
    }
}

/// `check` compacts each report to the lines it shows as soon as its file is linted. The fixes
/// come along, placed while the file was linted: every format renders the compacted report
/// exactly as the whole one, and each placement is what the file parsed again gives, the
/// comments inside a replaced entry included.
#[test]
fn compacted_reports_with_fixes_render_as_whole_ones() {
    let path = "testdata/report/fixes.yaml";
    let text = fs::read_to_string(path).unwrap();
    let settings = Settings::from_selectors(&[Selector::parse("all").unwrap()], &[], &[]);
    let whole = lint_text(path, &text, &settings);
    let fixed: Vec<&str> = whole
        .diagnostics
        .iter()
        .filter(|d| !d.fixes.is_empty())
        .map(|d| d.rule)
        .collect();
    assert!(fixed.contains(&"prestop-exec-sleep"), "{fixed:?}");
    assert!(fixed.contains(&"zero-grace-period"), "{fixed:?}");

    let documents = podcycle::yaml::parse_stream(&text);
    for fix in whole.diagnostics.iter().flat_map(|d| &d.fixes) {
        let again = podcycle::fix::text_edits(&text, &documents, fix);
        match &fix.placement {
            Placement::At(edits) => assert_eq!(Some(edits), again.as_ref(), "{}", fix.title),
            other => panic!("{}: placed {other:?}, parsed again {again:?}", fix.title),
        }
    }
    let json = render(Format::Json, std::slice::from_ref(&whole));
    assert!(
        json.contains("# the endpoints need time to update"),
        "{json}"
    );

    let mut compacted = lint_text(path, &text, &settings);
    compacted.compact();
    assert!(compacted.file.is_excerpt());
    assert!(compacted.file.text.len() < text.len() / 2);
    for format in Format::ALL {
        assert_eq!(
            render(format, std::slice::from_ref(&compacted)),
            render(format, std::slice::from_ref(&whole)),
            "{}",
            format.name()
        );
    }
}
