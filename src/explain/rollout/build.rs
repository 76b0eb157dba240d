//! Builds a [`RolloutExplanation`] from the rollout model. Every time here is one
//! `lifecycle::rollout` computed; nothing is worked out again, so `explain --rollout` and the
//! findings of `check` tell the same times.

use super::{
    Allowance, AmountInfo, AttemptInfo, AutoscalerInfo, BudgetInfo, CronJobInfo, DaemonSetInfo,
    DeadlineInfo, DeploymentInfo, HostPortInfo, JobInfo, NodesInfo, OrdinalInfo, PodSummary,
    ReplicasInfo, RolloutExplanation, StatefulSetInfo, StaticInfo, WaveInfo,
};
use std::sync::Arc;

use super::Covers;
use crate::explain::build::delay_info;
use crate::explain::units::{Range, Secs};
use crate::lifecycle::Lifecycle;
use crate::lifecycle::rollout::{
    CoveringBudget, DaemonSetPlan, DaemonSetStrategy, DeadlineVerdict, DeploymentPlan,
    DeploymentStrategy, JobPlan, JobRestarts, Plan, PodManagement, ReplicaSource, Replicas,
    Resolved, Rollout, StatefulSetPlan, StatefulSetUpdate, Waves,
};
use crate::model::amount::Amount;
use crate::model::scope::budget::{Blocker, Eviction};
use crate::model::{IntOrString, ObjectRef};
use crate::text;

/// Ordinals listed one by one; a StatefulSet of thousands would otherwise print thousands.
const LISTED_ORDINALS: i32 = 10;
/// A rolling update's waves listed from its start and its end; the waves between are counted.
const LISTED_FIRST_WAVES: i64 = 5;
const LISTED_LAST_WAVES: i64 = 3;
/// The cluster sizes a DaemonSet's rollout is shown for.
const NODE_COUNTS: [i32; 4] = [1, 3, 10, 100];

/// What explaining a rollout takes.
pub struct RolloutSource<'a, 'l, F> {
    /// The file as reports name it.
    pub file: &'a str,
    /// The line of the object.
    pub line: usize,
    pub object: &'a ObjectRef,
    /// The pod's lifecycle, for the words of its delays.
    pub life: &'a Lifecycle<'l>,
    pub rollout: &'a Rollout,
    /// kubectl or the API server refuses the object (its findings say why): it has no rollout.
    pub rejected: bool,
    /// The findings, as `check --format json` writes them.
    pub findings: Vec<F>,
}

/// Explains one workload's rollout.
pub fn explain_rollout<F>(source: RolloutSource<'_, '_, F>) -> RolloutExplanation<F> {
    let rollout = source.rollout;
    let life = source.life;
    let mut explanation = RolloutExplanation {
        file: source.file.to_owned(),
        line: source.line,
        object: source.object.clone(),
        kind: rollout.kind.name(),
        kube_version: life.kube.to_string(),
        rejected: source.rejected,
        pod: pod_summary(life, rollout),
        replicas: None,
        deployment: None,
        replica_set: None,
        statefulset: None,
        daemonset: None,
        job: None,
        cronjob: None,
        disruption_budgets: rollout
            .budgets
            .iter()
            .flat_map(|group| group.iter())
            .map(budget_id)
            .collect(),
        budget_groups: rollout.budgets.clone(),
        findings: source.findings,
    };
    if source.rejected {
        explanation.disruption_budgets.clear();
        return explanation;
    }
    let replicas_info = |replicas: &Replicas| ReplicasInfo {
        count: replicas.count,
        fewest: replicas.least,
        source: match replicas.source {
            ReplicaSource::Spec => "spec",
            ReplicaSource::Default => "default",
            ReplicaSource::Autoscaler { .. } => "autoscaler",
        },
        autoscaler: match (replicas.source, &rollout.autoscaler) {
            (ReplicaSource::Autoscaler { min, max }, Some(object)) => Some(AutoscalerInfo {
                object: object.clone(),
                min_replicas: min,
                max_replicas: max,
            }),
            _ => None,
        },
    };
    match &rollout.plan {
        Plan::Deployment(plan) => {
            explanation.replicas = Some(replicas_info(&plan.replicas));
            explanation.deployment = Some(deployment(plan, rollout, life));
        }
        Plan::Static { replicas } => {
            explanation.replicas = Some(replicas_info(replicas));
            explanation.replica_set = Some(StaticInfo {
                on_template_change: "nothing: the pods it runs keep the old template; only the pods it creates later get the new one",
            });
        }
        Plan::StatefulSet(plan) => {
            explanation.replicas = Some(replicas_info(&plan.replicas));
            explanation.statefulset = Some(statefulset(plan));
        }
        Plan::DaemonSet(plan) => explanation.daemonset = Some(daemonset(plan)),
        Plan::Job(plan) => explanation.job = Some(job(plan)),
        Plan::CronJob(plan) => {
            explanation.job = Some(job(&plan.job));
            explanation.cronjob = Some(CronJobInfo {
                schedule: plan.schedule.clone(),
                time_zone: plan.time_zone.clone(),
                concurrency_policy: plan.concurrency_policy.clone(),
                starting_deadline_seconds: plan.starting_deadline_seconds,
                suspend: plan.suspend,
            });
        }
    }
    explanation
}

