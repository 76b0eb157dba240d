use crate::lifecycle::handlers;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a negative `initialDelaySeconds`, `timeoutSeconds`, `periodSeconds`,
    /// `successThreshold` or `failureThreshold` in a readiness, liveness or startup probe.
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload (`must be greater than or equal to 0`), so
    /// nothing of it is applied. A zero is accepted: the API server fills in the default for
    /// every field but `initialDelaySeconds`.
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
    ///       httpGet: {path: /, port: 8080}
    ///       periodSeconds: -5
    /// ```
    ///
    /// Use a positive period, or leave it out for the default of 10 seconds:
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
    ///       httpGet: {path: /, port: 8080}
    ///       periodSeconds: 5
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateProbe`
    ///   (`ValidateNonnegativeField` on each of the five fields).
    pub(crate) static RULE = {
        name: "negative-probe-field",
        category: Correctness,
        enforcement: ApiServer,
        summary: "probe timing or threshold below zero",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let Some(probe) = site.probe else {
            continue;
        };
        for (field, value) in [
            ("initialDelaySeconds", probe.initial_delay_seconds),
            ("timeoutSeconds", probe.timeout_seconds),
            ("periodSeconds", probe.period_seconds),
            ("successThreshold", probe.success_threshold),
            ("failureThreshold", probe.failure_threshold),
        ] {
            if let Some(value) = value.filter(|v| *v < 0) {
                findings
                    .report(
                        Target::value(site.path.key(field)),
                        format!(
                            "{field} of {} is {value}; it must not be negative",
                            site.describe()
                        ),
                    )
                    .help("use 0 or more (0 means the default for every field but initialDelaySeconds)")
                    .container(site.container.name);
            }
        }
    }
}
