use crate::rules::pedantic::report_missing_probe;
use crate::rules::{Findings, PodContext, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a container of a long-running workload (a Deployment, ReplicaSet,
    /// ReplicationController, StatefulSet or DaemonSet, or a bare Pod that is always
    /// restarted) without a `livenessProbe`. Native sidecars count as containers; Jobs,
    /// CronJobs and classic init containers are never reported.
    ///
    /// ## Why is this bad?
    /// The kubelet restarts a container when its process exits. A process that hangs — a
    /// deadlock, a stuck event loop — keeps running, and nothing restarts it without a
    /// liveness probe. An application that reliably exits when it becomes unhealthy does not
    /// need one, which is why this rule is off by default.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: StatefulSet
    /// metadata:
    ///   name: queue
    /// spec:
    ///   serviceName: queue
    ///   selector:
    ///     matchLabels: {app: queue}
    ///   template:
    ///     metadata:
    ///       labels: {app: queue}
    ///     spec:
    ///       containers:
    ///       - name: queue
    ///         image: example/queue:1.0
    /// ```
    ///
    /// Let the kubelet restart a hung process:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: StatefulSet
    /// metadata:
    ///   name: queue
    /// spec:
    ///   serviceName: queue
    ///   selector:
    ///     matchLabels: {app: queue}
    ///   template:
    ///     metadata:
    ///       labels: {app: queue}
    ///     spec:
    ///       containers:
    ///       - name: queue
    ///         image: example/queue:1.0
    ///         livenessProbe:
    ///           httpGet: {path: /livez, port: 8080}
    ///           failureThreshold: 6
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`,
    ///   `computePodActions`: a running container is killed and restarted only when its
    ///   liveness (or startup) probe fails or its spec changes.
    /// - [Pod lifecycle: when should you use a liveness probe?](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#when-should-you-use-a-liveness-probe)
    pub(crate) static RULE = {
        name: "missing-liveness-probe",
        category: Pedantic,
        enforcement: Advice,
        summary: "container of a long-running workload without a liveness probe",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    report_missing_probe(
        ctx,
        findings,
        "livenessProbe",
        |probes| probes.liveness.is_some(),
        "if its process hangs without exiting, nothing restarts it",
        "add a `livenessProbe` that checks the process itself (not its dependencies)",
    );
}
