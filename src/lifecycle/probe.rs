//! Probes as the kubelet runs them: settings after the API server's defaults, and how long a
//! probe takes to act, by the prober's own loop.
//!
//! Each probe of a container has a worker (kubernetes/kubernetes `pkg/kubelet/prober/worker.go`)
//! that runs `doProbe`, then waits on a `periodSeconds` ticker. A try may take up to
//! `timeoutSeconds`; a Go ticker does not queue missed ticks (it keeps one), so a try that
//! outlasts the period is followed by the next one at once. Tries are therefore between
//! `periodSeconds` and `max(periodSeconds, timeoutSeconds)` apart, and a result is published
//! only after `failureThreshold` failures (or `successThreshold` successes) in a row.

use super::ProbeKind;
use super::time::{Bounds, DelayKind, Step, Window, seconds};
use crate::model::core::Probe;
use crate::model::path::FieldPath;

/// A probe's settings after the API server's defaults (defaults.go `SetDefaults_Probe`: 0 or
/// unset becomes 1 s timeout, 10 s period, success 1, failure 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProbeTiming {
    pub(crate) initial_delay_seconds: i64,
    pub(crate) timeout_seconds: i64,
    pub(crate) period_seconds: i64,
    pub(crate) success_threshold: i64,
    pub(crate) failure_threshold: i64,
    /// The probe's own grace period for the kills it causes, where the target version has
    /// probe-level grace periods (`ProbeTerminationGracePeriod`).
    pub(crate) termination_grace_period_seconds: Option<i64>,
}

impl ProbeTiming {
    pub(crate) fn of(probe: &Probe) -> ProbeTiming {
        let or_default = |value: Option<i32>, default: i64| match value {
            Some(v) if v != 0 => i64::from(v),
            _ => default,
        };
        ProbeTiming {
            initial_delay_seconds: probe.initial_delay_seconds.map_or(0, i64::from),
            timeout_seconds: or_default(probe.timeout_seconds, 1),
            period_seconds: or_default(probe.period_seconds, 10),
            success_threshold: or_default(probe.success_threshold, 1),
            failure_threshold: or_default(probe.failure_threshold, 3),
            termination_grace_period_seconds: probe.termination_grace_period_seconds,
        }
    }

    /// Whether the API server accepts these numbers (`validateProbe`: none negative; a
    /// probe-level grace period above 0). No time is derived from a probe it rejects;
    /// `invalid-value` and `probe-grace-period` report it.
    pub(crate) fn is_valid(&self) -> bool {
        [
            self.initial_delay_seconds,
            self.timeout_seconds,
            self.period_seconds,
            self.success_threshold,
            self.failure_threshold,
        ]
        .iter()
        .all(|&v| v >= 0)
            && self.termination_grace_period_seconds.is_none_or(|g| g > 0)
    }

    fn period(&self) -> f64 {
        seconds(self.period_seconds.max(1))
    }

    fn timeout(&self) -> f64 {
        seconds(self.timeout_seconds.max(1))
    }

    /// `initialDelaySeconds`, never negative.
    pub(crate) fn initial_delay(&self) -> f64 {
        seconds(self.initial_delay_seconds.max(0))
    }

    /// Time between two tries: a period at the least; when a try runs into its timeout and
    /// that is longer than the period, the timeout (worker.go `run`: the next try follows a
    /// tick of `time.NewTicker(periodSeconds)`, and the one tick kept while `doProbe` ran lets
    /// it follow at once).
    pub(crate) fn interval(&self) -> Bounds {
        Bounds::new(self.period(), self.period().max(self.timeout()))
    }

