//! Typed decoding of Kubernetes workload objects into k8s-openapi types.
//!
//! This crate is the only place that instantiates k8s-openapi's `Deserialize` impls: they are
//! large, and keeping them behind the non-generic [`decode`] function means an edit elsewhere in
//! podcycle does not recompile them.

mod de;
mod tree;

use std::cell::RefCell;
use std::collections::BTreeMap;

pub use k8s_openapi;
use k8s_openapi::api::apps::v1::{
    DaemonSet, DaemonSetSpec, Deployment, DeploymentSpec, ReplicaSet, ReplicaSetSpec, StatefulSet,
    StatefulSetSpec,
};
use k8s_openapi::api::autoscaling::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec};
use k8s_openapi::api::batch::v1::{CronJob, CronJobSpec, Job, JobSpec};
use k8s_openapi::api::core::v1::{
    Pod, PodSpec, PodTemplate, PodTemplateSpec, ReplicationController, ReplicationControllerSpec,
};
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use serde::Deserialize;
use serde_json::Value;

pub use podcycle_path::{DisplayPath, PathSegment};
pub use tree::{JsonTree, Tree, TreeValue};

/// The workload kinds whose pod spec podcycle lints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorkloadKind {
    Pod,
    PodTemplate,
    ReplicationController,
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    CronJob,
}

impl WorkloadKind {
    /// Recognises a workload from its `apiVersion` and `kind`. Legacy group versions
    /// (`extensions/v1beta1`, `apps/v1beta2`, `batch/v1beta1`, ...) count as the same kind:
    /// their pod template is the same `PodSpec`.
    pub fn from_type(api_version: &str, kind: &str) -> Option<WorkloadKind> {
        let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
        let kind = match (group, kind) {
            ("", "Pod") => WorkloadKind::Pod,
            ("", "PodTemplate") => WorkloadKind::PodTemplate,
            ("", "ReplicationController") => WorkloadKind::ReplicationController,
            ("apps" | "extensions", "Deployment") => WorkloadKind::Deployment,
            ("apps" | "extensions", "ReplicaSet") => WorkloadKind::ReplicaSet,
            ("apps", "StatefulSet") => WorkloadKind::StatefulSet,
            ("apps" | "extensions", "DaemonSet") => WorkloadKind::DaemonSet,
            ("batch", "Job") => WorkloadKind::Job,
            ("batch", "CronJob") => WorkloadKind::CronJob,
            _ => return None,
        };
        Some(kind)
    }

    /// The `apiVersion` that k8s-openapi's type for this kind expects.
    pub fn current_api_version(self) -> &'static str {
        match self {
            WorkloadKind::Pod | WorkloadKind::PodTemplate | WorkloadKind::ReplicationController => {
                "v1"
            }
            WorkloadKind::Deployment
            | WorkloadKind::ReplicaSet
            | WorkloadKind::StatefulSet
            | WorkloadKind::DaemonSet => "apps/v1",
            WorkloadKind::Job | WorkloadKind::CronJob => "batch/v1",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Pod => "Pod",
            WorkloadKind::PodTemplate => "PodTemplate",
            WorkloadKind::ReplicationController => "ReplicationController",
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::DaemonSet => "DaemonSet",
            WorkloadKind::Job => "Job",
            WorkloadKind::CronJob => "CronJob",
        }
    }

    /// The path from the object to its pod spec.
    pub fn pod_spec_path(self) -> &'static [&'static str] {
        match self {
            WorkloadKind::Pod => &["spec"],
            WorkloadKind::PodTemplate => &["template", "spec"],
            WorkloadKind::CronJob => &["spec", "jobTemplate", "spec", "template", "spec"],
            _ => &["spec", "template", "spec"],
        }
    }
}

/// A field the target type does not have.
#[derive(Clone, Debug)]
pub struct UnknownField {
    /// Path of the unknown key, from the object root.
    pub path: Vec<PathSegment>,
    /// The k8s-openapi type that does not know the key (`Container`, `Probe`, ...).
    pub type_name: &'static str,
    /// The keys that type does accept.
    pub known_fields: &'static [&'static str],
}

