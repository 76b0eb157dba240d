use crate::diagnostics::Severity;
use crate::lifecycle::ProbeKind;
use crate::lifecycle::rollout::{DeadlineVerdict, Plan};
use crate::model::path::FieldPath;
use crate::rules::{Claim, Findings, RolloutContext, Target, declare_rule};
use crate::text;

declare_rule! {
    /// ## What it does
    /// Finds a Deployment whose rollouts cannot make progress within its
    /// `progressDeadlineSeconds` (600 s when not written):
    /// - an **error** when even the earliest time its pods can be Ready — init containers,
    ///   sidecar gates, postStart hooks and probe delays that the spec makes certain — is past
    ///   the deadline;
    /// - a **warning** when a startup probe lets a container take longer to start than the
    ///   deadline, or the latest time the pods can be Ready is past it: a start that the pod
    ///   accepts still fails the rollout.
    ///
    /// ## Why is this bad?
    /// The Deployment controller reports progress when it creates pods, when a pod becomes
    /// Ready and when one becomes available; when none comes for `progressDeadlineSeconds`, it
    /// sets the `Progressing` condition to `False` with reason `ProgressDeadlineExceeded`. Each
    /// wave of a rollout waits for its new pods to be Ready, so a pod that is Ready later than
    /// the deadline times out every rollout: `kubectl rollout status` fails, `helm upgrade
    /// --wait` and Argo CD report the release failed, and automated rollbacks fire — while the
    /// pods themselves start fine a little later.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   progressDeadlineSeconds: 60
    ///   minReadySeconds: 30
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: example/web:1.0
    ///         readinessProbe:
    ///           httpGet: {path: /ready, port: 8080}
    ///           initialDelaySeconds: 150
    /// ```
    ///
    /// Give the rollout a deadline beyond the pods' startup:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   progressDeadlineSeconds: 600
    ///   minReadySeconds: 30
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       containers:
    ///       - name: web
    ///         image: example/web:1.0
    ///         readinessProbe:
    ///           httpGet: {path: /ready, port: 8080}
    ///           initialDelaySeconds: 150
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/controller/deployment/util/deployment_util.go`:
    ///   `DeploymentProgressing` (new pods, pods scaled away, more Ready or available pods),
    ///   `DeploymentTimedOut`, `HasProgressDeadline`.
    /// - kubernetes/kubernetes `pkg/controller/deployment/progress.go`, `syncRolloutStatus`:
    ///   `ProgressDeadlineExceeded`.
    /// - kubernetes/kubernetes `pkg/apis/apps/v1/defaults.go`: `progressDeadlineSeconds` 600.
    /// - [Deployments: failed deployment](https://kubernetes.io/docs/concepts/workloads/controllers/deployment/#failed-deployment)
    pub(crate) static RULE = {
        name: "progress-deadline-exceeded",
        category: Correctness,
        enforcement: Runtime,
        summary: "rollout whose pods cannot be Ready within the Deployment's progressDeadlineSeconds",
        check: crate::rules::Check::Rollout(check),
    }
}

fn check(ctx: &RolloutContext<'_>, findings: &mut Findings) {
    let Plan::Deployment(plan) = &ctx.rollout.plan else {
        return;
    };
    let Some(deadline) = plan.progress_deadline.seconds else {
        return;
    };
    let pod = &ctx.rollout.pod;
    let deadline_path = FieldPath::from_keys(&["spec", "progressDeadlineSeconds"]);
    let written = plan.progress_deadline.written;
    let deadline_words = if written {
        format!("`progressDeadlineSeconds` ({deadline}s)")
    } else {
        format!("the default `progressDeadlineSeconds` ({deadline}s)")
    };
    let name = format!("`{}`", ctx.site.object.display_name());
    match plan.deadline_verdict(pod) {
        DeadlineVerdict::Exceeded { ready } => {
            let delays = pod.ready.earliest.counted_delays();
            // The finding sits on the deadline when it is written, else on the longest wait.
            let at = if written {
                Target::value(deadline_path.clone())
            } else {
                delays
                    .iter()
                    .max_by(|a, b| a.seconds.total_cmp(&b.seconds))
                    .map_or_else(
                        || Target::key(ctx.site.spec_path.clone()),
                        |d| Target::key(d.path.clone()),
                    )
            };
            let finding = findings
                .report(
                    at,
                    format!(
                        "every rollout of {name} is reported failed (ProgressDeadlineExceeded): its pods are Ready no earlier than {} after they start, past {deadline_words}",
                        text::seconds(ready)
                    ),
                )
                .help(format!(
                    "raise `progressDeadlineSeconds` above {} (the pods' earliest Ready plus `minReadySeconds`, before image pulls), or make the pods start sooner",
                    text::seconds(ready + f64::from(plan.min_ready_seconds.max(0)))
                ))
                .claim(Claim::CertainReady(ready))
                .claim(Claim::ProgressDeadline(deadline));
            for delay in delays {
                finding.label(
                    Target::key(delay.path.clone()),
                    ctx.life.describe_delay(delay),
                );
            }
            if !written {
                finding.note(format!(
                    "`progressDeadlineSeconds` is not set, so the Deployment controller uses {deadline}s"
                ));
            }
        }
        DeadlineVerdict::MayExceedByProbe { container, seconds } => {
            let life = &ctx.life.containers[container];
            let times = &ctx.life.schedule().containers[container];
            let Some((ProbeKind::Startup, window)) = &times.unanswered_kill else {
                return;
            };
            // A window that straddles the deadline is not "longer than" it: it can be.
            let longer = if window.bounds().min > f64::from(deadline) {
                "longer than"
            } else {
                "which can be longer than"
            };
            let finding = findings
                .report(
                    Target::key(life.path.key("startupProbe").key("failureThreshold")),
                    format!(
                        "the startupProbe of {} gives it {} after its start before it is restarted, {longer} {deadline_words}: a start that slow succeeds, but the rollout of {name} is reported failed (ProgressDeadlineExceeded) on the way",
                        life.quoted(),
                        text::range(window.bounds().min, window.bounds().max)
                    ),
                )
                .help(format!(
                    "raise `progressDeadlineSeconds` above {}, or tighten the startup probe to what the container needs",
                    text::seconds(seconds)
                ))
                .container(life.name)
                .claim(Claim::UnansweredKill {
                    container,
                    probe: ProbeKind::Startup,
                    bounds: window.bounds(),
                })
                .claim(Claim::ProgressDeadline(deadline));
            finding.severity(Severity::Warning);
            if written {
                finding.label(Target::value(deadline_path), "the rollout times out here");
            }
        }
        DeadlineVerdict::MayExceed { ready } => {
            let finding = findings
                .report(
                    if written {
                        Target::value(deadline_path)
                    } else {
                        Target::key(ctx.site.spec_path.clone())
                    },
                    format!(
                        "the pods of {name} are Ready {} after they start; past {deadline_words} the rollout is reported failed (ProgressDeadlineExceeded)",
                        text::range(ready.min, ready.max)
                    ),
                )
                .help(format!(
                    "raise `progressDeadlineSeconds` above {}",
                    text::seconds(ready.max + f64::from(plan.min_ready_seconds.max(0)))
                ))
                .claim(Claim::CertainReady(ready.min))
                .claim(Claim::ProgressDeadline(deadline));
            finding.severity(Severity::Warning);
        }
        DeadlineVerdict::NotJudged | DeadlineVerdict::Met => {}
    }
}
