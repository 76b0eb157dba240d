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
    pub file: String,
    pub line: usize,
    pub object: ObjectRef,
    /// Path of the pod spec in the object (`spec.template.spec`).
    pub field: String,
    /// The Kubernetes version the timeline is for (`--kube-version`).
    pub kube_version: String,
    pub startup: Vec<StartupStep>,
    /// Earliest time every container is Ready, from the pod's start.
    pub earliest_ready_seconds: Option<Secs>,
    /// When every container is Ready: earliest and latest.
    pub ready_seconds: Option<Range>,
    /// What the earliest Ready time adds up.
    pub ready_delays: Vec<DelayInfo>,
    /// When every app container and sidecar is started.
    pub started_seconds: Option<Range>,
    /// What the times leave out because the manifest cannot tell.
    pub not_counted: Vec<String>,
    pub active_deadline_seconds: Option<i64>,
    pub shutdown: Shutdown,
    pub notes: Vec<Note>,
    /// Findings of `check` in this object, in output order, each in the shape of
    /// `check --format json` (the command renders them; this layer only passes them on).
    pub findings: Vec<F>,
    /// What a chart draws: times with waits of unknown length made visible.
    #[serde(skip)]
    pub drawn: Drawn,
}

/// Times for charts: a wait of unknown length is drawn `unknown_seconds` long.
#[derive(Debug, Default)]
pub struct Drawn {
    pub unknown_seconds: f64,
    pub pod_ready: Option<f64>,
}

/// One delay behind a time.
#[derive(Clone, Debug, Serialize)]
pub struct DelayInfo {
    pub container: String,
    /// The delay in words, as findings say it.
    pub what: String,
    pub seconds: Secs,
    /// Where the manifest sets it.
    pub field: String,
}

#[derive(Debug, Serialize)]
pub struct StartupStep {
    pub container: String,
    pub role: &'static str,
    /// The event this container's start waits for (empty when it waits for none).
    pub waits_for: Vec<WaitsFor>,
    /// The container the kubelet starts just before this one (`null` for the first).
    pub starts_after: Option<String>,
    pub field: String,
    /// What the container is when it is a well-known sidecar declared as an app container.
    pub known_sidecar: Option<String>,
    pub post_start: Option<HookInfo>,
    pub probes: ProbeSet,
    pub earliest_start_seconds: Secs,
    /// Started: running, postStart returned and startup probe passed (`null` for init
    /// containers, which are never "started" in this sense).
    pub earliest_started_seconds: Option<Secs>,
    pub earliest_ready_seconds: Option<Secs>,
    /// The same times with their upper bounds; `exit_seconds` for classic init containers.
    pub start_seconds: Range,
    pub running_seconds: Option<Range>,
    pub started_seconds: Option<Range>,
    pub ready_seconds: Option<Range>,
    pub exit_seconds: Option<Range>,
    /// Why a classic init container never exits, when it is known not to (its exit is then
    /// never, and nothing after it starts).
    pub never_exits: Option<String>,
    /// The times a chart draws ([`Drawn`]).
    #[serde(skip)]
    pub drawn: DrawnStep,
}

