//! The lifecycle a pod spec implies: who starts when, what each start waits for, probe settings
//! after defaults, and the shutdown budget. Derived once per pod spec; rules read it and never
//! re-derive order.
//!
//! The same model gives the earliest start, started and Ready times ([`Lifecycle::schedule`]),
//! the shutdown plan on deletion ([`Lifecycle::shutdown`]) and the budgets of probe kills
//! ([`Lifecycle::probe_kill`]); `podcycle explain` prints them.
//!
//! Semantics (docs/lifecycle.md gives the sources; docs/explain.md the formulas):
//! - init containers start one at a time in spec order; a classic init container must exit
//!   before the next starts, a sidecar (`restartPolicy: Always`) must be *started* — its startup
//!   probe passed and its postStart hook returned (kuberuntime_container.go
//!   `computeInitContainerActions`);
//! - app containers start in spec order within one sync, each `startContainer` running the
//!   postStart hook to completion before the next container is pulled and started
//!   (kuberuntime_manager.go `SyncPod`, kuberuntime_container.go `startContainer`);
//! - on deletion every container's preStop runs at once, and the stop signal follows the hook
//!   within `terminationGracePeriodSeconds` (default 30), never less than 2 s before SIGKILL
//!   (`killContainer`, `minimumGracePeriodInSeconds`); sidecars stop after the app containers,
//!   in reverse order (kuberuntime_termination_order.go).

mod budget;
mod command;
pub mod handlers;
mod schedule;
mod shell;
mod shutdown;
pub mod sidecars;
mod startup;

pub use budget::{Bounds, GraceSource, KillPlan};
pub use command::NeverExits;
pub use handlers::{HandlerSite, HandlerUse, handlers};
pub use schedule::{Schedule, StartTimes};
pub use shell::{ExecSleep, exec_only_sleeps, exec_sleep, only_sleep};
pub use shutdown::{ContainerStop, ShutdownPlan};
pub use sidecars::{KnownSidecar, SidecarPattern, Sidecars, recognise};
pub use startup::{Delay, DelayKind, StartupBound};

use crate::model::PodSite;
use crate::model::core::{Container, LifecycleHandler, Probe};
use crate::model::path::{FieldPath, PathSegment};
use crate::versions::{CONTAINER_RESTART_RULES, KubeVersion};

/// Kubernetes' default `terminationGracePeriodSeconds` (core/v1 `DefaultTerminationGracePeriodSeconds`).
pub const DEFAULT_GRACE_PERIOD_SECONDS: i64 = 30;
/// The kubelet never gives a container less than this between the stop signal and SIGKILL
/// (kuberuntime_manager.go `minimumGracePeriodInSeconds`).
pub const MINIMUM_STOP_WINDOW_SECONDS: i64 = 2;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A classic init container: runs to completion before the next container starts.
    Init,
    /// An init container with `restartPolicy: Always`: keeps running beside the app.
    Sidecar,
    /// A container in `containers`.
    App,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Init => "init",
            Role::Sidecar => "sidecar",
            Role::App => "app",
        }
    }
}

/// The event a container's start waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GateEvent {
    /// The previous classic init container exited successfully.
    Completion,
    /// The previous sidecar is started: its startup probe passed and its postStart returned.
    Started,
    /// The previous app container's postStart hook returned.
    PostStart,
}

