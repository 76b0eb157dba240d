//! Reading manifests for the commands: files as given or found by discovery, or standard
//! input; bytes that are not UTF-8 are linted all the same.

use std::io;
use std::path::{Path, PathBuf};

use globset::GlobSet;
use rayon::prelude::*;

use super::eprint_line;
use crate::discovery::discover;
use crate::discovery::roles::{PatchIndex, role_by_name};
use crate::escape::escape_controls;
use crate::lint::{FileRole, Linted, ObjectVisit, invalid_utf8, lint_file_with};
use crate::report::FileReport;
use crate::safe_fs::{self, FileKind};
use crate::settings::{FailOn, Settings};
use crate::source::SourceFile;

/// What reading the inputs gave: one result per file, standard input first, then files in
/// discovery order.
pub struct Inputs<T> {
    pub results: Vec<T>,
    /// A path could not be found or read (already reported on stderr).
    pub failed: bool,
}

/// Reads every input — standard input for `-` (named `stdin_name`), files as given,
/// directories walked — and hands each file to `each` with what it holds (manifests, or
/// Kustomize patches and other partial objects), on every core. Problems are reported on
/// stderr. `Err` is a usage error: `-` given more than once.
pub fn read_inputs<T: Send>(
    paths: &[PathBuf],
    stdin_name: &str,
    exclude: &GlobSet,
    each: impl Fn(String, Vec<u8>, FileRole) -> T + Sync,
) -> io::Result<Result<Inputs<T>, String>> {
    let stdin_count = paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        return Ok(Err("`-` (standard input) may be given only once".to_owned()));
    }
    let mut inputs = Inputs {
        results: Vec::new(),
        failed: false,
    };
    if stdin_count == 1 {
        let role = role_by_name(Path::new(stdin_name));
        inputs
            .results
            .push(each(stdin_name.to_owned(), read_stdin()?, role));
    }
    let files: Vec<PathBuf> = paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    if files.is_empty() {
        return Ok(Ok(inputs));
    }
    let discovered = discover(&files, exclude);
    for error in &discovered.errors {
        eprint_line(format_args!("podcycle: error: {error}"))?;
        inputs.failed = true;
    }
    // `explain` reads files as they are: say what it leaves to the renderers.
    for chart in &discovered.charts {
        eprint_line(format_args!(
            "podcycle: warning: {}: a Helm chart is not explained as files; run `helm template {} | podcycle explain -`",
            escape_controls(&crate::render::display(&chart.dir)),
            escape_controls(&crate::render::display(&chart.dir)),
        ))?;
    }
    for overlay in &discovered.overlays {
        eprint_line(format_args!(
            "podcycle: warning: {}: a Kustomize overlay is not explained as built; run `kustomize build {} | podcycle explain -`",
            escape_controls(&crate::render::display(overlay)),
            escape_controls(&crate::render::display(overlay)),
        ))?;
    }
    let mut patches = PatchIndex::default();
    let files: Vec<(&PathBuf, FileRole)> = discovered
        .files
        .iter()
        .map(|path| (path, patches.role(path)))
        .collect();
    // Files are independent; read them on every core and keep the order of discovery.
    let results: Vec<Result<T, String>> = files
        .par_iter()
        .map(|(path, role)| read_path(path).map(|(display, bytes)| each(display, bytes, *role)))
        .collect();
    for result in results {
        match result {
            Ok(result) => inputs.results.push(result),
            Err(message) => {
                eprint_line(format_args!("podcycle: error: {message}"))?;
                inputs.failed = true;
            }
        }
    }
    Ok(Ok(inputs))
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

/// Lints file contents, showing `visit` every workload object (see [`lint_file_with`]).
/// Invalid UTF-8 is reported at the first bad byte, and the rest is linted with replacement
/// characters so that the other documents still get checked.
pub fn lint_bytes_with(
    path: String,
    bytes: Vec<u8>,
    settings: &Settings,
    role: FileRole,
    visit: &mut dyn FnMut(&ObjectVisit<'_>),
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
