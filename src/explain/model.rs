//! The explanation of one pod spec, as data: its startup and shutdown timelines with their
//! budgets, the remarks of the model, and the findings of `check`. Field names are the JSON
//! schema (docs/explain.md); `build.rs` fills them in from the lifecycle model, and the
//! renderers only format them.

use serde::{Serialize, Serializer};

use super::units::{Range, Secs};
use crate::model::ObjectRef;

/// A finding of `check` as `explain` lists it. The command supplies the type (the shape of
/// `check --format json`, which the JSON output writes as it is); the text and Mermaid
/// outputs read these fields.
pub trait ShownFinding: Serialize {
    fn severity(&self) -> &str;
    fn rule(&self) -> &str;
    fn file(&self) -> &str;
    fn line(&self) -> usize;
    fn column(&self) -> usize;
    fn message(&self) -> &str;
    fn container(&self) -> Option<&str>;
    /// Path of the field in the object.
    fn field(&self) -> Option<&str>;
}

/// One pod spec explained, with its findings.
#[derive(Debug, Serialize)]
pub struct PodExplanation<F> {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) object: ObjectRef,
    /// Path of the pod spec in the object (`spec.template.spec`).
    pub(crate) field: String,
    /// The Kubernetes version the timeline is for (`--kube-version`).
    pub(crate) kube_version: String,
    pub(crate) startup: Vec<StartupStep>,
    /// Earliest time every container is Ready, from the pod's start.
    pub(crate) earliest_ready_seconds: Option<Secs>,
    /// When every container is Ready: earliest and latest.
    pub(crate) ready_seconds: Option<Range>,
    /// What the earliest Ready time adds up.
    pub(crate) ready_delays: Vec<DelayInfo>,
    /// When every app container and sidecar is started.
    pub(crate) started_seconds: Option<Range>,
    /// What the times leave out because the manifest cannot tell.
    pub(crate) not_counted: Vec<String>,
    pub(crate) active_deadline_seconds: Option<i64>,
    pub(crate) shutdown: Shutdown,
    pub(crate) notes: Vec<Note>,
    /// Findings of `check` in this object, in output order, each in the shape of
    /// `check --format json` (the command renders them; this layer only passes them on).
    pub(crate) findings: Vec<F>,
    /// What a chart draws: times with waits of unknown length made visible.
    #[serde(skip)]
    pub(crate) drawn: Drawn,
}

/// Times for charts: a wait of unknown length is drawn `unknown_seconds` long.
#[derive(Debug, Default)]
pub(crate) struct Drawn {
    pub(crate) unknown_seconds: f64,
    pub(crate) pod_ready: Option<f64>,
}

/// One delay behind a time.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct DelayInfo {
    pub(crate) container: String,
    /// The delay in words, as findings say it.
    pub(crate) what: String,
    pub(crate) seconds: Secs,
    /// Where the manifest sets it.
    pub(crate) field: String,
}

#[derive(Debug, Serialize)]
pub(crate) struct StartupStep {
    pub(crate) container: String,
    pub(crate) role: &'static str,
    /// The event this container's start waits for (empty when it waits for none).
    pub(crate) waits_for: Vec<WaitsFor>,
    /// The container the kubelet starts just before this one (`null` for the first).
    pub(crate) starts_after: Option<String>,
    pub(crate) field: String,
    /// What the container is when it is a well-known sidecar declared as an app container.
    pub(crate) known_sidecar: Option<String>,
    pub(crate) post_start: Option<HookInfo>,
    pub(crate) probes: ProbeSet,
    pub(crate) earliest_start_seconds: Secs,
    /// Started: running, postStart returned and startup probe passed (`null` for init
    /// containers, which are never "started" in this sense).
    pub(crate) earliest_started_seconds: Option<Secs>,
    pub(crate) earliest_ready_seconds: Option<Secs>,
    /// The same times with their upper bounds; `exit_seconds` for classic init containers.
    pub(crate) start_seconds: Range,
    pub(crate) running_seconds: Option<Range>,
    pub(crate) started_seconds: Option<Range>,
    pub(crate) ready_seconds: Option<Range>,
    pub(crate) exit_seconds: Option<Range>,
    /// Why a classic init container never exits, when it is known not to (its exit is then
    /// never, and nothing after it starts).
    pub(crate) never_exits: Option<String>,
    /// The times a chart draws ([`Drawn`]).
    #[serde(skip)]
    pub(crate) drawn: DrawnStep,
}

