//! Pod templates inside custom workload kinds — Argo Rollouts, OpenKruise, Knative, KEDA, Argo
//! Workflows, Kubeflow training jobs, Ray — from a table of data, and the kinds users add in
//! `.podcycle.yaml` (`pod-templates:`).
//!
//! Each template is decoded as a `PodTemplate` built from it, so every pod rule runs unchanged;
//! the paths of its findings are mapped back to where the template sits in the object. The
//! restart-policy rules judge each kind's pods by the built-in kind whose rules they follow
//! (`like`): a Rollout's pods belong to ReplicaSets, a ScaledJob's to Jobs.

use serde_json::{Map, Value};

use super::WorkloadKind;
use super::path::{FieldPath, PathSegment};

/// What a pod template entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A `PodTemplateSpec`: `metadata` and `spec`.
    PodTemplate,
    /// An Argo Workflows template: a `container` or `script` (the pod's `main` container),
    /// `initContainers` and `sidecars` (app containers after it).
    ArgoTemplate,
}

/// A kind whose objects carry pod templates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PodTemplateKind {
    /// The API group (`argoproj.io`; empty for the core group); any version matches.
    pub(crate) group: String,
    pub(crate) kind: String,
    /// Paths from the object to its pod templates: `spec.template`; `[*]` stands for every
    /// list item and `*` for every value of a mapping (`spec.pytorchReplicaSpecs.*.template`).
    pub(crate) paths: Vec<String>,
    /// The built-in kind whose rules the pods follow (restart policy, long-running or not).
    pub like: WorkloadKind,
    pub(crate) shape: Shape,
    /// The restart policy the controller gives every pod, whatever the template says.
    pub(crate) restart_policy: Option<String>,
    /// A key beside the template whose value the controller makes the pods' restart policy
    /// (`ExitCode` becoming `Never`).
    pub(crate) restart_policy_key: Option<String>,
    /// Fields of the kind's pod spec that a `PodSpec` does not have (Knative's
    /// `containerConcurrency`): not reported as unknown.
    pub(crate) extra_spec_fields: Vec<String>,
    /// The controller names the containers left unnamed (Knative: `user-container`).
    pub(crate) names_containers: bool,
}

/// One row of the built-in table: a [`PodTemplateKind`] written as constant data.
struct Row {
    group: &'static str,
    kind: &'static str,
    paths: &'static [&'static str],
    like: WorkloadKind,
    shape: Shape,
    restart_policy: Option<&'static str>,
    restart_policy_key: Option<&'static str>,
    extra_spec_fields: &'static [&'static str],
    names_containers: bool,
}

