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

use super::kill::{GraceSource, KillPlan, seconds};
use super::time::Bounds;
use super::{GracePeriod, Lifecycle, Role};

/// What a container waits for before it gets the stop signal: for a sidecar, every app
/// container and the sidecar declared after it (`newTerminationOrdering`). Kept as a count and
/// one index, so that a pod with many sidecars and app containers stays linear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StopWaits {
    /// How many app containers it waits for: all of them, or none.
    pub(crate) app_containers: usize,
    /// The sidecar declared after it, which stops first.
    pub(crate) sidecar: Option<usize>,
}

impl StopWaits {}

/// One container's part in the pod's shutdown.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ContainerStop {
    /// Index into [`Lifecycle::containers`].
    pub(crate) index: usize,
    /// 0 for app containers, then 1, 2, ... for sidecars from the last declared.
    pub(crate) stop_order: usize,
    /// The containers that must exit before this one gets the stop signal.
    pub(crate) waits_for: StopWaits,
    /// Times from T0, the moment the kubelet starts the kill.
    pub(crate) kill: KillPlan,
}

/// The pod's shutdown on deletion.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ShutdownPlan {
    /// The grace period the spec asks for (or the default).
    pub(crate) grace_period: GracePeriod,
    /// Whether the spec sets it.
    pub(crate) grace_source: GraceSource,
    /// The grace period the kubelet uses: at least 1 s.
    pub(crate) effective_grace_seconds: i64,
    /// Every container has had SIGKILL by then (seconds after T0): the latest SIGKILL of any
    /// container, never more than the grace period plus the 2 s the kubelet always allows
    /// after the stop signal; 0 without running containers.
    pub(crate) all_killed_by: f64,
    /// Containers running at T0 — app containers and sidecars; classic init containers have
    /// exited — in stop order, then spec order.
    pub(crate) containers: Vec<ContainerStop>,
}

impl ShutdownPlan {}

