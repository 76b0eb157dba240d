//! The explanation of one pod spec: its startup and shutdown timelines with their budgets,
//! notes on what is surprising, and the findings of `check`. Built from the lifecycle model
//! ([`Lifecycle::schedule`], [`Lifecycle::shutdown`], [`Lifecycle::probe_kill`]); the
//! renderers only format it. Field names are the JSON schema (docs/explain.md).

use std::fmt;

use serde::{Serialize, Serializer};

use crate::diagnostics;
use crate::lifecycle::{
    Bounds, GateEvent, HandlerKind, Hook, HookDuration, KillPlan, Lifecycle, ProbeTiming, Role,
    Schedule, ShutdownPlan, StartTimes,
};
use crate::lint::{ObjectVisit, locate};
use crate::model::{ObjectRef, PodSite};
use crate::report::JsonDiagnostic;
use crate::rules::{Part, name_list};

/// A number of seconds: written as an integer when it is one, `null` when infinite (never).
#[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
pub struct Secs(pub f64);

impl Secs {
    pub fn is_finite(self) -> bool {
        self.0.is_finite()
    }
}

impl Serialize for Secs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[allow(clippy::cast_possible_truncation)]
        if !self.0.is_finite() {
            serializer.serialize_none()
        } else if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            serializer.serialize_i64(self.0 as i64)
        } else {
            serializer.serialize_f64(self.0)
        }
    }
}

impl fmt::Display for Secs {
    /// `10s`, `0.5s`, `never`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_finite() {
            write!(f, "{}s", self.0)
        } else {
            f.write_str("never")
        }
    }
}

/// Bounds in seconds; `max` is `null` when there is no upper bound.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Range {
    pub min: Secs,
    pub max: Secs,
}

impl From<Bounds> for Range {
    fn from(bounds: Bounds) -> Range {
        Range {
            min: Secs(bounds.min),
            max: Secs(bounds.max),
        }
    }
}

impl Range {
    pub fn exact(self) -> Option<Secs> {
        (self.min == self.max).then_some(self.min)
    }
}

impl fmt::Display for Range {
    /// `10s`, `10–30s`, `≥10s`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.exact(), self.max.is_finite()) {
            (Some(value), _) => value.fmt(f),
            (None, true) => write!(f, "{}–{}", self.min.0, self.max),
            (None, false) => write!(f, "≥{}", self.min),
        }
    }
}

/// One pod spec explained, with its findings.
#[derive(Debug, Serialize)]
pub struct PodExplanation {
    pub file: String,
    pub line: usize,
    pub object: ObjectRef,
    /// Path of the pod spec in the object (`spec.template.spec`).
    pub field: String,
    pub startup: Vec<StartupStep>,
    /// Earliest time every container is Ready, from the pod's start.
    pub earliest_ready_seconds: Option<Secs>,
    /// What the earliest times leave out because the manifest cannot tell.
    pub not_counted: Vec<String>,
    pub active_deadline_seconds: Option<i64>,
    pub shutdown: Shutdown,
    pub notes: Vec<Note>,
    /// Findings of `check` in this object, in output order.
    pub findings: Vec<JsonDiagnostic>,
    /// How long a chart draws a wait of unknown length, and the pod's Ready time drawn so.
    #[serde(skip)]
    pub drawn_unknown_seconds: f64,
    #[serde(skip)]
    pub drawn_pod_ready: Option<f64>,
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
    /// The times a chart draws, with unknown lengths made visible
    /// ([`PodExplanation::drawn_unknown_seconds`]).
    #[serde(skip)]
    pub drawn: StartTimes,
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
    /// `exact` (a `sleep` action), `at-least` (an exec command that sleeps), `never-returns`,
    /// `fails-at-once` (tcpSocket, which the kubelet does not implement) or `unknown`.
    pub duration: &'static str,
    /// The exact or least length, when known.
    pub seconds: Option<Secs>,
}

#[derive(Debug, Default, Serialize)]
pub struct ProbeSet {
    pub startup: Option<ProbeInfo>,
    pub readiness: Option<ProbeInfo>,
    pub liveness: Option<ProbeInfo>,
}

