//! `podcycle explain --rollout`: what the controller does with a workload's pods — a
//! Deployment's waves, a StatefulSet's ordinals, a DaemonSet's rounds, a Job's attempts and
//! completion — against its deadlines and the disruption budgets over it. Field names are the
//! JSON schema (docs/explain.md); `build.rs` fills them in from the rollout model
//! (`lifecycle::rollout`), and the renderers only format them.

mod build;
pub(super) mod mermaid;
pub(super) mod text;

use std::sync::Arc;

use serde::{Serialize, Serializer};

pub(crate) use build::budget_info;
pub use build::{RolloutSource, explain_rollout};

use super::model::DelayInfo;
use super::units::{Range, Secs};
use crate::model::ObjectRef;
use crate::model::scope::CoveringBudget;

/// The workloads a budget covers, shared with every budget of the same selector, written as
/// `Kind/name`.
#[derive(Debug)]
pub(crate) struct Covers(pub Arc<[ObjectRef]>);

impl Serialize for Covers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(ObjectRef::display_name))
    }
}

/// One workload's rollout explained, with its findings.
#[derive(Debug, Serialize)]
pub struct RolloutExplanation<F> {
    pub(crate) file: String,
    pub(crate) line: usize,
    pub(crate) object: ObjectRef,
    /// The kind whose controller rolls it out.
    pub(crate) kind: &'static str,
    /// The Kubernetes version the rollout is for (`--kube-version`).
    pub(crate) kube_version: String,
    /// kubectl or the API server refuses the object (`findings` say why): nothing of it runs,
    /// so no rollout is shown.
    pub(crate) rejected: bool,
    pub(crate) pod: PodSummary,
    /// `null` for a DaemonSet, a Job or a CronJob, whose pod count the manifest does not set.
    pub(crate) replicas: Option<ReplicasInfo>,
    pub(crate) deployment: Option<DeploymentInfo>,
    /// A ReplicaSet or ReplicationController: it does not replace its pods when its template
    /// changes.
    pub(crate) replica_set: Option<StaticInfo>,
    pub(crate) statefulset: Option<StatefulSetInfo>,
    pub(crate) daemonset: Option<DaemonSetInfo>,
    pub(crate) job: Option<JobInfo>,
    pub(crate) cronjob: Option<CronJobInfo>,
    /// The PodDisruptionBudgets of the same directory, chart or overlay over its pods, by
    /// their `id` in the run's list of budgets (`disruption_budgets` beside `rollouts`): a
    /// budget over many workloads is written once, not once for each.
    pub(crate) disruption_budgets: Vec<String>,
    /// The same budgets, judged, in groups of equal selectors, for the writers.
    #[serde(skip)]
    pub(crate) budget_groups: Vec<Arc<[CoveringBudget]>>,
    /// The findings of `check` in this object, in the shape of `check --format json`.
    pub(crate) findings: Vec<F>,
}

