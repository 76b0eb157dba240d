use crate::lifecycle::platforms::{Caps, InEffect, in_effect};
use crate::lifecycle::{ContainerLife, Role, seconds};
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::text;

declare_rule! {
    /// ## What it does
    /// Finds a pod whose shutdown plan does not fit the notice of a platform that stops it: a
    /// Spot or preemptible node it selects, prefers or tolerates (`cloud.google.com/gke-spot`,
    /// `cloud.google.com/gke-preemptible`, `karpenter.sh/capacity-type: spot`,
    /// `eks.amazonaws.com/capacityType: SPOT`, `kubernetes.azure.com/scalesetpriority: spot`),
    /// or a platform `platforms:` in `.podcycle.yaml` or `--platform` names. The plan does not
    /// fit when `terminationGracePeriodSeconds` asks for more than the notice, or when a
    /// preStop hook of known length takes the whole notice; the finding says where the
    /// platform cuts the plan and what does not happen (the rest of a preStop sleep, the
    /// app's drain, the sidecars' stop after it). The notices are in
    /// [the platforms table](../platforms.md).
    ///
    /// ## Why is this bad?
    /// When a platform takes a node away, the kubelet's graceful node shutdown kills each pod
    /// with the shutdown's grace period, or the pod's own when that is shorter: the pod's own
    /// longer period is not honoured. GKE gives ordinary pods 15 seconds of a Spot or
    /// preemptible VM's 30-second notice ("a value greater than 15 seconds has no effect");
    /// EC2 stops a Spot Instance two minutes after its notice; an Azure Spot VM's Preempt
    /// event comes at least 30 seconds ahead. A drain the manifest plans for 60 seconds is cut
    /// at 15: connections are dropped, work in flight is lost, and a sidecar that should stop
    /// last is killed with the app.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       nodeSelector:
    ///         cloud.google.com/gke-spot: "true"
    ///       terminationGracePeriodSeconds: 60
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// Plan the shutdown within the notice:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       nodeSelector:
    ///         cloud.google.com/gke-spot: "true"
    ///       terminationGracePeriodSeconds: 15
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go`,
    ///   `killPods`: `gracePeriodOverride` is the shutdown's grace period, or the pod's
    ///   `terminationGracePeriodSeconds` when it is shorter.
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `killContainer`: the preStop hook runs within that grace period and what is left,
    ///   never under 2 s, is the stop signal's window.
    /// - [GKE: Spot VMs](https://cloud.google.com/kubernetes-engine/docs/concepts/spot-vms),
    ///   [GKE: Preemptible VMs](https://cloud.google.com/kubernetes-engine/docs/how-to/preemptible-vms),
    ///   [EC2: Spot Instance interruption notices](https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/spot-instance-termination-notices.html),
    ///   [Azure: Scheduled Events](https://learn.microsoft.com/azure/virtual-machines/linux/scheduled-events);
    ///   every figure with its date in [the platforms table](../platforms.md).
    /// - [Graceful node shutdown](https://kubernetes.io/docs/concepts/cluster-administration/node-shutdown/)
    pub(crate) static RULE = {
        name: "shutdown-exceeds-platform-notice",
        category: Suspicious,
        enforcement: Runtime,
        severity: Warning,
        fix: None,
        summary: "shutdown plan longer than the notice of the platform that stops the pod",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let own = ctx.life.shutdown();
    for effect in in_effect(ctx.site.spec, &ctx.site.spec_path, ctx.platforms) {
        let Some(notice) = effect.platform.limit(Caps::Notice) else {
            continue;
        };
        let cap = notice.seconds;
        if own.effective_grace_seconds <= cap {
            continue;
        }
        let cut = ctx.life.shutdown_within(cap);
        let cap_f = seconds(cap);
        // A preStop hook of known length that the notice cuts off.
        let hook_cut = cut.containers.iter().find_map(|stop| {
            let container = &ctx.life.containers[stop.index];
            let hook = container.pre_stop.as_ref()?;
            let length = hook.duration.known_seconds()?;
            (stop.kill.prestop_runs && length >= cap_f).then_some((stop, container, hook, length))
        });
        let asked = ctx.life.grace_period.explicit;
        if hook_cut.is_none() && !asked {
            continue;
        }
        let by = effect.platform.stopped_by;
        let (target, message) = match hook_cut {
            Some((stop, container, hook, length)) => (
                Target::key(hook.path.clone()),
                format!(
                    "{by} gives the pod {cap}s: cut at {cap}s, during {}'s preStop sleep of {}; SIGTERM at {} and SIGKILL at {}",
                    name(container),
                    hook.length_text(length),
                    text::seconds(stop.kill.sigterm.max),
                    text::seconds(stop.kill.sigkill.max),
                ),
            ),
            None => {
                let app = cut
                    .containers
                    .iter()
                    .find(|s| ctx.life.containers[s.index].role == Role::App);
                let sigkill = app.map_or(cap_f, |s| s.kill.sigkill.max);
                let whose = app.map_or_else(String::new, |s| {
                    format!(", {}'s drain", name(&ctx.life.containers[s.index]))
                });
                (
                    Target::value(ctx.site.spec_path.key("terminationGracePeriodSeconds")),
                    format!(
                        "`terminationGracePeriodSeconds` asks for {}s, but {by} gives the pod {cap}s: SIGKILL at {}{whose} cut {} short",
                        own.effective_grace_seconds,
                        text::seconds(sigkill),
                        text::seconds(seconds(own.effective_grace_seconds - cap)),
                    ),
                )
            }
        };
        let finding = findings
            .report(target, message)
            .platform(effect.platform.name)
            .help(format!(
                "plan the shutdown within {cap}s (preStop, the app's drain and the sidecars' stop), or keep the workload off {} nodes",
                effect.platform.name
            ))
;
        for stop in &cut.containers {
            let container = &ctx.life.containers[stop.index];
            if container.role == Role::Sidecar && stop.kill.sigterm.min >= cap_f {
                finding.note(format!(
                    "{}'s stop after the app containers does not happen: it is killed with them",
                    container.quoted_as("sidecar")
                ));
            }
        }
        placement_label(&effect, finding);
        finding.note(format!(
            "{}: {} ({} s notice, docs/platforms.md)",
            effect.platform.name, notice.then, cap
        ));
    }
}

fn name(container: &ContainerLife<'_>) -> String {
    container.quoted()
}

/// Where the pod says it runs on the platform, or that the configuration says so.
fn placement_label(effect: &InEffect, finding: &mut crate::rules::Finding) {
    match &effect.placement {
        Some(placement) => {
            finding.label(
                Target::key(placement.path.clone()),
                format!(
                    "{} `{}: {}`: the pod {} {} nodes",
                    placement.how,
                    placement.label.key,
                    placement.label.value,
                    if placement.how == "selects" {
                        "runs on"
                    } else {
                        "may run on"
                    },
                    placement.platform.name
                ),
            );
        }
        None => {
            finding.note(format!(
                "the platform `{}` is named by `platforms:` or `--platform`",
                effect.platform.name
            ));
        }
    }
}
