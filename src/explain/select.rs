//! `--object KIND/NAME` and `--container NAME`.

use crate::model::{ObjectRef, WorkloadKind};

/// Kinds by the names kubectl accepts: the kind, its plural and its short name.
const KIND_NAMES: &[(WorkloadKind, &[&str])] = &[
    (WorkloadKind::Pod, &["pod", "pods", "po"]),
    (WorkloadKind::PodTemplate, &["podtemplate", "podtemplates"]),
    (
        WorkloadKind::ReplicationController,
        &["replicationcontroller", "replicationcontrollers", "rc"],
    ),
    (
        WorkloadKind::Deployment,
        &["deployment", "deployments", "deploy"],
    ),
    (
        WorkloadKind::ReplicaSet,
        &["replicaset", "replicasets", "rs"],
    ),
    (
        WorkloadKind::StatefulSet,
        &["statefulset", "statefulsets", "sts"],
    ),
    (WorkloadKind::DaemonSet, &["daemonset", "daemonsets", "ds"]),
    (WorkloadKind::Job, &["job", "jobs"]),
    (WorkloadKind::CronJob, &["cronjob", "cronjobs", "cj"]),
];

/// An object named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ObjectSelector {
    pub(crate) kind: WorkloadKind,
    pub(crate) name: String,
}

/// Why `--object TEXT` names no object.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BadObjectSelector {
    #[error("`--object {text}`: expected KIND/NAME, e.g. `Deployment/{text}`")]
    NoKind { text: String },
    #[error(
        "`--object {text}`: `{kind}` is not a kind with a pod spec; expected one of {}",
        pod_kinds()
    )]
    NotAPodKind { text: String, kind: String },
    #[error("`--object {text}`: the name is missing after `/`")]
    NoName { text: String },
}

/// The kinds `--object` takes, by their names.
fn pod_kinds() -> String {
    let kinds: Vec<&str> = KIND_NAMES.iter().map(|(k, _)| k.name()).collect();
    kinds.join(", ")
}

impl ObjectSelector {
    /// Parses `KIND/NAME`; the kind may be written as kubectl accepts it (`deploy/web`).
    pub(crate) fn parse(text: &str) -> Result<ObjectSelector, BadObjectSelector> {
        let Some((kind, name)) = text.split_once('/') else {
            return Err(BadObjectSelector::NoKind {
                text: text.to_owned(),
            });
        };
        let lowered = kind.to_ascii_lowercase();
        let Some(&(kind, _)) = KIND_NAMES
            .iter()
            .find(|(_, names)| names.contains(&lowered.as_str()))
        else {
            return Err(BadObjectSelector::NotAPodKind {
                text: text.to_owned(),
                kind: kind.to_owned(),
            });
        };
        if name.is_empty() {
            return Err(BadObjectSelector::NoName {
                text: text.to_owned(),
            });
        }
        Ok(ObjectSelector {
            kind,
            name: name.to_owned(),
        })
    }

    pub(crate) fn matches(&self, object: &ObjectRef) -> bool {
        object.kind == self.kind.name() && object.name.as_deref() == Some(self.name.as_str())
    }

    /// `Deployment/web`.
    pub(crate) fn display(&self) -> String {
        format!("{}/{}", self.kind.name(), self.name)
    }
}

/// What to explain.
#[derive(Clone, Debug, Default)]
pub(crate) struct PodFilter {
    pub(crate) object: Option<ObjectSelector>,
    pub(crate) container: Option<String>,
    /// A byte offset in the file (an editor's cursor): the object whose text holds it, or the
    /// objects of the document that holds it where none does.
    pub(crate) at: Option<u32>,
}

impl PodFilter {
    pub(crate) fn wants_object(&self, object: &ObjectRef) -> bool {
        self.object
            .as_ref()
            .is_none_or(|selector| selector.matches(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_read_the_way_kubectl_reads_them() {
        let selector = ObjectSelector::parse("deploy/web").unwrap();
        assert_eq!(selector.kind, WorkloadKind::Deployment);
        assert_eq!(selector.display(), "Deployment/web");
        assert_eq!(
            ObjectSelector::parse("StatefulSet/db").unwrap().kind,
            WorkloadKind::StatefulSet
        );
        assert_eq!(
            ObjectSelector::parse("web").unwrap_err().to_string(),
            "`--object web`: expected KIND/NAME, e.g. `Deployment/web`"
        );
        assert!(matches!(
            ObjectSelector::parse("Service/web"),
            Err(BadObjectSelector::NotAPodKind { kind, .. }) if kind == "Service"
        ));
        assert!(matches!(
            ObjectSelector::parse("Pod/"),
            Err(BadObjectSelector::NoName { .. })
        ));
    }
}
