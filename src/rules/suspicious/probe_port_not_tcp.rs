use crate::lifecycle::{HandlerUse, handlers};
use crate::model::IntOrString;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds an httpGet or tcpSocket probe or hook that names a port which its container
    /// declares with `protocol: UDP` (or `SCTP`), when the container declares no TCP port of
    /// the same number.
    ///
    /// ## Why is this bad?
    /// The kubelet resolves a port name by looking it up in the container's `ports` and takes
    /// its number; the protocol is not looked at. It then connects over TCP — an HTTP request
    /// or a TCP handshake — to a port where the container listens for UDP. Unless the
    /// container also happens to listen on TCP there, every try fails: a readiness probe never
    /// lets the pod become Ready, a liveness or startup probe restarts the container again and
    /// again, and an httpGet hook fails.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: syslog
    /// spec:
    ///   containers:
    ///   - name: syslog
    ///     image: example/syslog:1.0
    ///     ports:
    ///     - name: syslog
    ///       containerPort: 514
    ///       protocol: UDP
    ///     readinessProbe:
    ///       tcpSocket: {port: syslog}
    /// ```
    ///
    /// Declare the TCP port the check can reach, or check another way:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: syslog
    /// spec:
    ///   containers:
    ///   - name: syslog
    ///     image: example/syslog:1.0
    ///     ports:
    ///     - name: syslog
    ///       containerPort: 514
    ///       protocol: UDP
    ///     - name: syslog-tcp
    ///       containerPort: 514
    ///       protocol: TCP
    ///     readinessProbe:
    ///       tcpSocket: {port: syslog-tcp}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/probe/util.go`, `ResolveContainerPort` and
    ///   `findPortByName`: a named port resolves to its `containerPort`, whatever its protocol.
    /// - kubernetes/kubernetes `pkg/probe/tcp/tcp.go` and `pkg/probe/http/http.go`: tcpSocket
    ///   probes dial TCP; httpGet probes send HTTP over TCP.
    /// - kubernetes/api `core/v1/types.go`, `ContainerPort.Protocol`: `UDP`, `TCP` or `SCTP`,
    ///   default `TCP`.
    pub(crate) static RULE = {
        name: "probe-port-not-tcp",
        category: Suspicious,
        enforcement: Runtime,
        summary: "probe or hook on a named port that its container declares as UDP or SCTP",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let (port, handler) = match (site.http_get, site.tcp_socket) {
            (Some(http), _) => (&http.port, "httpGet"),
            // A tcpSocket hook always fails: `tcp-socket-hook` says so.
            (None, Some(tcp)) if site.used_for.is_probe() => (&tcp.port, "tcpSocket"),
            _ => continue,
        };
        let IntOrString::String(name) = port else {
            continue;
        };
        let ports = site
            .container
            .container
            .ports
            .as_deref()
            .unwrap_or_default();
        let Some((index, declared)) = ports
            .iter()
            .enumerate()
            .find(|(_, p)| p.name.as_deref() == Some(name.as_str()))
        else {
            continue;
        };
        let protocol = declared.protocol.as_deref().unwrap_or("TCP");
        let also_tcp = ports.iter().any(|p| {
            p.container_port == declared.container_port
                && p.protocol.as_deref().unwrap_or("TCP") == "TCP"
        });
        if protocol == "TCP" || also_tcp {
            continue;
        }
        let consequence = match site.used_for {
            HandlerUse::Readiness => "so it fails and the pod never becomes Ready",
            HandlerUse::Liveness | HandlerUse::Startup => {
                "so it fails and the container is restarted again and again"
            }
            HandlerUse::PostStart => {
                "so the hook fails and the container is killed after every start"
            }
            HandlerUse::PreStop => "so the hook fails and does nothing",
        };
        findings
            .report(
                Target::value(site.path.key(handler).key("port")),
                format!(
                    "{} uses port `{name}`, which {} declares as {protocol}: the kubelet connects over TCP, {consequence}",
                    site.describe(),
                    site.container.quoted()
                ),
            )
            .label(
                Target::value(site.container.path.key("ports").index(index).key("protocol")),
                format!("`{name}` is {protocol} ({})", declared.container_port),
            )
            .help(format!(
                "declare a TCP port of the same number (`protocol: TCP`) and use it, or check {} another way",
                site.container.quoted()
            ))
            .container(site.container.name);
    }
}