impl Lifecycle<'_> {
    /// The pod's shutdown on deletion, computed once: the grace period the pod worker uses
    /// (`calculateEffectiveGracePeriod`: the pod's, never below 1 s), every container's kill
    /// from T0 (`killContainersWithSyncResult` kills them all at once, each with
    /// `killContainer`), and the sidecars' turns (`newTerminationOrdering`, `waitForTurn`).
    pub(crate) fn shutdown(&self) -> &ShutdownPlan {
        self.shutdown.get_or_init(|| self.plan_stop(true, None))
    }

    /// The shutdown when a platform stops the pod with at most `cap` seconds: the kubelet
    /// kills it with the shorter of its own grace period and the platform's
    /// (`pkg/kubelet/nodeshutdown/nodeshutdown_manager_linux.go`, `killPods`:
    /// `gracePeriodOverride`), the same kill as a deletion otherwise.
    pub(crate) fn shutdown_within(&self, cap: i64) -> ShutdownPlan {
        self.plan_stop(true, Some(cap))
    }

    /// The end of a pod whose app containers have all exited and will not be restarted (a
    /// Job's pod that has done its work): the kubelet kills the pod
    /// (`kuberuntime_manager.go`, `computePodActions`: nothing to keep and nothing to start
    /// means `KillPod`, and "to prevent the restartable init containers to keep pod alive"
    /// none is restarted), so the sidecars stop one at a time in reverse order, each after its
    /// preStop hook, with the pod's grace period — the same kill as a deletion, with the app
    /// containers gone already.
    pub(crate) fn completion(&self) -> &ShutdownPlan {
        self.completion.get_or_init(|| self.plan_stop(false, None))
    }

    /// The stop of every running container: app containers (when `apps_running`) and sidecars,
    /// with the grace period cut to `cap` when one is given.
    fn plan_stop(&self, apps_running: bool, cap: Option<i64>) -> ShutdownPlan {
        let grace = self.grace_period;
        let effective = grace.seconds.max(1).min(cap.unwrap_or(i64::MAX));
        let source = if grace.explicit {
            GraceSource::Spec
        } else {
            GraceSource::Default
        };
        let hook_kill = |index: usize| {
            KillPlan::new(effective, source, self.containers[index].pre_stop.as_ref())
        };
        let apps: Vec<usize> = (0..self.containers.len())
            .filter(|&i| apps_running && self.containers[i].role == Role::App)
            .collect();
        let mut stops: Vec<ContainerStop> = apps
            .iter()
            .map(|&index| ContainerStop {
                index,
                stop_order: 0,
                waits_for: StopWaits::default(),
                kill: hook_kill(index),
            })
            .collect();
        // Sidecars from the last: each waits for every app container and the sidecar after
        // it. An app container exits no earlier than its stop signal; the wait ends at the
        // grace period at the latest.
        let apps_exit = stops.iter().fold(Bounds::ZERO, |all, stop| {
            all.later(Bounds::new(stop.kill.sigterm.min, stop.kill.sigkill.max))
        });
        let mut later: Option<(usize, Bounds)> = None;
        let grace_f = seconds(effective);
        let mut sidecars = Vec::new();
        let mut stop_order = 0;
        for index in (0..self.containers.len()).rev() {
            if self.containers[index].role != Role::Sidecar {
                continue;
            }
            stop_order += 1;
            let own = hook_kill(index);
            let mut before = apps_exit;
            let mut waits_for = StopWaits {
                app_containers: apps.len(),
                sidecar: None,
            };
            if let Some((next, next_exit)) = later {
                before = before.later(next_exit);
                waits_for.sidecar = Some(next);
            }
            let turn = own.prestop.later(before).map(|t| t.min(grace_f));
            let kill = own.signal_at(turn);
            later = Some((index, Bounds::new(kill.sigterm.min, kill.sigkill.max)));
            sidecars.push(ContainerStop {
                index,
                stop_order,
                waits_for,
                kill,
            });
        }
        stops.extend(sidecars);
        let all_killed_by = stops
            .iter()
            .map(|stop| stop.kill.sigkill.max)
            .fold(0.0, f64::max);
        ShutdownPlan {
            grace_period: grace,
            grace_source: source,
            effective_grace_seconds: effective,
            all_killed_by,
            containers: stops,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::StopWaits;
    use crate::lifecycle::tests::with_life;
    use crate::lifecycle::{Bounds, GraceSource, ProbeKind};

    #[test]
    fn sidecars_stop_after_the_app_in_reverse_order() {
        with_life(
            r#"{"terminationGracePeriodSeconds": 30, "initContainers": [
                {"name": "init"},
                {"name": "log", "restartPolicy": "Always"},
                {"name": "proxy", "restartPolicy": "Always"}],
              "containers": [{"name": "app", "lifecycle": {"preStop": {"sleep": {"seconds": 10}}}}]}"#,
            |life| {
                let plan = life.shutdown();
                let order: Vec<(&str, usize)> = plan
                    .containers
                    .iter()
                    .map(|s| (life.containers[s.index].name, s.stop_order))
                    .collect();
                assert_eq!(order, [("app", 0), ("proxy", 1), ("log", 2)]);
                assert_eq!(plan.all_killed_by, 32.0);
                let app = &plan.containers[0].kill;
                assert_eq!(app.window, Bounds::exact(20.0));
                // The proxy waits for the app, which gets its signal at 10 s at the earliest.
                let proxy = &plan.containers[1];
                assert_eq!(
                    proxy.waits_for,
                    StopWaits {
                        app_containers: 1,
                        sidecar: None
                    }
                );
                assert_eq!(proxy.kill.sigterm, Bounds::new(10.0, 30.0));
                assert_eq!(proxy.kill.window, Bounds::new(2.0, 20.0));
                assert_eq!(
                    plan.containers[2].waits_for,
                    StopWaits {
                        app_containers: 1,
                        sidecar: Some(2)
                    }
                );
            },
        );
    }

    #[test]
    fn on_completion_only_the_sidecars_stop() {
        with_life(
            r#"{"terminationGracePeriodSeconds": 30, "initContainers": [
                {"name": "log", "restartPolicy": "Always", "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}},
                {"name": "proxy", "restartPolicy": "Always"}],
              "containers": [{"name": "work", "lifecycle": {"preStop": {"sleep": {"seconds": 20}}}}]}"#,
            |life| {
                let plan = life.completion();
                let order: Vec<&str> = plan
                    .containers
                    .iter()
                    .map(|s| life.containers[s.index].name)
                    .collect();
                assert_eq!(order, ["proxy", "log"]);
                // The proxy stops at once; the log shipper after its own hook and the proxy.
                assert_eq!(plan.containers[0].kill.sigterm, Bounds::exact(0.0));
                assert_eq!(plan.containers[1].kill.sigterm, Bounds::new(5.0, 30.0));
                assert_eq!(plan.containers[1].waits_for.app_containers, 0);
            },
        );
    }

    #[test]
    fn every_container_is_killed_by_its_latest_sigkill() {
        with_life(r#"{"containers": [{"name": "app"}]}"#, |life| {
            assert_eq!(life.shutdown().all_killed_by, 30.0);
        });
        with_life(r#"{"containers": []}"#, |life| {
            assert_eq!(life.shutdown().all_killed_by, 0.0);
        });
    }

    #[test]
    fn zero_grace_still_gets_a_second_and_the_floor() {
        with_life(
            r#"{"terminationGracePeriodSeconds": 0,
              "containers": [{"name": "app", "lifecycle": {"preStop": {"sleep": {"seconds": 5}}}}]}"#,
            |life| {
                let plan = life.shutdown();
                assert_eq!(plan.effective_grace_seconds, 1);
                assert_eq!(plan.all_killed_by, 3.0);
                let kill = &plan.containers[0].kill;
                assert_eq!(kill.sigterm, Bounds::exact(1.0));
                assert_eq!(kill.window, Bounds::exact(2.0));
                assert!(kill.prestop_cut_off);
            },
        );
    }

    #[test]
    fn probe_kills_use_the_probe_grace_period() {
        with_life(
            r#"{"containers": [{"name": "app",
                "lifecycle": {"preStop": {"sleep": {"seconds": 10}}},
                "livenessProbe": {"exec": {"command": ["true"]}, "terminationGracePeriodSeconds": 5}}]}"#,
            |life| {
                let kill = life.probe_kill(0, ProbeKind::Liveness).unwrap();
                assert_eq!(kill.grace_source, GraceSource::Probe);
                assert_eq!(kill.sigterm, Bounds::exact(5.0));
                assert_eq!(kill.sigkill, Bounds::exact(7.0));
            },
        );
    }
}
