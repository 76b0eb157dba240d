//! What happens to each container when the pod is deleted, and the kills probes cause.
//!
//! - The grace period is the pod's `terminationGracePeriodSeconds` (default 30); the kubelet
//!   never uses less than 1 s for a deletion (`pkg/kubelet/pod_workers.go`,
//!   `calculateEffectiveGracePeriod`), and the API server removes a pod with 0 at once
//!   (`pkg/registry/core/pod/strategy.go`, `CheckGracefulDelete`).
//! - Every running container starts its kill at the same moment T0, so every preStop hook —
//!   sidecars' included — runs at once (`kuberuntime_container.go`, `killContainer`).
//! - App containers get the stop signal when their hook returns. A sidecar waits, after its
//!   hook, until every app container and the sidecar declared after it have exited: sidecars
//!   stop one at a time in reverse order, with whatever is left of the same grace period
//!   (`kuberuntime_termination_order.go`, `newTerminationOrdering`).
//! - Nothing gets less than 2 s between the stop signal and SIGKILL, so every container is
//!   gone by T0 + grace + 2 s (`minimumGracePeriodInSeconds`).

use super::budget::{Bounds, GraceSource, KillPlan, seconds};
use super::{GracePeriod, Lifecycle, MINIMUM_STOP_WINDOW_SECONDS, ProbeTiming, Role};

/// One container's part in the pod's shutdown.
#[derive(Clone, Debug, PartialEq)]
pub struct ContainerStop {
    /// Index into [`Lifecycle::containers`].
    pub index: usize,
    /// 0 for app containers, then 1, 2, ... for sidecars from the last declared.
    pub stop_order: usize,
    /// The containers that must exit before this one gets the stop signal.
    pub waits_for: Vec<usize>,
    /// Times from T0, the moment the kubelet starts the kill.
    pub kill: KillPlan,
}

/// The pod's shutdown on deletion.
#[derive(Clone, Debug, PartialEq)]
pub struct ShutdownPlan {
    /// The grace period the spec asks for (or the default).
    pub grace_period: GracePeriod,
    /// Whether the spec sets it.
    pub grace_source: GraceSource,
    /// The grace period the kubelet uses: at least 1 s.
    pub effective_grace_seconds: i64,
    /// Every container is killed by then (seconds after T0): the grace period plus the 2 s
    /// the kubelet always allows after the stop signal.
    pub hard_bound_seconds: i64,
    /// Containers running at T0 — app containers and sidecars; classic init containers have
    /// exited — in stop order, then spec order.
    pub containers: Vec<ContainerStop>,
}

impl Lifecycle<'_> {
    /// The pod's shutdown on deletion.
    pub fn shutdown(&self) -> ShutdownPlan {
        let grace = self.grace_period;
        let effective = grace.seconds.max(1);
        let source = if grace.explicit {
            GraceSource::Spec
        } else {
            GraceSource::Default
        };
        let hook_kill = |index: usize| {
            KillPlan::new(effective, source, self.containers[index].pre_stop.as_ref())
        };
        let apps: Vec<usize> = (0..self.containers.len())
            .filter(|&i| self.containers[i].role == Role::App)
            .collect();
        let mut stops: Vec<ContainerStop> = apps
            .iter()
            .map(|&index| ContainerStop {
                index,
                stop_order: 0,
                waits_for: Vec::new(),
                kill: hook_kill(index),
            })
            .collect();
        // Sidecars from the last: each waits for every app container and the sidecar after
        // it. An app container exits no earlier than its stop signal; the wait ends at the
        // grace period at the latest.
        let apps_exit = stops.iter().fold(Bounds::ZERO, |all, stop| {
            Bounds::new(
                all.min.max(stop.kill.sigterm.min),
                all.max.max(stop.kill.sigkill.max),
            )
        });
        let mut later: Option<(usize, Bounds)> = None;
        let grace_f = seconds(effective);
        let mut sidecars = Vec::new();
        for index in (0..self.containers.len()).rev() {
            if self.containers[index].role != Role::Sidecar {
                continue;
            }
            let own = hook_kill(index);
            let mut before = apps_exit;
            let mut waits_for = apps.clone();
            if let Some((next, next_exit)) = later {
                before = Bounds::new(before.min.max(next_exit.min), before.max.max(next_exit.max));
                waits_for.push(next);
            }
            let turn = Bounds::new(
                own.prestop.min.max(before.min).min(grace_f),
                own.prestop.max.max(before.max).min(grace_f),
            );
            let kill = own.signal_at(turn);
            later = Some((index, Bounds::new(kill.sigterm.min, kill.sigkill.max)));
            sidecars.push(ContainerStop {
                index,
                stop_order: self.stop_order(index).unwrap_or_default(),
                waits_for,
                kill,
            });
        }
        stops.extend(sidecars);
        ShutdownPlan {
            grace_period: grace,
            grace_source: source,
            effective_grace_seconds: effective,
            hard_bound_seconds: effective.saturating_add(MINIMUM_STOP_WINDOW_SECONDS),
            containers: stops,
        }
    }

    /// The kill a failing liveness or startup probe causes: with the probe's own
    /// `terminationGracePeriodSeconds` if it sets one, else the pod's (no 1 s minimum here:
    /// with 0 the preStop hook does not run).
    pub fn probe_kill(&self, index: usize, probe: &ProbeTiming) -> KillPlan {
        let (grace, source) = match probe.termination_grace_period_seconds {
            Some(seconds) => (seconds, GraceSource::Probe),
            None if self.grace_period.explicit => (self.grace_period.seconds, GraceSource::Spec),
            None => (self.grace_period.seconds, GraceSource::Default),
        };
        let pre_stop = self.containers.get(index).and_then(|c| c.pre_stop.as_ref());
        KillPlan::new(grace, source, pre_stop)
    }
}

