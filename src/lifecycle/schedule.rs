//! The earliest moment each container can start, run, pass its startup probe and become
//! Ready, counted from when the pod's sandbox is ready. Only what the manifest makes certain
//! is counted: image pulls, the run time of init containers, hooks of unknown length and the
//! kubelet's own latency add to every time, so each one is a lower bound.
//!
//! The order comes from [`Lifecycle::containers`] and their gates; the rest from the kubelet:
//! - `startContainer` runs the postStart hook before it returns, and app containers start one
//!   after another in one sync, so a hook delays every later start
//!   (`kuberuntime_container.go`, `kuberuntime_manager.go` `SyncPod`);
//! - probes run only once the status manager reports the container running, which happens
//!   after the sync that started it — for app containers, after the whole start loop
//!   (`prober/worker.go` `doProbe`; the status is refreshed at the start of each sync);
//! - a probe's `initialDelaySeconds` counts from the container's start, and liveness and
//!   readiness wait for the startup probe (`doProbe`); a container without a readiness probe
//!   is Ready once started (`prober_manager.go` `UpdatePodStatus`).

use super::budget::Bounds;
use super::{GateEvent, Lifecycle, Role};

/// The earliest times of one container, in seconds from when the pod's sandbox is ready.
/// `f64::INFINITY` means never (a hook before it never returns).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StartTimes {
    /// The container is started (its image pulled, its process running).
    pub start: f64,
    /// Its postStart hook has returned (`start` without a hook).
    pub post_start_end: f64,
    /// The kubelet reports it running: its postStart returned, and for app containers every
    /// app container has started.
    pub running: f64,
    /// It counts as started: running, and its startup probe passed.
    pub started: f64,
    /// The first probe of each kind runs.
    pub first_startup_probe: Option<f64>,
    pub first_readiness_probe: Option<f64>,
    pub first_liveness_probe: Option<f64>,
    /// It is Ready (`None` for classic init containers, which are never Ready).
    pub ready: Option<f64>,
}

/// The earliest times of every container, in [`Lifecycle::containers`] order.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    pub containers: Vec<StartTimes>,
    /// The pod is Ready: every app container and sidecar is (readiness gates aside).
    pub pod_ready: Option<f64>,
}

impl Lifecycle<'_> {
    /// The earliest start, running, started and Ready times of every container.
    pub fn schedule(&self) -> Schedule {
        self.schedule_assuming(0.0)
    }

    /// The same times with every wait of unknown length — an init container's run, a hook
    /// whose length nothing tells, a startup probe without an initial delay — assumed to take
    /// `unknown` seconds. With 0 these are the earliest times; charts use a visible length
    /// to show the order.
    pub fn schedule_assuming(&self, unknown: f64) -> Schedule {
        // Start times follow the gates: the previous init container's completion, the previous
        // sidecar's startup, an app container's postStart.
        let mut starts = Vec::with_capacity(self.containers.len());
        let mut sidecar_started = Vec::with_capacity(self.containers.len());
        for (index, container) in self.containers.iter().enumerate() {
            let start = match container.waits_for {
                None if index == 0 => 0.0,
                None => starts[index - 1],
                Some(gate) => match gate.event {
                    GateEvent::Completion => starts[gate.container] + unknown,
                    GateEvent::Started => sidecar_started[gate.container],
                    GateEvent::PostStart => {
                        starts[gate.container] + self.post_start_time(gate.container, unknown)
                    }
                },
            };
            starts.push(start);
            sidecar_started.push(self.running_and_started(index, start, start, unknown).1);
        }
        // App containers are reported running once the start loop is over: after the last
        // one's postStart.
        let loop_end = self
            .containers
            .iter()
            .enumerate()
            .filter(|(_, c)| c.role == Role::App)
            .map(|(i, _)| starts[i] + self.post_start_time(i, unknown))
            .reduce(f64::max);
        let containers: Vec<StartTimes> = self
            .containers
            .iter()
            .enumerate()
            .map(|(index, container)| {
                let start = starts[index];
                let post_start_end = start + self.post_start_time(index, unknown);
                if container.role == Role::Init {
                    return StartTimes {
                        start,
                        post_start_end,
                        running: start,
                        started: start,
                        first_startup_probe: None,
                        first_readiness_probe: None,
                        first_liveness_probe: None,
                        ready: None,
                    };
                }
                let floor = match (container.role, loop_end) {
                    (Role::App, Some(end)) => end,
                    _ => start,
                };
                let (running, started) = self.running_and_started(index, start, floor, unknown);
                let probes = &container.probes;
                let after_start = |delay: f64| started.max(start + delay);
                let first_readiness_probe =
                    probes.readiness.map(|p| after_start(p.initial_delay()));
                StartTimes {
                    start,
                    post_start_end,
                    running,
                    started,
                    first_startup_probe: probes
                        .startup
                        .map(|p| running.max(start + p.initial_delay())),
                    first_readiness_probe,
                    first_liveness_probe: probes.liveness.map(|p| after_start(p.initial_delay())),
                    ready: Some(match (first_readiness_probe, probes.readiness) {
                        (Some(first), Some(p)) => first + p.success_after(),
                        _ => started,
                    }),
                }
            })
            .collect();
        let pod_ready = containers.iter().filter_map(|t| t.ready).reduce(f64::max);
        Schedule {
            containers,
            pod_ready,
        }
    }

    /// The postStart hook's time, for containers whose hooks the kubelet runs: its known
    /// least length, or `unknown` when nothing is known.
    fn post_start_time(&self, index: usize, unknown: f64) -> f64 {
        let container = &self.containers[index];
        let bounds = match &container.post_start {
            Some(hook) if container.role != Role::Init => hook.bounds(),
            _ => Bounds::ZERO,
        };
        if bounds.value().is_none() && bounds.min == 0.0 {
            unknown
        } else {
            bounds.min
        }
    }

    /// Earliest (running, started) for a container started at `start` whose status cannot be
    /// seen before `floor`.
    fn running_and_started(
        &self,
        index: usize,
        start: f64,
        floor: f64,
        unknown: f64,
    ) -> (f64, f64) {
        let container = &self.containers[index];
        if container.role == Role::Init {
            return (start, start);
        }
        let running = (start + self.post_start_time(index, unknown)).max(floor);
        let started = match container.probes.startup {
            Some(probe) if probe.initial_delay() > 0.0 => {
                running.max(start + probe.initial_delay())
            }
            Some(_) => running + unknown,
            None => running,
        };
        (running, started)
    }
}

