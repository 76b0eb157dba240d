//! The configuration of each file, for every front end alike: the file named with `--config`,
//! none with `--no-config`, else the nearest `.podcycle.yaml` above the file — each found and
//! read once per run (per change, in the editor).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::options::ConfigChoice;
use crate::config::{self, Config, ConfigError};

/// The configuration of each file, each read once.
#[derive(Debug)]
pub struct Configs {
    /// The configuration of every file, when one is chosen for all (`--config`, `--no-config`).
    fixed: Option<Option<Arc<Config>>>,
    /// Directory → the configuration file that applies there.
    found: HashMap<PathBuf, Option<PathBuf>>,
    /// Configuration file → what it holds, or why it cannot be used.
    loaded: HashMap<PathBuf, Result<Arc<Config>, Arc<ConfigError>>>,
    /// The configurations that could not be used, in the order they were met.
    errors: Vec<Arc<ConfigError>>,
}

impl Configs {
    /// The configurations for `choice`; the error of a `--config` file that cannot be used.
    pub(crate) fn new(choice: &ConfigChoice) -> Result<Configs, ConfigError> {
        let fixed = match choice {
            ConfigChoice::Nearest => None,
            ConfigChoice::File(path) => Some(Some(Arc::new(Config::load(path)?))),
            ConfigChoice::FileAt { file, root } => {
                Some(Some(Arc::new(Config::load_at(file, root)?)))
            }
            ConfigChoice::Nothing => Some(None),
        };
        Ok(Configs {
            fixed,
            ..Configs::nearest()
        })
    }

    /// The nearest configuration above each file: what the language server reads.
    pub fn nearest() -> Configs {
        Configs {
            fixed: None,
            found: HashMap::new(),
            loaded: HashMap::new(),
            errors: Vec::new(),
        }
    }

    /// The configuration for a file (`-` for standard input without a name: the current
    /// directory's); `None` when none applies or the one that applies cannot be used (see
    /// [`Configs::errors`]).
    pub(crate) fn for_file(&mut self, path: &Path) -> Option<Arc<Config>> {
        self.resolve(path).ok().flatten()
    }

    /// [`Configs::for_file`], with the error of a configuration that cannot be used.
    pub(crate) fn resolve(&mut self, path: &Path) -> Result<Option<Arc<Config>>, Arc<ConfigError>> {
        if let Some(fixed) = &self.fixed {
            return Ok(fixed.clone());
        }
        let dir = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
            _ => PathBuf::from("."),
        };
        let Some(config_path) = self
            .found
            .entry(dir)
            .or_insert_with_key(|dir| config::find(dir))
            .clone()
        else {
            return Ok(None);
        };
        if let Some(loaded) = self.loaded.get(&config_path) {
            return loaded.clone().map(Some);
        }
        let loaded = Config::load(&config_path).map(Arc::new).map_err(Arc::new);
        if let Err(error) = &loaded {
            self.errors.push(Arc::clone(error));
        }
        self.loaded.insert(config_path, loaded.clone());
        loaded.map(Some)
    }

    /// The configurations met so far that cannot be used.
    pub(crate) fn errors(&self) -> &[Arc<ConfigError>] {
        &self.errors
    }
}
