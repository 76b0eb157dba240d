use podcycle_k8s::Controller;
use podcycle_k8s::k8s_openapi::api::batch::v1::JobSpec;

use crate::model::path::FieldPath;
use crate::rules::{Findings, ObjectContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a Job's (or a CronJob's job template's) retry settings that the API server
    /// rejects:
    /// - a `podFailurePolicy` rule with `action: FailIndex` and no `backoffLimitPerIndex`, or
    ///   with an action other than `FailJob`, `FailIndex`, `Ignore` and `Count`;
    /// - `backoffLimitPerIndex` or `maxFailedIndexes` on a Job whose `completionMode` is not
    ///   `Indexed`;
    /// - `maxFailedIndexes` without `backoffLimitPerIndex`;
    /// - a negative `backoffLimit`, `backoffLimitPerIndex` or `maxFailedIndexes`.
    ///
    /// ## Why is this bad?
    /// The API server rejects the Job (for a CronJob, the CronJob itself), so it never runs.
    /// A failed index exists only in an `Indexed` Job with a back-off limit per index: without
    /// one, `FailIndex` has no index to fail.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: shards
    /// spec:
    ///   completions: 8
    ///   parallelism: 2
    ///   completionMode: Indexed
    ///   podFailurePolicy:
    ///     rules:
    ///     - action: FailIndex
    ///       onExitCodes: {operator: In, values: [42]}
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       containers:
    ///       - name: shard
    ///         image: example/shard:1.0
    /// ```
    ///
    /// Give each index its own back-off limit:
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: shards
    /// spec:
    ///   completions: 8
    ///   parallelism: 2
    ///   completionMode: Indexed
    ///   backoffLimitPerIndex: 1
    ///   podFailurePolicy:
    ///     rules:
    ///     - action: FailIndex
    ///       onExitCodes: {operator: In, values: [42]}
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       containers:
    ///       - name: shard
    ///         image: example/shard:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/batch/validation/validation.go`, `validateJobSpec`:
    ///   `requires indexed completion mode`, `Required value: when maxFailedIndexes is
    ///   specified`, `ValidateNonnegativeField`; `validatePodFailurePolicyRule`: `requires the
    ///   backoffLimitPerIndex to be set`, the supported actions.
    pub(crate) static RULE = {
        name: "invalid-job-failure-policy",
        category: Correctness,
        enforcement: ApiServer,
        summary: "job failure policy or retry limit that the API server rejects",
        check: crate::rules::Check::Object(check),
    }
}

/// `supportedPodFailurePolicyActions`.
const ACTIONS: [&str; 4] = ["Count", "FailIndex", "FailJob", "Ignore"];

fn check(ctx: &ObjectContext<'_>, findings: &mut Findings) {
    let Some(workload) = &ctx.decoded.workload else {
        return;
    };
    let (spec, path) = match &workload.controller {
        Controller::Job(job) => (&**job, FieldPath::from_keys(&["spec"])),
        Controller::CronJob(cron) => match &cron.job_template.spec {
            Some(job) => (job, FieldPath::from_keys(&["spec", "jobTemplate", "spec"])),
            None => return,
        },
        _ => return,
    };
    check_job(spec, &path, findings);
}

fn check_job(spec: &JobSpec, path: &FieldPath, findings: &mut Findings) {
    for (name, value) in [
        ("backoffLimit", spec.backoff_limit),
        ("backoffLimitPerIndex", spec.backoff_limit_per_index),
        ("maxFailedIndexes", spec.max_failed_indexes),
    ] {
        if let Some(value) = value.filter(|v| *v < 0) {
            findings.report(
                Target::value(path.key(name)),
                format!("`{name}` is {value}; it must not be negative"),
            );
        }
    }
    let indexed = spec.completion_mode.as_deref() == Some("Indexed");
    if !indexed {
        for (name, value) in [
            ("backoffLimitPerIndex", spec.backoff_limit_per_index),
            ("maxFailedIndexes", spec.max_failed_indexes),
        ] {
            if value.is_some() {
                let finding = findings.report(
                    Target::key(path.key(name)),
                    format!("`{name}` needs `completionMode: Indexed`: only an indexed Job counts failures per index"),
                );
                if spec.completion_mode.is_some() {
                    finding.label(Target::value(path.key("completionMode")), "not indexed");
                }
                finding.help(
                    "set `completionMode: Indexed` (with `completions`), or use `backoffLimit`",
                );
            }
        }
    }
    if spec.max_failed_indexes.is_some() && spec.backoff_limit_per_index.is_none() {
        // Kubernetes places it at the missing `backoffLimitPerIndex`: the Job spec.
        findings
            .report(
                Target::key(path.key("backoffLimitPerIndex")),
                "`maxFailedIndexes` needs `backoffLimitPerIndex`: an index fails only once its own back-off limit is spent",
            )
            .label(
                Target::key(path.key("maxFailedIndexes")),
                "counts failed indexes",
            )
            .help("set `backoffLimitPerIndex`");
    }
    let Some(policy) = &spec.pod_failure_policy else {
        return;
    };
    let rules = path.key("podFailurePolicy").key("rules");
    for (index, rule) in policy.rules.iter().enumerate() {
        let action = rules.index(index).key("action");
        match rule.action.as_str() {
            "" => {
                findings.report(
                    Target::key(action),
                    format!(
                        "a `podFailurePolicy` rule needs an `action`: one of {}",
                        list(&ACTIONS)
                    ),
                );
            }
            "FailIndex" if spec.backoff_limit_per_index.is_none() => {
                findings
                    .report(
                        Target::value(action),
                        "`action: FailIndex` needs `backoffLimitPerIndex`: without it the Job has no failed indexes, only failed pods",
                    )
                    .help(if indexed {
                        "set `backoffLimitPerIndex`, or use `action: FailJob`"
                    } else {
                        "set `completionMode: Indexed` and `backoffLimitPerIndex`, or use `action: FailJob`"
                    });
            }
            known if ACTIONS.contains(&known) => {}
            other => {
                let finding = findings.report(
                    Target::value(action),
                    format!(
                        "`{other}` is not a `podFailurePolicy` action: one of {}",
                        list(&ACTIONS)
                    ),
                );
                if let Some(hint) = ACTIONS.iter().find(|a| a.eq_ignore_ascii_case(other)) {
                    finding.help(format!("write `{hint}` (actions are case-sensitive)"));
                }
            }
        }
    }
}

fn list(values: &[&str]) -> String {
    values
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ")
}
