use crate::diagnostics::Severity;
use crate::lifecycle::{HandlerUse, handlers};
use crate::model::IntOrString;
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a probe or hook that names a port (`port: http`) which the same container does not
    /// declare in its `ports`. An error for readiness and startup probes and postStart hooks;
    /// a warning for liveness probes and preStop hooks. Numeric ports need no declaration.
    ///
    /// ## Why is this bad?
    /// The API server only checks that the name is well formed; the kubelet resolves it when
    /// it probes, and only against the probed container's own ports — a port declared by
    /// another container of the pod does not count. An unresolvable port is an error, not a
    /// failure, and the kubelet discards errors:
    /// - a readiness probe never succeeds: the pod never becomes Ready;
    /// - a startup probe never succeeds: the container never counts as started, and its
    ///   liveness and readiness probes never run;
    /// - a liveness probe never fails: liveness checking is silently off;
    /// - a postStart hook fails: the container is killed after every start;
    /// - a preStop hook fails: the container is stopped without its drain delay.
    ///
    /// ## Example
    /// ```yaml
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
    ///         readinessProbe:
    ///           httpGet: {path: /, port: http}
    /// ```
    ///
    /// Name the port where it is declared:
    /// ```yaml
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
    ///         - name: http
    ///           containerPort: 80
    ///         readinessProbe:
    ///           httpGet: {path: /, port: http}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/probe/util.go`, `ResolveContainerPort`: a named port is
    ///   looked up in the probed container's `ports`; a numeric string is accepted as a number.
    /// - kubernetes/kubernetes `pkg/kubelet/prober/prober.go` and `worker.go`, `doProbe`: probe
    ///   errors are thrown away ("Prober error, throw away the result").
    /// - kubernetes/kubernetes `pkg/kubelet/lifecycle/handlers.go`, `runHTTPHandler`: hooks
    ///   resolve named ports the same way.
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`,
    ///   `ValidatePortNumOrName`: validation checks the syntax only.
    pub(crate) static RULE = {
        name: "undeclared-port",
        category: Correctness,
        enforcement: Runtime,
        summary: "named port in a probe or hook that its container does not declare",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let (port, handler) = match (site.http_get, site.tcp_socket) {
            (Some(http), _) => (&http.port, "httpGet"),
            (None, Some(tcp)) => (&tcp.port, "tcpSocket"),
            _ => continue,
        };
        let IntOrString::String(name) = port else {
            continue;
        };
        // The kubelet falls back to reading a numeric string as a number.
        if name.parse::<i32>().is_ok() {
            continue;
        }
        let container = site.container.container;
        let declared = container
            .ports
            .iter()
            .flatten()
            .any(|p| p.name.as_deref() == Some(name.as_str()));
        if declared {
            continue;
        }
        let consequence = match site.used_for {
            HandlerUse::Readiness => format!(
                "the probe can never succeed and {} never becomes Ready",
                site.container.quoted()
            ),
            HandlerUse::Startup => format!(
                "the probe can never succeed, so {} never counts as started and its other probes never run",
                site.container.quoted()
            ),
            HandlerUse::Liveness => {
                "the probe can never fail, so liveness checking is silently off".to_owned()
            }
            HandlerUse::PostStart => format!(
                "the hook fails and {} is killed after every start",
                site.container.quoted()
            ),
            HandlerUse::PreStop => format!(
                "the hook fails and {} is stopped without it",
                site.container.quoted()
            ),
        };
        let finding = findings
            .report(
                Target::value(site.path.key(handler).key("port")),
                format!(
                    "{} uses port `{name}`, which {} does not declare: {consequence}",
                    site.describe(),
                    site.container.quoted()
                ),
            )
            .help(format!(
                "add `name: {name}` to the matching entry of {}'s `ports`, or use the port number",
                site.container.quoted()
            ))
            .container(site.container.name);
        if let Some((other, index)) = ctx.life.containers.iter().find_map(|c| {
            c.container
                .ports
                .iter()
                .flatten()
                .position(|p| p.name.as_deref() == Some(name.as_str()))
                .map(|index| (c, index))
        }) {
            finding.label(
                Target::value(other.path.key("ports").index(index).key("name")),
                format!(
                    "`{name}` is declared by {}, but names resolve only in the probed container",
                    other.quoted()
                ),
            );
        }
        if matches!(site.used_for, HandlerUse::Liveness | HandlerUse::PreStop) {
            finding.severity(Severity::Warning);
        }
        if matches!(site.used_for, HandlerUse::Readiness | HandlerUse::Startup) {
            finding.claim(Claim::NeverReady);
        }
    }
}
