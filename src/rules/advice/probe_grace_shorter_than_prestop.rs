use crate::lifecycle::{GraceSource, ProbeKind, handlers, seconds};
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::text;

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
    pub(crate) static RULE = {
        name: "probe-grace-shorter-than-prestop",
        category: Advice,
        enforcement: Advice,
        summary: "probe-level grace period that leaves no time after the preStop hook",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let Some(kind) = site
            .used_for
            .probe_kind()
            .filter(|k| matches!(k, ProbeKind::Liveness | ProbeKind::Startup))
        else {
            continue;
        };
        let Some(kill) = ctx.life.probe_kill(site.index, kind) else {
            continue;
        };
        let Some(hook) = &site.container.pre_stop else {
            continue;
        };
        let Some(hook_seconds) = hook.duration.known_seconds() else {
            continue;
        };
        // Only the probe's own grace period is this rule's business; a hook longer than the
        // pod's is `prestop-exceeds-grace-period`'s.
        if kill.grace_source != GraceSource::Probe || seconds(kill.grace_seconds) > hook_seconds {
            continue;
        }
        let takes = if hook_seconds.is_infinite() {
            "never returns".to_owned()
        } else {
            format!("takes {}", hook.length_text(hook_seconds))
        };
        let effect = if kill.prestop_cut_off {
            "the hook is cut off"
        } else {
            "the hook uses all of it"
        };
        findings
            .report(
                Target::value(site.path.key("terminationGracePeriodSeconds")),
                format!(
                    "when {} fails, {} is killed with a grace period of {}s, and its preStop hook {takes}: {effect} and {} gets {} to stop",
                    site.describe(),
                    site.container.quoted(),
                    kill.grace_seconds,
                    site.container.quoted(),
                    text::seconds(kill.window.max)
                ),
            )
            .help("raise the probe's `terminationGracePeriodSeconds` above the preStop time plus the shutdown time, or remove it to use the pod's")
            .label(Target::key(hook.path.clone()), "preStop hook")
            .container(site.container.name)
            .claim(Claim::ProbeKill {
                container: site.index,
                probe: kind,
                grace: kill.grace_seconds,
                window: kill.window.max,
            });
    }
}