/// A probe after the API server's defaults, with the budgets it implies.
#[derive(Debug, Serialize)]
pub struct ProbeInfo {
    pub initial_delay_seconds: i64,
    pub period_seconds: i64,
    pub timeout_seconds: i64,
    pub success_threshold: i64,
    pub failure_threshold: i64,
    pub termination_grace_period_seconds: Option<i64>,
    /// Earliest time of the first probe, from the pod's start.
    pub first_probe_seconds: Secs,
    /// From the moment the container stops answering until the probe reports failure.
    pub fails_after_seconds: Range,
    /// Startup probes: `initialDelaySeconds + failureThreshold × periodSeconds`, from the
    /// container's start, and when a probe that never passes actually fails.
    pub window_seconds: Option<Secs>,
    pub window_bounds_seconds: Option<Range>,
    /// Readiness probes: earliest time the container is Ready, from the pod's start.
    pub earliest_ready_seconds: Option<Secs>,
    /// Liveness and startup probes: the kill a failure causes.
    pub kill: Option<KillInfo>,
}

#[derive(Debug, Serialize)]
pub struct KillInfo {
    pub grace_period_seconds: i64,
    /// `probe` (the probe's own `terminationGracePeriodSeconds`), `spec` or `default`.
    pub grace_period_source: &'static str,
    pub prestop_runs: bool,
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
    /// Every container is killed by then, after T0.
    pub hard_bound_seconds: i64,
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
    /// Containers that must exit before this one gets the stop signal.
    pub waits_for: Vec<String>,
    /// Times from T0.
    pub sigterm_seconds: Range,
    pub term_window_bounds_seconds: Range,
    pub sigkill_seconds: Range,
}

/// Something surprising about the timeline, and the containers it concerns.
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

impl PodExplanation {
    /// Explains the pod an object visit carries, if it has one.
    pub fn from_visit(visit: &ObjectVisit<'_>) -> Option<PodExplanation> {
        let (site, life) = visit.pod?;
        let spec_path = visit.spec_path.unwrap_or(&site.spec_path);
        let span = locate(visit.document, visit.object, spec_path, Part::Key);
        let schedule = life.schedule();
        // Charts draw an unknown wait a tenth of the known timeline long (at least 1s), so
        // that the order shows.
        let horizon = schedule
            .containers
            .iter()
            .flat_map(|t| [Some(t.start), t.ready])
            .flatten()
            .filter(|t| t.is_finite())
            .fold(0.0, f64::max);
        let drawn_unknown_seconds = (horizon / 10.0).round().max(1.0);
        let drawn = life.schedule_assuming(drawn_unknown_seconds);
        let shutdown = life.shutdown();
        let mut sorted = visit.diagnostics.to_vec();
        diagnostics::sort(&mut sorted);
        let findings = sorted
            .iter()
            .map(|d| JsonDiagnostic::new(visit.file, d))
            .collect();
        Some(PodExplanation {
            file: visit.file.path.clone(),
            line: visit.file.line_col(span.start).line,
            object: visit.object.object.clone(),
            field: spec_path.to_string(),
            startup: startup_steps(life, &schedule, &drawn),
            earliest_ready_seconds: schedule.pod_ready.map(Secs),
            not_counted: not_counted(life),
            active_deadline_seconds: site.spec.active_deadline_seconds,
            shutdown: shutdown_of(life, &shutdown),
            notes: notes(site, life, &schedule, &shutdown),
            findings,
            drawn_unknown_seconds,
            drawn_pod_ready: drawn.pod_ready,
        })
    }

    /// Keeps only what concerns the container `name`: its steps, notes and findings.
    pub fn retain_container(&mut self, name: &str) {
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
            d.container.as_deref() == Some(name)
                || path.as_ref().is_some_and(|path| {
                    d.field.as_ref().is_some_and(|field| {
                        field == path
                            || field.starts_with(&format!("{path}."))
                            || field.starts_with(&format!("{path}["))
                    })
                })
        });
    }
}

