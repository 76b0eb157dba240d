use crate::lifecycle::{Delay, DelayKind};
use crate::rules::correctness::prestop_exceeds_grace_period::seconds_text;
use crate::rules::{Findings, PodContext, Target, declare_rule};

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
    /// - [Init containers](https://kubernetes.io/docs/concepts/workloads/pods/init-containers/):
    ///   the active deadline includes the time of init containers.
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `computeInitContainerActions` (the next init container waits for a classic one to
    ///   exit and for a sidecar's startup probe to succeed) and `startContainer` (the postStart
    ///   hook runs before the next container starts).
    /// - kubernetes/kubernetes `pkg/kubelet/prober/worker.go`, `doProbe`: no probe runs before
    ///   `initialDelaySeconds` have passed since the container started.
    pub static RULE = {
        name: "active-deadline-too-short",
        category: Suspicious,
        enforcement: Runtime,
        summary: "activeDeadlineSeconds shorter than the startup time the spec makes certain",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let Some(deadline) = ctx.site.spec.active_deadline_seconds else {
        return;
    };
    // Long-running controllers may not set it at all (`template-active-deadline`), and a
    // deadline below 1 is rejected (`invalid-active-deadline`).
    if ctx.site.is_long_running_controller() || deadline < 1 {
        return;
    }
    let bound = ctx.life.certain_startup(!ctx.site.is_job());
    #[allow(clippy::cast_precision_loss)]
    if bound.delays.is_empty() || (deadline as f64) > bound.seconds {
        return;
    }
    let what = if ctx.site.is_job() {
        "before its last container starts"
    } else {
        "to start"
    };
    let finding = findings
        .report(
            Target::value(ctx.site.spec_path.key("activeDeadlineSeconds")),
            format!(
                "activeDeadlineSeconds is {deadline}s, but the pod needs at least {} {what}: it fails with `DeadlineExceeded` before it runs",
                seconds_text(bound.seconds)
            ),
        )
        .help("raise `activeDeadlineSeconds` above the startup time plus the time the work needs, or shorten the waits");
    for delay in &bound.delays {
        finding.label(Target::value(delay.path.clone()), describe(ctx, delay));
    }
}

fn describe(ctx: &PodContext<'_>, delay: &Delay) -> String {
    let name = ctx.life.containers[delay.container].name;
    let seconds = seconds_text(delay.seconds);
    match delay.kind {
        DelayKind::Command => format!("init container `{name}` sleeps {seconds}"),
        DelayKind::PostStart => format!("postStart of `{name}` sleeps {seconds}"),
        DelayKind::StartupProbe => {
            format!("startup probe of `{name}` first runs after {seconds}")
        }
    }
}
