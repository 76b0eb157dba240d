//! Opening a run's configurations and printing their errors, for `check` and `explain` alike.

use std::io::{self, Write};

use super::{ColorChoice, stderr_colors};
use crate::config::ConfigError;
use crate::escape::escape_controls;
use crate::report::render_problem;
use crate::run::{Configs, RunOptions};

/// The configurations of a run; `None` when the one named with `--config` is unusable
/// (already said: exit 2).
pub(super) fn open_configs(
    options: &RunOptions,
    color: ColorChoice,
) -> io::Result<Option<Configs>> {
    match Configs::new(&options.config) {
        Ok(configs) => Ok(Some(configs)),
        Err(error) => {
            print_config_error(&error, stderr_colors(color))?;
            Ok(None)
        }
    }
}

/// Prints the errors of every configuration read so far; whether there were any.
pub(super) fn print_config_errors(configs: &Configs, color: bool) -> io::Result<bool> {
    for error in configs.errors() {
        print_config_error(error, color)?;
    }
    Ok(!configs.errors().is_empty())
}

fn print_config_error(error: &ConfigError, color: bool) -> io::Result<()> {
    let mut err = io::stderr().lock();
    match error {
        ConfigError::Unreadable { path, message } => writeln!(
            err,
            "podcycle: error: cannot read configuration {}: {message}",
            escape_controls(&path.display().to_string())
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
                escape_controls(&file.path)
            )
        }
    }
}