impl GateEvent {
    pub fn as_str(self) -> &'static str {
        match self {
            GateEvent::Completion => "completion",
            GateEvent::Started => "started",
            GateEvent::PostStart => "post-start",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gate {
    /// Index into [`Lifecycle::containers`].
    pub container: usize,
    pub event: GateEvent,
}

/// Which handler a hook uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HandlerKind {
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
    pub fn as_str(self) -> &'static str {
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
pub enum HookDuration {
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
    /// The least number of seconds the hook certainly takes, if known.
    pub fn known_seconds(self) -> Option<f64> {
        match self {
            #[allow(clippy::cast_precision_loss)]
            HookDuration::Exactly(seconds) => Some(seconds as f64),
            HookDuration::AtLeast(seconds) => Some(seconds),
            HookDuration::Forever => Some(f64::INFINITY),
            HookDuration::Unknown => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct Hook {
    /// Path of the `postStart`/`preStop` field from the object root.
    pub path: FieldPath,
    pub handler: HandlerKind,
    pub duration: HookDuration,
    /// An exec hook whose command does nothing but sleep (`["sleep", "5"]`, `sh -c "sleep 5"`):
    /// `duration` is all it does.
    pub only_sleeps: bool,
}

/// A probe's settings after the API server's defaults (defaults.go `SetDefaults_Probe`: 0 or
/// unset becomes 1 s timeout, 10 s period, success 1, failure 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProbeTiming {
    pub initial_delay_seconds: i64,
    pub timeout_seconds: i64,
    pub period_seconds: i64,
    pub success_threshold: i64,
    pub failure_threshold: i64,
    pub termination_grace_period_seconds: Option<i64>,
}

impl ProbeTiming {
    pub fn of(probe: &Probe) -> ProbeTiming {
        let or_default = |value: Option<i32>, default: i64| match value {
            Some(v) if v != 0 => i64::from(v),
            _ => default,
        };
        ProbeTiming {
            initial_delay_seconds: probe.initial_delay_seconds.map_or(0, i64::from),
            timeout_seconds: or_default(probe.timeout_seconds, 1),
            period_seconds: or_default(probe.period_seconds, 10),
            success_threshold: or_default(probe.success_threshold, 1),
            failure_threshold: or_default(probe.failure_threshold, 3),
            termination_grace_period_seconds: probe.termination_grace_period_seconds,
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct Probes {
    pub liveness: Option<ProbeTiming>,
    pub readiness: Option<ProbeTiming>,
    pub startup: Option<ProbeTiming>,
}

/// One container in start order.
#[derive(Debug)]
pub struct ContainerLife<'a> {
    pub name: &'a str,
    pub role: Role,
    pub container: &'a Container,
    /// Path of the container from the object root (`spec.initContainers[1]`).
    pub path: FieldPath,
    pub post_start: Option<Hook>,
    pub pre_stop: Option<Hook>,
    pub probes: Probes,
    /// What an app container is when it is a sidecar by name or image (built-in or
    /// configured), e.g. `Istio proxy`.
    pub known_sidecar: Option<&'a str>,
    /// What this container's start waits for, if anything.
    pub waits_for: Option<Gate>,
    /// Set when the command can be seen never to exit (`sleep infinity`, `while true` with no
    /// way out, a server in the foreground).
    pub never_exits: Option<NeverExits>,
}

impl ContainerLife<'_> {
    /// A native sidecar, or an app container that is a well-known sidecar.
    pub fn is_sidecar(&self) -> bool {
        self.role == Role::Sidecar || self.known_sidecar.is_some()
    }

    /// How messages name the container: `` `web` ``, or by position when it has no name
    /// ("the 2nd container"), never as empty backticks.
    pub fn label(&self) -> String {
        self.labelled("")
    }

    /// The container named after a noun (`` init container `setup` ``), or by position when it
    /// has no name ("the 1st init container"), which says what the noun would.
    pub fn labelled(&self, noun: &str) -> String {
        if !self.name.is_empty() {
            return if noun.is_empty() {
                format!("`{}`", self.name)
            } else {
                format!("{noun} `{}`", self.name)
            };
        }
        let segments = self.path.segments();
        match segments {
            [.., PathSegment::Key(list), PathSegment::Index(index)] => {
                ordinal_container(list, *index)
            }
            _ => "a container without a name".to_owned(),
        }
    }
}

/// "the 2nd container", "the 1st init container": how to name a container without a name.
pub fn ordinal_container(list: &str, index: usize) -> String {
    let n = index + 1;
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    let kind = match list {
        "initContainers" => "init container",
        "ephemeralContainers" => "ephemeral container",
        _ => "container",
    };
    format!("the {n}{suffix} {kind}")
}

/// The pod's grace period for deletion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GracePeriod {
    pub seconds: i64,
    /// Whether the spec sets it, or the default applies.
    pub explicit: bool,
}

/// The pod's `restartPolicy` (default `Always`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RestartPolicy {
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
    pub containers: Vec<ContainerLife<'a>>,
    pub grace_period: GracePeriod,
    pub restart_policy: RestartPolicy,
}

impl<'a> Lifecycle<'a> {
    /// `sidecars` says which app containers are sidecars by name or image.
    pub fn derive(site: &PodSite<'a>, sidecars: &'a Sidecars) -> Lifecycle<'a> {
        let spec = site.spec;
        let init = spec
            .init_containers
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, c)| {
                let role = if c.restart_policy.as_deref() == Some("Always") {
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
            .map(|(container, role, path)| container_life(container, role, path, sidecars))
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
        }
    }

    /// Whether the kubelet starts the container at `index` again after it is killed or exits
    /// (pkg/api/v1/pod/util.go `IsContainerRestartable`): a sidecar always is; a container
    /// with its own `restartPolicy` (when `kube` has container restart rules) follows it, or
    /// any rule with the `Restart` action; otherwise the pod's policy decides.
    pub fn is_restartable(&self, index: usize, kube: KubeVersion) -> bool {
        let Some(container) = self.containers.get(index) else {
            return false;
        };
        if container.role == Role::Sidecar {
            return true;
        }
        let own = container.container.restart_policy.as_deref();
        if let (Some(policy), true) = (own, CONTAINER_RESTART_RULES.enabled(kube)) {
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
    pub fn started_after(&self, index: usize) -> &[ContainerLife<'a>] {
        self.containers.get(index + 1..).unwrap_or_default()
    }

    /// Stop order on pod deletion: 0 for app containers (all at once), then sidecars one at a
    /// time in reverse spec order (1 for the last sidecar). Classic init containers are not
    /// running once the pod is initialized.
    pub fn stop_order(&self, index: usize) -> Option<usize> {
        let container = self.containers.get(index)?;
        match container.role {
            Role::App => Some(0),
            Role::Init => None,
            Role::Sidecar => {
                let later_sidecars = self.containers[index + 1..]
                    .iter()
                    .filter(|c| c.role == Role::Sidecar)
                    .count();
                Some(later_sidecars + 1)
            }
        }
    }
}

fn container_life<'a>(
    container: &'a Container,
    role: Role,
    path: FieldPath,
    sidecars: &'a Sidecars,
) -> ContainerLife<'a> {
    let lifecycle = container.lifecycle.as_ref();
    let hook = |handler: Option<&LifecycleHandler>, key: &str| {
        handler.map(|handler| hook_of(handler, path.key("lifecycle").key(key)))
    };
    ContainerLife {
        name: &container.name,
        role,
        container,
        post_start: hook(lifecycle.and_then(|l| l.post_start.as_ref()), "postStart"),
        pre_stop: hook(lifecycle.and_then(|l| l.pre_stop.as_ref()), "preStop"),
        probes: Probes {
            liveness: container.liveness_probe.as_ref().map(ProbeTiming::of),
            readiness: container.readiness_probe.as_ref().map(ProbeTiming::of),
            startup: container.startup_probe.as_ref().map(ProbeTiming::of),
        },
        known_sidecar: if role == Role::App {
            sidecars.recognise(container)
        } else {
            None
        },
        never_exits: command::never_exits(container, &path),
        path,
        waits_for: None,
    }
}

fn hook_of(handler: &LifecycleHandler, path: FieldPath) -> Hook {
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
    Hook {
        path,
        handler: kind,
        duration,
        only_sleeps: kind == HandlerKind::Exec && exec_only_sleeps(command).is_some(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::model::ObjectRef;
    use crate::model::core::PodSpec;

    /// A Pod with the given spec (JSON), decoded the way the pipeline decodes it.
    pub(crate) fn pod(spec: &str) -> (ObjectRef, PodSpec) {
        let spec: serde_json::Value = serde_json::from_str(spec).expect("valid JSON");
        let value = serde_json::json!({"apiVersion": "v1", "kind": "Pod", "spec": spec});
        let decoded = podcycle_k8s::decode(podcycle_k8s::WorkloadKind::Pod, &value);
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
}
