use crate::model::amount::{above_100_percent, int_or_percent_problem};
use crate::model::path::FieldPath;
use crate::rules::{Findings, ScopeContext, ScopeObject, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a PodDisruptionBudget the API server rejects: `minAvailable` and
    /// `maxUnavailable` both set, either one negative, above 100% or neither a count nor a
    /// percentage, an `unhealthyPodEvictionPolicy` other than `IfHealthyBudget` or
    /// `AlwaysAllow`, or a field of the wrong type.
    ///
    /// ## Why is this bad?
    /// The budget is never created, so the pods it was meant to protect have none: a node
    /// drain or a cluster upgrade may evict all of them at once.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: policy/v1
    /// kind: PodDisruptionBudget
    /// metadata:
    ///   name: web
    /// spec:
    ///   minAvailable: 2
    ///   maxUnavailable: 1
    ///   selector:
    ///     matchLabels: {app: web}
    /// ```
    ///
    /// Keep one of the two:
    /// ```yaml
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
    /// - kubernetes/kubernetes `pkg/apis/policy/validation/validation.go`,
    ///   `ValidatePodDisruptionBudgetSpec`: "minAvailable and maxUnavailable cannot be both
    ///   set", `ValidatePositiveIntOrPercent`, `IsNotMoreThan100Percent`, the supported
    ///   `unhealthyPodEvictionPolicy` values.
    /// - [Specifying a Disruption Budget](https://kubernetes.io/docs/tasks/run-application/configure-pdb/)
    pub(crate) static RULE = {
        name: "invalid-disruption-budget",
        category: Correctness,
        enforcement: ApiServer,
        summary: "disruption budget that the API server rejects",
        check: crate::rules::Check::Scope(check),
    }
}

fn check(ctx: &ScopeContext<'_>, findings: &mut Findings) {
    let ScopeObject::Budget(budget) = ctx.object else {
        return;
    };
    let spec = match &budget.spec {
        Ok(spec) => spec,
        Err(error) => {
            findings.report(
                Target::value(FieldPath::new(error.path.clone())),
                crate::rules::friendly_type_error(&error.message),
            );
            return;
        }
    };
    let path = FieldPath::from_keys(&["spec"]);
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        findings
            .report(
                Target::key(path.key("maxUnavailable")),
                "`minAvailable` and `maxUnavailable` cannot both be set",
            )
            .label(Target::key(path.key("minAvailable")), "`minAvailable` is set here")
            .help("keep one: `maxUnavailable` follows the workload's scale, `minAvailable` counts pods");
    }
    for (name, value) in [
        ("minAvailable", &spec.min_available),
        ("maxUnavailable", &spec.max_unavailable),
    ] {
        let Some(value) = value else { continue };
        if let Some(problem) = int_or_percent_problem(value) {
            findings
                .report(Target::value(path.key(name)), format!("`{name}` {problem}"))
                .help("write a whole number (`1`) or a percentage (`50%`)");
        } else if above_100_percent(value) {
            findings.report(
                Target::value(path.key(name)),
                format!("`{name}` must not be greater than 100%"),
            );
        }
    }
    if let Some(policy) = spec
        .unhealthy_pod_eviction_policy
        .as_deref()
        .filter(|p| !matches!(*p, "IfHealthyBudget" | "AlwaysAllow"))
    {
        let known = ["IfHealthyBudget", "AlwaysAllow"];
        findings
            .report(
                Target::value(path.key("unhealthyPodEvictionPolicy")),
                format!("`{policy}` is not an unhealthy pod eviction policy"),
            )
            .help(
                crate::suggest::did_you_mean_help(policy, &known)
                    .unwrap_or_else(|| "use `IfHealthyBudget` or `AlwaysAllow`".to_owned()),
            );
    }
}
