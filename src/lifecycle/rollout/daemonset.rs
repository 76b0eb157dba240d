//! A DaemonSet's rollout (kubernetes/kubernetes `pkg/controller/daemon/update.go`,
//! `rollingUpdate`). Its pods are one per node, so the counts depend on the number of nodes `N`
//! that should run it, which the manifest does not tell.
//!
//! - Defaults (`pkg/apis/apps/v1/defaults.go`, `SetDefaults_DaemonSet`): `RollingUpdate` with
//!   `maxUnavailable: 1` and `maxSurge: 0`.
//! - Both are counted against `N`, percentages rounded up (`util.SurgeCount`,
//!   `util.UnavailableCount`); both 0 means 1 unavailable (`updatedDesiredNodeCounts`).
//! - Without surge, the controller deletes old pods on up to `maxUnavailable` nodes and
//!   creates the new one when the old is gone: each round is the old pod's shutdown, then the
//!   new pod's startup and `minReadySeconds`. With surge, the new pod starts beside the old on
//!   up to `maxSurge` nodes, and the old one is deleted once the new one is available: each
//!   round is the new pod's startup and `minReadySeconds`.
//! - A surge pod that needs a host port its old pod holds cannot be scheduled on that node (the
//!   scheduler's `NodePorts` filter, `pkg/scheduler/util/utils.go` `GetHostPorts`: app
//!   containers and sidecars), and the old pod is deleted only once the new one is available:
//!   the rolling update never gets past its first round (kubernetes/kubernetes#106417).

use podcycle_k8s::k8s_openapi::api::apps::v1::DaemonSetSpec;

use super::{PodTimes, rounds, times};
use crate::lifecycle::time::{Bounds, seconds};
use crate::lifecycle::{Lifecycle, Role};
use crate::model::IntOrString;
use crate::model::amount::{Amount, daemonset_counts};
use crate::model::path::FieldPath;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DaemonSetStrategy {
    RollingUpdate {
        /// As written or defaulted (`0`, `1`, `25%`).
        max_surge: IntOrString,
        max_unavailable: IntOrString,
    },
    OnDelete,
    Invalid,
}

/// A DaemonSet's rollout.
#[derive(Clone, Debug)]
pub struct DaemonSetPlan {
    pub(crate) strategy: DaemonSetStrategy,
    pub(crate) min_ready_seconds: i32,
    /// From a pod's start until it is available.
    pub(crate) available_after: Bounds,
    /// One round of the rolling update: the nodes it replaces go from old pod to new available
    /// pod; never when a surge pod waits for a host port its old pod holds.
    pub(crate) round: Bounds,
    /// With surge, the first host port of the pod: the new pod needs it while the old one
    /// holds it on the same node.
    pub(crate) surge_blocked_by: Option<HostPort>,
}

/// A port a container takes on its node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct HostPort {
    pub(crate) container: String,
    pub(crate) port: i32,
    /// The port's entry in the container's `ports`.
    pub(crate) path: FieldPath,
    /// Set by `hostNetwork: true` rather than written.
    pub(crate) from_host_network: bool,
}

/// The first port a running container (app or sidecar) of the pod takes on its node.
fn host_port(life: &Lifecycle<'_>) -> Option<HostPort> {
    life.containers
        .iter()
        .filter(|c| matches!(c.role, Role::App | Role::Sidecar))
        .find_map(|c| {
            c.container
                .ports
                .iter()
                .flatten()
                .enumerate()
                .find_map(|(index, port)| {
                    let written = port.host_port.filter(|p| *p > 0);
                    let taken = written.or_else(|| {
                        (life.host_network && port.container_port > 0)
                            .then_some(port.container_port)
                    })?;
                    Some(HostPort {
                        container: c.name.to_owned(),
                        port: taken,
                        path: c.path.key("ports").index(index),
                        from_host_network: written.is_none(),
                    })
                })
        })
}

impl DaemonSetPlan {
    pub(crate) fn new(spec: &DaemonSetSpec, pod: &PodTimes, life: &Lifecycle<'_>) -> DaemonSetPlan {
        let strategy = spec.update_strategy.as_ref();
        let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
        let strategy = match strategy.and_then(|s| s.type_.as_deref()) {
            None | Some("RollingUpdate") => DaemonSetStrategy::RollingUpdate {
                max_surge: rolling
                    .and_then(|r| r.max_surge.clone())
                    .unwrap_or(IntOrString::Int(0)),
                max_unavailable: rolling
                    .and_then(|r| r.max_unavailable.clone())
                    .unwrap_or(IntOrString::Int(1)),
            },
            Some("OnDelete") => DaemonSetStrategy::OnDelete,
            Some(_) => DaemonSetStrategy::Invalid,
        };
        let min_ready_seconds = spec.min_ready_seconds.unwrap_or(0);
        let available_after = pod
            .ready_bounds()
            .plus(Bounds::exact(seconds(i64::from(min_ready_seconds.max(0)))));
        let surging = matches!(&strategy, DaemonSetStrategy::RollingUpdate { max_surge, .. }
            if Amount::read(max_surge).is_some_and(|a| a != Amount::Count(0) && a != Amount::Percent(0)));
        let surge_blocked_by = surging.then(|| host_port(life)).flatten();
        let round = if surge_blocked_by.is_some() {
            Bounds::NEVER
        } else if surging {
            available_after
        } else {
            pod.termination.plus(available_after)
        };
        DaemonSetPlan {
            strategy,
            min_ready_seconds,
            available_after,
            round,
            surge_blocked_by,
        }
    }

    /// `maxSurge` and `maxUnavailable` in nodes, for `nodes` nodes; `None` for `OnDelete` or
    /// values no controller reads.
    pub fn counts(&self, nodes: i32) -> Option<(i32, i32)> {
        let DaemonSetStrategy::RollingUpdate {
            max_surge,
            max_unavailable,
        } = &self.strategy
        else {
            return None;
        };
        daemonset_counts(Some(max_surge), Some(max_unavailable), nodes)
    }

    /// How many nodes one round replaces, and whether by surge, for `nodes` nodes.
    pub(crate) fn per_round(&self, nodes: i32) -> Option<(i32, bool)> {
        let (surge, unavailable) = self.counts(nodes)?;
        Some(if surge > 0 {
            (surge, true)
        } else {
            (unavailable.max(1), false)
        })
    }

    /// From the start of a rolling update until the new pod is available on all `nodes`.
    pub(crate) fn update_time(&self, nodes: i32) -> Option<Bounds> {
        let (per_round, _) = self.per_round(nodes)?;
        let rounds = rounds(i64::from(nodes), i64::from(per_round));
        Some(times(rounds, self.round))
    }
}
