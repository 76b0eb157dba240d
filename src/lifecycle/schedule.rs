//! The one walk over the start order: for every container, the earliest and latest time it
//! starts, runs, is started and is Ready, with the delays each bound comes from; the windows in
//! which a probe that is never answered kills it; and the pod's own times. Counted from the
//! moment the pod's sandbox is ready, leaving out image pulls and the kubelet's reaction time
//! (`time.rs`).
//!
//! What the walk follows (kubernetes/kubernetes, `pkg/kubelet/`):
//! - `kuberuntime/kuberuntime_container.go`, `computeInitContainerActions`: init containers
//!   one at a time; the next starts when a classic one has exited 0, or when a sidecar is
//!   started — its startup probe passed (or it has none) and its postStart returned;
//! - `kuberuntime/kuberuntime_manager.go`, `SyncPod`: app containers are started one after
//!   another in one sync; `kuberuntime_container.go`, `startContainer` runs the postStart hook
//!   before it returns, and when the hook fails kills the container (`killContainer`) before
//!   it returns, so a hook — or the kill after it — delays every later start;
//! - `prober/worker.go`, `doProbe`: a probe runs only once the status shows the container
//!   running — after the sync that started it, so for app containers after the whole start
//!   loop — and `initialDelaySeconds` after its start; liveness and readiness wait until the
//!   container is started; the tries then follow `probe.rs`;
//! - `prober/prober_manager.go`, `UpdatePodStatus`: a container without a readiness probe is
//!   Ready once started, one with a readiness probe when it passes (its try is triggered as
//!   soon as it is started); `status/generate.go`: the pod is Ready when every app container
//!   and sidecar is.

use super::kill::KillPlan;
use super::time::{Bounds, Delay, DelayKind, Step, Window};
use super::{
    ByProbe, ContainerLife, ExecSleep, HookEnd, Lifecycle, ProbeKind, ProbeTiming, Role,
    exec_only_sleeps, exec_sleep,
};
use crate::text;

/// The times of one container, from the pod's start.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ContainerTimes {
    /// The runtime starts its process.
    pub(crate) start: Window,
    /// Its postStart hook ends (returns, or fails), for containers with one.
    pub(crate) post_start_end: Option<Window>,
    /// A failing postStart hook's kill, which `startContainer` waits for.
    pub(crate) post_start_kill: Option<KillPlan>,
    /// The status shows it running: its postStart returned, and for an app container every
    /// app container has been started. Never for a container whose postStart fails or never
    /// returns.
    pub(crate) running: Window,
    /// It counts as started: running, and its startup probe passed.
    pub(crate) started: Window,
    /// It is Ready (`None` for classic init containers, which never are).
    pub(crate) ready: Option<Window>,
    /// A classic init container exits 0.
    pub(crate) exit: Option<Window>,
    /// When the first try of each probe can run.
    pub(crate) first_probes: FirstProbes,
    /// Counted from this container's start: the status shows it running.
    pub(crate) running_since_start: Window,
    /// Counted from this container's start: the probe that kills it if it never answers (the
    /// startup probe, else the liveness probe), and when the kill is decided.
    pub(crate) unanswered_kill: Option<(ProbeKind, Window)>,
}

/// When the first try of each probe can run.
pub(crate) type FirstProbes = ByProbe<Window>;

/// The times of every container, in [`Lifecycle::containers`] order, and the pod's.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Schedule {
    pub(crate) containers: Vec<ContainerTimes>,
    /// Every init container has exited or, for sidecars, is started: app containers may start.
    pub(crate) initialized: Window,
    /// The last container in start order starts (`None` without containers). For a Job, its
    /// work runs from here.
    pub(crate) last_start: Option<Window>,
    /// Every app container and sidecar is started.
    pub(crate) started: Option<Window>,
    /// Every app container and sidecar is Ready (readiness gates aside).
    pub(crate) ready: Option<Window>,
}

