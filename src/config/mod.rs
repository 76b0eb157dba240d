//! The configuration file, `.podcycle.yaml`: found by walking up from each linted file (the
//! nearest wins), read through the same YAML layer as manifests, and checked with exact
//! locations in the file.

mod check;
mod schema;
mod starter;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{GlobMatcher, GlobSet};
use schemars::JsonSchema;
use serde::Deserialize;

pub use schema::json_schema;
#[cfg(test)]
pub(crate) use starter::STARTER;
pub(crate) use starter::starter_for;

use crate::diagnostics::Severity;
use crate::lifecycle::Sidecars;
use crate::model::custom::PodTemplateKinds;
use crate::model::path::{FieldPath, PathSegment};
use crate::render::kustomize::LoadRestrictor;
use crate::rules::Rule;
use crate::safe_fs::{self, FileKind};
use crate::settings::{FailOn, Selection, Selector, Settings};
use crate::source::{SourceFile, Span};
use crate::suggest::did_you_mean_help;
use crate::versions::KubeVersion;
use crate::yaml::{self, lookup};

/// The names a configuration file may have, in order of preference.
pub(crate) const FILE_NAMES: [&str; 2] = [".podcycle.yaml", ".podcycle.yml"];

/// Where the committed schema of the file is published; `podcycle init` points editors at it.
pub(crate) const SCHEMA_URL: &str =
    "https://raw.githubusercontent.com/podcycle/podcycle/main/docs/schema/podcycle.schema.json";

/// The configuration file as written. Every key is optional; rule names, globs and severities
/// are checked after reading, so that each problem points at its own place in the file.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
#[schemars(
    title = "podcycle configuration",
    description = "The configuration file of podcycle, the Kubernetes manifest linter that understands the Pod lifecycle: `.podcycle.yaml`, found by walking up from each linted file. Command-line flags override it."
)]
pub(crate) struct ConfigFile {
    /// The Kubernetes version of the cluster the manifests are for, as `MAJOR.MINOR` or
    /// `MAJOR.MINOR.PATCH` (for example `"1.33"` or `"1.35.2"`; a leading `v` is allowed). A minor
    /// alone means its newest patch release. Quote it: YAML reads `1.30` as the number 1.3.
    #[schemars(regex(pattern = r"^v?[0-9]+\.[0-9]+(\.[0-9]+([-+].+)?)?$"))]
    pub(crate) kube_version: Option<String>,
    /// Rules or categories to run instead of the default set (`correctness`, `suspicious` and
    /// `advice`); `all` selects every rule.
    #[schemars(schema_with = "schema::selectors")]
    pub(crate) select: Option<Vec<String>>,
    /// Rules or categories to run in addition to `select`.
    #[schemars(schema_with = "schema::selectors")]
    pub(crate) extend_select: Option<Vec<String>>,
    /// Rules or categories not to run.
    #[schemars(schema_with = "schema::selectors")]
    pub(crate) ignore: Option<Vec<String>>,
    /// The severity of a rule's findings, replacing its default: `error`, `warning` or `info`.
    #[schemars(schema_with = "schema::severities")]
    pub(crate) severity: Option<BTreeMap<String, String>>,
    /// Exit with status 1 when a finding at or above this severity is reported (default
    /// `warning`); `never` always exits 0 unless a file cannot be read.
    #[schemars(schema_with = "schema::fail_on")]
    pub(crate) fail_on: Option<String>,
    /// Globs of files and directories not to lint when walking directories, relative to this
    /// file's directory, replacing the default excludes (`testdata`, `golden`, `*.golden.*` and
    /// the directories of test harnesses' cases): `[]` lints them too. A glob without `/` also matches a file or directory name anywhere
    /// (`vendor`). Files named on the command line are still linted unless `--force-exclude` is
    /// given.
    pub(crate) exclude: Option<Vec<String>>,
    /// Globs of files and directories not to lint, besides `exclude` (or the default
    /// excludes, when `exclude` is not set).
    pub(crate) extend_exclude: Option<Vec<String>>,
    /// Rules or categories not to run for the files a glob matches (relative to this file's
    /// directory, or a file name).
    #[schemars(schema_with = "schema::per_path_ignores")]
    pub(crate) per_path_ignores: Option<BTreeMap<String, Vec<String>>>,
    /// Containers in `containers` that count as sidecars by name or image, besides the
    /// built-in list (docs/configuration.md, "Sidecars").
    pub(crate) sidecars: Option<Vec<SidecarEntry>>,
    /// How the Helm charts under this file are rendered: release, namespace and values files
    /// per chart. Charts not listed are rendered with their own `values.yaml` only.
    pub(crate) helm: Option<HelmSection>,
    /// How the Kustomize overlays under this file are built.
    pub(crate) kustomize: Option<KustomizeSection>,
    /// `true`: exit with status 1 when any chart or overlay cannot be rendered (Helm or
    /// Kustomize missing, a dependency not vendored, a remote base). `false`: never, only a
    /// warning. Unset: only when a file named on the command line (pre-commit's changed
    /// files) is checked through a chart or overlay that cannot be rendered.
    pub(crate) fail_on_unrendered: Option<bool>,
    /// Custom workload kinds whose pod templates are linted, besides the built-in ones (Argo
    /// Rollouts and Workflows, OpenKruise, Knative, KEDA, Kubeflow, Ray).
    pub(crate) pod_templates: Option<Vec<PodTemplateEntry>>,
    /// How long, in seconds, a StatefulSet's rollout may certainly take before
    /// `statefulset-rollout-exceeds-budget` reports it: what your deploys wait for (`helm
    /// upgrade --wait --timeout`, a pipeline's `kubectl rollout status --timeout`). Default 300,
    /// Helm's default timeout.
    #[schemars(range(min = 1))]
    pub(crate) rollout_budget_seconds: Option<i64>,
    /// The platforms that stop this cluster's pods, whose notices, grace caps and drain
    /// timeouts shutdown plans are judged against (docs/platforms.md): `gke-spot`,
    /// `aws-spot`, `cluster-autoscaler`, ... Pods whose spec selects or tolerates Spot or
    /// preemptible nodes are judged against that platform without it.
    pub(crate) platforms: Option<Vec<String>>,
}

