//! A StatefulSet's rollout (kubernetes/kubernetes `pkg/controller/statefulset/`).
//!
//! - Defaults (`pkg/apis/apps/v1/defaults.go`, `SetDefaults_StatefulSet`): 1 replica,
//!   `podManagementPolicy: OrderedReady`, `updateStrategy: RollingUpdate` with `partition: 0`.
//! - `OrderedReady` (`stateful_set_control.go`, `processReplica` with `monotonic`): ordinals
//!   are created in ascending order, one per sync; the controller waits while a pod is
//!   terminating, not Running and Ready, or not available for `minReadySeconds`. `Parallel`
//!   creates them all at once.
//! - `RollingUpdate` (`updateStatefulSet`): the pod with the highest ordinal at or above
//!   `partition` that is not of the new revision is deleted; the controller waits until it is
//!   gone, created again and available (`isUnavailable`: not available for `minReadySeconds`, or
//!   terminating) before it deletes the next, under `Parallel` as under `OrderedReady` (since
//!   1.34, kubernetes/kubernetes#130909). With `MaxUnavailableStatefulSet`
//!   (`updateStatefulSetAfterInvariantEstablished`), up to `maxUnavailable` pods are deleted at
//!   once (`getStatefulSetMaxUnavailable`: a percentage rounded down, at least 1); under
//!   `OrderedReady` they are still created again one at a time, in order.
//! - `OnDelete`: the controller replaces nothing; a pod gets the new template when someone
//!   deletes it.

use podcycle_k8s::k8s_openapi::api::apps::v1::StatefulSetSpec;

use super::{PodTimes, Replicas, rounds, times};
use crate::lifecycle::time::{Bounds, seconds};
use crate::model::IntOrString;
use crate::model::amount::statefulset_max_unavailable;
use crate::versions::{KubeVersion, MAX_UNAVAILABLE_STATEFULSET};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PodManagement {
    OrderedReady,
    Parallel,
    /// A value the API server rejects.
    Invalid,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StatefulSetUpdate {
    RollingUpdate {
        partition: i32,
        /// `maxUnavailable` as written, when the target version keeps it.
        max_unavailable: Option<IntOrString>,
        /// Pods deleted at once: `maxUnavailable` resolved, or 1 where the version drops it.
        batch: i32,
    },
    OnDelete,
    /// A type or a value the API server rejects.
    Invalid,
}

/// A StatefulSet's rollout.
#[derive(Clone, Debug)]
pub struct StatefulSetPlan {
    pub replicas: Replicas,
    pub(crate) policy: PodManagement,
    pub update: StatefulSetUpdate,
    pub(crate) min_ready_seconds: i32,
    /// From a pod's creation until it is available: Ready, then `minReadySeconds`.
    pub(crate) available_after: Bounds,
    /// From the first pod's creation until every ordinal is available, when the StatefulSet is
    /// created (or scaled up from none).
    pub(crate) create: Bounds,
    /// Ordinals the rolling update replaces: those at or above `partition`.
    pub(crate) updated: i32,
    /// From the start of a rolling update until every replaced ordinal is available; `None`
    /// for `OnDelete`.
    pub(crate) update_time: Option<Bounds>,
}

impl StatefulSetPlan {
    pub(crate) fn new(
        spec: &StatefulSetSpec,
        replicas: Replicas,
        pod: &PodTimes,
        kube: KubeVersion,
    ) -> StatefulSetPlan {
        let count = replicas.count;
        let policy = match spec.pod_management_policy.as_deref() {
            None | Some("OrderedReady") => PodManagement::OrderedReady,
            Some("Parallel") => PodManagement::Parallel,
            Some(_) => PodManagement::Invalid,
        };
        let strategy = spec.update_strategy.as_ref();
        let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
        let gate = MAX_UNAVAILABLE_STATEFULSET.enabled(kube);
        let update = match strategy.and_then(|s| s.type_.as_deref()) {
            None | Some("RollingUpdate") => {
                let partition = rolling.and_then(|r| r.partition).unwrap_or(0);
                let written = rolling
                    .and_then(|r| r.max_unavailable.as_ref())
                    .filter(|_| gate);
                match statefulset_max_unavailable(written, count) {
                    Some(batch) if partition >= 0 => StatefulSetUpdate::RollingUpdate {
                        partition,
                        max_unavailable: written.cloned(),
                        batch: if gate { batch } else { 1 },
                    },
                    _ => StatefulSetUpdate::Invalid,
                }
            }
            Some("OnDelete") if rolling.is_none() => StatefulSetUpdate::OnDelete,
            Some(_) => StatefulSetUpdate::Invalid,
        };
        let min_ready_seconds = spec.min_ready_seconds.unwrap_or(0);
        let available_after = pod
            .ready_bounds()
            .plus(Bounds::exact(seconds(i64::from(min_ready_seconds.max(0)))));
        let n = i64::from(count);
        let create = match policy {
            PodManagement::OrderedReady => times(n, available_after),
            PodManagement::Parallel if count > 0 => available_after,
            _ => Bounds::ZERO,
        };
        let (updated, update_time) = match &update {
            StatefulSetUpdate::RollingUpdate {
                partition, batch, ..
            } => {
                let updated = (count - partition).max(0);
                let replaced = pod.termination.plus(available_after);
                let rounds = rounds(i64::from(updated), i64::from(*batch));
                let time = match (gate, policy) {
                    // Deleted `batch` at a time, created again one by one in order.
                    (true, PodManagement::OrderedReady) => times(rounds, pod.termination)
                        .plus(times(i64::from(updated), available_after)),
                    (true, _) => times(rounds, replaced),
                    (false, _) => times(i64::from(updated), replaced),
                };
                (updated, Some(time))
            }
            _ => (0, None),
        };
        StatefulSetPlan {
            replicas,
            policy,
            update,
            min_ready_seconds,
            available_after,
            create,
            updated,
            update_time,
        }
    }

    /// When ordinal `index` is available after the StatefulSet is created: under
    /// `OrderedReady` each waits for the one before it.
    pub(crate) fn ordinal_available(&self, index: i32) -> Bounds {
        match self.policy {
            PodManagement::OrderedReady => times(i64::from(index) + 1, self.available_after),
            _ => self.available_after,
        }
    }
}
