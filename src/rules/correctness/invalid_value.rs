use crate::lifecycle::{HandlerUse, handlers};
use crate::model::path::FieldPath;
use crate::model::{IntOrString, Origin, WorkloadKind};
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::versions::POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO;

declare_rule! {
    /// ## What it does
    /// Finds lifecycle values the API server rejects:
    /// - a negative probe field (`initialDelaySeconds`, `timeoutSeconds`, `periodSeconds`,
    ///   `successThreshold`, `failureThreshold`);
    /// - a port outside 1–65535, or a port name that is not a valid name (1–15 lowercase
    ///   letters, digits and dashes, with at least one letter) — including a quoted number,
    ///   which Kubernetes reads as a name: in `httpGet`, `tcpSocket` and `grpc` handlers and in
    ///   `ports`;
    /// - an `httpGet` scheme other than `HTTP` or `HTTPS`;
    /// - `activeDeadlineSeconds` below 1;
    /// - a negative `sleep`, a zero `sleep` before the cluster version allows it, and a
    ///   `postStart` sleep longer than the grace period (for `preStop`,
    ///   `prestop-exceeds-grace-period` reports it);
    /// - a pod spec without `containers` (in a Kustomize patch, which podcycle recognises as
    ///   one, it is fine);
    /// - a bare Pod's or a PodTemplate's `restartPolicy` other than `Always`, `OnFailure` or
    ///   `Never`;
    /// - a port name used twice in one container's `ports`;
    /// - a container without a `name`, or with a name that is not a DNS label (1–63
    ///   lowercase letters, digits and dashes, starting and ending with a letter or digit);
    /// - a port `protocol` other than `TCP`, `UDP` or `SCTP`.
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload (`Invalid value`, `Unsupported value`), so
    /// nothing of it is applied.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     readinessProbe:
    ///       httpGet: {path: /, port: "8080", scheme: http}
    ///       periodSeconds: -5
    /// ```
    ///
    /// Use numbers for port numbers and the upper-case scheme:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     readinessProbe:
    ///       httpGet: {path: /, port: 8080, scheme: HTTP}
    ///       periodSeconds: 5
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateProbe`
    ///   (non-negative fields), `ValidatePortNumOrName` and `validateContainerPorts` (ports and
    ///   `IsValidPortName`), `validateHTTPGetAction` (scheme), `validateGRPCAction`,
    ///   `validateSleepAction`, `ValidatePodSpec` (`activeDeadlineSeconds`), `validateRestartPolicy`.
    /// - kubernetes/apimachinery `pkg/util/validation/validation.go`, `IsValidPortName`,
    ///   `IsDNS1123Label` (container names, checked by `validateContainerCommon`).
    pub static RULE = {
        name: "invalid-value",
        category: Correctness,
        enforcement: ApiServer,
        summary: "lifecycle value the API server rejects",
        check: crate::rules::Check::Pod(check),
    }
}

const PORT_RANGE: std::ops::RangeInclusive<i64> = 1..=65535;

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let name = site.container.name;
        if let Some(probe) = site.probe {
            for (field, value) in [
                ("initialDelaySeconds", probe.initial_delay_seconds),
                ("timeoutSeconds", probe.timeout_seconds),
                ("periodSeconds", probe.period_seconds),
                ("successThreshold", probe.success_threshold),
                ("failureThreshold", probe.failure_threshold),
            ] {
                if let Some(value) = value.filter(|v| *v < 0) {
                    findings
                        .report(
                            Target::value(site.path.key(field)),
                            format!("{field} of {} is {value}; it must not be negative", site.describe()),
                        )
                        .help("use 0 or more seconds (0 means the default for every field but initialDelaySeconds)")
                        .container(name);
                }
            }
        }
        if let Some(http) = site.http_get {
            check_port(
                findings,
                &site.path.key("httpGet").key("port"),
                &http.port,
                &site.describe(),
                name,
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
                    .container(name);
            }
        }
        if let Some(tcp) = site.tcp_socket {
            check_port(
                findings,
                &site.path.key("tcpSocket").key("port"),
                &tcp.port,
                &site.describe(),
                name,
            );
        }
        if let Some(grpc) = site.grpc {
            check_port(
                findings,
                &site.path.key("grpc").key("port"),
                &IntOrString::Int(grpc.port),
                &site.describe(),
                name,
            );
        }
        if let Some(sleep) = site.sleep {
            let field = Target::value(site.path.key("sleep").key("seconds"));
            let grace = ctx.life.grace_period.seconds;
            if sleep.seconds < 0 {
                findings
                    .report(
                        field,
                        format!(
                            "{} sleeps {}s; the duration must not be negative",
                            site.describe(),
                            sleep.seconds
                        ),
                    )
                    .container(name);
            } else if sleep.seconds == 0 && !POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO.enabled(ctx.kube)
            {
                findings
                    .report(
                        field,
                        format!(
                            "{} sleeps 0s, which Kubernetes {} rejects",
                            site.describe(),
                            ctx.kube
                        ),
                    )
                    .help(format!(
                        "remove the hook, or target a cluster where {} is allowed ({})",
                        POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO.description,
                        POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO.availability()
                    ))
                    .container(name);
            } else if site.used_for == HandlerUse::PostStart && sleep.seconds > grace {
                findings
                    .report(
                        field,
                        format!(
                            "{} sleeps {}s, longer than the {grace}s grace period, which the API server rejects",
                            site.describe(),
                            sleep.seconds
                        ),
                    )
                    .help("shorten the sleep or raise `terminationGracePeriodSeconds`")
                    .container(name);
            }
        }
    }
    if ctx.site.spec.containers.is_empty() {
        findings
            .report(
                Target::key(ctx.site.spec_path.key("containers")),
                "the pod spec has no containers, which the API server requires",
            )
            .help("list at least one container under `containers`");
    }
    for (list, containers) in [
        ("containers", &ctx.site.spec.containers[..]),
        (
            "initContainers",
            ctx.site.spec.init_containers.as_deref().unwrap_or_default(),
        ),
    ] {
        for (index, container) in containers.iter().enumerate() {
            check_container_name(ctx, findings, list, index, &container.name);
        }
    }
    for container in &ctx.life.containers {
        let mut port_names: Vec<&str> = Vec::new();
        for (index, port) in container.container.ports.iter().flatten().enumerate() {
            if let Some(name) = port.name.as_deref().filter(|n| !n.is_empty()) {
                if port_names.contains(&name) {
                    findings
                        .report(
                            Target::value(container.path.key("ports").index(index).key("name")),
                            format!(
                                "port name `{name}` is used twice in the ports of `{}`",
                                container.name
                            ),
                        )
                        .help("give each port of a container its own name")
                        .container(container.name);
                }
                port_names.push(name);
            }
            if let Some(protocol) = port
                .protocol
                .as_deref()
                .filter(|p| !matches!(*p, "TCP" | "UDP" | "SCTP"))
            {
                findings
                    .report(
                        Target::value(container.path.key("ports").index(index).key("protocol")),
                        format!(
                            "protocol `{protocol}` of a port of `{}` is not supported",
                            container.name
                        ),
                    )
                    .help(format!(
                        "use `TCP`, `UDP` or `SCTP`{}",
                        upper_case_hint(protocol)
                    ))
                    .container(container.name);
            }
            let path = container.path.key("ports").index(index);
            if !PORT_RANGE.contains(&i64::from(port.container_port)) {
                findings
                    .report(
                        Target::value(path.key("containerPort")),
                        format!(
                            "containerPort {} of `{}` is outside 1–65535",
                            port.container_port, container.name
                        ),
                    )
                    .container(container.name);
            }
            if let Some(problem) = port.name.as_deref().and_then(port_name_problem) {
                findings
                    .report(
                        Target::value(path.key("name")),
                        format!(
                            "port name `{}` of `{}` is not valid: {problem}",
                            port.name.as_deref().unwrap_or_default(),
                            container.name
                        ),
                    )
                    .help("use 1–15 lowercase letters, digits and dashes, with at least one letter")
                    .container(container.name);
            }
        }
    }
    let spec = ctx.site.spec;
    if let Some(deadline) = spec
        .active_deadline_seconds
        .filter(|d| !(1..=i64::from(i32::MAX)).contains(d))
    {
        findings
            .report(
                Target::value(ctx.site.spec_path.key("activeDeadlineSeconds")),
                format!(
                    "activeDeadlineSeconds is {deadline}; it must be between 1 and {}",
                    i32::MAX
                ),
            )
            .help("remove it for no deadline");
    }
    // A bare Pod or a PodTemplate; the controllers' own constraints are
    // `workload-restart-policy`'s.
    if (ctx.site.origin == Origin::Pod || ctx.site.kind == WorkloadKind::PodTemplate)
        && let Some(policy) = spec
            .restart_policy
            .as_deref()
            .filter(|p| !matches!(*p, "Always" | "OnFailure" | "Never"))
    {
        findings
            .report(
                Target::value(ctx.site.spec_path.key("restartPolicy")),
                format!("restartPolicy `{policy}` is not supported"),
            )
            .help(format!(
                "use `Always`, `OnFailure` or `Never`{}",
                upper_case_hint(policy)
            ));
    }
}

/// A container needs a name, and the name is a DNS label (`validateContainerCommon`).
fn check_container_name(
    ctx: &PodContext<'_>,
    findings: &mut Findings,
    list: &str,
    index: usize,
    name: &str,
) {
    let path = ctx.site.spec_path.key(list).index(index).key("name");
    let which = ordinal_container(list, index);
    if name.is_empty() {
        findings
            .report(
                Target::value(path),
                format!("{which} has no `name`, which the API server requires"),
            )
            .help("give every container a unique name: lowercase letters, digits and dashes");
        return;
    }
    if let Some(problem) = dns_label_problem(name) {
        findings
            .report(
                Target::value(path),
                format!("container name `{name}` is not valid: {problem}"),
            )
            .help("use 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit")
            .container(name);
    }
}

/// "the 2nd container", "the 1st init container": how to name a container without a name.
pub(crate) fn ordinal_container(list: &str, index: usize) -> String {
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

/// Why `name` is not a DNS-1123 label (`IsDNS1123Label`), if it is not.
fn dns_label_problem(name: &str) -> Option<&'static str> {
    if name.len() > 63 {
        Some("it must be at most 63 characters long")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some("it may contain only lowercase letters, digits and dashes")
    } else if name.starts_with('-') || name.ends_with('-') {
        Some("it must start and end with a letter or digit")
    } else {
        None
    }
}

fn check_port(
    findings: &mut Findings,
    path: &FieldPath,
    port: &IntOrString,
    owner: &str,
    container: &str,
) {
    match port {
        IntOrString::Int(number) if !PORT_RANGE.contains(&i64::from(*number)) => {
            findings
                .report(
                    Target::value(path.clone()),
                    format!("port {number} of {owner} is outside 1–65535"),
                )
                .container(container);
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
                    .container(container);
            }
        }
        IntOrString::Int(_) => {}
    }
}

/// Why `name` is not an IANA service name as Kubernetes checks it (`IsValidPortName`).
fn port_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() || name.len() > 15 {
        Some("it must be 1 to 15 characters long")
    } else if !name
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    {
        Some("it may contain only lowercase letters, digits and dashes")
    } else if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        Some("it must contain at least one letter, so a quoted number is not a port number")
    } else if name.starts_with('-') || name.ends_with('-') || name.contains("--") {
        Some("dashes may not start or end it, nor stand next to each other")
    } else {
        None
    }
}

fn upper_case_hint(value: &str) -> String {
    let upper = value.to_ascii_uppercase();
    let capitalised = value
        .chars()
        .enumerate()
        .map(|(i, c)| {
            if i == 0 {
                c.to_ascii_uppercase()
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect::<String>();
    for candidate in [upper, capitalised] {
        if candidate != value
            && matches!(
                candidate.as_str(),
                "HTTP" | "HTTPS" | "Always" | "OnFailure" | "Never" | "TCP" | "UDP" | "SCTP"
            )
        {
            return format!("; values are case-sensitive: `{candidate}`");
        }
    }
    String::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_names_and_ordinals() {
        assert_eq!(dns_label_problem("web-1"), None);
        assert!(dns_label_problem("Web_1").is_some());
        assert!(dns_label_problem("-web").is_some());
        assert!(dns_label_problem(&"a".repeat(64)).is_some());
        assert_eq!(ordinal_container("containers", 1), "the 2nd container");
        assert_eq!(
            ordinal_container("initContainers", 0),
            "the 1st init container"
        );
        assert_eq!(ordinal_container("containers", 10), "the 11th container");
        assert_eq!(ordinal_container("containers", 22), "the 23rd container");
    }

    #[test]
    fn port_names() {
        for good in ["http", "metrics-1", "a", "h2c", "grpc-health"] {
            assert_eq!(port_name_problem(good), None, "{good}");
        }
        for bad in [
            "8080",
            "HTTP",
            "-http",
            "http-",
            "a--b",
            "sixteen-letters-",
            "",
            "web_port",
        ] {
            assert!(port_name_problem(bad).is_some(), "{bad}");
        }
    }
}