/// A value of the wrong type (or otherwise undecodable), at a path from the object root.
#[derive(Clone, Debug)]
pub struct TypeError {
    pub path: Vec<PathSegment>,
    pub message: String,
}

/// What the lifecycle rules need from a decoded workload.
#[derive(Clone, Debug, Default)]
pub struct Workload {
    /// The pod spec; `None` when the manifest has none (for example a template without `spec`).
    pub pod_spec: Option<PodSpec>,
    /// A Job (or a CronJob's job template) sets `podFailurePolicy`.
    pub has_pod_failure_policy: bool,
    /// A Job's (or a CronJob's job template's) own `activeDeadlineSeconds`.
    pub job_active_deadline_seconds: Option<i64>,
    /// The labels of the pods it creates: a Pod's own, or its template's.
    pub pod_labels: BTreeMap<String, String>,
    /// The controller's own fields — replicas, update strategy, Job limits — with its pod
    /// template taken out (it is `pod_spec` and `pod_labels`).
    pub controller: Controller,
}

/// The spec of a workload controller without its pod template: what paces its rollouts.
#[derive(Clone, Debug, Default)]
pub enum Controller {
    /// A Pod or a PodTemplate: nothing rolls it out.
    #[default]
    None,
    Deployment(Box<DeploymentSpec>),
    ReplicaSet(Box<ReplicaSetSpec>),
    ReplicationController(Box<ReplicationControllerSpec>),
    StatefulSet(Box<StatefulSetSpec>),
    DaemonSet(Box<DaemonSetSpec>),
    Job(Box<JobSpec>),
    CronJob(Box<CronJobSpec>),
}

/// The outcome of decoding one object.
#[derive(Debug, Default)]
pub struct Decoded {
    /// `None` when decoding failed; `error` then says why.
    pub workload: Option<Workload>,
    pub error: Option<TypeError>,
    pub unknown_fields: Vec<UnknownField>,
}

/// Decodes `value` as the k8s-openapi type for `kind`.
pub fn decode_json(kind: WorkloadKind, value: &Value) -> Decoded {
    decode(kind, &JsonTree::new(value), 0)
}

/// Decodes the object at node `root` of `tree` as the k8s-openapi type for `kind`.
pub fn decode(kind: WorkloadKind, tree: &dyn Tree, root: u32) -> Decoded {
    let collector = RefCell::new(de::Collector::default());
    let deserializer = de::TreeDeserializer {
        tree,
        node: root,
        value: None,
        path: de::Path::Root,
        collector: &collector,
        api_version_override: Some(kind.current_api_version()),
    };
    let result = match kind {
        WorkloadKind::Pod => {
            Pod::deserialize(deserializer).map(|o| Workload::of_pod(o.metadata, o.spec))
        }
        WorkloadKind::PodTemplate => {
            PodTemplate::deserialize(deserializer).map(|o| Workload::of_template(o.template))
        }
        WorkloadKind::ReplicationController => ReplicationController::deserialize(deserializer)
            .map(|o| {
                let mut spec = o.spec.unwrap_or_default();
                Workload::of_template(spec.template.take())
                    .with(Controller::ReplicationController(Box::new(spec)))
            }),
        WorkloadKind::Deployment => Deployment::deserialize(deserializer).map(|o| {
            let mut spec = o.spec;
            let template = std::mem::take(&mut spec.template);
            Workload::of_template(Some(template)).with(Controller::Deployment(Box::new(spec)))
        }),
        WorkloadKind::ReplicaSet => ReplicaSet::deserialize(deserializer).map(|o| {
            let mut spec = o.spec;
            Workload::of_template(spec.template.take()).with(Controller::ReplicaSet(Box::new(spec)))
        }),
        WorkloadKind::StatefulSet => StatefulSet::deserialize(deserializer).map(|o| {
            let mut spec = o.spec;
            let template = std::mem::take(&mut spec.template);
            Workload::of_template(Some(template)).with(Controller::StatefulSet(Box::new(spec)))
        }),
        WorkloadKind::DaemonSet => DaemonSet::deserialize(deserializer).map(|o| {
            let mut spec = o.spec;
            let template = std::mem::take(&mut spec.template);
            Workload::of_template(Some(template)).with(Controller::DaemonSet(Box::new(spec)))
        }),
        WorkloadKind::Job => Job::deserialize(deserializer).map(|o| match o.spec {
            Some(mut spec) => {
                let template = std::mem::take(&mut spec.template);
                Workload::of_job(&spec, template).with(Controller::Job(Box::new(spec)))
            }
            None => Workload::default(),
        }),
        WorkloadKind::CronJob => CronJob::deserialize(deserializer).map(|o| {
            let mut spec = o.spec;
            match spec.job_template.spec.as_mut() {
                Some(job) => {
                    let template = std::mem::take(&mut job.template);
                    Workload::of_job(job, template).with(Controller::CronJob(Box::new(spec)))
                }
                None => Workload::default(),
            }
        }),
    };
    let unknown_fields = collector.into_inner().unknown_fields;
    match result {
        Ok(workload) => Decoded {
            workload: Some(workload),
            error: None,
            unknown_fields,
        },
        Err(error) => Decoded {
            workload: None,
            error: Some(TypeError {
                path: error.path.unwrap_or_default(),
                message: error.message,
            }),
            unknown_fields,
        },
    }
}

