use podcycle_k8s::Controller;

use crate::model::IntOrString;
use crate::model::amount::{above_100_percent, int_or_percent_problem, written_value};
use crate::model::path::FieldPath;
use crate::rules::{Findings, ObjectContext, Target, declare_rule};
use crate::versions::MAX_UNAVAILABLE_STATEFULSET;

declare_rule! {
    /// ## What it does
    /// Finds a field that paces a rollout and that the API server rejects:
    /// - a Deployment's `strategy` of an unknown type, `rollingUpdate` beside `type: Recreate`,
    ///   `maxSurge` or `maxUnavailable` negative or neither an integer nor a percentage,
    ///   `maxUnavailable` above 100%, or both written as 0;
    /// - a StatefulSet's `podManagementPolicy` other than `OrderedReady` or `Parallel`, an
    ///   `updateStrategy` of an unknown type or with `rollingUpdate` beside `OnDelete`, a
    ///   negative `partition`, and where the target version has it, a `maxUnavailable` of 0,
    ///   above 100% or unreadable;
    /// - a DaemonSet's `updateStrategy` of an unknown type, `maxSurge` and `maxUnavailable`
    ///   both 0 or both set (`maxUnavailable` defaults to 1, so `maxSurge` alone is rejected),
    ///   either above 100% or unreadable;
    /// - a negative `replicas`, `minReadySeconds`, `revisionHistoryLimit` or
    ///   `progressDeadlineSeconds`.
    ///
    /// ## Why is this bad?
    /// The API server rejects the workload, so nothing of it is applied. The checks are made
    /// after the defaults: a Deployment's `maxSurge: 0` alone is fine (`maxUnavailable` is then
    /// 25%), a DaemonSet's `maxSurge: 1` alone is not (`maxUnavailable` is then 1).
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: DaemonSet
    /// metadata:
    ///   name: agent
    /// spec:
    ///   selector:
    ///     matchLabels: {app: agent}
    ///   updateStrategy:
    ///     rollingUpdate:
    ///       maxSurge: 1
    ///   template:
    ///     metadata:
    ///       labels: {app: agent}
    ///     spec:
    ///       containers:
    ///       - name: agent
    ///         image: example/agent:1.0
    /// ```
    ///
    /// Surge needs `maxUnavailable: 0`:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: DaemonSet
    /// metadata:
    ///   name: agent
    /// spec:
    ///   selector:
    ///     matchLabels: {app: agent}
    ///   updateStrategy:
    ///     rollingUpdate:
    ///       maxSurge: 1
    ///       maxUnavailable: 0
    ///   template:
    ///     metadata:
    ///       labels: {app: agent}
    ///     spec:
    ///       containers:
    ///       - name: agent
    ///         image: example/agent:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/apps/validation/validation.go`:
    ///   `ValidateDeploymentStrategy`, `ValidateRollingUpdateDeployment`,
    ///   `ValidateDeploymentSpec`, `ValidateStatefulSetSpec`, `validateRollingUpdateStatefulSet`,
    ///   `ValidateDaemonSetUpdateStrategy`, `ValidateRollingUpdateDaemonSet`,
    ///   `ValidatePositiveIntOrPercent`, `IsNotMoreThan100Percent`.
    /// - kubernetes/kubernetes `pkg/apis/apps/v1/defaults.go`: the defaults validated.
    /// - kubernetes/kubernetes `pkg/registry/apps/statefulset/strategy.go`,
    ///   `dropStatefulSetDisabledFields`: `maxUnavailable` is dropped where the
    ///   `MaxUnavailableStatefulSet` gate is off (on by default in 1.35.0 to 1.35.3 and from 1.37).
    pub(crate) static RULE = {
        name: "invalid-rollout-field",
        category: Correctness,
        enforcement: ApiServer,
        summary: "update strategy, replica count or rollout timing that the API server rejects",
        check: crate::rules::Check::Object(check),
    }
}

