use crate::lifecycle::{HandlerSite, handlers};
use crate::model::IntOrString;
use crate::model::path::FieldPath;
use crate::rules::values::{PORT_RANGE, port_name_problem, upper_case_hint};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a probe or lifecycle hook with no handler, or with more than one, and an `exec`
    /// handler with an empty command. A probe takes exactly one of `exec`, `httpGet`,
    /// `tcpSocket` and `grpc`; a hook exactly one of `exec`, `httpGet`, `tcpSocket` and
    /// `sleep`.
    ///
    /// Also finds the values a handler's fields may not take: a `port` of `httpGet`,
    /// `tcpSocket` or `grpc` outside 1–65535, or a port name that is not a valid name (1–15
    /// lowercase letters, digits and dashes, with at least one letter) — including a quoted
    /// number, which Kubernetes reads as a name; and an `httpGet` scheme other than `HTTP` or
    /// `HTTPS`.
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
    ///   `validateExecAction` requires a command; `validateHTTPGetAction` (port and scheme),
    ///   `validateTCPSocketAction`, `validateGRPCAction` and `ValidatePortNumOrName` (ports).
    /// - kubernetes/apimachinery `pkg/util/validation/validation.go`: `IsValidPortName`.
    /// - kubernetes/api `core/v1/types.go`: `ProbeHandler`, `LifecycleHandler`.
    pub(crate) static RULE = {
        name: "invalid-handler",
        category: Correctness,
        enforcement: ApiServer,
        summary: "probe or hook handler the API server rejects",
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
        check_values(&site, findings);
    }
}

/// The ports and the scheme of a handler.
fn check_values(site: &HandlerSite<'_, '_>, findings: &mut Findings) {
    if let Some(http) = site.http_get {
        check_port(
            site,
            findings,
            &site.path.key("httpGet").key("port"),
            &http.port,
            true,
        );
        if let Some(scheme) = http
            .scheme
            .as_deref()
            .filter(|s| !s.is_empty() && !matches!(*s, "HTTP" | "HTTPS"))
        {
            findings
                .report(
                    Target::value(site.path.key("httpGet").key("scheme")),
                    format!("scheme `{scheme}` of {} is not supported", site.describe()),
                )
                .help(format!("use `HTTP` or `HTTPS`{}", upper_case_hint(scheme)))
                .container(site.container.name);
        }
    }
    if let Some(tcp) = site.tcp_socket {
        check_port(
            site,
            findings,
            &site.path.key("tcpSocket").key("port"),
            &tcp.port,
            true,
        );
    }
    if let Some(grpc) = site.grpc {
        let port = IntOrString::Int(grpc.port);
        check_port(
            site,
            findings,
            &site.path.key("grpc").key("port"),
            &port,
            false,
        );
    }
}

/// `named`: whether the field also takes a port's name (`grpc.port` does not).
fn check_port(
    site: &HandlerSite<'_, '_>,
    findings: &mut Findings,
    path: &FieldPath,
    port: &IntOrString,
    named: bool,
) {
    let owner = site.describe();
    match port {
        IntOrString::Int(number) if !PORT_RANGE.contains(&i64::from(*number)) => {
            findings
                .report(
                    Target::value(path.clone()),
                    format!("port {number} of {owner} is outside 1–65535"),
                )
                .help(if named {
                    "use a port number from 1 to 65535, or the name of a port in the container's `ports`"
                } else {
                    "use a port number from 1 to 65535"
                })
                .container(site.container.name);
        }
        IntOrString::String(name) => {
            if let Some(problem) = port_name_problem(name) {
                let help = if name.parse::<u32>().is_ok() {
                    format!("write the number without quotes: `port: {name}`")
                } else {
                    "name a port declared in the container's `ports`, or use its number".to_owned()
                };
                findings
                    .report(
                        Target::value(path.clone()),
                        format!("port `{name}` of {owner} is not a valid port name: {problem}"),
                    )
                    .help(help)
                    .container(site.container.name);
            }
        }
        IntOrString::Int(_) => {}
    }
}