    /// The steps from the moment the container stops answering until the probe reports
    /// failure: the next tick comes within a period; then `failureThreshold` tries, the last
    /// one running into its timeout. Between `(f − 1)·p` and `p + (f − 1)·max(p, T) + T`
    /// (worker.go `run` and `doProbe`, which publishes a failure only after
    /// `failureThreshold` in a row).
    pub(crate) fn failure_steps(
        &self,
        kind: ProbeKind,
        container: usize,
        path: &FieldPath,
    ) -> [Step; 3] {
        let failures = seconds(self.failure_threshold.max(1));
        let field = |name: &str| path.key(kind.field()).key(name);
        let interval = self.interval();
        [
            Step {
                container,
                kind: DelayKind::NextTick(kind),
                path: field("periodSeconds"),
                length: Bounds::new(0.0, self.period()),
            },
            Step {
                container,
                kind: DelayKind::Tries(kind),
                path: field("failureThreshold"),
                length: interval.map(|i| (failures - 1.0) * i),
            },
            Step {
                container,
                kind: DelayKind::Timeout(kind),
                path: field("timeoutSeconds"),
                length: Bounds::new(0.0, self.timeout()),
            },
        ]
    }

    /// From the moment the container stops answering until the probe reports failure
    /// ([`ProbeTiming::failure_steps`]).
    pub(crate) fn failure_after(&self, kind: ProbeKind) -> Window {
        let path = FieldPath::default();
        self.failure_steps(kind, 0, &path)
            .iter()
            .fold(Window::zero(), |window, step| window.then(step))
    }

    /// From the moment an unready container answers again until it is Ready:
    /// `successThreshold` tries in a row. At most the next tick, `s − 1` intervals and a
    /// timeout; at the least no time at all, because while a container is not Ready each
    /// status update triggers a readiness try at once (prober_manager.go `UpdatePodStatus`,
    /// the worker's `manualTriggerCh`).
    pub(crate) fn success_after(&self) -> Bounds {
        let successes = seconds(self.success_threshold.max(1));
        Bounds::new(
            0.0,
            self.period() + (successes - 1.0) * self.interval().max + self.timeout(),
        )
    }
}

/// Something for each kind of probe a container may have.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ByProbe<T> {
    pub(crate) liveness: Option<T>,
    pub(crate) readiness: Option<T>,
    pub(crate) startup: Option<T>,
}

impl<T> ByProbe<T> {
    pub(crate) fn get(&self, kind: ProbeKind) -> Option<&T> {
        match kind {
            ProbeKind::Startup => self.startup.as_ref(),
            ProbeKind::Readiness => self.readiness.as_ref(),
            ProbeKind::Liveness => self.liveness.as_ref(),
        }
    }
}

// Not derived: that would ask `T: Default`, and no probe is the default whatever `T` is.
impl<T> Default for ByProbe<T> {
    fn default() -> Self {
        ByProbe {
            liveness: None,
            readiness: None,
            startup: None,
        }
    }
}

/// The probes of a container, after defaults.
pub(crate) type Probes = ByProbe<ProbeTiming>;

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(delay: i64, period: i64, failures: i64, timeout: i64) -> ProbeTiming {
        ProbeTiming {
            initial_delay_seconds: delay,
            timeout_seconds: timeout,
            period_seconds: period,
            success_threshold: 1,
            failure_threshold: failures,
            termination_grace_period_seconds: None,
        }
    }

    #[test]
    fn failure_follows_the_workers_loop() {
        assert_eq!(
            probe(0, 10, 3, 1)
                .failure_after(ProbeKind::Liveness)
                .bounds(),
            Bounds::new(20.0, 31.0)
        );
        // A timeout longer than the period spaces the tries by the timeout.
        assert_eq!(
            probe(0, 10, 3, 30)
                .failure_after(ProbeKind::Readiness)
                .bounds(),
            Bounds::new(20.0, 100.0)
        );
        assert_eq!(
            probe(0, 5, 1, 2)
                .failure_after(ProbeKind::Liveness)
                .bounds(),
            Bounds::new(0.0, 7.0)
        );
    }

    #[test]
    fn negative_numbers_are_invalid() {
        assert!(probe(0, 10, 3, 1).is_valid());
        assert!(!probe(0, -5, 3, 1).is_valid());
        let mut timing = probe(0, 10, 3, 1);
        timing.termination_grace_period_seconds = Some(0);
        assert!(!timing.is_valid());
    }

    #[test]
    fn success_takes_no_certain_time() {
        let mut timing = probe(0, 10, 3, 1);
        timing.success_threshold = 3;
        assert_eq!(timing.success_after(), Bounds::new(0.0, 31.0));
    }
}
