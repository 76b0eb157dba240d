use crate::model::{Origin, WorkloadKind};
use crate::rules::values::upper_case_hint;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a pod `restartPolicy` that the workload's kind does not allow:
    /// - Deployment, ReplicaSet, ReplicationController, StatefulSet and DaemonSet need
    ///   `Always` (or no value, which defaults to `Always`);
    /// - Job and CronJob need `OnFailure` or `Never`, set explicitly, and only `Never` when the
    ///   Job has a `podFailurePolicy`;
    /// - a bare Pod and a PodTemplate take `Always`, `OnFailure` or `Never` (the values are
    ///   case-sensitive).
    ///
    /// ## Why is this bad?
    /// The API server rejects the workload. A controller that keeps pods running cannot use
    /// pods that stop for good; a Job needs pods that end. Omitting `restartPolicy` in a Job is
    /// an error too, because the API server fills in `Always` before it validates, and then
    /// answers `Required value: valid values: "OnFailure", "Never"`.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: CronJob
    /// metadata:
    ///   name: report
    /// spec:
    ///   schedule: "0 3 * * *"
    ///   jobTemplate:
    ///     spec:
    ///       template:
    ///         spec:
    ///           containers:
    ///           - name: report
    ///             image: example/report:1.0
    /// ```
    ///
    /// Say whether a failed container is retried in place:
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: CronJob
    /// metadata:
    ///   name: report
    /// spec:
    ///   schedule: "0 3 * * *"
    ///   jobTemplate:
    ///     spec:
    ///       template:
    ///         spec:
    ///           restartPolicy: OnFailure
    ///           containers:
    ///           - name: report
    ///             image: example/report:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/batch/validation/validation.go`, `validateJobSpec`:
    ///   `Required` for an empty or `Always` policy, `NotSupported` for others, and
    ///   `only "Never" is supported when podFailurePolicy is specified`.
    /// - kubernetes/kubernetes `pkg/apis/apps/validation/validation.go`
    ///   (`ValidatePodTemplateSpecForReplicaSet`, `ValidateStatefulSetSpec`,
    ///   `ValidateDaemonSetSpec`) and `pkg/apis/core/validation/validation.go`
    ///   (`ValidatePodTemplateSpecForRC`): only `Always` is supported.
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`,
    ///   `validateRestartPolicy`: `Always`, `OnFailure` or `Never` for any pod.
    /// - kubernetes/kubernetes `pkg/apis/core/v1/defaults.go`, `SetDefaults_PodSpec`: an empty
    ///   `restartPolicy` becomes `Always`.
    pub(crate) static RULE = {
        name: "workload-restart-policy",
        category: Correctness,
        enforcement: ApiServer,
        summary: "pod restartPolicy that the workload kind does not allow",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let site = ctx.site;
    let kind = site.object.kind.as_str();
    let policy = site.spec.restart_policy.as_deref();
    let field = site.spec_path.key("restartPolicy");
    if site.is_long_running_controller() {
        if let Some(policy) = policy.filter(|p| *p != "Always") {
            findings
                .report(
                    Target::value(field),
                    format!("restartPolicy `{policy}` is not allowed in a {kind}: only `Always` is"),
                )
                .help(format!(
                    "remove `restartPolicy` or set it to `Always`; for pods that should end, use a Job instead of a {kind}"
                ));
        }
    } else if site.is_job() {
        let allowed: &[&str] = if site.has_pod_failure_policy {
            &["Never"]
        } else {
            &["OnFailure", "Never"]
        };
        let (allowed_text, fix) = if site.has_pod_failure_policy {
            (
                "`Never` (the Job has a `podFailurePolicy`)",
                "`restartPolicy: Never`",
            )
        } else {
            (
                "`OnFailure` or `Never`",
                "`restartPolicy: OnFailure` to retry failed containers in place, or `restartPolicy: Never` to let the Job create new pods",
            )
        };
        match policy {
            None => {
                findings
                    .report(
                        Target::key(site.spec_path.clone()),
                        format!("a {kind} pod template must set restartPolicy to {allowed_text}"),
                    )
                    .help(format!(
                        "add `restartPolicy: {}` to the pod template",
                        allowed[allowed.len() - 1]
                    ))
                    .note(
                        "without it the API server fills in `Always`, which a Job does not allow",
                    );
            }
            Some(policy) if !allowed.contains(&policy) => {
                findings
                    .report(
                        Target::value(field),
                        format!("restartPolicy `{policy}` is not allowed in a {kind}: use {allowed_text}"),
                    )
                    .help(format!("set {fix}"));
            }
            Some(_) => {}
        }
    } else if (site.origin == Origin::Pod || site.kind == WorkloadKind::PodTemplate)
        && let Some(policy) = policy.filter(|p| !matches!(*p, "Always" | "OnFailure" | "Never"))
    {
        findings
            .report(
                Target::value(field),
                format!("restartPolicy `{policy}` is not supported"),
            )
            .help(format!(
                "use `Always`, `OnFailure` or `Never`{}",
                upper_case_hint(policy)
            ));
    }
}
