//! The lifecycle a pod spec implies: who starts when, what each start waits for, probe settings
//! after defaults, the shutdown plan, and every time that follows — computed once per pod spec,
//! as the kubelet of the target version would run it. Rules and `podcycle explain` read this
//! model; neither works out an order, a grace period, a hook's length or a probe's timing on
//! its own.
//!
//! - [`Lifecycle::derive`]: roles, start order and the gates between starts, hooks and probes;
//! - `Lifecycle::schedule`: the one walk over the start order, with the earliest and latest
//!   time of every event and the delays each bound comes from (`schedule.rs`);
//! - `Lifecycle::shutdown`: the pod's deletion (`shutdown.rs`);
//! - `Lifecycle::probe_kill`, `Lifecycle::post_start_failure_kill`: the other kills
//!   (`kill.rs`); probe windows by the prober's loop (`probe.rs`).
//!
//! docs/lifecycle.md lists every formula with the kubelet function it mirrors.

mod argv;
mod command;
pub(crate) mod handlers;
mod kill;
pub mod platforms;
mod probe;
mod remarks;
pub mod rollout;
mod schedule;
mod shell;
mod shutdown;
pub(crate) mod sidecars;
mod stopped_by_work;
mod time;

use std::borrow::Cow;
use std::cell::OnceCell;

pub(crate) use command::NeverExits;
pub(crate) use handlers::{HandlerSite, HandlerUse, handlers};
pub(crate) use kill::{GraceSource, KillPlan};
pub(crate) use probe::{ByProbe, ProbeTiming, Probes};
pub(crate) use schedule::{ContainerTimes, Schedule};
pub(crate) use shell::ExecSleep;
pub use shell::{exec_only_sleeps, exec_sleep, only_sleep};
pub(crate) use shutdown::ShutdownPlan;
pub use sidecars::Sidecars;
pub(crate) use sidecars::{SidecarPattern, known_sidecars_markdown};
pub(crate) use stopped_by_work::{quit_not_called, stopped_by_work};
pub(crate) use time::{Bounds, Delay, Window, seconds};

/// Which probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeKind {
    Startup,
    Readiness,
    Liveness,
}

impl ProbeKind {
    /// The field name: `startupProbe`, ...
    pub(crate) fn field(self) -> &'static str {
        match self {
            ProbeKind::Startup => "startupProbe",
            ProbeKind::Readiness => "readinessProbe",
            ProbeKind::Liveness => "livenessProbe",
        }
    }
}

use crate::model::IntOrString;
use crate::model::PodSite;
use crate::model::core::{Container, LifecycleHandler};
use crate::model::path::{FieldPath, PathSegment};
use crate::text;
use crate::versions::{
    CONTAINER_RESTART_RULES, KubeVersion, POD_LIFECYCLE_SLEEP_ACTION, SIDECAR_CONTAINERS,
};

/// Kubernetes' default `terminationGracePeriodSeconds` (core/v1 `DefaultTerminationGracePeriodSeconds`).
pub(crate) const DEFAULT_GRACE_PERIOD_SECONDS: i64 = 30;
/// The kubelet never gives a container less than this between the stop signal and SIGKILL
/// (kuberuntime_manager.go `minimumGracePeriodInSeconds`).
pub(crate) const MINIMUM_STOP_WINDOW_SECONDS: i64 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// A classic init container: runs to completion before the next container starts.
    Init,
    /// An init container with `restartPolicy: Always`: keeps running beside the app.
    Sidecar,
    /// A container in `containers`.
    App,
}

impl Role {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Role::Init => "init",
            Role::Sidecar => "sidecar",
            Role::App => "app",
        }
    }
}

/// The event a container's start waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GateEvent {
    /// The previous classic init container exited successfully.
    Completion,
    /// The previous sidecar is started: its startup probe passed and its postStart returned.
    Started,
    /// The previous app container's postStart hook returned.
    PostStart,
}

