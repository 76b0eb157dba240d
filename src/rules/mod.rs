//! The rule catalog: metadata, documentation and checks, one file per rule.
//!
//! A rule is declared with `declare_rule!`: its doc comment is its documentation (rendered by
//! `podcycle rule NAME` and into `docs/rules/`), and its metadata says its name, category and
//! check. Registration is one line in [`registry::ALL_RULES`].

mod advice;
mod context;
mod correctness;
mod fixes;
mod pedantic;
mod registry;
mod suspicious;
pub(crate) mod values;

use std::fmt;

pub use context::{Claim, Findings, PodContext, RolloutContext};
pub(crate) use context::{
    DocumentContext, Finding, ObjectContext, Part, Position, ScopeContext, ScopeObject, Target,
};
pub(crate) use correctness::duplicate_key::{
    RULE as DUPLICATE_KEY, for_helm_output as duplicate_key_for_helm,
};
pub(crate) use correctness::invalid_type::friendly_type_error;
pub(crate) use correctness::yaml_syntax::RULE as YAML_SYNTAX;
pub use registry::{ALL_RULES, RUNTIME_ERRORS, find_rule};
pub(crate) use registry::{REDIRECTS, Redirect, find_redirect, rules_named};
pub(crate) use suspicious::unused_suppression::RULE as UNUSED_SUPPRESSION;
pub(crate) use values::ordinal_container;

pub(crate) use crate::diagnostics::Enforcement;
use crate::diagnostics::Severity;

/// Rule categories; the category decides the default severity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// The API server rejects the manifest, or the pod can never run or become Ready.
    Correctness,
    /// Likely a bug with a runtime consequence.
    Suspicious,
    /// Worth knowing; on by default.
    Advice,
    /// Opinionated checks, off by default.
    Pedantic,
    /// New rules still being tuned, off by default.
    Nursery,
}

impl Category {
    pub(crate) const ALL: [Category; 5] = [
        Category::Correctness,
        Category::Suspicious,
        Category::Advice,
        Category::Pedantic,
        Category::Nursery,
    ];

    pub(crate) const fn default_severity(self) -> Severity {
        match self {
            Category::Correctness => Severity::Error,
            Category::Suspicious => Severity::Warning,
            Category::Advice | Category::Pedantic | Category::Nursery => Severity::Info,
        }
    }

