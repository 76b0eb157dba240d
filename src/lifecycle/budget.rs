//! Time budgets that follow from a probe's settings and a grace period: how long a failing
//! probe takes to act, and how a kill spends its grace period. Times are in seconds; a bound
//! that is not knowable from the manifest is infinite.
//!
//! References (kubernetes/kubernetes):
//! - `pkg/kubelet/prober/worker.go`, `doProbe`: a result flips only after `failureThreshold`
//!   consecutive failures (or `successThreshold` successes), one probe per `periodSeconds`,
//!   each allowed `timeoutSeconds`;
//! - `pkg/kubelet/kuberuntime/kuberuntime_container.go`, `killContainer`: the preStop hook runs
//!   only when the grace period is above 0 and for at most the grace period; its whole seconds
//!   are subtracted, and what is left (never less than `minimumGracePeriodInSeconds`, 2 s) is
//!   the runtime's timeout between the stop signal and SIGKILL;
//! - `setTerminationGracePeriod`: a liveness or startup probe's own
//!   `terminationGracePeriodSeconds` replaces the pod's for the kills it causes.

use super::{HandlerKind, Hook, HookDuration, MINIMUM_STOP_WINDOW_SECONDS, ProbeTiming};

/// A time known to lie between two bounds (in seconds; `max` may be infinite).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub max: f64,
}

impl Bounds {
    pub const ZERO: Bounds = Bounds { min: 0.0, max: 0.0 };

    pub fn exact(seconds: f64) -> Bounds {
        Bounds {
            min: seconds,
            max: seconds,
        }
    }

    pub fn new(min: f64, max: f64) -> Bounds {
        Bounds {
            min,
            max: max.max(min),
        }
    }

    /// The single value, when both bounds agree.
    pub fn value(self) -> Option<f64> {
        (self.min == self.max).then_some(self.min)
    }

    /// Applies a non-decreasing function to both bounds.
    #[must_use]
    pub fn map(self, f: impl Fn(f64) -> f64) -> Bounds {
        Bounds::new(f(self.min), f(self.max))
    }
}

#[allow(clippy::cast_precision_loss)]
pub(crate) fn seconds(value: i64) -> f64 {
    value as f64
}

impl ProbeTiming {
    /// Time from the moment the container stops answering until the probe reports failure:
    /// between `(failureThreshold − 1) × periodSeconds` (it failed just before a probe) and
    /// `failureThreshold × periodSeconds + timeoutSeconds` (just after one, and the last probe
    /// times out).
    pub fn failure_after(&self) -> Bounds {
        let (period, failures, timeout) = (
            seconds(self.period_seconds.max(1)),
            seconds(self.failure_threshold.max(1)),
            seconds(self.timeout_seconds.max(1)),
        );
        Bounds::new((failures - 1.0) * period, failures * period + timeout)
    }

    /// The delay before the first probe, never negative.
    pub fn initial_delay(&self) -> f64 {
        seconds(self.initial_delay_seconds.max(0))
    }

    /// The window a startup probe gives a container from its start, as the Kubernetes docs
    /// write it: `initialDelaySeconds + failureThreshold × periodSeconds`.
    pub fn startup_window(&self) -> f64 {
        self.initial_delay()
            + seconds(self.failure_threshold.max(1)) * seconds(self.period_seconds.max(1))
    }

    /// When a startup probe that never passes fails, from the container's start: the
    /// failure bounds after the initial delay.
    pub fn startup_window_bounds(&self) -> Bounds {
        let delay = self.initial_delay();
        self.failure_after().map(|t| delay + t)
    }

    /// Time from the first probe to Ready: `successThreshold − 1` more periods.
    pub fn success_after(&self) -> f64 {
        seconds(self.success_threshold.max(1) - 1) * seconds(self.period_seconds.max(1))
    }
}

impl Hook {
    /// How long the hook runs, as far as the manifest tells.
    pub fn bounds(&self) -> Bounds {
        if self.handler == HandlerKind::TcpSocket {
            // The kubelet has no tcpSocket handler: the hook fails at once
            // (pkg/kubelet/lifecycle/handlers.go, `Run`).
            return Bounds::ZERO;
        }
        match self.duration {
            HookDuration::Exactly(n) => Bounds::exact(seconds(n.max(0))),
            HookDuration::AtLeast(n) => Bounds::new(n.max(0.0), f64::INFINITY),
            HookDuration::Forever => Bounds::exact(f64::INFINITY),
            HookDuration::Unknown => Bounds::new(0.0, f64::INFINITY),
        }
    }
}

/// Where a grace period comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GraceSource {
    /// The pod's `terminationGracePeriodSeconds`.
    Spec,
    /// Not set: the default of 30 s.
    Default,
    /// A liveness or startup probe's own `terminationGracePeriodSeconds`.
    Probe,
}

impl GraceSource {
    pub fn as_str(self) -> &'static str {
        match self {
            GraceSource::Spec => "spec",
            GraceSource::Default => "default",
            GraceSource::Probe => "probe",
        }
    }
}

