//! The terminal view of a rollout: the controller's settings as resolved, then the waves,
//! ordinals, rounds or attempts with their times, the deadlines, the disruption budgets, and the
//! findings.

use std::io::{self, Write};

use super::{DeploymentInfo, JobInfo, RolloutExplanation, StatefulSetInfo};
use crate::explain::model::ShownFinding;
use crate::explain::units::Secs;
use crate::explain::{ListStyle, write_notes_and_findings};

pub(crate) fn write_rollout(
    out: &mut dyn Write,
    rollout: &RolloutExplanation<impl ShownFinding>,
) -> io::Result<()> {
    writeln!(
        out,
        "{}  {}:{}  rollout (Kubernetes {})",
        rollout.object.display_name(),
        rollout.file,
        rollout.line,
        rollout.kube_version
    )?;
    if rollout.rejected {
        line(
            out,
            "rejected",
            "Kubernetes refuses this object (see the findings): nothing of it runs, so it has no rollout",
        )?;
        return write_notes_and_findings(out, &[], &rollout.findings, &ListStyle::TEXT);
    }
    let pod = &rollout.pod;
    let because: Vec<&str> = pod.ready_delays.iter().map(|d| d.what.as_str()).collect();
    let because = if because.is_empty() {
        String::new()
    } else {
        format!(" ({})", because.join(", "))
    };
    if pod.earliest_ready_seconds.is_finite() {
        line(
            out,
            "pod",
            &format!(
                "Ready {}{because}; not counting {}",
                at_least(pod.earliest_ready_seconds),
                pod.not_counted.join(", ")
            ),
        )?;
    } else {
        line(out, "pod", &format!("never Ready{because}"))?;
    }
    if let Some(allowance) = &pod.startup_allowance {
        line(
            out,
            "",
            &format!(
                "the startupProbe lets `{}` take up to {} to start",
                allowance.container, allowance.seconds
            ),
        )?;
    }
    line(
        out,
        "",
        &format!("deleted, gone within {}", pod.termination_seconds),
    )?;
    if let Some(replicas) = &rollout.replicas {
        let text = match (&replicas.autoscaler, replicas.source) {
            (Some(hpa), _) => format!(
                "{}–{} ({} scales it; the rollout is shown at {})",
                hpa.min_replicas,
                hpa.max_replicas,
                hpa.object.display_name(),
                replicas.count
            ),
            (None, "default") => format!("{} (the default)", replicas.count),
            (None, _) => replicas.count.to_string(),
        };
        line(out, "replicas", &text)?;
    }
    if let Some(deployment) = &rollout.deployment {
        write_deployment(out, deployment)?;
    }
    if let Some(replica_set) = &rollout.replica_set {
        line(out, "on update", replica_set.on_template_change)?;
    }
    if let Some(statefulset) = &rollout.statefulset {
        write_statefulset(out, statefulset)?;
    }
    if let Some(daemonset) = &rollout.daemonset {
        let strategy = match (
            daemonset.update_strategy,
            &daemonset.max_surge,
            &daemonset.max_unavailable,
        ) {
            ("RollingUpdate", Some(surge), Some(unavailable)) => format!(
                "RollingUpdate: maxUnavailable {unavailable}, maxSurge {surge} (of the nodes that run it, rounded up)"
            ),
            (other, _, _) => other.to_owned(),
        };
        line(out, "strategy", &strategy)?;
        line(
            out,
            "",
            &format!(
                "a pod is available {} after it starts (minReadySeconds {}); one round takes {}",
                at_least(daemonset.available_after_seconds.min),
                daemonset.min_ready_seconds,
                daemonset.round_seconds
            ),
        )?;
        if let Some(blocked) = &daemonset.surge_blocked_by {
            line(
                out,
                "",
                &format!(
                    "a surge pod never schedules beside the old one: `{}` takes host port {}, which the old pod holds",
                    blocked.container, blocked.port
                ),
            )?;
        }
        for nodes in &daemonset.by_nodes {
            let how = if nodes.surge { "surging" } else { "replacing" };
            line(
                out,
                "",
                &format!(
                    "{}: {} {how} {} at a time, {}",
                    plural(i64::from(nodes.nodes), "node"),
                    plural(nodes.rounds, "round"),
                    nodes.per_round,
                    nodes.update_seconds
                ),
            )?;
        }
    }
    if let Some(cronjob) = &rollout.cronjob {
        let mut text = format!(
            "`{}`{}, concurrencyPolicy {}",
            cronjob.schedule,
            cronjob
                .time_zone
                .as_ref()
                .map_or_else(String::new, |zone| format!(" in {zone}")),
            cronjob.concurrency_policy
        );
        if let Some(deadline) = cronjob.starting_deadline_seconds {
            text.push_str(&format!("; a run more than {deadline}s late is skipped"));
        }
        if cronjob.suspend {
            text.push_str("; suspended");
        }
        line(out, "schedule", &text)?;
    }
    if let Some(job) = &rollout.job {
        write_job(out, job)?;
    }
    for group in &rollout.budget_groups {
        for budget in group.iter().take(LISTED_BUDGETS) {
            let budget = super::budget_info(budget);
            let allows = match (budget.evictions_allowed, &budget.blocks_because) {
                (_, Some(why)) => format!("allows no eviction: {why}"),
                (Some(n), None) => format!(
                    "allows {n} eviction{} at a time when all pods are healthy",
                    if n == 1 { "" } else { "s" }
                ),
                (None, None) => "allows what the pods' count decides".to_owned(),
            };
            line(
                out,
                "budget",
                &format!("{} {allows}", budget.object.display_name()),
            )?;
        }
        if group.len() > LISTED_BUDGETS {
            line(
                out,
                "",
                &format!(
                    "… and {} with the same selector",
                    plural((group.len() - LISTED_BUDGETS) as i64, "more budget")
                ),
            )?;
        }
    }
    write_notes_and_findings(out, &[], &rollout.findings, &ListStyle::TEXT)
}

