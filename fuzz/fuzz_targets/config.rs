//! Reading a configuration file: every problem is located inside the text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podcycle::config;
use podcycle::source::SourceFile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let file = SourceFile::new(".podcycle.yaml", text.as_ref());
    if let Err(problems) = config::parse(&file) {
        assert!(!problems.is_empty());
        for problem in problems {
            let range = problem.span.range();
            assert!(range.end <= file.text.len(), "{problem:?}");
            assert!(
                file.text.is_char_boundary(range.start) && file.text.is_char_boundary(range.end)
            );
        }
    }
});
