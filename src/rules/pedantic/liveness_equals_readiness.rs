use crate::lifecycle::{ContainerLife, ProbeTiming, Role};
use crate::model::IntOrString;
use crate::model::core::{HTTPHeader, Probe};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a container whose liveness and readiness probes are the same: the same check
    /// (command, or HTTP path, port, scheme, host and headers, or TCP or gRPC port — a named
    /// port counts as the number it names), and the same `periodSeconds`, `timeoutSeconds`
    /// and `failureThreshold` after defaults. Probes written once and reused with a YAML
    /// anchor count too.
    ///
    /// ## Why is this bad?
    /// The two probes answer different questions: readiness takes a container out of its
    /// Services while it cannot serve (overloaded, warming up, a dependency down), liveness
    /// restarts it when it is stuck for good. When both fail at exactly the same moment, the
    /// container is never just taken out of rotation: every overload or dependency outage
    /// that fails the check also restarts it, which throws away its work and can restart
    /// every replica at once.
    ///
    /// The Kubernetes documentation suggests the same low-cost endpoint for both, "but with a
    /// higher `failureThreshold`" for liveness, so that the pod is seen not-ready for a while
    /// before it is killed.
    ///
    /// The rule is pedantic, off by default: most manifests repeat the probe on purpose — a
    /// check of the process alone, for which the difference does not matter (the chart
    /// `helm create` writes does it) — and measured on public repositories, maintainers
    /// would change none of the findings sampled ([measure](README.md#severities-measured)).
    /// Select it where readiness checks more than the process.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: api
    /// spec:
    ///   selector:
    ///     matchLabels: {app: api}
    ///   template:
    ///     metadata:
    ///       labels: {app: api}
    ///     spec:
    ///       containers:
    ///       - name: api
    ///         image: example/api:1.0
    ///         ports:
    ///         - {name: http, containerPort: 8080}
    ///         readinessProbe:
    ///           httpGet: {path: /healthz, port: http}
    ///         livenessProbe:
    ///           httpGet: {path: /healthz, port: 8080}
    /// ```
    ///
    /// Let liveness tolerate longer failures than readiness:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: api
    /// spec:
    ///   selector:
    ///     matchLabels: {app: api}
    ///   template:
    ///     metadata:
    ///       labels: {app: api}
    ///     spec:
    ///       containers:
    ///       - name: api
    ///         image: example/api:1.0
    ///         ports:
    ///         - {name: http, containerPort: 8080}
    ///         readinessProbe:
    ///           httpGet: {path: /healthz, port: http}
    ///         livenessProbe:
    ///           httpGet: {path: /healthz, port: 8080}
    ///           failureThreshold: 6
    /// ```
    ///
    /// ## References
    /// - [Configure liveness, readiness and startup probes](https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/):
    ///   "A common pattern for liveness probes is to use the same low-cost HTTP endpoint as
    ///   for readiness probes, but with a higher failureThreshold."
    /// - kubernetes/kubernetes `pkg/kubelet/prober/worker.go`, `doProbe`: each probe publishes
    ///   its result after `failureThreshold` consecutive failures, on its own `periodSeconds`
    ///   ticker; `pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `computePodActions`: a
    ///   liveness failure kills the container.
    /// - kubernetes/kubernetes `pkg/apis/core/v1/defaults.go`, `SetDefaults_Probe`, and
    ///   `SetDefaults_HTTPGetAction` (path `/`, scheme `HTTP`): the defaults applied before
    ///   comparing.
    pub(crate) static RULE = {
        name: "liveness-equals-readiness",
        category: Pedantic,
        enforcement: Runtime,
        summary: "liveness probe identical to the readiness probe",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for container in ctx.life.containers.iter().filter(|c| c.role != Role::Init) {
        let c = container.container;
        let (Some(liveness), Some(readiness)) = (&c.liveness_probe, &c.readiness_probe) else {
            continue;
        };
        let same_check = match (
            probe_check(container, liveness),
            probe_check(container, readiness),
        ) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        if !same_check || !same_timing(ProbeTiming::of(liveness), ProbeTiming::of(readiness)) {
            continue;
        }
        findings
            .report(
                Target::key(container.path.key("livenessProbe")),
                format!(
                    "the livenessProbe of {} repeats its readinessProbe: when the check fails, {} is restarted the moment it turns unready",
                    container.quoted(), container.quoted()
                ),
            )
            .help("give the livenessProbe a higher `failureThreshold` (or a check of the process alone), so that a container that cannot serve for a while is taken out of rotation before it is restarted")
            .label(
                Target::key(container.path.key("readinessProbe")),
                "the same check, period, timeout and failureThreshold",
            )
            .container(container.name);
    }
}

/// The timing that decides when a probe's failure is published.
fn same_timing(a: ProbeTiming, b: ProbeTiming) -> bool {
    a.period_seconds == b.period_seconds
        && a.timeout_seconds == b.timeout_seconds
        && a.failure_threshold == b.failure_threshold
}

/// What a probe checks, after defaults, with named ports resolved in the container.
#[derive(Debug, PartialEq)]
enum ProbeCheck<'a> {
    Exec(&'a [String]),
    Http {
        path: &'a str,
        scheme: &'a str,
        host: Option<&'a str>,
        port: Port<'a>,
        headers: &'a [HTTPHeader],
    },
    Tcp {
        host: Option<&'a str>,
        port: Port<'a>,
    },
    Grpc {
        port: i32,
        service: &'a str,
    },
}

#[derive(Debug, PartialEq)]
enum Port<'a> {
    Number(i32),
    /// A name the container does not declare.
    Name(&'a str),
}

fn probe_check<'a>(container: &ContainerLife<'a>, probe: &'a Probe) -> Option<ProbeCheck<'a>> {
    let port = |port: &'a IntOrString| match port {
        IntOrString::Int(n) => Port::Number(*n),
        IntOrString::String(name) => container
            .container
            .ports
            .iter()
            .flatten()
            .find(|p| p.name.as_deref() == Some(name.as_str()))
            .map_or_else(
                || name.parse().map_or(Port::Name(name), Port::Number),
                |p| Port::Number(p.container_port),
            ),
    };
    let checks = [
        probe
            .exec
            .as_ref()
            .map(|e| ProbeCheck::Exec(e.command.as_deref().unwrap_or_default())),
        probe.http_get.as_ref().map(|h| ProbeCheck::Http {
            path: h.path.as_deref().unwrap_or("/"),
            scheme: h.scheme.as_deref().unwrap_or("HTTP"),
            host: h.host.as_deref(),
            port: port(&h.port),
            headers: h.http_headers.as_deref().unwrap_or_default(),
        }),
        probe.tcp_socket.as_ref().map(|t| ProbeCheck::Tcp {
            host: t.host.as_deref(),
            port: port(&t.port),
        }),
        probe.grpc.as_ref().map(|g| ProbeCheck::Grpc {
            port: g.port,
            service: g.service.as_deref().unwrap_or_default(),
        }),
    ];
    let mut set = checks.into_iter().flatten();
    let check = set.next()?;
    // A probe with several handlers is rejected; `invalid-handler` reports it.
    set.next().is_none().then_some(check)
}
