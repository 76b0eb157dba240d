use crate::lifecycle::Role;
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::versions::CONTAINER_RESTART_RULES;

declare_rule! {
    /// ## What it does
    /// Finds a liveness probe on a container that is never restarted: the pod's
    /// `restartPolicy` is `Never` and the container does not override it, or (with container
    /// restart rules, on by default since 1.35) the container's own `restartPolicy` is `Never`
    /// with no rule that restarts it.
    ///
    /// Jobs and CronJobs are not reported: there a failed pod is replaced by the Job
    /// controller (up to `backoffLimit`), so a liveness probe that ends a hung run is a
    /// reasonable retry. Native sidecars are always restarted.
    ///
    /// ## Why is this bad?
    /// A liveness probe exists to restart a container that stopped working. When the probe
    /// fails, the kubelet kills the container — and restarts it only if the restart policy
    /// allows. With `Never`, the first failure ends the container for good: it stays stopped
    /// until the pod itself is replaced, and a Pod whose containers have all stopped ends
    /// `Failed`. A probe that was meant to heal a hang turns it into an outage.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: worker
    /// spec:
    ///   restartPolicy: Never
    ///   containers:
    ///   - name: worker
    ///     image: example/worker:1.0
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 8080}
    /// ```
    ///
    /// Let the kubelet restart what the probe kills:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: worker
    /// spec:
    ///   restartPolicy: OnFailure
    ///   containers:
    ///   - name: worker
    ///     image: example/worker:1.0
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 8080}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`,
    ///   `computePodActions`: a container that "failed liveness probe" is killed, and started
    ///   again only when `shouldRestartOnFailure(pod)` (the pod's policy is not `Never`).
    /// - kubernetes/kubernetes `pkg/api/v1/pod/util.go`, `IsContainerRestartable`: a
    ///   container-level `restartPolicy` (or a rule with the `Restart` action) overrides the
    ///   pod's.
    /// - [Pod lifecycle: container probes](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-probes):
    ///   "If you'd like your container to be killed and restarted if a probe fails, then
    ///   specify a liveness probe, and specify a restartPolicy of Always or OnFailure."
    pub(crate) static RULE = {
        name: "liveness-restart-never",
        category: Suspicious,
        enforcement: Runtime,
        summary: "liveness probe on a container that is never restarted",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if ctx.site.is_job() {
        return;
    }
    for (index, container) in ctx.life.containers.iter().enumerate() {
        if container.role == Role::Init
            || container.probes.liveness.is_none()
            || ctx.life.is_restartable(index)
        {
            continue;
        }
        let own_policy = container.container.restart_policy.is_some()
            && CONTAINER_RESTART_RULES.enabled(ctx.kube);
        let (policy_at, whose) = if own_policy {
            (
                container.path.key("restartPolicy"),
                format!("the restartPolicy of {}", container.quoted()),
            )
        } else {
            (
                ctx.site.spec_path.key("restartPolicy"),
                "the pod's restartPolicy".to_owned(),
            )
        };
        findings
            .report(
                Target::key(container.path.key("livenessProbe")),
                format!(
                    "{} is never restarted, so the first failure of its livenessProbe stops it for good",
                    container.quoted()
                ),
            )
            .help(format!(
                "use `restartPolicy: OnFailure` (or `Always`) so the kubelet restarts what the probe kills, or remove the livenessProbe of {}",
                container.quoted()
            ))
            .label(Target::value(policy_at), format!("{whose} is `Never`"))
            .container(container.name);
    }
}
