//! Which rules run, at what severity, and what the rules take as given (the sidecars known by
//! name or image).

use std::sync::Arc;

use crate::diagnostics::Severity;
use crate::lifecycle::Sidecars;
use crate::lifecycle::platforms::Platform;
use crate::model::custom::PodTemplateKinds;
use crate::rules::{ALL_RULES, Category, Redirect, Rule, find_redirect};
use crate::suggest::did_you_mean_help;
use crate::versions::{KubeVersion, NEWEST_MODELLED};

/// The resolved settings for linting one file.
#[derive(Clone, Debug)]
pub struct Settings {
    enabled: Vec<&'static Rule>,
    /// The cluster version rules judge the manifest for.
    pub kube_version: KubeVersion,
    /// Per-rule severities that replace the defaults.
    severities: Vec<(&'static str, Severity)>,
    sidecars: Arc<Sidecars>,
    /// The custom kinds whose pod templates are linted, besides the built-in table.
    pod_templates: Arc<PodTemplateKinds>,
    /// How long a StatefulSet's rollout may certainly take before
    /// `statefulset-rollout-exceeds-budget` reports it.
    pub rollout_budget_seconds: i64,
    /// The platforms the cluster is (`platforms:`, `--platform`), besides those a pod's spec
    /// puts it on.
    pub(crate) platforms: Vec<&'static Platform>,
}

/// The default rollout budget: Helm's default `--timeout` for `helm install --wait` and `helm
/// upgrade --wait` (helm/helm `pkg/cmd/install.go`, `upgrade.go`: `300*time.Second`), after
/// which the release fails while the rollout goes on.
pub(crate) const DEFAULT_ROLLOUT_BUDGET_SECONDS: i64 = 300;

impl Default for Settings {
    fn default() -> Self {
        Settings {
            enabled: ALL_RULES
                .iter()
                .copied()
                .filter(|r| r.enabled_by_default())
                .collect(),
            kube_version: NEWEST_MODELLED,
            severities: Vec::new(),
            sidecars: Arc::default(),
            pod_templates: Arc::default(),
            rollout_budget_seconds: DEFAULT_ROLLOUT_BUDGET_SECONDS,
            platforms: Vec::new(),
        }
    }
}

/// The least severity that makes `podcycle check` exit with 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FailOn {
    Error,
    Warning,
    Info,
    Never,
}

impl FailOn {
    pub(crate) const NAMES: [&'static str; 4] = ["error", "warning", "info", "never"];
    pub(crate) const ALL: [FailOn; 4] =
        [FailOn::Error, FailOn::Warning, FailOn::Info, FailOn::Never];

    pub(crate) fn name(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Info => "info",
            FailOn::Never => "never",
        }
    }