impl Row {
    /// A row for a kind that carries `PodTemplateSpec`s at `paths`, whose pods follow the rules
    /// of `like`; the other columns are set where a kind differs.
    const fn pod_template(
        group: &'static str,
        kind: &'static str,
        paths: &'static [&'static str],
        like: WorkloadKind,
    ) -> Row {
        Row {
            group,
            kind,
            paths,
            like,
            shape: Shape::PodTemplate,
            restart_policy: None,
            restart_policy_key: None,
            extra_spec_fields: &[],
            names_containers: false,
        }
    }

    /// An Argo Workflows kind: templates of its own shape, whose pods never restart.
    const fn argo_workflow(kind: &'static str, paths: &'static [&'static str]) -> Row {
        Row {
            shape: Shape::ArgoTemplate,
            restart_policy: Some("Never"),
            ..Row::pod_template("argoproj.io", kind, paths, WorkloadKind::Pod)
        }
    }

    /// A Kubeflow training job: replica specs whose `restartPolicy` replaces the template's.
    const fn kubeflow(kind: &'static str, paths: &'static [&'static str]) -> Row {
        Row {
            restart_policy_key: Some("restartPolicy"),
            ..Row::pod_template("kubeflow.org", kind, paths, WorkloadKind::Pod)
        }
    }

    /// A Knative Serving kind: a `PodSpec` beside fields of Knative's own, with unnamed
    /// containers named by the controller; revisions run as Deployments.
    const fn knative(kind: &'static str) -> Row {
        Row {
            extra_spec_fields: KNATIVE_SPEC,
            names_containers: true,
            ..Row::pod_template(
                "serving.knative.dev",
                kind,
                &["spec.template"],
                WorkloadKind::Deployment,
            )
        }
    }
}

const KNATIVE_SPEC: &[&str] = &[
    "containerConcurrency",
    "timeoutSeconds",
    "responseStartTimeoutSeconds",
    "idleTimeoutSeconds",
];
const ARGO_WORKFLOW: &[&str] = &["spec.templates[*]"];
const ARGO_CRON_WORKFLOW: &[&str] = &["spec.workflowSpec.templates[*]"];
const RAY_CLUSTER: &[&str] = &[
    "spec.headGroupSpec.template",
    "spec.workerGroupSpecs[*].template",
];
const RAY_JOB: &[&str] = &[
    "spec.rayClusterSpec.headGroupSpec.template",
    "spec.rayClusterSpec.workerGroupSpecs[*].template",
    "spec.submitterPodTemplate",
];
const RAY_SERVICE: &[&str] = &[
    "spec.rayClusterConfig.headGroupSpec.template",
    "spec.rayClusterConfig.workerGroupSpecs[*].template",
];

/// The built-in table. Sources, for each row's paths and restart-policy semantics:
/// - Argo Rollouts `pkg/apis/rollouts/v1alpha1/types.go` (`RolloutSpec.Template`); a Rollout runs
///   its pods through ReplicaSets, which only allow `Always`.
/// - OpenShift `apps/v1/types.go` (`DeploymentConfigSpec.Template`), through
///   ReplicationControllers.
/// - OpenKruise `apis/apps/v1alpha1/cloneset_types.go`, `apis/apps/v1beta1/statefulset_types.go`,
///   `apis/apps/v1alpha1/daemonset_types.go` (`Template`).
/// - Knative Serving `pkg/apis/serving/v1/revision_types.go` (`RevisionSpec` embeds a `PodSpec`
///   beside `containerConcurrency`, `timeoutSeconds`, …); revisions run as Deployments;
///   `revision_defaults.go` names unnamed containers.
/// - KEDA `apis/keda/v1alpha1/scaledjob_types.go` (`JobTargetRef *batchv1.JobSpec`): Jobs.
/// - Argo Workflows `workflow/controller/workflowpod.go`: every pod gets `RestartPolicy:
///   RestartPolicyNever`; the template's main container and `sidecars` are app containers, its
///   `initContainers` init containers.
/// - Kubeflow training-operator `setRestartPolicy`: the replica spec's `restartPolicy` replaces the
///   template's (`ExitCode` becomes `Never`); the operator creates the pods itself.
/// - KubeRay `ray-operator/controllers/ray/common/pod.go`: pods built from the templates as they are.
const BUILT_IN: &[Row] = &[
    Row::pod_template(
        "argoproj.io",
        "Rollout",
        &["spec.template"],
        WorkloadKind::ReplicaSet,
    ),
    Row::pod_template(
        "apps.openshift.io",
        "DeploymentConfig",
        &["spec.template"],
        WorkloadKind::ReplicationController,
    ),
    Row::pod_template(
        "",
        "DeploymentConfig",
        &["spec.template"],
        WorkloadKind::ReplicationController,
    ),
    Row::pod_template(
        "apps.kruise.io",
        "CloneSet",
        &["spec.template"],
        WorkloadKind::ReplicaSet,
    ),
    Row::pod_template(
        "apps.kruise.io",
        "StatefulSet",
        &["spec.template"],
        WorkloadKind::StatefulSet,
    ),
    Row::pod_template(
        "apps.kruise.io",
        "DaemonSet",
        &["spec.template"],
        WorkloadKind::DaemonSet,
    ),
    Row::knative("Service"),
    Row::knative("Configuration"),
    Row::pod_template(
        "keda.sh",
        "ScaledJob",
        &["spec.jobTargetRef.template"],
        WorkloadKind::Job,
    ),
    Row::argo_workflow("Workflow", ARGO_WORKFLOW),
    Row::argo_workflow("WorkflowTemplate", ARGO_WORKFLOW),
    Row::argo_workflow("ClusterWorkflowTemplate", ARGO_WORKFLOW),
    Row::argo_workflow("CronWorkflow", ARGO_CRON_WORKFLOW),
    Row::kubeflow("PyTorchJob", &["spec.pytorchReplicaSpecs.*.template"]),
    Row::kubeflow("TFJob", &["spec.tfReplicaSpecs.*.template"]),
    Row::kubeflow("XGBoostJob", &["spec.xgbReplicaSpecs.*.template"]),
    Row::kubeflow("MPIJob", &["spec.mpiReplicaSpecs.*.template"]),
    Row::kubeflow("PaddleJob", &["spec.paddleReplicaSpecs.*.template"]),
    Row::kubeflow("JAXJob", &["spec.jaxReplicaSpecs.*.template"]),
    Row::pod_template("ray.io", "RayCluster", RAY_CLUSTER, WorkloadKind::Pod),
    Row::pod_template("ray.io", "RayJob", RAY_JOB, WorkloadKind::Pod),
    Row::pod_template("ray.io", "RayService", RAY_SERVICE, WorkloadKind::Pod),
];

/// The kinds with pod templates podcycle knows: the built-in table, then the user's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PodTemplateKinds {
    user: Vec<PodTemplateKind>,
}