/// A custom kind and where its pod templates are.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub(crate) struct PodTemplateEntry {
    /// The kind's `apiVersion` (`example.com/v1`); any version of its group matches.
    #[serde(rename = "apiVersion")]
    pub(crate) api_version: String,
    pub(crate) kind: String,
    /// The path to each pod template (a mapping with `metadata` and `spec`, like a
    /// Deployment's `spec.template`); `[*]` stands for every list item and `*` for every value
    /// of a mapping: `spec.workers[*].template`.
    pub(crate) path: String,
    /// The built-in kind whose rules the pods follow — their allowed restart policy and whether
    /// they run forever or to completion: `Deployment`, `StatefulSet`, `DaemonSet`, `Job` or
    /// `Pod` (the default: no constraint from a controller).
    pub(crate) like: Option<String>,
}

/// Kustomize settings.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct KustomizeSection {
    /// Kustomize's `--load-restrictor`: `LoadRestrictionsRootOnly` (the default, Kustomize's)
    /// lets a kustomization load files only in or below its directory;
    /// `LoadRestrictionsNone` lets it load files elsewhere in the repository (podcycle still
    /// refuses files outside the repository, in `.git`, or behind a link that leaves it).
    pub(crate) load_restrictor: Option<LoadRestrictor>,
}

/// Helm settings.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct HelmSection {
    /// Charts and how to render each; a chart may be listed more than once (one rendering
    /// per entry, e.g. for two environments).
    pub(crate) charts: Option<Vec<ChartEntry>>,
}

/// One way to render one chart.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ChartEntry {
    /// The chart's directory, relative to this file's directory.
    pub(crate) path: String,
    /// The release name (`helm template RELEASE`); default `release-name`, as Helm's.
    pub(crate) release: Option<String>,
    /// The namespace to render for (`--namespace`).
    pub(crate) namespace: Option<String>,
    /// Values files after the chart's own `values.yaml`, relative to this file's directory,
    /// in order (`--values`).
    pub(crate) values: Option<Vec<String>>,
}

/// How one chart is rendered, with paths resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChartSettings {
    pub(crate) dir: PathBuf,
    pub(crate) release: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) values: Vec<PathBuf>,
}

/// Patterns that identify a sidecar container. Give `names`, `images` or both.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct SidecarEntry {
    /// What the sidecar is, for people reading the file.
    pub(crate) description: Option<String>,
    /// Container names (globs: `*-proxy`).
    pub(crate) names: Option<Vec<String>>,
    /// Image repositories without registry host, tag or digest, matched at the end of the
    /// image's repository (globs: `mesh/proxy`, `*/envoy`).
    pub(crate) images: Option<Vec<String>>,
}

