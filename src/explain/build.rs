//! Builds a [`PodExplanation`] from the lifecycle model. Every time here is one the model
//! computed ([`Lifecycle::schedule`], [`Lifecycle::shutdown`], [`Lifecycle::probe_kill`],
//! [`ProbeTiming`]'s windows); nothing is worked out again, so `explain` and the findings of
//! `check` tell the same times.

use super::model::{
    DelayInfo, Drawn, DrawnStep, HookInfo, KillInfo, Note, PlatformCut, PodExplanation, ProbeInfo,
    ProbeSet, Shutdown, StartupStep, StopStep, StopWaitsInfo, WaitsFor,
};
use super::units::{Range, Secs};
use crate::lifecycle::{
    ContainerTimes, Delay, Hook, HookDuration, HookEnd, HookFailure, KillPlan, Lifecycle,
    ProbeKind, ProbeTiming, Role, Schedule, ShutdownPlan,
};
use crate::model::ObjectRef;

/// What explaining a pod spec takes: where it is, its lifecycle, and the findings `check`
/// reports for its object.
pub struct PodSource<'a, 'l, F> {
    /// The file as reports name it.
    pub file: &'a str,
    /// The line of the pod spec's key.
    pub line: usize,
    pub object: &'a ObjectRef,
    /// Path of the pod spec in the object.
    pub spec_path: String,
    pub life: &'a Lifecycle<'l>,
    /// The pod spec lists `readinessGates`.
    pub readiness_gates: bool,
    pub active_deadline_seconds: Option<i64>,
    /// The findings, as `check --format json` writes them.
    pub findings: Vec<F>,
}

/// Explains one pod spec.
pub fn explain_pod<F>(source: PodSource<'_, '_, F>) -> PodExplanation<F> {
    let life = source.life;
    let schedule = life.schedule();
    // Charts draw an unknown wait a tenth of the known timeline long (at least 1s), so that
    // the order shows.
    let horizon = schedule
        .containers
        .iter()
        .flat_map(|t| [Some(&t.start), t.ready.as_ref()])
        .flatten()
        .map(|w| w.earliest.seconds)
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max);
    let unknown_seconds = (horizon / 10.0).round().max(1.0);
    let drawn = life.schedule_assuming(unknown_seconds);
    let ready_delays = schedule
        .ready
        .as_ref()
        .map(|ready| {
            ready
                .earliest
                .counted_delays()
                .into_iter()
                .map(|d| delay_info(life, d))
                .collect()
        })
        .unwrap_or_default();
    PodExplanation {
        file: source.file.to_owned(),
        line: source.line,
        object: source.object.clone(),
        field: source.spec_path,
        kube_version: life.kube.to_string(),
        startup: startup_steps(life, schedule, &drawn),
        earliest_ready_seconds: schedule.ready.as_ref().map(|w| Secs(w.earliest.seconds)),
        ready_seconds: schedule.ready.as_ref().map(Range::from),
        ready_delays,
        started_seconds: schedule.started.as_ref().map(Range::from),
        not_counted: not_counted(life),
        active_deadline_seconds: source.active_deadline_seconds,
        shutdown: shutdown_of(life, life.shutdown()),
        notes: life
            .remarks(source.readiness_gates)
            .into_iter()
            .map(|remark| Note {
                text: remark.text,
                containers: remark
                    .containers
                    .iter()
                    .map(|&i| life.containers[i].label().into_owned())
                    .collect(),
            })
            .collect(),
        findings: source.findings,
        drawn: Drawn {
            unknown_seconds,
            pod_ready: drawn.ready.as_ref().map(|w| w.earliest.seconds),
        },
    }
}

pub(super) fn delay_info(life: &Lifecycle<'_>, delay: &Delay) -> DelayInfo {
    DelayInfo {
        container: life.containers[delay.container].label().into_owned(),
        what: life.describe_delay(delay),
        seconds: Secs(delay.seconds),
        field: delay.path.to_string(),
    }
}

