use crate::diagnostics::Severity;
use crate::lifecycle::rollout::Plan;
use crate::model::path::FieldPath;
use crate::rules::{Findings, RolloutContext, Target, declare_rule};

/// Below this, the CronJob documentation warns that runs may be missed.
const SHORTEST_ADVISED: i64 = 10;

declare_rule! {
    /// ## What it does
    /// Finds a CronJob whose `startingDeadlineSeconds` is too short for the controller to
    /// start its runs: an error at 0, which misses every run, a warning below 10 seconds.
    ///
    /// ## Why is this bad?
    /// The CronJob controller wakes up 100 ms after each schedule time and skips a run whose
    /// schedule time plus `startingDeadlineSeconds` is already past (`MissSchedule`). With 0,
    /// that is every run: the CronJob never creates a Job. A few seconds leave no room for the
    /// controller's queue, a restart of the controller manager or clock skew, so runs are
    /// missed whenever it is busy.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: CronJob
    /// metadata:
    ///   name: report
    /// spec:
    ///   schedule: "0 3 * * *"
    ///   startingDeadlineSeconds: 0
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
    /// Allow a late start, or remove the field (no deadline):
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: CronJob
    /// metadata:
    ///   name: report
    /// spec:
    ///   schedule: "0 3 * * *"
    ///   startingDeadlineSeconds: 300
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
    /// - kubernetes/kubernetes `pkg/controller/cronjob/cronjob_controllerv2.go`, `syncCronJob`:
    ///   `tooLate` when `scheduledTime + startingDeadlineSeconds` is before now, then the
    ///   `MissSchedule` event and no Job; `nextScheduleDelta` (100 ms) after each schedule time.
    /// - kubernetes/kubernetes `pkg/controller/cronjob/utils.go`, `mostRecentScheduleTime`: no
    ///   schedule time earlier than `now − startingDeadlineSeconds` is considered.
    /// - [CronJob: deadline for delayed Job start](https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#starting-deadline):
    ///   "If you set this field to a value less than 10 seconds, the CronJob may not be
    ///   scheduled."
    pub(crate) static RULE = {
        name: "cronjob-starting-deadline-too-short",
        category: Correctness,
        enforcement: Runtime,
        summary: "startingDeadlineSeconds too short for the CronJob controller to start its runs",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let Plan::CronJob(plan) = &ctx.rollout.plan else {
        return;
    };
    // A negative value is the API server's to reject.
    let Some(deadline) = plan
        .starting_deadline_seconds
        .filter(|d| (0..SHORTEST_ADVISED).contains(d))
    else {
        return;
    };
    let at = Target::value(FieldPath::from_keys(&["spec", "startingDeadlineSeconds"]));
    if deadline == 0 {
        findings
            .report(
                at,
                "`startingDeadlineSeconds: 0` misses every run: the controller looks at a schedule time only after it has passed, and a run later than its time plus 0s is skipped (`MissSchedule`), so no Job is ever created",
            )
            .help("allow a late start of a few minutes (`startingDeadlineSeconds: 300`), or remove the field");
    } else {
        findings
            .report(
                at,
                format!(
                    "`startingDeadlineSeconds` is {deadline}s: a run the controller starts more than {deadline}s after its time is skipped (`MissSchedule`), and values under {SHORTEST_ADVISED}s miss runs whenever the controller is busy or restarts"
                ),
            )
            .severity(Severity::Warning)
            .help("allow a late start of a few minutes (`startingDeadlineSeconds: 300`), or remove the field");
    }
}