impl Workload {
    fn of_pod(metadata: ObjectMeta, pod_spec: Option<PodSpec>) -> Workload {
        Workload {
            pod_spec,
            pod_labels: metadata.labels.unwrap_or_default(),
            ..Workload::default()
        }
    }

    fn of_template(template: Option<PodTemplateSpec>) -> Workload {
        match template {
            Some(template) => {
                Workload::of_pod(template.metadata.unwrap_or_default(), template.spec)
            }
            None => Workload::default(),
        }
    }

    fn of_job(spec: &JobSpec, template: PodTemplateSpec) -> Workload {
        Workload {
            has_pod_failure_policy: spec.pod_failure_policy.is_some(),
            job_active_deadline_seconds: spec.active_deadline_seconds,
            ..Workload::of_template(Some(template))
        }
    }

    fn with(self, controller: Controller) -> Workload {
        Workload { controller, ..self }
    }
}

/// A PodDisruptionBudget or a HorizontalPodAutoscaler, decoded: its spec, or why it could not
/// be read.
pub type DecodedSpec<T> = Result<T, TypeError>;

/// Decodes the object at node `root` as a `policy/v1` PodDisruptionBudget (`policy/v1beta1`
/// has the same fields) and returns its spec.
pub fn decode_disruption_budget(
    tree: &dyn Tree,
    root: u32,
) -> DecodedSpec<PodDisruptionBudgetSpec> {
    decode_as::<PodDisruptionBudget>(tree, root, "policy/v1")
        .map(|budget| budget.spec.unwrap_or_default())
}

/// Decodes the object at node `root` as an `autoscaling/v2` HorizontalPodAutoscaler and returns
/// its spec. `autoscaling/v1` has the fields podcycle reads (`minReplicas`, `maxReplicas`,
/// `scaleTargetRef`) in the same places; its own are left aside.
pub fn decode_autoscaler(tree: &dyn Tree, root: u32) -> DecodedSpec<HorizontalPodAutoscalerSpec> {
    decode_as::<HorizontalPodAutoscaler>(tree, root, "autoscaling/v2")
        .map(|autoscaler| autoscaler.spec)
}