fn pod_summary(life: &Lifecycle<'_>, rollout: &Rollout) -> PodSummary {
    let pod = &rollout.pod;
    PodSummary {
        earliest_ready_seconds: Secs(pod.ready.earliest.seconds),
        ready_seconds: Range::from(&pod.ready),
        ready_delays: pod
            .ready
            .earliest
            .counted_delays()
            .into_iter()
            .map(|d| delay_info(life, d))
            .collect(),
        startup_allowance: pod.startup_allowance.map(|(index, seconds)| Allowance {
            container: life.containers[index].label().into_owned(),
            seconds: Secs(seconds),
        }),
        termination_seconds: pod.termination.into(),
        not_counted: vec![
            "image pulls".to_owned(),
            "scheduling".to_owned(),
            "the controllers' own latency".to_owned(),
        ],
    }
}

fn amount(resolved: &Resolved, at_fewest: Option<i32>) -> AmountInfo {
    AmountInfo {
        written: resolved.written.clone(),
        defaulted: resolved.defaulted,
        pods: resolved.pods,
        pods_at_fewest: at_fewest.unwrap_or(resolved.pods),
    }
}

fn deployment(plan: &DeploymentPlan, rollout: &Rollout, life: &Lifecycle<'_>) -> DeploymentInfo {
    let fewest = plan.replicas.least;
    let (strategy, surge, unavailable, raised) = match &plan.strategy {
        DeploymentStrategy::RollingUpdate {
            surge,
            unavailable,
            raised,
        } => (
            "RollingUpdate",
            Some(amount(surge, None)),
            Some(amount(unavailable, plan.max_unavailable_at(fewest))),
            *raised,
        ),
        DeploymentStrategy::Recreate => ("Recreate", None, None, false),
        DeploymentStrategy::Invalid => ("invalid", None, None, false),
    };
    let deadline = match plan.deadline_verdict(&rollout.pod) {
        DeadlineVerdict::Exceeded { ready } => DeadlineInfo {
            verdict: "exceeded",
            because: Some(format!(
                "every wave waits at least {} for its first pod to be Ready, and nothing progresses meanwhile",
                text::seconds(ready)
            )),
        },
        DeadlineVerdict::MayExceedByProbe { container, seconds } => DeadlineInfo {
            verdict: "may-exceed",
            because: Some(format!(
                "the startupProbe of {} allows it {} to start",
                life.containers[container].quoted(),
                text::seconds(seconds)
            )),
        },
        DeadlineVerdict::MayExceed { ready } => DeadlineInfo {
            verdict: "may-exceed",
            because: Some(format!(
                "the pods are Ready {} after they start",
                text::range(ready.min, ready.max)
            )),
        },
        DeadlineVerdict::Met => DeadlineInfo {
            verdict: "met",
            because: None,
        },
        DeadlineVerdict::NotJudged => DeadlineInfo {
            verdict: "not-judged",
            because: None,
        },
    };
    DeploymentInfo {
        strategy,
        max_surge: surge,
        max_unavailable: unavailable,
        fenceposts_raised: raised,
        min_ready_seconds: plan.min_ready_seconds,
        progress_deadline_seconds: plan.progress_deadline.seconds,
        progress_deadline_source: if plan.progress_deadline.written {
            "spec"
        } else {
            "default"
        },
        paused: plan.paused,
        available_after_seconds: plan.available_after.into(),
        waves: waves(&plan.waves),
        wave_count: plan.waves.len(),
        complete_seconds: plan.complete.map(Range::from),
        downtime_seconds: plan.downtime.map(Range::from),
        deadline,
    }
}

