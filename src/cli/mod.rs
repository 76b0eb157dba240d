//! The command line: `podcycle check`, `podcycle rules`, `podcycle rule NAME`.

mod check;
mod rules;

/// What `podcycle check` does with each file once read; public for the benchmarks.
pub use check::lint_bytes;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::diagnostics::Severity;
use crate::report::Format;

#[derive(Debug, Parser)]
#[command(
    name = "podcycle",
    version,
    about = "A Kubernetes manifest linter that understands the Pod lifecycle",
    long_about = "podcycle reads Pod and workload manifests, derives the order in which the kubelet \
starts and stops their containers, and reports what fails at deploy time or at runtime, at the \
exact line and column."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Lint files and directories (recursively); `-` reads standard input.
    Check(CheckArgs),
    /// List every rule with its category and default severity.
    Rules(RulesArgs),
    /// Print one rule's documentation.
    Rule {
        /// The rule's name, e.g. `prestop-exceeds-grace-period`.
        name: String,
    },
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or directories to lint; `-` reads standard input. Defaults to the current
    /// directory.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Full)]
    pub format: Format,
    /// Rules or categories to run instead of the defaults (comma-separated; `all` for every
    /// rule).
    #[arg(long, value_delimiter = ',', value_name = "RULE|CATEGORY")]
    pub select: Vec<String>,
    /// Rules or categories to run in addition to the selected ones.
    #[arg(long, value_delimiter = ',', value_name = "RULE|CATEGORY")]
    pub extend_select: Vec<String>,
    /// Rules or categories not to run.
    #[arg(long, value_delimiter = ',', value_name = "RULE|CATEGORY")]
    pub ignore: Vec<String>,
    /// Exit with 1 when a finding at or above this severity is reported.
    #[arg(long, value_enum, default_value_t = FailOn::Warning)]
    pub fail_on: FailOn,
    /// The file name to report for standard input.
    #[arg(long, value_name = "NAME")]
    pub stdin_filename: Option<String>,
    /// Skip files and directories matching this glob while walking directories
    /// (repeatable). Files named on the command line are always linted.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// When to use colours in the full format.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    pub fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Args)]
pub struct RulesArgs {
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    pub format: RulesFormat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
}

/// Exit codes: nothing at or above the fail level, findings at or above it, usage or I/O
/// error.
pub const EXIT_CLEAN: u8 = 0;
pub const EXIT_FINDINGS: u8 = 1;
pub const EXIT_ERROR: u8 = 2;

pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // clap prints help and version on stdout with code 0, and usage errors with code 2.
        Err(error) => error.exit(),
    };
    let result = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Rules(args) => rules::list(args.format),
        Command::Rule { name } => rules::show(&name),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        // A closed pipe (`podcycle check | head`) is not an error worth a message.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_CLEAN),
        Err(error) => {
            let _ = writeln!(io::stderr(), "podcycle: error: {error}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}

/// Prints a usage-level error and returns the exit code for it.
fn usage_error(message: &str) -> u8 {
    let _ = writeln!(io::stderr(), "podcycle: error: {message}");
    EXIT_ERROR
}

/// Lints `text` as `path` and renders it as the full format without colour; returns each
/// diagnostic's (line, severity, rule) too. Shared by the fixture and snapshot tests.
#[doc(hidden)]
pub fn render_for_tests(
    path: &str,
    text: &str,
    settings: &crate::settings::Settings,
) -> (Vec<(usize, String, String)>, String) {
    let report = check::lint_bytes(path.to_owned(), text.as_bytes().to_vec(), settings);
    let located = report
        .diagnostics
        .iter()
        .map(|d| {
            (
                report.file.line_col(d.span.start).line,
                d.severity.to_string(),
                d.rule.to_owned(),
            )
        })
        .collect();
    let mut out = Vec::new();
    crate::report::write(&mut out, Format::Full, std::slice::from_ref(&report), false)
        .expect("writing to memory");
    (located, String::from_utf8_lossy(&out).into_owned())
}
