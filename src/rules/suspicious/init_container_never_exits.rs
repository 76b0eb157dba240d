use crate::lifecycle::Role;
use crate::rules::fixes::make_sidecar;
use crate::rules::{Claim, Findings, PodContext, Target, declare_rule};
use crate::versions::SIDECAR_CONTAINERS;

declare_rule! {
    /// ## What it does
    /// Finds a classic init container (one without `restartPolicy: Always`) whose command can
    /// be seen never to exit: `sleep infinity`, `tail -f`, a `while true` (or `while :`,
    /// `while sleep N`, `until false`) loop with no `exit`, `break`, `return` or `exec` in it,
    /// a server in the foreground (`nginx -g 'daemon off;'`, `redis-server`, `memcached`,
    /// `httpd-foreground`, `python -m http.server`), or a server image such as `nginx`,
    /// `redis` or `envoyproxy/envoy` run with its own command.
    ///
    /// A loop that polls until a condition holds, such as
    /// `until nslookup db; do sleep 2; done`, ends and is not reported.
    ///
    /// ## Why is this bad?
    /// Classic init containers run one at a time, and the kubelet starts the next one — and
    /// finally the app containers — only after the previous one has exited successfully.
    /// An init container that never exits keeps the pod in `Init:` forever: no app container
    /// ever starts and the pod never becomes Ready. A pod with `activeDeadlineSeconds` fails
    /// when the deadline passes.
    ///
    /// Usually the container was meant to run beside the app: make it a native sidecar with
    /// `restartPolicy: Always`, or move it to `containers`.
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
    ///       - name: log-forwarder
    ///         image: busybox:1.36
    ///         command: ["sh", "-c", "tail -F /var/log/app/access.log"]
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.25
    /// ```
    ///
    /// Make it a sidecar, so that it keeps running beside the app:
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
    ///       - name: log-forwarder
    ///         image: busybox:1.36
    ///         command: ["sh", "-c", "tail -F /var/log/app/access.log"]
    ///         restartPolicy: Always
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
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_container.go`,
    ///   `computeInitContainerActions`: a running classic init container is left to finish
    ///   ("nothing to do but wait for it to finish"); the next one is started only once it has
    ///   exited successfully.
    /// - [Init containers](https://kubernetes.io/docs/concepts/workloads/pods/init-containers/):
    ///   "Init containers always run to completion. Each init container must complete
    ///   successfully before the next one starts."
    /// - [Sidecar containers](https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/)
    pub(crate) static RULE = {
        name: "init-container-never-exits",
        category: Suspicious,
        enforcement: Runtime,
        fix: Sometimes,
        summary: "classic init container whose command never exits",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for (index, container) in ctx
        .life
        .containers
        .iter()
        .enumerate()
        .filter(|(_, c)| c.role == Role::Init && !c.declared_sidecar)
    {
        let Some(never) = &container.never_exits else {
            continue;
        };
        let help = if SIDECAR_CONTAINERS.enabled(ctx.kube) {
            format!(
                "if {} should keep running beside the app, make it a native sidecar with `restartPolicy: Always`; otherwise give it a command that ends",
                container.quoted()
            )
        } else {
            format!(
                "if {} should keep running beside the app, move it to `containers`; otherwise give it a command that ends",
                container.quoted()
            )
        };
        let finding = findings
            .report(
                Target::key(never.path.clone()),
                format!(
                    "{} never exits ({}): the pod stays in `Init:` and no later container starts",
                    container.quoted_as("init container"),
                    never.what
                ),
            )
            .help(help)
            .container(container.name)
            .claim(Claim::NeverExits { container: index });
        if let Some(fix) = make_sidecar(ctx, container) {
            finding.fix(fix);
        }
    }
}
