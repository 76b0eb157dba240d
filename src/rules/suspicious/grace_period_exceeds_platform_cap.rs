use crate::lifecycle::platforms::{Caps, in_effect};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a `terminationGracePeriodSeconds` above the longest grace period a platform that
    /// stops the pod honours: the cluster autoscaler's `--max-graceful-termination-sec`
    /// (default 600), GKE's scale-down (10 minutes) and automatic node upgrades (one hour).
    /// The platforms are those `platforms:` in `.podcycle.yaml` or `--platform` names; their
    /// figures are in [the platforms table](../platforms.md).
    ///
    /// ## Why is this bad?
    /// The kubelet honours the grace period the pod asks for when the pod is deleted, but a
    /// platform that removes the node waits only up to its own limit and then kills the pod
    /// or deletes the node: the cluster autoscaler evicts the pods of a node it scales down
    /// with their grace period capped at `--max-graceful-termination-sec`, so a pod that asks
    /// for three hours is killed after ten minutes (kubernetes/kubernetes#94435). The
    /// manifest's longer period is a plan that does not happen.
    ///
    /// ## Example
    /// ```yaml
    /// # podcycle check --platform cluster-autoscaler
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: worker
    /// spec:
    ///   selector:
    ///     matchLabels: {app: worker}
    ///   template:
    ///     metadata:
    ///       labels: {app: worker}
    ///     spec:
    ///       terminationGracePeriodSeconds: 3600
    ///       containers:
    ///       - name: worker
    ///         image: example/worker:1.0
    /// ```
    ///
    /// Fit the work in the time the autoscaler waits, or keep the autoscaler from removing the
    /// pod's node (`cluster-autoscaler.kubernetes.io/safe-to-evict: "false"`):
    /// ```yaml
    /// # podcycle check --platform cluster-autoscaler
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: worker
    /// spec:
    ///   selector:
    ///     matchLabels: {app: worker}
    ///   template:
    ///     metadata:
    ///       labels: {app: worker}
    ///     spec:
    ///       terminationGracePeriodSeconds: 600
    ///       containers:
    ///       - name: worker
    ///         image: example/worker:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `killContainer`: the kubelet kills with the grace period the deletion or eviction
    ///   gives it, so the platform's cap is the pod's grace period.
    /// - kubernetes/kubernetes#94435: pods with a 3-hour grace period killed 10 minutes after
    ///   SIGTERM by the cluster autoscaler.
    /// - [AKS autoscaler profile, `max-graceful-termination-sec`](https://learn.microsoft.com/javascript/api/@azure-rest/arm-containerservice/managedclusterpropertiesautoscalerprofile):
    ///   the default is 600.
    /// - [GKE: GKE-initiated Pod eviction](https://cloud.google.com/kubernetes-engine/docs/how-to/extended-duration-pods):
    ///   up to one hour for node upgrades, up to 10 minutes for scale-down.
    pub(crate) static RULE = {
        name: "grace-period-exceeds-platform-cap",
        category: Suspicious,
        enforcement: Runtime,
        severity: Warning,
        fix: None,
        summary: "grace period longer than a platform that stops the pod honours",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let grace = ctx.life.grace_period;
    if !grace.explicit {
        return;
    }
    for effect in in_effect(ctx.site.spec, &ctx.site.spec_path, ctx.platforms) {
        let Some(cap) = effect.platform.limit(Caps::GraceHonoured) else {
            continue;
        };
        if grace.seconds <= cap.seconds {
            continue;
        }
        findings
            .report(
                Target::value(ctx.site.spec_path.key("terminationGracePeriodSeconds")),
                format!(
                    "`terminationGracePeriodSeconds` is {}s, but {} honours at most {}s: {}",
                    grace.seconds, effect.platform.stopped_by, cap.seconds, cap.then
                ),
            )
            .platform(effect.platform.name)
            .help(format!(
                "fit the shutdown in {}s, or keep {} from removing the pod's node",
                cap.seconds, effect.platform.name
            ))
            .note(format!(
                "the platform `{}` is named by `platforms:` or `--platform` (docs/platforms.md)",
                effect.platform.name
            ));
    }
}
