use crate::lifecycle::Role;
use crate::rules::fixes::make_sidecar;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a `livenessProbe`, `readinessProbe` or `startupProbe` on a classic init container,
    /// one without `restartPolicy: Always`.
    ///
    /// ## Why is this bad?
    /// A classic init container runs to completion before the next container starts; nothing
    /// probes it. The API server rejects the pod (or the workload) with
    /// `Forbidden: may not be set for init containers without restartPolicy=Always`.
    ///
    /// A native sidecar — an init container with `restartPolicy: Always` — keeps running beside
    /// the app, and may carry probes: its startup probe even gates the next container's start.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: migrate-then-serve
    /// spec:
    ///   initContainers:
    ///   - name: migrate
    ///     image: example/migrate:1.0
    ///     readinessProbe:
    ///       exec:
    ///         command: ["test", "-f", "/done"]
    ///   containers:
    ///   - name: app
    ///     image: example/app:1.0
    /// ```
    ///
    /// Remove the probe, or, when the container should keep running, make it a sidecar:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: migrate-then-serve
    /// spec:
    ///   initContainers:
    ///   - name: migrate
    ///     image: example/migrate:1.0
    ///   containers:
    ///   - name: app
    ///     image: example/app:1.0
    /// ```
    ///
    /// ## Fix
    /// Where the init container can be seen never to exit (a well-known proxy or server image,
    /// `sleep infinity`, an endless loop) and the target version has native sidecars,
    /// `check --fix` and the editor's quick fix add `restartPolicy: Always`, which makes it a
    /// sidecar. The fix is safe: a container that never exits can only have been meant to run
    /// beside the others.
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`, `validateInitContainers`:
    ///   each probe on an init container whose restart policy is not `Always` is `Forbidden`.
    /// - [Sidecar containers](https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/)
    pub(crate) static RULE = {
        name: "init-container-probe",
        category: Correctness,
        enforcement: ApiServer,
        fix: Sometimes,
        summary: "probe on an init container that is not a sidecar",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for container in ctx
        .life
        .containers
        .iter()
        .filter(|c| c.role == Role::Init && !c.declared_sidecar)
    {
        let probes = [
            (
                "livenessProbe",
                container.container.liveness_probe.is_some(),
            ),
            (
                "readinessProbe",
                container.container.readiness_probe.is_some(),
            ),
            ("startupProbe", container.container.startup_probe.is_some()),
        ];
        for (field, _) in probes.into_iter().filter(|(_, present)| *present) {
            let finding = findings
                .report(
                    Target::key(container.path.key(field)),
                    format!("{field} is not allowed on {}", container.quoted_as("init container")),
                )
                .help(format!(
                    "remove the probe, or make {} a sidecar with `restartPolicy: Always`",
                    container.quoted()
                ))
                .note("the API server rejects probes on init containers without `restartPolicy: Always`")
                .container(container.name);
            if let Some(fix) = make_sidecar(ctx, container) {
                finding.fix(fix);
            }
        }
    }
}