/// A configuration file, read and checked.
#[derive(Debug)]
pub struct Config {
    /// The file, as found.
    pub(crate) path: PathBuf,
    /// The directory its globs are relative to.
    pub(crate) root: PathBuf,
    /// The cluster version rules judge manifests for (`--kube-version` overrides it).
    pub(crate) kube_version: Option<KubeVersion>,
    pub(crate) selection: Selection,
    pub(crate) severities: Vec<(&'static Rule, Severity)>,
    pub(crate) fail_on: Option<FailOn>,
    /// `exclude`; `None`: the default excludes apply.
    exclude: Option<GlobSet>,
    /// `extend-exclude`.
    extend_exclude: GlobSet,
    per_path_ignores: Vec<(GlobMatcher, Vec<Selector>)>,
    pub(crate) sidecars: Arc<Sidecars>,
    /// Helm charts and how to render them (paths relative to `root`).
    charts: Vec<ChartSettings>,
    pub(crate) pod_templates: Arc<PodTemplateKinds>,
    pub(crate) fail_on_unrendered: Option<bool>,
    /// `kustomize.load-restrictor`.
    pub(crate) load_restrictor: Option<LoadRestrictor>,
    /// `rollout-budget-seconds`.
    pub(crate) rollout_budget_seconds: Option<i64>,
    /// `platforms`.
    pub(crate) platforms: Option<Vec<&'static crate::lifecycle::platforms::Platform>>,
}

/// A problem in a configuration file, at a place in it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigProblem {
    pub span: Span,
    pub(crate) message: String,
    pub(crate) help: Option<String>,
}

/// Why a configuration file cannot be used.
#[derive(Debug)]
pub(crate) enum ConfigError {
    /// It cannot be read.
    Unreadable { path: PathBuf, message: String },
    /// It can be read, and these problems are in it.
    Invalid {
        /// Boxed: the file is large, and `Result`s carry this error.
        file: Box<SourceFile>,
        problems: Vec<ConfigProblem>,
    },
}

impl ConfigError {
    /// The configuration file's path.
    pub(crate) fn path(&self) -> &str {
        match self {
            ConfigError::Unreadable { path, .. } => path.to_str().unwrap_or("the configuration"),
            ConfigError::Invalid { file, .. } => &file.path,
        }
    }

    /// One line that says what is wrong, for a place with no room for snippets (an editor's
    /// message): the first problem with its line, and how many more there are.
    pub(crate) fn summary(&self) -> String {
        match self {
            ConfigError::Unreadable { path, message } => {
                format!("cannot read configuration {}: {message}", path.display())
            }
            ConfigError::Invalid { file, problems } => {
                let Some(first) = problems.first() else {
                    return format!("invalid configuration {}", file.path);
                };
                let at = file.line_col(first.span.start);
                let more = match problems.len() - 1 {
                    0 => String::new(),
                    1 => " (and 1 more problem)".to_owned(),
                    n => format!(" (and {n} more problems)"),
                };
                format!(
                    "invalid configuration {}:{}:{}: {}{more}",
                    file.path, at.line, at.column, first.message
                )
            }
        }
    }
}

impl Config {
    /// Reads the configuration file at `path`; its globs are relative to its directory.
    pub(crate) fn load(path: &Path) -> Result<Config, ConfigError> {
        let root = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        Config::load_at(path, root)
    }

    /// Reads the configuration file at `path`; its globs are relative to `root` (a copy kept
    /// outside the repository it configures: CI's copy of the base branch's).
    pub(crate) fn load_at(path: &Path, root: &Path) -> Result<Config, ConfigError> {
        let unreadable = |message: String| ConfigError::Unreadable {
            path: path.to_owned(),
            message,
        };
        let bytes = safe_fs::read_file(path, FileKind::Config)
            .map_err(|error| unreadable(error.to_string()))?;
        let text = String::from_utf8(bytes).map_err(|error| {
            unreadable(format!(
                "not UTF-8 (byte {} is not valid UTF-8)",
                error.utf8_error().valid_up_to() + 1
            ))
        })?;
        let root = root.to_owned();
        let file = SourceFile::new(path.display().to_string(), text);
        match parse_at(&file, &root) {
            Ok(config) => Ok(Config {
                path: path.to_owned(),
                root,
                ..config
            }),
            Err(problems) => Err(ConfigError::Invalid {
                file: Box::new(file),
                problems,
            }),
        }
    }

