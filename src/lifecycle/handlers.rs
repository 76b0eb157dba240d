//! Every probe and lifecycle hook of a pod spec, seen the same way: which container, which
//! use, where it sits, and which handler fields it sets. Rules about handlers iterate this
//! list instead of walking containers themselves.

use super::{ContainerLife, Lifecycle, ProbeKind, ProbeTiming, Role};
use crate::model::core::{
    ExecAction, GRPCAction, HTTPGetAction, LifecycleHandler, Probe, SleepAction, TCPSocketAction,
};
use crate::model::path::FieldPath;

/// What a handler is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HandlerUse {
    Liveness,
    Readiness,
    Startup,
    PostStart,
    PreStop,
}

impl HandlerUse {
    /// The field name: `livenessProbe`, `postStart`, ...
    pub(crate) fn field(self) -> &'static str {
        match self {
            HandlerUse::Liveness => "livenessProbe",
            HandlerUse::Readiness => "readinessProbe",
            HandlerUse::Startup => "startupProbe",
            HandlerUse::PostStart => "postStart",
            HandlerUse::PreStop => "preStop",
        }
    }

    pub(crate) fn is_probe(self) -> bool {
        self.probe_kind().is_some()
    }

    /// Which probe this is, for probes.
    pub(crate) fn probe_kind(self) -> Option<ProbeKind> {
        match self {
            HandlerUse::Liveness => Some(ProbeKind::Liveness),
            HandlerUse::Readiness => Some(ProbeKind::Readiness),
            HandlerUse::Startup => Some(ProbeKind::Startup),
            HandlerUse::PostStart | HandlerUse::PreStop => None,
        }
    }
}

/// One probe or hook.
#[derive(Debug)]
pub(crate) struct HandlerSite<'l, 'a> {
    pub(crate) container: &'l ContainerLife<'a>,
    /// Index of the container in [`Lifecycle::containers`].
    pub(crate) index: usize,
    pub(crate) used_for: HandlerUse,
    /// Path of the probe or hook (`…containers[0].livenessProbe`, `…lifecycle.preStop`).
    pub(crate) path: FieldPath,
    /// The probe, for probes.
    pub(crate) probe: Option<&'a Probe>,
    pub(crate) exec: Option<&'a ExecAction>,
    pub(crate) http_get: Option<&'a HTTPGetAction>,
    pub(crate) tcp_socket: Option<&'a TCPSocketAction>,
    pub(crate) grpc: Option<&'a GRPCAction>,
    pub(crate) sleep: Option<&'a SleepAction>,
}

impl HandlerSite<'_, '_> {
    /// The handler fields set, by name, in the order Kubernetes lists them.
    pub(crate) fn set_handlers(&self) -> Vec<&'static str> {
        [
            ("exec", self.exec.is_some()),
            ("httpGet", self.http_get.is_some()),
            ("tcpSocket", self.tcp_socket.is_some()),
            ("grpc", self.grpc.is_some()),
            ("sleep", self.sleep.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, set)| set.then_some(name))
        .collect()
    }

    /// The probe's settings after defaults, as the model holds them.
    pub(crate) fn timing(&self) -> Option<ProbeTiming> {
        self.container
            .probes
            .get(self.used_for.probe_kind()?)
            .copied()
    }

    /// "the readinessProbe of `web`", "the postStart hook of `web`".
    pub(crate) fn describe(&self) -> String {
        let kind = if self.used_for.is_probe() {
            ""
        } else {
            " hook"
        };
        format!(
            "the {}{kind} of {}",
            self.used_for.field(),
            self.container.quoted()
        )
    }
}

/// The probes and hooks of containers that keep running (sidecars and app containers); a
/// classic init container may have neither, which `init-container-probe` and
/// `init-container-lifecycle` report.
pub(crate) fn handlers<'l, 'a>(life: &'l Lifecycle<'a>) -> Vec<HandlerSite<'l, 'a>> {
    let mut sites = Vec::new();
    for (index, container) in life.containers.iter().enumerate() {
        if container.role == Role::Init {
            continue;
        }
        let c = container.container;
        for (used_for, probe) in [
            (HandlerUse::Liveness, c.liveness_probe.as_ref()),
            (HandlerUse::Readiness, c.readiness_probe.as_ref()),
            (HandlerUse::Startup, c.startup_probe.as_ref()),
        ] {
            if let Some(probe) = probe {
                sites.push(HandlerSite {
                    container,
                    index,
                    used_for,
                    path: container.path.key(used_for.field()),
                    probe: Some(probe),
                    exec: probe.exec.as_ref(),
                    http_get: probe.http_get.as_ref(),
                    tcp_socket: probe.tcp_socket.as_ref(),
                    grpc: probe.grpc.as_ref(),
                    sleep: None,
                });
            }
        }
        let lifecycle = c.lifecycle.as_ref();
        for (used_for, hook) in [
            (
                HandlerUse::PostStart,
                lifecycle.and_then(|l| l.post_start.as_ref()),
            ),
            (
                HandlerUse::PreStop,
                lifecycle.and_then(|l| l.pre_stop.as_ref()),
            ),
        ] {
            if let Some(hook) = hook {
                sites.push(hook_site(container, index, used_for, hook));
            }
        }
    }
    sites
}

fn hook_site<'l, 'a>(
    container: &'l ContainerLife<'a>,
    index: usize,
    used_for: HandlerUse,
    hook: &'a LifecycleHandler,
) -> HandlerSite<'l, 'a> {
    HandlerSite {
        container,
        index,
        used_for,
        path: container.path.key("lifecycle").key(used_for.field()),
        probe: None,
        exec: hook.exec.as_ref(),
        http_get: hook.http_get.as_ref(),
        tcp_socket: hook.tcp_socket.as_ref(),
        grpc: None,
        sleep: hook.sleep.as_ref(),
    }
}