impl Lifecycle<'_> {
    /// The times of every container and of the pod, computed once.
    pub(crate) fn schedule(&self) -> &Schedule {
        self.schedule.get_or_init(|| self.walk(0.0))
    }

    /// The same walk with every wait of unknown length — an init container's run, a hook
    /// whose length nothing tells, a startup probe without an initial delay — taking at least
    /// `unknown` seconds. Charts draw with it, so that the order shows; with 0 it is
    /// [`Lifecycle::schedule`].
    pub(crate) fn schedule_assuming(&self, unknown: f64) -> Schedule {
        self.walk(unknown)
    }

    /// The walk: init containers one at a time, each released by the previous one's exit 0 or
    /// a sidecar's start (`kuberuntime_container.go`, `computeInitContainerActions`); app
    /// containers one after another in one sync (`kuberuntime_manager.go`, `SyncPod`), each
    /// start returning only after its postStart hook (`startContainer`); statuses seen at the
    /// next sync, so app containers only once the whole loop is over.
    fn walk(&self, unknown: f64) -> Schedule {
        let count = self.containers.len();
        let mut times: Vec<ContainerTimes> = Vec::with_capacity(count);
        // When the next container may start.
        let mut gate = Window::zero();
        let mut initialized = None;
        // For app containers: the end of each one's postStart (or of the kill after it), and
        // how long each one delays the next start.
        let mut app_ends: Vec<(usize, Window, Bounds)> = Vec::new();
        for (index, container) in self.containers.iter().enumerate() {
            let start = gate.clone();
            match container.role {
                Role::Init => {
                    let exit = start.then(&assuming(self.init_run(index), unknown));
                    gate = exit.clone();
                    times.push(ContainerTimes {
                        running: start.clone(),
                        started: start.clone(),
                        ready: None,
                        exit: Some(exit),
                        post_start_end: None,
                        post_start_kill: None,
                        first_probes: FirstProbes::default(),
                        running_since_start: Window::zero(),
                        unanswered_kill: None,
                        start,
                    });
                }
                Role::Sidecar | Role::App => {
                    if container.role == Role::App && initialized.is_none() {
                        initialized = Some(start.clone());
                    }
                    let (hook, kill) = self.post_start_steps(index);
                    let hook = hook.map(|step| assuming(step, unknown));
                    let hook_end = hook.as_ref().map(|step| start.then(step));
                    let after_hook = match (&hook_end, &kill) {
                        (Some(end), Some(kill)) => end.then(kill),
                        (Some(end), None) => end.clone(),
                        (None, _) => start.clone(),
                    };
                    let returns = self.post_start_returns(index);
                    let mut entry = ContainerTimes {
                        running: Window::zero(),
                        started: Window::zero(),
                        ready: None,
                        exit: None,
                        post_start_end: hook_end,
                        post_start_kill: if kill.is_some() {
                            self.post_start_failure_kill(index)
                        } else {
                            None
                        },
                        first_probes: FirstProbes::default(),
                        running_since_start: hook
                            .as_ref()
                            .map_or_else(Window::zero, |step| Window::zero().then(step)),
                        unanswered_kill: None,
                        start,
                    };
                    if container.role == Role::Sidecar {
                        entry.running = if returns {
                            after_hook
                        } else {
                            never(index, container)
                        };
                        self.finish(index, &mut entry, unknown);
                        gate = entry.started.clone();
                    } else {
                        let delay = hook
                            .as_ref()
                            .map_or(Bounds::ZERO, |h| h.length)
                            .plus(kill.as_ref().map_or(Bounds::ZERO, |k| k.length));
                        app_ends.push((index, after_hook.clone(), delay));
                        gate = after_hook;
                    }
                    times.push(entry);
                }
            }
        }
        // App containers are reported running once the start loop is over: after the last
        // one's postStart. Walk back to know what each one still waits for.
        let loop_end = gate.clone();
        let mut rest = Bounds::ZERO;
        for (index, hook_end, delay) in app_ends.iter().rev() {
            let index = *index;
            let container = &self.containers[index];
            let entry = &mut times[index];
            entry.running = if self.post_start_returns(index) {
                hook_end.later(&loop_end)
            } else {
                never(index, container)
            };
            entry.running_since_start = entry.running_since_start.then(&Step {
                container: index,
                kind: DelayKind::StartLoop,
                path: container.path.clone(),
                length: rest,
            });
            self.finish(index, entry, unknown);
            rest = rest.plus(*delay);
        }
        let running: Vec<&ContainerTimes> = self
            .containers
            .iter()
            .zip(&times)
            .filter(|(c, _)| c.role != Role::Init)
            .map(|(_, t)| t)
            .collect();
        let latest = |of: &dyn Fn(&ContainerTimes) -> Option<&Window>| {
            running
                .iter()
                .filter_map(|t| of(t))
                .fold(None, |all: Option<Window>, w| {
                    Some(all.map_or_else(|| w.clone(), |all| all.later(w)))
                })
        };
        Schedule {
            initialized: initialized.unwrap_or(gate),
            last_start: times.last().map(|t| t.start.clone()),
            started: latest(&|t| Some(&t.started)),
            ready: latest(&|t| t.ready.as_ref()),
            containers: times,
        }
    }

    /// How long a classic init container runs: at least the sleeps its command is sure to run,
    /// exactly them when it does nothing else; never ending when its command never exits. The
    /// next init container starts only once it has exited 0 (`computeInitContainerActions`).
    fn init_run(&self, index: usize) -> Step {
        let container = &self.containers[index];
        let step = |length, path| Step {
            container: index,
            kind: DelayKind::InitRun,
            path,
            length,
        };
        if let Some(never) = &container.never_exits {
            return step(Bounds::NEVER, never.path.clone());
        }
        // Declared a sidecar on a version that drops `restartPolicy: Always`: it keeps
        // running as a sidecar would, and nothing after it starts.
        if container.declared_sidecar {
            return step(Bounds::NEVER, container.path.key("restartPolicy"));
        }
        let command = container.container.command.as_deref().unwrap_or_default();
        if command.is_empty() {
            // `args` alone go to the image's entrypoint, which the manifest does not show.
            return step(Bounds::new(0.0, f64::INFINITY), container.path.key("image"));
        }
        let argv: Vec<&str> = command
            .iter()
            .chain(container.container.args.iter().flatten())
            .map(String::as_str)
            .collect();
        let length = match (exec_only_sleeps(&argv), exec_sleep(&argv)) {
            (Some(ExecSleep::AtLeast(exact)), _) => Bounds::exact(exact),
            (_, Some(ExecSleep::AtLeast(least))) => Bounds::new(least, f64::INFINITY),
            (_, Some(ExecSleep::Forever)) => Bounds::NEVER,
            _ => Bounds::new(0.0, f64::INFINITY),
        };
        step(length, container.path.key("command"))
    }

    /// The postStart hook of a sidecar or app container as steps: the hook itself, and when it
    /// fails, the kill `startContainer` waits for (`killContainer` with the pod's grace period:
    /// the preStop hook, then the stop signal, then SIGKILL at the latest).
    fn post_start_steps(&self, index: usize) -> (Option<Step>, Option<Step>) {
        let container = &self.containers[index];
        let Some(hook) = &container.post_start else {
            return (None, None);
        };
        let step = |kind, length| Step {
            container: index,
            kind,
            path: hook.path.clone(),
            length,
        };
        match hook.end() {
            HookEnd::Returns(length) => (Some(step(DelayKind::PostStart, length)), None),
            HookEnd::Never => (Some(step(DelayKind::PostStart, Bounds::NEVER)), None),
            HookEnd::Fails(_) => {
                let kill = self
                    .post_start_failure_kill(index)
                    .map_or(Bounds::ZERO, |kill| kill.duration());
                (
                    Some(step(DelayKind::PostStart, Bounds::ZERO)),
                    Some(step(DelayKind::PostStartKill, kill)),
                )
            }
        }
    }

    fn post_start_returns(&self, index: usize) -> bool {
        self.containers[index]
            .post_start
            .as_ref()
            .is_none_or(|hook| matches!(hook.end(), HookEnd::Returns(_)))
    }

    /// Started, Ready, the first try of each probe and the unanswered-probe kill of a running
    /// container, from its start and running times: `prober/worker.go`, `doProbe` (no try
    /// before the container runs and `initialDelaySeconds` have passed since its start;
    /// liveness and readiness wait until it is started; a result after `failureThreshold`
    /// failures); `prober/prober_manager.go`, `isContainerStarted` and `UpdatePodStatus`
    /// (started without a startup probe; Ready without a readiness probe; a readiness try
    /// triggered at once).
    fn finish(&self, index: usize, entry: &mut ContainerTimes, unknown: f64) {
        let container = &self.containers[index];
        let probes = container.probes;
        let valid = |kind: ProbeKind| probes.get(kind).copied().filter(ProbeTiming::is_valid);
        let delayed = |kind: ProbeKind, timing: ProbeTiming| {
            entry
                .start
                .then(&initial_delay(index, container, kind, timing))
        };
        let first_startup = valid(ProbeKind::Startup)
            .map(|timing| entry.running.later(&delayed(ProbeKind::Startup, timing)));
        let startup_passes = assuming(must_pass(index, container, ProbeKind::Startup), unknown);
        entry.started = match (&first_startup, probes.startup) {
            (Some(first), Some(timing)) if timing.initial_delay() == 0.0 => {
                first.then(&startup_passes)
            }
            (Some(first), _) => first.open_ended(&startup_passes),
            // A startup probe the API server rejects: nothing is known of when it passes.
            (None, Some(_)) => {
                entry
                    .running
                    .open_ended(&must_pass(index, container, ProbeKind::Startup))
            }
            (None, None) => entry.running.clone(),
        };
        // A startup probe on a port the container does not declare never passes.
        if container.unreachable_probes.startup.is_some() {
            entry.started = entry
                .started
                .then(&never_passes(index, container, ProbeKind::Startup));
        }
        let after_started =
            |kind: ProbeKind| valid(kind).map(|timing| entry.started.later(&delayed(kind, timing)));
        let first_readiness = after_started(ProbeKind::Readiness);
        entry.ready = Some(match (&first_readiness, probes.readiness) {
            (Some(first), _) => {
                first.open_ended(&must_pass(index, container, ProbeKind::Readiness))
            }
            (None, Some(_)) => {
                entry
                    .started
                    .open_ended(&must_pass(index, container, ProbeKind::Readiness))
            }
            (None, None) => entry.started.clone(),
        });
        if container.unreachable_probes.readiness.is_some() {
            entry.ready = entry
                .ready
                .as_ref()
                .map(|ready| ready.then(&never_passes(index, container, ProbeKind::Readiness)));
        }
        entry.first_probes = FirstProbes {
            startup: first_startup,
            readiness: first_readiness,
            liveness: after_started(ProbeKind::Liveness),
        };
        // A container that never answers: its startup probe kills it, or without one its
        // liveness probe, once it may first run (after the status shows it running, and its
        // initial delay) and `failureThreshold` tries have failed.
        let killer = [ProbeKind::Startup, ProbeKind::Liveness]
            .into_iter()
            .find(|&kind| probes.get(kind).is_some());
        entry.unanswered_kill = killer
            .and_then(|kind| valid(kind).map(|timing| (kind, timing)))
            .filter(|_| !entry.running.is_never())
            .map(|(kind, timing)| {
                let eligible = entry
                    .running_since_start
                    .later(&Window::zero().then(&initial_delay(index, container, kind, timing)));
                let decided = timing
                    .failure_steps(kind, index, &container.path)
                    .iter()
                    .fold(eligible, |window, step| window.then(step));
                (kind, decided)
            });
    }
}