impl GateEvent {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            GateEvent::Completion => "completion",
            GateEvent::Started => "started",
            GateEvent::PostStart => "post-start",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Gate {
    /// Index into [`Lifecycle::containers`].
    pub(crate) container: usize,
    pub(crate) event: GateEvent,
}

/// Which handler a hook uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandlerKind {
    Exec,
    HttpGet,
    TcpSocket,
    Sleep,
    None,
    Several,
}

impl HandlerKind {
    /// The handler's field name (`exec`, `httpGet`, ...); `none` or `several` for a hook the
    /// API server rejects.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            HandlerKind::Exec => "exec",
            HandlerKind::HttpGet => "httpGet",
            HandlerKind::TcpSocket => "tcpSocket",
            HandlerKind::Sleep => "sleep",
            HandlerKind::None => "none",
            HandlerKind::Several => "several",
        }
    }
}

/// How long a hook is known to take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum HookDuration {
    /// The `sleep` action: exactly this many seconds.
    Exactly(i64),
    /// An exec command that sleeps at least this long.
    AtLeast(f64),
    /// An exec command that never returns.
    Forever,
    /// Not knowable from the manifest.
    Unknown,
}

impl HookDuration {
    /// The least number of seconds the hook certainly takes, if known. A negative `sleep`
    /// (which the API server rejects) tells nothing.
    pub(crate) fn known_seconds(self) -> Option<f64> {
        match self {
            #[allow(clippy::cast_precision_loss)]
            HookDuration::Exactly(seconds) if seconds >= 0 => Some(seconds as f64),
            HookDuration::AtLeast(seconds) => Some(seconds),
            HookDuration::Forever => Some(f64::INFINITY),
            HookDuration::Exactly(_) | HookDuration::Unknown => None,
        }
    }
}

/// Why the kubelet's handler runner fails a hook whatever the container does
/// (pkg/kubelet/lifecycle/handlers.go, `Run`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum HookFailure {
    /// The kubelet has no tcpSocket handler for hooks.
    NoTcpHandler,
    /// An httpGet hook names a port the container does not declare (`resolvePort`).
    UndeclaredPort(String),
}

/// How a hook ends.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum HookEnd {
    /// It returns after this long.
    Returns(Bounds),
    /// It fails at once.
    Fails(HookFailure),
    /// It never returns.
    Never,
}

#[derive(Clone, Debug)]
pub(crate) struct Hook {
    /// Path of the `postStart`/`preStop` field from the object root.
    pub(crate) path: FieldPath,
    pub(crate) handler: HandlerKind,
    pub(crate) duration: HookDuration,
    /// An exec hook whose command does nothing but sleep (`["sleep", "5"]`, `sh -c "sleep 5"`):
    /// `duration` is all it does.
    pub(crate) only_sleeps: bool,
    /// Set when the hook fails whatever the container does.
    pub(crate) fails: Option<HookFailure>,
}

impl Hook {
    /// The hook's length of `seconds` as written: a `sleep` action's integer exactly (an `f64`
    /// rounds 9223372036854775807 up), else in seconds.
    pub(crate) fn length_text(&self, seconds: f64) -> String {
        match self.duration {
            HookDuration::Exactly(whole) => format!("{whole}s"),
            _ => crate::text::seconds(seconds),
        }
    }

    /// How the hook ends, as the kubelet runs it (`handlerRunner.Run`): a `sleep` waits its
    /// seconds (`runSleepHandler`); an exec command takes at least the sleeps it is sure to
    /// run, exactly those when it does nothing else; anything else takes an unknown time.
    pub(crate) fn end(&self) -> HookEnd {
        if let Some(failure) = &self.fails {
            return HookEnd::Fails(failure.clone());
        }
        match self.duration {
            #[allow(clippy::cast_precision_loss)]
            HookDuration::Exactly(n) if n >= 0 => HookEnd::Returns(Bounds::exact(n as f64)),
            HookDuration::AtLeast(n) if self.only_sleeps => HookEnd::Returns(Bounds::exact(n)),
            HookDuration::AtLeast(n) => HookEnd::Returns(Bounds::new(n, f64::INFINITY)),
            HookDuration::Forever => HookEnd::Never,
            HookDuration::Exactly(_) | HookDuration::Unknown => {
                HookEnd::Returns(Bounds::new(0.0, f64::INFINITY))
            }
        }
    }
}