/// How one container's kill spends a grace period `G`: the preStop hook first (only when
/// `G > 0`, cut off at `G`), then the stop signal, then SIGKILL once the rest of the period
/// — at least 2 s — has passed. Times are from the moment the kill starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KillPlan {
    /// The grace period the kill uses.
    pub grace_seconds: i64,
    pub grace_source: GraceSource,
    /// Whether a preStop hook runs at all.
    pub prestop_runs: bool,
    /// Time spent in the preStop hook (0 without one).
    pub prestop: Bounds,
    /// The hook is known to outlast the grace period and is cut off.
    pub prestop_cut_off: bool,
    /// When the stop signal is sent.
    pub sigterm: Bounds,
    /// Time between the stop signal and SIGKILL.
    pub window: Bounds,
    /// When SIGKILL is sent if the container is still running.
    pub sigkill: Bounds,
}

impl KillPlan {
    /// The kill of a container with `pre_stop`, under grace period `grace`: the stop signal
    /// follows the hook.
    pub fn new(grace: i64, grace_source: GraceSource, pre_stop: Option<&Hook>) -> KillPlan {
        let grace_f = seconds(grace.max(0));
        let hook = pre_stop.filter(|_| grace > 0);
        let hook_bounds = hook.map_or(Bounds::ZERO, Hook::bounds);
        let prestop = hook_bounds.map(|t| t.min(grace_f));
        KillPlan {
            grace_seconds: grace,
            grace_source,
            prestop_runs: hook.is_some(),
            prestop,
            prestop_cut_off: hook_bounds.min > grace_f,
            sigterm: prestop,
            window: Bounds::ZERO,
            sigkill: Bounds::ZERO,
        }
        .signal_at(prestop)
    }

    /// The same kill with the stop signal sent at `sigterm` (after the hook and any wait for
    /// other containers), all within the same grace period.
    #[must_use]
    pub fn signal_at(self, sigterm: Bounds) -> KillPlan {
        let grace = seconds(self.grace_seconds.max(0));
        let minimum = seconds(MINIMUM_STOP_WINDOW_SECONDS);
        // The kubelet subtracts whole elapsed seconds; the later the signal, the shorter the
        // window, so the earliest signal gives the longest one.
        let window_at = |t: f64| (grace - t.floor()).max(minimum);
        KillPlan {
            sigterm,
            window: Bounds::new(window_at(sigterm.max), window_at(sigterm.min)),
            sigkill: sigterm.map(|t| t + window_at(t)),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::path::FieldPath;

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

    fn hook(handler: HandlerKind, duration: HookDuration) -> Hook {
        Hook {
            path: FieldPath::default(),
            handler,
            duration,
            only_sleeps: false,
        }
    }

    #[test]
    fn startup_window_follows_the_documented_formula_and_its_bounds() {
        let p = probe(10, 10, 3, 1);
        assert_eq!(p.startup_window(), 40.0);
        assert_eq!(p.startup_window_bounds(), Bounds::new(30.0, 41.0));
        assert_eq!(p.failure_after(), Bounds::new(20.0, 31.0));
    }

    #[test]
    fn prestop_takes_its_time_from_the_grace_period() {
        let sleep = hook(HandlerKind::Sleep, HookDuration::Exactly(10));
        let plan = KillPlan::new(30, GraceSource::Spec, Some(&sleep));
        assert_eq!(plan.sigterm, Bounds::exact(10.0));
        assert_eq!(plan.window, Bounds::exact(20.0));
        assert_eq!(plan.sigkill, Bounds::exact(30.0));
        assert!(!plan.prestop_cut_off);
    }

    #[test]
    fn a_hook_as_long_as_the_period_leaves_the_two_second_floor() {
        let sleep = hook(HandlerKind::Sleep, HookDuration::Exactly(45));
        let plan = KillPlan::new(30, GraceSource::Spec, Some(&sleep));
        assert_eq!(plan.sigterm, Bounds::exact(30.0));
        assert_eq!(plan.window, Bounds::exact(2.0));
        assert_eq!(plan.sigkill, Bounds::exact(32.0));
        assert!(plan.prestop_cut_off);
    }

    #[test]
    fn an_exec_hook_of_unknown_length_gives_bounds() {
        let exec = hook(HandlerKind::Exec, HookDuration::Unknown);
        let plan = KillPlan::new(30, GraceSource::Default, Some(&exec));
        assert_eq!(plan.sigterm, Bounds::new(0.0, 30.0));
        assert_eq!(plan.window, Bounds::new(2.0, 30.0));
        assert_eq!(plan.sigkill, Bounds::new(30.0, 32.0));
    }

    #[test]
    fn no_prestop_runs_with_a_zero_grace_period() {
        let sleep = hook(HandlerKind::Sleep, HookDuration::Exactly(5));
        let plan = KillPlan::new(0, GraceSource::Spec, Some(&sleep));
        assert!(!plan.prestop_runs);
        assert_eq!(plan.window, Bounds::exact(2.0));
    }

    #[test]
    fn a_tcp_socket_hook_fails_at_once() {
        let tcp = hook(HandlerKind::TcpSocket, HookDuration::Unknown);
        let plan = KillPlan::new(30, GraceSource::Spec, Some(&tcp));
        assert_eq!(plan.window, Bounds::exact(30.0));
    }
}
