use crate::lifecycle::{HandlerUse, handlers};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a probe-level `terminationGracePeriodSeconds` that the API server rejects: any
    /// value on a readiness probe, and 0 or less on a liveness or startup probe.
    ///
    /// ## Why is this bad?
    /// A probe's own grace period applies when that probe's failure kills the container. A
    /// readiness probe never kills, so the field is rejected there
    /// (`must not be set for readinessProbes`). On a liveness or startup probe it must be at
    /// least 1 (`must be greater than 0`) — unlike the pod-level field, where 0 is allowed.
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
    ///     readinessProbe:
    ///       httpGet: {path: /ready, port: 80}
    ///       terminationGracePeriodSeconds: 10
    /// ```
    ///
    /// Set it on the liveness probe, where a failure kills the container:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     readinessProbe:
    ///       httpGet: {path: /ready, port: 80}
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 80}
    ///       terminationGracePeriodSeconds: 10
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateProbe`
    ///   (`must be greater than 0`) and `validateReadinessProbe` (`must not be set for
    ///   readinessProbes`).
    /// - [Probe-level terminationGracePeriodSeconds](https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#probe-level-terminationgraceperiodseconds)
    pub(crate) static RULE = {
        name: "probe-grace-period",
        category: Correctness,
        enforcement: ApiServer,
        summary: "probe-level terminationGracePeriodSeconds the API server rejects",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let Some(grace) = site.probe.and_then(|p| p.termination_grace_period_seconds) else {
            continue;
        };
        let field = Target::value(site.path.key("terminationGracePeriodSeconds"));
        if site.used_for == HandlerUse::Readiness {
            findings
                .report(field, format!("terminationGracePeriodSeconds is not allowed on {}", site.describe()))
                .help("remove it: a readiness probe never kills the container; set it on the liveness or startup probe")
                .container(site.container.name);
        } else if grace <= 0 {
            findings
                .report(
                    field,
                    format!(
                        "terminationGracePeriodSeconds of {} is {grace}; it must be at least 1",
                        site.describe()
                    ),
                )
                .help(
                    "set a positive number of seconds, or remove it to use the pod's grace period",
                )
                .container(site.container.name);
        }
    }
}
