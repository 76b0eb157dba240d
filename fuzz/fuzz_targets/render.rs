//! Each output format on what the pipeline finds in arbitrary bytes (the first byte picks the
//! format), with the promises of the human formats checked: no control character but the
//! line break reaches the output, and GitHub output is one workflow command per finding.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podcycle::run::lint_bytes;
use podcycle::report::{self, Format, Options};
use podcycle::settings::{Selector, Settings};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let color = pick >= 128;
    // A file name from the input too: names reach the output as much as contents do.
    let (name, bytes) = match rest.iter().position(|&b| b == 0) {
        Some(at) if at < 64 => (
            String::from_utf8_lossy(&rest[..at]).into_owned(),
            &rest[at + 1..],
        ),
        _ => ("fuzz.yaml".to_owned(), rest),
    };
    let settings = Settings::from_selectors(&[Selector::parse("all").unwrap()], &[], &[]);
    let report = lint_bytes(name, bytes.to_vec(), &settings);
    let mut out = Vec::new();
    let options = Options {
        color,
        source_root: Some("file:///src/".to_owned()),
        ..Options::default()
    };
    report::write(&mut out, format, std::slice::from_ref(&report), &options).unwrap();
    let out = String::from_utf8(out).expect("reports are UTF-8");
    match format {
        Format::Json | Format::Sarif | Format::Gitlab => {
            serde_json::from_str::<serde_json::Value>(&out).expect("valid JSON");
        }
        Format::Github => {
            for line in out.lines() {
                assert!(line.starts_with("::"), "not a workflow command: {line:?}");
            }
            assert_eq!(out.lines().count(), report.diagnostics.len());
        }
        Format::Full | Format::Concise | Format::Junit => {
            let allowed = |c: char| {
                c == '\n' || (color && c == '\u{1b}') || (format == Format::Junit && c == '\t')
            };
            assert!(
                !out.chars()
                    .any(|c| podcycle::escape::is_unsafe(c) && !allowed(c)),
                "a control character reached the {format:?} output: {out:?}"
            );
        }
    }
});