fn startup_steps(life: &Lifecycle<'_>, schedule: &Schedule, drawn: &Schedule) -> Vec<StartupStep> {
    life.containers
        .iter()
        .zip(schedule.containers.iter().zip(&drawn.containers))
        .enumerate()
        .map(|(index, (container, (times, drawn)))| {
            let runs_hooks = container.role != Role::Init;
            let probe = |timing: Option<ProbeTiming>, first: Option<f64>| {
                timing
                    .filter(|_| runs_hooks)
                    .map(|timing| probe_info(timing, Secs(first.unwrap_or(f64::INFINITY))))
            };
            let mut probes = ProbeSet {
                startup: probe(container.probes.startup, times.first_startup_probe),
                readiness: probe(container.probes.readiness, times.first_readiness_probe),
                liveness: probe(container.probes.liveness, times.first_liveness_probe),
            };
            if let (Some(info), Some(timing)) = (&mut probes.startup, container.probes.startup) {
                info.window_seconds = Some(Secs(timing.startup_window()));
                info.window_bounds_seconds = Some(timing.startup_window_bounds().into());
                info.kill = Some(kill_info(&life.probe_kill(index, &timing)));
            }
            if let Some(info) = &mut probes.readiness {
                info.earliest_ready_seconds = times.ready.map(Secs);
            }
            if let (Some(info), Some(timing)) = (&mut probes.liveness, container.probes.liveness) {
                info.kill = Some(kill_info(&life.probe_kill(index, &timing)));
            }
            StartupStep {
                container: container.name.to_owned(),
                role: container.role.as_str(),
                waits_for: container
                    .waits_for
                    .iter()
                    .map(|gate| WaitsFor {
                        container: life.containers[gate.container].name.to_owned(),
                        event: gate.event.as_str(),
                    })
                    .collect(),
                starts_after: index
                    .checked_sub(1)
                    .map(|previous| life.containers[previous].name.to_owned()),
                field: container.path.to_string(),
                known_sidecar: container.known_sidecar.map(str::to_owned),
                post_start: container
                    .post_start
                    .as_ref()
                    .filter(|_| runs_hooks)
                    .map(hook_info),
                probes,
                earliest_start_seconds: Secs(times.start),
                earliest_started_seconds: runs_hooks.then_some(Secs(times.started)),
                earliest_ready_seconds: times.ready.map(Secs),
                drawn: *drawn,
            }
        })
        .collect()
}

fn probe_info(timing: ProbeTiming, first_probe: Secs) -> ProbeInfo {
    ProbeInfo {
        initial_delay_seconds: timing.initial_delay_seconds,
        period_seconds: timing.period_seconds,
        timeout_seconds: timing.timeout_seconds,
        success_threshold: timing.success_threshold,
        failure_threshold: timing.failure_threshold,
        termination_grace_period_seconds: timing.termination_grace_period_seconds,
        first_probe_seconds: first_probe,
        fails_after_seconds: timing.failure_after().into(),
        window_seconds: None,
        window_bounds_seconds: None,
        earliest_ready_seconds: None,
        kill: None,
    }
}

fn kill_info(plan: &KillPlan) -> KillInfo {
    KillInfo {
        grace_period_seconds: plan.grace_seconds,
        grace_period_source: plan.grace_source.as_str(),
        prestop_runs: plan.prestop_runs,
        sigkill_within_seconds: Secs(plan.sigkill.max),
    }
}

fn hook_info(hook: &Hook) -> HookInfo {
    let (duration, seconds) = match (hook.handler, hook.duration) {
        (HandlerKind::TcpSocket, _) => ("fails-at-once", Some(Secs(0.0))),
        (_, HookDuration::Exactly(_)) => ("exact", Some(Secs(hook.bounds().min))),
        (_, HookDuration::AtLeast(n)) => ("at-least", Some(Secs(n))),
        (_, HookDuration::Forever) => ("never-returns", None),
        (_, HookDuration::Unknown) => ("unknown", None),
    };
    HookInfo {
        handler: hook.handler.as_str(),
        duration,
        seconds,
    }
}

