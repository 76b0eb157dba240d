//! Where each workload kind keeps its pod spec, and what the kind allows there.

use super::ObjectRef;
use super::core::PodSpec;
use super::path::FieldPath;
use podcycle_k8s::{Controller, WorkloadKind};

/// Whether the pod spec is a bare Pod's or a controller's template.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    Pod,
    Template,
}

/// A pod spec found in an object, with everything rules need to know about where it sits.
#[derive(Debug)]
pub struct PodSite<'a> {
    pub(crate) object: &'a ObjectRef,
    pub kind: WorkloadKind,
    pub(crate) origin: Origin,
    /// Path from the object root to the pod spec (`spec`, `spec.template.spec`, ...).
    pub spec_path: FieldPath,
    pub spec: &'a PodSpec,
    /// A Job (or a CronJob's job template) sets `podFailurePolicy`.
    pub(crate) has_pod_failure_policy: bool,
    /// A Job's (or a CronJob's job template's) own `activeDeadlineSeconds`, which the Job
    /// controller enforces on the whole Job (set by the pipeline after [`PodSite::new`]).
    pub job_active_deadline_seconds: Option<i64>,
    /// The controller whose template this is, as decoded (set by the pipeline after
    /// [`PodSite::new`]), for rules about a controller field that decides what its pods get.
    pub(crate) controller: Option<&'a Controller>,
}

impl<'a> PodSite<'a> {
    pub fn new(
        object: &'a ObjectRef,
        kind: WorkloadKind,
        spec: &'a PodSpec,
        has_pod_failure_policy: bool,
    ) -> Self {
        PodSite {
            object,
            kind,
            origin: if kind == WorkloadKind::Pod {
                Origin::Pod
            } else {
                Origin::Template
            },
            spec_path: FieldPath::from_keys(kind.pod_spec_path()),
            spec,
            has_pod_failure_policy,
            job_active_deadline_seconds: None,
            controller: None,
        }
    }

    /// Path of the Job spec that holds this pod template (`spec`, `spec.jobTemplate.spec`),
    /// for Jobs and CronJobs.
    pub(crate) fn job_spec_path(&self) -> Option<FieldPath> {
        self.is_job().then(|| self.spec_path.parent().parent())
    }

    /// Long-running controllers whose pods must restart forever.
    pub(crate) fn is_long_running_controller(&self) -> bool {
        matches!(
            self.kind,
            WorkloadKind::Deployment
                | WorkloadKind::ReplicaSet
                | WorkloadKind::ReplicationController
                | WorkloadKind::StatefulSet
                | WorkloadKind::DaemonSet
        )
    }

    pub(crate) fn is_job(&self) -> bool {
        matches!(self.kind, WorkloadKind::Job | WorkloadKind::CronJob)
    }
}
