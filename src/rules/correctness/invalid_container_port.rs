use crate::rules::values::{PORT_RANGE, port_name_problem, upper_case_hint};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds an entry of a container's `ports` that the API server rejects: a `containerPort`
    /// outside 1–65535, a `name` that is not a valid port name (1–15 lowercase letters, digits
    /// and dashes, with at least one letter), a name used twice in one container, and a
    /// `protocol` other than `TCP`, `UDP` or `SCTP` (the values are case-sensitive).
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload (`Invalid value`, `Duplicate value`,
    /// `Unsupported value`), so nothing of it is applied.
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
    ///     ports:
    ///     - name: HTTP
    ///       containerPort: 70000
    ///       protocol: tcp
    /// ```
    ///
    /// Use a lowercase name, a port in range and an upper-case protocol:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     ports:
    ///     - name: http
    ///       containerPort: 8080
    ///       protocol: TCP
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`:
    ///   `validateContainerPorts` (port range, `IsValidPortName`, duplicate names, protocols).
    /// - kubernetes/apimachinery `pkg/util/validation/validation.go`: `IsValidPortName`,
    ///   `IsValidPortNum`.
    pub(crate) static RULE = {
        name: "invalid-container-port",
        category: Correctness,
        enforcement: ApiServer,
        summary: "container port with a number, name or protocol the API server rejects",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for container in &ctx.life.containers {
        let mut port_names: Vec<&str> = Vec::new();
        for (index, port) in container.container.ports.iter().flatten().enumerate() {
            let path = container.path.key("ports").index(index);
            if let Some(name) = port.name.as_deref().filter(|n| !n.is_empty()) {
                if port_names.contains(&name) {
                    findings
                        .report(
                            Target::value(path.key("name")),
                            format!(
                                "port name `{name}` is used twice in the ports of {}",
                                container.quoted()
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
                        Target::value(path.key("protocol")),
                        format!(
                            "protocol `{protocol}` of a port of {} is not supported",
                            container.quoted()
                        ),
                    )
                    .help(format!(
                        "use `TCP`, `UDP` or `SCTP`{}",
                        upper_case_hint(protocol)
                    ))
                    .container(container.name);
            }
            if !PORT_RANGE.contains(&i64::from(port.container_port)) {
                findings
                    .report(
                        Target::value(path.key("containerPort")),
                        format!(
                            "containerPort {} of {} is outside 1–65535",
                            port.container_port,
                            container.quoted()
                        ),
                    )
                    .help("use a port number from 1 to 65535")
                    .container(container.name);
            }
            if let Some(problem) = port.name.as_deref().and_then(port_name_problem) {
                findings
                    .report(
                        Target::value(path.key("name")),
                        format!(
                            "port name `{}` of {} is not valid: {problem}",
                            port.name.as_deref().unwrap_or_default(),
                            container.quoted()
                        ),
                    )
                    .help("use 1–15 lowercase letters, digits and dashes, with at least one letter")
                    .container(container.name);
            }
        }
    }
}