/// A step of unknown length that takes at least `unknown` seconds.
fn assuming(mut step: Step, unknown: f64) -> Step {
    if step.length.min == 0.0 && step.length.max.is_infinite() {
        step.length.min = unknown;
    }
    step
}

fn initial_delay(
    index: usize,
    container: &ContainerLife<'_>,
    kind: ProbeKind,
    timing: ProbeTiming,
) -> Step {
    Step {
        container: index,
        kind: DelayKind::InitialDelay(kind),
        path: container.path.key(kind.field()).key("initialDelaySeconds"),
        length: Bounds::exact(timing.initial_delay()),
    }
}

fn must_pass(index: usize, container: &ContainerLife<'_>, kind: ProbeKind) -> Step {
    Step {
        container: index,
        kind: DelayKind::MustPass(kind),
        path: container.path.key(kind.field()),
        length: Bounds::new(0.0, f64::INFINITY),
    }
}

/// A probe that can never pass: the wait for it never ends.
fn never_passes(index: usize, container: &ContainerLife<'_>, kind: ProbeKind) -> Step {
    Step {
        container: index,
        kind: DelayKind::NeverPasses(kind),
        path: container.path.key(kind.field()),
        length: Bounds::NEVER,
    }
}

/// The running time of a container whose postStart hook never returns, or fails so that the
/// container is killed after every start: never.
fn never(index: usize, container: &ContainerLife<'_>) -> Window {
    let (kind, path) = match &container.post_start {
        Some(hook) if matches!(hook.end(), HookEnd::Fails(_)) => {
            (DelayKind::PostStartKill, hook.path.clone())
        }
        Some(hook) => (DelayKind::PostStart, hook.path.clone()),
        None => (DelayKind::PostStart, container.path.clone()),
    };
    Window::zero().then(&Step {
        container: index,
        kind,
        path,
        length: Bounds::NEVER,
    })
}

