use crate::diagnostics::Severity;
use crate::fix::{Fix, FixEdit};
use crate::lifecycle::{ContainerLife, HandlerKind, Hook, HookDuration, only_sleep, seconds};
use crate::model::Origin;
use crate::rules::fixes::grace_period_after;
use crate::rules::{Claim, Enforcement, Findings, PodContext, Target, declare_rule};
use crate::text;
use crate::versions::POD_LIFECYCLE_SLEEP_ACTION;

declare_rule! {
    /// ## What it does
    /// Finds a `preStop` hook whose duration is known — the `sleep` action's `seconds`, or an
    /// exec command whose sleeps can be read (`sleep 60`, `["sleep", "60"]`,
    /// `sh -c "...; sleep 60 && ..."`) — that is as long as the pod's
    /// `terminationGracePeriodSeconds` or longer (30 seconds when the field is not set).
    ///
    /// ## Why is this bad?
    /// On deletion the kubelet runs the preStop hook first and sends the stop signal only when
    /// it returns; both must fit in the grace period. If the hook takes the whole period, the
    /// kubelet sends SIGTERM when it is over and SIGKILL 2 seconds later (the minimum it
    /// always grants): the application gets 2 seconds to shut down instead of the time the
    /// manifest seems to give it. A longer exec hook is simply cut off.
    ///
    /// The API server accepts an exec hook of any length: the problem shows only when the pod
    /// stops, so the finding is a warning (`runtime`). A `sleep` action longer than the grace
    /// period is rejected by the API server
    /// (`must be non-negative and less than terminationGracePeriodSeconds`): that finding is an
    /// error (`api-server`).
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
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         lifecycle:
    ///           preStop:
    ///             exec:
    ///               command: ["sh", "-c", "sleep 30"]
    /// ```
    ///
    /// Give the application time after the drain delay:
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
    ///       terminationGracePeriodSeconds: 60
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
    /// Safe: raise `terminationGracePeriodSeconds` to the hook's time plus the default 30
    /// seconds (`check --fix`). Unsafe, with `--fix --unsafe-fixes` and in editors: where the
    /// hook is an exec that only sleeps and the target version has the `sleep` action, use the
    /// action as well; the wait then runs in the kubelet instead of the container.
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `killContainer`: the preStop hook runs within the grace period, its time is subtracted,
    ///   and what is left is floored at `minimumGracePeriodInSeconds` (2,
    ///   `kuberuntime_manager.go`) before the runtime's stop timeout.
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`, `validateSleepAction`:
    ///   a sleep longer than `terminationGracePeriodSeconds` is `Invalid`.
    /// - kubernetes/api `core/v1/types.go`: `terminationGracePeriodSeconds` defaults to 30.
    /// - [Container lifecycle hooks](https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/),
    ///   [Termination of Pods](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination)
    pub(crate) static RULE = {
        name: "prestop-exceeds-grace-period",
        category: Correctness,
        enforcement: Runtime,
        severity: Warning,
        fix: Sometimes,
        summary: "preStop hook that takes the whole termination grace period or more",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let grace = ctx.life.grace_period;
    let validated = grace.validated(ctx.site.origin == Origin::Pod);
    let shutdown = ctx.life.shutdown();
    let effective = shutdown.effective_grace_seconds;
    for stop in &shutdown.containers {
        let container = &ctx.life.containers[stop.index];
        let (Some(hook), kill) = (&container.pre_stop, &stop.kill) else {
            continue;
        };
        let Some(hook_seconds) = hook.duration.known_seconds() else {
            continue;
        };
        // Validation compares a `sleep` action with the grace period as written.
        let rejected = ctx.life.rejected_prestop(stop.index).is_some();
        // Otherwise: the hook certainly takes the whole grace period the kubelet uses.
        if !rejected && (!kill.prestop_runs || kill.prestop.min < seconds(effective)) {
            continue;
        }
        let message = if rejected {
            format!(
                "the preStop `sleep` action of {} is longer than `terminationGracePeriodSeconds` ({}s), which the API server rejects",
                hook.length_text(hook_seconds),
                validated
            )
        } else {
            message(container, hook, hook_seconds, effective, kill.window.max)
        };
        let finding = findings
            .report(Target::key(hook.path.clone()), message)
            .help(format!(
                "set `terminationGracePeriodSeconds` above the preStop time plus the time {} needs to shut down, or shorten the hook",
                container.quoted()
            ))
            .container(container.name);
        if rejected {
            finding
                .enforcement(Enforcement::ApiServer)
                .severity(Severity::Error)
                .claim(Claim::PrestopRejected {
                    container: stop.index,
                });
            // The value as written, unless a bare Pod's negative one was stored as 1.
            if validated == grace.seconds {
                finding.claim(Claim::SpecGrace(validated));
            }
        } else {
            finding
                .claim(Claim::DeletionGrace(effective))
                .claim(Claim::StopWindow {
                    container: stop.index,
                    seconds: kill.window.max,
                });
        }
        if grace.explicit {
            let label = if rejected && validated != grace.seconds {
                format!(
                    "grace period of {}s set here; a Pod's negative value is stored as {validated}s",
                    grace.seconds
                )
            } else if effective == grace.seconds || rejected {
                format!("grace period of {}s set here", grace.seconds)
            } else {
                format!(
                    "grace period of {}s set here; the kubelet uses {effective}s",
                    grace.seconds
                )
            };
            finding.label(
                Target::value(ctx.site.spec_path.key("terminationGracePeriodSeconds")),
                label,
            );
        } else {
            finding.note(format!(
                "`terminationGracePeriodSeconds` is not set, so the default of {}s applies",
                grace.seconds
            ));
        }
        for fix in fixes(ctx, container, hook, hook_seconds) {
            finding.fix(fix);
        }
    }
}

/// Raise the grace period so the application keeps the default 30 s after the hook; and where
/// the hook is an exec that only sleeps and the target version has the `sleep` action, the
/// same with the action instead (it needs no `sleep` binary in the image). The second is
/// unsafe: the hook then runs in the kubelet, not in the container, which is a change beyond
/// the finding.
fn fixes(
    ctx: &PodContext<'_>,
    container: &ContainerLife<'_>,
    hook: &Hook,
    seconds: f64,
) -> Vec<Fix> {
    let Some(grace) = grace_period_after(seconds) else {
        return Vec::new();
    };
    let raise = FixEdit::Set {
        path: ctx.site.spec_path.key("terminationGracePeriodSeconds"),
        value: grace.to_string(),
    };
    let mut fixes = vec![Fix::new(
        format!("Raise terminationGracePeriodSeconds to {grace}"),
        vec![raise.clone()],
    )];
    let command = container
        .container
        .lifecycle
        .as_ref()
        .and_then(|l| l.pre_stop.as_ref())
        .and_then(|h| h.exec.as_ref())
        .and_then(|e| e.command.as_deref());
    let sleep = command.and_then(only_sleep).filter(|&s| s >= 1);
    if let Some(sleep) = sleep
        && hook.handler == HandlerKind::Exec
        && POD_LIFECYCLE_SLEEP_ACTION.enabled(ctx.kube)
    {
        fixes.push(Fix::new_unsafe(
            format!(
                "Use the `sleep` action for the preStop delay and raise terminationGracePeriodSeconds to {grace}"
            ),
            vec![
                FixEdit::Replace {
                    path: hook.path.key("exec"),
                    key: "sleep".to_owned(),
                    fields: vec![("seconds".to_owned(), sleep.to_string())],
                },
                raise,
            ],
        ));
    }
    fixes
}

fn message(
    container: &ContainerLife<'_>,
    hook: &Hook,
    hook_seconds: f64,
    grace: i64,
    window: f64,
) -> String {
    let consequence = format!(
        "{} gets only {} between SIGTERM and SIGKILL",
        container.quoted(),
        text::seconds(window)
    );
    let sleeps = match hook.duration {
        HookDuration::Forever => {
            return format!(
                "preStop never returns: it is cut off when the {grace}s grace period ends, and {consequence}"
            );
        }
        HookDuration::AtLeast(_) => {
            format!("preStop sleeps at least {}", text::seconds(hook_seconds))
        }
        _ => format!("preStop sleeps {}", hook.length_text(hook_seconds)),
    };
    if hook_seconds > seconds(grace) {
        format!(
            "{sleeps}, longer than the {grace}s grace period: the hook is cut off and {consequence}"
        )
    } else {
        format!("{sleeps}, the whole {grace}s grace period: {consequence}")
    }
}
