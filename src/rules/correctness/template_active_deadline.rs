use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds `activeDeadlineSeconds` in the pod template of a Deployment, ReplicaSet,
    /// ReplicationController, StatefulSet or DaemonSet.
    ///
    /// ## Why is this bad?
    /// `activeDeadlineSeconds` makes the kubelet fail a pod once it has run that long. These
    /// controllers keep pods running forever, so the API server rejects the workload with
    /// `Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported` (likewise for the
    /// other kinds). Jobs and bare Pods may set it.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: StatefulSet
    /// metadata:
    ///   name: db
    /// spec:
    ///   serviceName: db
    ///   selector:
    ///     matchLabels: {app: db}
    ///   template:
    ///     metadata:
    ///       labels: {app: db}
    ///     spec:
    ///       activeDeadlineSeconds: 3600
    ///       containers:
    ///       - name: db
    ///         image: postgres:16
    /// ```
    ///
    /// Remove the field; to run something for a bounded time, use a Job:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: StatefulSet
    /// metadata:
    ///   name: db
    /// spec:
    ///   serviceName: db
    ///   selector:
    ///     matchLabels: {app: db}
    ///   template:
    ///     metadata:
    ///       labels: {app: db}
    ///     spec:
    ///       containers:
    ///       - name: db
    ///         image: postgres:16
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/apps/validation/validation.go`:
    ///   `ValidatePodTemplateSpecForReplicaSet`, `ValidateStatefulSetSpec` and
    ///   `ValidateDaemonSetSpec` forbid `activeDeadlineSeconds`.
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`,
    ///   `ValidatePodTemplateSpecForRC`: the same for ReplicationControllers.
    pub(crate) static RULE = {
        name: "template-active-deadline",
        category: Correctness,
        enforcement: ApiServer,
        summary: "activeDeadlineSeconds in a long-running controller's pod template",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if !ctx.site.is_long_running_controller() || ctx.site.spec.active_deadline_seconds.is_none() {
        return;
    }
    findings
        .report(
            Target::key(ctx.site.spec_path.key("activeDeadlineSeconds")),
            format!(
                "activeDeadlineSeconds is not allowed in a {} pod template",
                ctx.site.object.kind.as_str()
            ),
        )
        .help(format!(
            "remove it: a {} keeps its pods running; use a Job for work with a deadline",
            ctx.site.object.kind.as_str()
        ));
}
