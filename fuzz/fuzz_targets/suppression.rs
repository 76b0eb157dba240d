//! Suppression comments and annotations: the input is written as `# podcycle:` comments at
//! several places of a manifest and as the ignore annotations' values, and linted.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podcycle::lint::FileRole;
use podcycle::run::{FilePlan, lint_bytes};
use podcycle::settings::Settings;

fuzz_target!(|data: &[u8]| {
    let input = String::from_utf8_lossy(data);
    // One line of input per place; a newline would end the comment early anyway.
    let mut lines = input.split('\n');
    let mut next = || lines.next().unwrap_or("").replace('\r', " ");
    let (a, b, c, d, e) = (next(), next(), next(), next(), next());
    let manifest = format!(
        "# podcycle:{a}\n\
         apiVersion: v1\n\
         kind: Pod\n\
         metadata:\n  name: p\n  annotations:\n    podcycle.io/ignore: {:?}\n    podcycle.io/ignore-reason: {:?}\n\
         spec: # podcycle:{c}\n\
         \x20 initContainers:\n\
         \x20 # podcycle:{d}\n\
         \x20 - name: i\n    image: x\n    readinessProbe: {{exec: {{command: [x]}}}} # podcycle:{e}\n\
         \x20 containers:\n  - {{name: a, image: b}}\n",
        b, d,
    );
    let plan = FilePlan::new(Settings::default(), FileRole::Manifest);
    let report = lint_bytes("fuzz.yaml".to_owned(), manifest.into_bytes(), &plan, &mut |_| {});
    for diagnostic in &report.diagnostics {
        assert!(diagnostic.span.range().end <= report.file.text.len());
    }
});