/// A container's times as a chart draws them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct DrawnStep {
    pub(crate) start: f64,
    pub(crate) post_start_end: f64,
    pub(crate) started: f64,
    pub(crate) ready: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub(crate) struct WaitsFor {
    pub(crate) container: String,
    pub(crate) event: &'static str,
}

/// A hook: its handler and what is known of its length.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct HookInfo {
    /// `exec`, `httpGet`, `tcpSocket`, `sleep`; `none` or `several` for an invalid hook.
    pub(crate) handler: &'static str,
    /// `exact` (a `sleep` action, or an exec command that only sleeps), `at-least` (an exec
    /// command that sleeps and does more), `never-returns`, `fails-at-once` or `unknown`.
    pub(crate) duration: &'static str,
    /// The exact or least length, when known.
    pub(crate) seconds: Option<Secs>,
    /// Why the hook fails whatever the container does, for `fails-at-once`.
    pub(crate) fails_because: Option<String>,
    /// For a postStart hook that fails: the kill the kubelet waits for before it starts the
    /// next container.
    pub(crate) kill: Option<KillInfo>,
}

#[derive(Debug, Default, Serialize)]
pub(crate) struct ProbeSet {
    pub(crate) startup: Option<ProbeInfo>,
    pub(crate) readiness: Option<ProbeInfo>,
    pub(crate) liveness: Option<ProbeInfo>,
}

/// A probe after the API server's defaults, with the budgets it implies. The budgets are
/// `null` for a probe whose numbers the API server rejects.
#[derive(Debug, Serialize)]
pub(crate) struct ProbeInfo {
    pub(crate) initial_delay_seconds: i64,
    pub(crate) period_seconds: i64,
    pub(crate) timeout_seconds: i64,
    pub(crate) success_threshold: i64,
    pub(crate) failure_threshold: i64,
    pub(crate) termination_grace_period_seconds: Option<i64>,
    /// Earliest time of the first try, from the pod's start.
    pub(crate) first_probe_seconds: Option<Secs>,
    /// Time between two tries: the period, or the timeout when a try outlasts the period.
    pub(crate) interval_seconds: Option<Range>,
    /// From the moment the container stops answering until the probe reports failure.
    pub(crate) fails_after_seconds: Option<Range>,
    /// Readiness probes: from the moment the container answers again until it is Ready.
    pub(crate) recovers_after_seconds: Option<Range>,
    /// Startup probes, and liveness probes of containers without one: from the container's
    /// start, when a container that never answers is killed.
    pub(crate) window_bounds_seconds: Option<Range>,
    /// Readiness probes: earliest time the container is Ready, from the pod's start.
    pub(crate) earliest_ready_seconds: Option<Secs>,
    /// Liveness and startup probes: the kill a failure causes.
    pub(crate) kill: Option<KillInfo>,
    /// Why the probe can never pass, when it cannot (a named port its container does not
    /// declare).
    pub(crate) never_passes: Option<String>,
}

/// A kill: its grace period and when the signals come, from the moment it starts.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct KillInfo {
    pub(crate) grace_period_seconds: i64,
    /// `probe` (the probe's own `terminationGracePeriodSeconds`), `spec` or `default`.
    pub(crate) grace_period_source: &'static str,
    pub(crate) prestop_runs: bool,
    pub(crate) sigterm_seconds: Range,
    /// Time between SIGTERM and SIGKILL.
    pub(crate) term_window_seconds: Range,
    pub(crate) sigkill_seconds: Range,
    /// SIGKILL comes at the latest this long after the kill starts.
    pub(crate) sigkill_within_seconds: Secs,
}

