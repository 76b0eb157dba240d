use crate::model::path::FieldPath;
use crate::model::selector::{Selects, selects};
use crate::rules::{Findings, ScopeContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a PodDisruptionBudget that covers no pod: one without a `selector` (which selects
    /// nothing), and one whose selector matches the pod template of no workload of the same
    /// directory, rendered chart or overlay while there are workloads there.
    ///
    /// It stays quiet when the scope holds no workload in the budget's namespace (they are
    /// applied from elsewhere), and when it holds custom resources podcycle does not know,
    /// whose operators may create the pods the budget is for — the Prometheus Operator's
    /// `Prometheus`, `Alertmanager`, `ThanosRuler` and `PrometheusAgent` among them, which it
    /// runs in StatefulSets of its own (prometheus-operator `pkg/alertmanager/statefulset.go`,
    /// `makeStatefulSet`); its `ServiceMonitor`s and rules create none.
    ///
    /// ## Why is this bad?
    /// The budget protects nothing: a node drain may evict every pod the author meant it to
    /// keep running. A label renamed in the template but not in the budget, or a budget copied
    /// from another chart, is the usual cause.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
    ///   selector:
    ///     matchLabels: {app.kubernetes.io/name: web}
    ///   template:
    ///     metadata:
    ///       labels: {app.kubernetes.io/name: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: web}
    /// ```
    ///
    /// Select the labels the pods have:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 3
    ///   selector:
    ///     matchLabels: {app.kubernetes.io/name: web}
    ///   template:
    ///     metadata:
    ///       labels: {app.kubernetes.io/name: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ---
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app.kubernetes.io/name: web}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/registry/core/pod/storage/eviction.go`,
    ///   `getPodDisruptionBudgets`, and `pkg/controller/disruption/disruption.go`,
    ///   `getPodsForPdb`: a budget covers the pods of its namespace its selector selects.
    /// - kubernetes/apimachinery `pkg/apis/meta/v1/helpers.go`, `LabelSelectorAsSelector`: a
    ///   missing selector selects nothing.
    /// - kubernetes/client-go `listers/policy/v1/poddisruptionbudget_expansion.go`: in
    ///   `policy/v1` an empty selector selects every pod of the namespace.
    pub(crate) static RULE = {
        name: "disruption-budget-selects-nothing",
        category: Suspicious,
        enforcement: Runtime,
        summary: "disruption budget whose selector covers no pod of the workloads beside it",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let Some((budget, spec)) = ctx.budget() else {
        return;
    };
    let path = FieldPath::from_keys(&["spec"]);
    if selects(spec.selector.as_ref()) == Selects::Nothing {
        findings
            .report(
                Target::key(path.key("selector")),
                "the budget has no `selector`, so it covers no pod",
            )
            .help("select the labels of the pods to protect under `spec.selector.matchLabels`");
        return;
    }
    if !ctx.scope.opaque().is_empty() || ctx.scope.selected_by(budget).next().is_some() {
        return;
    }
    let namespace = budget.object.namespace.as_deref();
    let beside: Vec<_> = ctx
        .scope
        .workloads()
        .iter()
        .filter(|w| match (namespace, w.object.namespace.as_deref()) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        })
        .collect();
    if beside.is_empty() {
        return;
    }
    let names = crate::text::short_phrase_list(
        beside
            .iter()
            .map(|w| format!("`{}`", w.object.display_name())),
        beside.len(),
    );
    let finding = findings
        .report(
            Target::key(path.key("selector")),
            format!(
                "the budget's selector matches the pods of no workload here ({names}), so it protects nothing"
            ),
        )
        .help("select the labels of the pod template it is meant for");
    for workload in beside.iter().take(1) {
        if workload.at.file == budget.at.file
            && let Some(labels) = workload.pod_labels.first()
        {
            let shown =
                crate::text::phrase_list(labels.iter().take(4).map(|(k, v)| format!("`{k}: {v}`")));
            let what = if shown.is_empty() {
                "no labels".to_owned()
            } else {
                shown
            };
            finding.span_label(
                workload.at.span,
                format!(
                    "the pods of `{}` have {what}",
                    workload.object.display_name()
                ),
            );
        }
    }
}
