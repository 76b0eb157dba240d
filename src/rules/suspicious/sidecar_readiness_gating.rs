use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a native sidecar (an init container with `restartPolicy: Always`) that has a
    /// `readinessProbe` but neither a `startupProbe` nor a `postStart` hook, and that other
    /// containers are declared after.
    ///
    /// ## Why is this bad?
    /// A readiness probe on a sidecar looks like it holds the next containers back until the
    /// sidecar is ready, but the kubelet does not look at it when it starts the next
    /// container: it waits only until the sidecar is *started* — its startup probe passed
    /// and its postStart hook returned, or, with neither, as soon as its process runs. The
    /// readiness result only feeds the pod's Ready condition. The containers after it start
    /// right away, and whatever needs the sidecar (the database through the proxy, secrets
    /// from the agent) fails during their start-up.
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
    ///       initContainers:
    ///       - name: db-proxy
    ///         image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///         restartPolicy: Always
    ///         readinessProbe:
    ///           tcpSocket: {port: 5432}
    ///       containers:
    ///       - name: api
    ///         image: example/api:1.0
    /// ```
    ///
    /// Use a startup probe, which the kubelet waits for:
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
    ///       - name: db-proxy
    ///         image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///         restartPolicy: Always
    ///         startupProbe:
    ///           tcpSocket: {port: 5432}
    ///         readinessProbe:
    ///           tcpSocket: {port: 5432}
    ///       containers:
    ///       - name: api
    ///         image: example/api:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `computeInitContainerActions`: for a running sidecar the kubelet waits for a
    ///   successful startup probe, if there is one, and then starts the next init container;
    ///   the readiness probe is not consulted, and "a restartable init container does not have
    ///   to take into account its liveness probe when it determines to start the next init
    ///   container".
    /// - kubernetes/enhancements KEP-753 (sidecar containers): a sidecar is started once its
    ///   startup probe succeeded (or it has none) and its postStart handler completed.
    /// - [Sidecar containers](https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/)
    pub(crate) static RULE = {
        name: "sidecar-readiness-gating",
        category: Suspicious,
        enforcement: Runtime,
        summary: "sidecar that relies on a readiness probe to hold back later containers",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for (sidecar, next) in ctx
        .life
        .ungated_sidecars()
        .filter(|(s, _)| s.probes.readiness.is_some())
    {
        findings
            .report(
                Target::key(sidecar.path.key("readinessProbe")),
                format!(
                    "the readinessProbe of {} does not hold back {}: the kubelet starts it as soon as {} is running",
                    sidecar.quoted_as("sidecar"), next.quoted(), sidecar.quoted()
                ),
            )
            .help(format!(
                "add a `startupProbe` to {} (it may check what the readinessProbe checks): the next container starts only once it passes",
                sidecar.quoted()
            ))
            .label(
                Target::value(next.path.key("name")),
                format!("{} starts without waiting for readiness", next.quoted()),
            )
            .container(sidecar.name);
    }
}
