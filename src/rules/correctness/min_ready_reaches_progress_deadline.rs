use podcycle_k8s::Controller;

use crate::lifecycle::rollout::{DEFAULT_PROGRESS_DEADLINE_SECONDS, NO_PROGRESS_DEADLINE};
use crate::model::path::FieldPath;
use crate::rules::{Claim, Findings, ObjectContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a Deployment whose `minReadySeconds` is at or above its `progressDeadlineSeconds`
    /// — the one written, or the default of 600 s when none is.
    ///
    /// ## Why is this bad?
    /// A new pod counts as available only once it has been Ready for `minReadySeconds`, and
    /// the rollout is reported failed when nothing progresses for `progressDeadlineSeconds`:
    /// with the deadline no longer than the wait, every rollout would time out while its first
    /// pods wait to count. The API server rejects such a Deployment (`must be greater than
    /// minReadySeconds`), after it has filled in the default deadline — so a
    /// `minReadySeconds` of 600 or more alone is rejected.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   minReadySeconds: 600
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
    /// Give the rollout a deadline longer than the wait:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   minReadySeconds: 600
    ///   progressDeadlineSeconds: 900
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
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/apps/validation/validation.go`,
    ///   `ValidateDeploymentSpec`: `progressDeadlineSeconds` "must be greater than
    ///   minReadySeconds".
    /// - kubernetes/kubernetes `pkg/apis/apps/v1/defaults.go`, `SetDefaults_Deployment`: a
    ///   missing `progressDeadlineSeconds` becomes 600 before validation.
    /// - kubernetes/kubernetes `pkg/api/v1/pod/util.go`, `IsPodAvailable`.
    pub(crate) static RULE = {
        name: "min-ready-reaches-progress-deadline",
        category: Correctness,
        enforcement: ApiServer,
        summary: "minReadySeconds at or above the Deployment's progressDeadlineSeconds",
        check: crate::rules::Check::Object(check),
    }
}

fn check(ctx: &ObjectContext<'_>, findings: &mut Findings) {
    let Some(Controller::Deployment(spec)) = ctx.decoded.workload.as_ref().map(|w| &w.controller)
    else {
        return;
    };
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    let deadline = spec
        .progress_deadline_seconds
        .unwrap_or(DEFAULT_PROGRESS_DEADLINE_SECONDS);
    // A negative deadline is `invalid-rollout-field`'s. The off switch (2147483647) is no
    // exception: it too must be greater, which a `minReadySeconds` of 2147483647 is not.
    if deadline < 0 || deadline > min_ready {
        return;
    }
    let path = FieldPath::from_keys(&["spec"]);
    let finding = if spec.progress_deadline_seconds.is_some() {
        let why = if deadline == NO_PROGRESS_DEADLINE {
            "even as the value that switches the deadline off"
        } else {
            "or every rollout would time out before its first pods count as available"
        };
        findings
            .report(
                Target::value(path.key("progressDeadlineSeconds")),
                format!(
                    "`progressDeadlineSeconds` ({deadline}s) must be greater than `minReadySeconds` ({min_ready}s), {why}"
                ),
            )
            .label(
                Target::value(path.key("minReadySeconds")),
                format!("new pods count only after {min_ready}s Ready"),
            )
    } else {
        // The API server rejects the deadline it filled in: the finding is about that field,
        // which the manifest does not write; it lands on `spec`.
        findings
            .report(
                Target::key(path.key("progressDeadlineSeconds")),
                format!(
                    "`progressDeadlineSeconds` is not set, and its default of {deadline}s must be greater than `minReadySeconds` ({min_ready}s)"
                ),
            )
            .label(
                Target::value(path.key("minReadySeconds")),
                format!("new pods count only after {min_ready}s Ready"),
            )
    };
    finding
        .help(format!(
            "set `progressDeadlineSeconds` above {min_ready}, with room for the pods' startup"
        ))
        .claim(Claim::ProgressDeadline(deadline));
}
