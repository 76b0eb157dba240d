use std::collections::HashMap;

use crate::lifecycle::{ContainerLife, HookEnd, Role};
use crate::model::services::{Service, TargetPort};
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::text::short_name_list;
use crate::versions::POD_LIFECYCLE_SLEEP_ACTION;

declare_rule! {
    /// ## What it does
    /// Finds a container behind a Service — a Service in the same file whose selector matches
    /// the pod's labels — that has no `preStop` hook (or one that sleeps 0 seconds) to delay
    /// its shutdown while the Service stops sending it traffic.
    ///
    /// The containers behind a Service are those that declare its `targetPort` (by number or
    /// name); when none declares it, the pod's only app container that is not a well-known
    /// sidecar. A preStop hook whose duration cannot be read (a drain script, an HTTP call)
    /// is trusted to wait.
    ///
    /// ## Why is this bad?
    /// When a pod is deleted, the kubelet starts stopping its containers at the same moment
    /// the control plane starts removing the pod from the Service's EndpointSlices — and
    /// kube-proxy, ingress controllers and load balancers learn about the removal a little
    /// later. A container that stops accepting connections on SIGTERM right away refuses the
    /// requests still routed to it during that time. A short preStop sleep keeps it serving
    /// until the removal has spread. Kubernetes gives no official length (its own example
    /// uses 5 seconds), which is why this rule is off by default.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector: {app: web}
    ///   ports:
    ///   - port: 80
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         ports:
    ///         - containerPort: 80
    /// ```
    ///
    /// Keep serving until the endpoint removal has spread:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Service
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector: {app: web}
    ///   ports:
    ///   - port: 80
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       terminationGracePeriodSeconds: 60
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         ports:
    ///         - containerPort: 80
    ///         lifecycle:
    ///           preStop:
    ///             sleep:
    ///               seconds: 10
    /// ```
    ///
    /// ## References
    /// - [Pod lifecycle: termination of Pods](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination):
    ///   "at the same time as the kubelet is starting graceful shutdown of the Pod, the control
    ///   plane evaluates whether to remove that shutting-down Pod from EndpointSlice objects".
    /// - kubernetes/enhancements KEP-3960 (pod lifecycle sleep action): a preStop sleep so
    ///   that in-flight traffic drains before the application stops.
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `killContainer`: the preStop hook runs before the stop signal.
    /// - kubernetes/api `core/v1/types.go`, `ServiceSpec.Selector` and `ServicePort.TargetPort`
    ///   (defaults to `port`).
    pub(crate) static RULE = {
        name: "missing-prestop-delay",
        category: Pedantic,
        enforcement: Advice,
        services: true,
        summary: "container behind a Service with no preStop delay before it stops",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if ctx.services.is_empty() {
        return;
    }
    let help = if POD_LIFECYCLE_SLEEP_ACTION.enabled(ctx.kube) {
        "add a short drain delay, such as `lifecycle: {preStop: {sleep: {seconds: 5}}}`, and keep `terminationGracePeriodSeconds` above it plus the shutdown time"
    } else {
        "add a short drain delay, such as a preStop exec hook running `sleep 5`, and keep `terminationGracePeriodSeconds` above it plus the shutdown time"
    };
    for (container, services) in behind_services(ctx) {
        if container.pre_stop.as_ref().is_some_and(
            |hook| !matches!(hook.end(), HookEnd::Returns(length) if length.max == 0.0),
        ) {
            continue;
        }
        let noun = if services.count == 1 {
            "Service"
        } else {
            "Services"
        };
        findings
            .report(
                Target::value(container.path.key("name")),
                format!(
                    "{} receives traffic from {noun} {} but has no preStop delay: it may stop before its endpoint is removed everywhere and refuse requests still routed to it",
                    container.quoted(),
                    services.names()
                ),
            )
            .help(help)
            .container(container.name);
    }
}

/// How many names a finding spells out.
const NAMED: usize = 3;

/// The Services a container serves: the first few by name, and how many there are — or that
/// there are more, without counting them, where counting would mean pairing every container
/// with every Service.
struct Served<'s> {
    named: Vec<&'s Service>,
    count: usize,
    more: bool,
}

impl Served<'_> {
    fn names(&self) -> String {
        let names = self
            .named
            .iter()
            .map(|s| s.name.as_deref().unwrap_or("<unnamed>"));
        if self.more {
            let listed: Vec<String> = names.map(|n| format!("`{n}`")).collect();
            format!("{} and more", listed.join(", "))
        } else {
            short_name_list(names, self.count)
        }
    }
}

/// The containers that serve the Services' target ports, each with the Services it serves.
/// When no container declares a target port, the pod's only app container that is not a
/// well-known sidecar serves them all. Linear: the Services are indexed by target port once,
/// and each container reads only as many of them as a message names.
fn behind_services<'l, 'a>(ctx: &'l PodContext<'a>) -> Vec<(&'l ContainerLife<'a>, Served<'l>)> {
    let mut by_number: HashMap<i64, Vec<usize>> = HashMap::new();
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (index, service) in ctx.services.iter().enumerate() {
        for port in &service.ports {
            match &port.target {
                Some(TargetPort::Number(n)) => by_number.entry(*n).or_default().push(index),
                Some(TargetPort::Name(name)) => by_name.entry(name).or_default().push(index),
                None => {}
            }
        }
    }
    let running = || ctx.life.containers.iter().filter(|c| c.role != Role::Init);
    let found: Vec<(&ContainerLife<'_>, Served<'_>)> = running()
        .filter_map(|c| {
            let mut named: Vec<usize> = Vec::new();
            let mut more = false;
            for port in c.container.ports.iter().flatten() {
                let buckets = [
                    by_number.get(&i64::from(port.container_port)),
                    port.name.as_deref().and_then(|n| by_name.get(n)),
                ];
                for &service in buckets.into_iter().flatten().flatten() {
                    if named.contains(&service) {
                        continue;
                    }
                    if named.len() == NAMED {
                        more = true;
                        break;
                    }
                    named.push(service);
                }
                if more {
                    break;
                }
            }
            (!named.is_empty()).then(|| {
                let count = named.len();
                let served = Served {
                    named: named.into_iter().map(|i| ctx.services[i]).collect(),
                    count,
                    more,
                };
                (c, served)
            })
        })
        .collect();
    if !found.is_empty() {
        return found;
    }
    let mut apps = running().filter(|c| c.role == Role::App && c.known_sidecar.is_none());
    match (apps.next(), apps.next()) {
        (Some(only), None) => vec![(
            only,
            Served {
                named: ctx.services.iter().copied().take(NAMED).collect(),
                count: ctx.services.len(),
                more: false,
            },
        )],
        _ => Vec::new(),
    }
}
