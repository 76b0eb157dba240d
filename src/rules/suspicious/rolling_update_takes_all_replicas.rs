use crate::diagnostics::Severity;
use crate::lifecycle::rollout::{
    DaemonSetStrategy, DeploymentStrategy, Plan, ReplicaSource, StatefulSetUpdate,
};
use crate::model::amount::{Amount, statefulset_max_unavailable};
use crate::model::path::FieldPath;
use crate::rules::{Claim, Findings, RolloutContext, Target, declare_rule};
use crate::versions::MAX_UNAVAILABLE_STATEFULSET;

declare_rule! {
    /// ## What it does
    /// Finds a rolling update whose `maxUnavailable` resolves to every replica, so that a
    /// rollout may take them all down at once:
    /// - a Deployment of two replicas or more (for an autoscaled one, its autoscaler's
    ///   `minReplicas`) whose `maxUnavailable`, resolved as the controller resolves it, is all
    ///   of them;
    /// - a StatefulSet whose `maxUnavailable` (where the target version has it) is all of its
    ///   replicas;
    /// - a DaemonSet with `maxUnavailable: 100%`, as information.
    ///
    /// A single replica is not reported: with one pod, any rollout without surge has a gap,
    /// which is a choice (`Recreate` says it outright).
    ///
    /// A DaemonSet has no `Recreate`: its update strategy is `RollingUpdate` or `OnDelete`
    /// only, so `maxUnavailable: 100%` is how a project asks for every node's pod to be
    /// replaced together (Longhorn's manager does, to keep one version across the cluster).
    /// That is a choice made on purpose more often than not, and worth knowing rather than
    /// changing: information, not a warning.
    ///
    /// ## Why is this bad?
    /// The controller deletes old pods as long as `replicas − maxUnavailable` stay available:
    /// with nothing left to keep, it may delete every old pod before a new one is Ready, and
    /// the workload serves nothing until the new pods start. That is a `Recreate` in disguise,
    /// usually from a percentage meant for a larger scale.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 4
    ///   strategy:
    ///     rollingUpdate:
    ///       maxUnavailable: 100%
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
    /// Keep most replicas serving while new ones start:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 4
    ///   strategy:
    ///     rollingUpdate:
    ///       maxUnavailable: 1
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
    /// - kubernetes/kubernetes `pkg/controller/deployment/util/deployment_util.go`,
    ///   `ResolveFenceposts`, `MaxUnavailable`; `pkg/controller/deployment/rolling.go`,
    ///   `reconcileOldReplicaSets`.
    /// - kubernetes/kubernetes `pkg/controller/statefulset/stateful_set_utils.go`,
    ///   `getStatefulSetMaxUnavailable`; `pkg/controller/daemon/util/daemonset_util.go`,
    ///   `UnavailableCount`.
    /// - kubernetes/kubernetes `pkg/apis/apps/validation/validation.go`,
    ///   `ValidateDaemonSetUpdateStrategy`: `OnDelete` and `RollingUpdate` are the only types.
    pub(crate) static RULE = {
        name: "rolling-update-takes-all-replicas",
        category: Suspicious,
        enforcement: Runtime,
        summary: "rolling update whose maxUnavailable lets it take every replica down at once",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let name = format!("`{}`", ctx.site.object.display_name());
    match &ctx.rollout.plan {
        Plan::Deployment(plan) => {
            let DeploymentStrategy::RollingUpdate { unavailable, .. } = &plan.strategy else {
                return;
            };
            if unavailable.defaulted {
                return;
            }
            let replicas = plan.replicas.least;
            if replicas < 2 {
                return;
            }
            let Some(down) = plan.max_unavailable_at(replicas) else {
                return;
            };
            if down < replicas {
                return;
            }
            let at = if let ReplicaSource::Autoscaler { .. } = plan.replicas.source {
                format!("the {replicas} replicas {name} runs at its autoscaler's `minReplicas`")
            } else {
                format!("all {replicas} replicas of {name}")
            };
            findings
                .report(
                    Target::value(FieldPath::from_keys(&[
                        "spec",
                        "strategy",
                        "rollingUpdate",
                        "maxUnavailable",
                    ])),
                    format!(
                        "`maxUnavailable: {}` lets a rollout take {at} down at once, before any new pod is Ready",
                        unavailable.written
                    ),
                )
                .help("keep some replicas serving (`maxUnavailable: 25%` or `1`), and let the rollout surge with `maxSurge`")
                .claim(Claim::MaxUnavailablePods {
                    pods: down,
                    replicas,
                });
        }
        Plan::StatefulSet(plan) => {
            let StatefulSetUpdate::RollingUpdate {
                max_unavailable: Some(value),
                ..
            } = &plan.update
            else {
                return;
            };
            let replicas = plan.replicas.least;
            if replicas < 2 || !MAX_UNAVAILABLE_STATEFULSET.enabled(ctx.kube) {
                return;
            }
            let Some(down) = statefulset_max_unavailable(Some(value), replicas) else {
                return;
            };
            if down < replicas {
                return;
            }
            findings
                .report(
                    Target::value(FieldPath::from_keys(&[
                        "spec",
                        "updateStrategy",
                        "rollingUpdate",
                        "maxUnavailable",
                    ])),
                    format!(
                        "`maxUnavailable: {}` lets a rolling update delete all {replicas} pods of {name} at once",
                        Amount::read(value).map_or_else(String::new, Amount::text)
                    ),
                )
                .help("replace a few ordinals at a time (`maxUnavailable: 1` is the default)")
                .claim(Claim::MaxUnavailablePods {
                    pods: down.min(replicas),
                    replicas,
                });
        }
        Plan::DaemonSet(plan) => {
            let DaemonSetStrategy::RollingUpdate {
                max_unavailable, ..
            } = &plan.strategy
            else {
                return;
            };
            if !matches!(Amount::read(max_unavailable), Some(Amount::Percent(p)) if p >= 100) {
                return;
            }
            findings
                .report(
                    Target::value(FieldPath::from_keys(&[
                        "spec",
                        "updateStrategy",
                        "rollingUpdate",
                        "maxUnavailable",
                    ])),
                    format!(
                        "`maxUnavailable: 100%` lets a rollout delete the pod of {name} on every node at once, before any new pod is Ready"
                    ),
                )
                .help("if the nodes need not change together, replace a share of them at a time (`maxUnavailable: 10%`), or surge (`maxSurge`)")
                // A DaemonSet has no `Recreate`: 100 % is how every node is updated together
                // (`ValidateDaemonSetUpdateStrategy` allows `RollingUpdate` and `OnDelete`).
                .severity(Severity::Info);
        }
        _ => {}
    }
}
