use crate::lifecycle::{HandlerUse, handlers};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a liveness or startup probe whose `successThreshold` is not 1.
    ///
    /// ## Why is this bad?
    /// One success is all a liveness or startup probe can use: the container is either alive
    /// or not, started or not. The API server rejects any other value with
    /// `successThreshold: Invalid value: must be 1`. Only readiness probes may ask for several
    /// successes in a row. (0 is accepted: it is defaulted to 1.)
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
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 80}
    ///       successThreshold: 2
    /// ```
    ///
    /// Leave it out, or move the threshold to a readiness probe:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     livenessProbe:
    ///       httpGet: {path: /healthz, port: 80}
    ///     readinessProbe:
    ///       httpGet: {path: /ready, port: 80}
    ///       successThreshold: 2
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`:
    ///   `validateLivenessProbe` and `validateStartupProbe` require `successThreshold` 1.
    /// - kubernetes/kubernetes `pkg/apis/core/v1/defaults.go`, `SetDefaults_Probe`: 0 becomes 1.
    pub(crate) static RULE = {
        name: "probe-success-threshold",
        category: Correctness,
        enforcement: ApiServer,
        summary: "liveness or startup probe with a successThreshold other than 1",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        if !matches!(site.used_for, HandlerUse::Liveness | HandlerUse::Startup) {
            continue;
        }
        let Some(threshold) = site.probe.and_then(|p| p.success_threshold) else {
            continue;
        };
        if threshold == 0 || threshold == 1 {
            continue;
        }
        findings
            .report(
                Target::value(site.path.key("successThreshold")),
                format!(
                    "successThreshold of {} is {threshold}; it must be 1",
                    site.describe()
                ),
            )
            .help("remove `successThreshold`; only readiness probes may require several successes")
            .container(site.container.name);
    }
}
