use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a pod's `activeDeadlineSeconds` below 1 or above 2147483647.
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload (`must be between 1 and 2147483647,
    /// inclusive`). There is no value that means "no deadline": leave the field out.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: task
    /// spec:
    ///   restartPolicy: Never
    ///   activeDeadlineSeconds: 0
    ///   containers:
    ///   - name: task
    ///     image: example/task:1.0
    /// ```
    ///
    /// Leave the field out for no deadline, or give one of at least a second:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: task
    /// spec:
    ///   restartPolicy: Never
    ///   activeDeadlineSeconds: 600
    ///   containers:
    ///   - name: task
    ///     image: example/task:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `ValidatePodSpec`
    ///   (`activeDeadlineSeconds` between 1 and `math.MaxInt32`).
    pub(crate) static RULE = {
        name: "invalid-active-deadline",
        category: Correctness,
        enforcement: ApiServer,
        summary: "activeDeadlineSeconds outside 1 to 2147483647",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if let Some(deadline) = ctx
        .site
        .spec
        .active_deadline_seconds
        .filter(|d| !(1..=i64::from(i32::MAX)).contains(d))
    {
        findings
            .report(
                Target::value(ctx.site.spec_path.key("activeDeadlineSeconds")),
                format!(
                    "activeDeadlineSeconds is {deadline}; it must be between 1 and {}",
                    i32::MAX
                ),
            )
            .help("remove it for no deadline");
    }
}
