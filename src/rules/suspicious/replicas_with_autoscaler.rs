use crate::fix::{Fix, FixEdit};
use crate::lifecycle::rollout::{Plan, ReplicaSource};
use crate::model::path::FieldPath;
use crate::rules::{Findings, RolloutContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds `spec.replicas` written on a Deployment, StatefulSet, ReplicaSet or
    /// ReplicationController that a HorizontalPodAutoscaler of the same directory, chart or
    /// overlay scales.
    ///
    /// ## Why is this bad?
    /// The autoscaler owns the replica count: it sets it through the `/scale` subresource. Every
    /// apply of the manifest writes the count back to the one in the file, and the autoscaler
    /// then scales again: at each deploy, pods the load needs are removed (or surplus ones
    /// started) until its next decision, and a rollout starts from the wrong count.
    ///
    /// The fix removes the field. Removing it changes what `kubectl apply` does once: with
    /// client-side apply, the count drops to the default of 1 unless the field is first removed
    /// from the last applied configuration (`kubectl apply edit-last-applied`); the Kubernetes
    /// documentation describes the migration for both kinds of apply. The fix is therefore
    /// offered as unsafe.
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
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: example/web:1.0
    /// ---
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 3
    ///   maxReplicas: 10
    /// ```
    ///
    /// Let the autoscaler set the count:
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
    ///         image: example/web:1.0
    /// ---
    /// apiVersion: autoscaling/v2
    /// kind: HorizontalPodAutoscaler
    /// metadata:
    ///   name: web
    /// spec:
    ///   scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    ///   minReplicas: 3
    ///   maxReplicas: 10
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/podautoscaler/horizontal.go`,
    ///   `reconcileAutoscaler`: the autoscaler reads and writes the target's `/scale`.
    /// - [Horizontal Pod Autoscaling: migrating Deployments and StatefulSets to horizontal
    ///   autoscaling](https://kubernetes.io/docs/tasks/run-application/horizontal-pod-autoscale/#migrating-deployments-and-statefulsets-to-horizontal-autoscaling):
    ///   "remove `spec.replicas` from the manifest", and how to do it without a scale-down.
    pub(crate) static RULE = {
        name: "replicas-with-autoscaler",
        category: Suspicious,
        enforcement: Runtime,
        fix: Sometimes,
        summary: "spec.replicas written on a workload an autoscaler scales, reset at every apply",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let replicas = match &ctx.rollout.plan {
        Plan::Deployment(plan) => &plan.replicas,
        Plan::StatefulSet(plan) => &plan.replicas,
        Plan::Static { replicas } => replicas,
        _ => return,
    };
    let (ReplicaSource::Autoscaler { min, max }, Some(written), Some(autoscaler)) =
        (replicas.source, replicas.written, &ctx.rollout.autoscaler)
    else {
        return;
    };
    let path = FieldPath::from_keys(&["spec", "replicas"]);
    findings
        .report(
            Target::value(path.clone()),
            format!(
                "`replicas: {written}` is reset at every apply, while {} scales this workload between {min} and {max}: each deploy sets the count back to {written}, removing or adding running pods until the autoscaler scales again",
                autoscaler.display_name()
            ),
        )
        .help("remove `spec.replicas` and let the autoscaler own the count (with client-side apply, remove it from the last applied configuration first, or the count drops to 1 once)")
        .fix(Fix::new_unsafe(
            "Remove `spec.replicas`",
            vec![FixEdit::Remove { path }],
        ));
}