/// The times of one pod that the rollout is made of.
#[derive(Debug, Serialize)]
pub(crate) struct PodSummary {
    /// Earliest time the pod is Ready, from its start; `null` when it never is.
    pub(crate) earliest_ready_seconds: Secs,
    pub(crate) ready_seconds: Range,
    /// What the earliest Ready time adds up.
    pub(crate) ready_delays: Vec<DelayInfo>,
    /// The longest a startup probe lets its container take to start, from the container's
    /// start.
    pub(crate) startup_allowance: Option<Allowance>,
    /// From the pod's deletion until every container has exited.
    pub(crate) termination_seconds: Range,
    /// What the times leave out because the manifest cannot tell.
    pub(crate) not_counted: Vec<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct Allowance {
    pub(crate) container: String,
    pub(crate) seconds: Secs,
}

#[derive(Debug, Serialize)]
pub(crate) struct ReplicasInfo {
    /// The count the rollout is estimated for: `spec.replicas`, 1 by default, or an
    /// autoscaler's `maxReplicas`.
    pub(crate) count: i32,
    /// The fewest it runs with: the same, or the autoscaler's `minReplicas`.
    pub(crate) fewest: i32,
    /// `spec`, `default` or `autoscaler`.
    pub(crate) source: &'static str,
    pub(crate) autoscaler: Option<AutoscalerInfo>,
}

#[derive(Debug, Serialize)]
pub(crate) struct AutoscalerInfo {
    pub(crate) object: ObjectRef,
    pub(crate) min_replicas: i32,
    pub(crate) max_replicas: i32,
}

/// A count of pods as written and resolved.
#[derive(Debug, Serialize)]
pub(crate) struct AmountInfo {
    /// As written, or the default (`25%`, `1`).
    pub(crate) written: String,
    pub(crate) defaulted: bool,
    /// Pods, for `replicas.count`.
    pub(crate) pods: i32,
    /// Pods, for `replicas.fewest`.
    pub(crate) pods_at_fewest: i32,
}

#[derive(Debug, Serialize)]
pub(crate) struct DeploymentInfo {
    /// `RollingUpdate`, `Recreate`, or `invalid` for one the API server rejects.
    pub(crate) strategy: &'static str,
    pub(crate) max_surge: Option<AmountInfo>,
    pub(crate) max_unavailable: Option<AmountInfo>,
    /// Both resolved to 0, so the controller lets one pod be unavailable.
    pub(crate) fenceposts_raised: bool,
    pub(crate) min_ready_seconds: i32,
    /// `null` when it is off (`2147483647`).
    pub(crate) progress_deadline_seconds: Option<i32>,
    /// `spec` or `default`.
    pub(crate) progress_deadline_source: &'static str,
    pub(crate) paused: bool,
    /// From a pod's start until it is available: Ready, then `minReadySeconds`.
    pub(crate) available_after_seconds: Range,
    /// The first waves and the last ones; those between are counted in `wave_count`, not
    /// listed, so that a rollout of millions of pods is as short as one of ten.
    pub(crate) waves: Vec<WaveInfo>,
    /// Every wave of the rollout, listed or not.
    pub(crate) wave_count: i64,
    /// From the start of the rollout until every new pod is available; `null` when no rollout
    /// runs.
    pub(crate) complete_seconds: Option<Range>,
    /// `Recreate`: from the old pods' deletion until a new one is Ready.
    pub(crate) downtime_seconds: Option<Range>,
    pub(crate) deadline: DeadlineInfo,
}

#[derive(Debug, Serialize)]
pub(crate) struct WaveInfo {
    /// From 1; a gap in the numbers is the waves not listed.
    pub(crate) number: i64,
    pub(crate) new_pods: i64,
    /// Pods available while the wave's pods start.
    pub(crate) available: i64,
    /// Pods counted while they start (terminating old pods come on top).
    pub(crate) pods: i64,
    pub(crate) start_seconds: Range,
    pub(crate) ready_seconds: Range,
    pub(crate) end_seconds: Range,
}

/// What the progress deadline does.
#[derive(Debug, Serialize)]
pub(crate) struct DeadlineInfo {
    /// `exceeded`, `may-exceed`, `met` or `not-judged`.
    pub(crate) verdict: &'static str,
    /// Why, in words.
    pub(crate) because: Option<String>,
}

#[derive(Debug, Serialize)]
pub(crate) struct StaticInfo {
    /// What the controller does with a changed template.
    pub(crate) on_template_change: &'static str,
}

#[derive(Debug, Serialize)]
pub(crate) struct StatefulSetInfo {
    /// `OrderedReady`, `Parallel` or `invalid`.
    pub(crate) pod_management_policy: &'static str,
    /// `RollingUpdate`, `OnDelete` or `invalid`.
    pub(crate) update_strategy: &'static str,
    pub(crate) partition: Option<i32>,
    /// `maxUnavailable` as written, where the target version keeps it.
    pub(crate) max_unavailable: Option<String>,
    /// Ordinals the rolling update deletes at once.
    pub(crate) replaced_at_once: Option<i32>,
    pub(crate) min_ready_seconds: i32,
    pub(crate) available_after_seconds: Range,
    /// From the first pod's creation until every ordinal is available.
    pub(crate) create_seconds: Range,
    /// When the first ordinals are available after the StatefulSet is created.
    pub(crate) ordinals: Vec<OrdinalInfo>,
    /// Ordinals the rolling update replaces (those at or above `partition`).
    pub(crate) updated_ordinals: i32,
    /// From the start of a rolling update until every replaced ordinal is available; `null`
    /// for `OnDelete`.
    pub(crate) update_seconds: Option<Range>,
}

#[derive(Debug, Serialize)]
pub(crate) struct OrdinalInfo {
    pub(crate) ordinal: i32,
    pub(crate) available_seconds: Range,
}

#[derive(Debug, Serialize)]
pub(crate) struct DaemonSetInfo {
    /// `RollingUpdate`, `OnDelete` or `invalid`.
    pub(crate) update_strategy: &'static str,
    pub(crate) max_surge: Option<String>,
    pub(crate) max_unavailable: Option<String>,
    pub(crate) min_ready_seconds: i32,
    pub(crate) available_after_seconds: Range,
    /// One round: the nodes it replaces go from the old pod to a new available one.
    pub(crate) round_seconds: Range,
    /// The rounds for a few cluster sizes: the manifest does not say how many nodes run it.
    pub(crate) by_nodes: Vec<NodesInfo>,
    /// With surge, the host port the new pod needs while the old one holds it on its node: the
    /// update never gets past its first round.
    pub(crate) surge_blocked_by: Option<HostPortInfo>,
}

#[derive(Debug, Serialize)]
pub(crate) struct HostPortInfo {
    pub(crate) container: String,
    pub(crate) port: i32,
}

#[derive(Debug, Serialize)]
pub(crate) struct NodesInfo {
    pub(crate) nodes: i32,
    pub(crate) per_round: i32,
    /// The new pod starts beside the old one.
    pub(crate) surge: bool,
    pub(crate) rounds: i64,
    pub(crate) update_seconds: Range,
}

#[derive(Debug, Serialize)]
pub(crate) struct JobInfo {
    pub(crate) completions: Option<i32>,
    pub(crate) parallelism: i32,
    /// `NonIndexed` or `Indexed`.
    pub(crate) completion_mode: &'static str,
    pub(crate) backoff_limit: i32,
    /// `spec` or `default`.
    pub(crate) backoff_limit_source: &'static str,
    pub(crate) backoff_limit_per_index: Option<i32>,
    /// `Never` (the Job controller replaces a failed pod) or `OnFailure` (the kubelet restarts
    /// the container).
    pub(crate) restart_policy: &'static str,
    pub(crate) active_deadline_seconds: Option<i64>,
    pub(crate) pod_failure_policy: bool,
    pub(crate) suspend: bool,
    pub(crate) ttl_seconds_after_finished: Option<i32>,
    /// One attempt, at the least: from its pod's start until the last container starts.
    pub(crate) attempt_seconds: Range,
    /// The first attempts, each as early as it can start (`parallelism: 1`).
    pub(crate) attempts: Vec<AttemptInfo>,
    /// `backoffLimit + 1`.
    pub(crate) attempts_allowed: i64,
    /// The back-offs before every retry, added up.
    pub(crate) backoff_total_seconds: Secs,
    /// From the Job's start until it fails if every attempt fails as early as it can.
    pub(crate) failed_after_seconds: Option<Range>,
    /// How many attempts can start before `activeDeadlineSeconds`.
    pub(crate) attempts_within_deadline: Option<i64>,
    /// From the moment the app containers exit until the pod is done: the sidecars stop.
    pub(crate) completion_seconds: Range,
}

#[derive(Debug, Serialize)]
pub(crate) struct AttemptInfo {
    pub(crate) number: i64,
    pub(crate) backoff_seconds: Secs,
    pub(crate) start_seconds: Secs,
}

#[derive(Debug, Serialize)]
pub(crate) struct CronJobInfo {
    pub(crate) schedule: String,
    pub(crate) time_zone: Option<String>,
    pub(crate) concurrency_policy: String,
    pub(crate) starting_deadline_seconds: Option<i64>,
    pub(crate) suspend: bool,
}

#[derive(Debug, Serialize)]
pub(crate) struct BudgetInfo {
    /// What rollouts name it by: its file, the document (from 0) and its place in a `List`.
    pub(crate) id: String,
    pub(crate) object: ObjectRef,
    pub(crate) file: String,
    pub(crate) line: usize,
    /// The workloads whose pods it covers (`Kind/name`).
    pub(crate) covers: Covers,
    /// The pods it covers at the fewest replicas, when known.
    pub(crate) pods: Option<i32>,
    pub(crate) desired_healthy: Option<i32>,
    /// How many pods may be evicted at once when all are healthy; `0` when it never allows
    /// one, `null` when the manifest does not tell.
    pub(crate) evictions_allowed: Option<i32>,
    /// Why it never allows an eviction.
    pub(crate) blocks_because: Option<String>,
}
