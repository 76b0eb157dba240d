use crate::lifecycle::{ProbeTiming, handlers};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a probe whose `timeoutSeconds` is greater than its `periodSeconds` (after
    /// defaults: a period of 10 seconds when unset).
    ///
    /// ## Why is this bad?
    /// The kubelet runs each probe of a container in its own loop: it probes, waits for the
    /// answer or the timeout, then waits for the next tick of a `periodSeconds` ticker. A
    /// ticker does not queue up missed ticks, so a probe that takes longer than the period
    /// simply runs again as soon as it is done. When the application hangs, every try runs
    /// into the timeout, and the probe fires every `timeoutSeconds` instead of every
    /// `periodSeconds`: the container is taken out of its Services, or restarted, later than
    /// the period and `failureThreshold` suggest. Usually one of the two numbers is a typo.
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
    ///       httpGet: {path: /, port: 80}
    ///       periodSeconds: 5
    ///       timeoutSeconds: 30
    /// ```
    ///
    /// Keep the timeout within the period:
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
    ///       httpGet: {path: /, port: 80}
    ///       periodSeconds: 5
    ///       timeoutSeconds: 3
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/prober/worker.go`, `run`: `doProbe` runs to the
    ///   end, then the loop waits on a `time.NewTicker(periodSeconds)` channel.
    /// - kubernetes/kubernetes `pkg/kubelet/prober/prober.go`, `runProbe`: `timeoutSeconds`
    ///   bounds each try.
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`, `validateProbe`: no
    ///   check relates `timeoutSeconds` to `periodSeconds`, so the API server accepts it.
    /// - kubernetes/api `core/v1/types.go`, `Probe`: `periodSeconds` defaults to 10,
    ///   `timeoutSeconds` to 1.
    pub static RULE = {
        name: "probe-timeout-exceeds-period",
        category: Suspicious,
        enforcement: Runtime,
        summary: "probe timeoutSeconds greater than its periodSeconds",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let Some(probe) = site.probe else {
            continue;
        };
        let timing = ProbeTiming::of(probe);
        // A negative value is rejected by the API server (`negative-probe-field`): there is
        // no period to compare with.
        if timing.period_seconds < 0
            || timing.timeout_seconds < 0
            || timing.timeout_seconds <= timing.period_seconds
        {
            continue;
        }
        let finding = findings
            .report(
                Target::value(site.path.key("timeoutSeconds")),
                format!(
                    "timeoutSeconds of {} is {}s, longer than its {}s period: a probe that times out runs every {}s, not every {}s",
                    site.describe(),
                    timing.timeout_seconds,
                    timing.period_seconds,
                    timing.timeout_seconds,
                    timing.period_seconds
                ),
            )
            .help("make `timeoutSeconds` at most `periodSeconds`; to give the check more time, raise both")
            .container(site.container.name);
        if probe.period_seconds.is_some_and(|p| p != 0) {
            finding.label(
                Target::value(site.path.key("periodSeconds")),
                format!("period of {}s set here", timing.period_seconds),
            );
        } else {
            finding.note("`periodSeconds` is not set, so the default of 10s applies");
        }
    }
}