/// One container in start order.
#[derive(Debug)]
pub(crate) struct ContainerLife<'a> {
    pub(crate) name: &'a str,
    pub(crate) role: Role,
    pub(crate) container: &'a Container,
    /// Path of the container from the object root (`spec.initContainers[1]`).
    pub(crate) path: FieldPath,
    /// The hooks the kubelet runs: none for a classic init container (the API server rejects
    /// them there), none for a `sleep` hook the target version drops.
    pub(crate) post_start: Option<Hook>,
    pub(crate) pre_stop: Option<Hook>,
    pub(crate) probes: Probes,
    /// An init container that sets `restartPolicy: Always`. It is a sidecar only where the
    /// target version has native sidecars; elsewhere the API server drops the field and it is
    /// a classic init container.
    pub(crate) declared_sidecar: bool,
    /// What an app container is when it is a sidecar by name or image (built-in or
    /// configured), e.g. `Istio proxy`.
    pub(crate) known_sidecar: Option<&'a str>,
    /// What this container's start waits for, if anything.
    pub(crate) waits_for: Option<Gate>,
    /// Set when the command can be seen never to exit (`sleep infinity`, `while true` with no
    /// way out, a server in the foreground).
    pub(crate) never_exits: Option<NeverExits>,
    /// The probes that can never pass, each with the named port its container does not
    /// declare (`findPortByName` fails, so every try fails).
    pub(crate) unreachable_probes: ByProbe<String>,
}

impl ContainerLife<'_> {
    /// What text calls the container: its name, or for a container without one (which the
    /// API server rejects, and `invalid-value` reports) its place, "the 2nd container".
    pub(crate) fn label(&self) -> Cow<'_, str> {
        if !self.name.is_empty() {
            return Cow::Borrowed(self.name);
        }
        match self.path.segments() {
            [.., PathSegment::Key(list), PathSegment::Index(index)] => {
                Cow::Owned(text::ordinal_container(list, *index))
            }
            _ => Cow::Borrowed("a container without a name"),
        }
    }

    /// The container in a sentence: `` `web` `` in backticks, or its place when it has no
    /// name.
    pub(crate) fn quoted(&self) -> String {
        if self.name.is_empty() {
            self.label().into_owned()
        } else {
            format!("`{}`", self.name)
        }
    }

    /// The container after a noun (`` init container `setup` ``), or its place when it has no
    /// name ("the 1st init container"), which says what the noun would.
    pub(crate) fn quoted_as(&self, noun: &str) -> String {
        if self.name.is_empty() {
            self.label().into_owned()
        } else {
            format!("{noun} `{}`", self.name)
        }
    }

    /// Why a classic init container never exits, if it is known not to: its command never
    /// does, or it was declared a native sidecar (`restartPolicy: Always`) on a version that
    /// drops the field — a sidecar runs until it is stopped.
    pub(crate) fn never_exits_because(&self, kube: KubeVersion) -> Option<String> {
        if self.role != Role::Init {
            return None;
        }
        if let Some(never) = &self.never_exits {
            return Some(never.what.clone());
        }
        self.declared_sidecar.then(|| {
            format!(
                "a sidecar runs until it is stopped, and Kubernetes {kube} drops its `restartPolicy: Always`"
            )
        })
    }

    /// A native sidecar, or an app container that is a well-known sidecar.
    pub(crate) fn is_sidecar(&self) -> bool {
        self.role == Role::Sidecar || self.known_sidecar.is_some()
    }

    /// The postStart hook of a container that holds back the containers after it (a hook of
    /// 0 s holds nothing), unless the container is a well-known proxy holding the app back on
    /// purpose.
    pub(crate) fn delaying_post_start(&self) -> Option<&Hook> {
        if self.role == Role::Init || self.known_sidecar.is_some() {
            return None;
        }
        let hook = self.post_start.as_ref()?;
        (hook.duration != HookDuration::Exactly(0)).then_some(hook)
    }
}