impl PodTemplateKinds {
    pub(crate) fn new(user: Vec<PodTemplateKind>) -> PodTemplateKinds {
        PodTemplateKinds { user }
    }

    /// The kind for an object's `apiVersion` and `kind`: the user's first (it may refine a
    /// built-in one), then the built-in table.
    pub fn find(&self, api_version: &str, kind: &str) -> Option<PodTemplateKind> {
        let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
        if let Some(user) = self
            .user
            .iter()
            .find(|k| k.group == group && k.kind == kind)
        {
            return Some(user.clone());
        }
        built_in()
            .iter()
            .find(|k| k.group == group && k.kind == kind)
            .cloned()
    }
}

/// The names of the built-in kinds, for documentation: `argoproj.io/Rollout`.
#[cfg(test)]
pub(crate) fn built_in_names() -> Vec<String> {
    built_in()
        .iter()
        .map(|k| {
            if k.group.is_empty() {
                k.kind.clone()
            } else {
                format!("{}/{}", k.group, k.kind)
            }
        })
        .collect()
}

fn built_in() -> &'static [PodTemplateKind] {
    static TABLE: std::sync::OnceLock<Vec<PodTemplateKind>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        BUILT_IN
            .iter()
            .map(|row| PodTemplateKind {
                group: row.group.to_owned(),
                kind: row.kind.to_owned(),
                paths: row.paths.iter().map(|p| (*p).to_owned()).collect(),
                like: row.like,
                shape: row.shape,
                restart_policy: row.restart_policy.map(str::to_owned),
                restart_policy_key: row.restart_policy_key.map(str::to_owned),
                extra_spec_fields: row
                    .extra_spec_fields
                    .iter()
                    .map(|f| (*f).to_owned())
                    .collect(),
                names_containers: row.names_containers,
            })
            .collect()
    })
}

/// Why a template path (`pod-templates[].path`) does not parse; each names the whole path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PathError {
    #[error("the path is empty")]
    Empty,
    #[error("empty segment in `{path}`")]
    EmptySegment { path: String },
    #[error("unclosed `[` in `{path}`")]
    Unclosed { path: String },
    #[error("`[{index}]` in `{path}`: write a list index or `[*]`")]
    NotAnIndex { path: String, index: String },
    #[error("unexpected `{rest}` in `{path}`")]
    Unexpected { path: String, rest: String },
}

