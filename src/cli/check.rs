//! `podcycle check`: discover, read and lint files in parallel, report, pick the exit code.

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use super::input::{lint_bytes_as, read_inputs};
use super::{CheckArgs, ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, usage_error};
use crate::discovery::exclude_set;
use crate::report;
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
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let stdin_name = args.stdin_filename.as_deref().unwrap_or("-");
    let inputs = match read_inputs(&paths, stdin_name, &exclude, |path, bytes, role| {
        lint_bytes_as(path, bytes, &settings, role)
    })? {
        Ok(inputs) => inputs,
        Err(message) => return Ok(usage_error(&message)),
    };
    let (reports, failed) = (inputs.results, inputs.failed);
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
