use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Points out a native sidecar (an init container with `restartPolicy: Always`) that other
    /// containers are declared after, and that has no `startupProbe` (nor a `postStart` hook
    /// that could hold them back). A sidecar with only a `readinessProbe` is reported by
    /// `sidecar-readiness-gating` instead.
    ///
    /// ## Why is this bad?
    /// The kubelet starts the container after a sidecar as soon as the sidecar is *started*.
    /// Without a startup probe that is the moment its process runs — before a proxy listens,
    /// before an agent has fetched its first secret. The containers after it may start, and
    /// fail, before the sidecar can serve them. A startup probe that checks what they need
    /// (the port the proxy listens on) makes them wait exactly as long as necessary.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: api
    /// spec:
    ///   initContainers:
    ///   - name: db-proxy
    ///     image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///     restartPolicy: Always
    ///   containers:
    ///   - name: api
    ///     image: example/api:1.0
    /// ```
    ///
    /// Let the next containers wait until the proxy accepts connections:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: api
    /// spec:
    ///   initContainers:
    ///   - name: db-proxy
    ///     image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///     restartPolicy: Always
    ///     startupProbe:
    ///       tcpSocket: {port: 5432}
    ///       periodSeconds: 1
    ///       failureThreshold: 30
    ///   containers:
    ///   - name: api
    ///     image: example/api:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `computeInitContainerActions`: a running sidecar without a startup probe counts as
    ///   initialized and the next init container is started.
    /// - [Sidecar containers](https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/):
    ///   "After a sidecar-style init container is running (the kubelet has set the started
    ///   status for that init container to true), the kubelet then starts the next init
    ///   container from the ordered .spec.initContainers list."
    pub(crate) static RULE = {
        name: "sidecar-startup-probe",
        category: Advice,
        enforcement: Advice,
        summary: "native sidecar without a startup probe, followed by containers that may need it",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for (sidecar, next) in ctx
        .life
        .ungated_sidecars()
        .filter(|(s, _)| s.probes.readiness.is_none())
    {
        findings
            .report(
                Target::value(sidecar.path.key("name")),
                format!(
                    "{} has no startupProbe, so {} starts as soon as its process runs, possibly before it can serve",
                    sidecar.quoted_as("sidecar"), next.quoted()
                ),
            )
            .help(format!(
                "add a `startupProbe` to {} that checks what later containers need (for a proxy, the port it listens on)",
                sidecar.quoted()
            ))
            .label(
                Target::value(next.path.key("name")),
                format!("{} starts right after it", next.quoted()),
            )
            .container(sidecar.name);
    }
}
