use crate::fix::{Fix, FixEdit};
use crate::lifecycle::{HandlerKind, HookDuration, Role};
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::versions::POD_LIFECYCLE_SLEEP_ACTION;

declare_rule! {
    /// ## What it does
    /// Finds a `preStop` hook whose exec command does nothing but sleep a whole number of
    /// seconds (`["sleep", "5"]`, `["sh", "-c", "sleep 5"]`), when the target Kubernetes
    /// version has the `sleep` action on and the seconds fit in the grace period (the API
    /// server rejects a `sleep` action longer than `terminationGracePeriodSeconds`).
    ///
    /// ## Why is this bad?
    /// An exec hook runs inside the container: the image must ship a `sleep` binary (and a
    /// shell, for `sh -c`). Distroless and scratch images have neither, and the hook then
    /// fails with only a `FailedPreStopHook` event — the drain delay silently does not
    /// happen. The `sleep` action does the same wait in the kubelet, with nothing needed in
    /// the image.
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
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         lifecycle:
    ///           preStop:
    ///             exec:
    ///               command: ["sleep", "5"]
    /// ```
    ///
    /// Let the kubelet wait:
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
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    ///         lifecycle:
    ///           preStop:
    ///             sleep:
    ///               seconds: 5
    /// ```
    ///
    /// ## Fix
    /// Safe: `check --fix` replaces the exec hook with the `sleep` action of the same seconds.
    ///
    /// ## References
    /// - kubernetes/enhancements KEP-3960 (pod lifecycle sleep action): a sleep "without
    ///   needing a sleep binary in my image".
    /// - kubernetes/kubernetes `pkg/kubelet/lifecycle/handlers.go`, `runSleepHandler`: the
    ///   kubelet waits itself; exec handlers run in the container.
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`, `validateSleepAction`:
    ///   the seconds may not exceed `terminationGracePeriodSeconds`.
    /// - [Container lifecycle hooks: hook handler implementations](https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/#hook-handler-implementations)
    pub(crate) static RULE = {
        name: "prestop-exec-sleep",
        category: Pedantic,
        enforcement: Advice,
        feature: POD_LIFECYCLE_SLEEP_ACTION,
        fix: Always,
        summary: "preStop exec hook that only sleeps, where the sleep action would do",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if !POD_LIFECYCLE_SLEEP_ACTION.enabled(ctx.kube) {
        return;
    }
    for container in ctx.life.containers.iter().filter(|c| c.role != Role::Init) {
        let Some(hook) = &container.pre_stop else {
            continue;
        };
        let HookDuration::AtLeast(seconds) = hook.duration else {
            continue;
        };
        #[allow(clippy::cast_precision_loss)]
        let fits = seconds >= 1.0
            && seconds.fract() == 0.0
            && seconds <= ctx.life.grace_period.seconds as f64;
        if hook.handler != HandlerKind::Exec || !hook.only_sleeps || !fits {
            continue;
        }
        findings
            .report(
                Target::key(hook.path.key("exec")),
                format!(
                    "the preStop hook of {} runs `sleep` in the container, which needs a sleep binary in its image",
                    container.quoted()
                ),
            )
            .help(format!(
                "use the `sleep` action instead: `preStop: {{sleep: {{seconds: {seconds:.0}}}}}`"
            ))
            .container(container.name)
            .fix(Fix::new(
                format!("Use the `sleep` action for the {seconds:.0}s preStop delay"),
                vec![FixEdit::Replace {
                    path: hook.path.key("exec"),
                    key: "sleep".to_owned(),
                    fields: vec![("seconds".to_owned(), format!("{seconds:.0}"))],
                }],
            ));
    }
}
