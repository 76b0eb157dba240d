use crate::lifecycle::{ContainerLife, Role};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a container whose `postStart` hook comes before a sidecar in the start order: a
    /// native sidecar (an init container with `restartPolicy: Always`), or a container in
    /// `containers` that is a well-known sidecar by name or image — service-mesh proxies
    /// (`istio-proxy`, `linkerd-proxy`, Envoy), the Cloud SQL Auth Proxy, Vault Agent, log
    /// shippers (Fluent Bit, Fluentd, Filebeat, Promtail).
    ///
    /// A well-known proxy that comes *first* and holds the other containers back with its own
    /// postStart (Istio's `holdApplicationUntilProxyStarts`) is the intended pattern and is not
    /// reported.
    ///
    /// ## Why is this bad?
    /// The kubelet starts containers one after another and runs each postStart hook to
    /// completion before it pulls and starts the next container. A sidecar declared after a
    /// container with a postStart hook is not started until that hook returns. If the hook
    /// needs the sidecar — a database through the SQL proxy, the network through the mesh
    /// proxy, a secret from Vault Agent — it waits for something that cannot start, fails,
    /// and the container is killed and restarted in a loop.
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
    ///         lifecycle:
    ///           postStart:
    ///             exec:
    ///               command: ["/app/migrate", "--db", "127.0.0.1:5432"]
    ///       - name: cloud-sql-proxy
    ///         image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    /// ```
    ///
    /// Make the proxy a native sidecar, so that it is started before any app container:
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
    ///       initContainers:
    ///       - name: cloud-sql-proxy
    ///         image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///         restartPolicy: Always
    ///       containers:
    ///       - name: api
    ///         image: example/api:1.0
    ///         lifecycle:
    ///           postStart:
    ///             exec:
    ///               command: ["/app/migrate", "--db", "127.0.0.1:5432"]
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `SyncPod`:
    ///   app containers are started in order, each by `startContainer`.
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `startContainer`: pull, create, start, then run the postStart hook and wait for it.
    /// - kubernetes/enhancements KEP-753 (sidecar containers): "regular containers … are started
    ///   sequentially with the postStart hook being a blocking call".
    /// - [Container lifecycle hooks](https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/)
    pub static RULE = {
        name: "poststart-blocks-sidecar",
        category: Suspicious,
        enforcement: Runtime,
        summary: "postStart hook that delays the start of a later sidecar",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for (index, container) in ctx.life.containers.iter().enumerate() {
        let Some(hook) = delaying_hook(container) else {
            continue;
        };
        let sidecars: Vec<&ContainerLife<'_>> = ctx
            .life
            .started_after(index)
            .iter()
            .filter(|c| c.is_sidecar())
            .collect();
        if sidecars.is_empty() {
            continue;
        }
        let names = label_list(sidecars.iter().copied());
        let noun = if sidecars.len() == 1 {
            "sidecar"
        } else {
            "sidecars"
        };
        let finding = findings
            .report(
                Target::key(hook.path.clone()),
                format!(
                    "postStart of {} delays the start of {noun} {names}",
                    container.label()
                ),
            )
            .help(help(container, &sidecars))
            .container(container.name);
        for sidecar in sidecars {
            finding.label(
                Target::value(sidecar.path.key("name")),
                format!("{} starts only after the hook returns", sidecar.label()),
            );
        }
    }
}

/// The postStart hook of a container that holds back later ones, unless the container is a
/// well-known proxy holding the app back on purpose.
pub(crate) fn delaying_hook<'c>(
    container: &'c ContainerLife<'_>,
) -> Option<&'c crate::lifecycle::Hook> {
    if container.role == Role::Init || container.known_sidecar.is_some() {
        return None;
    }
    let hook = container.post_start.as_ref()?;
    (hook.duration != crate::lifecycle::HookDuration::Exactly(0)).then_some(hook)
}

fn help(container: &ContainerLife<'_>, sidecars: &[&ContainerLife<'_>]) -> String {
    match sidecars.iter().find(|s| s.role == Role::App) {
        Some(sidecar) => format!(
            "make {} a native sidecar (an init container with `restartPolicy: Always`) so it starts before every app container, or declare it before {}",
            sidecar.label(),
            container.label()
        ),
        None => format!(
            "declare {} before {} in `initContainers`, or move the hook's work out of postStart",
            label_list(sidecars.iter().copied()),
            container.label()
        ),
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c`.
pub(crate) fn name_list<'a>(names: impl Iterator<Item = &'a str>) -> String {
    listed(names.map(|n| format!("`{n}`")))
}

/// The containers as messages name them ([`ContainerLife::label`]), listed as by [`name_list`].
pub(crate) fn label_list<'a, 'c: 'a>(
    containers: impl Iterator<Item = &'a ContainerLife<'c>>,
) -> String {
    listed(containers.map(ContainerLife::label))
}

/// `a`, `a and b`, `a, b and c`.
fn listed(names: impl Iterator<Item = String>) -> String {
    let names: Vec<String> = names.collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}
