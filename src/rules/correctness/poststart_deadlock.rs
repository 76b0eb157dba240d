use crate::lifecycle::{ContainerLife, HandlerUse, ProbeKind, handlers};
use crate::model::IntOrString;
use crate::model::path::FieldPath;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a `postStart` hook that talks to a port on localhost — with `httpGet`, or an exec
    /// command such as `until wget -q localhost:9000; do sleep 1; done`, `nc -z localhost 9000`
    /// or `curl http://127.0.0.1:9000/ready` — when only a container started *after* this one
    /// serves that port (it declares it in `ports`, or its arguments say it listens there).
    ///
    /// ## Why is this bad?
    /// The kubelet starts containers one at a time and waits for each postStart hook to return
    /// before it starts the next container. The hook waits for a server that is only started
    /// once the hook has returned: a polling loop hangs forever, a single request fails and the
    /// container is killed and restarted, again and again. The pod never becomes Ready.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: app
    /// spec:
    ///   selector:
    ///     matchLabels: {app: app}
    ///   template:
    ///     metadata:
    ///       labels: {app: app}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: example/app:1.0
    ///         lifecycle:
    ///           postStart:
    ///             exec:
    ///               command: ["sh", "-c", "until wget -q -O- localhost:9000/ready; do sleep 1; done"]
    ///       - name: config-server
    ///         image: example/config-server:1.0
    ///         ports:
    ///         - containerPort: 9000
    /// ```
    ///
    /// Start the server first, as a native sidecar whose startup probe gates the app:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: app
    /// spec:
    ///   selector:
    ///     matchLabels: {app: app}
    ///   template:
    ///     metadata:
    ///       labels: {app: app}
    ///     spec:
    ///       initContainers:
    ///       - name: config-server
    ///         image: example/config-server:1.0
    ///         restartPolicy: Always
    ///         ports:
    ///         - containerPort: 9000
    ///         startupProbe:
    ///           httpGet: {path: /ready, port: 9000}
    ///       containers:
    ///       - name: app
    ///         image: example/app:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `SyncPod`, and
    ///   `pkg/kubelet/kuberuntime/kuberuntime_container.go`, `startContainer`: containers start
    ///   in order and each postStart hook blocks the next start; a failed hook kills the
    ///   container.
    /// - kubernetes/enhancements KEP-753: "regular containers … are started sequentially with
    ///   the postStart hook being a blocking call".
    pub(crate) static RULE = {
        name: "poststart-deadlock",
        category: Correctness,
        enforcement: Runtime,
        summary: "postStart hook that waits for a port only a later container serves",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        if site.used_for != HandlerUse::PostStart {
            continue;
        }
        let mut ports = Vec::new();
        if let Some(http) = site.http_get {
            let local = http
                .host
                .as_deref()
                .is_none_or(|h| h.is_empty() || is_loopback(h));
            let number = match &http.port {
                IntOrString::Int(p) => Some(*p),
                IntOrString::String(s) => s.parse().ok(),
            };
            ports.extend(number.filter(|_| local));
        }
        if let Some(command) = site.exec.and_then(|e| e.command.as_deref()) {
            ports.extend(localhost_ports(&command.join(" ")));
        }
        ports.sort_unstable();
        ports.dedup();
        for port in ports {
            let served_before_or_here = ctx.life.containers[..=site.index]
                .iter()
                .any(|c| serves(c, port).is_some());
            if served_before_or_here {
                continue;
            }
            let Some((server, where_)) = ctx.life.containers[site.index + 1..]
                .iter()
                .find_map(|c| serves(c, port).map(|path| (c, path)))
            else {
                continue;
            };
            findings
                .report(
                    Target::key(site.path.clone()),
                    format!(
                        "{} waits for port {port}, which only {} serves, and {} starts only after the hook returns",
                        site.describe(),
                        server.quoted(),
                        server.quoted()
                    ),
                )
                .label(Target::value(where_), format!("{} serves port {port} here", server.quoted()))
                .help(format!(
                    "make {} a native sidecar (an init container with `restartPolicy: Always` and a startup probe on port {port}), or declare it before {}",
                    server.quoted(), site.container.quoted()
                ))
                .container(site.container.name);
        }
    }
}

fn is_loopback(host: &str) -> bool {
    matches!(
        host,
        "localhost" | "127.0.0.1" | "::1" | "[::1]" | "0.0.0.0"
    )
}