#[derive(Debug, Serialize)]
pub(crate) struct Shutdown {
    /// The pod's `terminationGracePeriodSeconds`, or the default 30.
    pub(crate) grace_period_seconds: i64,
    /// `spec` or `default`.
    pub(crate) grace_period_source: &'static str,
    /// What the kubelet uses on deletion: at least 1 s.
    pub(crate) effective_grace_period_seconds: i64,
    /// Every container has had SIGKILL by then, after T0: the latest SIGKILL below.
    pub(crate) hard_bound_seconds: Secs,
    pub(crate) containers: Vec<StopStep>,
    /// Where each platform in effect stops the pod, when it stops it before the plan is done.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) platform_cuts: Vec<PlatformCut>,
}

/// A platform's cut of the shutdown: the pod is killed with the platform's shorter grace
/// period (docs/platforms.md).
#[derive(Clone, Debug, Serialize)]
pub(crate) struct PlatformCut {
    pub(crate) platform: &'static str,
    /// Who stops the pod.
    pub(crate) by: &'static str,
    /// `notice` or `grace honoured`.
    pub(crate) caps: &'static str,
    /// The grace period the platform gives.
    pub(crate) seconds: i64,
    /// How the pod is placed there: the field, or `null` when the configuration names it.
    pub(crate) placed_by: Option<String>,
    /// Every container has had SIGKILL by then, after T0, under the cut.
    pub(crate) sigkill_by_seconds: Secs,
    /// The steps of the plan that do not happen.
    pub(crate) not_happening: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct StopStep {
    pub(crate) container: String,
    pub(crate) role: &'static str,
    /// Time spent in the preStop hook when exactly known; `null` without a hook or when its
    /// length is unknown.
    pub(crate) prestop_seconds: Option<Secs>,
    /// 0 for app containers, then 1, 2, ... for sidecars, the last declared first.
    pub(crate) stop_order: usize,
    /// Time between the stop signal and SIGKILL when exactly known.
    pub(crate) term_window_seconds: Option<Secs>,
    pub(crate) prestop: Option<HookInfo>,
    pub(crate) prestop_runs: bool,
    /// The hook outlasts the grace period and is cut off.
    pub(crate) prestop_cut_off: bool,
    /// The API server rejects the hook — a `sleep` action longer than the grace period — so
    /// the pod is never created and this shutdown never happens.
    pub(crate) prestop_rejected: bool,
    /// What must exit before this one gets the stop signal.
    pub(crate) waits_for: StopWaitsInfo,
    /// Times from T0.
    pub(crate) sigterm_seconds: Range,
    pub(crate) term_window_bounds_seconds: Range,
    pub(crate) sigkill_seconds: Range,
}

/// What a sidecar waits for on shutdown: all app containers (how many) and the sidecar
/// declared after it.
#[derive(Debug, Serialize)]
pub(crate) struct StopWaitsInfo {
    pub(crate) app_containers: usize,
    pub(crate) sidecar: Option<String>,
}

/// A remark of the model on the timeline, and the containers it concerns.
#[derive(Clone, Debug)]
pub(crate) struct Note {
    pub(crate) text: String,
    pub(crate) containers: Vec<String>,
}

impl Serialize for Note {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<F: ShownFinding> PodExplanation<F> {
    /// Keeps only what concerns the container `name`: its steps, notes and findings.
    pub(crate) fn retain_container(&mut self, name: &str) {
        let path = self
            .startup
            .iter()
            .find(|s| s.container == name)
            .map(|s| s.field.clone());
        self.startup.retain(|s| s.container == name);
        self.shutdown.containers.retain(|s| s.container == name);
        self.notes
            .retain(|n| n.containers.iter().any(|c| c == name));
        self.findings.retain(|d| {
            d.container() == Some(name)
                || path.as_ref().is_some_and(|path| {
                    d.field().is_some_and(|field| {
                        field == path
                            || field.starts_with(&format!("{path}."))
                            || field.starts_with(&format!("{path}["))
                    })
                })
        });
    }
}
