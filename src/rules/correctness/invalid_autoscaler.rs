use podcycle_k8s::k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscalerSpec;

use crate::model::path::FieldPath;
use crate::rules::{Findings, ScopeContext, ScopeObject, Target, declare_rule};
use crate::versions::HPA_SCALE_TO_ZERO;

declare_rule! {
    /// ## What it does
    /// Finds a HorizontalPodAutoscaler whose replica range or target the API server rejects:
    /// `maxReplicas` missing or below 1, below `minReplicas`, a `minReplicas` below 1 (below 0
    /// where the target version allows scaling to zero), a `minReplicas` of 0 without an
    /// `Object` or `External` metric, or a `scaleTargetRef` without a kind
    /// or a name, with a name that cannot be a path segment, or with an `apiVersion` without
    /// a group (only a ReplicationController is in the core group).
    ///
    /// ## Why is this bad?
    /// The autoscaler is never created: the workload keeps the replica count of its own spec,
    /// whatever the load.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef:
    ///     apiVersion: apps/v1
    ///     kind: Deployment
    ///     name: web
    ///   minReplicas: 5
    ///   maxReplicas: 3
    /// ```
    ///
    /// Let it scale between the two:
    /// ```yaml
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef:
    ///     apiVersion: apps/v1
    ///     kind: Deployment
    ///     name: web
    ///   minReplicas: 3
    ///   maxReplicas: 5
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/autoscaling/validation/validation.go`,
    ///   `validateHorizontalPodAutoscalerSpec`, `ValidateCrossVersionObjectReference`,
    ///   `ValidateAPIVersion`.
    /// - kubernetes/kubernetes `pkg/registry/autoscaling/horizontalpodautoscaler/strategy.go`,
    ///   `validationOptionsForHorizontalPodAutoscaler`: `minReplicas` at least 1, or 0 with the
    ///   `HPAScaleToZero` gate (on by default from 1.37).
    /// - kubernetes/kubernetes `pkg/apis/autoscaling/validation/validation.go`, `validateMetrics`:
    ///   `minReplicas: 0` is forbidden unless a metric is of type `Object` or `External` (at zero
    ///   replicas there is no pod to measure), whether or not the gate allows 0.
    pub(crate) static RULE = {
        name: "invalid-autoscaler",
        category: Correctness,
        enforcement: ApiServer,
        summary: "autoscaler replica range or target that the API server rejects",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let ScopeObject::Autoscaler(autoscaler) = ctx.object else {
        return;
    };
    let path = FieldPath::from_keys(&["spec"]);
    let spec = match &autoscaler.spec {
        Ok(spec) => spec,
        Err(error) => {
            let message = match error.message.split('`').nth(1) {
                Some(field) if error.message.starts_with("missing field") => {
                    format!("`{field}` is required")
                }
                _ => crate::rules::friendly_type_error(&error.message),
            };
            findings.report(Target::key(FieldPath::new(error.path.clone())), message);
            return;
        }
    };
    let lowest = i32::from(!HPA_SCALE_TO_ZERO.enabled(ctx.kube));
    if let Some(min) = spec.min_replicas.filter(|m| *m < lowest) {
        findings.report(
            Target::value(path.key("minReplicas")),
            format!("`minReplicas` is {min}; it must be at least {lowest}"),
        );
    }
    // Checked whatever the gate (`validateMetrics` does not look at it).
    if spec.min_replicas == Some(0) {
        scale_to_zero_needs_outside_metric(spec, &path, findings);
    }
    let max = spec.max_replicas;
    if max < 1 {
        // k8s-openapi reads a missing `maxReplicas` as 0, as Go does before validation.
        let problem = if max == 0 {
            "`maxReplicas` must be set, to at least 1".to_owned()
        } else {
            format!("`maxReplicas` is {max}; it must be at least 1")
        };
        findings.report(Target::value(path.key("maxReplicas")), problem);
    } else if let Some(min) = spec.min_replicas.filter(|m| max < *m) {
        findings
            .report(
                Target::value(path.key("maxReplicas")),
                format!("`maxReplicas` ({max}) is below `minReplicas` ({min})"),
            )
            .label(
                Target::value(path.key("minReplicas")),
                format!("at least {min} replicas"),
            );
    }
    let target = &spec.scale_target_ref;
    let reference = path.key("scaleTargetRef");
    for (name, value) in [("kind", &target.kind), ("name", &target.name)] {
        if value.is_empty() {
            findings.report(
                Target::key(reference.key(name)),
                format!("`scaleTargetRef.{name}` is required"),
            );
        } else if let Some(problem) = path_segment_problem(value) {
            findings.report(
                Target::value(reference.key(name)),
                format!("`scaleTargetRef.{name}` {problem}"),
            );
        }
    }
    let api_version = target.api_version.as_deref().unwrap_or_default();
    if target.kind != "ReplicationController" && !api_version.contains('/') {
        findings
            .report(
                Target::key(reference.key("apiVersion")),
                if api_version.is_empty() {
                    "`scaleTargetRef.apiVersion` must name the target's API group".to_owned()
                } else {
                    format!("`scaleTargetRef.apiVersion` `{api_version}` must name the target's API group")
                },
            )
            .help("write the group and version, `apps/v1` for a Deployment or a StatefulSet");
    }
}

/// At zero replicas no pod reports a metric: the autoscaler can only wake the workload on a
/// metric from outside it (`validateMetrics`).
fn scale_to_zero_needs_outside_metric(
    spec: &HorizontalPodAutoscalerSpec,
    path: &FieldPath,
    findings: &mut Findings,
) {
    let outside = spec
        .metrics
        .iter()
        .flatten()
        .any(|metric| matches!(metric.type_.as_str(), "Object" | "External"));
    if outside {
        return;
    }
    findings
        .report(
            // Kubernetes places the rejection at `metrics`; without them, at the spec.
            Target::key(path.key("metrics")),
            "`minReplicas: 0` needs at least one `Object` or `External` metric: at zero replicas no pod reports a metric to scale up on",
        )
        .label(
            Target::value(path.key("minReplicas")),
            "scales to zero",
        )
        .help("add a metric of type `Object` or `External` (a queue length, a request rate), or set `minReplicas: 1`");
}

/// Why a name cannot be a path segment (`content.IsPathSegmentName`): `.`, `..`, or a `/` or
/// `%` in it.
fn path_segment_problem(name: &str) -> Option<&'static str> {
    if name == "." || name == ".." {
        Some("may not be `.` or `..`")
    } else if name.contains('/') {
        Some("may not contain `/`")
    } else if name.contains('%') {
        Some("may not contain `%`")
    } else {
        None
    }
}
