use crate::rules::pedantic::report_missing_probe;
use crate::rules::{Findings, PodContext, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a container of a long-running workload (a Deployment, ReplicaSet,
    /// ReplicationController, StatefulSet or DaemonSet, or a bare Pod that is always
    /// restarted) without a `readinessProbe`. Native sidecars count as containers; Jobs,
    /// CronJobs and classic init containers are never reported.
    ///
    /// ## Why is this bad?
    /// Without a readiness probe, the kubelet reports a container Ready as soon as it is
    /// started. A pod behind a Service then receives traffic while the application is still
    /// loading, and keeps receiving it while it cannot serve (overloaded, or a dependency
    /// down); a rolling update moves on to the next pod before the new one can take
    /// requests. Some containers (a worker that serves nothing) need no probe, which is why
    /// this rule is off by default.
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
    /// ```
    ///
    /// Tell Kubernetes when the container can serve:
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
    ///           httpGet: {path: /, port: 80}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/prober/prober_manager.go`, `UpdatePodStatus`: a
    ///   started container without a readiness probe is Ready ("no readinessProbe -> always
    ///   ready").
    /// - [Pod lifecycle: when should you use a readiness probe?](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#when-should-you-use-a-readiness-probe)
    pub(crate) static RULE = {
        name: "missing-readiness-probe",
        category: Pedantic,
        enforcement: Advice,
        summary: "container of a long-running workload without a readiness probe",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    report_missing_probe(
        ctx,
        findings,
        "readinessProbe",
        |probes| probes.readiness.is_some(),
        "it counts as Ready as soon as it is started, whether or not it can serve",
        "add a `readinessProbe` that succeeds only when the container can serve",
    );
}
