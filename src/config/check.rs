//! What serde cannot check in a configuration file: versions, rule names, severities, fail
//! levels and globs. One method per key; each problem points at its own place in the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};

use super::{
    ChartSettings, Config, ConfigFile, ConfigProblem, HelmSection, PodTemplateEntry, SidecarEntry,
};
use crate::diagnostics::Severity;
use crate::lifecycle::{SidecarPattern, Sidecars};
use crate::model::WorkloadKind;
use crate::model::custom::{self, PodTemplateKind, PodTemplateKinds, Shape};
use crate::model::path::FieldPath;

/// The kinds a custom kind's pods can be linted like.
const LIKE_KINDS: [WorkloadKind; 7] = [
    WorkloadKind::Deployment,
    WorkloadKind::StatefulSet,
    WorkloadKind::DaemonSet,
    WorkloadKind::ReplicaSet,
    WorkloadKind::ReplicationController,
    WorkloadKind::Job,
    WorkloadKind::Pod,
];
use crate::render::boundary::{Boundary, normalize};
use crate::render::helm::{invalid_namespace, invalid_release};
use crate::rules::{ALL_RULES, Part, Rule, rules_named};
use crate::settings::{FailOn, Selection, Selector};
use crate::source::Span;
use crate::suggest::did_you_mean_help;
use crate::versions::KubeVersion;
use crate::yaml::{self, lookup};

pub(super) struct Checker<'d> {
    document: &'d yaml::Document,
    /// The directory the file's paths are relative to.
    root: &'d Path,
    problems: Vec<ConfigProblem>,
}

