use crate::model::path::FieldPath;
use crate::model::scope::budget::{Blocker, Eviction};
use crate::rules::{Findings, ScopeContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a PodDisruptionBudget that can never allow an eviction of the pods it covers, even
    /// when all of them are healthy:
    /// - `maxUnavailable: 0` (or a percentage that comes to 0 pods);
    /// - `minAvailable` at or above the pods it covers — the workloads' `replicas`, or for an
    ///   autoscaled workload its HorizontalPodAutoscaler's `minReplicas` — or `100%`;
    /// - a percentage, or any `maxUnavailable`, over the pods of a DaemonSet, Job or CronJob,
    ///   which have no `scale` subresource, so the disruption controller cannot count them (a
    ///   CronJob's pods belong to the Jobs it creates: the lookup fails on the Job);
    /// - a percentage, or any `maxUnavailable`, over bare Pods only: the disruption controller
    ///   leaves pods without a controller out of the count, which stays 0 (its `UnmanagedPods`
    ///   event asks for an integer `minAvailable`);
    /// - neither `minAvailable` nor `maxUnavailable`.
    ///
    /// The workloads are those of the same directory, rendered chart or overlay, matched by
    /// namespace and selector as the disruption controller matches them.
    ///
    /// ## Why is this bad?
    /// The eviction API refuses every eviction of those pods while the budget allows none
    /// (429, "Cannot evict pod as it would violate the pod's disruption budget"). `kubectl
    /// drain` retries every 5 seconds and, with its default `--timeout` of 0, forever: every
    /// node drain, cluster upgrade and node pool rotation that meets one of the pods hangs
    /// until someone deletes the pod or the budget by hand. The Cluster Autoscaler cannot
    /// remove those nodes either.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 2
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
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
    ///   minAvailable: 2
    ///   selector:
    ///     matchLabels: {app: web}
    /// ```
    ///
    /// Let one pod go at a time, whatever the scale:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   replicas: 2
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
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
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/disruption/disruption.go`:
    ///   `getExpectedPodCount`, `getExpectedScale` and its finders (`getScaleController`:
    ///   "does not implement the scale subresource"), `updatePdbStatus` (no disruption when
    ///   `currentHealthy − desiredHealthy ≤ 0` or the expected count is 0), `failSafe`;
    ///   `getExpectedScale` skips a pod without a controller (`unmanagedPods`) and
    ///   `trySync` records the `UnmanagedPods` event.
    /// - kubernetes/kubernetes `pkg/registry/core/pod/storage/eviction.go`,
    ///   `checkAndDecrement`: 429 while `disruptionsAllowed` is 0.
    /// - kubernetes/kubectl `pkg/drain/drain.go`, `evictPods`: a 429 is retried every 5 s
    ///   until `--timeout`, 0 (forever) by default.
    /// - [Disruptions](https://kubernetes.io/docs/concepts/workloads/pods/disruptions/)
    pub(crate) static RULE = {
        name: "disruption-budget-blocks-eviction",
        category: Suspicious,
        enforcement: Runtime,
        summary: "disruption budget that never allows an eviction, which blocks every node drain",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let Some((budget, spec)) = ctx.created_budget() else {
        return;
    };
    let judgement = ctx.scope.judgement(budget);
    let Eviction::Never(blocker) = &judgement.eviction else {
        return;
    };
    let names = crate::text::short_phrase_list(
        ctx.scope
            .selected_by(budget)
            .map(|w| format!("`{}`", w.object.display_name())),
        ctx.scope.selected_count(budget),
    );
    let consequence = "every node drain that meets one of them waits forever (`kubectl drain` retries the eviction every 5s)";
    let path = FieldPath::from_keys(&["spec"]);
    let finding = match blocker {
        Blocker::MaxUnavailableZero { written } => findings
            .report(
                Target::value(path.key("maxUnavailable")),
                format!(
                    "`maxUnavailable: {written}` lets no pod of {names} be evicted, so {consequence}"
                ),
            )
            .help("allow at least one (`maxUnavailable: 1`); a pod that must never move needs no budget but its own replicas"),
        Blocker::MinAvailableAll {
            written,
            desired,
            pods,
        } => {
            let of = match (judgement.autoscaled, desired > pods) {
                (false, false) => format!("all {pods} pods of {names}"),
                (true, false) => {
                    format!("all {pods} pods {names} runs at its autoscaler's `minReplicas`")
                }
                (false, true) => format!("{desired} pods, more than the {pods} of {names}"),
                (true, true) => format!(
                    "{desired} pods, more than the {pods} {names} runs at its autoscaler's `minReplicas`"
                ),
            };
            findings
                .report(
                    Target::value(path.key("minAvailable")),
                    format!(
                        "`minAvailable: {written}` asks for {of} to stay available, so no eviction is ever allowed: {consequence}"
                    ),
                )
                .help("use `maxUnavailable: 1`, which follows the scale, or run more replicas than `minAvailable`")
        }
        Blocker::NoScale { workload } => {
            let field = if spec.max_unavailable.is_some() {
                "maxUnavailable"
            } else {
                "minAvailable"
            };
            // A CronJob's pods are owned by the Jobs it creates: the lookup fails on those.
            let owner = if workload.kind == "CronJob" {
                format!(
                    "the Jobs `{}` creates, which own its pods and have",
                    workload.display_name()
                )
            } else {
                format!("`{}`, which has", workload.display_name())
            };
            findings
                .report(
                    Target::value(path.key(field)),
                    format!(
                        "{} needs the scale of {owner} no `scale` subresource: the disruption controller cannot count the pods and allows no eviction, so {consequence}",
                        if field == "maxUnavailable" {
                            "`maxUnavailable`"
                        } else {
                            "a percentage `minAvailable`"
                        },
                    ),
                )
                .help("give a count of pods as `minAvailable`, or leave this workload's pods out of the selector")
        }
        Blocker::Unmanaged {
            field,
            written,
            workload,
        } => findings
            .report(
                Target::value(path.key(field)),
                format!(
                    "`{field}: {written}` is counted against the pods' controllers, and `{}` has none: the disruption controller leaves it out, expects 0 pods and allows no eviction, so {consequence}",
                    workload.display_name()
                ),
            )
            .help("give the pods to keep as an integer `minAvailable` (`minAvailable: 0` lets every one go), or run the pods under a controller"),
        Blocker::NoLimit => findings
            .report(
                Target::key(path.clone()),
                format!(
                    "the budget sets neither `minAvailable` nor `maxUnavailable`: the disruption controller expects no pods and allows no eviction of {names}, so {consequence}"
                ),
            )
            .help("set `maxUnavailable: 1`"),
    };
    for workload in ctx.scope.selected_by(budget).take(3) {
        if workload.at.file == budget.at.file {
            finding.span_label(
                workload.at.span,
                format!(
                    "`{}` is covered by this budget",
                    workload.object.display_name()
                ),
            );
        } else {
            finding.note(format!(
                "`{}` ({}) is covered by this budget",
                workload.object.display_name(),
                workload.at.display()
            ));
        }
    }
}