fn shutdown_of(life: &Lifecycle<'_>, plan: &ShutdownPlan) -> Shutdown {
    Shutdown {
        grace_period_seconds: plan.grace_period.seconds,
        grace_period_source: plan.grace_source.as_str(),
        effective_grace_period_seconds: plan.effective_grace_seconds,
        hard_bound_seconds: plan.hard_bound_seconds,
        containers: plan
            .containers
            .iter()
            .map(|stop| {
                let container = &life.containers[stop.index];
                let kill = &stop.kill;
                StopStep {
                    container: container.name.to_owned(),
                    role: container.role.as_str(),
                    prestop_seconds: kill
                        .prestop_runs
                        .then(|| kill.prestop.value().map(Secs))
                        .flatten(),
                    stop_order: stop.stop_order,
                    term_window_seconds: kill.window.value().map(Secs),
                    prestop: container.pre_stop.as_ref().map(hook_info),
                    prestop_runs: kill.prestop_runs,
                    prestop_cut_off: kill.prestop_cut_off,
                    waits_for: stop
                        .waits_for
                        .iter()
                        .map(|&i| life.containers[i].name.to_owned())
                        .collect(),
                    sigterm_seconds: kill.sigterm.into(),
                    term_window_bounds_seconds: kill.window.into(),
                    sigkill_seconds: kill.sigkill.into(),
                }
            })
            .collect(),
    }
}

/// What the earliest times do not count.
fn not_counted(life: &Lifecycle<'_>) -> Vec<String> {
    let mut out = vec!["image pulls".to_owned()];
    for container in &life.containers {
        if container.role == Role::Init {
            out.push(format!("{}'s run time", container.name));
            continue;
        }
        if let Some(hook) = &container.post_start
            && hook.bounds().value().is_none()
        {
            out.push(format!("{}'s postStart", container.name));
        }
        if container.probes.startup.is_some() {
            out.push(format!("{}'s startupProbe", container.name));
        }
    }
    out
}

