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
pub struct Covers(pub Arc<[ObjectRef]>);

impl Serialize for Covers {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(ObjectRef::display_name))
    }
}

/// One workload's rollout explained, with its findings.
#[derive(Debug, Serialize)]
pub struct RolloutExplanation<F> {
    pub file: String,
    pub line: usize,
    pub object: ObjectRef,
    /// The kind whose controller rolls it out.
    pub kind: &'static str,
    /// The Kubernetes version the rollout is for (`--kube-version`).
    pub kube_version: String,
    /// kubectl or the API server refuses the object (`findings` say why): nothing of it runs,
    /// so no rollout is shown.
    pub rejected: bool,
    pub pod: PodSummary,
    /// `null` for a DaemonSet, a Job or a CronJob, whose pod count the manifest does not set.
    pub replicas: Option<ReplicasInfo>,
    pub deployment: Option<DeploymentInfo>,
    /// A ReplicaSet or ReplicationController: it does not replace its pods when its template
    /// changes.
    pub replica_set: Option<StaticInfo>,
    pub statefulset: Option<StatefulSetInfo>,
    pub daemonset: Option<DaemonSetInfo>,
    pub job: Option<JobInfo>,
    pub cronjob: Option<CronJobInfo>,
    /// The PodDisruptionBudgets of the same directory, chart or overlay over its pods, by
    /// their `id` in the run's list of budgets (`disruption_budgets` beside `rollouts`): a
    /// budget over many workloads is written once, not once for each.
    pub disruption_budgets: Vec<String>,
    /// The same budgets, judged, in groups of equal selectors, for the writers.
    #[serde(skip)]
    pub budget_groups: Vec<Arc<[CoveringBudget]>>,
    /// The findings of `check` in this object, in the shape of `check --format json`.
    pub findings: Vec<F>,
}

