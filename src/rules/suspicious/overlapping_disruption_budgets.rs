use crate::model::path::FieldPath;
use crate::rules::{Findings, ScopeContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds two PodDisruptionBudgets that cover the pods of the same workload — of the same
    /// file, rendered chart or overlay, matched by namespace and selector.
    ///
    /// ## Why is this bad?
    /// The eviction API refuses to evict a pod that more than one budget covers: it answers
    /// with an error ("This pod has more than one PodDisruptionBudget, which the eviction
    /// subresource does not support."), not a "try later". `kubectl drain` gives up on such a
    /// pod, so every drain of its node fails, and the Cluster Autoscaler cannot remove the
    /// node. The disruption controller warns too (`MultiplePodDisruptionBudgets`).
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web, tier: front}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: web}
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: front
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {tier: front}
    /// ```
    ///
    /// One budget per set of pods:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web, tier: front}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: web}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/registry/core/pod/storage/eviction.go`, `Create`: more than
    ///   one budget for a pod is a 500 error.
    /// - kubernetes/kubectl `pkg/drain/drain.go`, `evictPods`: only a 429 is retried; any other
    ///   error fails the pod's eviction.
    /// - kubernetes/kubernetes `pkg/controller/disruption/disruption.go`, `getPdbForPod`.
    pub(crate) static RULE = {
        name: "overlapping-disruption-budgets",
        category: Suspicious,
        enforcement: Runtime,
        summary: "two disruption budgets covering the same pods, whose eviction then always fails",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let Some((budget, _)) = ctx.budget() else {
        return;
    };
    // One finding per budget: the first workload it shares says enough.
    let Some((workload, other)) = ctx.scope.overlapping(budget) else {
        return;
    };
    let finding = findings
        .report(
            Target::key(FieldPath::from_keys(&["spec", "selector"])),
            format!(
                "this budget and `{}` both cover the pods of `{}`: the eviction API refuses to evict a pod with more than one budget, so every drain of their nodes fails",
                other.object.display_name(),
                workload.object.display_name()
            ),
        )
        .help("keep one budget per set of pods: narrow one selector, or merge the two");
    if other.at.file == budget.at.file {
        finding.span_label(
            other.at.span,
            format!("`{}` covers them too", other.object.display_name()),
        );
    } else {
        finding.note(format!(
            "`{}` ({}) covers them too",
            other.object.display_name(),
            other.at.display()
        ));
    }
}
