//! Which rules run, at what severity.

use crate::diagnostics::Severity;
use crate::rules::{ALL_RULES, Category, Rule};
use crate::suggest::did_you_mean;
use crate::versions::{KubeVersion, NEWEST_MODELLED};

/// The resolved rule selection for a run.
#[derive(Clone, Debug)]
pub struct Settings {
    enabled: Vec<&'static Rule>,
    /// The cluster version rules judge the manifest for.
    pub kube_version: KubeVersion,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            enabled: ALL_RULES
                .iter()
                .copied()
                .filter(|r| r.enabled_by_default())
                .collect(),
            kube_version: NEWEST_MODELLED,
        }
    }
}

/// A rule name, a category name, or `all`, as given to `--select` and `--ignore`.
#[derive(Clone, Copy, Debug)]
pub enum Selector {
    All,
    Category(Category),
    Rule(&'static Rule),
}

impl Selector {
    pub fn parse(text: &str) -> Result<Selector, String> {
        if text == "all" {
            return Ok(Selector::All);
        }
        if let Some(category) = Category::from_name(text) {
            return Ok(Selector::Category(category));
        }
        if let Some(rule) = ALL_RULES.iter().find(|r| r.name == text) {
            return Ok(Selector::Rule(rule));
        }
        let names: Vec<&str> = ALL_RULES
            .iter()
            .map(|r| r.name)
            .chain(Category::ALL.iter().map(|c| c.as_str()))
            .collect();
        Err(match did_you_mean(text, &names) {
            Some(suggestion) => {
                format!("unknown rule or category `{text}`; did you mean `{suggestion}`?")
            }
            None => format!("unknown rule or category `{text}`; `podcycle rules` lists them"),
        })
    }

    fn matches(self, rule: &Rule) -> bool {
        match self {
            Selector::All => true,
            Selector::Category(category) => rule.category == category,
            Selector::Rule(selected) => selected.name == rule.name,
        }
    }
}

impl Settings {
    /// `select` replaces the default set when given; `extend_select` adds to it; `ignore`
    /// removes from the result.
    pub fn from_selectors(
        select: &[Selector],
        extend_select: &[Selector],
        ignore: &[Selector],
    ) -> Settings {
        let base: Vec<&'static Rule> = if select.is_empty() {
            Settings::default().enabled
        } else {
            ALL_RULES
                .iter()
                .copied()
                .filter(|r| select.iter().any(|s| s.matches(r)))
                .collect()
        };
        let enabled = ALL_RULES
            .iter()
            .copied()
            .filter(|r| {
                base.iter().any(|b| b.name == r.name) || extend_select.iter().any(|s| s.matches(r))
            })
            .filter(|r| !ignore.iter().any(|s| s.matches(r)))
            .collect();
        Settings {
            enabled,
            kube_version: NEWEST_MODELLED,
        }
    }

    /// The same selection, judged for another Kubernetes version.
    #[must_use]
    pub fn with_kube_version(mut self, version: KubeVersion) -> Settings {
        self.kube_version = version;
        self
    }

    /// Only the named rule; for tests and fixtures.
    pub fn only(name: &str) -> Option<Settings> {
        let rule = ALL_RULES.iter().copied().find(|r| r.name == name)?;
        Some(Settings {
            enabled: vec![rule],
            kube_version: NEWEST_MODELLED,
        })
    }

    /// The rule, when it is enabled.
    pub fn enabled(&self, name: &str) -> Option<&'static Rule> {
        self.enabled.iter().copied().find(|r| r.name == name)
    }

    pub fn rules(&self) -> impl Iterator<Item = &'static Rule> + '_ {
        self.enabled.iter().copied()
    }

    pub fn severity(&self, rule: &Rule) -> Severity {
        rule.default_severity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(settings: &Settings) -> Vec<&'static str> {
        settings.rules().map(|r| r.name).collect()
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
    fn unknown_selectors_suggest_a_name() {
        let error = Selector::parse("init-container-probes").unwrap_err();
        assert!(
            error.contains("did you mean `init-container-probe`?"),
            "{error}"
        );
        assert!(
            Selector::parse("suspicous")
                .unwrap_err()
                .contains("`suspicious`")
        );
    }
}
