//! Reading manifests for the commands: files as given or found by discovery, or standard
//! input; bytes that are not UTF-8 are linted all the same.

use std::io::{self, Read};
use std::path::Path;

use crate::discovery::describe_io_error;
use crate::lint::{ObjectVisit, invalid_utf8, lint_file_with};
use crate::report::FileReport;
use crate::settings::Settings;
use crate::source::{MAX_FILE_SIZE, SourceFile};

/// Reads a file, named for reports the way the user wrote it (without a leading `./`).
pub fn read_path(path: &Path) -> Result<(String, Vec<u8>), String> {
    let display = path.display().to_string();
    let display = display
        .strip_prefix("./")
        .map(str::to_owned)
        .unwrap_or(display);
    let metadata =
        std::fs::metadata(path).map_err(|e| format!("{display}: {}", describe_io_error(&e)))?;
    if metadata.len() >= MAX_FILE_SIZE {
        return Err(format!("{display}: the file is larger than 4 GiB"));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("{display}: {}", describe_io_error(&e)))?;
    Ok((display, bytes))
}

pub fn read_stdin() -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    io::stdin().lock().read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Lints file contents. Invalid UTF-8 is reported at the first bad byte, and the rest is
/// linted with replacement characters so that the other documents still get checked.
pub fn lint_bytes(path: String, bytes: Vec<u8>, settings: &Settings) -> FileReport {
    lint_bytes_with(path, bytes, settings, &mut |_| {})
}

/// [`lint_bytes`], showing `visit` every workload object (see [`lint_file_with`]).
pub fn lint_bytes_with(
    path: String,
    bytes: Vec<u8>,
    settings: &Settings,
    visit: &mut dyn FnMut(&ObjectVisit<'_>),
) -> FileReport {
    match String::from_utf8(bytes) {
        Ok(text) => {
            let file = SourceFile::new(path, text);
            let diagnostics = lint_file_with(&file, settings, visit);
            FileReport { file, diagnostics }
        }
        Err(error) => {
            let valid_up_to = error.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
            let file = SourceFile::new(path, text);
            let mut diagnostics = lint_file_with(&file, settings, visit);
            diagnostics.extend(invalid_utf8(settings, valid_up_to));
            crate::diagnostics::sort(&mut diagnostics);
            FileReport { file, diagnostics }
        }
    }
}
