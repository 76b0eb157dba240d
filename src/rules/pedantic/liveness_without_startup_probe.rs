use crate::lifecycle::{ProbeKind, Role};
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::text;

declare_rule! {
    /// ## What it does
    /// Finds a container (an app container or a native sidecar) with a `livenessProbe` but no
    /// `startupProbe`.
    ///
    /// ## Why is this bad?
    /// The liveness probe starts checking right after its `initialDelaySeconds`, while the
    /// application may still be starting. If a start takes longer than the probe tolerates
    /// (about `initialDelaySeconds + failureThreshold × periodSeconds`), the container is
    /// killed and restarted before it ever comes up — and a slow start, a cold cache or a
    /// busy node can turn that into a restart loop. A startup probe holds the liveness probe
    /// back until the application has started, with its own, generous budget, so the
    /// liveness probe can stay strict. A fixed `initialDelaySeconds` has to guess the worst
    /// start instead; this rule is off by default because many applications start fast.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: app
    /// spec:
    ///   selector:
    ///     matchLabels: {app: app}
    ///   template:
    ///     metadata:
    ///       labels: {app: app}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: example/app:1.0
    ///         livenessProbe:
    ///           httpGet: {path: /livez, port: 8080}
    ///           initialDelaySeconds: 60
    /// ```
    ///
    /// Give the start its own budget:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: app
    /// spec:
    ///   selector:
    ///     matchLabels: {app: app}
    ///   template:
    ///     metadata:
    ///       labels: {app: app}
    ///     spec:
    ///       containers:
    ///       - name: app
    ///         image: example/app:1.0
    ///         startupProbe:
    ///           httpGet: {path: /livez, port: 8080}
    ///           periodSeconds: 5
    ///           failureThreshold: 60
    ///         livenessProbe:
    ///           httpGet: {path: /livez, port: 8080}
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/prober/worker.go`, `doProbe`: liveness and
    ///   readiness probes are skipped until the container has started, which with a startup
    ///   probe means until it succeeded.
    /// - [Configure liveness, readiness and startup probes: protect slow starting containers
    ///   with startup probes](https://kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/#define-startup-probes)
    pub(crate) static RULE = {
        name: "liveness-without-startup-probe",
        category: Pedantic,
        enforcement: Advice,
        summary: "liveness probe without a startup probe to protect a slow start",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let schedule = ctx.life.schedule();
    for (index, container) in ctx.life.containers.iter().enumerate() {
        if container.role == Role::Init
            || container.probes.liveness.is_none()
            || container.probes.startup.is_some()
        {
            continue;
        }
        // When the liveness probe kills a container that does not answer yet, counted from its
        // start (`None` when the probe's numbers are rejected or the container never runs).
        let Some((ProbeKind::Liveness, window)) = &schedule.containers[index].unanswered_kill
        else {
            continue;
        };
        let budget = window.bounds();
        findings
            .report(
                Target::key(container.path.key("livenessProbe")),
                format!(
                    "{} has a livenessProbe but no startupProbe: a start slower than {} gets it killed and restarted",
                    container.quoted(),
                    text::range(budget.min, budget.max)
                ),
            )
            .help("add a `startupProbe` with a budget for the slowest start; liveness checks wait until it passes")
            .container(container.name)
            .claim(Claim::UnansweredKill {
                container: index,
                probe: ProbeKind::Liveness,
                bounds: budget,
            });
    }
}
