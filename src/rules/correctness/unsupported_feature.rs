use crate::diagnostics::Severity;
use crate::lifecycle::{ContainerLife, HandlerUse, handlers};
use crate::model::path::FieldPath;
use crate::rules::{Claim, Enforcement, Finding, Findings, PodContext, Target, declare_rule};
use crate::versions::{
    CONTAINER_RESTART_RULES, CONTAINER_STOP_SIGNALS, Feature, GRPC_CONTAINER_PROBE, GateOff,
    MAX_UNAVAILABLE_STATEFULSET, POD_LIFECYCLE_SLEEP_ACTION, PROBE_TERMINATION_GRACE_PERIOD,
    SIDECAR_CONTAINERS, Stage,
};
use podcycle_k8s::Controller;

declare_rule! {
    /// ## What it does
    /// Finds a field that the target Kubernetes version (`--kube-version`) does not have, or
    /// has behind a feature gate that is off by default, and names the version that turns it
    /// on:
    /// - `restartPolicy: Always` on an init container (native sidecars);
    /// - the `sleep` lifecycle action;
    /// - `lifecycle.stopSignal`;
    /// - `restartPolicyRules`;
    /// - a probe's own `terminationGracePeriodSeconds`;
    /// - `grpc` probes;
    /// - a StatefulSet's `updateStrategy.rollingUpdate.maxUnavailable`.
    ///
    /// ## Why is this bad?
    /// When a gate is off, the API server silently drops the field on create. The manifest is
    /// accepted and then behaves differently from what it says: a native sidecar becomes a
    /// classic init container that must exit before anything else starts (so the pod never
    /// starts, or is rejected if the sidecar has probes), a `sleep` preStop gives no drain
    /// delay, a custom stop signal is replaced by the image's, and a StatefulSet meant to
    /// replace several ordinals at once replaces them one at a time. On a version without the field,
    /// `kubectl` rejects it as unknown.
    ///
    /// A dropped field is a `runtime` finding: an error for a native sidecar (the pod never
    /// starts), a warning otherwise. A field the version does not have, a value its gate
    /// rejects, and a dropped `grpc` or `sleep` handler (which leaves its probe or hook without
    /// one) are `api-server` errors.
    ///
    /// ## Example
    /// For a cluster on 1.28, where native sidecars are alpha and off:
    /// ```yaml
    /// # podcycle check --kube-version 1.28
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   initContainers:
    ///   - name: proxy
    ///     image: envoyproxy/envoy:v1.31
    ///     restartPolicy: Always
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    /// ```
    ///
    /// On 1.28, run the proxy as an ordinary container (or upgrade to 1.29 or newer):
    /// ```yaml
    /// # podcycle check --kube-version 1.28
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: proxy
    ///     image: envoyproxy/envoy:v1.31
    ///   - name: web
    ///     image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/features/kube_features.go`: the stages of
    ///   `SidecarContainers`, `PodLifecycleSleepAction`, `ContainerStopSignals`,
    ///   `ContainerRestartRules`, `ProbeTerminationGracePeriod`, `GRPCContainerProbe` and
    ///   `MaxUnavailableStatefulSet`.
    /// - kubernetes/kubernetes `pkg/api/pod/util.go`: `dropDisabledFields`,
    ///   `dropPodLifecycleSleepAction`, `dropContainerStopSignals` drop the fields whose gate is
    ///   off.
    /// - kubernetes/kubernetes `pkg/registry/apps/statefulset/strategy.go`:
    ///   `dropStatefulSetDisabledFields` sets `rollingUpdate.maxUnavailable` to nil on create,
    ///   and on update unless the old object already had it, while `MaxUnavailableStatefulSet`
    ///   is off; `pkg/controller/statefulset/stateful_set_control.go` then replaces one ordinal
    ///   at a time.
    /// - `MaxUnavailableStatefulSet` changed its default in a patch release: beta and on in
    ///   1.35.0 (kubernetes/kubernetes#133153), off from 1.35.4 (kubernetes/kubernetes#137926,
    ///   under v1.35.4 in `CHANGELOG/CHANGELOG-1.35.md`) and in 1.36 (#137904), on again in
    ///   1.37 (#139466; v1.37.2's `kube_features.go` lists `1.35` beta off, `1.37` beta on).
    ///   `--kube-version 1.35` judges the newest 1.35 patch release, where it is off, and says
    ///   that 1.35.0 to 1.35.3 had it on; `--kube-version 1.35.2` judges that release.
    /// - [Feature gates](https://kubernetes.io/docs/reference/command-line-tools-reference/feature-gates/)
    pub(crate) static RULE = {
        name: "unsupported-feature",
        category: Correctness,
        enforcement: Runtime,
        summary: "field the target Kubernetes version does not have or silently drops",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    statefulset_max_unavailable(ctx, findings);
    for (index, container) in ctx.life.containers.iter().enumerate() {
        let c = container.container;
        if container.declared_sidecar {
            let finding = report(
                ctx,
                findings,
                &SIDECAR_CONTAINERS,
                Target::value(container.path.key("restartPolicy")),
                format!(
                    "{} is a native sidecar (`restartPolicy: Always`)",
                    container.quoted()
                ),
                container.name,
            );
            if let Some(finding) = finding {
                let (consequence, never_exits) = classic_init_consequence(container);
                finding.note(consequence);
                if never_exits {
                    finding.claim(Claim::NeverExits { container: index });
                }
            }
        }
        if c.lifecycle
            .as_ref()
            .is_some_and(|l| l.stop_signal.is_some())
        {
            let _ = report(
                ctx,
                findings,
                &CONTAINER_STOP_SIGNALS,
                Target::key(container.path.key("lifecycle").key("stopSignal")),
                format!("{} sets `lifecycle.stopSignal`", container.quoted()),
                container.name,
            );
        }
        if c.restart_policy_rules
            .as_ref()
            .is_some_and(|r| !r.is_empty())
        {
            let _ = report(
                ctx,
                findings,
                &CONTAINER_RESTART_RULES,
                Target::key(container.path.key("restartPolicyRules")),
                format!("{} sets `restartPolicyRules`", container.quoted()),
                container.name,
            );
        }
    }
    for site in handlers(ctx.life) {
        if site.sleep.is_some() {
            let _ = report(
                ctx,
                findings,
                &POD_LIFECYCLE_SLEEP_ACTION,
                Target::key(site.path.key("sleep")),
                format!("{} uses the `sleep` action", site.describe()),
                site.container.name,
            );
        }
        if site.grpc.is_some() {
            let _ = report(
                ctx,
                findings,
                &GRPC_CONTAINER_PROBE,
                Target::key(site.path.key("grpc")),
                format!("{} is a gRPC probe", site.describe()),
                site.container.name,
            );
        }
        if site
            .probe
            .is_some_and(|p| p.termination_grace_period_seconds.is_some())
            && site.used_for != HandlerUse::Readiness
        {
            let _ = report(
                ctx,
                findings,
                &PROBE_TERMINATION_GRACE_PERIOD,
                Target::key(site.path.key("terminationGracePeriodSeconds")),
                format!(
                    "{} sets its own `terminationGracePeriodSeconds`",
                    site.describe()
                ),
                site.container.name,
            );
        }
    }
}

/// A StatefulSet's `maxUnavailable`, which the API server drops while its gate is off.
fn statefulset_max_unavailable(ctx: &PodContext<'_>, findings: &mut Findings) {
    let Some(Controller::StatefulSet(spec)) = ctx.site.controller else {
        return;
    };
    let Some(strategy) = spec.update_strategy.as_ref() else {
        return;
    };
    // `OnDelete` with `rollingUpdate` is rejected whatever the gate (`invalid-rollout-field`).
    if strategy
        .type_
        .as_deref()
        .is_some_and(|t| t != "RollingUpdate")
        || strategy
            .rolling_update
            .as_ref()
            .and_then(|r| r.max_unavailable.as_ref())
            .is_none()
    {
        return;
    }
    let path = FieldPath::from_keys(&["spec", "updateStrategy", "rollingUpdate", "maxUnavailable"]);
    if let Some(finding) = report(
        ctx,
        findings,
        &MAX_UNAVAILABLE_STATEFULSET,
        Target::key(path),
        "the StatefulSet sets `updateStrategy.rollingUpdate.maxUnavailable`".to_owned(),
        None,
    ) {
        finding.note("without it the StatefulSet controller replaces one ordinal at a time");
    }
}

/// Reports a feature the target version lacks or leaves off, with the claim and severity that
/// follow; `None` when the version has it on.
fn report<'f, 'c>(
    ctx: &PodContext<'_>,
    findings: &'f mut Findings,
    feature: &Feature,
    target: Target,
    what: String,
    container: impl Into<Option<&'c str>>,
) -> Option<&'f mut Finding> {
    let stage = feature.stage(ctx.kube);
    if feature.enabled(ctx.kube) {
        return None;
    }
    // Alpha gates are off; a beta gate can be off too (MaxUnavailableStatefulSet in 1.36).
    let off = format!("{} and off by default", stage.word());
    let state = match (stage, feature.when_off) {
        (Stage::Absent, _) => format!("Kubernetes {} does not have it", ctx.kube),
        (_, GateOff::Dropped) if is_handler(feature) => format!(
            "in Kubernetes {} it is {off}, so the API server drops it and rejects what is left without a handler",
            ctx.kube
        ),
        (_, GateOff::Dropped) => format!(
            "in Kubernetes {} it is {off}, so the API server drops it",
            ctx.kube
        ),
        (_, GateOff::Rejected) => {
            format!("in Kubernetes {} it is {off}", ctx.kube)
        }
    };
    let needs = match feature.enabled_since() {
        Some(version) => format!(
            "it needs Kubernetes {} or newer ({})",
            crate::versions::since_text(version),
            feature.availability()
        ),
        None => format!(
            "it needs the `{}` feature gate ({})",
            feature.gate,
            feature.availability()
        ),
    };
    let finding = findings
        .report(target, format!("{what}: {state}"))
        .help(format!(
            "{needs}; set `--kube-version` to the cluster's version"
        ));
    if let Some(container) = container.into() {
        finding.container(container);
    }
    // `1.35` is its newest patch release; an earlier one may have had the gate on.
    if let Some(patches) = feature.other_default_in_earlier_patches(ctx.kube) {
        finding.note(format!(
            "`--kube-version {kube}` judges the newest {kube} patch release; {patches} had it on by default, so give the cluster's patch version (`kubectl version`) if it runs one of those",
            kube = ctx.kube
        ));
    }
    // A field the version lacks fails strict field validation, and a gate that rejects
    // fails validation; so does a dropped handler, which leaves its probe or hook without
    // one. Another dropped field is accepted: what follows happens at run time, and only a
    // dropped sidecar keeps the pod from ever starting.
    match (stage, feature.when_off) {
        (Stage::Absent, _) | (_, GateOff::Rejected) => {
            finding.enforcement(Enforcement::ApiServer);
        }
        (_, GateOff::Dropped) if is_handler(feature) => {
            finding.enforcement(Enforcement::ApiServer);
        }
        (_, GateOff::Dropped) if std::ptr::eq(feature, &SIDECAR_CONTAINERS) => {}
        (_, GateOff::Dropped) => {
            finding.severity(Severity::Warning);
        }
    }
    Some(finding)
}

