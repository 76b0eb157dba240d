use crate::diagnostics::Severity;
use crate::fix::{Fix, FixEdit};
use crate::lifecycle::{DEFAULT_GRACE_PERIOD_SECONDS, HookDuration, ProbeKind, Role};
use crate::model::WorkloadKind;
use crate::rules::fixes::grace_period_after;
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::text::short_phrase_list;

declare_rule! {
    /// ## What it does
    /// Finds `terminationGracePeriodSeconds: 0` (or a negative value) on a pod spec that has a
    /// `preStop` hook, or on a StatefulSet's pod template.
    ///
    /// ## Why is this bad?
    /// A grace period of 0 asks for the pod to be stopped at once. The API server removes a
    /// pod with a zero grace period from the API immediately on deletion, and the kubelet
    /// then gives it the smallest period it allows, 1 second: a preStop hook — a drain delay,
    /// a deregistration call — gets at most that second. When a liveness or startup probe
    /// without a grace period of its own kills the container, the kubelet skips the preStop
    /// hook altogether because no time is left. A negative value is accepted with a warning
    /// and treated as 1 second.
    ///
    /// For a StatefulSet it is unsafe whether or not there is a hook: the pod's name is
    /// released before its containers have stopped, so the controller can start the
    /// replacement with the same identity and volumes while the old one still runs. The
    /// Kubernetes documentation calls the practice "unsafe and strongly discouraged for
    /// StatefulSet Pods". That case is a warning.
    ///
    /// Elsewhere a zero grace period is usually deliberate — fast failover, a node agent
    /// that must not hold up a node's shutdown (Calico's `calico-node` ships with it and a
    /// preStop hook) — so the hook that gets at most a second is reported as information:
    /// the timing differs from what the hook seems to promise.
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
    ///       terminationGracePeriodSeconds: 0
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         lifecycle:
    ///           preStop:
    ///             sleep:
    ///               seconds: 10
    /// ```
    ///
    /// Give the hook and the shutdown time to run:
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
    ///       terminationGracePeriodSeconds: 30
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         lifecycle:
    ///           preStop:
    ///             sleep:
    ///               seconds: 10
    /// ```
    ///
    /// ## Fix
    /// Unsafe, applied only with `check --fix --unsafe-fixes` (and offered in editors): set
    /// `terminationGracePeriodSeconds` to 30, or to the longest preStop sleep plus 30. A zero
    /// grace period may be deliberate, and every deletion of the pod then waits that long.
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/registry/core/pod/strategy.go`, `CheckGracefulDelete`: the
    ///   pod's `terminationGracePeriodSeconds` becomes the deletion grace period; 0 deletes the
    ///   object immediately, a negative value becomes 1.
    /// - kubernetes/kubernetes `pkg/kubelet/pod_workers.go`, `calculateEffectiveGracePeriod`:
    ///   "no matter what, we always supply a grace period of 1".
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `killContainer`: the preStop hook runs only "if there is enough time to run it"
    ///   (`gracePeriod > 0`), and at most for the grace period; `setTerminationGracePeriod`
    ///   uses the pod's value for probe kills without a probe-level grace period.
    /// - kubernetes/kubernetes `pkg/api/pod/warnings.go`: negative values "will be treated as 1".
    /// - [Force delete StatefulSet Pods](https://kubernetes.io/docs/tasks/run-application/force-delete-stateful-set-pod/):
    ///   a `terminationGracePeriodSeconds` of 0 "is unsafe and strongly discouraged for
    ///   StatefulSet Pods".
    /// - [Termination of Pods](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination)
    pub(crate) static RULE = {
        name: "zero-grace-period",
        category: Suspicious,
        enforcement: Runtime,
        fix: Sometimes,
        summary: "zero or negative terminationGracePeriodSeconds with a preStop hook, or on a StatefulSet",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let grace = ctx.life.grace_period;
    if !grace.explicit || grace.seconds > 0 {
        return;
    }
    let hooked: Vec<usize> = (0..ctx.life.containers.len())
        .filter(|&i| {
            let c = &ctx.life.containers[i];
            c.role != Role::Init && c.pre_stop.is_some()
        })
        .collect();
    let stateful = ctx.site.kind == WorkloadKind::StatefulSet;
    if hooked.is_empty() && !stateful {
        return;
    }
    let shutdown = ctx.life.shutdown();
    let value = if grace.seconds == 0 {
        "0".to_owned()
    } else {
        format!("{} (treated as 1)", grace.seconds)
    };
    let message = if stateful {
        format!(
            "terminationGracePeriodSeconds is {value} on a StatefulSet: a deleted pod's name is released before its containers stop, so its replacement can run beside it"
        )
    } else {
        let (hooks, get, are) = if hooked.len() == 1 {
            ("the preStop hook of", "gets", "is")
        } else {
            ("the preStop hooks of", "get", "are")
        };
        // A liveness or startup kill uses the pod's period unless the probe has its own; with
        // no time left the kubelet runs no preStop hook.
        let skipped_by_probe_kills = hooked.iter().any(|&i| {
            [ProbeKind::Liveness, ProbeKind::Startup]
                .into_iter()
                .filter_map(|kind| ctx.life.probe_kill(i, kind))
                .any(|kill| !kill.prestop_runs)
        });
        let skipped = if skipped_by_probe_kills {
            format!(" and {are} skipped when a probe kills the container")
        } else {
            String::new()
        };
        let names = hooked.iter().map(|&i| ctx.life.containers[i].quoted());
        format!(
            "terminationGracePeriodSeconds is {value}: {hooks} {} {get} at most {}s on deletion{skipped}",
            short_phrase_list(names, hooked.len()),
            shutdown.effective_grace_seconds
        )
    };
    let finding = findings
        .report(
            Target::value(ctx.site.spec_path.key("terminationGracePeriodSeconds")),
            message,
        )
        .help(if stateful {
            "remove it, or set the seconds the application needs to shut down (the default is 30)"
        } else {
            "set it to the preStop time plus the seconds the application needs to shut down, or remove it for the default of 30"
        });
    if !stateful {
        finding
            .claim(Claim::DeletionGrace(shutdown.effective_grace_seconds))
            .severity(Severity::Info);
    }
    if let Some(fix) = restore_grace_period(ctx, &hooked) {
        finding.fix(fix);
    }
    for &index in &hooked {
        let container = &ctx.life.containers[index];
        if let Some(hook) = &container.pre_stop {
            finding.label(
                Target::key(hook.path.clone()),
                format!("preStop hook of {}", container.quoted()),
            );
        }
    }
}

/// Sets the grace period to the default 30 seconds (what removing the field gives), or to the
/// longest preStop sleep plus 30. Unsafe: a zero grace period may be deliberate (fast
/// failover), and every deletion of the pod may then take that long. `None` when a hook
/// never returns: no grace period fits it.
fn restore_grace_period(ctx: &PodContext<'_>, hooked: &[usize]) -> Option<Fix> {
    let mut seconds = DEFAULT_GRACE_PERIOD_SECONDS;
    for &index in hooked {
        let hook = ctx.life.containers[index].pre_stop.as_ref()?;
        match hook.duration {
            HookDuration::Forever => return None,
            HookDuration::Unknown => {}
            known => {
                let hook_seconds = known.known_seconds()?;
                seconds = seconds.max(grace_period_after(hook_seconds)?);
            }
        }
    }
    Some(Fix::new_unsafe(
        format!("Set terminationGracePeriodSeconds to {seconds}"),
        vec![FixEdit::Set {
            path: ctx.site.spec_path.key("terminationGracePeriodSeconds"),
            value: seconds.to_string(),
        }],
    ))
}
