use crate::model::path::FieldPath;
use crate::rules::{DocumentContext, Findings, Target, declare_rule};
use crate::versions::{KubeVersion, removed_in};

declare_rule! {
    /// ## What it does
    /// Finds an object whose `apiVersion` and `kind` the target Kubernetes version does not
    /// serve: a workload kind under a group it does not belong to (`kind: Pod` with
    /// `apiVersion: apps/v1`), or under a version that was removed (`extensions/v1beta1`,
    /// `apps/v1beta1` and `apps/v1beta2` Deployments, ReplicaSets, StatefulSets and DaemonSets,
    /// stopped in 1.16; `batch/v1beta1` CronJobs, `policy/v1beta1` PodDisruptionBudgets and
    /// `autoscaling/v2beta1` HorizontalPodAutoscalers, stopped in 1.25; `autoscaling/v2beta2`
    /// HorizontalPodAutoscalers, stopped in 1.26).
    ///
    /// ## Why is this bad?
    /// kubectl maps every object to an API resource before it sends it, and refuses one the
    /// cluster does not serve: `resource mapping not found for name: "web" … no matches for
    /// kind "Deployment" in version "extensions/v1beta1"`. Nothing of the object is applied.
    /// Old tutorials and charts still carry these versions.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: extensions/v1beta1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// Use the version the cluster serves:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/cli-runtime `pkg/resource/mapper.go`, `infoForData`: the REST mapping
    ///   that fails with "no matches for kind".
    /// - kubernetes/website `content/en/docs/reference/using-api/deprecation-guide.md`: the
    ///   versions removed in 1.16, 1.25 and 1.26.
    pub(crate) static RULE = {
        name: "unserved-api-version",
        category: Correctness,
        enforcement: Decoder,
        summary: "apiVersion and kind that the cluster does not serve",
        check: crate::rules::Check::Document(check),
    }
}

/// The kinds served by the groups this rule knows, with the version serving each.
const SERVED: [(&str, &str); 14] = [
    ("Pod", "v1"),
    ("PodTemplate", "v1"),
    ("ReplicationController", "v1"),
    ("Deployment", "apps/v1"),
    ("ReplicaSet", "apps/v1"),
    ("StatefulSet", "apps/v1"),
    ("DaemonSet", "apps/v1"),
    ("ControllerRevision", "apps/v1"),
    ("Job", "batch/v1"),
    ("CronJob", "batch/v1"),
    ("Scale", "apps/v1"),
    ("PodDisruptionBudget", "policy/v1"),
    ("HorizontalPodAutoscaler", "autoscaling/v2"),
    ("Status", "v1"),
];

fn check(ctx: &DocumentContext<'_>, findings: &mut Findings) {
    // A patch names the object it changes; Kustomize, not kubectl, reads it.
    if ctx.partial {
        return;
    }
    for object in ctx.objects {
        let (api_version, kind) = (object.api_version.as_str(), object.kind.as_str());
        if served(api_version, kind, ctx.kube) {
            continue;
        }
        let path = object
            .prefix
            .join(FieldPath::from_keys(&["apiVersion"]).segments());
        let help = match SERVED.iter().find(|(k, _)| *k == kind) {
            Some((_, version)) => format!("use `apiVersion: {version}`"),
            None => "use an apiVersion the cluster serves for this kind (`kubectl api-resources` lists them)".to_owned(),
        };
        findings
            .report(
                Target::value(path),
                format!(
                    "Kubernetes {} serves no `{kind}` in `{api_version}`: kubectl refuses the object (no matches for kind)",
                    ctx.kube
                ),
            )
            .help(help);
    }
}

/// Whether the cluster serves `kind` at `api_version`, as far as this rule can tell: the groups
/// `apps`, `batch` and `extensions` exactly, and the core group for the kinds of `SERVED`;
/// anything else (the rest of the core group, other groups, custom resources) is taken as
/// served.
fn served(api_version: &str, kind: &str, kube: KubeVersion) -> bool {
    if kind.ends_with("List") {
        return true;
    }
    if let Some(removed) = removed_in(api_version, kind) {
        return kube < removed;
    }
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    let known_kind = SERVED.iter().any(|(k, _)| *k == kind);
    if !matches!(group, "" | "apps" | "batch" | "extensions") || (group.is_empty() && !known_kind) {
        return true;
    }
    match SERVED.iter().find(|(k, _)| *k == kind) {
        Some((_, version)) => *version == api_version,
        // Another kind of the core group, served or not, is not this rule's to judge.
        None => group.is_empty() && api_version == "v1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_pairs() {
        let kube = KubeVersion::new(35);
        assert!(served("apps/v1", "Deployment", kube));
        assert!(served("v1", "Service", kube));
        assert!(served("example.com/v1", "Pod", kube));
        assert!(served("v1", "List", kube));
        assert!(!served("apps/v1", "Pod", kube));
        assert!(!served("extensions/v1beta1", "Deployment", kube));
        assert!(!served("extensions/v1beta1", "Ingress", kube));
        assert!(!served("v1", "Deployment", kube));
        assert!(!served("batch/v1beta1", "CronJob", kube));
        assert!(served("batch/v1beta1", "CronJob", KubeVersion::new(24)));
        assert!(!served("policy/v1beta1", "PodDisruptionBudget", kube));
        assert!(served(
            "policy/v1beta1",
            "PodDisruptionBudget",
            KubeVersion::new(24)
        ));
        assert!(!served(
            "autoscaling/v2beta2",
            "HorizontalPodAutoscaler",
            kube
        ));
        assert!(served(
            "autoscaling/v2beta2",
            "HorizontalPodAutoscaler",
            KubeVersion::new(25)
        ));
        assert!(served("autoscaling/v1", "HorizontalPodAutoscaler", kube));
        assert!(served("policy/v1", "PodDisruptionBudget", kube));
    }
}
