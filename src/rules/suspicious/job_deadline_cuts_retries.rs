use crate::lifecycle::rollout::{
    JOB_BACKOFF_CAP_SECONDS, JOB_BACKOFF_SECONDS, JobPlan, JobRestarts,
    KUBELET_BACKOFF_CAP_SECONDS, KUBELET_BACKOFF_SECONDS, Plan,
};
use crate::rules::{Claim, Findings, RolloutContext, Target, declare_rule};
use crate::text;

declare_rule! {
    /// ## What it does
    /// Finds a Job (or a CronJob's job template) with one pod at a time and a `backoffLimit`
    /// written out, whose own `activeDeadlineSeconds` ends it before the retries that limit
    /// allows can even start. With `restartPolicy: Never` each attempt is a new pod that takes at
    /// least the startup the spec makes certain (until its last container starts), and the Job
    /// controller waits 10 s, then 20 s, 40 s … up to 10 minutes before each new pod. With
    /// `restartPolicy: OnFailure` the kubelet restarts the failed container in its pod: once the
    /// pod has started, the first restart comes at once, then after 10 s, 20 s, 40 s … up to 5
    /// minutes, and the Job fails when the restarts reach `backoffLimit`.
    ///
    /// The times are the rollout model's (`podcycle explain --rollout` lists the attempts and
    /// how many start before the deadline), each attempt failing as early as it can.
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
    /// - kubernetes/kubernetes `pkg/controller/job/job_controller.go`,
    ///   `pastBackoffLimitOnFailure`: under `OnFailure` the restart counts of every container,
    ///   init containers too, of the Job's running and pending pods are added up, and the Job
    ///   fails once they reach `backoffLimit` (at the first restart when it is 0).
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `doBackOff`:
    ///   client-go's `flowcontrol.Backoff.IsInBackOffSince` is false for a container with no
    ///   entry yet, so the first restart does not wait, and `Next` starts the entry at the
    ///   initial back-off; `pkg/kubelet/kubelet.go`, `newCrashLoopBackOff`:
    ///   `initialCrashLoopBackOff` (10 s) and `MaxCrashLoopBackOff`, the kubelet
    ///   configuration's `MaxContainerBackOff` (300 s; `KubeletCrashLoopBackOffMax`, on from
    ///   1.35, takes `crashLoopBackOff.maxContainerRestartPeriod`, which defaults to it, and the
    ///   alpha `ReduceDefaultCrashLoopBackOffDecay` is off).
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
    // The waits are the model's (`JobPlan::attempts`); the words name who waits.
    let (each, retried) = match job.restarts {
        JobRestarts::Never => (
            if job.attempt.min > 0.0 {
                format!(
                    "each attempt takes at least {} before its last container starts, and ",
                    text::seconds(job.attempt.min)
                )
            } else {
                String::new()
            },
            format!(
                "the controller waits {}, doubling to {}, before each retry",
                text::seconds(JOB_BACKOFF_SECONDS),
                minutes(JOB_BACKOFF_CAP_SECONDS)
            ),
        ),
        JobRestarts::OnFailure => (
            if job.attempt.min > 0.0 {
                format!(
                    "the pod takes at least {} before its last container starts, and ",
                    text::seconds(job.attempt.min)
                )
            } else {
                String::new()
            },
            format!(
                "with `restartPolicy: OnFailure` the kubelet restarts the container in its pod at once the first time, then after {}, doubling to {}, and every restart counts against the limit",
                text::seconds(KUBELET_BACKOFF_SECONDS),
                minutes(KUBELET_BACKOFF_CAP_SECONDS)
            ),
        ),
    };
    findings
        .report(
            Target::value(job_spec.key("activeDeadlineSeconds")),
            format!(
                "`activeDeadlineSeconds` ({deadline}s) fails the Job before its `backoffLimit` of {} is reached: {each}{retried}, so at most {fit} of the {allowed} attempts start within {deadline}s",
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

/// A back-off cap in minutes, as Kubernetes states them ("10 minutes").
fn minutes(seconds: f64) -> String {
    format!("{} minutes", seconds / 60.0)
}