/// The sidecars started after each container ([`Lifecycle::sidecars_after`]).
#[derive(Debug)]
pub(crate) struct SidecarsAfter {
    count: Vec<usize>,
    next: Vec<Option<usize>>,
}

impl SidecarsAfter {
    /// How many sidecars start after the container at `index`.
    pub(crate) fn count(&self, index: usize) -> usize {
        self.count.get(index).copied().unwrap_or(0)
    }

    /// The sidecars after the container at `index`, in start order; each step is one link.
    pub(crate) fn iter(&self, index: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.next.get(index).copied().flatten(), |&at| {
            self.next.get(at).copied().flatten()
        })
    }
}

/// The pod's grace period for deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GracePeriod {
    pub(crate) seconds: i64,
    /// Whether the spec sets it, or the default applies.
    pub(crate) explicit: bool,
}

impl GracePeriod {
    /// The grace period the API server validates a `sleep` action against: as written, except
    /// that a bare Pod's negative value is stored as 1 before validation (`SetDefaults_Pod` in
    /// pkg/apis/core/v1/defaults.go; pod templates are not defaulted that way).
    pub(crate) fn validated(self, bare_pod: bool) -> i64 {
        if bare_pod && self.seconds < 0 {
            1
        } else {
            self.seconds
        }
    }
}

/// The pod's `restartPolicy` (default `Always`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RestartPolicy {
    Always,
    OnFailure,
    Never,
}

impl RestartPolicy {
    /// The policy a value names; values the API server rejects count as the default.
    fn of(value: Option<&str>) -> RestartPolicy {
        match value {
            Some("OnFailure") => RestartPolicy::OnFailure,
            Some("Never") => RestartPolicy::Never,
            _ => RestartPolicy::Always,
        }
    }
}

#[derive(Debug)]
pub struct Lifecycle<'a> {
    /// Init containers (classic and sidecars) in spec order, then app containers in spec order.
    /// Ephemeral containers are not started with the pod and are left out.
    pub(crate) containers: Vec<ContainerLife<'a>>,
    pub(crate) grace_period: GracePeriod,
    pub(crate) restart_policy: RestartPolicy,
    /// The Kubernetes version the pod is judged for: it decides which fields the API server
    /// keeps (native sidecars, the `sleep` action, probe-level grace periods).
    pub(crate) kube: KubeVersion,
    /// A bare Pod's spec, which the API server defaults as a Pod before it validates it; a
    /// template's is not.
    pub(crate) bare_pod: bool,
    /// `hostNetwork: true`: the API server sets every declared port's `hostPort` to its
    /// `containerPort` (`SetDefaults_PodSpec`).
    pub(crate) host_network: bool,
    schedule: OnceCell<Schedule>,
    shutdown: OnceCell<ShutdownPlan>,
    completion: OnceCell<ShutdownPlan>,
}

