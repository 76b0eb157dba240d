//! The lint pipeline on arbitrary bytes, every rule enabled: no panic, no hang, and every span
//! inside the text on character boundaries. Rendering is the `render` target's job.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podcycle::run::{FilePlan, lint_bytes};
use podcycle::lint::FileRole;
use podcycle::settings::{Selector, Settings};

fuzz_target!(|data: &[u8]| {
    let settings = Settings::from_selectors(&[Selector::parse("all").unwrap()], &[], &[]);
    // The first byte picks the file's role; the rest is the file.
    let (role, bytes) = match data.split_first() {
        Some((&b, rest)) if b % 7 == 0 => (FileRole::Patch, rest),
        _ => (FileRole::Manifest, data),
    };
    let plan = FilePlan::new(settings, role);
    let report = lint_bytes("fuzz.yaml".to_owned(), bytes.to_vec(), &plan, &mut |_| {});
    let text = &report.file.text;
    for diagnostic in &report.diagnostics {
        let spans =
            std::iter::once(diagnostic.span).chain(diagnostic.labels.iter().map(|l| l.span));
        for span in spans {
            let range = span.range();
            assert!(range.start <= range.end && range.end <= text.len());
            assert!(text.is_char_boundary(range.start) && text.is_char_boundary(range.end));
            let _ = report.file.line_col(span.start);
        }
    }
});
