//! How the kubelet kills one container, and the grace period it uses for each reason.
//!
//! kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`, `killContainer`:
//! the preStop hook runs only when the grace period is above 0, for at most the grace period
//! (`executePreStopHook`); its whole elapsed seconds are taken from the period; a container
//! with termination ordering then waits its turn; what is left, never less than
//! `minimumGracePeriodInSeconds` (2 s, `kuberuntime_manager.go`), is the runtime's timeout
//! between the stop signal and SIGKILL (`StopContainer`).

use super::time::Bounds;
use super::{Hook, HookEnd, Lifecycle, MINIMUM_STOP_WINDOW_SECONDS, ProbeKind, ProbeTiming};
use crate::versions::PROBE_TERMINATION_GRACE_PERIOD;

pub(crate) use super::time::seconds;

/// Where a grace period comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GraceSource {
    /// The pod's `terminationGracePeriodSeconds`.
    Spec,
    /// Not set: the default of 30 s.
    Default,
    /// A liveness or startup probe's own `terminationGracePeriodSeconds`.
    Probe,
}

impl GraceSource {
    pub(crate) fn as_str(self) -> &'static str {
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
pub(crate) struct KillPlan {
    /// The grace period the kill uses.
    pub(crate) grace_seconds: i64,
    pub(crate) grace_source: GraceSource,
    /// Whether a preStop hook runs at all.
    pub(crate) prestop_runs: bool,
    /// Time spent in the preStop hook (0 without one).
    pub(crate) prestop: Bounds,
    /// The hook is known to outlast the grace period and is cut off.
    pub(crate) prestop_cut_off: bool,
    /// When the stop signal is sent.
    pub(crate) sigterm: Bounds,
    /// Time between the stop signal and SIGKILL.
    pub(crate) window: Bounds,
    /// When SIGKILL is sent if the container is still running.
    pub(crate) sigkill: Bounds,
}

impl KillPlan {
    /// The kill of a container with `pre_stop` under grace period `grace`, as `killContainer`
    /// runs it: the hook (`executePreStopHook`, at most `grace` seconds) and then the stop
    /// signal.
    pub(crate) fn new(grace: i64, grace_source: GraceSource, pre_stop: Option<&Hook>) -> KillPlan {
        let grace_f = seconds(grace.max(0));
        let hook = pre_stop.filter(|_| grace > 0);
        let hook_length = match hook.map(Hook::end) {
            None => Bounds::ZERO,
            Some(HookEnd::Returns(length)) => length,
            // A hook that fails has done what it does: the kill goes on.
            Some(HookEnd::Fails(_)) => Bounds::ZERO,
            Some(HookEnd::Never) => Bounds::NEVER,
        };
        let prestop = hook_length.map(|t| t.min(grace_f));
        KillPlan {
            grace_seconds: grace,
            grace_source,
            prestop_runs: hook.is_some(),
            prestop,
            prestop_cut_off: hook_length.min > grace_f,
            sigterm: prestop,
            window: Bounds::ZERO,
            sigkill: Bounds::ZERO,
        }
        .signal_at(prestop)
    }

    /// The same kill with the stop signal sent at `sigterm` (after the hook and any wait for
    /// other containers), all within the same grace period: `killContainer` takes the whole
    /// seconds waited from the period and floors what is left at 2 s.
    #[must_use]
    pub(crate) fn signal_at(self, sigterm: Bounds) -> KillPlan {
        let grace = seconds(self.grace_seconds.max(0));
        let minimum = seconds(MINIMUM_STOP_WINDOW_SECONDS);
        // The later the signal, the shorter the window, so the earliest signal gives the
        // longest one.
        let window_at = |t: f64| (grace - t.floor()).max(minimum);
        KillPlan {
            sigterm,
            window: Bounds::new(window_at(sigterm.max), window_at(sigterm.min)),
            sigkill: sigterm.map(|t| t + window_at(t)),
            ..self
        }
    }

    /// How long the kill takes: the container may exit as soon as it gets the stop signal,
    /// and is gone at SIGKILL at the latest.
    pub(crate) fn duration(&self) -> Bounds {
        Bounds::new(self.sigterm.min, self.sigkill.max)
    }
}

impl Lifecycle<'_> {
    /// The grace period of a kill that is not a deletion (a failed postStart hook, a probe
    /// without a grace period of its own): the pod's `terminationGracePeriodSeconds` as
    /// written, 0 and negative values included (`setTerminationGracePeriod`).
    pub(crate) fn spec_grace(&self) -> (i64, GraceSource) {
        let source = if self.grace_period.explicit {
            GraceSource::Spec
        } else {
            GraceSource::Default
        };
        (self.grace_period.seconds, source)
    }

    /// The kill a failing liveness or startup probe causes (`setTerminationGracePeriod`): with
    /// the probe's own `terminationGracePeriodSeconds` when it sets a valid one and the target
    /// version has them, else the pod's — without the 1 s a deletion always gets, so with 0
    /// the preStop hook does not run. `None` for a readiness probe, which kills nothing, and
    /// for a probe whose numbers the API server rejects.
    pub(crate) fn probe_kill(&self, index: usize, kind: ProbeKind) -> Option<KillPlan> {
        let container = self.containers.get(index)?;
        if kind == ProbeKind::Readiness {
            return None;
        }
        let timing = container
            .probes
            .get(kind)
            .copied()
            .filter(ProbeTiming::is_valid)?;
        let own = timing
            .termination_grace_period_seconds
            .filter(|&g| g > 0 && PROBE_TERMINATION_GRACE_PERIOD.enabled(self.kube));
        let (grace, source) = match own {
            Some(grace) => (grace, GraceSource::Probe),
            None => self.spec_grace(),
        };
        Some(KillPlan::new(grace, source, container.pre_stop.as_ref()))
    }

    /// The kill after a failed postStart hook: `startContainer` calls `killContainer` with
    /// reason `FailedPostStartHook` and the pod's grace period, and waits for it before it
    /// returns.
    pub(crate) fn post_start_failure_kill(&self, index: usize) -> Option<KillPlan> {
        let container = self.containers.get(index)?;
        let (grace, source) = self.spec_grace();
        Some(KillPlan::new(grace, source, container.pre_stop.as_ref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lifecycle::{HandlerKind, HookDuration};
    use crate::model::path::FieldPath;

    fn hook(handler: HandlerKind, duration: HookDuration) -> Hook {
        Hook {
            path: FieldPath::default(),
            handler,
            duration,
            only_sleeps: handler == HandlerKind::Sleep,
            fails: None,
        }
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
    fn a_hook_longer_than_the_period_leaves_the_two_second_floor() {
        let sleep = hook(HandlerKind::Sleep, HookDuration::Exactly(45));
        let plan = KillPlan::new(30, GraceSource::Spec, Some(&sleep));
        assert_eq!(plan.sigterm, Bounds::exact(30.0));
        assert_eq!(plan.window, Bounds::exact(2.0));
        assert_eq!(plan.sigkill, Bounds::exact(32.0));
        assert!(plan.prestop_cut_off);
        assert_eq!(plan.duration(), Bounds::new(30.0, 32.0));
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
        let mut tcp = hook(HandlerKind::TcpSocket, HookDuration::Unknown);
        tcp.fails = Some(crate::lifecycle::HookFailure::NoTcpHandler);
        let plan = KillPlan::new(30, GraceSource::Spec, Some(&tcp));
        assert_eq!(plan.window, Bounds::exact(30.0));
    }
}