impl<'a> Lifecycle<'a> {
    /// `sidecars` says which app containers are sidecars by name or image; `kube` is the
    /// target version.
    pub fn derive(site: &PodSite<'a>, sidecars: &'a Sidecars, kube: KubeVersion) -> Lifecycle<'a> {
        let spec = site.spec;
        let native_sidecars = SIDECAR_CONTAINERS.enabled(kube);
        let init = spec
            .init_containers
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| {
                let declared = c.restart_policy.as_deref() == Some("Always");
                let role = if declared && native_sidecars {
                    Role::Sidecar
                } else {
                    Role::Init
                };
                (c, role, site.spec_path.key("initContainers").index(i))
            });
        let app = spec
            .containers
            .iter()
            .enumerate()
            .map(|(i, c)| (c, Role::App, site.spec_path.key("containers").index(i)));
        let mut containers: Vec<ContainerLife<'a>> = init
            .chain(app)
            .map(|(container, role, path)| container_life(container, role, path, sidecars, kube))
            .collect();
        for i in 1..containers.len() {
            let previous = &containers[i - 1];
            let event = match previous.role {
                Role::Init => Some(GateEvent::Completion),
                Role::Sidecar => Some(GateEvent::Started),
                Role::App => previous.post_start.as_ref().map(|_| GateEvent::PostStart),
            };
            containers[i].waits_for = event.map(|event| Gate {
                container: i - 1,
                event,
            });
        }
        let grace_period = match spec.termination_grace_period_seconds {
            Some(seconds) => GracePeriod {
                seconds,
                explicit: true,
            },
            None => GracePeriod {
                seconds: DEFAULT_GRACE_PERIOD_SECONDS,
                explicit: false,
            },
        };
        Lifecycle {
            containers,
            grace_period,
            restart_policy: RestartPolicy::of(spec.restart_policy.as_deref()),
            kube,
            bare_pod: site.origin == crate::model::Origin::Pod,
            host_network: spec.host_network == Some(true),
            schedule: OnceCell::new(),
            shutdown: OnceCell::new(),
            completion: OnceCell::new(),
        }
    }

    /// Whether the kubelet starts the container at `index` again after it is killed or exits
    /// (pkg/api/v1/pod/util.go `IsContainerRestartable`): a sidecar always is; a container
    /// with its own `restartPolicy` (when the target version has container restart rules)
    /// follows it, or any rule with the `Restart` action; otherwise the pod's policy decides.
    pub(crate) fn is_restartable(&self, index: usize) -> bool {
        let Some(container) = self.containers.get(index) else {
            return false;
        };
        if container.role == Role::Sidecar {
            return true;
        }
        let own = container.container.restart_policy.as_deref();
        if let (Some(policy), true) = (own, CONTAINER_RESTART_RULES.enabled(self.kube)) {
            let restart_rule = container
                .container
                .restart_policy_rules
                .iter()
                .flatten()
                .any(|rule| rule.action == "Restart");
            return restart_rule || policy != "Never";
        }
        self.restart_policy != RestartPolicy::Never
    }

    /// The containers whose start waits, directly or through a chain of starts, for the
    /// container at `index` to finish its postStart hook: every container after it.
    pub(crate) fn started_after(&self, index: usize) -> &[ContainerLife<'a>] {
        self.containers.get(index + 1..).unwrap_or_default()
    }

    /// For each container, the sidecars (native or well-known) started after it, found in one
    /// pass so that rules about them stay linear.
    pub(crate) fn sidecars_after(&self) -> SidecarsAfter {
        let count = self.containers.len();
        let mut after = SidecarsAfter {
            count: vec![0; count],
            next: vec![None; count],
        };
        let mut seen = 0;
        let mut next = None;
        for index in (0..count).rev() {
            after.count[index] = seen;
            after.next[index] = next;
            if self.containers[index].is_sidecar() {
                seen += 1;
                next = Some(index);
            }
        }
        after
    }

    /// Each native sidecar with neither a startup probe nor a postStart hook, so that the start
    /// of the container after it waits only for its process, with that container.
    pub(crate) fn ungated_sidecars(
        &self,
    ) -> impl Iterator<Item = (&ContainerLife<'a>, &ContainerLife<'a>)> {
        self.containers
            .iter()
            .zip(self.containers.iter().skip(1))
            .filter(|(sidecar, _)| {
                sidecar.role == Role::Sidecar
                    && sidecar.probes.startup.is_none()
                    && sidecar.post_start.is_none()
            })
    }

    /// The grace period the API server rejects the preStop `sleep` action of the container at
    /// `index` against, when it does: a `sleep` longer than `terminationGracePeriodSeconds` as
    /// validated (`validateSleepAction` in pkg/apis/core/validation/validation.go). Such a pod
    /// is never created, so no shutdown of it happens.
    pub(crate) fn rejected_prestop(&self, index: usize) -> Option<i64> {
        let hook = self.containers.get(index)?.pre_stop.as_ref()?;
        let grace = self.grace_period.validated(self.bare_pod);
        match hook.duration {
            HookDuration::Exactly(seconds)
                if hook.handler == HandlerKind::Sleep && seconds > grace =>
            {
                Some(grace)
            }
            _ => None,
        }
    }
}