#[cfg(test)]
mod tests {
    use crate::lifecycle::Lifecycle;
    use crate::lifecycle::tests::pod;

    #[test]
    fn a_post_start_sleep_holds_back_later_containers_and_every_app_status() {
        let (object, spec) = pod(r#"{"containers": [
                {"name": "a", "readinessProbe": {"exec": {"command": ["true"]}}},
                {"name": "b", "lifecycle": {"postStart": {"sleep": {"seconds": 5}}}},
                {"name": "c"}]}"#);
        let site =
            crate::model::PodSite::new(&object, crate::model::WorkloadKind::Pod, &spec, false);
        let schedule = Lifecycle::derive(&site, &crate::lifecycle::Sidecars::default()).schedule();
        let starts: Vec<f64> = schedule.containers.iter().map(|t| t.start).collect();
        assert_eq!(starts, [0.0, 0.0, 5.0]);
        // `a` has no hook, but its status shows only after the start loop.
        assert_eq!(schedule.containers[0].running, 5.0);
        assert_eq!(schedule.containers[0].ready, Some(5.0));
        assert_eq!(schedule.pod_ready, Some(5.0));
    }

    #[test]
    fn a_sidecar_gates_the_next_container_by_its_startup_probe() {
        let (object, spec) = pod(r#"{"initContainers": [
                {"name": "init"},
                {"name": "proxy", "restartPolicy": "Always",
                 "startupProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 10},
                 "readinessProbe": {"tcpSocket": {"port": 80}, "initialDelaySeconds": 15, "successThreshold": 2, "periodSeconds": 5}}],
              "containers": [{"name": "app"}]}"#);
        let site =
            crate::model::PodSite::new(&object, crate::model::WorkloadKind::Pod, &spec, false);
        let schedule = Lifecycle::derive(&site, &crate::lifecycle::Sidecars::default()).schedule();
        let proxy = schedule.containers[1];
        assert_eq!(proxy.started, 10.0);
        assert_eq!(proxy.first_readiness_probe, Some(15.0));
        assert_eq!(proxy.ready, Some(20.0));
        assert_eq!(schedule.containers[2].start, 10.0);
        assert_eq!(schedule.containers[0].ready, None);
        assert_eq!(schedule.pod_ready, Some(20.0));
    }

    #[test]
    fn a_hook_that_never_returns_means_never() {
        let (object, spec) = pod(r#"{"containers": [
                {"name": "a", "lifecycle": {"postStart": {"exec": {"command": ["sleep", "infinity"]}}}},
                {"name": "b"}]}"#);
        let site =
            crate::model::PodSite::new(&object, crate::model::WorkloadKind::Pod, &spec, false);
        let schedule = Lifecycle::derive(&site, &crate::lifecycle::Sidecars::default()).schedule();
        assert!(schedule.containers[1].start.is_infinite());
        assert!(schedule.pod_ready.is_some_and(f64::is_infinite));
    }
}
