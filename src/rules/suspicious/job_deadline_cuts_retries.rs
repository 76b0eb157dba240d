use crate::lifecycle::rollout::{JobPlan, JobRestarts, Plan};
use crate::rules::{Claim, Findings, RolloutContext, Target, declare_rule};
use crate::text;

declare_rule! {
    /// ## What it does
    /// Finds a Job (or a CronJob's job template) with `restartPolicy: Never`, one pod at a
    /// time and a `backoffLimit` written out, whose own `activeDeadlineSeconds` ends it before
    /// the retries that limit allows can even start: each attempt takes at least the startup
    /// the spec makes certain (until its last container starts), and the Job controller waits
    /// 10 s, then 20 s, 40 s … up to 10 minutes before each new pod.
    ///
    /// ## Why is this bad?
    /// The deadline fails the Job (`DeadlineExceeded`) before `backoffLimit` is reached, so the
    /// retries the limit promises never happen and the failure reads as a timeout. Usually
    /// one of the two was set without the other in mind: raise the deadline to cover the
    /// retries, or lower `backoffLimit` to what fits.
    ///
    /// A Job with `podFailurePolicy` (whose ignored failures retry without counting),
    /// `backoffLimitPerIndex` or `parallelism` above 1 (whose pods fail side by side) is not
    /// judged.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: migrate
    /// spec:
    ///   backoffLimit: 10
    ///   activeDeadlineSeconds: 300
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       initContainers:
    ///       - name: wait
    ///         image: busybox:1.36
    ///         command: ["sleep", "20"]
    ///       containers:
    ///       - name: migrate
    ///         image: example/migrate:1.0
    /// ```
    ///
    /// Keep the retries within the deadline:
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: migrate
    /// spec:
    ///   backoffLimit: 4
    ///   activeDeadlineSeconds: 300
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       initContainers:
    ///       - name: wait
    ///         image: busybox:1.36
    ///         command: ["sleep", "20"]
    ///       containers:
    ///       - name: migrate
    ///         image: example/migrate:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/job/job_controller.go`:
    ///   `DefaultJobPodFailureBackOff` (10 s), `MaxJobPodFailureBackOff` (10 minutes), `syncJob`
    ///   (`failed > backoffLimit`), `pastActiveDeadline`.
    /// - kubernetes/kubernetes `pkg/controller/job/backoff_utils.go`,
    ///   `getRemainingTimeForFailuresCount`: the back-off doubles with every failure since the
    ///   last success, from the last failure.
    /// - [Jobs: pod backoff failure policy](https://kubernetes.io/docs/concepts/workloads/controllers/job/#pod-backoff-failure-policy)
    pub(crate) static RULE = {
        name: "job-deadline-cuts-retries",
        category: Suspicious,
        enforcement: Runtime,
        summary: "activeDeadlineSeconds of a Job that ends it before its backoffLimit retries can start",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let job: &JobPlan = match &ctx.rollout.plan {
        Plan::Job(job) => job,
        Plan::CronJob(cron) => &cron.job,
        _ => return,
    };
    if !job.backoff_limit_written
        || job.restarts != JobRestarts::Never
        || job.pod_failure_policy
        || job.backoff_limit_per_index.is_some()
        || job.parallelism != 1
    {
        return;
    }
    let (Some(deadline), Some(fit)) = (job.active_deadline, job.attempts_within_deadline) else {
        return;
    };
    // A last container that never starts has other findings saying why.
    if !job.attempt.min.is_finite() {
        return;
    }
    let allowed = job.retries + 1;
    if fit >= allowed {
        return;
    }
    let Some(job_spec) = ctx.site.job_spec_path() else {
        return;
    };
    let each = if job.attempt.min > 0.0 {
        format!(
            "each attempt takes at least {} before its last container starts, and ",
            text::seconds(job.attempt.min)
        )
    } else {
        String::new()
    };
    findings
        .report(
            Target::value(job_spec.key("activeDeadlineSeconds")),
            format!(
                "`activeDeadlineSeconds` ({deadline}s) fails the Job before its `backoffLimit` of {} is reached: {each}the controller waits 10s, doubling to 10 minutes, before each retry, so at most {fit} of the {allowed} attempts start within {deadline}s",
                job.backoff_limit
            ),
        )
        .label(
            Target::value(job_spec.key("backoffLimit")),
            format!("{allowed} attempts allowed"),
        )
        .help(format!(
            "lower `backoffLimit` to {}, or raise `activeDeadlineSeconds` to cover the retries",
            fit - 1
        ))
        .claim(Claim::AttemptsWithinDeadline { fit, allowed });
}
