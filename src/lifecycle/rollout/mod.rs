//! What the controllers do with many pods: the rollout a workload's spec implies, computed once
//! per workload from its controller fields, its pod's lifecycle (the certain time to Ready, the
//! shutdown) and the budgets and autoscalers of its scope. Rules and `podcycle explain
//! --rollout` read this model; neither works out a wave, an ordinal's turn or a retry on its
//! own.
//!
//! - `Rollout::derive`: the plan of each kind — a Deployment's waves (`deployment.rs`), a
//!   StatefulSet's ordinals (`statefulset.rs`), a DaemonSet's nodes (`daemonset.rs`), a Job's
//!   attempts and a CronJob's runs (`job.rs`) — and the disruption budgets over its pods
//!   (`budget.rs`);
//! - counts written as integers or percentages are resolved as the controllers resolve them
//!   (`amount.rs`).
//!
//! Times are those of the pod model (`time.rs`): the earliest is a true lower bound (image
//! pulls, scheduling and the controllers' own latency only add to it), the latest is infinite
//! wherever the manifest leaves a wait open. Every pod of a rollout is taken to start as the
//! spec says, with no quota or scheduling stall. docs/lifecycle.md lists each formula with the
//! controller function it mirrors.

mod daemonset;
mod deployment;
mod job;
mod statefulset;

use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) use daemonset::{DaemonSetPlan, DaemonSetStrategy};
pub use deployment::DeploymentStrategy;
pub(crate) use deployment::{
    DEFAULT_PROGRESS_DEADLINE_SECONDS, DeadlineVerdict, DeploymentPlan, NO_PROGRESS_DEADLINE,
    Resolved, Waves,
};
pub(crate) use job::{
    CronJobPlan, JOB_BACKOFF_CAP_SECONDS, JOB_BACKOFF_SECONDS, JobPlan,
    KUBELET_BACKOFF_CAP_SECONDS, KUBELET_BACKOFF_SECONDS,
};
pub use job::{JobRestarts, retry_delay};
pub use statefulset::StatefulSetUpdate;
pub(crate) use statefulset::{PodManagement, StatefulSetPlan};

use super::time::{Bounds, Window};
use super::{Lifecycle, ProbeKind};
pub(crate) use crate::model::scope::CoveringBudget;
use crate::model::scope::{Autoscaler, Scope};
use crate::model::{Controller, ObjectRef, WorkloadKind};
use crate::versions::KubeVersion;

/// The times of one pod that a rollout is made of.
#[derive(Clone, Debug)]
pub(crate) struct PodTimes {
    /// From the pod's start until it is Ready (every app container and sidecar), with the
    /// delays of the earliest bound; never for a pod that never becomes Ready.
    pub(crate) ready: Window,
    /// From the pod's start until its last container starts: a Job's work runs from here.
    pub(crate) last_start: Bounds,
    /// The longest a startup probe lets its container take before it kills it: the container
    /// and the latest bound of its window, from the container's start. A start that slow is
    /// still a success.
    pub(crate) startup_allowance: Option<(usize, f64)>,
    /// From the pod's deletion until every container has exited: no earlier than the last
    /// stop signal, no later than the last SIGKILL.
    pub(crate) termination: Bounds,
    /// From the moment a Job's app containers have all exited until the pod is done: the
    /// sidecars stop one at a time, each after its preStop hook.
    pub(crate) completion: Bounds,
}

impl PodTimes {
    /// The times of the pod `life` describes.
    pub(crate) fn of(life: &Lifecycle<'_>) -> PodTimes {
        let schedule = life.schedule();
        let ready = schedule.ready.clone().unwrap_or_else(|| {
            // A pod without app containers never becomes Ready (the API server rejects it).
            Window::zero().then(&super::time::Step {
                container: 0,
                kind: super::time::DelayKind::InitRun,
                path: crate::model::path::FieldPath::default(),
                length: Bounds::NEVER,
            })
        });
        let last_start = schedule
            .last_start
            .as_ref()
            .map_or(Bounds::ZERO, Window::bounds);
        let startup_allowance = schedule
            .containers
            .iter()
            .enumerate()
            .filter_map(|(index, times)| match &times.unanswered_kill {
                Some((ProbeKind::Startup, window)) => Some((index, window.latest.seconds)),
                _ => None,
            })
            .filter(|(_, seconds)| seconds.is_finite())
            .max_by(|a, b| a.1.total_cmp(&b.1));
        PodTimes {
            ready,
            last_start,
            startup_allowance,
            termination: stopped(life.shutdown()),
            completion: stopped(life.completion()),
        }
    }

    /// The pod is Ready, as bounds.
    pub(crate) fn ready_bounds(&self) -> Bounds {
        self.ready.bounds()
    }
}

/// From the start of a stop until every container has exited: each gets its stop signal no
/// earlier than `sigterm.min`; every one has had SIGKILL by the plan's last.
fn stopped(plan: &super::ShutdownPlan) -> Bounds {
    let earliest = plan
        .containers
        .iter()
        .map(|stop| stop.kill.sigterm.min)
        .fold(0.0, f64::max);
    Bounds::new(earliest, plan.all_killed_by)
}