/// The first and last waves; `number` says where each one is, so the gap is counted.
fn waves(waves: &Waves) -> Vec<WaveInfo> {
    let (first, _, last) = waves.ends(LISTED_FIRST_WAVES, LISTED_LAST_WAVES);
    first
        .into_iter()
        .chain(last)
        .map(|(index, wave)| WaveInfo {
            number: index + 1,
            new_pods: wave.new_pods,
            available: wave.available,
            pods: wave.pods,
            start_seconds: wave.start.into(),
            ready_seconds: wave.ready.into(),
            end_seconds: wave.end.into(),
        })
        .collect()
}

fn statefulset(plan: &StatefulSetPlan) -> StatefulSetInfo {
    let (update, partition, max_unavailable, at_once) = match &plan.update {
        StatefulSetUpdate::RollingUpdate {
            partition,
            max_unavailable,
            batch,
        } => (
            "RollingUpdate",
            Some(*partition),
            max_unavailable.as_ref().map(written),
            Some(*batch),
        ),
        StatefulSetUpdate::OnDelete => ("OnDelete", None, None, None),
        StatefulSetUpdate::Invalid => ("invalid", None, None, None),
    };
    StatefulSetInfo {
        pod_management_policy: match plan.policy {
            PodManagement::OrderedReady => "OrderedReady",
            PodManagement::Parallel => "Parallel",
            PodManagement::Invalid => "invalid",
        },
        update_strategy: update,
        partition,
        max_unavailable,
        replaced_at_once: at_once,
        min_ready_seconds: plan.min_ready_seconds,
        available_after_seconds: plan.available_after.into(),
        create_seconds: plan.create.into(),
        ordinals: (0..plan.replicas.count.min(LISTED_ORDINALS))
            .map(|ordinal| OrdinalInfo {
                ordinal,
                available_seconds: plan.ordinal_available(ordinal).into(),
            })
            .collect(),
        updated_ordinals: plan.updated,
        update_seconds: plan.update_time.map(Range::from),
    }
}

fn daemonset(plan: &DaemonSetPlan) -> DaemonSetInfo {
    let (strategy, surge, unavailable) = match &plan.strategy {
        DaemonSetStrategy::RollingUpdate {
            max_surge,
            max_unavailable,
        } => (
            "RollingUpdate",
            Some(written(max_surge)),
            Some(written(max_unavailable)),
        ),
        DaemonSetStrategy::OnDelete => ("OnDelete", None, None),
        DaemonSetStrategy::Invalid => ("invalid", None, None),
    };
    DaemonSetInfo {
        update_strategy: strategy,
        max_surge: surge,
        max_unavailable: unavailable,
        min_ready_seconds: plan.min_ready_seconds,
        available_after_seconds: plan.available_after.into(),
        round_seconds: plan.round.into(),
        by_nodes: NODE_COUNTS
            .iter()
            .filter_map(|&nodes| {
                let (per_round, surge) = plan.per_round(nodes)?;
                let update = plan.update_time(nodes)?;
                Some(NodesInfo {
                    nodes,
                    per_round,
                    surge,
                    rounds: crate::lifecycle::rollout::rounds(
                        i64::from(nodes),
                        i64::from(per_round),
                    ),
                    update_seconds: update.into(),
                })
            })
            .collect(),
        surge_blocked_by: plan.surge_blocked_by.as_ref().map(|port| HostPortInfo {
            container: port.container.clone(),
            port: port.port,
        }),
    }
}