    /// The settings for files under this configuration, with `cli` applied on top.
    pub(crate) fn settings(&self, cli: &Selection) -> Settings {
        let mut settings = Settings::default()
            .with_selection(&self.selection)
            .with_selection(cli)
            .with_sidecars(Arc::clone(&self.sidecars))
            .with_pod_templates(Arc::clone(&self.pod_templates));
        if let Some(seconds) = self.rollout_budget_seconds {
            settings.rollout_budget_seconds = seconds;
        }
        if let Some(platforms) = &self.platforms {
            settings = settings.with_platforms(platforms.clone());
        }
        for &(rule, severity) in &self.severities {
            settings = settings.with_severity(rule, severity);
        }
        settings
    }

    /// The settings for one file: [`Config::settings`], less what `per-path-ignores` turns off
    /// for it, judged for `kube_version` (the command line's) or else the configuration's
    /// `kube-version`.
    pub(crate) fn settings_for_file(
        &self,
        cli: &Selection,
        kube_version: Option<KubeVersion>,
        path: Option<&Path>,
    ) -> Settings {
        let settings = self.settings(cli);
        let settings = match path {
            Some(path) => settings.without(&self.ignored_for(path)),
            None => settings,
        };
        judged_for(settings, kube_version.or(self.kube_version))
    }

    /// The ways to render the chart in `dir` (none listed: one, with the chart's defaults).
    pub(crate) fn charts_for(&self, dir: &Path) -> Vec<ChartSettings> {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
        let wanted = absolute(dir);
        self.charts
            .iter()
            .filter(|chart| absolute(&self.root.join(&chart.dir)) == wanted)
            .map(|chart| ChartSettings {
                dir: dir.to_owned(),
                release: chart.release.clone(),
                namespace: chart.namespace.clone(),
                values: chart.values.iter().map(|v| self.root.join(v)).collect(),
            })
            .collect()
    }

    /// The charts (directories, under the configuration's root) whose `helm.charts` entries
    /// render them with `values` among their values files.
    pub(crate) fn charts_reading_values(&self, values: &Path) -> Vec<PathBuf> {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
        let wanted = crate::render::boundary::normalize(&absolute(values));
        self.charts
            .iter()
            .filter(|chart| {
                chart.values.iter().any(|v| {
                    crate::render::boundary::normalize(&absolute(&self.root.join(v))) == wanted
                })
            })
            .map(|chart| self.root.join(&chart.dir))
            .collect()
    }

    /// Whether `exclude` or `extend-exclude` matches the file (or a directory it is in); the
    /// default excludes are [`Config::keeps_default_excludes`].
    pub(crate) fn excludes(&self, path: &Path) -> bool {
        let relative = self.relative(path);
        let sets = self.exclude.iter().chain([&self.extend_exclude]);
        sets.into_iter()
            .any(|set| path_matches(&relative, |p| set.is_match(p)))
    }

    /// Whether the default excludes apply under this configuration: `exclude` replaces them.
    pub(crate) fn keeps_default_excludes(&self) -> bool {
        self.exclude.is_none()
    }

    /// The rules and categories `per-path-ignores` turns off for the file.
    pub(crate) fn ignored_for(&self, path: &Path) -> Vec<Selector> {
        let relative = self.relative(path);
        self.per_path_ignores
            .iter()
            .filter(|(glob, _)| path_matches(&relative, |p| glob.is_match(p)))
            .flat_map(|(_, selectors)| selectors.iter().copied())
            .collect()
    }

    /// The path relative to the configuration's directory, when it is under it.
    fn relative(&self, path: &Path) -> PathBuf {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
        let path = absolute(path);
        match path.strip_prefix(absolute(&self.root)) {
            Ok(relative) => relative.to_owned(),
            Err(_) => path,
        }
    }
}

/// Whether a glob matches the path, a directory the path is in, or the name of either.
fn path_matches(path: &Path, is_match: impl Fn(&Path) -> bool) -> bool {
    path.ancestors()
        .filter(|p| !p.as_os_str().is_empty())
        .any(|p| is_match(p) || p.file_name().is_some_and(|name| is_match(Path::new(name))))
}