/// Features that are a handler of their own: dropping one leaves its probe or hook with none,
/// which validation rejects (`must specify a handler type`, `validateHandler` in
/// pkg/apis/core/validation/validation.go).
fn is_handler(feature: &Feature) -> bool {
    std::ptr::eq(feature, &GRPC_CONTAINER_PROBE)
        || std::ptr::eq(feature, &POD_LIFECYCLE_SLEEP_ACTION)
}

/// What a `restartPolicy: Always` init container becomes where the field is dropped, and
/// whether it then never exits (when the API server accepts it at all).
fn classic_init_consequence(container: &ContainerLife<'_>) -> (String, bool) {
    let c = container.container;
    let forbidden: Vec<&str> = [
        ("lifecycle hooks", c.lifecycle.is_some()),
        (
            "probes",
            c.liveness_probe.is_some() || c.readiness_probe.is_some() || c.startup_probe.is_some(),
        ),
    ]
    .into_iter()
    .filter_map(|(what, set)| set.then_some(what))
    .collect();
    let mut consequence = format!(
        "without it {} is a classic init container",
        container.quoted()
    );
    if !forbidden.is_empty() {
        consequence.push_str(&format!(
            ": the API server rejects its {}",
            forbidden.join(" and ")
        ));
        return (consequence, false);
    }
    match &container.never_exits {
        Some(never) => consequence.push_str(&format!(
            ": it never exits ({}), so no later container starts",
            never.what
        )),
        None => consequence.push_str(
            ": it keeps running as the sidecar it was meant to be, and no later container starts, since each waits for the one before it to exit",
        ),
    }
    (consequence, true)
}