    pub(crate) fn threshold(self) -> Option<Severity> {
        match self {
            FailOn::Error => Some(Severity::Error),
            FailOn::Warning => Some(Severity::Warning),
            FailOn::Info => Some(Severity::Info),
            FailOn::Never => None,
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<FailOn> {
        match name {
            "error" => Some(FailOn::Error),
            "warning" => Some(FailOn::Warning),
            "info" => Some(FailOn::Info),
            "never" => Some(FailOn::Never),
            _ => None,
        }
    }
}

/// One source of rule selection: the configuration file, or the command line. Later layers
/// apply on top of earlier ones.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Replaces the rules enabled so far, when not empty.
    pub select: Vec<Selector>,
    /// Adds to them.
    pub extend_select: Vec<Selector>,
    /// Removes from the result.
    pub ignore: Vec<Selector>,
}

/// A rule name, a category name, or `all`, as given to `--select` and `--ignore`.
#[derive(Clone, Copy, Debug)]
pub enum Selector {
    All,
    Category(Category),
    Rule(&'static Rule),
    /// A former rule name: the rules that took its checks over.
    Renamed(&'static Redirect),
}

/// A name `--select`, `--ignore` or the configuration gave that is no rule or category, with
/// the advice: the name it is close to, or where to find the names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}; {help}", self.problem())]
pub struct UnknownSelector {
    pub(crate) name: String,
    pub(crate) help: String,
}

impl UnknownSelector {
    /// The problem without the advice, for a diagnostic that shows it as help.
    pub(crate) fn problem(&self) -> String {
        format!("unknown rule or category `{}`", self.name)
    }
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, UnknownSelector> {
        if text == "all" {
            return Ok(Selector::All);
        }
        if let Some(category) = Category::from_name(text) {
            return Ok(Selector::Category(category));
        }
        if let Some(rule) = ALL_RULES.iter().find(|r| r.name == text) {
            return Ok(Selector::Rule(rule));
        }
        if let Some(redirect) = find_redirect(text) {
            return Ok(Selector::Renamed(redirect));
        }
        let names: Vec<&str> = ALL_RULES
            .iter()
            .map(|r| r.name)
            .chain(Category::ALL.iter().map(|c| c.as_str()))
            .collect();
        let help = did_you_mean_help(text, &names)
            .unwrap_or_else(|| "`podcycle rules` lists them".to_owned());
        Err(UnknownSelector {
            name: text.to_owned(),
            help,
        })
    }

    pub(crate) fn matches(self, rule: &Rule) -> bool {
        match self {
            Selector::All => true,
            Selector::Category(category) => rule.category == category,
            Selector::Rule(selected) => selected.name == rule.name,
            Selector::Renamed(redirect) => redirect.to.iter().any(|r| r.name == rule.name),
        }
    }
}

impl Settings {
    /// Everything in the settings that can change what a lint finds, as text: equal
    /// fingerprints lint alike. The render cache keeps, under it, what a render's lint found.
    pub(crate) fn fingerprint(&self) -> String {
        // Destructured, so that a new field cannot be left out.
        let Settings {
            enabled,
            kube_version,
            severities,
            sidecars,
            pod_templates,
            rollout_budget_seconds,
            platforms,
        } = self;
        let names: Vec<&str> = enabled.iter().map(|rule| rule.name).collect();
        let platforms: Vec<&str> = platforms.iter().map(|p| p.name).collect();
        format!(
            "rules {names:?}; kube {kube_version:?}; severities {severities:?}; sidecars {sidecars:?}; pod templates {pod_templates:?}; rollout budget {rollout_budget_seconds}; platforms {platforms:?}"
        )
    }

    /// `select` replaces the default set when given; `extend_select` adds to it; `ignore`
    /// removes from the result.
    pub fn from_selectors(
        select: &[Selector],
        extend_select: &[Selector],
        ignore: &[Selector],
    ) -> Settings {
        Settings::default().with_selection(&Selection {
            select: select.to_vec(),
            extend_select: extend_select.to_vec(),
            ignore: ignore.to_vec(),
        })
    }

    /// Applies a layer of selection to the rules enabled so far.
    #[must_use]
    pub fn with_selection(mut self, selection: &Selection) -> Settings {
        let Selection {
            select,
            extend_select,
            ignore,
        } = selection;
        // Nothing to apply, as for most files of a run (each file's settings are made from
        // the layers that apply to it): the rules stay as they are.
        if select.is_empty() && extend_select.is_empty() && ignore.is_empty() {
            return self;
        }
        let previous = std::mem::take(&mut self.enabled);
        self.enabled = ALL_RULES
            .iter()
            .copied()
            .filter(|r| {
                let base = if select.is_empty() {
                    previous.iter().any(|p| p.name == r.name)
                } else {
                    select.iter().any(|s| s.matches(r))
                };
                base || extend_select.iter().any(|s| s.matches(r))
            })
            .filter(|r| !ignore.iter().any(|s| s.matches(r)))
            .collect();
        self
    }

    /// The same selection, judged for another Kubernetes version.
    #[must_use]
    pub fn with_kube_version(mut self, version: KubeVersion) -> Settings {
        self.kube_version = version;
        self
    }

    /// Disables the rules `ignore` matches.
    #[must_use]
    pub(crate) fn without(self, ignore: &[Selector]) -> Settings {
        self.with_selection(&Selection {
            ignore: ignore.to_vec(),
            ..Selection::default()
        })
    }

    /// Reports `rule` at `severity` instead of its default.
    #[must_use]
    pub(crate) fn with_severity(mut self, rule: &'static Rule, severity: Severity) -> Settings {
        self.severities.retain(|(name, _)| *name != rule.name);
        self.severities.push((rule.name, severity));
        self
    }

    #[must_use]
    pub(crate) fn with_pod_templates(mut self, kinds: Arc<PodTemplateKinds>) -> Settings {
        self.pod_templates = kinds;
        self
    }

    /// The kinds with pod templates: the built-in table and the configuration's.
    pub(crate) fn pod_templates(&self) -> &PodTemplateKinds {
        &self.pod_templates
    }

    #[must_use]
    /// The platforms the cluster is, replacing those set so far.
    pub fn with_platforms(mut self, platforms: Vec<&'static Platform>) -> Settings {
        self.platforms = platforms;
        self
    }

    pub(crate) fn with_sidecars(mut self, sidecars: Arc<Sidecars>) -> Settings {
        self.sidecars = sidecars;
        self
    }

    /// Only the named rule; for tests and fixtures.
    pub fn only(name: &str) -> Option<Settings> {
        let rule = ALL_RULES.iter().copied().find(|r| r.name == name)?;
        Some(Settings {
            enabled: vec![rule],
            ..Settings::default()
        })
    }

    /// The rule, when it is enabled.
    pub(crate) fn enabled(&self, name: &str) -> Option<&'static Rule> {
        self.enabled.iter().copied().find(|r| r.name == name)
    }

    /// Whether `rule` runs. Rules are referred to by value, so a misspelt name cannot turn a
    /// check off without a word.
    pub(crate) fn runs(&self, rule: &'static Rule) -> bool {
        self.enabled.iter().any(|r| std::ptr::eq(*r, rule))
    }

    pub fn rules(&self) -> impl Iterator<Item = &'static Rule> + '_ {
        self.enabled.iter().copied()
    }

    pub(crate) fn severity(&self, rule: &Rule) -> Severity {
        self.severities
            .iter()
            .find(|(name, _)| *name == rule.name)
            .map_or(rule.default_severity, |&(_, severity)| severity)
    }

    pub(crate) fn sidecars(&self) -> &Sidecars {
        &self.sidecars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(settings: &Settings) -> Vec<&'static str> {
        settings.rules().map(|r| r.name).collect()
    }

    #[test]
    fn fingerprints_differ_with_every_setting() {
        let rule = crate::rules::find_rule("duplicate-key").unwrap();
        let pattern = |image: &str| {
            crate::lifecycle::sidecars::SidecarPattern::new(None, &[], &[image.to_owned()]).unwrap()
        };
        let kind = |group: &str| crate::model::custom::PodTemplateKind {
            group: group.into(),
            kind: "Runner".into(),
            paths: vec!["spec.template".into()],
            like: crate::model::WorkloadKind::Deployment,
            shape: crate::model::custom::Shape::PodTemplate,
            restart_policy: None,
            restart_policy_key: None,
            extra_spec_fields: Vec::new(),
            names_containers: false,
        };
        let variants = [
            Settings::default(),
            Settings::default().without(&[Selector::parse("duplicate-key").unwrap()]),
            Settings::default().with_kube_version(KubeVersion::new(27)),
            Settings::default().with_severity(rule, Severity::Info),
            Settings::default().with_sidecars(Arc::new(Sidecars::new(vec![pattern("a/proxy")]))),
            Settings::default().with_sidecars(Arc::new(Sidecars::new(vec![pattern("b/proxy")]))),
            Settings::default()
                .with_pod_templates(Arc::new(PodTemplateKinds::new(vec![kind("a.io")]))),
            Settings::default()
                .with_pod_templates(Arc::new(PodTemplateKinds::new(vec![kind("b.io")]))),
            Settings {
                rollout_budget_seconds: 60,
                ..Settings::default()
            },
            Settings::default().with_platforms(vec![
                crate::lifecycle::platforms::platform("gke-spot").unwrap(),
            ]),
        ];
        let prints: Vec<String> = variants.iter().map(Settings::fingerprint).collect();
        for (i, a) in prints.iter().enumerate() {
            for b in &prints[i + 1..] {
                assert_ne!(a, b);
            }
        }
        assert_eq!(Settings::default().fingerprint(), prints[0], "stable");
    }

    #[test]
    fn select_replaces_and_ignore_removes() {
        let select = [Selector::parse("init-container-probe").unwrap()];
        assert_eq!(
            names(&Settings::from_selectors(&select, &[], &[])),
            ["init-container-probe"]
        );
        let ignore = [Selector::parse("advice").unwrap()];
        let settings = Settings::from_selectors(&[], &[], &ignore);
        assert!(settings.enabled("poststart-delays-containers").is_none());
        assert!(settings.enabled("init-container-probe").is_some());
    }

    #[test]
    fn later_layers_apply_on_top() {
        let rule = |name: &str| Selector::parse(name).unwrap();
        let config = Selection {
            ignore: vec![rule("advice"), rule("duplicate-key")],
            ..Selection::default()
        };
        let cli = Selection {
            extend_select: vec![rule("duplicate-key")],
            ..Selection::default()
        };
        let settings = Settings::default()
            .with_selection(&config)
            .with_selection(&cli);
        assert!(settings.enabled("duplicate-key").is_some());
        assert!(settings.enabled("poststart-delays-containers").is_none());
        let cli = Selection {
            select: vec![rule("advice")],
            ..Selection::default()
        };
        let settings = Settings::default()
            .with_selection(&config)
            .with_selection(&cli);
        // `select` replaces what the configuration chose: every advice rule, nothing else.
        let advice: Vec<&str> = ALL_RULES
            .iter()
            .filter(|r| r.category == Category::Advice)
            .map(|r| r.name)
            .collect();
        assert_eq!(names(&settings), advice);
        assert!(advice.contains(&"poststart-delays-containers"));
    }

    #[test]
    fn severity_overrides_replace_the_default() {
        let rule = crate::rules::find_rule("poststart-delays-containers").unwrap();
        let settings = Settings::default().with_severity(rule, Severity::Error);
        assert_eq!(settings.severity(rule), Severity::Error);
        let other = crate::rules::find_rule("duplicate-key").unwrap();
        assert_eq!(settings.severity(other), Severity::Error);
        assert_eq!(Settings::default().severity(rule), Severity::Info);
    }

    #[test]
    fn unknown_selectors_suggest_a_name() {
        let error = Selector::parse("init-container-probes").unwrap_err();
        assert_eq!(error.name, "init-container-probes");
        assert_eq!(error.help, "did you mean `init-container-probe`?");
        assert_eq!(
            error.to_string(),
            "unknown rule or category `init-container-probes`; did you mean `init-container-probe`?"
        );
        assert!(
            Selector::parse("suspicous")
                .unwrap_err()
                .help
                .contains("`suspicious`")
        );
    }
}