fn check(ctx: &ObjectContext<'_>, findings: &mut Findings) {
    let Some(workload) = &ctx.decoded.workload else {
        return;
    };
    let spec = FieldPath::from_keys(&["spec"]);
    let negative = |findings: &mut Findings, name: &str, value: Option<i32>| {
        if let Some(value) = value.filter(|v| *v < 0) {
            findings.report(
                Target::value(spec.key(name)),
                format!("`{name}` is {value}; it must not be negative"),
            );
        }
    };
    match &workload.controller {
        Controller::Deployment(d) => {
            negative(findings, "replicas", d.replicas);
            negative(findings, "minReadySeconds", d.min_ready_seconds);
            negative(findings, "revisionHistoryLimit", d.revision_history_limit);
            negative(
                findings,
                "progressDeadlineSeconds",
                d.progress_deadline_seconds,
            );
            let strategy = d.strategy.as_ref();
            let path = spec.key("strategy");
            let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
            match strategy.and_then(|s| s.type_.as_deref()) {
                Some("Recreate") => {
                    if rolling.is_some() {
                        findings
                            .report(
                                Target::key(path.key("rollingUpdate")),
                                "`rollingUpdate` may not be set when the strategy `type` is `Recreate`",
                            )
                            .help("remove `rollingUpdate`, or set `type: RollingUpdate`");
                    }
                }
                None | Some("RollingUpdate") => {
                    let path = path.key("rollingUpdate");
                    let quarter = IntOrString::String("25%".to_owned());
                    let surge = rolling
                        .and_then(|r| r.max_surge.clone())
                        .unwrap_or(quarter.clone());
                    let unavailable = rolling
                        .and_then(|r| r.max_unavailable.clone())
                        .unwrap_or(quarter);
                    amount_problems(findings, &path, "maxUnavailable", &unavailable, true);
                    amount_problems(findings, &path, "maxSurge", &surge, false);
                    if written_value(&unavailable) == 0 && written_value(&surge) == 0 {
                        findings
                            .report(
                                Target::value(path.key("maxUnavailable")),
                                "`maxUnavailable` and `maxSurge` are both 0: the rolling update could never replace a pod, and the API server rejects it",
                            )
                            .label(Target::value(path.key("maxSurge")), "`maxSurge` is 0 here")
                            .help("let one pod more (`maxSurge: 1`) or one pod less (`maxUnavailable: 1`) run during the rollout");
                    }
                }
                Some(other) => unknown_type(
                    findings,
                    path.key("type"),
                    other,
                    &["Recreate", "RollingUpdate"],
                ),
            }
        }
        Controller::StatefulSet(s) => {
            negative(findings, "replicas", s.replicas);
            negative(findings, "minReadySeconds", s.min_ready_seconds);
            if let Some(policy) = s
                .pod_management_policy
                .as_deref()
                .filter(|p| !matches!(*p, "OrderedReady" | "Parallel"))
            {
                unknown_type(
                    findings,
                    spec.key("podManagementPolicy"),
                    policy,
                    &["OrderedReady", "Parallel"],
                );
            }
            let strategy = s.update_strategy.as_ref();
            let path = spec.key("updateStrategy");
            let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
            match strategy.and_then(|s| s.type_.as_deref()) {
                Some("OnDelete") => {
                    if rolling.is_some() {
                        findings
                            .report(
                                Target::key(path.key("rollingUpdate")),
                                "`rollingUpdate` is only allowed with `type: RollingUpdate`, not with `OnDelete`",
                            )
                            .help("remove `rollingUpdate`, or set `type: RollingUpdate`");
                    }
                }
                None | Some("RollingUpdate") => {
                    let path = path.key("rollingUpdate");
                    if let Some(partition) = rolling.and_then(|r| r.partition).filter(|p| *p < 0) {
                        findings.report(
                            Target::value(path.key("partition")),
                            format!("`partition` is {partition}; it must not be negative"),
                        );
                    }
                    // Dropped, not validated, where the gate is off.
                    if let Some(value) = rolling
                        .and_then(|r| r.max_unavailable.as_ref())
                        .filter(|_| MAX_UNAVAILABLE_STATEFULSET.enabled(ctx.kube))
                    {
                        amount_problems(findings, &path, "maxUnavailable", value, true);
                        if written_value(value) == 0 {
                            findings
                                .report(
                                    Target::value(path.key("maxUnavailable")),
                                    "`maxUnavailable` is 0: a StatefulSet's rolling update must be allowed to replace at least one pod",
                                )
                                .help("leave it out to replace one pod at a time");
                        }
                    }
                }
                Some(other) => unknown_type(
                    findings,
                    path.key("type"),
                    other,
                    &["RollingUpdate", "OnDelete"],
                ),
            }
        }
        Controller::DaemonSet(d) => {
            negative(findings, "minReadySeconds", d.min_ready_seconds);
            negative(findings, "revisionHistoryLimit", d.revision_history_limit);
            let strategy = d.update_strategy.as_ref();
            let path = spec.key("updateStrategy");
            match strategy.and_then(|s| s.type_.as_deref()) {
                Some("OnDelete") => {}
                None | Some("RollingUpdate") => {
                    let rolling = strategy.and_then(|s| s.rolling_update.as_ref());
                    let path = path.key("rollingUpdate");
                    let unavailable = rolling
                        .and_then(|r| r.max_unavailable.clone())
                        .unwrap_or(IntOrString::Int(1));
                    let surge = rolling
                        .and_then(|r| r.max_surge.clone())
                        .unwrap_or(IntOrString::Int(0));
                    amount_problems(findings, &path, "maxUnavailable", &unavailable, true);
                    amount_problems(findings, &path, "maxSurge", &surge, true);
                    let unavailable_written = rolling.is_some_and(|r| r.max_unavailable.is_some());
                    match (written_value(&unavailable) != 0, written_value(&surge) != 0) {
                        (true, true) => {
                            let finding = findings.report(
                                Target::value(path.key("maxSurge")),
                                if unavailable_written {
                                    "`maxSurge` may not be set when `maxUnavailable` is not 0: a DaemonSet either surges or takes pods down".to_owned()
                                } else {
                                    "`maxSurge` may not be set when `maxUnavailable` is not 0, and `maxUnavailable` defaults to 1".to_owned()
                                },
                            );
                            finding.help("set `maxUnavailable: 0` to surge, or remove `maxSurge`");
                            if unavailable_written {
                                finding.label(
                                    Target::value(path.key("maxUnavailable")),
                                    "`maxUnavailable` is set here",
                                );
                            }
                        }
                        (false, false) => {
                            findings
                                .report(
                                    Target::value(path.key("maxUnavailable")),
                                    "`maxUnavailable` and `maxSurge` are both 0: the rolling update could never replace a pod, and the API server rejects it",
                                )
                                .help("let one node's pod be replaced at a time (`maxUnavailable: 1`), or surge (`maxSurge: 1`)");
                        }
                        _ => {}
                    }
                }
                Some(other) => unknown_type(
                    findings,
                    path.key("type"),
                    other,
                    &["RollingUpdate", "OnDelete"],
                ),
            }
        }
        Controller::ReplicaSet(r) => {
            negative(findings, "replicas", r.replicas);
            negative(findings, "minReadySeconds", r.min_ready_seconds);
        }
        Controller::ReplicationController(r) => {
            negative(findings, "replicas", r.replicas);
            negative(findings, "minReadySeconds", r.min_ready_seconds);
        }
        Controller::Job(_) | Controller::CronJob(_) | Controller::None => {}
    }
}