/// The budgets of one selector listed under a rollout; the rest are counted.
const LISTED_BUDGETS: usize = 3;

fn write_deployment(out: &mut dyn Write, deployment: &DeploymentInfo) -> io::Result<()> {
    let strategy = match (&deployment.max_surge, &deployment.max_unavailable) {
        (Some(surge), Some(unavailable)) => {
            let mut text = format!(
                "RollingUpdate: maxSurge {}{} → {} (rounded up), maxUnavailable {}{} → {} (rounded down)",
                surge.written,
                default_mark(surge.defaulted),
                pods(surge.pods),
                unavailable.written,
                default_mark(unavailable.defaulted),
                pods(unavailable.pods)
            );
            if deployment.fenceposts_raised {
                text.push_str(", raised to 1 because both came to 0");
            }
            text
        }
        _ => deployment.strategy.to_owned(),
    };
    line(out, "strategy", &strategy)?;
    line(
        out,
        "",
        &format!(
            "a new pod is available {} after it starts (Ready, then minReadySeconds {})",
            at_least(deployment.available_after_seconds.min),
            deployment.min_ready_seconds
        ),
    )?;
    if deployment.paused {
        line(out, "", "paused: no rollout runs until it is resumed")?;
    }
    if !deployment.waves.is_empty() {
        writeln!(
            out,
            "  waves  (times in seconds from the start of the rollout)"
        )?;
        let mut previous = 0;
        for wave in &deployment.waves {
            let between = wave.number - previous - 1;
            if between > 0 {
                writeln!(out, "         … {} …", plural(between, "more wave"))?;
            }
            previous = wave.number;
            writeln!(
                out,
                "    {:>3}  from {:8} {:>9}, {} available, {} in all; first Ready {}, all available {}",
                wave.number,
                at_least(wave.start_seconds.min),
                plural(wave.new_pods, "new pod"),
                wave.available,
                wave.pods,
                at_least(wave.ready_seconds.min),
                at_least(wave.end_seconds.min)
            )?;
        }
    }
    if let Some(downtime) = deployment.downtime_seconds {
        line(
            out,
            "downtime",
            &format!("{downtime}: the old pods are gone before a new one starts (Recreate)"),
        )?;
    }
    if let Some(complete) = deployment.complete_seconds {
        line(out, "complete", &at_least(complete.min))?;
    }
    let deadline = match deployment.progress_deadline_seconds {
        Some(seconds) => format!(
            "progressDeadlineSeconds {seconds}s{}",
            if deployment.progress_deadline_source == "default" {
                " (the default)"
            } else {
                ""
            }
        ),
        None => "no progress deadline".to_owned(),
    };
    let verdict = match (deployment.deadline.verdict, &deployment.deadline.because) {
        ("exceeded", Some(why)) => {
            format!(": exceeded on every rollout (ProgressDeadlineExceeded): {why}")
        }
        ("may-exceed", Some(why)) => format!(": may be exceeded: {why}"),
        ("met", _) => ": met by the earliest times".to_owned(),
        _ => String::new(),
    };
    line(out, "deadline", &format!("{deadline}{verdict}"))
}