/// A container's times as a chart draws them.
#[derive(Clone, Copy, Debug, Default)]
pub struct DrawnStep {
    pub start: f64,
    pub post_start_end: f64,
    pub started: f64,
    pub ready: Option<f64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct WaitsFor {
    pub container: String,
    pub event: &'static str,
}

/// A hook: its handler and what is known of its length.
#[derive(Clone, Debug, Serialize)]
pub struct HookInfo {
    /// `exec`, `httpGet`, `tcpSocket`, `sleep`; `none` or `several` for an invalid hook.
    pub handler: &'static str,
    /// `exact` (a `sleep` action, or an exec command that only sleeps), `at-least` (an exec
    /// command that sleeps and does more), `never-returns`, `fails-at-once` or `unknown`.
    pub duration: &'static str,
    /// The exact or least length, when known.
    pub seconds: Option<Secs>,
    /// Why the hook fails whatever the container does, for `fails-at-once`.
    pub fails_because: Option<String>,
    /// For a postStart hook that fails: the kill the kubelet waits for before it starts the
    /// next container.
    pub kill: Option<KillInfo>,
}

#[derive(Debug, Default, Serialize)]
pub struct ProbeSet {
    pub startup: Option<ProbeInfo>,
    pub readiness: Option<ProbeInfo>,
    pub liveness: Option<ProbeInfo>,
}

/// A probe after the API server's defaults, with the budgets it implies. The budgets are
/// `null` for a probe whose numbers the API server rejects.
#[derive(Debug, Serialize)]
pub struct ProbeInfo {
    pub initial_delay_seconds: i64,
    pub period_seconds: i64,
    pub timeout_seconds: i64,
    pub success_threshold: i64,
    pub failure_threshold: i64,
    pub termination_grace_period_seconds: Option<i64>,
    /// Earliest time of the first try, from the pod's start.
    pub first_probe_seconds: Option<Secs>,
    /// Time between two tries: the period, or the timeout when a try outlasts the period.
    pub interval_seconds: Option<Range>,
    /// From the moment the container stops answering until the probe reports failure.
    pub fails_after_seconds: Option<Range>,
    /// Readiness probes: from the moment the container answers again until it is Ready.
    pub recovers_after_seconds: Option<Range>,
    /// Startup probes, and liveness probes of containers without one: from the container's
    /// start, when a container that never answers is killed.
    pub window_bounds_seconds: Option<Range>,
    /// Readiness probes: earliest time the container is Ready, from the pod's start.
    pub earliest_ready_seconds: Option<Secs>,
    /// Liveness and startup probes: the kill a failure causes.
    pub kill: Option<KillInfo>,
    /// Why the probe can never pass, when it cannot (a named port its container does not
    /// declare).
    pub never_passes: Option<String>,
}

/// A kill: its grace period and when the signals come, from the moment it starts.
#[derive(Clone, Debug, Serialize)]
pub struct KillInfo {
    pub grace_period_seconds: i64,
    /// `probe` (the probe's own `terminationGracePeriodSeconds`), `spec` or `default`.
    pub grace_period_source: &'static str,
    pub prestop_runs: bool,
    pub sigterm_seconds: Range,
    /// Time between SIGTERM and SIGKILL.
    pub term_window_seconds: Range,
    pub sigkill_seconds: Range,
    /// SIGKILL comes at the latest this long after the kill starts.
    pub sigkill_within_seconds: Secs,
}

#[derive(Debug, Serialize)]
pub struct Shutdown {
    /// The pod's `terminationGracePeriodSeconds`, or the default 30.
    pub grace_period_seconds: i64,
    /// `spec` or `default`.
    pub grace_period_source: &'static str,
    /// What the kubelet uses on deletion: at least 1 s.
    pub effective_grace_period_seconds: i64,
    /// Every container has had SIGKILL by then, after T0: the latest SIGKILL below.
    pub hard_bound_seconds: Secs,
    pub containers: Vec<StopStep>,
}

#[derive(Debug, Serialize)]
pub struct StopStep {
    pub container: String,
    pub role: &'static str,
    /// Time spent in the preStop hook when exactly known; `null` without a hook or when its
    /// length is unknown.
    pub prestop_seconds: Option<Secs>,
    /// 0 for app containers, then 1, 2, ... for sidecars, the last declared first.
    pub stop_order: usize,
    /// Time between the stop signal and SIGKILL when exactly known.
    pub term_window_seconds: Option<Secs>,
    pub prestop: Option<HookInfo>,
    pub prestop_runs: bool,
    /// The hook outlasts the grace period and is cut off.
    pub prestop_cut_off: bool,
    /// The API server rejects the hook — a `sleep` action longer than the grace period — so
    /// the pod is never created and this shutdown never happens.
    pub prestop_rejected: bool,
    /// What must exit before this one gets the stop signal.
    pub waits_for: StopWaitsInfo,
    /// Times from T0.
    pub sigterm_seconds: Range,
    pub term_window_bounds_seconds: Range,
    pub sigkill_seconds: Range,
}

/// What a sidecar waits for on shutdown: all app containers (how many) and the sidecar
/// declared after it.
#[derive(Debug, Serialize)]
pub struct StopWaitsInfo {
    pub app_containers: usize,
    pub sidecar: Option<String>,
}

/// A remark of the model on the timeline, and the containers it concerns.
#[derive(Clone, Debug)]
pub struct Note {
    pub text: String,
    pub containers: Vec<String>,
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
