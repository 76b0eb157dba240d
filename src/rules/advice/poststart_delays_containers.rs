use crate::lifecycle::HookEnd;
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::text::{self, short_phrase_list};

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
    pub(crate) static RULE = {
        name: "poststart-delays-containers",
        category: Advice,
        enforcement: Advice,
        summary: "postStart hook that holds back the containers declared after it",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let after = ctx.life.sidecars_after();
    for (index, container) in ctx.life.containers.iter().enumerate() {
        let Some(hook) = container.delaying_post_start() else {
            continue;
        };
        let later = ctx.life.started_after(index);
        if later.is_empty() || after.count(index) > 0 {
            continue;
        }
        let duration = match hook.end() {
            HookEnd::Returns(length) if length.max == 0.0 => continue,
            HookEnd::Returns(length) if length.min == 0.0 => String::new(),
            HookEnd::Returns(length) => {
                format!(" (it takes {})", text::range(length.min, length.max))
            }
            HookEnd::Never => " (it never returns)".to_owned(),
            HookEnd::Fails(_) => format!(" (it fails, and {} is killed first)", container.quoted()),
        };
        let finding = findings
            .report(
                Target::key(hook.path.clone()),
                format!(
                    "{} {} only after the postStart of {} returns{duration}",
                    short_phrase_list(later.iter().map(|c| c.quoted()), later.len()),
                    if later.len() == 1 { "starts" } else { "start" },
                    container.quoted()
                ),
            )
            .help(format!(
                "if {} does not need to be ready first, remove the hook or declare {} last",
                container.quoted(),
                container.quoted()
            ))
            .container(container.name);
        if let Some(next) = later.first() {
            finding.label(
                Target::value(next.path.key("name")),
                format!("{} waits for the hook", next.quoted()),
            );
        }
    }
}
