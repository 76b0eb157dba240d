//! [`RunOptions`]: what one run is asked to do beyond each file's configuration. The command
//! line builds it from its flags, the language server and the tests from nothing; every front
//! end then plans its files with [`RunOptions::file_plan`], so that one file is linted with the
//! same settings whoever asks.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use globset::GlobSet;

use crate::config::{self, Config};
use crate::diagnostics::Severity;
use crate::discovery::{WalkOptions, excluded};
use crate::lint::FileRole;
use crate::model::scope::Scope;
use crate::render::DEFAULT_TIMEOUT;
use crate::settings::{FailOn, Selection, Settings};
use crate::versions::KubeVersion;

/// What a run is asked to do, on top of each file's configuration. The default is a run with
/// no flags: what the language server does.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Which configuration each file gets.
    pub(crate) config: ConfigChoice,
    /// `--kube-version`: the cluster version every file is judged for, over the
    /// configuration's `kube-version`.
    pub(crate) kube_version: Option<KubeVersion>,
    /// `--platform`: the platforms the cluster is, over the configuration's `platforms`.
    pub(crate) platforms: Option<Vec<&'static crate::lifecycle::platforms::Platform>>,
    /// `--select`, `--extend-select`, `--ignore`: applied over each configuration's selection.
    pub(crate) selection: Selection,
    /// `--fail-on`, over the configuration's `fail-on`.
    pub(crate) fail_on: Option<FailOn>,
    /// `--fail-on-unrendered` (`Some(true)`) or `--no-fail-on-unrendered` (`Some(false)`),
    /// over each configuration's `fail-on-unrendered`; `None` leaves it to them and, where
    /// they do not say, to [`crate::run::RenderJob::unrendered_fails`]'s default.
    pub(crate) fail_on_unrendered: Option<bool>,
    /// How charts are rendered, over the configuration's `helm.charts`.
    pub(crate) helm: HelmOverrides,
    /// Which renderers, within which limits; or none.
    pub(crate) rendering: Rendering,
    /// What is walked and what is left out.
    pub(crate) walk: Walk,
    /// Keep each file's whole text in its report: `--fix`, `--diff` and `--add-ignore` edit
    /// it. Otherwise a report keeps only the lines it shows.
    pub(crate) keep_text: bool,
}

/// Which configuration applies to a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum ConfigChoice {
    /// The nearest `.podcycle.yaml` above the file.
    #[default]
    Nearest,
    /// This file for every file (`--config`).
    File(PathBuf),
    /// This file for every file, the paths it names relative to `root` instead of its
    /// directory (`--config` with `--settings-root`).
    FileAt { file: PathBuf, root: PathBuf },
    /// None (`--no-config`, or `--isolated` without `--config`).
    Nothing,
}

/// `--helm-release`, `--helm-namespace`, `--helm-values`: for every chart of the run.
#[derive(Clone, Debug, Default)]
pub(crate) struct HelmOverrides {
    pub(crate) release: Option<String>,
    pub(crate) namespace: Option<String>,
    /// After the chart's own `values.yaml` and those the configuration names.
    pub(crate) values: Vec<PathBuf>,
}

/// The renderers and their limits.
#[derive(Clone, Debug)]
pub(crate) struct Rendering {
    /// `--no-render`: every chart and overlay is reported as not rendered.
    pub(crate) disabled: bool,
    /// `--verbose`: the renderers' warnings in full, not counted per renderer.
    pub(crate) verbose: bool,
    /// `--helm`; `None` looks for `helm` on `PATH`.
    pub(crate) helm: Option<PathBuf>,
    /// `--kustomize`; `None` looks for `kustomize`, then `kubectl`, on `PATH`.
    pub(crate) kustomize: Option<PathBuf>,
    /// `--render-timeout`: how long one renderer may run.
    pub(crate) timeout: Duration,
    /// `--render-budget`: how long the run may spend rendering, over all its charts and
    /// overlays.
    pub(crate) budget: Duration,
    /// `--render-memory`: the memory one renderer may use, in bytes.
    pub(crate) memory: u64,
    /// Where renders are kept between runs.
    pub(crate) cache: CacheChoice,
    /// What is rendered must not be trusted: `--isolated`, and the editor in an untrusted
    /// workspace (`render::Tools::untrusted`).
    pub(crate) untrusted: bool,
}

/// Where renders are kept between runs ([`crate::render::cache`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum CacheChoice {
    /// Not kept: `--no-cache`, and the language server and the tests unless they ask.
    #[default]
    Off,
    /// `.podcycle_cache/` at the root of the repository the run is in.
    AtRoot,
    /// `--cache-dir`, `PODCYCLE_CACHE_DIR`.
    Dir(PathBuf),
}

