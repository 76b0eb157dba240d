//! `podcycle check`: discover files, find each one's configuration, lint them in parallel,
//! report, pick the exit code.

use std::collections::HashMap;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::GlobSet;
use rayon::prelude::*;

use super::input::{lint_bytes_with, read_path, read_stdin};
use super::{CheckArgs, ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, usage_error};
use crate::config::{self, Config, ConfigError};
use crate::diagnostics::Severity;
use crate::discovery::roles::{PatchIndex, role_by_name};
use crate::discovery::{describe_io_error, discover, exclude_set, excluded};
use crate::lint::FileRole;
use crate::report::{self, FileReport, Format, render_problem};
use crate::settings::{FailOn, Selection, Selector, Settings};

/// What a file is linted with.
#[derive(Clone)]
struct Plan {
    settings: Settings,
    fail_at: Option<Severity>,
    role: FileRole,
}

pub fn run(args: &CheckArgs) -> io::Result<u8> {
    let selection = match selection(args) {
        Ok(selection) => selection,
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
    let color = match args.color {
        _ if args.output.is_some() => false,
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => color_by_environment(),
    };

    let mut configs = match Configs::new(args) {
        Ok(configs) => configs,
        Err(error) => {
            print_config_error(&error, color_by_environment_stderr())?;
            return Ok(EXIT_ERROR);
        }
    };
    let mut failed = false;

    // Standard input first, then files in a stable order; each with its configuration.
    let stdin_name = args
        .stdin_filename
        .clone()
        .unwrap_or_else(|| "-".to_owned());
    let mut stdin_plan = None;
    if stdin_count == 1 {
        let shown = args.stdin_filename.as_deref().map(Path::new);
        let config = configs.for_file(shown.unwrap_or(Path::new("-")));
        let skip = shown.is_some_and(|path| {
            args.force_exclude && is_excluded(config.as_deref(), &exclude, path)
        });
        if !skip {
            let role = role_by_name(Path::new(&stdin_name));
            stdin_plan = Some(plan(args, &selection, config.as_deref(), shown, role));
        }
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
    let mut files: Vec<(PathBuf, Plan)> = Vec::new();
    let mut patches = PatchIndex::default();
    if !paths.is_empty() {
        let discovered = discover(&paths, &exclude);
        for error in &discovered.errors {
            writeln!(io::stderr(), "podcycle: error: {error}")?;
            failed = true;
        }
        for path in discovered.files {
            let named = paths.contains(&path);
            let config = configs.for_file(&path);
            let excluded = if named {
                args.force_exclude && is_excluded(config.as_deref(), &exclude, &path)
            } else {
                config.as_deref().is_some_and(|c| c.excludes(&path))
            };
            if !excluded {
                let role = patches.role(&path);
                let plan = plan(args, &selection, config.as_deref(), Some(&path), role);
                files.push((path, plan));
            }
        }
    }
    if !configs.errors.is_empty() {
        let color = color_by_environment_stderr();
        for error in &configs.errors {
            print_config_error(error, color)?;
        }
        return Ok(EXIT_ERROR);
    }

    let mut reports = Vec::new();
    if let Some(plan) = stdin_plan {
        reports.push(lint_with_plan(stdin_name, read_stdin()?, &plan));
    }
    // Files are independent; lint them on every core and keep the order of discovery.
    let results: Vec<Result<FileReport, String>> = files
        .par_iter()
        .map(|(path, plan)| read_path(path).map(|(name, bytes)| lint_with_plan(name, bytes, plan)))
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

    if reports.is_empty() && !failed && stdin_count == 0 {
        // Like ripgrep and ruff: say so, so that a mistyped path or an over-broad --exclude
        // does not pass for a clean result.
        writeln!(
            io::stderr(),
            "podcycle: warning: no YAML or JSON files found to check"
        )?;
    }

    let options = report::Options {
        color,
        source_root: (args.format == Format::Sarif)
            .then(|| std::env::current_dir().ok())
            .flatten()
            .map(|dir| report::directory_uri(&dir)),
    };
    match &args.output {
        None => {
            let mut out = io::stdout().lock();
            report::write(&mut out, args.format, &reports, &options)?;
            out.flush()?;
        }
        Some(path) => {
            if let Err(error) = write_report_file(path, args.format, &reports, &options) {
                let reason = describe_io_error(&error);
                return Ok(usage_error(&format!(
                    "cannot write {}: {reason}",
                    path.display()
                )));
            }
        }
    }

    if failed {
        return Ok(EXIT_ERROR);
    }
    let fails = reports
        .iter()
        .any(|r| r.diagnostics.iter().any(|d| r.fails(d)));
    Ok(if fails { EXIT_FINDINGS } else { EXIT_CLEAN })
}

fn write_report_file(
    path: &Path,
    format: Format,
    reports: &[FileReport],
    options: &report::Options,
) -> io::Result<()> {
    let mut out = io::BufWriter::new(std::fs::File::create(path)?);
    report::write(&mut out, format, reports, options)?;
    out.flush()
}

fn selection(args: &CheckArgs) -> Result<Selection, String> {
    let parse = |names: &[String]| {
        names
            .iter()
            .map(|n| Selector::parse(n.trim()))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Selection {
        select: parse(&args.select)?,
        extend_select: parse(&args.extend_select)?,
        ignore: parse(&args.ignore)?,
    })
}

/// The settings and fail level for a file: the configuration's, with the command line on top,
/// less the configuration's `per-path-ignores` for the file.
fn plan(
    args: &CheckArgs,
    cli: &Selection,
    config: Option<&Config>,
    path: Option<&Path>,
    role: FileRole,
) -> Plan {
    let settings = match config {
        None => config::settings_without_config(cli, args.kube_version),
        Some(config) => config.settings_for_file(cli, args.kube_version, path),
    };
    let fail_on = args
        .fail_on
        .or(config.and_then(|c| c.fail_on))
        .unwrap_or(FailOn::Warning);
    Plan {
        settings,
        fail_at: fail_on.threshold(),
        role,
    }
}

fn is_excluded(config: Option<&Config>, exclude: &GlobSet, path: &Path) -> bool {
    excluded(exclude, path) || config.is_some_and(|c| c.excludes(path))
}

/// The configuration of each file: the one given with `--config`, none with `--no-config`,
/// else the nearest `.podcycle.yaml` above the file, each read once.
struct Configs {
    fixed: Option<Option<Arc<Config>>>,
    /// Directory → the configuration file that applies there.
    found: HashMap<PathBuf, Option<PathBuf>>,
    /// Configuration file → what it holds (`None` when it is invalid).
    loaded: HashMap<PathBuf, Option<Arc<Config>>>,
    errors: Vec<ConfigError>,
}

impl Configs {
    fn new(args: &CheckArgs) -> Result<Configs, ConfigError> {
        let fixed = if args.no_config {
            Some(None)
        } else if let Some(path) = &args.config {
            Some(Some(Arc::new(Config::load(path)?)))
        } else {
            None
        };
        Ok(Configs {
            fixed,
            found: HashMap::new(),
            loaded: HashMap::new(),
            errors: Vec::new(),
        })
    }

    /// The configuration for a file (`-` for standard input without a name: the current
    /// directory's).
    fn for_file(&mut self, path: &Path) -> Option<Arc<Config>> {
        if let Some(fixed) = &self.fixed {
            return fixed.clone();
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        let config_path = self
            .found
            .entry(dir)
            .or_insert_with_key(|dir| config::find(dir))
            .clone()?;
        if let Some(loaded) = self.loaded.get(&config_path) {
            return loaded.clone();
        }
        let loaded = match Config::load(&config_path) {
            Ok(config) => Some(Arc::new(config)),
            Err(error) => {
                self.errors.push(error);
                None
            }
        };
        self.loaded.insert(config_path, loaded.clone());
        loaded
    }
}

fn print_config_error(error: &ConfigError, color: bool) -> io::Result<()> {
    let mut err = io::stderr().lock();
    match error {
        ConfigError::Unreadable { path, message } => writeln!(
            err,
            "podcycle: error: cannot read configuration {}: {message}",
            path.display()
        ),
        ConfigError::Invalid { file, problems } => {
            for problem in problems {
                let rendered = render_problem(
                    file,
                    problem.span,
                    &problem.message,
                    problem.help.as_deref(),
                    color,
                );
                writeln!(err, "{rendered}\n")?;
            }
            writeln!(
                err,
                "podcycle: error: invalid configuration {}; docs/configuration.md describes the keys",
                file.path
            )
        }
    }
}

fn lint_with_plan(name: String, bytes: Vec<u8>, plan: &Plan) -> FileReport {
    let (file, linted) = lint_bytes_with(name, bytes, &plan.settings, plan.role, &mut |_| {});
    FileReport {
        file,
        diagnostics: linted.diagnostics,
        objects: linted.objects,
        fail_at: plan.fail_at,
    }
}

/// Lints `text` as a file named `path` with `settings` and the default fail level.
pub fn lint_text(path: &str, text: &str, settings: &Settings) -> FileReport {
    super::input::lint_bytes(path.to_owned(), text.as_bytes().to_vec(), settings)
}

/// Colour when stdout is a terminal, unless `NO_COLOR` is set; `CLICOLOR_FORCE` forces it.
fn color_by_environment() -> bool {
    color_for(io::stdout().is_terminal())
}

fn color_by_environment_stderr() -> bool {
    color_for(io::stderr().is_terminal())
}

fn color_for(terminal: bool) -> bool {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
    if set("CLICOLOR_FORCE") {
        return true;
    }
    if std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty()) {
        return false;
    }
    terminal
}
