//! What a rule sees (a pod spec and its lifecycle) and how it reports (by field path; spans
//! are looked up afterwards, so rules never touch the YAML tree).

use crate::diagnostics::{Enforcement, Severity};
use crate::fix::Fix;
use crate::lifecycle::Lifecycle;
use crate::model::PodSite;
use crate::model::path::FieldPath;
use crate::model::services::Service;
use crate::versions::KubeVersion;

/// The input of a pod rule.
pub struct PodContext<'a> {
    pub site: &'a PodSite<'a>,
    pub life: &'a Lifecycle<'a>,
    /// The cluster version the manifest is judged for (`--kube-version`).
    pub kube: KubeVersion,
    /// The Services in the same file that select this pod; read only when a rule needs them
    /// (see [`crate::rules::Rule`]`::reads_services`), empty otherwise.
    pub services: &'a [&'a Service],
}

/// Which part of a field a finding points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The key (`readinessProbe:`); for a sequence item, the item.
    Key,
    /// The value (`Always` in `restartPolicy: Always`).
    Value,
}

/// A place named by field path (from the object root). When the path does not exist, the
/// finding lands on the deepest part that does: the mapping that lacks the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub path: FieldPath,
    pub part: Part,
}

impl Target {
    pub fn key(path: FieldPath) -> Target {
        Target {
            path,
            part: Part::Key,
        }
    }

    pub fn value(path: FieldPath) -> Target {
        Target {
            path,
            part: Part::Value,
        }
    }
}

/// One problem a rule found.
#[derive(Clone, Debug)]
pub struct Finding {
    pub at: Target,
    pub message: String,
    pub help: Option<String>,
    pub labels: Vec<(Target, String)>,
    pub notes: Vec<String>,
    pub container: Option<String>,
    /// A severity below the rule's default for this case (a liveness probe where a readiness
    /// probe would be an error); `None` uses the rule's.
    pub severity: Option<Severity>,
    /// The claim of this case when it differs from the rule's (an exec sleep where the rule
    /// is about the `sleep` action); `None` uses the rule's.
    pub enforcement: Option<Enforcement>,
    /// Changes that certainly resolve the finding, with paths from the object root.
    pub fixes: Vec<Fix>,
}

impl Finding {
    pub fn severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = Some(severity);
        self
    }

    /// States who acts on this finding, when it is not who acts on the rule's usual case.
    pub fn enforcement(&mut self, enforcement: Enforcement) -> &mut Self {
        self.enforcement = Some(enforcement);
        self
    }

    pub fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    pub fn label(&mut self, at: Target, message: impl Into<String>) -> &mut Self {
        self.labels.push((at, message.into()));
        self
    }

    pub fn note(&mut self, note: impl Into<String>) -> &mut Self {
        self.notes.push(note.into());
        self
    }

    /// Offers a fix; only for a change that certainly resolves the finding.
    pub fn fix(&mut self, fix: Fix) -> &mut Self {
        self.fixes.push(fix);
        self
    }

    pub fn container(&mut self, name: &str) -> &mut Self {
        self.container = Some(name.to_owned());
        self
    }
}

/// Collects a rule's findings.
#[derive(Default)]
pub struct Findings {
    items: Vec<Finding>,
}

impl Findings {
    pub fn report(&mut self, at: Target, message: impl Into<String>) -> &mut Finding {
        self.items.push(Finding {
            at,
            message: message.into(),
            help: None,
            labels: Vec::new(),
            notes: Vec::new(),
            container: None,
            severity: None,
            enforcement: None,
            fixes: Vec::new(),
        });
        self.items.last_mut().expect("just pushed")
    }

    pub fn take(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.items)
    }
}
