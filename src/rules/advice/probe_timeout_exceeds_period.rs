use crate::lifecycle::handlers;
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::text;

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
    /// `periodSeconds`: the container is taken out of its Services, or restarted, up to
    /// `periodSeconds + (failureThreshold − 1) × timeoutSeconds + timeoutSeconds` after it
    /// stops answering — later than the period and `failureThreshold` suggest.
    ///
    /// A long timeout is often deliberate (a check that is slow under load must not restart
    /// the container), so the rule is advice, reported as information: it says when the probe
    /// really acts, which is worth knowing whether or not the numbers change.
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
    pub(crate) static RULE = {
        name: "probe-timeout-exceeds-period",
        category: Advice,
        enforcement: Runtime,
        summary: "probe timeoutSeconds greater than its periodSeconds",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for site in handlers(ctx.life) {
        let (Some(probe), Some(kind), Some(timing)) =
            (site.probe, site.used_for.probe_kind(), site.timing())
        else {
            continue;
        };
        // Negative numbers are rejected by the API server (`negative-probe-field`); no timing follows from them.
        if !timing.is_valid() || timing.timeout_seconds <= timing.period_seconds {
            continue;
        }
        let interval = timing.interval();
        let fails = timing.failure_after(kind).bounds();
        let finding = findings
            .report(
                Target::value(site.path.key("timeoutSeconds")),
                format!(
                    "timeoutSeconds of {} is {}s, longer than its {}s period: a probe that times out runs every {}, not every {}, and reports failure {} after {} stops answering",
                    site.describe(),
                    timing.timeout_seconds,
                    timing.period_seconds,
                    text::seconds(interval.max),
                    text::seconds(interval.min),
                    text::range(fails.min, fails.max),
                    site.container.quoted()
                ),
            )
            .help("make `timeoutSeconds` at most `periodSeconds`; to give the check more time, raise both")
            .container(site.container.name)
            .claim(Claim::ProbeInterval {
                container: site.index,
                probe: kind,
                seconds: interval.max,
            })
            .claim(Claim::ProbeFailure {
                container: site.index,
                probe: kind,
                bounds: fails,
            });
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