/// The times of one pod that the rollout is made of.
#[derive(Debug, Serialize)]
pub struct PodSummary {
    /// Earliest time the pod is Ready, from its start; `null` when it never is.
    pub earliest_ready_seconds: Secs,
    pub ready_seconds: Range,
    /// What the earliest Ready time adds up.
    pub ready_delays: Vec<DelayInfo>,
    /// The longest a startup probe lets its container take to start, from the container's
    /// start.
    pub startup_allowance: Option<Allowance>,
    /// From the pod's deletion until every container has exited.
    pub termination_seconds: Range,
    /// What the times leave out because the manifest cannot tell.
    pub not_counted: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct Allowance {
    pub container: String,
    pub seconds: Secs,
}

#[derive(Debug, Serialize)]
pub struct ReplicasInfo {
    /// The count the rollout is estimated for: `spec.replicas`, 1 by default, or an
    /// autoscaler's `maxReplicas`.
    pub count: i32,
    /// The fewest it runs with: the same, or the autoscaler's `minReplicas`.
    pub fewest: i32,
    /// `spec`, `default` or `autoscaler`.
    pub source: &'static str,
    pub autoscaler: Option<AutoscalerInfo>,
}

#[derive(Debug, Serialize)]
pub struct AutoscalerInfo {
    pub object: ObjectRef,
    pub min_replicas: i32,
    pub max_replicas: i32,
}

/// A count of pods as written and resolved.
#[derive(Debug, Serialize)]
pub struct AmountInfo {
    /// As written, or the default (`25%`, `1`).
    pub written: String,
    pub defaulted: bool,
    /// Pods, for `replicas.count`.
    pub pods: i32,
    /// Pods, for `replicas.fewest`.
    pub pods_at_fewest: i32,
}

#[derive(Debug, Serialize)]
pub struct DeploymentInfo {
    /// `RollingUpdate`, `Recreate`, or `invalid` for one the API server rejects.
    pub strategy: &'static str,
    pub max_surge: Option<AmountInfo>,
    pub max_unavailable: Option<AmountInfo>,
    /// Both resolved to 0, so the controller lets one pod be unavailable.
    pub fenceposts_raised: bool,
    pub min_ready_seconds: i32,
    /// `null` when it is off (`2147483647`).
    pub progress_deadline_seconds: Option<i32>,
    /// `spec` or `default`.
    pub progress_deadline_source: &'static str,
    pub paused: bool,
    /// From a pod's start until it is available: Ready, then `minReadySeconds`.
    pub available_after_seconds: Range,
    /// The first waves and the last ones; those between are counted in `wave_count`, not
    /// listed, so that a rollout of millions of pods is as short as one of ten.
    pub waves: Vec<WaveInfo>,
    /// Every wave of the rollout, listed or not.
    pub wave_count: i64,
    /// From the start of the rollout until every new pod is available; `null` when no rollout
    /// runs.
    pub complete_seconds: Option<Range>,
    /// `Recreate`: from the old pods' deletion until a new one is Ready.
    pub downtime_seconds: Option<Range>,
    pub deadline: DeadlineInfo,
}

#[derive(Debug, Serialize)]
pub struct WaveInfo {
    /// From 1; a gap in the numbers is the waves not listed.
    pub number: i64,
    pub new_pods: i64,
    /// Pods available while the wave's pods start.
    pub available: i64,
    /// Pods counted while they start (terminating old pods come on top).
    pub pods: i64,
    pub start_seconds: Range,
    pub ready_seconds: Range,
    pub end_seconds: Range,
}

/// What the progress deadline does.
#[derive(Debug, Serialize)]
pub struct DeadlineInfo {
    /// `exceeded`, `may-exceed`, `met` or `not-judged`.
    pub verdict: &'static str,
    /// Why, in words.
    pub because: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct StaticInfo {
    /// What the controller does with a changed template.
    pub on_template_change: &'static str,
}

#[derive(Debug, Serialize)]
pub struct StatefulSetInfo {
    /// `OrderedReady`, `Parallel` or `invalid`.
    pub pod_management_policy: &'static str,
    /// `RollingUpdate`, `OnDelete` or `invalid`.
    pub update_strategy: &'static str,
    pub partition: Option<i32>,
    /// `maxUnavailable` as written, where the target version keeps it.
    pub max_unavailable: Option<String>,
    /// Ordinals the rolling update deletes at once.
    pub replaced_at_once: Option<i32>,
    pub min_ready_seconds: i32,
    pub available_after_seconds: Range,
    /// From the first pod's creation until every ordinal is available.
    pub create_seconds: Range,
    /// When the first ordinals are available after the StatefulSet is created.
    pub ordinals: Vec<OrdinalInfo>,
    /// Ordinals the rolling update replaces (those at or above `partition`).
    pub updated_ordinals: i32,
    /// From the start of a rolling update until every replaced ordinal is available; `null`
    /// for `OnDelete`.
    pub update_seconds: Option<Range>,
}

#[derive(Debug, Serialize)]
pub struct OrdinalInfo {
    pub ordinal: i32,
    pub available_seconds: Range,
}

#[derive(Debug, Serialize)]
pub struct DaemonSetInfo {
    /// `RollingUpdate`, `OnDelete` or `invalid`.
    pub update_strategy: &'static str,
    pub max_surge: Option<String>,
    pub max_unavailable: Option<String>,
    pub min_ready_seconds: i32,
    pub available_after_seconds: Range,
    /// One round: the nodes it replaces go from the old pod to a new available one.
    pub round_seconds: Range,
    /// The rounds for a few cluster sizes: the manifest does not say how many nodes run it.
    pub by_nodes: Vec<NodesInfo>,
    /// With surge, the host port the new pod needs while the old one holds it on its node: the
    /// update never gets past its first round.
    pub surge_blocked_by: Option<HostPortInfo>,
}

#[derive(Debug, Serialize)]
pub struct HostPortInfo {
    pub container: String,
    pub port: i32,
}

#[derive(Debug, Serialize)]
pub struct NodesInfo {
    pub nodes: i32,
    pub per_round: i32,
    /// The new pod starts beside the old one.
    pub surge: bool,
    pub rounds: i64,
    pub update_seconds: Range,
}

#[derive(Debug, Serialize)]
pub struct JobInfo {
    pub completions: Option<i32>,
    pub parallelism: i32,
    /// `NonIndexed` or `Indexed`.
    pub completion_mode: &'static str,
    pub backoff_limit: i32,
    /// `spec` or `default`.
    pub backoff_limit_source: &'static str,
    pub backoff_limit_per_index: Option<i32>,
    /// `Never` (the Job controller replaces a failed pod) or `OnFailure` (the kubelet restarts
    /// the container).
    pub restart_policy: &'static str,
    pub active_deadline_seconds: Option<i64>,
    pub pod_failure_policy: bool,
    pub suspend: bool,
    pub ttl_seconds_after_finished: Option<i32>,
    /// One attempt, at the least: from its pod's start until the last container starts.
    pub attempt_seconds: Range,
    /// The first attempts, each as early as it can start (`parallelism: 1`).
    pub attempts: Vec<AttemptInfo>,
    /// `backoffLimit + 1`.
    pub attempts_allowed: i64,
    /// The back-offs before every retry, added up.
    pub backoff_total_seconds: Secs,
    /// From the Job's start until it fails if every attempt fails as early as it can.
    pub failed_after_seconds: Option<Range>,
    /// How many attempts can start before `activeDeadlineSeconds`.
    pub attempts_within_deadline: Option<i64>,
    /// From the moment the app containers exit until the pod is done: the sidecars stop.
    pub completion_seconds: Range,
}

#[derive(Debug, Serialize)]
pub struct AttemptInfo {
    pub number: i64,
    pub backoff_seconds: Secs,
    pub start_seconds: Secs,
}

#[derive(Debug, Serialize)]
pub struct CronJobInfo {
    pub schedule: String,
    pub time_zone: Option<String>,
    pub concurrency_policy: String,
    pub starting_deadline_seconds: Option<i64>,
    pub suspend: bool,
}

#[derive(Debug, Serialize)]
pub struct BudgetInfo {
    /// What rollouts name it by: its file, the document (from 0) and its place in a `List`.
    pub id: String,
    pub object: ObjectRef,
    pub file: String,
    pub line: usize,
    /// The workloads whose pods it covers (`Kind/name`).
    pub covers: Covers,
    /// The pods it covers at the fewest replicas, when known.
    pub pods: Option<i32>,
    pub desired_healthy: Option<i32>,
    /// How many pods may be evicted at once when all are healthy; `0` when it never allows
    /// one, `null` when the manifest does not tell.
    pub evictions_allowed: Option<i32>,
    /// Why it never allows an eviction.
    pub blocks_because: Option<String>,
}