fn job(plan: &JobPlan) -> JobInfo {
    JobInfo {
        completions: plan.completions,
        parallelism: plan.parallelism,
        completion_mode: if plan.indexed {
            "Indexed"
        } else {
            "NonIndexed"
        },
        backoff_limit: plan.backoff_limit,
        backoff_limit_source: if plan.backoff_limit_written {
            "spec"
        } else {
            "default"
        },
        backoff_limit_per_index: plan.backoff_limit_per_index,
        restart_policy: match plan.restarts {
            JobRestarts::Never => "Never",
            JobRestarts::OnFailure => "OnFailure",
        },
        active_deadline_seconds: plan.active_deadline,
        pod_failure_policy: plan.pod_failure_policy,
        suspend: plan.suspend,
        ttl_seconds_after_finished: plan.ttl_seconds_after_finished,
        attempt_seconds: plan.attempt.into(),
        attempts: plan
            .attempts
            .iter()
            .map(|attempt| AttemptInfo {
                number: attempt.number,
                backoff_seconds: Secs(attempt.backoff),
                start_seconds: Secs(attempt.start),
            })
            .collect(),
        attempts_allowed: plan.retries + 1,
        backoff_total_seconds: Secs(plan.backoff_total),
        failed_after_seconds: plan.to_failed.map(Range::from),
        attempts_within_deadline: plan.attempts_within_deadline,
        completion_seconds: plan.completion.into(),
    }
}

/// A count as written: `25%`, `1`.
fn written(value: &IntOrString) -> String {
    match Amount::read(value) {
        Some(amount) => amount.text(),
        None => match value {
            IntOrString::Int(n) => n.to_string(),
            IntOrString::String(s) => s.clone(),
        },
    }
}

/// A budget's id in a run's output: its file, the document, and where it is in a `List`.
pub(crate) fn budget_id(budget: &CoveringBudget) -> String {
    let at = &budget.at;
    if at.prefix.segments().is_empty() {
        format!("{}#{}", at.file, at.document)
    } else {
        format!("{}#{}/{}", at.file, at.document, at.prefix)
    }
}

/// A budget, judged, as the run's list of budgets shows it once.
pub(crate) fn budget_info(budget: &CoveringBudget) -> BudgetInfo {
    let judgement = &budget.judgement;
    let (allowed, blocks) = match &judgement.eviction {
        Eviction::Allowed(n) => (Some(*n), None),
        Eviction::Never(blocker) => (Some(0), Some(blocker_words(blocker))),
        Eviction::Unknown => (None, None),
    };
    BudgetInfo {
        id: budget_id(budget),
        object: budget.object.clone(),
        file: budget.at.file.to_string(),
        line: budget.at.line,
        covers: Covers(Arc::clone(&judgement.selected)),
        pods: judgement.pods,
        desired_healthy: judgement.desired_healthy,
        evictions_allowed: allowed,
        blocks_because: blocks,
    }
}

/// Why a budget never allows an eviction, in words.
fn blocker_words(blocker: &Blocker) -> String {
    match blocker {
        Blocker::MaxUnavailableZero { written } => {
            format!("`maxUnavailable: {written}` comes to 0 pods")
        }
        Blocker::MinAvailableAll {
            written,
            desired,
            pods,
        } => format!("`minAvailable: {written}` keeps {desired} of {pods} pods"),
        Blocker::NoScale { workload } if workload.kind == "CronJob" => format!(
            "the Jobs `{}` creates own its pods and have no scale subresource, so the disruption controller cannot count them",
            workload.display_name()
        ),
        Blocker::NoScale { workload } => format!(
            "`{}` has no scale subresource, so the disruption controller cannot count its pods",
            workload.display_name()
        ),
        Blocker::NoLimit => "neither `minAvailable` nor `maxUnavailable` is set".to_owned(),
        Blocker::Unmanaged {
            field,
            written,
            workload,
        } => format!(
            "`{field}: {written}` counts the pods' controllers, and `{}` has none: 0 pods expected",
            workload.display_name()
        ),
    }
}