#[cfg(test)]
mod tests {
    use crate::lifecycle::Lifecycle;
    use crate::lifecycle::budget::{Bounds, GraceSource};
    use crate::lifecycle::tests::pod;
    use crate::model::{PodSite, WorkloadKind};

    #[test]
    fn sidecars_stop_after_the_app_in_reverse_order() {
        let (object, spec) = pod(r#"{"terminationGracePeriodSeconds": 30, "initContainers": [
                {"name": "init"},
                {"name": "log", "restartPolicy": "Always"},
                {"name": "proxy", "restartPolicy": "Always"}],
              "containers": [{"name": "app", "lifecycle": {"preStop": {"sleep": {"seconds": 10}}}}]}"#);
        let site = PodSite::new(&object, WorkloadKind::Pod, &spec, false);
        let sidecars = crate::lifecycle::Sidecars::default();
        let life = Lifecycle::derive(&site, &sidecars);
        let plan = life.shutdown();
        let order: Vec<(&str, usize)> = plan
            .containers
            .iter()
            .map(|s| (life.containers[s.index].name, s.stop_order))
            .collect();
        assert_eq!(order, [("app", 0), ("proxy", 1), ("log", 2)]);
        assert_eq!(plan.hard_bound_seconds, 32);
        let app = &plan.containers[0].kill;
        assert_eq!(app.window, Bounds::exact(20.0));
        // The proxy waits for the app, which gets its signal at 10 s at the earliest.
        let proxy = &plan.containers[1];
        assert_eq!(proxy.waits_for, [3]);
        assert_eq!(proxy.kill.sigterm, Bounds::new(10.0, 30.0));
        assert_eq!(proxy.kill.window, Bounds::new(2.0, 20.0));
        assert_eq!(plan.containers[2].waits_for, [3, 2]);
    }

    #[test]
    fn zero_grace_still_gets_a_second_and_the_floor() {
        let (object, spec) = pod(r#"{"terminationGracePeriodSeconds": 0,
              "containers": [{"name": "app", "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}]}"#);
        let site = PodSite::new(&object, WorkloadKind::Pod, &spec, false);
        let sidecars = crate::lifecycle::Sidecars::default();
        let life = Lifecycle::derive(&site, &sidecars);
        let plan = life.shutdown();
        assert_eq!(plan.effective_grace_seconds, 1);
        assert_eq!(plan.hard_bound_seconds, 3);
        let kill = &plan.containers[0].kill;
        assert_eq!(kill.sigterm, Bounds::exact(1.0));
        assert_eq!(kill.window, Bounds::exact(2.0));
        assert!(kill.prestop_cut_off);
    }

    #[test]
    fn probe_kills_use_the_probe_grace_period() {
        let (object, spec) = pod(r#"{"containers": [{"name": "app",
                "lifecycle": {"preStop": {"sleep": {"seconds": 10}}},
                "livenessProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 5}}]}"#);
        let site = PodSite::new(&object, WorkloadKind::Pod, &spec, false);
        let sidecars = crate::lifecycle::Sidecars::default();
        let life = Lifecycle::derive(&site, &sidecars);
        let probe = life.containers[0].probes.liveness.unwrap();
        let kill = life.probe_kill(0, &probe);
        assert_eq!(kill.grace_source, GraceSource::Probe);
        assert_eq!(kill.sigterm, Bounds::exact(5.0));
        assert_eq!(kill.sigkill, Bounds::exact(7.0));
    }
}