impl<'d> Checker<'d> {
    pub(super) fn new(document: &'d yaml::Document, root: &'d Path) -> Checker<'d> {
        Checker {
            document,
            root,
            problems: Vec::new(),
        }
    }

    pub(super) fn into_problems(self) -> Vec<ConfigProblem> {
        self.problems
    }

    /// The configuration, with every key checked; problems are collected, not fatal, so that
    /// one run reports them all.
    pub(super) fn check(&mut self, raw: ConfigFile) -> Config {
        let selection = Selection {
            select: self.selectors(&key("select"), raw.select.as_deref()),
            extend_select: self.selectors(&key("extend-select"), raw.extend_select.as_deref()),
            ignore: self.selectors(&key("ignore"), raw.ignore.as_deref()),
        };
        Config {
            path: PathBuf::new(),
            root: PathBuf::from("."),
            kube_version: self.kube_version(raw.kube_version.as_deref()),
            selection,
            severities: self.severities(raw.severity.as_ref()),
            fail_on: self.fail_on(raw.fail_on.as_deref()),
            exclude: raw
                .exclude
                .as_deref()
                .map(|patterns| self.exclude("exclude", patterns)),
            extend_exclude: self.exclude(
                "extend-exclude",
                raw.extend_exclude.as_deref().unwrap_or_default(),
            ),
            per_path_ignores: self.per_path_ignores(raw.per_path_ignores.as_ref()),
            sidecars: Arc::new(Sidecars::new(self.sidecars(raw.sidecars.as_deref()))),
            charts: self.charts(raw.helm.as_ref()),
            fail_on_unrendered: raw.fail_on_unrendered,
            load_restrictor: raw.kustomize.and_then(|k| k.load_restrictor),
            rollout_budget_seconds: self.rollout_budget(raw.rollout_budget_seconds),
            platforms: self.platforms(raw.platforms.as_deref()),
            pod_templates: Arc::new(PodTemplateKinds::new(
                self.pod_templates(raw.pod_templates.as_deref()),
            )),
        }
    }

    /// `rollout-budget-seconds`: a whole number of seconds, at least 1.
    fn rollout_budget(&mut self, seconds: Option<i64>) -> Option<i64> {
        let seconds = seconds?;
        if seconds >= 1 {
            return Some(seconds);
        }
        self.problem(
            &key("rollout-budget-seconds"),
            Part::Value,
            format!("`rollout-budget-seconds` is {seconds}; it must be at least 1"),
            Some("write how many seconds your deploys wait for a rollout, such as 300".to_owned()),
        );
        None
    }

    /// `platforms`: names from the platforms table; an unknown one is a problem at its item.
    fn platforms(
        &mut self,
        names: Option<&[String]>,
    ) -> Option<Vec<&'static crate::lifecycle::platforms::Platform>> {
        use crate::lifecycle::platforms;
        let names = names?;
        let mut found = Vec::new();
        for (i, name) in names.iter().enumerate() {
            match platforms::platform(name) {
                Some(platform) => found.push(platform),
                None => {
                    let known: Vec<&str> = platforms::names().collect();
                    self.problem(
                        &key("platforms").index(i),
                        Part::Value,
                        format!("unknown platform `{name}`"),
                        Some(format!("the platforms are {}", known.join(", "))),
                    );
                }
            }
        }
        Some(found)
    }

    /// Records a problem at the key or the value of `path`.
    fn problem(&mut self, path: &FieldPath, part: Part, message: String, help: Option<String>) {
        let span = match self.document.root {
            None => Span::empty(0),
            Some(root) => {
                let located = lookup(self.document, root, path.segments());
                match (part, located.key) {
                    (Part::Key, Some(key)) => key,
                    _ => located.value,
                }
            }
        };
        self.problems.push(ConfigProblem {
            span,
            message,
            help,
        });
    }

    fn kube_version(&mut self, version: Option<&str>) -> Option<KubeVersion> {
        match version?.parse::<KubeVersion>() {
            Ok(parsed) => Some(parsed),
            Err(bad) => {
                self.problem(
                    &key("kube-version"),
                    Part::Value,
                    bad.to_string(),
                    Some("write it as `MAJOR.MINOR` or `MAJOR.MINOR.PATCH` in quotes, e.g. `\"1.33\"` or `\"1.35.2\"`".to_owned()),
                );
                None
            }
        }
    }

    /// Rule and category names (`select`, `ignore`, a `per-path-ignores` entry).
    fn selectors(&mut self, path: &FieldPath, names: Option<&[String]>) -> Vec<Selector> {
        let mut parsed = Vec::new();
        for (index, name) in names.unwrap_or_default().iter().enumerate() {
            match Selector::parse(name) {
                Ok(selector) => parsed.push(selector),
                Err(unknown) => {
                    self.problem(
                        &path.index(index),
                        Part::Value,
                        unknown.problem(),
                        Some(unknown.help),
                    );
                }
            }
        }
        parsed
    }

    fn severities(
        &mut self,
        severities: Option<&BTreeMap<String, String>>,
    ) -> Vec<(&'static Rule, Severity)> {
        let mut checked = Vec::new();
        for (name, severity) in severities.into_iter().flatten() {
            let path = key("severity").key(name);
            let rules = rules_named(name);
            if rules.is_empty() {
                let names: Vec<&str> = ALL_RULES.iter().map(|r| r.name).collect();
                self.problem(
                    &path,
                    Part::Key,
                    format!("unknown rule `{name}`"),
                    Some(suggestion(name, &names, "`podcycle rules` lists the rules")),
                );
            }
            match severity.parse::<Severity>() {
                Ok(severity) => checked.extend(rules.iter().map(|&r| (r, severity))),
                Err(_) => self.problem(
                    &path,
                    Part::Value,
                    format!("unknown severity `{severity}`"),
                    Some(suggestion(
                        severity,
                        &["error", "warning", "info"],
                        "use `error`, `warning` or `info`",
                    )),
                ),
            }
        }
        checked
    }

    fn fail_on(&mut self, text: Option<&str>) -> Option<FailOn> {
        let text = text?;
        let parsed = FailOn::from_name(text);
        if parsed.is_none() {
            self.problem(
                &key("fail-on"),
                Part::Value,
                format!("unknown fail level `{text}`"),
                Some(suggestion(
                    text,
                    &FailOn::NAMES,
                    "use `error`, `warning`, `info` or `never`",
                )),
            );
        }
        parsed
    }

    fn exclude(&mut self, name: &str, patterns: &[String]) -> GlobSet {
        let mut exclude = GlobSetBuilder::new();
        for (index, pattern) in patterns.iter().enumerate() {
            if let Some(glob) = self.glob(&key(name).index(index), Part::Value, pattern) {
                exclude.add(glob);
            }
        }
        exclude.build().unwrap_or_else(|_| GlobSet::empty())
    }

    fn per_path_ignores(
        &mut self,
        entries: Option<&BTreeMap<String, Vec<String>>>,
    ) -> Vec<(GlobMatcher, Vec<Selector>)> {
        let mut checked = Vec::new();
        for (pattern, names) in entries.into_iter().flatten() {
            let path = key("per-path-ignores").key(pattern);
            let glob = self.glob(&path, Part::Key, pattern);
            let selectors = self.selectors(&path, Some(names));
            checked.extend(glob.map(|glob| (glob.compile_matcher(), selectors)));
        }
        checked
    }

    fn sidecars(&mut self, entries: Option<&[SidecarEntry]>) -> Vec<SidecarPattern> {
        let mut patterns = Vec::new();
        for (index, entry) in entries.unwrap_or_default().iter().enumerate() {
            let path = key("sidecars").index(index);
            let names = entry.names.as_deref().unwrap_or_default();
            let images = entry.images.as_deref().unwrap_or_default();
            if names.is_empty() && images.is_empty() {
                self.problem(
                    &path,
                    Part::Value,
                    "a sidecar entry needs `names`, `images` or both".to_owned(),
                    Some("e.g. `- names: [mesh-proxy]`".to_owned()),
                );
                continue;
            }
            match SidecarPattern::new(entry.description.as_deref(), names, images) {
                Ok(pattern) => patterns.push(pattern),
                Err((pattern, error)) => {
                    let (list, position) = match names.iter().position(|n| *n == pattern) {
                        Some(i) => ("names", i),
                        None => (
                            "images",
                            images.iter().position(|i| *i == pattern).unwrap_or(0),
                        ),
                    };
                    self.problem(
                        &path.key(list).index(position),
                        Part::Value,
                        format!("invalid glob `{pattern}`: {}", glob_error(&error)),
                        None,
                    );
                }
            }
        }
        patterns
    }

    fn charts(&mut self, helm: Option<&HelmSection>) -> Vec<ChartSettings> {
        let mut charts = Vec::new();
        let entries = helm.iter().flat_map(|h| h.charts.iter().flatten());
        for (index, entry) in entries.enumerate() {
            if entry.path.trim().is_empty() {
                self.problem(
                    &key("helm").key("charts").index(index),
                    Part::Value,
                    "a chart entry needs `path`, the chart's directory".to_owned(),
                    Some("e.g. `- path: charts/web`".to_owned()),
                );
                continue;
            }
            let at = key("helm").key("charts").index(index);
            let mut fine = true;
            // Each becomes an argument of `helm template`: one Helm would refuse, or read as a
            // flag, is a problem here, where it is written.
            let named = [
                (
                    "release",
                    entry.release.as_deref(),
                    invalid_release as fn(&str) -> _,
                ),
                ("namespace", entry.namespace.as_deref(), invalid_namespace),
            ];
            for (field, value, invalid) in named {
                if let Some(problem) = value.and_then(invalid) {
                    self.problem(&at.key(field), Part::Value, problem, None);
                    fine = false;
                }
            }
            let values: Vec<PathBuf> = entry.values.iter().flatten().map(PathBuf::from).collect();
            for (position, path) in values.iter().enumerate() {
                if let Some(problem) = outside_repository(self.root, path) {
                    self.problem(
                        &at.key("values").index(position),
                        Part::Value,
                        problem,
                        Some("name a values file of the repository, relative to this file's directory".to_owned()),
                    );
                    fine = false;
                }
            }
            if fine {
                charts.push(ChartSettings {
                    dir: PathBuf::from(&entry.path),
                    release: entry.release.clone(),
                    namespace: entry.namespace.clone(),
                    values,
                });
            }
        }
        charts
    }

    fn pod_templates(&mut self, entries: Option<&[PodTemplateEntry]>) -> Vec<PodTemplateKind> {
        let mut kinds = Vec::new();
        for (index, entry) in entries.unwrap_or_default().iter().enumerate() {
            let at = key("pod-templates").index(index);
            let mut fine = true;
            for (name, value) in [
                ("apiVersion", &entry.api_version),
                ("kind", &entry.kind),
                ("path", &entry.path),
            ] {
                if value.trim().is_empty() {
                    self.problem(
                        &at,
                        Part::Value,
                        format!("a pod-templates entry needs `{name}`"),
                        Some("e.g. `- {apiVersion: example.com/v1, kind: Widget, path: spec.template, like: Deployment}`".to_owned()),
                    );
                    fine = false;
                }
            }
            if !entry.path.trim().is_empty()
                && let Err(error) = custom::parse_path(&entry.path)
            {
                self.problem(&at.key("path"), Part::Value, error.to_string(), None);
                fine = false;
            }
            let like = match entry.like.as_deref() {
                None => Some(WorkloadKind::Pod),
                Some(name) => {
                    let found = LIKE_KINDS.iter().find(|k| k.name() == name).copied();
                    if found.is_none() {
                        let names: Vec<&str> = LIKE_KINDS.iter().map(|k| k.name()).collect();
                        self.problem(
                            &at.key("like"),
                            Part::Value,
                            format!("unknown kind `{name}`"),
                            Some(suggestion(
                                name,
                                &names,
                                "use Deployment, StatefulSet, DaemonSet, Job or Pod",
                            )),
                        );
                    }
                    found
                }
            };
            if let (true, Some(like)) = (fine, like) {
                let group = entry
                    .api_version
                    .rsplit_once('/')
                    .map_or("", |(group, _)| group)
                    .to_owned();
                kinds.push(PodTemplateKind {
                    group,
                    kind: entry.kind.clone(),
                    paths: vec![entry.path.clone()],
                    like,
                    shape: Shape::PodTemplate,
                    restart_policy: None,
                    restart_policy_key: None,
                    extra_spec_fields: Vec::new(),
                    names_containers: false,
                });
            }
        }
        kinds
    }

    /// A glob, or a problem at the key or value that holds it.
    fn glob(&mut self, path: &FieldPath, part: Part, pattern: &str) -> Option<Glob> {
        match Glob::new(pattern) {
            Ok(glob) => Some(glob),
            Err(error) => {
                self.problem(
                    path,
                    part,
                    format!("invalid glob `{pattern}`: {}", glob_error(&error)),
                    None,
                );
                None
            }
        }
    }
}