fn notes(
    site: &PodSite<'_>,
    life: &Lifecycle<'_>,
    schedule: &Schedule,
    shutdown: &ShutdownPlan,
) -> Vec<Note> {
    let mut notes = Vec::new();
    let mut note = |text: String, containers: &[&str]| {
        notes.push(Note {
            text,
            containers: containers.iter().map(|c| (*c).to_owned()).collect(),
        });
    };
    let containers = &life.containers;
    for container in containers {
        let Some(gate) = container.waits_for else {
            continue;
        };
        let previous = &containers[gate.container];
        match gate.event {
            GateEvent::PostStart => {
                let hook = previous.post_start.as_ref();
                let length = match hook.map(|h| (h.handler, h.duration)) {
                    Some((HandlerKind::TcpSocket, _)) => {
                        " (a tcpSocket hook, which fails at once)".to_owned()
                    }
                    Some((_, HookDuration::Exactly(n))) => format!(" (sleep {n}s)"),
                    Some((_, HookDuration::AtLeast(n))) => format!(" (at least {})", Secs(n)),
                    Some((_, HookDuration::Forever)) => {
                        format!(", which never returns: `{}` never starts", container.name)
                    }
                    Some((handler, _)) => {
                        format!(" ({}, of unknown length)", handler.as_str())
                    }
                    None => String::new(),
                };
                note(
                    format!(
                        "`{}` starts only after `{}`'s postStart returns{length}",
                        container.name, previous.name
                    ),
                    &[container.name, previous.name],
                );
            }
            GateEvent::Started
                if previous.probes.startup.is_none() && previous.post_start.is_none() =>
            {
                let readiness = if previous.probes.readiness.is_some() {
                    " (its readinessProbe holds nothing back)"
                } else {
                    ""
                };
                note(
                    format!(
                        "`{}` starts as soon as sidecar `{}` is running: `{}` has no startupProbe{readiness}",
                        container.name, previous.name, previous.name
                    ),
                    &[container.name, previous.name],
                );
            }
            _ => {}
        }
    }
    // App containers are reported running only after the whole start loop: a postStart
    // hook holds back the status, and so the probes, of every app container before it.
    let apps: Vec<usize> = (0..containers.len())
        .filter(|&i| containers[i].role == Role::App)
        .collect();
    let last_hook = apps
        .iter()
        .rposition(|&i| containers[i].post_start.is_some())
        .filter(|&at| schedule.containers[apps[at]].start.is_finite());
    if let Some(at) = last_hook {
        let earlier: Vec<&str> = apps[..at].iter().map(|&i| containers[i].name).collect();
        if !earlier.is_empty() {
            let hooked = containers[apps[at]].name;
            let mut involved = earlier.clone();
            involved.push(hooked);
            note(
                format!(
                    "{} {} not reported running, not probed and not Ready until `{hooked}`'s postStart has returned",
                    name_list(earlier.iter().copied()),
                    if earlier.len() == 1 { "is" } else { "are" },
                ),
                &involved,
            );
        }
    }
    let running = containers.iter().filter(|c| c.role != Role::Init).count();
    for container in containers {
        if let Some(known) = container.known_sidecar.filter(|_| running > 1) {
            note(
                format!(
                    "`{}` ({}) is an app container to the kubelet: it starts after the containers declared before it and gets SIGTERM with the app, not after it",
                    container.name, known
                ),
                &[container.name],
            );
        }
        if container.role == Role::Sidecar && container.pre_stop.is_some() {
            note(
                format!(
                    "`{}`'s preStop runs at T0, at the same time as the app containers', not after them",
                    container.name
                ),
                &[container.name],
            );
        }
        let tcp = |hook: &Option<Hook>| {
            container.role != Role::Init
                && hook
                    .as_ref()
                    .is_some_and(|h| h.handler == HandlerKind::TcpSocket)
        };
        if tcp(&container.post_start) {
            note(
                format!(
                    "`{}`'s postStart uses tcpSocket, which the kubelet does not implement: the hook fails and `{}` is killed after every start",
                    container.name, container.name
                ),
                &[container.name],
            );
        }
        if tcp(&container.pre_stop) {
            note(
                format!(
                    "`{}`'s preStop uses tcpSocket, which the kubelet does not implement: it fails at once and delays nothing",
                    container.name
                ),
                &[container.name],
            );
        }
    }
    for stop in &shutdown.containers {
        if stop.kill.prestop_cut_off {
            let name = containers[stop.index].name;
            note(
                format!(
                    "`{name}`'s preStop outlasts the {}s grace period: it is cut off and `{name}` gets SIGTERM at {}",
                    shutdown.effective_grace_seconds,
                    Range::from(stop.kill.sigterm)
                ),
                &[name],
            );
        }
    }
    let grace = shutdown.grace_period.seconds;
    let all: Vec<&str> = containers.iter().map(|c| c.name).collect();
    if grace == 0 {
        note(
            "terminationGracePeriodSeconds 0: the API server removes the pod object at once; the kubelet still allows 1s for preStop hooks and 2s after SIGTERM".to_owned(),
            &all,
        );
    } else if grace < 0 {
        note(
            format!(
                "terminationGracePeriodSeconds {grace}: the API server warns and uses 1s when the pod is deleted"
            ),
            &all,
        );
    }
    if let (Some(deadline), Some(ready)) = (site.spec.active_deadline_seconds, schedule.pod_ready) {
        #[allow(clippy::cast_precision_loss)]
        if (deadline as f64) < ready {
            note(
                format!(
                    "activeDeadlineSeconds {deadline}s ends before the pod can be Ready (at {} at the earliest): it fails with DeadlineExceeded",
                    Secs(ready)
                ),
                &all,
            );
        }
    }
    if site
        .spec
        .readiness_gates
        .as_ref()
        .is_some_and(|gates| !gates.is_empty())
    {
        note(
            "the pod is Ready only once every readinessGates condition is set True by another controller".to_owned(),
            &[],
        );
    }
    notes
}
