use crate::lifecycle::handlers;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a probe or lifecycle hook with no handler, or with more than one, and an `exec`
    /// handler with an empty command. A probe takes exactly one of `exec`, `httpGet`,
    /// `tcpSocket` and `grpc`; a hook exactly one of `exec`, `httpGet`, `tcpSocket` and
    /// `sleep`.
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload: `must specify a handler type`,
    /// `may not specify more than 1 handler type`, or `command: Required value`. A probe with
    /// only timing fields, or a hook whose handler was indented one level too deep, is easy to
    /// write and does nothing.
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
    ///         readinessProbe:
    ///           httpGet: {path: /ready, port: 80}
    ///           tcpSocket: {port: 80}
    /// ```
    ///
    /// Keep one handler:
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
    ///         readinessProbe:
    ///           httpGet: {path: /ready, port: 80}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateHandler`
    ///   (`handlerFromProbe`, `handlerFromLifecycle`) requires exactly one handler;
    ///   `validateExecAction` requires a command.
    /// - kubernetes/api `core/v1/types.go`: `ProbeHandler`, `LifecycleHandler`.
    pub static RULE = {
        name: "invalid-handler",
        category: Correctness,
        enforcement: ApiServer,
        summary: "probe or hook without exactly one handler, or with an empty command",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let set = site.set_handlers();
        let choices = if site.used_for.is_probe() {
            "`exec`, `httpGet`, `tcpSocket` or `grpc`"
        } else {
            "`exec`, `httpGet`, `tcpSocket` or `sleep`"
        };
        match set.as_slice() {
            [] => {
                findings
                    .report(
                        Target::key(site.path.clone()),
                        format!("{} has no handler", site.describe()),
                    )
                    .help(format!("add one of {choices}"))
                    .container(site.container.name);
            }
            [first, extra @ ..] if !extra.is_empty() => {
                for name in extra {
                    findings
                        .report(
                            Target::key(site.path.key(name)),
                            format!(
                                "{} has more than one handler: `{first}` and `{name}`",
                                site.describe()
                            ),
                        )
                        .label(Target::key(site.path.key(first)), "the first handler")
                        .help("keep one handler; the API server accepts only one")
                        .container(site.container.name);
                }
            }
            _ => {}
        }
        if let Some(exec) = site.exec
            && exec.command.as_ref().is_none_or(Vec::is_empty)
        {
            findings
                .report(
                    Target::key(site.path.key("exec")),
                    format!("the exec handler of {} has no command", site.describe()),
                )
                .help("set `command`, for example `[\"/bin/check\"]`; it runs in the container without a shell")
                .container(site.container.name);
        }
    }
}