fn write_statefulset(out: &mut dyn Write, statefulset: &StatefulSetInfo) -> io::Result<()> {
    line(
        out,
        "policy",
        &format!(
            "{}: {}",
            statefulset.pod_management_policy,
            match statefulset.pod_management_policy {
                "OrderedReady" =>
                    "each ordinal starts once the one before it is Ready and available",
                "Parallel" => "every ordinal starts at once",
                _ => "rejected by the API server",
            }
        ),
    )?;
    line(
        out,
        "",
        &format!(
            "a pod is available {} after it starts (minReadySeconds {}); created in {}",
            at_least(statefulset.available_after_seconds.min),
            statefulset.min_ready_seconds,
            at_least(statefulset.create_seconds.min)
        ),
    )?;
    if statefulset.ordinals.len() > 1 {
        let shown: Vec<String> = statefulset
            .ordinals
            .iter()
            .map(|o| format!("{} at {}", o.ordinal, at_least(o.available_seconds.min)))
            .collect();
        line(out, "ordinals", &format!("available: {}", shown.join(", ")))?;
    }
    let update = match (statefulset.update_strategy, statefulset.update_seconds) {
        ("RollingUpdate", Some(time)) => format!(
            "RollingUpdate: {} ordinals from the highest down to {}, {} at a time{}: {time}",
            statefulset.updated_ordinals,
            statefulset.partition.unwrap_or(0),
            statefulset.replaced_at_once.unwrap_or(1),
            statefulset
                .max_unavailable
                .as_ref()
                .map_or_else(String::new, |m| format!(" (maxUnavailable {m})"))
        )
        .replace(&format!(": {time}"), &format!(": {}", at_least(time.min))),
        ("OnDelete", _) => {
            "OnDelete: pods get the new template only when someone deletes them".to_owned()
        }
        (other, _) => other.to_owned(),
    };
    line(out, "update", &update)
}

fn write_job(out: &mut dyn Write, job: &JobInfo) -> io::Result<()> {
    let completions = job.completions.map_or_else(
        || "any success completes it".to_owned(),
        |c| plural(i64::from(c), "completion"),
    );
    line(
        out,
        "job",
        &format!(
            "{completions}, parallelism {}, {} ({}), backoffLimit {}{}",
            job.parallelism,
            job.completion_mode,
            match job.restart_policy {
                "Never" => "a failed pod is replaced after the Job controller's back-off",
                _ => "the kubelet restarts a failed container in its pod",
            },
            job.backoff_limit,
            if job.backoff_limit_source == "default" {
                " (the default)"
            } else {
                ""
            }
        ),
    )?;
    line(
        out,
        "",
        &if job.restart_policy == "OnFailure" {
            // The kubelet restarts the container in the started pod: only the first attempt
            // waits for the pod's start.
            format!(
                "each pod takes {} before its last container starts, once: the kubelet restarts the container in it",
                at_least(job.attempt_seconds.min)
            )
        } else {
            format!(
                "each attempt takes {} before its last container starts",
                at_least(job.attempt_seconds.min)
            )
        },
    )?;
    if !job.attempts.is_empty() {
        let shown: Vec<String> = job
            .attempts
            .iter()
            .map(|a| format!("{} at {}", a.number, at_least(a.start_seconds)))
            .collect();
        let more = if (job.attempts.len() as i64) < job.attempts_allowed {
            format!(" … {} in all", job.attempts_allowed)
        } else {
            String::new()
        };
        line(
            out,
            "attempts",
            &format!(
                "{}{more} (back-off {} in all)",
                shown.join(", "),
                job.backoff_total_seconds
            ),
        )?;
    }
    if let Some(failed) = job.failed_after_seconds {
        line(
            out,
            "",
            &format!(
                "fails (BackoffLimitExceeded) {} after it starts, if every attempt fails",
                at_least(failed.min)
            ),
        )?;
    }
    if let Some(deadline) = job.active_deadline_seconds {
        let fit = job
            .attempts_within_deadline
            .map_or_else(String::new, |fit| {
                format!(
                    ": {fit} of the {} attempts can start before it",
                    job.attempts_allowed
                )
            });
        line(
            out,
            "deadline",
            &format!("activeDeadlineSeconds {deadline}s from the Job's start{fit}"),
        )?;
    }
    let completion = if job.completion_seconds.max.0 == 0.0 {
        "the pod is done when its app containers exit: it has no sidecar to stop".to_owned()
    } else {
        format!(
            "the app containers exit, then the sidecars stop, the last declared first, within {}",
            job.completion_seconds
        )
    };
    line(out, "completion", &completion)
}

/// `  label       text`.
fn line(out: &mut dyn Write, label: &str, text: &str) -> io::Result<()> {
    writeln!(out, "  {label:10}  {text}")
}

fn pods(n: i32) -> String {
    plural(i64::from(n), "pod")
}

/// `1 pod`, `3 pods`.
fn plural(n: i64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

fn default_mark(defaulted: bool) -> &'static str {
    if defaulted { " (default)" } else { "" }
}

/// `≥5s`, or `never`.
fn at_least(seconds: Secs) -> String {
    if seconds.is_finite() {
        format!("≥{seconds}")
    } else {
        seconds.to_string()
    }
}