/// Parses a path with wildcards: `spec.workerGroupSpecs[*].template`.
pub(crate) fn parse_path(path: &str) -> Result<Vec<Step>, PathError> {
    let path_owned = || path.to_owned();
    let mut steps = Vec::new();
    for part in path.split('.') {
        let (name, rest) = match part.find('[') {
            Some(at) => (&part[..at], &part[at..]),
            None => (part, ""),
        };
        match name {
            "" if rest.is_empty() => {
                return Err(PathError::EmptySegment { path: path_owned() });
            }
            "" => {}
            "*" => steps.push(Step::AnyValue),
            name => steps.push(Step::Key(name.to_owned())),
        }
        let mut rest = rest;
        while let Some(inner) = rest.strip_prefix('[') {
            let close = inner
                .find(']')
                .ok_or_else(|| PathError::Unclosed { path: path_owned() })?;
            match &inner[..close] {
                "*" => steps.push(Step::AnyItem),
                index => steps.push(Step::Index(index.parse().map_err(|_| {
                    PathError::NotAnIndex {
                        path: path_owned(),
                        index: index.to_owned(),
                    }
                })?)),
            }
            rest = &inner[close + 1..];
        }
        if !rest.is_empty() {
            return Err(PathError::Unexpected {
                path: path_owned(),
                rest: rest.to_owned(),
            });
        }
    }
    if steps.is_empty() {
        return Err(PathError::Empty);
    }
    Ok(steps)
}

/// A step of a template path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Key(String),
    Index(usize),
    AnyItem,
    AnyValue,
}

/// A pod template found in an object.
#[derive(Clone, Debug)]
pub struct FoundTemplate {
    /// Where the template is, from the object root.
    pub(crate) path: FieldPath,
    /// A `PodTemplate` object built from it, for the typed decoding.
    pub object: Value,
    pub(crate) shape: Shape,
    /// Fields left out of the spec before decoding (the kind's own, not a `PodSpec`'s).
    pub extra_fields: Vec<String>,
    /// For an Argo template: the key that holds the main container (`container`, `script`).
    pub(crate) main_key: &'static str,
}

impl FoundTemplate {
    /// The path in the object of a path in the built `PodTemplate` (`template.spec.…`).
    pub fn remap(&self, path: &FieldPath) -> FieldPath {
        let segments = path.segments();
        let Some((PathSegment::Key(first), rest)) = segments.split_first() else {
            return self.path.clone();
        };
        if first != "template" {
            return self.path.clone();
        }
        match self.shape {
            Shape::PodTemplate => self.path.join(rest),
            Shape::ArgoTemplate => match rest {
                [
                    PathSegment::Key(spec),
                    PathSegment::Key(list),
                    PathSegment::Index(index),
                    tail @ ..,
                ] if spec == "spec" => {
                    let base = match (list.as_str(), *index) {
                        ("containers", 0) => self.path.key(self.main_key),
                        ("containers", index) => self.path.key("sidecars").index(index - 1),
                        ("initContainers", index) => self.path.key("initContainers").index(index),
                        _ => return self.path.clone(),
                    };
                    base.join(tail)
                }
                // Pod-level fields are not written in an Argo template: the template itself.
                _ => self.path.clone(),
            },
        }
    }
}

/// Every pod template of an object of `kind`.
pub fn templates(kind: &PodTemplateKind, object: &Value) -> Vec<FoundTemplate> {
    let mut found = Vec::new();
    for path in &kind.paths {
        let Ok(steps) = parse_path(path) else {
            continue;
        };
        let mut places = Vec::new();
        walk(object, &steps, FieldPath::default(), None, &mut places);
        for (path, value, parent) in places {
            if let Some((template, main_key)) = build(kind, value, parent) {
                found.push(FoundTemplate {
                    path,
                    object: template,
                    shape: kind.shape,
                    extra_fields: kind.extra_spec_fields.clone(),
                    main_key,
                });
            }
        }
    }
    found
}

/// The values `steps` lead to, with their paths and the mapping that holds each.
fn walk<'a>(
    value: &'a Value,
    steps: &[Step],
    path: FieldPath,
    parent: Option<&'a Value>,
    out: &mut Vec<(FieldPath, &'a Value, Option<&'a Value>)>,
) {
    let Some((step, rest)) = steps.split_first() else {
        out.push((path, value, parent));
        return;
    };
    match step {
        Step::Key(key) => {
            if let Some(next) = value.get(key) {
                walk(next, rest, path.key(key), Some(value), out);
            }
        }
        Step::Index(index) => {
            if let Some(next) = value.get(index) {
                walk(next, rest, path.index(*index), Some(value), out);
            }
        }
        Step::AnyItem => {
            for (index, item) in value.as_array().into_iter().flatten().enumerate() {
                walk(item, rest, path.index(index), Some(value), out);
            }
        }
        Step::AnyValue => {
            for (key, item) in value.as_object().into_iter().flatten() {
                walk(item, rest, path.key(key), Some(value), out);
            }
        }
    }
}

