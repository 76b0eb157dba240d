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

use podcycle_k8s::k8s_openapi::api::apps::v1::DaemonSetSpec;

use super::{PodTimes, rounds, times};
use crate::lifecycle::time::{Bounds, seconds};
use crate::model::IntOrString;
use crate::model::amount::{Amount, daemonset_counts};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DaemonSetStrategy {
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
    pub strategy: DaemonSetStrategy,
    pub min_ready_seconds: i32,
    /// From a pod's start until it is available.
    pub available_after: Bounds,
    /// One round of the rolling update: the nodes it replaces go from old pod to new available
    /// pod.
    pub round: Bounds,
}

impl DaemonSetPlan {
    pub fn new(spec: &DaemonSetSpec, pod: &PodTimes) -> DaemonSetPlan {
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
        let round = if surging {
            available_after
        } else {
            pod.termination.plus(available_after)
        };
        DaemonSetPlan {
            strategy,
            min_ready_seconds,
            available_after,
            round,
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
    pub fn per_round(&self, nodes: i32) -> Option<(i32, bool)> {
        let (surge, unavailable) = self.counts(nodes)?;
        Some(if surge > 0 {
            (surge, true)
        } else {
            (unavailable.max(1), false)
        })
    }

    /// From the start of a rolling update until the new pod is available on all `nodes`.
    pub fn update_time(&self, nodes: i32) -> Option<Bounds> {
        let (per_round, _) = self.per_round(nodes)?;
        let rounds = rounds(i64::from(nodes), i64::from(per_round));
        Some(times(rounds, self.round))
    }
}
