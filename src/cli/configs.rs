//! The configuration each file is linted with, for `check` and `explain` alike: the file named
//! with `--config`, none with `--no-config`, else the nearest `.podcycle.yaml` above the file.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{self, Config, ConfigError};
use crate::escape::escape_controls;
use crate::report::render_problem;

/// The configuration of each file: the one given with `--config`, none with `--no-config`,
/// else the nearest `.podcycle.yaml` above the file, each read once.
pub struct Configs {
    fixed: Option<Option<Arc<Config>>>,
    /// Directory → the configuration file that applies there.
    found: HashMap<PathBuf, Option<PathBuf>>,
    /// Configuration file → what it holds (`None` when it is invalid).
    loaded: HashMap<PathBuf, Option<Arc<Config>>>,
    pub errors: Vec<ConfigError>,
}

impl Configs {
    pub fn new(config: Option<&Path>, no_config: bool) -> Result<Configs, ConfigError> {
        let fixed = if no_config {
            Some(None)
        } else if let Some(path) = config {
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
    pub fn for_file(&mut self, path: &Path) -> Option<Arc<Config>> {
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

impl Configs {
    /// [`Configs::new`], printing the error of a `--config` file that cannot be used (then
    /// `None`: exit 2).
    pub fn open(
        config: Option<&Path>,
        no_config: bool,
        color: bool,
    ) -> io::Result<Option<Configs>> {
        match Configs::new(config, no_config) {
            Ok(configs) => Ok(Some(configs)),
            Err(error) => {
                print_config_error(&error, color)?;
                Ok(None)
            }
        }
    }

    /// Prints the errors of every configuration read so far; whether there were any.
    pub fn print_errors(&self, color: bool) -> io::Result<bool> {
        for error in &self.errors {
            print_config_error(error, color)?;
        }
        Ok(!self.errors.is_empty())
    }
}

pub fn print_config_error(error: &ConfigError, color: bool) -> io::Result<()> {
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
