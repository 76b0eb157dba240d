use crate::model::ObjectRef;
use crate::model::path::FieldPath;
use crate::model::scope::Autoscaler;
use crate::rules::{Findings, ScopeContext, ScopeObject, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a HorizontalPodAutoscaler whose `scaleTargetRef` names the same workload as
    /// another autoscaler of the same directory, chart or overlay (in the same namespace).
    /// In a directory of plain manifests, where files may be alternatives applied one at a
    /// time (`kubectl apply -f cpu-hpa.yaml` or `-f gpu-hpa.yaml`), two autoscalers are
    /// reported when they are in one file or when the workload they name is in the directory
    /// too: then the directory is what is applied. A rendered chart or overlay is applied
    /// whole, and is one output.
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
    ///   `validateAndParseSelector`: "pods by selector … are controlled by multiple HPAs",
    ///   the `AmbiguousSelector` event and condition, and no scaling. The pods are those of
    ///   the cluster when the autoscaler is reconciled (`hpasControllingPodsUnderSelector`
    ///   over the pods the target's selector lists): only autoscalers that exist together
    ///   conflict, so alternatives that are never applied together do not.
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
    let target = &spec.scale_target_ref;
    let beside: Vec<_> = ctx.scope.autoscalers_beside(autoscaler).collect();
    // Files of one directory may be alternatives: applied together only when the target is
    // among them, or when one file holds both.
    let together = |other: &&Autoscaler| other.at.file == autoscaler.at.file;
    let target_beside = ctx
        .scope
        .workloads()
        .iter()
        .any(|workload| is_target(&workload.object, autoscaler));
    let others: Vec<String> = beside
        .iter()
        .filter(|other| target_beside || together(other))
        .map(|other| format!("`{}` ({})", other.object.display_name(), other.at.display()))
        .collect();
    if others.is_empty() {
        return;
    }
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

/// Whether `object` is the workload `autoscaler` names: by group (`extensions` served the
/// same Deployments as `apps`), kind and name, in its namespace (one left out on either side
/// counts as the same), as the scope matches them.
fn is_target(object: &ObjectRef, autoscaler: &Autoscaler) -> bool {
    let Ok(spec) = &autoscaler.spec else {
        return false;
    };
    let target = &spec.scale_target_ref;
    let group = |api_version: &str| match api_version.rsplit_once('/').map_or("", |(g, _)| g) {
        "extensions" => "apps".to_owned(),
        other => other.to_owned(),
    };
    let same_namespace = match (&object.namespace, &autoscaler.object.namespace) {
        (Some(a), Some(b)) => a == b,
        _ => true,
    };
    object.kind == target.kind
        && object.name.as_deref() == Some(target.name.as_str())
        && group(&object.api_version) == group(target.api_version.as_deref().unwrap_or_default())
        && same_namespace
}
