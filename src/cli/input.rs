//! Reading manifests for the commands: files as given or found by discovery, or standard
//! input; bytes that are not UTF-8 are linted all the same.

use std::io;
use std::path::{Path, PathBuf};

use crate::escape::escape_controls;
use crate::lint::{FileRole, Linted, Visit, invalid_utf8, lint_file_with};
use crate::report::FileReport;
use crate::safe_fs::{self, FileKind};
use crate::settings::{FailOn, Settings};
use crate::source::SourceFile;

/// The paths to walk: those given other than `-` (standard input), or the current directory
/// when none is given at all.
pub(super) fn walked_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        return vec![PathBuf::from(".")];
    }
    paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect()
}

/// Reads a file, named for reports the way the user wrote it (without a leading `./`). Errors
/// name the file, escaped for the terminal.
pub(super) fn read_path(path: &Path) -> Result<(String, Vec<u8>), String> {
    let display = path.display().to_string();
    let display = display
        .strip_prefix("./")
        .map(str::to_owned)
        .unwrap_or(display);
    match safe_fs::read_file(path, FileKind::Manifest) {
        Ok(bytes) => Ok((display, bytes)),
        Err(error) => Err(format!("{}: {error}", escape_controls(&display))),
    }
}

/// Reads standard input, up to the size podcycle reads of a manifest.
pub(super) fn read_stdin() -> io::Result<Vec<u8>> {
    safe_fs::read_stdin(FileKind::Manifest).map_err(|error| match error {
        safe_fs::ReadError::Other(error) => error,
        error => io::Error::other(format!("standard input: {error}")),
    })
}

/// Lints file contents as complete manifests, with the default fail level.
pub fn lint_bytes(path: String, bytes: Vec<u8>, settings: &Settings) -> FileReport {
    lint_bytes_as(path, bytes, settings, FileRole::Manifest)
}

/// Lints file contents as manifests or as patches, with the default fail level.
pub fn lint_bytes_as(
    path: String,
    bytes: Vec<u8>,
    settings: &Settings,
    role: FileRole,
) -> FileReport {
    let (file, linted) = lint_bytes_with(path, bytes, settings, role, &mut |_| {});
    FileReport {
        file,
        diagnostics: linted.diagnostics,
        objects: linted.objects,
        fail_at: FailOn::Warning.threshold(),
    }
}

/// Lints file contents, showing `visit` every workload object and document end (see
/// [`lint_file_with`]).
/// Invalid UTF-8 is reported at the first bad byte, and the rest is linted with replacement
/// characters so that the other documents still get checked.
pub fn lint_bytes_with(
    path: String,
    bytes: Vec<u8>,
    settings: &Settings,
    role: FileRole,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> (SourceFile, Linted) {
    let (text, valid_up_to) = match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(error) => {
            let valid_up_to = error.utf8_error().valid_up_to();
            (
                String::from_utf8_lossy(error.as_bytes()).into_owned(),
                Some(valid_up_to),
            )
        }
    };
    let file = SourceFile::new(path, text);
    let mut linted = lint_file_with(&file, settings, role, visit);
    if let Some(valid_up_to) = valid_up_to {
        linted
            .diagnostics
            .extend(invalid_utf8(settings, &file.text, valid_up_to));
        crate::diagnostics::sort(&mut linted.diagnostics);
    }
    (file, linted)
}
