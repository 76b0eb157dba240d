use crate::lifecycle::{ContainerLife, Role};
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::text::short_phrase_list;

declare_rule! {
    /// ## What it does
    /// Finds a container whose `postStart` hook comes before a sidecar in the start order: a
    /// native sidecar (an init container with `restartPolicy: Always`), or a container in
    /// `containers` that is a well-known sidecar — a service-mesh or database proxy, a secret
    /// agent, a log shipper, recognised by the program its `command` and `args` run, else by
    /// its name or image (the list is in
    /// [docs/configuration.md](../configuration.md#sidecars); the configuration can add more).
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
    ///         args: ["--port=5432", "example:europe-west1:db"]
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
    ///         args: ["--port=5432", "example:europe-west1:db"]
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
    pub(crate) static RULE = {
        name: "poststart-blocks-sidecar",
        category: Suspicious,
        enforcement: Runtime,
        summary: "postStart hook that delays the start of a later sidecar",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let after = ctx.life.sidecars_after();
    for (index, container) in ctx.life.containers.iter().enumerate() {
        let Some(hook) = container.delaying_post_start() else {
            continue;
        };
        let count = after.count(index);
        if count == 0 {
            continue;
        }
        // Name a few; a pod with thousands of them gets one line, not thousands.
        let sidecars: Vec<&ContainerLife<'_>> = after
            .iter(index)
            .take(3)
            .map(|i| &ctx.life.containers[i])
            .collect();
        let names = short_phrase_list(sidecars.iter().map(|c| c.quoted()), count);
        let noun = if count == 1 { "sidecar" } else { "sidecars" };
        let finding = findings
            .report(
                Target::key(hook.path.clone()),
                format!(
                    "postStart of {} delays the start of {noun} {names}",
                    container.quoted()
                ),
            )
            .help(help(container, &sidecars, count))
            .container(container.name);
        for sidecar in sidecars {
            finding.label(
                Target::value(sidecar.path.key("name")),
                format!("{} starts only after the hook returns", sidecar.quoted()),
            );
        }
    }
}

fn help(container: &ContainerLife<'_>, sidecars: &[&ContainerLife<'_>], count: usize) -> String {
    match sidecars.iter().find(|s| s.role == Role::App) {
        Some(sidecar) => format!(
            "make {} a native sidecar (an init container with `restartPolicy: Always`) so it starts before every app container, or declare it before {}",
            sidecar.quoted(),
            container.quoted()
        ),
        None => format!(
            "declare {} before {} in `initContainers`, or move the hook's work out of postStart",
            short_phrase_list(sidecars.iter().map(|c| c.quoted()), count),
            container.quoted()
        ),
    }
}
