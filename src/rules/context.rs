//! What a rule sees (a pod spec and its lifecycle) and how it reports (by field path; spans
//! are looked up afterwards, so rules never touch the YAML tree).

use crate::diagnostics::{Enforcement, Severity};
use crate::fix::Fix;
use crate::lifecycle::platforms::Platform;
use crate::lifecycle::rollout::Rollout;
use crate::lifecycle::{Bounds, Lifecycle, ProbeKind};
use crate::model::path::FieldPath;
use crate::model::scope::{Autoscaler, Budget, Scope};
use crate::model::services::Service;
use crate::model::{AnyObject, ObjectSite, PodSite};
use crate::source::Span;
use crate::versions::KubeVersion;
use crate::yaml::{ConversionError, Document};
use podcycle_k8s::k8s_openapi::api::policy::v1::PodDisruptionBudgetSpec;

/// The input of a document rule: one YAML document as read, and the objects in it.
pub struct DocumentContext<'a> {
    pub(crate) document: &'a Document,
    /// Every object of the document (the document itself, or the items of a `List`).
    pub(crate) objects: &'a [AnyObject],
    /// The workload objects that could not be turned into JSON (aliases that expand too far,
    /// nesting too deep), with why. Empty for partial objects, which are not converted.
    pub(crate) unconvertible: &'a [(&'a ObjectSite, ConversionError)],
    /// Kustomize patches and other partial objects: only the YAML itself is judged.
    pub(crate) partial: bool,
    pub(crate) kube: KubeVersion,
}

/// The input of an object rule: a workload object and what decoding it into the Kubernetes
/// type found.
pub struct ObjectContext<'a> {
    pub(crate) document: &'a Document,
    pub(crate) object: &'a ObjectSite,
    pub(crate) decoded: &'a podcycle_k8s::Decoded,
    pub(crate) kube: KubeVersion,
}

/// The input of a pod rule.
pub struct PodContext<'a> {
    pub site: &'a PodSite<'a>,
    pub life: &'a Lifecycle<'a>,
    /// The cluster version the manifest is judged for (`--kube-version`).
    pub kube: KubeVersion,
    /// The Services in the same file that select this pod; read only when a rule needs them
    /// (see [`crate::rules::Rule`]`::reads_services`), empty otherwise.
    pub services: &'a [&'a Service],
    /// The platforms the configuration or `--platform` names; those the pod's spec places it
    /// on are read from the spec (`lifecycle::platforms::placements`).
    pub platforms: &'a [&'static Platform],
}

/// The input of a rollout rule: a workload controller, its pod's lifecycle, and the rollout
/// derived from both and from the budgets and autoscalers of its scope.
pub struct RolloutContext<'a> {
    pub site: &'a PodSite<'a>,
    pub life: &'a Lifecycle<'a>,
    pub rollout: &'a Rollout,
    pub kube: KubeVersion,
    /// How long a StatefulSet's rollout may take before `statefulset-rollout-exceeds-budget`
    /// reports it (`rollout-budget-seconds` in `.podcycle.yaml`).
    pub rollout_budget_seconds: i64,
}

/// A PodDisruptionBudget or a HorizontalPodAutoscaler of a scope.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ScopeObject<'a> {
    Budget(&'a Budget),
    Autoscaler(&'a Autoscaler),
}

/// The input of a scope rule: a PodDisruptionBudget or HorizontalPodAutoscaler, and every
/// object of its scope (the file, the rendered chart or overlay) it is matched against.
pub struct ScopeContext<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) object: ScopeObject<'a>,
    pub(crate) kube: KubeVersion,
    /// The platforms the configuration or `--platform` names.
    pub(crate) platforms: &'a [&'static Platform],
}

impl<'a> ScopeContext<'a> {
    /// The budget judged, with its spec, when the object is a budget that could be read.
    pub(crate) fn budget(&self) -> Option<(&'a Budget, &'a PodDisruptionBudgetSpec)> {
        let ScopeObject::Budget(budget) = self.object else {
            return None;
        };
        Some((budget, budget.spec.as_ref().ok()?))
    }

    /// [`Self::budget`], when the API server creates it: a budget that sets both
    /// `minAvailable` and `maxUnavailable` is `invalid-disruption-budget`'s, never created.
    pub(crate) fn created_budget(&self) -> Option<(&'a Budget, &'a PodDisruptionBudgetSpec)> {
        self.budget()
            .filter(|(_, spec)| spec.min_available.is_none() || spec.max_unavailable.is_none())
    }
}

/// Which part of a field a finding points at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The key (`readinessProbe:`); for a sequence item, the item.
    Key,
    /// The value (`Always` in `restartPolicy: Always`).
    Value,
}

/// A place named by field path (from the object root). When the path does not exist, the
/// finding lands on the deepest part that does: the mapping that lacks the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    pub(crate) path: FieldPath,
    pub(crate) part: Part,
}

impl Target {
    pub(crate) fn key(path: FieldPath) -> Target {
        Target {
            path,
            part: Part::Key,
        }
    }