/// The `PodTemplate` object that stands for a template, or `None` when the entry holds no pod
/// (an Argo `steps` or `dag` template).
fn build(
    kind: &PodTemplateKind,
    template: &Value,
    parent: Option<&Value>,
) -> Option<(Value, &'static str)> {
    let (mut pod_template, main_key) = match kind.shape {
        Shape::PodTemplate => {
            let mut template = template.as_object()?.clone();
            if let Some(Value::Object(spec)) = template.get_mut("spec") {
                for field in &kind.extra_spec_fields {
                    spec.remove(field);
                }
                if kind.names_containers {
                    name_containers(spec);
                    probe_the_user_port(spec);
                }
            }
            (template, "")
        }
        Shape::ArgoTemplate => argo_pod(template)?,
    };
    let policy = kind.restart_policy.clone().or_else(|| {
        let key = kind.restart_policy_key.as_deref()?;
        let policy = parent?.get(key)?.as_str()?;
        Some(
            if policy == "ExitCode" {
                "Never"
            } else {
                policy
            }
            .to_owned(),
        )
    });
    if let Some(policy) = policy
        && let Some(Value::Object(spec)) = pod_template.get_mut("spec")
    {
        spec.insert("restartPolicy".to_owned(), Value::String(policy));
    }
    let mut object = Map::new();
    object.insert("apiVersion".to_owned(), "v1".into());
    object.insert("kind".to_owned(), "PodTemplate".into());
    object.insert("template".to_owned(), Value::Object(pod_template));
    Some((Value::Object(object), main_key))
}

/// Knative's defaulting (`revision_defaults.go`, `applyDefaultContainerNames`): a container
/// without a name is named `user-container` (`user-container-N` among several), an init
/// container `init-container` likewise.
fn name_containers(spec: &mut Map<String, Value>) {
    for (list, base) in [
        ("containers", "user-container"),
        ("initContainers", "init-container"),
    ] {
        let Some(Value::Array(containers)) = spec.get_mut(list) else {
            continue;
        };
        let single = containers.len() == 1;
        for (index, container) in containers.iter_mut().enumerate() {
            if let Value::Object(container) = container
                && !container.contains_key("name")
            {
                let name = if single {
                    base.to_owned()
                } else {
                    format!("{base}-{index}")
                };
                container.insert("name".to_owned(), name.into());
            }
        }
    }
}

/// Knative's default user port (`pkg/apis/serving/v1`, `DefaultUserPort`).
const KNATIVE_DEFAULT_USER_PORT: u64 = 8080;

/// Knative probes the serving container on its port when a readiness or liveness probe
/// names none: the queue-proxy runs the readiness probe against the user port, and the
/// liveness probe's port is rewritten to it (`pkg/reconciler/revision/resources/deploy.go`,
/// `makeContainer`, `rewriteUserLivenessProbe`; `queue.go`). The serving container is the
/// only one, or the one with `ports`; its port is the first declared, else 8080
/// (`getUserPort`).
fn probe_the_user_port(spec: &mut Map<String, Value>) {
    let Some(Value::Array(containers)) = spec.get_mut("containers") else {
        return;
    };
    let single = containers.len() == 1;
    let Some(Value::Object(serving)) = containers.iter_mut().find(|c| {
        single
            || c.get("ports")
                .and_then(Value::as_array)
                .is_some_and(|p| !p.is_empty())
    }) else {
        return;
    };
    let port = serving
        .get("ports")
        .and_then(|ports| ports.get(0))
        .and_then(|port| port.get("containerPort"))
        .and_then(Value::as_u64)
        .filter(|port| *port != 0)
        .unwrap_or(KNATIVE_DEFAULT_USER_PORT);
    for probe in ["readinessProbe", "livenessProbe"] {
        for handler in ["httpGet", "tcpSocket"] {
            let Some(Value::Object(action)) =
                serving.get_mut(probe).and_then(|p| p.get_mut(handler))
            else {
                continue;
            };
            let unset = match action.get("port") {
                None => true,
                Some(port) => port.as_u64() == Some(0),
            };
            if unset {
                action.insert("port".to_owned(), port.into());
            }
        }
    }
}

