//! `podcycle check`: discover, read and lint files in parallel, report, pick the exit code.

use std::io::{self, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{CheckArgs, ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, usage_error};
use crate::discovery::{describe_io_error, discover, exclude_set};
use crate::kustomize::{PatchIndex, is_patch_by_name};
use crate::lint::{FileRole, invalid_utf8, lint_file_as};
use crate::report::{self, FileReport};
use crate::settings::{Selector, Settings};
use crate::source::{MAX_FILE_SIZE, SourceFile};

pub fn run(args: &CheckArgs) -> io::Result<u8> {
    let settings = match settings(args) {
        Ok(settings) => settings,
        Err(message) => return Ok(usage_error(&message)),
    };
    let exclude = match exclude_set(&args.exclude) {
        Ok(set) => set,
        Err(message) => return Ok(usage_error(&message)),
    };
    let stdin_count = args.paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        return Ok(usage_error("`-` (standard input) may be given only once"));
    }

    let mut reports = Vec::new();
    let mut failed = false;
    if stdin_count == 1 {
        let name = args
            .stdin_filename
            .clone()
            .unwrap_or_else(|| "-".to_owned());
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes)?;
        let role = if is_patch_by_name(Path::new(&name)) {
            FileRole::Patch
        } else {
            FileRole::Manifest
        };
        reports.push(lint_bytes_as(name, bytes, &settings, role));
    }
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
            .iter()
            .filter(|p| p.as_os_str() != "-")
            .cloned()
            .collect()
    };
    if !paths.is_empty() {
        let discovered = discover(&paths, &exclude);
        for error in &discovered.errors {
            writeln!(io::stderr(), "podcycle: error: {error}")?;
            failed = true;
        }
        let mut patches = PatchIndex::default();
        let files: Vec<(&PathBuf, FileRole)> = discovered
            .files
            .iter()
            .map(|path| {
                let role = if patches.is_patch(path) {
                    FileRole::Patch
                } else {
                    FileRole::Manifest
                };
                (path, role)
            })
            .collect();
        // Files are independent; lint them on every core and keep the order of discovery.
        let results: Vec<Result<FileReport, String>> = files
            .par_iter()
            .map(|(path, role)| read_and_lint(path, &settings, *role))
            .collect();
        for result in results {
            match result {
                Ok(report) => reports.push(report),
                Err(message) => {
                    writeln!(io::stderr(), "podcycle: error: {message}")?;
                    failed = true;
                }
            }
        }
    }

    if reports.is_empty() && !failed {
        // Like ripgrep and ruff: say so, so that a mistyped path or an over-broad --exclude
        // does not pass for a clean result.
        writeln!(
            io::stderr(),
            "podcycle: warning: no YAML or JSON files found to check"
        )?;
    }

    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => color_by_environment(),
    };
    let mut out = io::stdout().lock();
    report::write(&mut out, args.format, &reports, color)?;
    out.flush()?;

    if failed {
        return Ok(EXIT_ERROR);
    }
    let threshold = args.fail_on.threshold();
    let fails = reports
        .iter()
        .flat_map(|r| &r.diagnostics)
        .any(|d| threshold.is_some_and(|t| d.severity >= t));
    Ok(if fails { EXIT_FINDINGS } else { EXIT_CLEAN })
}

fn settings(args: &CheckArgs) -> Result<Settings, String> {
    let parse = |names: &[String]| {
        names
            .iter()
            .map(|n| Selector::parse(n.trim()))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Settings::from_selectors(
        &parse(&args.select)?,
        &parse(&args.extend_select)?,
        &parse(&args.ignore)?,
    )
    .with_kube_version(args.kube_version))
}

fn read_and_lint(path: &Path, settings: &Settings, role: FileRole) -> Result<FileReport, String> {
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
    Ok(lint_bytes_as(display, bytes, settings, role))
}

/// Lints file contents as complete manifests.
pub fn lint_bytes(path: String, bytes: Vec<u8>, settings: &Settings) -> FileReport {
    lint_bytes_as(path, bytes, settings, FileRole::Manifest)
}

/// Lints file contents. Invalid UTF-8 is reported at the first bad byte, and the rest is
/// linted with replacement characters so that the other documents still get checked.
pub fn lint_bytes_as(
    path: String,
    bytes: Vec<u8>,
    settings: &Settings,
    role: FileRole,
) -> FileReport {
    match String::from_utf8(bytes) {
        Ok(text) => {
            let file = SourceFile::new(path, text);
            let diagnostics = lint_file_as(&file, settings, role);
            FileReport { file, diagnostics }
        }
        Err(error) => {
            let valid_up_to = error.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(error.as_bytes()).into_owned();
            let file = SourceFile::new(path, text);
            let mut diagnostics = lint_file_as(&file, settings, role);
            diagnostics.extend(invalid_utf8(settings, &file.text, valid_up_to));
            crate::diagnostics::sort(&mut diagnostics);
            FileReport { file, diagnostics }
        }
    }
}

/// Colour when stdout is a terminal, unless `NO_COLOR` is set; `CLICOLOR_FORCE` forces it.
fn color_by_environment() -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if set("CLICOLOR_FORCE") {
        return true;
    }
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    io::stdout().is_terminal()
}