    pub(crate) fn value(path: FieldPath) -> Target {
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
    /// The least time before the pod is Ready.
    CertainReady(f64),
    /// The pod never becomes Ready.
    NeverReady,
    /// A classic init container never exits.
    NeverExits { container: usize },
    /// The API server rejects the preStop hook of a container (a `sleep` action longer than
    /// the grace period), so no shutdown of this pod happens.
    PrestopRejected { container: usize },
    /// A Deployment's `progressDeadlineSeconds` in effect.
    ProgressDeadline(i32),
    /// How many attempts of a Job can start before its `activeDeadlineSeconds`, and how many
    /// its `backoffLimit` allows.
    AttemptsWithinDeadline { fit: i64, allowed: i64 },
    /// The pods a rolling update may take down at once (`maxUnavailable` resolved), for the
    /// replicas it runs with.
    MaxUnavailablePods { pods: i32, replicas: i32 },
    /// The least time a StatefulSet's rolling update takes.
    CertainUpdate(f64),
}

/// Where a finding is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Position {
    /// A field of the object, by path from its root (from the document's root for a document
    /// rule), looked up in the tree afterwards.
    Field(Target),
    /// A place in the YAML text (a syntax error, a key written twice), about a field when it
    /// names one, else about the document itself.
    Text {
        span: Span,
        field: Option<FieldPath>,
    },
}

impl Position {
    /// The field the finding is about, if any.
    pub(crate) fn field(&self) -> Option<&FieldPath> {
        match self {
            Position::Field(target) => Some(&target.path),
            Position::Text { field, .. } => field.as_ref(),
        }
    }
}

/// One problem a rule found.
#[derive(Clone, Debug)]
pub struct Finding {
    pub(crate) position: Position,
    pub message: String,
    pub(crate) help: Option<String>,
    pub(crate) labels: Vec<(Target, String)>,
    pub(crate) notes: Vec<String>,
    pub(crate) container: Option<String>,
    /// The platform whose cut the finding is about (`gke-spot`), for JSON and SARIF.
    pub(crate) platform: Option<&'static str>,
    /// A severity below the rule's default for this case (a liveness probe where a readiness
    /// probe would be an error); `None` uses the rule's.
    pub(crate) severity: Option<Severity>,
    /// The claim of this case when it differs from the rule's (an exec sleep where the rule
    /// is about the `sleep` action); `None` uses the rule's.
    pub(crate) enforcement: Option<Enforcement>,
    /// Changes that certainly resolve the finding, with paths from the object root.
    pub(crate) fixes: Vec<Fix>,
    /// The times and grace periods the message states.
    pub claims: Vec<Claim>,
    /// Secondary places in the text, for findings placed in the text.
    pub(crate) span_labels: Vec<(Span, String)>,
}

impl Finding {
    pub(crate) fn severity(&mut self, severity: Severity) -> &mut Self {
        self.severity = Some(severity);
        self
    }

    /// States who acts on this finding, when it is not who acts on the rule's usual case.
    pub(crate) fn enforcement(&mut self, enforcement: Enforcement) -> &mut Self {
        self.enforcement = Some(enforcement);
        self
    }

    pub(crate) fn help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }

    pub(crate) fn label(&mut self, at: Target, message: impl Into<String>) -> &mut Self {
        self.labels.push((at, message.into()));
        self
    }

    pub(crate) fn note(&mut self, note: impl Into<String>) -> &mut Self {
        self.notes.push(note.into());
        self
    }

    /// Offers a fix; only for a change that certainly resolves the finding.
    pub(crate) fn fix(&mut self, fix: Fix) -> &mut Self {
        self.fixes.push(fix);
        self
    }

    /// Records a time or grace period the message states.
    pub(crate) fn claim(&mut self, claim: Claim) -> &mut Self {
        self.claims.push(claim);
        self
    }

    /// A secondary place in the text (for findings placed in the text).
    pub(crate) fn span_label(&mut self, span: Span, message: impl Into<String>) -> &mut Self {
        self.span_labels.push((span, message.into()));
        self
    }

    /// The field a finding placed in the text is about.
    pub(crate) fn field(&mut self, about: FieldPath) -> &mut Self {
        match &mut self.position {
            Position::Text { field, .. } => *field = Some(about),
            Position::Field(target) => target.path = about,
        }
        self
    }

    pub(crate) fn container(&mut self, name: &str) -> &mut Self {
        self.container = Some(name.to_owned());
        self
    }

    pub(crate) fn platform(&mut self, name: &'static str) -> &mut Self {
        self.platform = Some(name);
        self
    }
}

/// Collects a rule's findings.
#[derive(Default)]
pub struct Findings {
    items: Vec<Finding>,
}

impl Findings {
    pub(crate) fn report(&mut self, at: Target, message: impl Into<String>) -> &mut Finding {
        self.push(Position::Field(at), message.into())
    }

    /// Reports a problem of the YAML text at `span`, about no particular field (name one with
    /// [`Finding::field`]).
    pub(crate) fn report_span(&mut self, span: Span, message: impl Into<String>) -> &mut Finding {
        self.push(Position::Text { span, field: None }, message.into())
    }

    fn push(&mut self, position: Position, message: String) -> &mut Finding {
        self.items.push(Finding {
            position,
            message,
            help: None,
            labels: Vec::new(),
            notes: Vec::new(),
            container: None,
            platform: None,
            severity: None,
            enforcement: None,
            fixes: Vec::new(),
            claims: Vec::new(),
            span_labels: Vec::new(),
        });
        self.items.last_mut().expect("just pushed")
    }

    pub fn take(&mut self) -> Vec<Finding> {
        std::mem::take(&mut self.items)
    }
}
