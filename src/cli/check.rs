//! `podcycle check`: discover, read and lint files in parallel, report, pick the exit code.

use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::input::{lint_bytes, read_path, read_stdin};
use super::{CheckArgs, ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, usage_error};
use crate::discovery::{discover, exclude_set};
use crate::report::{self, FileReport};
use crate::settings::{Selector, Settings};

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
        reports.push(lint_bytes(name, read_stdin()?, &settings));
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
        // Files are independent; lint them on every core and keep the order of discovery.
        let results: Vec<Result<FileReport, String>> = discovered
            .files
            .par_iter()
            .map(|path| read_and_lint(path, &settings))
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
    ))
}

fn read_and_lint(path: &Path, settings: &Settings) -> Result<FileReport, String> {
    let (display, bytes) = read_path(path)?;
    Ok(lint_bytes(display, bytes, settings))
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
