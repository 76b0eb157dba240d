use crate::model::path::FieldPath;
use crate::rules::{Findings, ScopeContext, ScopeObject, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a HorizontalPodAutoscaler whose `scaleTargetRef` names the same workload as
    /// another autoscaler of the same directory, chart or overlay (in the same namespace).
    ///
    /// ## Why is this bad?
    /// Each autoscaler finds that the pods it scales are also another one's, reports
    /// `AmbiguousSelector` and stops (`ScalingActive` is `False`): none of them scales the
    /// workload, which keeps the replica count of its own spec whatever the load. podcycle
    /// counts such a workload at its own `replicas`, as its budgets see it.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web-cpu
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   maxReplicas: 10
    /// ---
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web-requests
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   maxReplicas: 20
    /// ```
    ///
    /// One autoscaler with both metrics: it scales to the largest count they ask for.
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   maxReplicas: 20
    ///   metrics:
    ///   - type: Resource
    ///     resource:
    ///       name: cpu
    ///       target: {type: Utilization, averageUtilization: 70}
    ///   - type: Pods
    ///     pods:
    ///       metric: {name: requests_per_second}
    ///       target: {type: AverageValue, averageValue: "100"}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/podautoscaler/horizontal.go`,
    ///   `validateAndParseSelector`: "pods by selector … are controlled by more than one HPA",
    ///   the `AmbiguousSelector` event and condition, and no scaling.
    pub(crate) static RULE = {
        name: "autoscalers-share-target",
        category: Suspicious,
        enforcement: Runtime,
        summary: "two autoscalers that name the same workload, so that neither scales it",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let ScopeObject::Autoscaler(autoscaler) = ctx.object else {
        return;
    };
    let Ok(spec) = &autoscaler.spec else {
        return;
    };
    let others: Vec<String> = ctx
        .scope
        .autoscalers_beside(autoscaler)
        .map(|other| format!("`{}` ({})", other.object.display_name(), other.at.display()))
        .collect();
    if others.is_empty() {
        return;
    }
    let target = &spec.scale_target_ref;
    findings
        .report(
            Target::value(FieldPath::from_keys(&["spec", "scaleTargetRef", "name"])),
            format!(
                "{} also names {} {}: each autoscaler then finds the other's pods, reports `AmbiguousSelector` and stops, so none of them scales it",
                others.join(", "),
                target.kind,
                target.name
            ),
        )
        .help("keep one autoscaler per workload, with all the metrics in it: it scales to the largest count they ask for");
}