impl Default for Rendering {
    fn default() -> Rendering {
        Rendering {
            disabled: false,
            verbose: false,
            helm: None,
            kustomize: None,
            timeout: DEFAULT_TIMEOUT,
            budget: crate::render::budget::DEFAULT_BUDGET,
            memory: crate::render::process::DEFAULT_MEMORY,
            cache: CacheChoice::Off,
            untrusted: false,
        }
    }
}

/// What a walk reads and leaves out.
#[derive(Clone, Debug, Default)]
pub(crate) struct Walk {
    /// `--exclude`: left out while walking directories.
    pub(crate) exclude: GlobSet,
    /// `--force-exclude`: the excludes apply to files named on the command line too.
    pub(crate) force_exclude: bool,
    /// How ignore files are treated (`--isolated` honours none).
    pub(crate) options: WalkOptions,
}

/// What one file is linted with.
#[derive(Clone, Debug)]
pub struct FilePlan {
    pub(crate) settings: Settings,
    /// The least severity that fails the run for this file; `None` for never.
    pub(crate) fail_at: Option<Severity>,
    pub(crate) role: FileRole,
    /// Keep the file's whole text in its report ([`RunOptions::keep_text`]).
    pub(crate) keep_text: bool,
    /// The objects applied together with the file's — those of every manifest of its
    /// directory — when they hold a PodDisruptionBudget or HorizontalPodAutoscaler to match
    /// across files ([`super::scopes`]); `None`: the file is its own scope.
    pub(crate) scope: Option<Arc<Scope>>,
    /// Why the file is its own scope though its directory holds a budget or an autoscaler:
    /// two of its files hold an object of the same kind, namespace and name, so they are
    /// alternatives (golden outputs, variants), not one deployment (`--show-files` says so).
    pub(crate) alone_because: Option<Arc<str>>,
    /// The file's text is known to name no PodDisruptionBudget or HorizontalPodAutoscaler
    /// (discovery read it to classify it), so deciding its directory's scope need not read it.
    pub(crate) names_no_scope: bool,
    /// A walked file that holds a placeholder of another tool: a template, not reported, if
    /// its lint finds it fails to parse at one ([`crate::discovery::classify::template_at`]).
    pub(crate) unless_template: bool,
}

impl FilePlan {
    /// The plan of a file linted alone with `settings`, as `role`, with nothing else asked: its
    /// own scope, the default fail level (warnings), its whole text kept in its report. For
    /// the tests, the benchmarks and the fuzz targets.
    #[cfg(feature = "testing")]
    pub fn new(settings: Settings, role: FileRole) -> FilePlan {
        FilePlan {
            settings,
            fail_at: FailOn::Warning.threshold(),
            role,
            keep_text: true,
            scope: None,
            alone_because: None,
            names_no_scope: false,
            unless_template: false,
        }
    }
}

impl RunOptions {
    /// The settings and fail level for a file: its configuration's, with these options on top,
    /// less the configuration's `per-path-ignores` for the file (`None`: standard input without
    /// a name).
    pub(crate) fn file_plan(
        &self,
        config: Option<&Config>,
        path: Option<&Path>,
        role: FileRole,
    ) -> FilePlan {
        FilePlan {
            settings: self.settings(config, path),
            fail_at: self.fail_on(config).threshold(),
            role,
            keep_text: self.keep_text,
            scope: None,
            alone_because: None,
            names_no_scope: false,
            unless_template: false,
        }
    }

    /// The settings for a file under `config`.
    pub(crate) fn settings(&self, config: Option<&Config>, path: Option<&Path>) -> Settings {
        let settings = match config {
            None => config::settings_without_config(&self.selection, self.kube_version),
            Some(config) => config.settings_for_file(&self.selection, self.kube_version, path),
        };
        match &self.platforms {
            Some(platforms) => settings.with_platforms(platforms.clone()),
            None => settings,
        }
    }

    /// The fail level: `--fail-on`, else the configuration's, else warnings.
    pub(crate) fn fail_on(&self, config: Option<&Config>) -> FailOn {
        self.fail_on
            .or(config.and_then(|c| c.fail_on))
            .unwrap_or(FailOn::Warning)
    }

    /// Whether `--exclude` or the configuration's `exclude` matches a path.
    pub(crate) fn excludes(&self, config: Option<&Config>, path: &Path) -> bool {
        excluded(&self.walk.exclude, path) || config.is_some_and(|c| c.excludes(path))
    }

    /// Whether a file is left out: one named on the command line only with `--force-exclude`,
    /// one found by walking when its configuration excludes it (`--exclude` kept it out of the
    /// walk already).
    pub(crate) fn leaves_out(&self, config: Option<&Config>, path: &Path, named: bool) -> bool {
        if named {
            self.walk.force_exclude && self.excludes(config, path)
        } else {
            config.is_some_and(|c| c.excludes(path))
        }
    }
}
