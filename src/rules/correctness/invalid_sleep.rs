use crate::lifecycle::{HandlerUse, handlers};
use crate::model::Origin;
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::versions::POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO;

declare_rule! {
    /// ## What it does
    /// Finds a `sleep` hook action the API server rejects: a negative duration, a zero
    /// duration before the target Kubernetes version allows it, and a `postStart` sleep longer
    /// than `terminationGracePeriodSeconds` (for `preStop`, `prestop-exceeds-grace-period`
    /// reports it).
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload, so nothing of it is applied. A zero sleep is
    /// accepted from Kubernetes 1.33 (the `PodLifecycleSleepActionAllowZero` feature).
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     lifecycle:
    ///       preStop:
    ///         sleep: {seconds: -1}
    /// ```
    ///
    /// Sleep a positive number of seconds:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     lifecycle:
    ///       preStop:
    ///         sleep: {seconds: 5}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateSleepAction`
    ///   (non-negative, zero only with `AllowPodLifecycleSleepActionZeroValue`, at most the
    ///   grace period).
    /// - kubernetes/kubernetes `pkg/features/kube_features.go`: `PodLifecycleSleepActionAllowZero`.
    pub(crate) static RULE = {
        name: "invalid-sleep",
        category: Correctness,
        enforcement: ApiServer,
        summary: "sleep hook with a duration the API server rejects",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let Some(sleep) = site.sleep else {
            continue;
        };
        let name = site.container.name;
        let field = Target::value(site.path.key("sleep").key("seconds"));
        let grace = ctx
            .life
            .grace_period
            .validated(ctx.site.origin == Origin::Pod);
        if sleep.seconds < 0 {
            findings
                .report(
                    field,
                    format!(
                        "{} sleeps {}s; the duration must not be negative",
                        site.describe(),
                        sleep.seconds
                    ),
                )
                .help("sleep a positive number of seconds, or remove the hook")
                .container(name);
        } else if sleep.seconds == 0 && !POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO.enabled(ctx.kube) {
            findings
                .report(
                    field,
                    format!(
                        "{} sleeps 0s, which Kubernetes {} rejects",
                        site.describe(),
                        ctx.kube
                    ),
                )
                .help(format!(
                    "remove the hook, or target a cluster where {} is allowed ({})",
                    POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO.description,
                    POD_LIFECYCLE_SLEEP_ACTION_ALLOW_ZERO.availability()
                ))
                .container(name);
        } else if site.used_for == HandlerUse::PostStart && sleep.seconds > grace {
            let finding = findings
                .report(
                    field,
                    format!(
                        "{} sleeps {}s, longer than `terminationGracePeriodSeconds` ({grace}s), which the API server rejects",
                        site.describe(),
                        sleep.seconds
                    ),
                )
                .help("shorten the sleep or raise `terminationGracePeriodSeconds`")
                .container(name);
            // The value as written, unless a bare Pod's negative one was stored as 1.
            if grace == ctx.life.grace_period.seconds {
                finding.claim(Claim::SpecGrace(grace));
            }
        }
    }
}