/// Where a replica count comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplicaSource {
    /// `spec.replicas` as written.
    Spec,
    /// Not written: 1 (`SetDefaults_Deployment`, `SetDefaults_StatefulSet`, ...).
    Default,
    /// A HorizontalPodAutoscaler sets it: the rollout is estimated at its `maxReplicas`.
    Autoscaler { min: i32, max: i32 },
}

/// A workload's replicas as a rollout counts them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Replicas {
    /// The count the rollout is estimated for (for an autoscaled workload, its maximum).
    pub count: i32,
    /// The fewest the workload runs with (for an autoscaled workload, `minReplicas`).
    pub(crate) least: i32,
    pub source: ReplicaSource,
    /// `spec.replicas` as written, whoever sets the count.
    pub(crate) written: Option<i32>,
}

impl Replicas {
    fn of(written: Option<i32>, autoscaler: Option<&Autoscaler>) -> Replicas {
        // An autoscaler disables itself on a target of 0 replicas (`horizontal.go`,
        // `ScalingDisabled`): the workload keeps none.
        let autoscaler = autoscaler.filter(|_| written != Some(0));
        if let Some((min, max)) = autoscaler.and_then(Autoscaler::replicas) {
            return Replicas {
                count: max.max(0),
                least: min.max(0),
                source: ReplicaSource::Autoscaler { min, max },
                written,
            };
        }
        let count = written.unwrap_or(1).max(0);
        Replicas {
            count,
            least: count,
            source: if written.is_some() {
                ReplicaSource::Spec
            } else {
                ReplicaSource::Default
            },
            written,
        }
    }
}

/// What the controller does on a rollout, by kind.
#[derive(Clone, Debug)]
pub enum Plan {
    Deployment(DeploymentPlan),
    /// A ReplicaSet or ReplicationController does not replace its pods when its template
    /// changes: only the pods it creates later get the new template.
    Static {
        replicas: Replicas,
    },
    StatefulSet(StatefulSetPlan),
    DaemonSet(DaemonSetPlan),
    Job(JobPlan),
    CronJob(CronJobPlan),
}

/// The rollout of one workload.
#[derive(Clone, Debug)]
pub struct Rollout {
    pub(crate) kind: WorkloadKind,
    pub(crate) pod: PodTimes,
    pub plan: Plan,
    /// The budgets of the scope over its pods, in groups of equal selectors (shared by every
    /// workload they cover, so a rollout costs the same whatever their number).
    pub(crate) budgets: Vec<Arc<[CoveringBudget]>>,
    /// The autoscaler of the scope that scales it.
    pub(crate) autoscaler: Option<ObjectRef>,
}

/// What a rollout is derived from.
pub(crate) struct RolloutSource<'a, 'l> {
    pub(crate) object: &'a ObjectRef,
    pub(crate) kind: WorkloadKind,
    pub(crate) controller: &'a Controller,
    pub(crate) pod_labels: &'a BTreeMap<String, String>,
    pub(crate) life: &'a Lifecycle<'l>,
    pub(crate) scope: &'a Scope,
    pub(crate) kube: KubeVersion,
}

impl Rollout {
    /// The rollout of a workload controller; `None` for a Pod or a PodTemplate.
    pub(crate) fn derive(source: &RolloutSource<'_, '_>) -> Option<Rollout> {
        let pod = PodTimes::of(source.life);
        let autoscaler = source.scope.autoscaler_of(source.object);
        let plan = match source.controller {
            Controller::None => return None,
            Controller::Deployment(spec) => Plan::Deployment(DeploymentPlan::new(
                spec,
                Replicas::of(spec.replicas, autoscaler),
                &pod,
            )),
            Controller::ReplicaSet(spec) => Plan::Static {
                replicas: Replicas::of(spec.replicas, autoscaler),
            },
            Controller::ReplicationController(spec) => Plan::Static {
                replicas: Replicas::of(spec.replicas, autoscaler),
            },
            Controller::StatefulSet(spec) => Plan::StatefulSet(StatefulSetPlan::new(
                spec,
                Replicas::of(spec.replicas, autoscaler),
                &pod,
                source.kube,
            )),
            Controller::DaemonSet(spec) => {
                Plan::DaemonSet(DaemonSetPlan::new(spec, &pod, source.life))
            }
            Controller::Job(spec) => Plan::Job(JobPlan::new(spec, source.life, &pod)),
            Controller::CronJob(spec) => Plan::CronJob(CronJobPlan::new(spec, source.life, &pod)),
        };
        let budgets = source
            .scope
            .budget_groups_selecting(source.object.namespace.as_deref(), source.pod_labels);
        Some(Rollout {
            kind: source.kind,
            pod,
            plan,
            budgets,
            autoscaler: autoscaler.map(|a| a.object.clone()),
        })
    }
}

/// How many rounds of `per` it takes to get through `n` (`⌈n / per⌉`).
pub(crate) fn rounds(n: i64, per: i64) -> i64 {
    let per = per.max(1);
    (n.max(0) + per - 1) / per
}

/// `n` waits of `each`, one after another.
pub(crate) fn times(n: i64, each: Bounds) -> Bounds {
    #[allow(clippy::cast_precision_loss)]
    let n = n.max(0) as f64;
    if n == 0.0 {
        return Bounds::ZERO;
    }
    each.map(|t| n * t)
}
