use crate::diagnostics::Severity;
use crate::lifecycle::{HandlerUse, handlers};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a `postStart` or `preStop` hook that uses `tcpSocket`. An error for postStart, a
    /// warning for preStop.
    ///
    /// ## Why is this bad?
    /// The API server accepts `tcpSocket` in a lifecycle handler, but the kubelet has no
    /// implementation for it: the hook fails every time. A failed postStart hook kills the
    /// container, which is restarted and killed again — a crash loop that never becomes
    /// Ready. A failed preStop hook only logs `FailedPreStopHook`, so the drain delay it was
    /// meant to give never happens. The API documents the field as deprecated and "NOT
    /// supported as a LifecycleHandler".
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
    ///         lifecycle:
    ///           postStart:
    ///             tcpSocket: {port: 80}
    /// ```
    ///
    /// Use an exec or httpGet hook, or a startup probe to wait for the port:
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
    ///         startupProbe:
    ///           tcpSocket: {port: 80}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/lifecycle/handlers.go`, `handlerRunner.Run`: only
    ///   exec, httpGet and sleep are run; anything else is an invalid handler.
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `startContainer`: a failed postStart hook kills the container.
    /// - kubernetes/api `core/v1/types.go`, `LifecycleHandler.TCPSocket`: "Deprecated. TCPSocket
    ///   is NOT supported as a LifecycleHandler".
    pub(crate) static RULE = {
        name: "tcp-socket-hook",
        category: Correctness,
        enforcement: Runtime,
        summary: "lifecycle hook with a tcpSocket handler, which always fails",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        if site.tcp_socket.is_none() || site.used_for.is_probe() {
            continue;
        }
        let finding = findings.report(
            Target::key(site.path.key("tcpSocket")),
            match site.used_for {
                HandlerUse::PostStart => format!(
                    "{} uses tcpSocket, which always fails: {} is killed after every start",
                    site.describe(),
                    site.container.quoted()
                ),
                _ => format!(
                    "{} uses tcpSocket, which always fails: the hook does nothing before {} is stopped",
                    site.describe(),
                    site.container.quoted()
                ),
            },
        );
        finding
            .help(if site.used_for == HandlerUse::PostStart {
                "use an exec or httpGet hook; to wait until the port accepts connections, use a tcpSocket startup probe"
            } else {
                "use the `sleep` action for a drain delay, or an exec or httpGet hook"
            })
            .container(site.container.name);
        if site.used_for == HandlerUse::PreStop {
            finding.severity(Severity::Warning);
        }
    }
}
