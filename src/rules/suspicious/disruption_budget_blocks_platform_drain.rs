use crate::lifecycle::platforms::Caps;
use crate::model::path::FieldPath;
use crate::model::scope::budget::Eviction;
use crate::rules::{Findings, ScopeContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a PodDisruptionBudget that never allows an eviction of the pods it covers (the
    /// cases of `disruption-budget-blocks-eviction`), in a cluster whose node upgrades drain
    /// with a timeout: an EKS managed node group update gives up after 15 minutes, an AKS node
    /// pool upgrade after `drainTimeoutInMinutes` (30 by default). The platforms are those
    /// `platforms:` in `.podcycle.yaml` or `--platform` names (`eks-node-update`,
    /// `aks-upgrade`); the figures are in [the platforms table](../platforms.md).
    ///
    /// ## Why is this bad?
    /// The eviction API refuses every eviction the budget does not allow (429). A managed
    /// upgrade retries until its drain timeout and then acts: EKS fails the update, or, when
    /// the update is forced, deletes the pods that could not be drained — without the budget;
    /// AKS fails the upgrade. Either the upgrade of every node pool that holds one of these
    /// pods fails, or the budget protects nothing.
    ///
    /// ## Example
    /// ```yaml
    /// # podcycle check --platform eks-node-update
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 0
    ///   selector:
    ///     matchLabels: {app: web}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
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
    /// Allow one pod to move at a time:
    /// ```yaml
    /// # podcycle check --platform eks-node-update
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: web}
    /// ---
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
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
    /// - kubernetes/kubernetes `pkg/registry/core/pod/storage/eviction.go`: an eviction the
    ///   budget does not allow is refused with 429.
    /// - kubernetes/kubernetes `pkg/controller/disruption/disruption.go`: how many disruptions
    ///   a budget allows.
    /// - [EKS: managed node update behavior](https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html):
    ///   15 minutes, then the update fails or, forced, deletes the pods.
    /// - [AKS: AgentPoolUpgradeSettings.drainTimeoutInMinutes](https://learn.microsoft.com/dotnet/api/microsoft.azure.management.containerservice.models.agentpoolupgradesettings.draintimeoutinminutes):
    ///   default 30 minutes; if exceeded, the upgrade fails.
    pub(crate) static RULE = {
        name: "disruption-budget-blocks-platform-drain",
        category: Suspicious,
        enforcement: Runtime,
        severity: Warning,
        fix: None,
        summary: "disruption budget that holds a managed upgrade's drain past its timeout",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let Some((budget, spec)) = ctx.created_budget() else {
        return;
    };
    if !matches!(ctx.scope.judgement(budget).eviction, Eviction::Never(_)) {
        return;
    }
    let field = if spec.max_unavailable.is_some() {
        "maxUnavailable"
    } else if spec.min_available.is_some() {
        "minAvailable"
    } else {
        "selector"
    };
    for &platform in ctx.platforms {
        let Some(timeout) = platform.limit(Caps::DrainTimeout) else {
            continue;
        };
        findings
            .report(
                Target::key(FieldPath::from_keys(&["spec", field])),
                format!(
                    "this budget never allows an eviction, so {} waits out its {}-minute drain timeout on every node with one of its pods: {}",
                    platform.stopped_by,
                    timeout.seconds / 60,
                    timeout.then
                ),
            )
            .platform(platform.name)
            .help("allow at least one eviction (`maxUnavailable: 1`)")
            .note(format!(
                "the platform `{}` is named by `platforms:` or `--platform` (docs/platforms.md)",
                platform.name
            ));
    }
}