fn startup_steps(life: &Lifecycle<'_>, schedule: &Schedule, drawn: &Schedule) -> Vec<StartupStep> {
    life.containers
        .iter()
        .zip(schedule.containers.iter().zip(&drawn.containers))
        .enumerate()
        .map(|(index, (container, (times, drawn)))| {
            let runs = container.role != Role::Init;
            StartupStep {
                container: container.label().into_owned(),
                role: container.role.as_str(),
                waits_for: container
                    .waits_for
                    .iter()
                    .map(|gate| WaitsFor {
                        container: life.containers[gate.container].label().into_owned(),
                        event: gate.event.as_str(),
                    })
                    .collect(),
                starts_after: index
                    .checked_sub(1)
                    .map(|previous| life.containers[previous].label().into_owned()),
                field: container.path.to_string(),
                known_sidecar: container.known_sidecar.map(str::to_owned),
                post_start: container
                    .post_start
                    .as_ref()
                    .map(|hook| hook_info(hook, times.post_start_kill.as_ref())),
                probes: probe_set(life, index, times),
                earliest_start_seconds: Secs(times.start.earliest.seconds),
                earliest_started_seconds: runs.then_some(Secs(times.started.earliest.seconds)),
                earliest_ready_seconds: times.ready.as_ref().map(|w| Secs(w.earliest.seconds)),
                start_seconds: Range::from(&times.start),
                running_seconds: runs.then(|| Range::from(&times.running)),
                started_seconds: runs.then(|| Range::from(&times.started)),
                ready_seconds: times.ready.as_ref().map(Range::from),
                exit_seconds: times.exit.as_ref().map(Range::from),
                never_exits: container.never_exits_because(life.kube),
                drawn: DrawnStep {
                    start: drawn.start.earliest.seconds,
                    post_start_end: drawn
                        .post_start_end
                        .as_ref()
                        .map_or(drawn.start.earliest.seconds, |w| w.earliest.seconds),
                    started: drawn.started.earliest.seconds,
                    ready: drawn.ready.as_ref().map(|w| w.earliest.seconds),
                },
            }
        })
        .collect()
}

fn probe_set(life: &Lifecycle<'_>, index: usize, times: &ContainerTimes) -> ProbeSet {
    let probes = life.containers[index].probes;
    let info = |kind: ProbeKind| {
        probes
            .get(kind)
            .copied()
            .map(|timing| probe_info(life, index, kind, timing, times))
    };
    ProbeSet {
        startup: info(ProbeKind::Startup),
        readiness: info(ProbeKind::Readiness),
        liveness: info(ProbeKind::Liveness),
    }
}

fn probe_info(
    life: &Lifecycle<'_>,
    index: usize,
    kind: ProbeKind,
    timing: ProbeTiming,
    times: &ContainerTimes,
) -> ProbeInfo {
    let valid = timing.is_valid();
    let unanswered = times
        .unanswered_kill
        .as_ref()
        .filter(|(killer, _)| *killer == kind)
        .map(|(_, window)| Range::from(window));
    ProbeInfo {
        initial_delay_seconds: timing.initial_delay_seconds,
        period_seconds: timing.period_seconds,
        timeout_seconds: timing.timeout_seconds,
        success_threshold: timing.success_threshold,
        failure_threshold: timing.failure_threshold,
        termination_grace_period_seconds: timing.termination_grace_period_seconds,
        first_probe_seconds: times
            .first_probes
            .get(kind)
            .map(|w| Secs(w.earliest.seconds)),
        interval_seconds: valid.then(|| timing.interval().into()),
        fails_after_seconds: valid.then(|| Range::from(&timing.failure_after(kind))),
        recovers_after_seconds: (valid && kind == ProbeKind::Readiness)
            .then(|| timing.success_after().into()),
        window_bounds_seconds: unanswered,
        earliest_ready_seconds: (kind == ProbeKind::Readiness)
            .then(|| times.ready.as_ref().map(|w| Secs(w.earliest.seconds)))
            .flatten(),
        kill: valid
            .then(|| life.probe_kill(index, kind))
            .flatten()
            .map(|plan| kill_info(&plan)),
        never_passes: life.containers[index]
            .unreachable_probes
            .get(kind)
            .map(|port| format!("the container declares no port `{port}`")),
    }
}

fn kill_info(plan: &KillPlan) -> KillInfo {
    KillInfo {
        grace_period_seconds: plan.grace_seconds,
        grace_period_source: plan.grace_source.as_str(),
        prestop_runs: plan.prestop_runs,
        sigterm_seconds: plan.sigterm.into(),
        term_window_seconds: plan.window.into(),
        sigkill_seconds: plan.sigkill.into(),
        sigkill_within_seconds: Secs(plan.sigkill.max),
    }
}

fn hook_info(hook: &Hook, kill: Option<&KillPlan>) -> HookInfo {
    let (duration, seconds, fails_because) = match hook.end() {
        HookEnd::Fails(failure) => (
            "fails-at-once",
            Some(Secs(0.0)),
            Some(match failure {
                HookFailure::NoTcpHandler => "the kubelet has no tcpSocket handler".to_owned(),
                HookFailure::UndeclaredPort(port) => {
                    format!("the container declares no port `{port}`")
                }
            }),
        ),
        HookEnd::Never => ("never-returns", None, None),
        HookEnd::Returns(length) => match (length.value(), hook.duration) {
            (Some(exact), _) if length.max.is_finite() => ("exact", Some(Secs(exact)), None),
            (_, HookDuration::AtLeast(_)) => ("at-least", Some(Secs(length.min)), None),
            _ => ("unknown", None, None),
        },
    };
    HookInfo {
        handler: hook.handler.as_str(),
        duration,
        seconds,
        fails_because,
        kill: kill.map(kill_info),
    }
}