/// A count that is negative or not a percentage, or above 100% where that is refused.
fn amount_problems(
    findings: &mut Findings,
    path: &FieldPath,
    name: &str,
    value: &IntOrString,
    at_most_100: bool,
) {
    if let Some(problem) = int_or_percent_problem(value) {
        findings
            .report(Target::value(path.key(name)), format!("`{name}` {problem}"))
            .help("write a whole number (`1`) or a percentage (`25%`)");
    } else if at_most_100 && above_100_percent(value) {
        findings.report(
            Target::value(path.key(name)),
            format!("`{name}` must not be greater than 100%"),
        );
    }
}

fn unknown_type(findings: &mut Findings, path: FieldPath, value: &str, known: &[&str]) {
    let name = match path.segments().last() {
        Some(crate::model::path::PathSegment::Key(key)) => key.clone(),
        _ => String::new(),
    };
    let finding = findings.report(
        Target::value(path.clone()),
        format!(
            "`{name}: {value}` is not a value Kubernetes accepts; it must be {}",
            crate::text::phrase_list(known.iter().map(|k| format!("`{k}`")))
                .replacen(" and ", " or ", 1)
        ),
    );
    if let Some(help) = crate::suggest::did_you_mean_help(value, known) {
        finding.help(help);
    }
}
