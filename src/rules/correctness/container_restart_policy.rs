use crate::diagnostics::Severity;
use crate::lifecycle::{ContainerLife, Role};
use crate::rules::{Enforcement, Findings, PodContext, Target, declare_rule};
use crate::versions::{
    CONTAINER_RESTART_RULES, KubeVersion, RESTART_ALL_CONTAINERS, SIDECAR_CONTAINERS, Stage,
};

declare_rule! {
    /// ## What it does
    /// Finds a container-level `restartPolicy` (or `restartPolicyRules`) that the target
    /// Kubernetes version rejects or drops:
    /// - before container restart rules exist (1.33 and older): an init container's
    ///   `restartPolicy` other than `Always`, and any `restartPolicy` on an app container;
    /// - while they are alpha and off (1.34): the same values, which the API server drops
    ///   (a warning: the pod is accepted without them);
    /// - from 1.35, when they are on by default: a value other than `Always`, `OnFailure` or
    ///   `Never`, and `restartPolicyRules` that break the API's constraints — rules without an
    ///   explicit container `restartPolicy`, more than 20 rules, a rule without `exitCodes`, an
    ///   operator other than `In`/`NotIn`, more than 255 exit codes, an action other than
    ///   `Restart` (or `RestartAllContainers` from 1.36), and rules on a native sidecar before
    ///   1.36 (`RestartAllContainersOnContainerExits` allows them).
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload. Before restart rules, the only
    /// container-level policy is `restartPolicy: Always` on an init container, which makes it
    /// a native sidecar; everything else is `Unsupported value` or
    /// `Forbidden: may not be set for non-init containers`. In 1.34 the API server drops such
    /// values before it validates (`dropContainerRestartRules` in `pkg/api/pod/util.go`), so
    /// the container silently follows the pod's `restartPolicy`.
    ///
    /// ## Example
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
    ///       initContainers:
    ///       - name: proxy
    ///         image: envoyproxy/envoy:v1.31
    ///         restartPolicy: always
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// Values are case-sensitive:
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
    ///       initContainers:
    ///       - name: proxy
    ///         image: envoyproxy/envoy:v1.31
    ///         restartPolicy: Always
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`:
    ///   `validateInitContainerRestartPolicy` (only `Always` before restart rules),
    ///   `validateContainers` (`may not be set for non-init containers`), and
    ///   `validateContainerRestartPolicy` (rule limits: 20 rules, `exitCodes` required, 255
    ///   values).
    /// - kubernetes/api `core/v1/types.go`: `Container.RestartPolicy`,
    ///   `Container.RestartPolicyRules` ("container MUST set RestartPolicy explicitly"),
    ///   `ContainerRestartRule`.
    /// - kubernetes/enhancements KEP-5307, container restart rules; [Pod lifecycle: individual
    ///   container restart policy and rules](https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#container-restart-rules)
    ///   ("sidecar containers do not support restartPolicyRules").
    pub(crate) static RULE = {
        name: "container-restart-policy",
        category: Correctness,
        enforcement: ApiServer,
        feature: CONTAINER_RESTART_RULES,
        summary: "container-level restart policy the target Kubernetes version rejects",
        check: crate::rules::Check::Pod(check),
    }
}

const MAX_RULES: usize = 20;
const MAX_EXIT_CODES: usize = 255;

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let rules_enabled = CONTAINER_RESTART_RULES.enabled(ctx.kube);
    if CONTAINER_RESTART_RULES.stage(ctx.kube) == Stage::Alpha {
        report_dropped(ctx, findings);
        return;
    }
    for container in &ctx.life.containers {
        let Some(policy) = container.container.restart_policy.as_deref() else {
            if rules_enabled
                && container
                    .container
                    .restart_policy_rules
                    .as_ref()
                    .is_some_and(|r| !r.is_empty())
            {
                findings
                    .report(
                        // Where the API server reports it: the `restartPolicy` it requires.
                        Target::key(container.path.key("restartPolicy")),
                        format!(
                            "restartPolicyRules of {} need an explicit container `restartPolicy`",
                            container.quoted()
                        ),
                    )
                    .help(
                        "set `restartPolicy` on the container too, even when it matches the pod's",
                    )
                    .label(
                        Target::key(container.path.key("restartPolicyRules")),
                        "the rules are set here",
                    )
                    .container(container.name);
                // The API server still validates each rule of an app container (not of an
                // init container), and reports those too.
                if container.role == Role::App {
                    check_rules(container, "", ctx.kube, findings);
                }
            }
            continue;
        };
        let field = Target::value(container.path.key("restartPolicy"));
        let valid = matches!(policy, "Always" | "OnFailure" | "Never");
        let is_init = container.role != Role::App;
        if !valid {
            let suggestion = ["Always", "OnFailure", "Never"]
                .into_iter()
                .find(|v| v.eq_ignore_ascii_case(policy))
                .map_or(String::new(), |v| {
                    format!("; values are case-sensitive: `{v}`")
                });
            // Help that is true for the target version: which values it accepts here.
            let help = if rules_enabled {
                format!("use `Always`, `OnFailure` or `Never`{suggestion}")
            } else if !is_init {
                format!(
                    "remove it: in Kubernetes {} an app container takes the pod's `restartPolicy`; {} is {}",
                    ctx.kube,
                    CONTAINER_RESTART_RULES.description,
                    CONTAINER_RESTART_RULES.availability()
                )
            } else if SIDECAR_CONTAINERS.enabled(ctx.kube) {
                let suggestion = if policy.eq_ignore_ascii_case("Always") {
                    "; values are case-sensitive"
                } else {
                    ""
                };
                format!(
                    "use `Always` to make {} a native sidecar{suggestion}",
                    container.quoted()
                )
            } else {
                format!(
                    "remove it: Kubernetes {} has no container `restartPolicy`; {} are {}",
                    ctx.kube,
                    SIDECAR_CONTAINERS.description,
                    SIDECAR_CONTAINERS.availability()
                )
            };
            findings
                .report(
                    field,
                    format!(
                        "restartPolicy `{policy}` of {} is not supported",
                        container.quoted()
                    ),
                )
                .help(help)
                .container(container.name);
        } else if !rules_enabled && is_init && policy != "Always" {
            findings
                .report(
                    field,
                    format!(
                        "restartPolicy `{policy}` on {} is not supported by Kubernetes {}: only `Always` is",
                        container.quoted_as("init container"), ctx.kube
                    ),
                )
                .help(format!(
                    "remove it, or use `Always` to make {} a native sidecar; other values need {}, {}",
                    container.quoted(),
                    CONTAINER_RESTART_RULES.description,
                    CONTAINER_RESTART_RULES.availability()
                ))
                .container(container.name);
        } else if !rules_enabled && !is_init {
            findings
                .report(
                    field,
                    format!(
                        "restartPolicy may not be set on {} in Kubernetes {}",
                        container.quoted_as("app container"),
                        ctx.kube
                    ),
                )
                .help(format!(
                    "remove it and use the pod's `restartPolicy`; {} is {}",
                    CONTAINER_RESTART_RULES.description,
                    CONTAINER_RESTART_RULES.availability()
                ))
                .container(container.name);
        }
        if rules_enabled {
            check_rules(container, policy, ctx.kube, findings);
        }
    }
}

/// While container restart rules are alpha and off, the API server drops a container
/// `restartPolicy` other than an init container's `Always`, and every `restartPolicyRules`,
/// before it validates (`dropContainerRestartRules`, pkg/api/pod/util.go): the pod is
/// accepted without them.
fn report_dropped(ctx: &PodContext<'_>, findings: &mut Findings) {
    for container in &ctx.life.containers {
        let c = container.container;
        let is_init = container.role != Role::App;
        // `unsupported-feature` reports the dropped `restartPolicyRules`.
        let Some(policy) = c
            .restart_policy
            .as_deref()
            .filter(|&policy| !(is_init && policy == "Always"))
        else {
            continue;
        };
        findings
            .report(
                Target::value(container.path.key("restartPolicy")),
                format!(
                    "Kubernetes {} drops the restartPolicy `{policy}` of {}: {} is alpha and off by default",
                    ctx.kube, container.quoted(), CONTAINER_RESTART_RULES.description
                ),
            )
            .help(format!(
                "remove it, or target a cluster where it is on ({})",
                CONTAINER_RESTART_RULES.availability()
            ))
            .enforcement(Enforcement::Runtime)
            .severity(Severity::Warning)
            .container(container.name);
    }
}

fn check_rules(
    container: &ContainerLife<'_>,
    policy: &str,
    kube: KubeVersion,
    findings: &mut Findings,
) {
    let Some(rules) = container
        .container
        .restart_policy_rules
        .as_deref()
        .filter(|r| !r.is_empty())
    else {
        return;
    };
    let path = container.path.key("restartPolicyRules");
    let restart_all = RESTART_ALL_CONTAINERS.enabled(kube);
    if !restart_all
        && (container.role == Role::Sidecar || (container.role == Role::Init && policy == "Always"))
    {
        findings
            .report(
                Target::key(path.clone()),
                format!(
                    "restartPolicyRules are not supported on {}",
                    container.quoted_as("sidecar")
                ),
            )
            .help("remove them: a sidecar is restarted whenever it exits")
            .container(container.name);
        return;
    }
    if rules.len() > MAX_RULES {
        findings
            .report(
                Target::key(path.clone()),
                format!(
                    "{} has {} restartPolicyRules; at most {MAX_RULES} are allowed",
                    container.quoted(),
                    rules.len()
                ),
            )
            .container(container.name);
    }
    for (index, rule) in rules.iter().enumerate() {
        let rule_path = path.index(index);
        let allowed =
            rule.action == "Restart" || (restart_all && rule.action == "RestartAllContainers");
        if !allowed {
            findings
                .report(
                    Target::value(rule_path.key("action")),
                    format!(
                        "restart rule action `{}` is not supported by Kubernetes {kube}",
                        rule.action
                    ),
                )
                .help(if restart_all {
                    "use `Restart` or `RestartAllContainers`".to_owned()
                } else {
                    format!(
                        "use `Restart`; `RestartAllContainers` needs {}",
                        RESTART_ALL_CONTAINERS.availability()
                    )
                })
                .container(container.name);
        }
        let Some(exit_codes) = &rule.exit_codes else {
            findings
                .report(Target::key(rule_path), "a restart rule needs `exitCodes`")
                .help("add `exitCodes: {operator: In, values: [...]}`")
                .container(container.name);
            continue;
        };
        if !matches!(exit_codes.operator.as_str(), "In" | "NotIn") {
            findings
                .report(
                    Target::value(rule_path.key("exitCodes").key("operator")),
                    format!(
                        "exit-code operator `{}` is not supported",
                        exit_codes.operator
                    ),
                )
                .help("use `In` or `NotIn`")
                .container(container.name);
        }
        let count = exit_codes.values.as_ref().map_or(0, Vec::len);
        if count > MAX_EXIT_CODES {
            findings
                .report(
                    Target::key(rule_path.key("exitCodes").key("values")),
                    format!("a restart rule lists {count} exit codes; at most {MAX_EXIT_CODES} are allowed"),
                )
                .container(container.name);
        }
    }
}
