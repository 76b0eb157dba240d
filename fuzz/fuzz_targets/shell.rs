//! The reader of shell commands (how long an exec hook sleeps, whether it only sleeps), on
//! argument lists and on `sh -c` scripts made of the input.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podcycle::lifecycle::{exec_only_sleeps, exec_sleep, only_sleep};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let argv: Vec<String> = text.split('\0').map(str::to_owned).collect();
    let script = vec!["sh".to_owned(), "-c".to_owned(), text.replace('\0', " ")];
    for command in [&argv, &script] {
        let _ = exec_sleep(command);
        let _ = exec_only_sleeps(command);
        if let Some(seconds) = only_sleep(command) {
            assert!(seconds >= 0, "a negative sleep from {command:?}");
        }
    }
});