/// The settings where no configuration file applies: the defaults with `cli` on top, judged for
/// `kube_version` when one is given.
pub(crate) fn settings_without_config(
    cli: &Selection,
    kube_version: Option<KubeVersion>,
) -> Settings {
    judged_for(Settings::default().with_selection(cli), kube_version)
}

fn judged_for(settings: Settings, kube_version: Option<KubeVersion>) -> Settings {
    match kube_version {
        Some(version) => settings.with_kube_version(version),
        None => settings,
    }
}

/// The nearest configuration file in `dir` or a directory above it; relative to the current
/// directory when it is under it, so that messages name it as the user would.
pub(crate) fn find(dir: &Path) -> Option<PathBuf> {
    let dir = std::path::absolute(dir).ok()?;
    let found = dir.ancestors().find_map(|dir| {
        FILE_NAMES
            .iter()
            .map(|name| dir.join(name))
            // Whatever the name is — a link, a FIFO — it is the configuration; reading it says
            // what is wrong with it, rather than skipping it for the defaults.
            .find(|path| path.symlink_metadata().is_ok())
    })?;
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| found.strip_prefix(cwd).ok().map(Path::to_owned));
    Some(relative.unwrap_or(found))
}

/// Reads and checks a configuration file; its globs are taken as relative to the current
/// directory, and `Config::load` sets the real place.
pub fn parse(file: &SourceFile) -> Result<Config, Vec<ConfigProblem>> {
    parse_at(file, Path::new("."))
}

/// Reads and checks a configuration file whose paths are relative to `root`.
fn parse_at(file: &SourceFile, root: &Path) -> Result<Config, Vec<ConfigProblem>> {
    let (raw, document, mut problems) = read(file)?;
    // What could be read is checked too, so that every problem of the file is reported at once.
    let mut checker = check::Checker::new(&document, root);
    let config = checker.check(raw);
    problems.extend(checker.into_problems());
    if problems.is_empty() {
        Ok(config)
    } else {
        problems.sort_by_key(|p| p.span);
        Err(problems)
    }
}

/// The YAML of the file, into [`ConfigFile`], with the problems of the values that could not be
/// read (left out of it). A file that is not YAML, or not a mapping, is only its problems.
fn read(
    file: &SourceFile,
) -> Result<(ConfigFile, yaml::Document, Vec<ConfigProblem>), Vec<ConfigProblem>> {
    let mut documents = yaml::parse_stream(&file.text);
    let problem = |span: Span, message: String, help: Option<String>| ConfigProblem {
        span,
        message,
        help,
    };
    if documents.len() > 1 {
        return Err(vec![problem(
            documents[1].span,
            "the configuration must be a single YAML document".to_owned(),
            Some("remove the `---` and everything after it".to_owned()),
        )]);
    }
    let Some(document) = documents.pop() else {
        return Ok((ConfigFile::default(), yaml::Document::default(), Vec::new()));
    };
    let mut problems: Vec<ConfigProblem> = document
        .errors
        .iter()
        .map(|e| problem(e.span, e.message.clone(), None))
        .collect();
    problems.extend(document.duplicate_keys.iter().map(|d| {
        problem(
            d.second,
            format!("duplicate key `{}`", d.key),
            Some("write each key once".to_owned()),
        )
    }));
    if !problems.is_empty() {
        return Err(problems);
    }
    let Some(root) = document.root else {
        return Ok((ConfigFile::default(), document, Vec::new()));
    };
    let mut value =
        yaml::to_json(&document, root).map_err(|e| vec![problem(e.span, e.message, None)])?;
    if value.is_null() {
        return Ok((ConfigFile::default(), document, Vec::new()));
    }
    if !value.is_object() {
        return Err(vec![problem(
            document.node(root).span,
            "the configuration must be a mapping of keys to values".to_owned(),
            Some("start with `podcycle init` for a commented example".to_owned()),
        )]);
    }
    // serde stops at the first value it cannot read: report it, leave the key that holds it out,
    // and read again, until the rest reads.
    let mut problems = Vec::new();
    loop {
        match serde_path_to_error::deserialize::<_, ConfigFile>(&value) {
            Ok(config) => return Ok((config, document, problems)),
            Err(error) => {
                let path = json_path(error.path());
                let message = error.inner().to_string();
                problems.push(serde_problem(&document, &path, &message));
                let left_out = leave_out(&mut value, &path, unknown_key(&message));
                if !left_out || problems.len() >= MAX_PROBLEMS {
                    return Err(problems);
                }
            }
        }
    }
}

