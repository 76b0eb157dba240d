use crate::lifecycle::Role;
use crate::rules::fixes::make_sidecar;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds `lifecycle` (postStart, preStop, stopSignal) on a classic init container, one
    /// without `restartPolicy: Always`.
    ///
    /// ## Why is this bad?
    /// Lifecycle hooks belong to containers that keep running. A classic init container runs
    /// to completion, so the API server rejects the pod (or the workload) with
    /// `Forbidden: may not be set for init containers without restartPolicy=Always`.
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
    ///       - name: setup
    ///         image: busybox:1.36
    ///         command: ["sh", "-c", "cp /src/* /work/"]
    ///         lifecycle:
    ///           postStart:
    ///             exec:
    ///               command: ["touch", "/work/ready"]
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// Do the work in the init container's own command:
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
    ///       - name: setup
    ///         image: busybox:1.36
    ///         command: ["sh", "-c", "cp /src/* /work/ && touch /work/ready"]
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
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
    ///   `lifecycle` on an init container whose restart policy is not `Always` is `Forbidden`.
    /// - [Init containers](https://kubernetes.io/docs/concepts/workloads/pods/init-containers/)
    pub(crate) static RULE = {
        name: "init-container-lifecycle",
        category: Correctness,
        enforcement: ApiServer,
        fix: Sometimes,
        summary: "lifecycle hooks on an init container that is not a sidecar",
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
        if container.container.lifecycle.is_none() {
            continue;
        }
        let finding = findings
            .report(
                Target::key(container.path.key("lifecycle")),
                format!("lifecycle is not allowed on {}", container.quoted_as("init container")),
            )
            .help(format!(
                "move the hook's work into the command of {}, or make it a sidecar with `restartPolicy: Always`",
                container.quoted()
            ))
            .note("the API server rejects lifecycle hooks on init containers without `restartPolicy: Always`")
            .container(container.name);
        if let Some(fix) = make_sidecar(ctx, container) {
            finding.fix(fix);
        }
    }
}
