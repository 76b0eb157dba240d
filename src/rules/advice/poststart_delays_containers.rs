use crate::lifecycle::HookDuration;
use crate::rules::suspicious::poststart_blocks_sidecar::{delaying_hook, label_list};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Points out a `postStart` hook on a container that other containers are declared after:
    /// their start waits for the hook to return. (When one of them is a sidecar,
    /// `poststart-blocks-sidecar` reports it instead.)
    ///
    /// ## Why is this bad?
    /// It may be exactly what you want: a postStart hook that waits until the container is
    /// ready is the classic way to order app containers. But the ordering is easy to miss: the
    /// kubelet runs each container's postStart to completion before it even pulls the next
    /// container's image, so a slow or hanging hook delays every container after it, and no
    /// container's probes run until the whole start sequence has finished.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: pipeline
    /// spec:
    ///   containers:
    ///   - name: server
    ///     image: example/server:1.0
    ///     lifecycle:
    ///       postStart:
    ///         exec:
    ///           command: ["sh", "-c", "sleep 20"]
    ///   - name: worker
    ///     image: example/worker:1.0
    /// ```
    ///
    /// If the order does not matter, drop the hook or put the container last:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: pipeline
    /// spec:
    ///   containers:
    ///   - name: worker
    ///     image: example/worker:1.0
    ///   - name: server
    ///     image: example/server:1.0
    ///     lifecycle:
    ///       postStart:
    ///         exec:
    ///           command: ["sh", "-c", "sleep 20"]
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`, `SyncPod`, and
    ///   `pkg/kubelet/kuberuntime/kuberuntime_container.go`, `startContainer`: containers start
    ///   one after another, each postStart hook blocking the next start.
    /// - [Container lifecycle hooks](https://kubernetes.io/docs/concepts/containers/container-lifecycle-hooks/)
    pub static RULE = {
        name: "poststart-delays-containers",
        category: Advice,
        enforcement: Advice,
        summary: "postStart hook that holds back the containers declared after it",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for (index, container) in ctx.life.containers.iter().enumerate() {
        let Some(hook) = delaying_hook(container) else {
            continue;
        };
        let later = ctx.life.started_after(index);
        if later.is_empty() || later.iter().any(|c| c.is_sidecar()) {
            continue;
        }
        let duration = match hook.duration {
            HookDuration::Exactly(seconds) => format!(" (it sleeps {seconds}s)"),
            HookDuration::AtLeast(seconds) => format!(" (it sleeps at least {seconds}s)"),
            HookDuration::Forever => " (it never returns)".to_owned(),
            HookDuration::Unknown => String::new(),
        };
        let finding = findings
            .report(
                Target::key(hook.path.clone()),
                format!(
                    "{} {} only after the postStart of {} returns{duration}",
                    label_list(later.iter()),
                    if later.len() == 1 { "starts" } else { "start" },
                    container.label()
                ),
            )
            .help(format!(
                "if {} does not need to be ready first, remove the hook or declare {} last",
                container.label(),
                container.label()
            ))
            .container(container.name);
        if let Some(next) = later.first() {
            finding.label(
                Target::value(next.path.key("name")),
                format!("{} waits for the hook", next.label()),
            );
        }
    }
}
