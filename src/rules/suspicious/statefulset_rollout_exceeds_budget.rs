use crate::lifecycle::rollout::{Plan, PodManagement, StatefulSetUpdate};
use crate::lifecycle::seconds;
use crate::model::path::FieldPath;
use crate::rules::{Claim, Findings, RolloutContext, Target, declare_rule};
use crate::text;
use crate::versions::MAX_UNAVAILABLE_STATEFULSET;

declare_rule! {
    /// ## What it does
    /// Finds a StatefulSet whose rollout certainly takes longer than the rollout budget —
    /// `rollout-budget-seconds` in `.podcycle.yaml`, 300 s by default, the default `--timeout`
    /// of `helm install --wait` and `helm upgrade --wait`:
    /// - its rolling update, which replaces one ordinal at a time (or `maxUnavailable` at a
    ///   time where the version has it): each waits for the old pod's shutdown, the new pod's
    ///   startup and `minReadySeconds`;
    /// - with `podManagementPolicy: OrderedReady`, its creation, which starts each ordinal
    ///   only once the one before it is Ready and available.
    ///
    /// Only what the spec makes certain is counted — preStop hooks, sleeps, probe delays,
    /// `minReadySeconds` — never image pulls or a probe's tries: the real rollout is longer.
    ///
    /// ## Why is this bad?
    /// Whoever waits for the rollout gives up first: `helm upgrade --wait` fails the release
    /// after 5 minutes by default (and with `--atomic` rolls it back, which takes as long
    /// again), a CI job's `kubectl rollout status --timeout` fails the pipeline. The rollout
    /// itself goes on, so the failure report and the cluster disagree.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: StatefulSet
    /// metadata:
    ///   name: db
    /// spec:
    ///   replicas: 5
    ///   serviceName: db
    ///   minReadySeconds: 30
    ///   selector:
    ///     matchLabels: {app: db}
    ///   template:
    ///     metadata:
    ///       labels: {app: db}
    ///     spec:
    ///       containers:
    ///       - name: db
    ///         image: example/db:1.0
    ///         readinessProbe:
    ///           tcpSocket: {port: 5432}
    ///           initialDelaySeconds: 60
    /// ```
    ///
    /// Replace several ordinals at a time and create them in parallel, where the application
    /// allows it:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: StatefulSet
    /// metadata:
    ///   name: db
    /// spec:
    ///   replicas: 5
    ///   serviceName: db
    ///   minReadySeconds: 30
    ///   podManagementPolicy: Parallel
    ///   updateStrategy:
    ///     rollingUpdate:
    ///       maxUnavailable: 3
    ///   selector:
    ///     matchLabels: {app: db}
    ///   template:
    ///     metadata:
    ///       labels: {app: db}
    ///     spec:
    ///       containers:
    ///       - name: db
    ///         image: example/db:1.0
    ///         readinessProbe:
    ///           tcpSocket: {port: 5432}
    ///           initialDelaySeconds: 60
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/statefulset/stateful_set_control.go`:
    ///   `processReplica` (OrderedReady waits for each ordinal to be Running, Ready and
    ///   available), `updateStatefulSet` (one ordinal at a time, from the highest, waiting
    ///   while it is unavailable), `updateStatefulSetAfterInvariantEstablished`
    ///   (`maxUnavailable`); "unavailable" is `isUnavailable` (`stateful_set_utils.go`): not
    ///   available for `minReadySeconds`, or terminating, under `Parallel` as under
    ///   `OrderedReady` since 1.34 (kubernetes/kubernetes#130909).
    /// - helm/helm `pkg/cmd/upgrade.go` and `install.go`: `--timeout` defaults to 300 s.
    pub(crate) static RULE = {
        name: "statefulset-rollout-exceeds-budget",
        category: Suspicious,
        enforcement: Runtime,
        summary: "rollout of a StatefulSet that certainly takes longer than the rollout budget",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let Plan::StatefulSet(plan) = &ctx.rollout.plan else {
        return;
    };
    // A pod that never becomes available has other findings saying why; no time follows.
    if !plan.available_after.min.is_finite() {
        return;
    }
    let budget = seconds(ctx.rollout_budget_seconds);
    let name = format!("`{}`", ctx.site.object.display_name());
    let spec = FieldPath::from_keys(&["spec"]);
    let each = text::seconds(plan.available_after.min);
    if let (
        StatefulSetUpdate::RollingUpdate {
            batch,
            max_unavailable,
            ..
        },
        Some(update),
    ) = (&plan.update, plan.update_time)
        && update.min > budget
    {
        let per = if *batch > 1 {
            format!("{batch} at a time")
        } else {
            "one at a time".to_owned()
        };
        findings
            .report(
                Target::key(spec.key("replicas")),
                format!(
                    "a rolling update of {name} takes at least {}: {} ordinals replaced {per}, each after its old pod's shutdown and ≥{each} to be Ready and available — more than the rollout budget of {}",
                    text::seconds(update.min),
                    plan.updated,
                    text::seconds(budget)
                ),
            )
            .help(if !MAX_UNAVAILABLE_STATEFULSET.enabled(ctx.kube) {
                // The API server drops the field at this version: advising it would not help.
                "shorten the pods' startup, or raise `rollout-budget-seconds` and the timeouts of whatever waits for the rollout (`updateStrategy.rollingUpdate.maxUnavailable`, which replaces several ordinals at once, is dropped by the API server while the `MaxUnavailableStatefulSet` gate is off)"
            } else if *batch > 1 || max_unavailable.is_some() {
                // Written already (`maxUnavailable: 1`): raise it, rather than set it.
                "replace more ordinals at once (a higher `updateStrategy.rollingUpdate.maxUnavailable`), shorten the pods' startup, or raise `rollout-budget-seconds` and the timeouts of whatever waits for the rollout"
            } else {
                "replace several ordinals at once (`updateStrategy.rollingUpdate.maxUnavailable`), shorten the pods' startup, or raise `rollout-budget-seconds` and the timeouts of whatever waits for the rollout"
            })
            .claim(Claim::CertainUpdate(update.min));
        return;
    }
    if plan.policy == PodManagement::OrderedReady && plan.create.min > budget {
        findings
            .report(
                Target::key(spec.key("replicas")),
                format!(
                    "creating {name} takes at least {}: {} ordinals started one after another, each ≥{each} to be Ready and available — more than the rollout budget of {}",
                    text::seconds(plan.create.min),
                    plan.replicas.count,
                    text::seconds(budget)
                ),
            )
            .help("start the ordinals together (`podManagementPolicy: Parallel`) where the application allows it, or raise `rollout-budget-seconds`");
    }
}
