use crate::lifecycle::{HandlerUse, MINIMUM_STOP_WINDOW_SECONDS, handlers};
use crate::rules::correctness::prestop_exceeds_grace_period::duration_text;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Points out a liveness or startup probe whose own `terminationGracePeriodSeconds` is
    /// not longer than the container's `preStop` hook, when the hook's duration is known (the
    /// `sleep` action, or an exec command whose sleeps can be read).
    ///
    /// ## Why is this bad?
    /// When a liveness or startup probe kills a container, the kubelet uses the probe's
    /// `terminationGracePeriodSeconds` instead of the pod's. The preStop hook still runs
    /// first and must fit in that shorter period: a hook as long as the period or longer is
    /// cut off, and the application gets only the 2 seconds the kubelet always grants
    /// between SIGTERM and SIGKILL. That may be what you want for a hung container — but then
    /// the drain work the hook does for a normal shutdown does not happen on probe kills.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   terminationGracePeriodSeconds: 60
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 80}
    ///       terminationGracePeriodSeconds: 5
    ///     lifecycle:
    ///       preStop:
    ///         sleep:
    ///           seconds: 10
    /// ```
    ///
    /// Leave room for the hook and the shutdown on probe kills too:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   terminationGracePeriodSeconds: 60
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 80}
    ///       terminationGracePeriodSeconds: 20
    ///     lifecycle:
    ///       preStop:
    ///         sleep:
    ///           seconds: 10
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `setTerminationGracePeriod`: a kill for a failed liveness or startup probe uses the
    ///   probe's `terminationGracePeriodSeconds` when set; `killContainer`: the preStop hook
    ///   runs within that period and the remainder is floored at `minimumGracePeriodInSeconds`
    ///   (2).
    /// - [Probe-level terminationGracePeriodSeconds](https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#probe-level-terminationgraceperiodseconds)
    pub static RULE = {
        name: "probe-grace-shorter-than-prestop",
        category: Advice,
        enforcement: Advice,
        summary: "probe-level grace period that leaves no time after the preStop hook",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        if !matches!(site.used_for, HandlerUse::Liveness | HandlerUse::Startup) {
            continue;
        }
        let Some(grace) = site.probe.and_then(|p| p.termination_grace_period_seconds) else {
            continue;
        };
        let Some(hook) = &site.container.pre_stop else {
            continue;
        };
        let Some(hook_seconds) = hook.duration.known_seconds() else {
            continue;
        };
        #[allow(clippy::cast_precision_loss)]
        if grace < 1 || (grace as f64) > hook_seconds {
            continue;
        }
        let takes = if hook_seconds.is_infinite() {
            "never returns".to_owned()
        } else {
            format!("takes {}", duration_text(&hook.duration, hook_seconds))
        };
        #[allow(clippy::cast_precision_loss)]
        let effect = if (grace as f64) < hook_seconds {
            "the hook is cut off"
        } else {
            "the hook uses all of it"
        };
        findings
            .report(
                Target::value(site.path.key("terminationGracePeriodSeconds")),
                format!(
                    "when {} fails, {} is killed with a grace period of {grace}s, and its preStop hook {takes}: {effect} and {} gets {MINIMUM_STOP_WINDOW_SECONDS}s to stop",
                    site.describe(),
                    site.container.label(),
                    site.container.label()
                ),
            )
            .help("raise the probe's `terminationGracePeriodSeconds` above the preStop time plus the shutdown time, or remove it to use the pod's")
            .label(Target::key(hook.path.clone()), "preStop hook")
            .container(site.container.name);
    }
}