    pub(crate) const fn enabled_by_default(self) -> bool {
        matches!(
            self,
            Category::Correctness | Category::Suspicious | Category::Advice
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Category::Correctness => "correctness",
            Category::Suspicious => "suspicious",
            Category::Advice => "advice",
            Category::Pedantic => "pedantic",
            Category::Nursery => "nursery",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }
}

impl fmt::Display for Category {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How a rule finds problems.
#[derive(Clone, Copy)]
pub enum Check {
    /// Runs once per pod spec, on the spec and its derived lifecycle.
    Pod(fn(&PodContext<'_>, &mut Findings)),
    /// Runs once per YAML document, on the tree as read and the objects in it (syntax, keys,
    /// apiVersion and kind).
    Document(fn(&DocumentContext<'_>, &mut Findings)),
    /// Runs once per workload object, on what decoding it into the Kubernetes type found
    /// (fields, types).
    Object(fn(&ObjectContext<'_>, &mut Findings)),
    /// Runs once per workload controller, on its rollout (`lifecycle::rollout`).
    Rollout(fn(&RolloutContext<'_>, &mut Findings)),
    /// Runs once per PodDisruptionBudget and HorizontalPodAutoscaler, with every object of its
    /// scope.
    Scope(fn(&ScopeContext<'_>, &mut Findings)),
    /// Judges the suppressions of a document once every other rule has run: reported by the
    /// suppression pass (`src/suppression/`), which knows what each suppression silenced.
    Suppressions,
    /// Reported when Helm or Kustomize refuses a chart or overlay (`render::failure`): the rule
    /// looks at no manifest. Its fixtures are charts and overlays, rendered by the real tools.
    Render,
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Check::Pod(_) => "Check::Pod",
            Check::Document(_) => "Check::Document",
            Check::Object(_) => "Check::Object",
            Check::Rollout(_) => "Check::Rollout",
            Check::Scope(_) => "Check::Scope",
            Check::Suppressions => "Check::Suppressions",
            Check::Render => "Check::Render",
        })
    }
}

/// A rule's metadata, documentation and check.
#[derive(Debug)]
pub struct Rule {
    /// Kebab-case name that describes the problem; the public identifier.
    pub name: &'static str,
    pub category: Category,
    pub default_severity: Severity,
    /// Who acts on the rule's findings (a finding may state another for its case).
    pub(crate) enforcement: Enforcement,
    /// One line: what the rule finds.
    pub summary: &'static str,
    /// The Markdown documentation (`## What it does`, `## Why is this bad?`, `## Example`,
    /// `## References`).
    pub(crate) doc: &'static str,
    pub check: Check,
    /// The feature gate the rule is about, when its verdict depends on the Kubernetes version.
    pub(crate) feature: Option<&'static crate::versions::Feature>,
    /// The rule reads the Services of the file ([`PodContext::services`]); the pipeline
    /// collects them only when such a rule runs.
    pub(crate) reads_services: bool,
    /// Whether its findings come with fixes (`check --fix`, quick fixes in editors).
    pub fix: crate::fix::FixAvailability,
    /// The file that declares it, for "view source" links.
    pub source: &'static str,
}

/// Where each rule's documentation page is published; a rule's page is `<base><name>.md`.
pub const RULE_DOCS_BASE_URL: &str = "https://github.com/podcycle/podcycle/blob/main/docs/rules/";

impl Rule {
    pub(crate) fn enabled_by_default(&self) -> bool {
        self.category.enabled_by_default()
    }

    /// The Kubernetes versions the rule applies to, for docs and `podcycle rules`.
    pub(crate) fn kubernetes_versions(&self) -> String {
        use crate::versions::{NEWEST_ACCEPTED, OLDEST_SUPPORTED};
        match self.feature {
            Some(feature) => format!(
                "{OLDEST_SUPPORTED}–{NEWEST_ACCEPTED}, judged by `--kube-version`: {} is {} (`{}`)",
                feature.description,
                feature.availability(),
                feature.gate
            ),
            None => format!("all ({OLDEST_SUPPORTED}–{NEWEST_ACCEPTED})"),
        }
    }

    /// The address of the rule's documentation page (`docs/rules/<name>.md`), for editors and
    /// machine-readable reports.
    pub fn url(&self) -> String {
        format!("{RULE_DOCS_BASE_URL}{}.md", self.name)
    }

    /// The Markdown documentation, without the space each doc-comment line starts with.
    pub fn documentation(&self) -> String {
        self.doc
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// Restates a rejection found in a custom kind's pod template (an Argo Rollout, a Kruise
/// CloneSet, …) as what happens: the API server accepts the custom resource, whose schema does
/// not run pod validation, and rejects the pods (or ReplicaSets) its controller creates from
/// the template. The controller cannot create them, reports the error in the object's status,
/// and the rollout stalls. `kind` is the custom resource's kind.
pub(crate) fn refused_by_controller(finding: &mut Finding, rule: &Rule, kind: &str) {
    if finding.enforcement.unwrap_or(rule.enforcement) != Enforcement::ApiServer {
        return;
    }
    finding.enforcement = Some(Enforcement::Controller);
    const CLAUSE: &str = ", which the API server rejects";
    finding.message = match finding.message.find(CLAUSE) {
        Some(at) => format!(
            "{}{CLAUSE} when the {kind}'s controller creates the pods{}",
            &finding.message[..at],
            &finding.message[at + CLAUSE.len()..]
        ),
        None => format!(
            "{}: the API server accepts the {kind}, then rejects the pods its controller creates from it",
            finding.message
        ),
    };
    finding.note(format!(
        "a {kind} is a custom resource: its schema does not run pod validation, so applying it succeeds; its controller cannot create the pods (or ReplicaSets), reports the error in the {kind}'s status and events, and the rollout stalls"
    ));
}

/// The default severity of a category, or an explicit one.
pub(crate) const fn severity_for(category: Category, explicit: Option<Severity>) -> Severity {
    match explicit {
        Some(severity) => severity,
        None => category.default_severity(),
    }
}

/// Declares a rule. The doc comment becomes its documentation.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub(crate) static $ident:ident = {
            name: $name:literal,
            category: $category:ident,
            enforcement: $enforcement:ident,
            $(severity: $severity:ident,)?
            $(feature: $feature:expr,)?
            $(services: $services:literal,)?
            $(fix: $fix:ident,)?
            summary: $summary:literal,
            check: $check:expr $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        pub(crate) static $ident: $crate::rules::Rule = $crate::rules::Rule {
            name: $name,
            category: $crate::rules::Category::$category,
            default_severity: $crate::rules::severity_for(
                $crate::rules::Category::$category,
                declare_rule!(@severity $($severity)?),
            ),
            enforcement: $crate::rules::Enforcement::$enforcement,
            summary: $summary,
            doc: concat!($($doc, "\n"),*),
            check: $check,
            feature: declare_rule!(@feature $($feature)?),
            reads_services: declare_rule!(@services $($services)?),
            fix: declare_rule!(@fix $($fix)?),
            source: file!(),
        };
    };
    (@severity) => { None };
    (@severity $severity:ident) => { Some($crate::diagnostics::Severity::$severity) };
    (@feature) => { None };
    (@feature $feature:expr) => { Some(&$feature) };
    (@services) => { false };
    (@services $services:literal) => { $services };
    (@fix) => { $crate::fix::FixAvailability::None };
    (@fix $fix:ident) => { $crate::fix::FixAvailability::$fix };
}
pub(crate) use declare_rule;