impl Lifecycle<'_> {
    /// A delay in words, the same in findings and timelines: "init container `migrate` sleeps
    /// 60s", "startup probe of `proxy` first runs after 45s".
    pub(crate) fn describe_delay(&self, delay: &Delay) -> String {
        // `` `web` ``, or "the 2nd container" for a container without a name.
        let name = self
            .containers
            .get(delay.container)
            .map_or_else(String::new, ContainerLife::quoted);
        let init = if name.starts_with('`') {
            format!("init container {name}")
        } else {
            name.clone()
        };
        let length = text::seconds(delay.seconds);
        let probe = |kind: ProbeKind| match kind {
            ProbeKind::Startup => "startup probe",
            ProbeKind::Readiness => "readiness probe",
            ProbeKind::Liveness => "liveness probe",
        };
        match delay.kind {
            DelayKind::InitRun if delay.seconds.is_finite() => {
                format!("{init} sleeps {length}")
            }
            DelayKind::InitRun => format!("{init} runs for as long as it needs"),
            DelayKind::PostStart if delay.seconds.is_finite() => {
                format!("postStart of {name} sleeps {length}")
            }
            DelayKind::PostStart => format!("postStart of {name} never returns"),
            DelayKind::PostStartKill if delay.seconds.is_finite() => {
                format!("postStart of {name} fails, and killing {name} takes {length}")
            }
            DelayKind::PostStartKill => {
                format!("postStart of {name} fails, so {name} is killed after every start")
            }
            DelayKind::StartLoop => {
                format!(
                    "the app containers after {name} start, with their postStart hooks, in {length}"
                )
            }
            DelayKind::InitialDelay(kind) => {
                format!("{} of {name} first runs after {length}", probe(kind))
            }
            DelayKind::NextTick(kind) => {
                format!(
                    "up to {length} until the next try of the {} of {name}",
                    probe(kind)
                )
            }
            DelayKind::Tries(kind) => {
                format!(
                    "the further tries of the {} of {name} take {length}",
                    probe(kind)
                )
            }
            DelayKind::Timeout(kind) => {
                format!(
                    "the last try of the {} of {name} times out after {length}",
                    probe(kind)
                )
            }
            DelayKind::MustPass(kind) => format!("the {} of {name} has to pass", probe(kind)),
            DelayKind::NeverPasses(kind) => {
                let port = self
                    .containers
                    .get(delay.container)
                    .and_then(|c| c.unreachable_probes.get(kind))
                    .map_or_else(String::new, |port| {
                        format!(": {name} declares no port `{port}`")
                    });
                format!("the {} of {name} can never pass{port}", probe(kind))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lifecycle::tests::with_life;
    use crate::lifecycle::time::DelayKind;
    use crate::lifecycle::{Bounds, ProbeKind};

    #[test]
    fn a_post_start_sleep_holds_back_later_containers_and_every_app_status() {
        with_life(
            r#"{"containers": [
                {"name": "a", "readinessProbe": {"exec": {"command": ["true"]}}},
                {"name": "b", "lifecycle": {"postStart": {"sleep": {"seconds": 5}}}},
                {"name": "c"}]}"#,
            |life| {
                let schedule = life.schedule();
                let starts: Vec<f64> = schedule
                    .containers
                    .iter()
                    .map(|t| t.start.earliest.seconds)
                    .collect();
                assert_eq!(starts, [0.0, 0.0, 5.0]);
                // `a` has no hook, but its status shows only after the start loop.
                assert_eq!(schedule.containers[0].running.bounds(), Bounds::exact(5.0));
                let ready = schedule.ready.as_ref().unwrap();
                assert_eq!(ready.earliest.seconds, 5.0);
                assert!(ready.latest.seconds.is_infinite());
                let kinds: Vec<DelayKind> = ready
                    .earliest
                    .trail
                    .delays()
                    .iter()
                    .map(|d| d.kind)
                    .collect();
                assert_eq!(kinds, [DelayKind::PostStart]);
            },
        );
    }

    #[test]
    fn a_startup_probe_cannot_kill_before_the_containers_own_post_start() {
        with_life(
            r#"{"containers": [{"name": "web",
                "lifecycle": {"postStart": {"sleep": {"seconds": 30}}},
                "startupProbe": {"tcpSocket": {"port": 80}, "periodSeconds": 10, "failureThreshold": 3}}]}"#,
            |life| {
                let times = &life.schedule().containers[0];
                let (kind, window) = times.unanswered_kill.as_ref().unwrap();
                assert_eq!(*kind, ProbeKind::Startup);
                // First try at 30 s at the earliest, two more 10 s apart; at the latest a tick
                // later, and the last try runs into its 1 s timeout.
                assert_eq!(window.bounds(), Bounds::new(50.0, 61.0));
            },
        );
    }

    #[test]
    fn an_init_containers_sleep_counts_towards_ready() {
        with_life(
            r#"{"initContainers": [{"name": "wait", "image": "busybox", "command": ["sleep", "60"]}],
                "containers": [{"name": "app"}]}"#,
            |life| {
                let schedule = life.schedule();
                assert_eq!(
                    schedule.containers[0].exit.as_ref().unwrap().bounds(),
                    Bounds::exact(60.0)
                );
                assert_eq!(
                    schedule.ready.as_ref().unwrap().bounds(),
                    Bounds::exact(60.0)
                );
                assert_eq!(
                    life.describe_delay(
                        schedule.ready.as_ref().unwrap().earliest.trail.delays()[0]
                    ),
                    "init container `wait` sleeps 60s"
                );
            },
        );
    }

    #[test]
    fn a_failing_post_start_kills_the_container_before_the_next_starts() {
        with_life(
            r#"{"containers": [
                {"name": "web", "lifecycle": {
                    "postStart": {"tcpSocket": {"port": 80}},
                    "preStop": {"sleep": {"seconds": 5}}}},
                {"name": "next"}]}"#,
            |life| {
                let schedule = life.schedule();
                // preStop 5 s, then SIGTERM; SIGKILL at the latest when the 30 s are over.
                assert_eq!(
                    schedule.containers[1].start.bounds(),
                    Bounds::new(5.0, 30.0)
                );
                assert!(schedule.containers[0].running.is_never());
                assert!(schedule.ready.as_ref().unwrap().is_never());
            },
        );
    }

    #[test]
    fn a_sidecar_gates_the_next_container_by_its_startup_probe() {
        with_life(
            r#"{"initContainers": [
                {"name": "init"},
                {"name": "proxy", "restartPolicy": "Always",
                 "startupProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 10},
                 "readinessProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 15, "successThreshold": 2, "periodSeconds": 5}}],
              "containers": [{"name": "app"}]}"#,
            |life| {
                let schedule = life.schedule();
                let proxy = &schedule.containers[1];
                assert_eq!(proxy.started.earliest.seconds, 10.0);
                assert_eq!(
                    proxy
                        .first_probes
                        .readiness
                        .as_ref()
                        .unwrap()
                        .earliest
                        .seconds,
                    15.0
                );
                // Status updates trigger readiness tries at once: the second success may come
                // right after the first.
                assert_eq!(proxy.ready.as_ref().unwrap().earliest.seconds, 15.0);
                assert_eq!(schedule.containers[2].start.earliest.seconds, 10.0);
                assert!(schedule.containers[0].ready.is_none());
            },
        );
    }

    #[test]
    fn a_hook_that_never_returns_means_never() {
        with_life(
            r#"{"containers": [
                {"name": "a", "lifecycle": {"postStart": {"exec": {"command": ["sleep", "infinity"]}}}},
                {"name": "b"}]}"#,
            |life| {
                let schedule = life.schedule();
                assert!(schedule.containers[1].start.is_never());
                assert!(schedule.ready.as_ref().unwrap().is_never());
            },
        );
    }

    #[test]
    fn a_probe_on_an_undeclared_port_never_passes() {
        with_life(
            r#"{"containers": [{"name": "web",
                "readinessProbe": {"httpGet": {"path": "/", "port": "http"}}}]}"#,
            |life| {
                let ready = life.schedule().ready.as_ref().unwrap();
                assert!(ready.is_never());
                let delays = ready.earliest.trail.delays();
                assert_eq!(
                    life.describe_delay(delays[delays.len() - 1]),
                    "the readiness probe of `web` can never pass: `web` declares no port `http`"
                );
            },
        );
    }

    #[test]
    fn a_sidecar_the_version_drops_never_exits() {
        crate::lifecycle::tests::with_life_at(
            r#"{"initContainers": [{"name": "proxy", "image": "example/proxy:1", "restartPolicy": "Always"}],
                "containers": [{"name": "app"}]}"#,
            crate::versions::KubeVersion::new(28),
            |life| {
                let schedule = life.schedule();
                assert!(schedule.containers[0].exit.as_ref().unwrap().is_never());
                assert!(schedule.ready.as_ref().unwrap().is_never());
            },
        );
    }

    #[test]
    fn negative_probe_numbers_give_no_timing() {
        with_life(
            r#"{"containers": [{"name": "a",
                "livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": -5}}]}"#,
            |life| {
                let times = &life.schedule().containers[0];
                assert!(times.unanswered_kill.is_none());
                assert!(times.first_probes.liveness.is_none());
            },
        );
    }
}