fn container_life<'a>(
    container: &'a Container,
    role: Role,
    path: FieldPath,
    sidecars: &'a Sidecars,
    kube: KubeVersion,
) -> ContainerLife<'a> {
    // The kubelet runs no hook of a classic init container: the API server rejects them.
    let lifecycle = container.lifecycle.as_ref().filter(|_| role != Role::Init);
    let hook = |handler: Option<&LifecycleHandler>, key: &str| {
        handler
            .and_then(|handler| hook_of(handler, path.key("lifecycle").key(key), container, kube))
    };
    let probes = if role == Role::Init {
        Probes::default()
    } else {
        Probes {
            liveness: container.liveness_probe.as_ref().map(ProbeTiming::of),
            readiness: container.readiness_probe.as_ref().map(ProbeTiming::of),
            startup: container.startup_probe.as_ref().map(ProbeTiming::of),
        }
    };
    let unreachable = |probe: Option<&crate::model::core::Probe>| {
        let probe = probe.filter(|_| role != Role::Init)?;
        let port = match (&probe.http_get, &probe.tcp_socket) {
            (Some(http), _) => &http.port,
            (None, Some(tcp)) => &tcp.port,
            _ => return None,
        };
        undeclared_port(port, container)
    };
    let unreachable_probes = ByProbe {
        liveness: unreachable(container.liveness_probe.as_ref()),
        readiness: unreachable(container.readiness_probe.as_ref()),
        startup: unreachable(container.startup_probe.as_ref()),
    };
    ContainerLife {
        name: &container.name,
        role,
        container,
        post_start: hook(lifecycle.and_then(|l| l.post_start.as_ref()), "postStart"),
        pre_stop: hook(lifecycle.and_then(|l| l.pre_stop.as_ref()), "preStop"),
        probes,
        declared_sidecar: container.restart_policy.as_deref() == Some("Always")
            && role != Role::App,
        known_sidecar: if role == Role::App {
            sidecars.recognise(container)
        } else {
            None
        },
        never_exits: command::never_exits(container, &path),
        unreachable_probes,
        path,
        waits_for: None,
    }
}

/// The hook the kubelet runs for `handler`; `None` for a `sleep` hook that the target version
/// drops (`dropPodLifecycleSleepAction` removes a hook left without a handler).
fn hook_of(
    handler: &LifecycleHandler,
    path: FieldPath,
    container: &Container,
    kube: KubeVersion,
) -> Option<Hook> {
    let set = [
        handler.exec.is_some(),
        handler.http_get.is_some(),
        handler.tcp_socket.is_some(),
        handler.sleep.is_some(),
    ];
    let kind = match set.iter().filter(|&&s| s).count() {
        0 => HandlerKind::None,
        1 if handler.exec.is_some() => HandlerKind::Exec,
        1 if handler.http_get.is_some() => HandlerKind::HttpGet,
        1 if handler.tcp_socket.is_some() => HandlerKind::TcpSocket,
        1 => HandlerKind::Sleep,
        _ => HandlerKind::Several,
    };
    if kind == HandlerKind::Sleep && !POD_LIFECYCLE_SLEEP_ACTION.enabled(kube) {
        return None;
    }
    let command = handler
        .exec
        .as_ref()
        .and_then(|e| e.command.as_deref())
        .unwrap_or_default();
    let duration = match kind {
        HandlerKind::Sleep => handler
            .sleep
            .as_ref()
            .map_or(HookDuration::Unknown, |s| HookDuration::Exactly(s.seconds)),
        HandlerKind::Exec => match exec_sleep(command) {
            Some(ExecSleep::AtLeast(seconds)) => HookDuration::AtLeast(seconds),
            Some(ExecSleep::Forever) => HookDuration::Forever,
            None => HookDuration::Unknown,
        },
        _ => HookDuration::Unknown,
    };
    let fails = match kind {
        HandlerKind::TcpSocket => Some(HookFailure::NoTcpHandler),
        HandlerKind::HttpGet => handler
            .http_get
            .as_ref()
            .and_then(|http| undeclared_port(&http.port, container))
            .map(HookFailure::UndeclaredPort),
        _ => None,
    };
    Some(Hook {
        path,
        handler: kind,
        duration,
        only_sleeps: kind == HandlerKind::Exec && exec_only_sleeps(command).is_some(),
        fails,
    })
}

