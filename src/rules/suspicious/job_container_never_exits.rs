use crate::diagnostics::Severity;
use crate::lifecycle::{Role, quit_not_called, stopped_by_work};
use crate::model::path::PathSegment;
use crate::rules::{Findings, PodContext, Target, declare_rule};
use crate::versions::SIDECAR_CONTAINERS;

declare_rule! {
    /// ## What it does
    /// Finds a container in `containers` of a Job or CronJob that never exits: its command can
    /// be seen never to end (`tail -F`, `sleep infinity`, a `while true` loop, a server or a
    /// proxy in the foreground), or it is a well-known sidecar — a mesh or database proxy, a
    /// log shipper — that keeps running until it is stopped. The command and arguments decide
    /// first; an image alone counts only where its own command is known to keep running.
    ///
    /// ## Why is this bad?
    /// A Job succeeds when its pod succeeds, and a pod succeeds only when every container in
    /// `containers` has exited with code 0. A helper that runs beside the work and never
    /// exits keeps the pod running after the work is done: the Job never completes, its
    /// `completions` are never counted, and with `activeDeadlineSeconds` it fails instead.
    ///
    /// This is what native sidecars are for: an init container with `restartPolicy: Always`
    /// starts before the work, runs beside it, and is stopped by the kubelet once every
    /// container in `containers` has exited, so the pod can succeed.
    ///
    /// A helper that the work stops when it is done is not reported. What counts is what the
    /// work's command shows:
    /// - a call to the helper's quit endpoint: for an Istio proxy, `pilot-agent request POST
    ///   quitquitquit` or a `curl`/`wget` POST to `/quitquitquit` (the endpoint refuses other
    ///   methods); for the Cloud SQL Auth Proxy, a `curl`/`wget` of `/quitquitquit` when the
    ///   proxy runs with `--quitquitquit` (without the flag there is no such endpoint);
    /// - with `shareProcessNamespace: true`, a `kill`, `pkill` or `killall` that names the
    ///   helper's program (`pkill cloud_sql_proxy`, `kill $(pidof envoy)`); without it the
    ///   work cannot see the helper's processes;
    /// - a script of the work's own (`. /scripts/init.sh`, `bash /scripts/init.sh`), which the
    ///   manifest does not show, where the pod is set up for the work to stop the helper: the
    ///   Cloud SQL Auth Proxy run with `--quitquitquit`, or `shareProcessNamespace: true`.
    ///
    /// When the work's command mentions `quitquitquit` but none of its commands makes such a
    /// call, the finding says what the call must look like. A folded scalar (`>`) is a common
    /// cause: it joins the script's lines into one command, so the `curl` on its last line is
    /// only an argument of the command before it. A quit call made from the work's own code,
    /// not its command, is not seen: suppress the finding with the reason, or make the helper
    /// a native sidecar.
    ///
    /// A Job whose only container is written to run forever (`command: [sleep, infinity]`)
    /// holds its pod until the Job is deleted, which is sometimes the point — a placeholder
    /// that holds quota, a demonstration of queueing — and no helper is left running beside
    /// finished work: that case is reported as information.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: report
    /// spec:
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       containers:
    ///       - name: report
    ///         image: example/report:1.0
    ///       - name: log-shipper
    ///         image: busybox:1.36
    ///         command: ["sh", "-c", "tail -F /var/log/report/out.log"]
    /// ```
    ///
    /// Make the helper a native sidecar:
    /// ```yaml
    /// apiVersion: batch/v1
    /// kind: Job
    /// metadata:
    ///   name: report
    /// spec:
    ///   template:
    ///     spec:
    ///       restartPolicy: Never
    ///       initContainers:
    ///       - name: log-shipper
    ///         image: busybox:1.36
    ///         restartPolicy: Always
    ///         command: ["sh", "-c", "tail -F /var/log/report/out.log"]
    ///       containers:
    ///       - name: report
    ///         image: example/report:1.0
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/kubelet/kuberuntime/kuberuntime_manager.go`,
    ///   `computePodActions`: the pod is killed only when no container in `containers` is
    ///   running or to be restarted (`keepCount == 0 && len(changes.ContainersToStart) == 0`
    ///   sets `KillPod`), and then `InitContainersToStart` is cleared so that restartable init
    ///   containers — native sidecars — are stopped with it rather than keeping the pod alive;
    ///   a running container in `containers` keeps the pod up.
    /// - istio/istio `pilot/cmd/pilot-agent/status/server.go`, `handleQuit`: the quit endpoint
    ///   on port 15020 answers anything but a POST with 405, and on a POST stops the agent.
    /// - GoogleCloudPlatform/cloud-sql-proxy `cmd/root.go`: `--quitquitquit` enables the
    ///   `/quitquitquit` endpoint on the admin port (9091 by default);
    ///   `examples/k8s-sidecar/job_with_shutdown_hook.yaml` calls it from the work with `curl`.
    /// - [Share Process Namespace between Containers in a Pod](https://kubernetes.io/docs/tasks/configure-pod-container/share-process-namespace/):
    ///   with `shareProcessNamespace: true`, processes are visible to, and can be signalled
    ///   from, the other containers of the pod.
    /// - kubernetes/kubernetes `pkg/controller/job/job_controller.go`: a Job counts a
    ///   completion when a pod has succeeded.
    /// - [Sidecar containers: Jobs with sidecar containers](https://kubernetes.io/docs/concepts/workloads/pods/sidecar-containers/#jobs-with-sidecar-containers):
    ///   "If you define a Job that uses sidecar using Kubernetes-style init containers, the
    ///   sidecar container in each Pod does not prevent the Job from completing after the
    ///   main container has finished."
    pub(crate) static RULE = {
        name: "job-container-never-exits",
        category: Suspicious,
        enforcement: Runtime,
        summary: "a Job container that never exits, so the Job never completes",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if !ctx.site.is_job() {
        return;
    }
    let apps = ctx
        .life
        .containers
        .iter()
        .filter(|c| c.role == Role::App)
        .count();
    for container in ctx.life.containers.iter().filter(|c| c.role == Role::App) {
        let (what, at) = match (&container.never_exits, container.known_sidecar) {
            (Some(never), _) => (never.what.clone(), Target::key(never.path.clone())),
            (None, Some(known)) => (
                format!("the {known} keeps running"),
                Target::value(container.path.key("name")),
            ),
            (None, None) => continue,
        };
        // Stopped by the work when it is done (a quit endpoint, a signal): the pod can end.
        if stopped_by_work(ctx.site.spec, container.container).is_some() {
            continue;
        }
        let help = if SIDECAR_CONTAINERS.enabled(ctx.kube) {
            format!(
                "if {} runs beside the work, move it to `initContainers` with `restartPolicy: Always`: the kubelet stops a native sidecar once the work has exited; otherwise give it a command that ends",
                container.quoted()
            )
        } else {
            format!(
                "give {} a command that ends when the work is done; native sidecars, which the kubelet stops after the work, need {} ({})",
                container.quoted(),
                SIDECAR_CONTAINERS.description,
                SIDECAR_CONTAINERS.availability()
            )
        };
        // The Job's only container, written to run until it is stopped: the Job holds its pod
        // until it is deleted, and nothing is left running beside finished work.
        let written_to_run_forever = apps == 1
            && container.never_exits.as_ref().is_some_and(|never| {
                !matches!(never.path.segments().last(), Some(PathSegment::Key(key)) if key == "image")
            });
        if written_to_run_forever {
            findings
                .report(
                    at,
                    format!(
                        "{} never exits ({what}): the {} runs until it is deleted, and never completes",
                        container.quoted(),
                        ctx.site.kind.name()
                    ),
                )
                .help(format!(
                    "if the {} is meant to hold its pod until it is deleted, this is what it does; otherwise give {} a command that ends",
                    ctx.site.kind.name(),
                    container.quoted()
                ))
                .severity(Severity::Info)
                .container(container.name);
            continue;
        }
        let finding = findings
            .report(
                at,
                format!(
                    "{} never exits ({what}): the {}'s pod never succeeds, so it never completes",
                    container.quoted(),
                    ctx.site.kind.name()
                ),
            )
            .help(help)
            .container(container.name);
        // A quit call that does not run as written (a folded `>` scalar joins its lines into
        // one command; a GET where a POST is needed; a proxy without its quit flag).
        if let Some(note) = quit_not_called(ctx.site.spec, container.container) {
            finding.note(note);
        }
    }
}