/// Past this many problems in one file, the rest are not looked for.
const MAX_PROBLEMS: usize = 100;

/// The key an "unknown field" error names.
fn unknown_key(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(name, _)| name)
}

/// Removes from `value` the key that holds what `path` points at (`unknown`: that key, under
/// `path` or beside its last segment); whether there was one.
fn leave_out(value: &mut serde_json::Value, path: &[PathSegment], unknown: Option<&str>) -> bool {
    let (parent, key) = match unknown {
        Some(name) => match path.split_last() {
            Some((PathSegment::Key(last), parent)) if last == name => (parent, name),
            _ => (path, name),
        },
        None => {
            let Some(at) = path.iter().rposition(|s| matches!(s, PathSegment::Key(_))) else {
                return false;
            };
            let PathSegment::Key(key) = &path[at] else {
                return false;
            };
            (&path[..at], key.as_str())
        }
    };
    let mut node = value;
    for segment in parent {
        let next = match segment {
            PathSegment::Key(key) => node.get_mut(key.as_str()),
            PathSegment::Index(index) => node.get_mut(*index),
        };
        let Some(next) = next else {
            return false;
        };
        node = next;
    }
    node.as_object_mut()
        .is_some_and(|object| object.remove(key).is_some())
}

fn json_path(path: &serde_path_to_error::Path) -> Vec<PathSegment> {
    use serde_path_to_error::Segment;
    path.iter()
        .filter_map(|segment| match segment {
            Segment::Map { key } => Some(PathSegment::Key(key.clone())),
            Segment::Seq { index } => Some(PathSegment::Index(*index)),
            Segment::Enum { .. } | Segment::Unknown => None,
        })
        .collect()
}

/// A serde error, located and said in the file's terms.
fn serde_problem(document: &yaml::Document, path: &[PathSegment], message: &str) -> ConfigProblem {
    let Some(root) = document.root else {
        return ConfigProblem {
            span: document.span,
            message: message.to_owned(),
            help: None,
        };
    };
    if let Some(rest) = message.strip_prefix("unknown field `") {
        let (name, expected) = rest.split_once('`').unwrap_or((rest, ""));
        // `expected one of `a`, `b`` lists the known keys between backticks.
        let known: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
        let help = did_you_mean_help(name, &known)
            .unwrap_or_else(|| format!("the keys here are {}", quoted_list(&known)));
        let parent = match path.split_last() {
            Some((PathSegment::Key(last), parent)) if last == name => parent,
            _ => path,
        };
        let place = match parent {
            [.., PathSegment::Key(key), PathSegment::Index(_)] => format!(" in a `{key}` entry"),
            [.., PathSegment::Key(key)] => format!(" in `{key}`"),
            _ => String::new(),
        };
        let located = lookup(document, root, parent);
        let span = document
            .mapping(located.node)
            .and_then(|entries| {
                entries
                    .iter()
                    .find(|&&(k, _)| document.scalar_str(k) == Some(name))
            })
            .map_or(located.value, |&(k, _)| document.node(k).span);
        return ConfigProblem {
            span,
            message: format!("unknown key `{name}`{place}"),
            help: Some(help),
        };
    }
    let located = lookup(document, root, path);
    let span = if located.complete {
        located.value
    } else {
        located.key.unwrap_or(located.value)
    };
    let field = FieldPath::new(path.to_vec());
    // Name what was written: `1.29` or `y`, not an example.
    let written = located
        .complete
        .then(|| document.scalar(located.node))
        .flatten()
        .map(|scalar| scalar.value.to_string());
    let scalar = [
        "invalid type: boolean",
        "invalid type: integer",
        "invalid type: floating",
    ]
    .iter()
    .any(|written| message.starts_with(written));
    let help = (scalar && message.contains("expected a string")).then(|| {
        let what = if message.starts_with("invalid type: boolean") {
            "a boolean"
        } else {
            "a number"
        };
        match written {
            Some(written) => {
                format!(
                    "quote the value: `\"{written}\"`; unquoted, YAML reads `{written}` as {what}"
                )
            }
            None => format!("quote the value: unquoted, YAML reads it as {what}"),
        }
    });
    ConfigProblem {
        span,
        message: format!("`{field}`: {}", crate::rules::friendly_type_error(message)),
        help,
    }
}

fn quoted_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests;