/// A port name that the container does not declare (pkg/probe/util.go `findPortByName`; a
/// numeric string is read as a number).
pub(crate) fn undeclared_port(port: &IntOrString, container: &Container) -> Option<String> {
    let IntOrString::String(name) = port else {
        return None;
    };
    if name.parse::<i32>().is_ok() {
        return None;
    }
    let declared = container
        .ports
        .iter()
        .flatten()
        .any(|p| p.name.as_deref() == Some(name.as_str()));
    (!declared).then(|| name.clone())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::{Lifecycle, Sidecars};
    use crate::model::core::PodSpec;
    use crate::model::{ObjectRef, PodSite, WorkloadKind};
    use crate::versions::{KubeVersion, NEWEST_MODELLED};

    /// A Pod with the given spec (JSON), decoded the way the pipeline decodes it.
    pub(crate) fn pod(spec: &str) -> (ObjectRef, PodSpec) {
        let spec: serde_json::Value = serde_json::from_str(spec).expect("valid JSON");
        let value = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "spec": spec});
        let decoded = podcycle_k8s::decode_json(podcycle_k8s::WorkloadKind::Pod, &value);
        let object = ObjectRef {
            api_version: "v1".to_owned(),
            kind: "Pod".to_owned(),
            name: Some("test".to_owned()),
            namespace: None,
        };
        let spec = decoded
            .workload
            .and_then(|w| w.pod_spec)
            .expect("a pod spec");
        (object, spec)
    }

    /// Calls `f` with the lifecycle of a Pod with the given spec (JSON), at the newest version.
    pub(crate) fn with_life<R>(spec: &str, f: impl FnOnce(&Lifecycle<'_>) -> R) -> R {
        with_life_at(spec, NEWEST_MODELLED, f)
    }

    pub(crate) fn with_life_at<R>(
        spec: &str,
        kube: KubeVersion,
        f: impl FnOnce(&Lifecycle<'_>) -> R,
    ) -> R {
        let (object, spec) = pod(spec);
        let site = PodSite::new(&object, WorkloadKind::Pod, &spec, false);
        let sidecars = Sidecars::default();
        let life = Lifecycle::derive(&site, &sidecars, kube);
        f(&life)
    }

    #[test]
    fn restart_policy_always_is_a_sidecar_only_with_native_sidecars() {
        let spec = r#"{"initContainers": [{"name": "proxy", "restartPolicy": "Always"}],
                       "containers": [{"name": "app"}]}"#;
        with_life(spec, |life| {
            assert_eq!(life.containers[0].role, super::Role::Sidecar);
        });
        with_life_at(spec, KubeVersion::new(27), |life| {
            assert_eq!(life.containers[0].role, super::Role::Init);
            assert!(life.containers[0].declared_sidecar);
        });
    }

    #[test]
    fn a_sleep_hook_is_dropped_where_the_action_is_off() {
        let spec = r#"{"containers": [{"name": "app", "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}]}"#;
        with_life(spec, |life| assert!(life.containers[0].pre_stop.is_some()));
        with_life_at(spec, KubeVersion::new(28), |life| {
            assert!(life.containers[0].pre_stop.is_none());
        });
    }
}