fn shutdown_of(life: &Lifecycle<'_>, plan: &ShutdownPlan) -> Shutdown {
    Shutdown {
        grace_period_seconds: plan.grace_period.seconds,
        grace_period_source: plan.grace_source.as_str(),
        effective_grace_period_seconds: plan.effective_grace_seconds,
        hard_bound_seconds: Secs(plan.all_killed_by),
        containers: plan
            .containers
            .iter()
            .map(|stop| {
                let container = &life.containers[stop.index];
                let kill = &stop.kill;
                StopStep {
                    container: container.label().into_owned(),
                    role: container.role.as_str(),
                    prestop_seconds: kill
                        .prestop_runs
                        .then(|| kill.prestop.value().map(Secs))
                        .flatten(),
                    stop_order: stop.stop_order,
                    term_window_seconds: kill.window.value().map(Secs),
                    prestop: container
                        .pre_stop
                        .as_ref()
                        .map(|hook| hook_info(hook, None)),
                    prestop_runs: kill.prestop_runs,
                    prestop_cut_off: kill.prestop_cut_off,
                    prestop_rejected: life.rejected_prestop(stop.index).is_some(),
                    waits_for: StopWaitsInfo {
                        app_containers: stop.waits_for.app_containers,
                        sidecar: stop
                            .waits_for
                            .sidecar
                            .map(|i| life.containers[i].label().into_owned()),
                    },
                    sigterm_seconds: kill.sigterm.into(),
                    term_window_bounds_seconds: kill.window.into(),
                    sigkill_seconds: kill.sigkill.into(),
                }
            })
            .collect(),
        platform_cuts: Vec::new(),
    }
}

/// Where each platform in effect for the pod — placed there by its spec, or named by the
/// settings — stops it before its own plan is done: the kubelet's kill with the platform's
/// shorter grace period ([`Lifecycle::shutdown_within`]), and the steps that then do not
/// happen. The same cut `shutdown-exceeds-platform-notice` and
/// `grace-period-exceeds-platform-cap` report.
pub(crate) fn platform_cuts(
    site: &crate::model::PodSite<'_>,
    life: &Lifecycle<'_>,
    configured: &[&'static crate::lifecycle::platforms::Platform],
) -> Vec<PlatformCut> {
    use crate::lifecycle::platforms::{Caps, in_effect};
    let own = life.shutdown();
    let mut cuts = Vec::new();
    for effect in in_effect(site.spec, &site.spec_path, configured) {
        let limit = effect
            .platform
            .limit(Caps::Notice)
            .or_else(|| effect.platform.limit(Caps::GraceHonoured));
        let Some(limit) = limit else { continue };
        if own.effective_grace_seconds <= limit.seconds {
            continue;
        }
        let cut = life.shutdown_within(limit.seconds);
        let cap = crate::lifecycle::seconds(limit.seconds);
        let mut not_happening = Vec::new();
        for (planned, stop) in own.containers.iter().zip(&cut.containers) {
            let container = &life.containers[stop.index];
            let name = container.label();
            if stop.kill.prestop_cut_off && !planned.kill.prestop_cut_off {
                not_happening.push(format!(
                    "the rest of {name}'s preStop hook after {}",
                    crate::text::seconds(cap)
                ));
            }
            if container.role == Role::Sidecar && stop.kill.sigterm.min >= cap {
                not_happening.push(format!("{name}'s stop after the app containers"));
            } else if planned.kill.window.max > stop.kill.window.max {
                not_happening.push(format!(
                    "{} of {name}'s {} between SIGTERM and SIGKILL",
                    crate::text::seconds(planned.kill.window.max - stop.kill.window.max),
                    crate::text::seconds(planned.kill.window.max)
                ));
            }
        }
        cuts.push(PlatformCut {
            platform: effect.platform.name,
            by: effect.platform.stopped_by,
            caps: limit.caps.as_str(),
            seconds: limit.seconds,
            placed_by: effect.placement.map(|p| p.path.to_string()),
            sigkill_by_seconds: Secs(cut.all_killed_by),
            not_happening,
        });
    }
    cuts
}

/// What the times do not count, because the manifest cannot tell.
fn not_counted(life: &Lifecycle<'_>) -> Vec<String> {
    let mut out = vec!["image pulls".to_owned()];
    for container in &life.containers {
        if container.role == Role::Init {
            out.push(format!("{}'s run time", container.label()));
            continue;
        }
        if let Some(hook) = &container.post_start
            && matches!(hook.end(), HookEnd::Returns(length) if length.max.is_infinite())
        {
            out.push(format!("{}'s postStart", container.label()));
        }
        if container.probes.startup.is_some() {
            out.push(format!("{}'s startupProbe", container.label()));
        }
    }
    out
}