fn decode_as<T: for<'de> Deserialize<'de>>(
    tree: &dyn Tree,
    root: u32,
    api_version: &'static str,
) -> Result<T, TypeError> {
    let collector = RefCell::new(de::Collector::default());
    let deserializer = de::TreeDeserializer {
        tree,
        node: root,
        value: None,
        path: de::Path::Root,
        collector: &collector,
        api_version_override: Some(api_version),
    };
    T::deserialize(deserializer).map_err(|error| TypeError {
        path: error.path.unwrap_or_default(),
        message: error.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn path(s: &[PathSegment]) -> String {
        DisplayPath(s).to_string()
    }

    #[test]
    fn unknown_fields_carry_path_and_known_names() {
        let value = json!({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "x", "labelz": {}},
            "spec": {"containers": [{"name": "a", "imagePullPolice": "Always"}]}
        });
        let decoded = decode_json(WorkloadKind::Pod, &value);
        assert!(decoded.error.is_none());
        let unknown: Vec<_> = decoded
            .unknown_fields
            .iter()
            .map(|u| (path(&u.path), u.type_name))
            .collect();
        assert_eq!(
            unknown,
            [
                ("metadata.labelz".to_owned(), "ObjectMeta"),
                ("spec.containers[0].imagePullPolice".to_owned(), "Container")
            ]
        );
        assert!(
            decoded.unknown_fields[1]
                .known_fields
                .contains(&"imagePullPolicy")
        );
    }

    #[test]
    fn type_errors_point_at_the_value() {
        let value = json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "spec": {"template": {"spec": {"containers": [
                {"name": "a"},
                {"name": "b", "livenessProbe": {"periodSeconds": "ten"}}
            ]}}}
        });
        let decoded = decode_json(WorkloadKind::Deployment, &value);
        let error = decoded.error.expect("a type error");
        assert_eq!(
            path(&error.path),
            "spec.template.spec.containers[1].livenessProbe.periodSeconds"
        );
        assert!(
            error.message.contains("invalid type: string \"ten\""),
            "{}",
            error.message
        );
    }

    #[test]
    fn legacy_group_versions_decode_as_current() {
        let value = json!({
            "apiVersion": "extensions/v1beta1", "kind": "Deployment",
            "spec": {"template": {"spec": {"containers": [{"name": "a"}]}}}
        });
        let kind = WorkloadKind::from_type("extensions/v1beta1", "Deployment").unwrap();
        let decoded = decode_json(kind, &value);
        assert!(decoded.error.is_none(), "{:?}", decoded.error);
        assert_eq!(
            decoded.workload.unwrap().pod_spec.unwrap().containers[0].name,
            "a"
        );
    }

    #[test]
    fn job_pod_failure_policy_is_reported() {
        let value = json!({
            "apiVersion": "batch/v1", "kind": "CronJob",
            "spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {
                "podFailurePolicy": {"rules": []},
                "template": {"spec": {"containers": [{"name": "a"}]}}}}}
        });
        let decoded = decode_json(WorkloadKind::CronJob, &value);
        assert!(decoded.workload.unwrap().has_pod_failure_policy);
    }

    #[test]
    fn pod_labels_are_the_pods_own_or_their_templates() {
        let labels = |kind, value: Value| {
            decode_json(kind, &value)
                .workload
                .unwrap()
                .pod_labels
                .into_keys()
                .collect::<Vec<_>>()
        };
        let pod = json!({"metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}});
        assert_eq!(labels(WorkloadKind::Pod, pod), ["app"]);
        let deployment = json!({"metadata": {"labels": {"owner": "x"}}, "spec": {"template": {
            "metadata": {"labels": {"app": "web"}}, "spec": {"containers": []}}}});
        assert_eq!(labels(WorkloadKind::Deployment, deployment), ["app"]);
        let cron = json!({"spec": {"schedule": "* * * * *", "jobTemplate": {"spec": {"template": {
            "metadata": {"labels": {"job": "x"}}, "spec": {"containers": []}}}}}});
        assert_eq!(labels(WorkloadKind::CronJob, cron), ["job"]);
        let bare = json!({"spec": {"selector": {}, "template": {"spec": {"containers": []}}}});
        assert!(labels(WorkloadKind::Deployment, bare).is_empty());
    }

    #[test]
    fn non_workload_types_are_not_recognised() {
        assert_eq!(WorkloadKind::from_type("v1", "Service"), None);
        assert_eq!(
            WorkloadKind::from_type("argoproj.io/v1alpha1", "Rollout"),
            None
        );
        assert_eq!(
            WorkloadKind::from_type("example.com/v1", "Deployment"),
            None
        );
    }
}