/// Why a values file at `path` (relative to the configuration's directory `root`) must not be
/// read, if it must not: it is outside the repository — git's top level above `root`, else
/// `root` itself — or in a `.git` directory, by its name or through a link. A chart prints what
/// its values hold (`{{ fail (toJson .Values) }}`), so a values file is read from the repository
/// only.
fn outside_repository(root: &Path, path: &Path) -> Option<String> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_owned());
    let root = absolute(root);
    let root = root.canonicalize().unwrap_or(root);
    let repository = root
        .ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .unwrap_or(&root);
    let boundary = Boundary::at(repository);
    let shown = crate::render::printable(&path.to_string_lossy());
    let full = normalize(&root.join(path));
    if !full.starts_with(boundary.root()) {
        return Some(format!(
            "values file `{shown}` is outside the repository ({}); podcycle reads values files from the repository only",
            boundary.root().display()
        ));
    }
    if boundary.names_git(&full) {
        return Some(format!(
            "values file `{shown}` is inside a `.git` directory; podcycle does not let renderers read version control data"
        ));
    }
    boundary
        .resolve(&full, &shown)
        .err()
        .map(|escape| format!("values file {escape}"))
}

/// The path of a top-level key.
fn key(name: &str) -> FieldPath {
    FieldPath::default().key(name)
}

fn suggestion(name: &str, candidates: &[&str], otherwise: &str) -> String {
    did_you_mean_help(name, candidates).unwrap_or_else(|| otherwise.to_owned())
}

/// globset's error says which glob; the message already does.
fn glob_error(error: &globset::Error) -> String {
    error.kind().to_string()
}
