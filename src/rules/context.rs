//! What a rule sees (a pod spec and its lifecycle) and how it reports (by field path; spans
//! are looked up afterwards, so rules never touch the YAML tree).

use crate::diagnostics::Severity;
use crate::fix::Fix;
use crate::lifecycle::{Bounds, Lifecycle, ProbeKind};
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

/// A time or a grace period a finding states, by what it is. Rules take these from the
/// lifecycle model and say them in their messages; the consistency tests hold every claim to
/// the value `podcycle explain` shows for the same pod, and the claims of different rules to
/// each other.
#[derive(Clone, Debug, PartialEq)]
pub enum Claim {
    /// The grace period the kubelet uses when the pod is deleted.
    DeletionGrace(i64),
    /// The pod's `terminationGracePeriodSeconds` as written (what validation compares with).
    SpecGrace(i64),
    /// The longest time between SIGTERM and SIGKILL for a container on deletion.
    StopWindow { container: usize, seconds: f64 },
    /// When a probe reports failure after the container stops answering.
    ProbeFailure {
        container: usize,
        probe: ProbeKind,
        bounds: Bounds,
    },
    /// The longest time between two tries of a probe.
    ProbeInterval {
        container: usize,
        probe: ProbeKind,
        seconds: f64,
    },
    /// When a probe kills a container that never answers, from its start.
    UnansweredKill {
        container: usize,
        probe: ProbeKind,
        bounds: Bounds,
    },
    /// The grace period of a probe's kill, and the longest time it leaves between SIGTERM and
    /// SIGKILL.
    ProbeKill {
        container: usize,
        probe: ProbeKind,
        grace: i64,
        window: f64,
    },
    /// The least time before the pod is started (for a Job, before its last container
    /// starts).
    CertainStartup(f64),
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
    /// Changes that certainly resolve the finding, with paths from the object root.
    pub fixes: Vec<Fix>,
    /// The times and grace periods the message states.
    pub claims: Vec<Claim>,
    /// `at` and the first label are two places that repeat one thing: the finding points at
    /// whichever is written later in the file, as rustc does for a second definition, and the
    /// label at the other.
    pub at_the_later: bool,
}

impl Finding {
    pub fn severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = Some(severity);
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

    /// Points at whichever of `at` and the first label is written later in the file.
    pub fn at_the_later(&mut self) -> &mut Self {
        self.at_the_later = true;
        self
    }

    /// Records a time or grace period the message states.
    pub fn claim(&mut self, claim: Claim) -> &mut Self {
        self.claims.push(claim);
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
            fixes: Vec::new(),
            claims: Vec::new(),
            at_the_later: false,
        });
        self.items.last_mut().expect("just pushed")
    }

    pub fn take(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.items)
    }
}
