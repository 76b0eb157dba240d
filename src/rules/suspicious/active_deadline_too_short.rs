use crate::lifecycle::{Delay, seconds};
use crate::model::path::FieldPath;
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::text;

declare_rule! {
    /// ## What it does
    /// Finds a pod's `activeDeadlineSeconds` that is not longer than the time the spec makes
    /// startup take for certain: the sleeps in classic init containers' commands, the sleeps
    /// in postStart hooks of containers that others wait for, and the `initialDelaySeconds`
    /// of sidecars' startup probes, added up along the start order. For a bare Pod the
    /// last containers' own postStart sleeps and startup-probe delays count too, since the
    /// pod is not started before they pass; for a Job only what delays the start of its
    /// last container counts, since its work runs from there.
    ///
    /// A Job's own `activeDeadlineSeconds` (on the Job spec, not its pod template) is checked
    /// the same way: it counts from the Job's start, before its first pod even exists.
    ///
    /// Image pulls, hooks of unknown length and the kubelet's own latency only add to that
    /// time, so the deadline is certainly too short.
    ///
    /// ## Why is this bad?
    /// `activeDeadlineSeconds` counts from the moment the kubelet takes the pod, init
    /// containers included. When it passes, the kubelet kills every container and the pod
    /// fails with reason `DeadlineExceeded`. A deadline shorter than the waits written into
    /// the spec fails every run before the pod has even started.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: report
    /// spec:
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       activeDeadlineSeconds: 30
    ///       initContainers:
    ///       - name: proxy
    ///         image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///         restartPolicy: Always
    ///         startupProbe:
    ///           tcpSocket: {port: 5432}
    ///           initialDelaySeconds: 45
    ///       containers:
    ///       - name: report
    ///         image: example/report:1.0
    /// ```
    ///
    /// Leave time for the start and for the work:
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: report
    /// spec:
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       activeDeadlineSeconds: 600
    ///       initContainers:
    ///       - name: proxy
    ///         image: gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0
    ///         restartPolicy: Always
    ///         startupProbe:
    ///           tcpSocket: {port: 5432}
    ///           initialDelaySeconds: 45
    ///       containers:
    ///       - name: report
    ///         image: example/report:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/active_deadline.go`, `pastActiveDeadline`: the pod
    ///   is evicted with reason `DeadlineExceeded` once the time since its `StartTime` reaches
    ///   `activeDeadlineSeconds`.
    /// - kubernetes/api `core/v1/types.go`, `PodSpec.ActiveDeadlineSeconds`: the duration
    ///   "the pod may be active on the node relative to StartTime before the system will
    ///   actively try to mark it failed and kill associated containers".
    /// - kubernetes/kubernetes `pkg/controller/job/job_controller.go`, `pastActiveDeadline`: a
    ///   Job fails once the time since its `startTime` reaches its `activeDeadlineSeconds`.
    /// - [Init containers](https://kubernetes.io/docs/concepts/workloads/pods/init-containers/):
    ///   the active deadline includes the time of init containers.
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `computeInitContainerActions` (the next init container waits for a classic one to
    ///   exit and for a sidecar's startup probe to succeed) and `startContainer` (the postStart
    ///   hook runs before the next container starts).
    /// - kubernetes/kubernetes `pkg/kubelet/prober/worker.go`, `doProbe`: no probe runs before
    ///   `initialDelaySeconds` have passed since the container started.
    pub(crate) static RULE = {
        name: "active-deadline-too-short",
        category: Suspicious,
        enforcement: Runtime,
        summary: "activeDeadlineSeconds shorter than the startup time the spec makes certain",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    // Long-running controllers may not set it at all (`template-active-deadline`).
    if ctx.site.is_long_running_controller() {
        return;
    }
    if let Some(deadline) = ctx.site.spec.active_deadline_seconds {
        let field = ctx.site.spec_path.key("activeDeadlineSeconds");
        report(
            ctx,
            findings,
            deadline,
            field,
            "activeDeadlineSeconds",
            "it",
        );
    }
    if let (Some(deadline), Some(job)) = (
        ctx.site.job_active_deadline_seconds,
        ctx.site.job_spec_path(),
    ) {
        let field = job.key("activeDeadlineSeconds");
        report(
            ctx,
            findings,
            deadline,
            field,
            "the Job's activeDeadlineSeconds",
            "the Job",
        );
    }
}

/// Reports a deadline, at `field`, that the startup the spec makes certain reaches. A
/// deadline below 1 is rejected (`invalid-active-deadline`).
fn report(
    ctx: &PodContext<'_>,
    findings: &mut Findings,
    deadline: i64,
    field: FieldPath,
    what: &str,
    fails: &str,
) {
    if deadline < 1 {
        return;
    }
    let schedule = ctx.life.schedule();
    // A Job's work runs from the start of its last container; any other pod is up once every
    // container is started.
    let (bound, before) = if ctx.site.is_job() {
        (
            schedule.last_start.as_ref(),
            "before its last container starts",
        )
    } else {
        (schedule.started.as_ref(), "to start")
    };
    // A pod that never starts (a hook that never returns, an init container that never
    // exits) is other rules' to report; no deadline is long enough for it.
    let Some(earliest) = bound.map(|w| &w.earliest).filter(|e| e.seconds.is_finite()) else {
        return;
    };
    let delays: Vec<&Delay> = earliest.counted_delays();
    if delays.is_empty() || seconds(deadline) > earliest.seconds {
        return;
    }
    let finding = findings
        .report(
            Target::value(field),
            format!(
                "{what} is {deadline}s, but the pod needs at least {} {before}: {fails} fails with `DeadlineExceeded` before it runs",
                text::seconds(earliest.seconds)
            ),
        )
        .help("raise `activeDeadlineSeconds` above the startup time plus the time the work needs, or shorten the waits")
        .claim(Claim::CertainStartup(earliest.seconds));
    for delay in delays {
        finding.label(
            Target::value(delay.path.clone()),
            ctx.life.describe_delay(delay),
        );
    }
}