/// The pod Argo Workflows runs for a template: its main container (`container`, or `script`
/// without `source`), named `main`, then its `sidecars`; its `initContainers`.
fn argo_pod(template: &Value) -> Option<(Map<String, Value>, &'static str)> {
    let (main, which) = match (template.get("container"), template.get("script")) {
        (Some(container), _) => (container.clone(), "container"),
        (None, Some(script)) => (script.clone(), "script"),
        (None, None) => return None,
    };
    let strip = |container: &Value, keys: &[&str]| -> Value {
        let mut container = container.clone();
        if let Value::Object(map) = &mut container {
            for key in keys {
                map.remove(*key);
            }
        }
        container
    };
    let mut main = strip(&main, &["source"]);
    // Argo names the main container `main` whatever the template says (`name: ""` is common
    // in exported workflows): workflow/controller/workflowpod.go, `createWorkflowPod`,
    // `mainCtr.Name = common.MainContainerName`.
    if let Value::Object(map) = &mut main {
        map.insert("name".to_owned(), "main".into());
    }
    let mut containers = vec![main];
    containers.extend(
        template
            .get("sidecars")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|c| strip(c, &["mirrorVolumeMounts"])),
    );
    let init: Vec<Value> = template
        .get("initContainers")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| strip(c, &["mirrorVolumeMounts"]))
        .collect();
    let mut spec = Map::new();
    spec.insert("containers".to_owned(), Value::Array(containers));
    if !init.is_empty() {
        spec.insert("initContainers".to_owned(), Value::Array(init));
    }
    let mut pod = Map::new();
    pod.insert("spec".to_owned(), Value::Object(spec));
    Some((pod, which))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_with_wildcards() {
        assert_eq!(
            parse_path("spec.workerGroupSpecs[*].template").unwrap(),
            [
                Step::Key("spec".into()),
                Step::Key("workerGroupSpecs".into()),
                Step::AnyItem,
                Step::Key("template".into())
            ]
        );
        assert_eq!(parse_path("spec.*.template").unwrap()[1], Step::AnyValue);
        assert!(matches!(
            parse_path("spec..x"),
            Err(PathError::EmptySegment { .. })
        ));
        assert_eq!(
            parse_path("spec.a[x]").unwrap_err().to_string(),
            "`[x]` in `spec.a[x]`: write a list index or `[*]`"
        );
    }

    #[test]
    fn kubeflow_replica_policies_replace_the_templates() {
        let kinds = PodTemplateKinds::default();
        let kind = kinds.find("kubeflow.org/v1", "PyTorchJob").unwrap();
        let object = json!({"spec": {"pytorchReplicaSpecs": {
            "Master": {"restartPolicy": "ExitCode", "template": {"spec": {"containers": [{"name": "a"}]}}},
            "Worker": {"template": {"spec": {"restartPolicy": "Always", "containers": [{"name": "b"}]}}}
        }}});
        let found = templates(&kind, &object);
        assert_eq!(found.len(), 2);
        assert_eq!(
            found[0].path.to_string(),
            "spec.pytorchReplicaSpecs.Master.template"
        );
        assert_eq!(
            found[0].object["template"]["spec"]["restartPolicy"],
            "Never"
        );
        assert_eq!(
            found[1].object["template"]["spec"]["restartPolicy"],
            "Always"
        );
    }

    #[test]
    fn argo_templates_become_pods() {
        let kinds = PodTemplateKinds::default();
        let kind = kinds.find("argoproj.io/v1alpha1", "Workflow").unwrap();
        let object = json!({"spec": {"templates": [
            {"name": "steps", "steps": []},
            {"name": "run", "script": {"image": "python", "source": "print(1)"},
             "sidecars": [{"name": "db", "image": "postgres", "mirrorVolumeMounts": true}]}
        ]}});
        let found = templates(&kind, &object);
        assert_eq!(found.len(), 1);
        let pod = &found[0].object["template"]["spec"];
        assert_eq!(pod["restartPolicy"], "Never");
        assert_eq!(
            pod["containers"][0],
            json!({"image": "python", "name": "main"})
        );
        assert_eq!(
            pod["containers"][1],
            json!({"image": "postgres", "name": "db"})
        );
        let remapped = |p: FieldPath| found[0].remap(&p).to_string();
        let spec = FieldPath::from_keys(&["template", "spec"]);
        assert_eq!(
            remapped(spec.key("containers").index(0).key("image")),
            "spec.templates[1].script.image"
        );
        assert_eq!(
            remapped(spec.key("containers").index(1).key("lifecycle")),
            "spec.templates[1].sidecars[0].lifecycle"
        );
        assert_eq!(remapped(spec.key("restartPolicy")), "spec.templates[1]");
    }

    #[test]
    fn knative_fields_of_its_own_are_left_out() {
        let kinds = PodTemplateKinds::default();
        let kind = kinds.find("serving.knative.dev/v1", "Service").unwrap();
        let object = json!({"spec": {"template": {"spec": {"containerConcurrency": 10, "containers": [{"image": "x"}]}}}});
        let found = templates(&kind, &object);
        assert!(
            found[0].object["template"]["spec"]
                .get("containerConcurrency")
                .is_none()
        );
        assert_eq!(
            found[0]
                .remap(&FieldPath::from_keys(&["template", "spec", "containers"]))
                .to_string(),
            "spec.template.spec.containers"
        );
        assert!(kinds.find("serving.knative.dev/v1", "Route").is_none());
    }

    #[test]
    fn knative_probes_without_a_port_probe_the_user_port() {
        let kinds = PodTemplateKinds::default();
        let kind = kinds.find("serving.knative.dev/v1", "Service").unwrap();
        let probe = |object: serde_json::Value, probe: &str| {
            let found = templates(&kind, &object);
            found[0].object["template"]["spec"]["containers"][0][probe].clone()
        };
        let object = json!({"spec": {"template": {"spec": {"containers": [{"image": "x",
            "readinessProbe": {"httpGet": {"path": "/ready"}},
            "livenessProbe": {"tcpSocket": {"port": 0}}}]}}}});
        assert_eq!(
            probe(object.clone(), "readinessProbe")["httpGet"]["port"],
            8080
        );
        assert_eq!(probe(object, "livenessProbe")["tcpSocket"]["port"], 8080);
        let declared = json!({"spec": {"template": {"spec": {"containers": [{"image": "x",
            "ports": [{"containerPort": 9000}],
            "livenessProbe": {"httpGet": {"path": "/"}}}]}}}});
        assert_eq!(probe(declared, "livenessProbe")["httpGet"]["port"], 9000);
        let named = json!({"spec": {"template": {"spec": {"containers": [{"image": "x",
            "readinessProbe": {"httpGet": {"port": "http"}}}]}}}});
        assert_eq!(probe(named, "readinessProbe")["httpGet"]["port"], "http");
    }

    #[test]
    fn user_kinds_come_first() {
        let kinds = PodTemplateKinds::new(vec![PodTemplateKind {
            group: "example.com".into(),
            kind: "Widget".into(),
            paths: vec!["spec.podTemplate".into()],
            like: WorkloadKind::Deployment,
            shape: Shape::PodTemplate,
            restart_policy: None,
            restart_policy_key: None,
            extra_spec_fields: Vec::new(),
            names_containers: false,
        }]);
        assert_eq!(
            kinds.find("example.com/v2", "Widget").unwrap().like,
            WorkloadKind::Deployment
        );
        assert!(kinds.find("example.com/v2", "Gadget").is_none());
        assert!(built_in_names().contains(&"argoproj.io/Rollout".to_owned()));
    }
}