/// Where a container shows it serves `port`: a `containerPort`, an argument such as
/// `--port=9000`, `--listen :9000` or `--http-address=0.0.0.0:9000`, or a probe of its own
/// that connects to the port on the pod's address (an injected Istio proxy declares only its
/// metrics port 15090, and its readiness probe names 15021, where it reports ready).
fn serves(container: &ContainerLife<'_>, port: i32) -> Option<FieldPath> {
    let c = container.container;
    if let Some(index) = c
        .ports
        .iter()
        .flatten()
        .position(|p| p.container_port == port)
    {
        return Some(
            container
                .path
                .key("ports")
                .index(index)
                .key("containerPort"),
        );
    }
    for kind in [
        ProbeKind::Readiness,
        ProbeKind::Startup,
        ProbeKind::Liveness,
    ] {
        let probe = match kind {
            ProbeKind::Readiness => c.readiness_probe.as_ref(),
            ProbeKind::Startup => c.startup_probe.as_ref(),
            ProbeKind::Liveness => c.liveness_probe.as_ref(),
        };
        let Some(probe) = probe else { continue };
        // The probe's own port, on the pod's address: an `httpGet` without `host`, a
        // `tcpSocket` without `host`, a `grpc` probe.
        let own = [
            probe
                .http_get
                .as_ref()
                .filter(|h| h.host.as_deref().is_none_or(str::is_empty))
                .map(|h| (&h.port, "httpGet")),
            probe
                .tcp_socket
                .as_ref()
                .filter(|t| t.host.as_deref().is_none_or(str::is_empty))
                .map(|t| (&t.port, "tcpSocket")),
        ];
        for (value, handler) in own.into_iter().flatten() {
            let number = match value {
                IntOrString::Int(p) => Some(*p),
                IntOrString::String(s) => s.parse().ok(),
            };
            if number == Some(port) {
                return Some(container.path.key(kind.field()).key(handler).key("port"));
            }
        }
        if probe.grpc.as_ref().is_some_and(|g| g.port == port) {
            return Some(container.path.key(kind.field()).key("grpc").key("port"));
        }
    }
    for field in ["args", "command"] {
        let words = if field == "args" { &c.args } else { &c.command };
        let words = words.as_deref().unwrap_or_default();
        for (index, word) in words.iter().enumerate() {
            let next = words.get(index + 1).map(String::as_str);
            if listen_flag_port(word, next) == Some(port) {
                return Some(container.path.key(field).index(index));
            }
        }
    }
    None
}

/// The port of a listen flag: `--port=9000`, `--port 9000`, `--listen=:9000`,
/// `--metrics-addr=0.0.0.0:9000`.
fn listen_flag_port(word: &str, next: Option<&str>) -> Option<i32> {
    let flag = word.strip_prefix("--").or_else(|| word.strip_prefix('-'))?;
    let (name, value) = match flag.split_once('=') {
        Some((name, value)) => (name, value),
        None => (flag, next?),
    };
    let name = name.to_ascii_lowercase();
    let is_listen_flag = ["port", "listen", "addr", "bind"]
        .iter()
        .any(|k| name.contains(k));
    if !is_listen_flag {
        return None;
    }
    let digits = value.rsplit(':').next()?;
    digits.parse().ok().filter(|p| (1..=65535).contains(p))
}

/// Ports on the loopback address that a shell command talks to: `localhost:9000`,
/// `127.0.0.1:9000`, `nc -z localhost 9000`, `/dev/tcp/localhost/9000`.
fn localhost_ports(command: &str) -> Vec<i32> {
    const HOSTS: [&str; 4] = ["localhost", "127.0.0.1", "[::1]", "0.0.0.0"];
    let mut ports = Vec::new();
    let words: Vec<&str> = command
        .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    for (index, word) in words.iter().enumerate() {
        for host in HOSTS {
            let Some(at) = word.find(host) else { continue };
            let rest = &word[at + host.len()..];
            if let Some(after) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('/')) {
                let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
                ports.extend(digits.parse::<i32>().ok());
            } else if rest.is_empty()
                && index > 0
                && matches!(words[..index].last(), Some(w) if w.starts_with('-') || *w == "nc" || *w == "ncat")
            {
                // `nc -z localhost 9000`: the port is the next word.
                ports.extend(words.get(index + 1).and_then(|w| w.parse::<i32>().ok()));
            } else if rest.is_empty()
                && words[..index]
                    .iter()
                    .rev()
                    .take(3)
                    .any(|w| matches!(*w, "nc" | "ncat" | "netcat"))
            {
                ports.extend(words.get(index + 1).and_then(|w| w.parse::<i32>().ok()));
            }
        }
    }
    ports.retain(|p| (1..=65535).contains(p));
    ports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_loopback_ports_in_commands() {
        assert_eq!(
            localhost_ports("until wget -q localhost:9000/ready; do sleep 1; done"),
            [9000]
        );
        assert_eq!(
            localhost_ports("curl -sf http://127.0.0.1:8080/healthz"),
            [8080]
        );
        assert_eq!(
            localhost_ports("while ! nc -z localhost 5432; do sleep 1; done"),
            [5432]
        );
        assert_eq!(localhost_ports("echo > /dev/tcp/localhost/6379"), [6379]);
        assert_eq!(
            localhost_ports("curl http://db.example.com:5432"),
            Vec::<i32>::new()
        );
        assert_eq!(localhost_ports("echo localhost"), Vec::<i32>::new());
    }

    #[test]
    fn reads_listen_flags() {
        assert_eq!(listen_flag_port("--port=9000", None), Some(9000));
        assert_eq!(listen_flag_port("--port", Some("9000")), Some(9000));
        assert_eq!(listen_flag_port("--listen=:9000", None), Some(9000));
        assert_eq!(
            listen_flag_port("-metrics-addr=0.0.0.0:8443", None),
            Some(8443)
        );
        assert_eq!(listen_flag_port("--timeout=9000", None), None);
        assert_eq!(listen_flag_port("serve", Some("9000")), None);
    }
}
