//! A rollout as a Mermaid Gantt chart: a Deployment's waves, a StatefulSet's ordinals or a
//! Job's attempts, each from its start until it is available (or its last container starts),
//! with the deadlines as red diamonds. The earliest times are drawn; a bar whose end is only
//! bounded has the `active` style.

use std::io::{self, Write};

use super::RolloutExplanation;
use crate::explain::mermaid::{Chart, Style};
use crate::explain::model::ShownFinding;
use crate::explain::units::{Range, Secs};
use crate::explain::{ListStyle, write_notes_and_findings};

pub(crate) fn write_rollout(
    out: &mut dyn Write,
    rollout: &RolloutExplanation<impl ShownFinding>,
) -> io::Result<()> {
    let name = rollout.object.display_name();
    writeln!(out, "### {name} rollout")?;
    writeln!(out)?;
    writeln!(out, "`{}:{}`", rollout.file, rollout.line)?;
    writeln!(out)?;
    if rollout.rejected {
        // Its pod is still drawn: what one pod would do, not what a controller does with many.
        writeln!(
            out,
            "Kubernetes refuses this object (see the findings): nothing of it runs, so it has no rollout."
        )?;
        writeln!(out)?;
    }
    if let Some(chart) = chart(rollout) {
        writeln!(out, "```mermaid")?;
        write!(out, "{chart}")?;
        writeln!(out, "```")?;
        writeln!(out)?;
    }
    writeln!(
        out,
        "Times are the earliest possible, from the start of the rollout; not counted: {}.",
        rollout.pod.not_counted.join(", ")
    )?;
    write_notes_and_findings(out, &[], &rollout.findings, &ListStyle::MARKDOWN)
}

/// A bar from `start` until `end`, in the style its bounds call for; nothing when it never
/// ends.
fn bar(chart: &mut Chart, name: &str, id: &str, start: Range, end: Range) {
    let style = if end.exact().is_some() && start.exact().is_some() {
        Style::Known
    } else {
        Style::Bounded
    };
    chart.task(name, style, id, start.min.0, end.min.0 - start.min.0);
}

fn chart(rollout: &RolloutExplanation<impl ShownFinding>) -> Option<String> {
    let name = rollout.object.display_name();
    let chart = plan_chart(rollout, &name);
    // Whatever the plan, one pod's start says how long each step of it is.
    Some(chart.unwrap_or_else(|| {
        let mut chart = Chart::new(&format!("{name} pod, seconds from its start"));
        chart.section("pod");
        let zero = Range {
            min: Secs(0.0),
            max: Secs(0.0),
        };
        bar(
            &mut chart,
            "starts, Ready",
            "p",
            zero,
            rollout.pod.ready_seconds,
        );
        chart.text
    }))
}

fn plan_chart(rollout: &RolloutExplanation<impl ShownFinding>, name: &str) -> Option<String> {
    if let Some(deployment) = &rollout.deployment {
        if deployment.waves.is_empty() {
            return None;
        }
        let mut chart = Chart::new(&format!("{name} rollout, seconds from its start"));
        let mut previous = 0;
        for wave in &deployment.waves {
            if wave.number > previous + 1 {
                chart.section(&format!(
                    "waves {} to {} (not drawn)",
                    previous + 1,
                    wave.number - 1
                ));
            }
            previous = wave.number;
            chart.section(&format!("wave {}", wave.number));
            let id = format!("w{}", wave.number);
            bar(
                &mut chart,
                &format!("{} new pods start, first Ready", wave.new_pods),
                &format!("{id}a"),
                wave.start_seconds,
                wave.ready_seconds,
            );
            bar(
                &mut chart,
                "minReadySeconds, then available",
                &format!("{id}b"),
                wave.ready_seconds,
                wave.end_seconds,
            );
        }
        if let Some(deadline) = deployment.progress_deadline_seconds {
            chart.section("deadline");
            chart.task(
                &format!("no progress for {}s, ProgressDeadlineExceeded", deadline),
                Style::Critical,
                "deadline",
                f64::from(deadline),
                0.0,
            );
        }
        return Some(chart.text);
    }
    if let Some(daemonset) = &rollout.daemonset {
        let nodes = daemonset.by_nodes.iter().find(|n| n.nodes == 10)?;
        let mut chart = Chart::new(&format!(
            "{name} rollout on {} nodes, seconds from its start",
            nodes.nodes
        ));
        let mut start = Range {
            min: Secs(0.0),
            max: Secs(0.0),
        };
        for round in 1..=nodes.rounds {
            chart.section(&format!("round {round}"));
            let end = Range {
                min: Secs(start.min.0 + daemonset.round_seconds.min.0),
                max: Secs(start.max.0 + daemonset.round_seconds.max.0),
            };
            let what = if nodes.surge { "surge" } else { "replace" };
            bar(
                &mut chart,
                &format!("{what} {} nodes' pods", nodes.per_round),
                &format!("r{round}"),
                start,
                end,
            );
            start = end;
        }
        return Some(chart.text);
    }
    if let Some(statefulset) = &rollout.statefulset {
        let mut chart = Chart::new(&format!("{name} creation, seconds from its start"));
        let mut start = Range {
            min: Secs(0.0),
            max: Secs(0.0),
        };
        for ordinal in &statefulset.ordinals {
            chart.section(&format!("ordinal {}", ordinal.ordinal));
            let from = if statefulset.pod_management_policy == "OrderedReady" {
                start
            } else {
                Range {
                    min: Secs(0.0),
                    max: Secs(0.0),
                }
            };
            bar(
                &mut chart,
                "starts, Ready and available",
                &format!("o{}", ordinal.ordinal),
                from,
                ordinal.available_seconds,
            );
            start = ordinal.available_seconds;
        }
        return Some(chart.text);
    }
    if let Some(job) = &rollout.job {
        if job.attempts.is_empty() {
            return None;
        }
        let mut chart = Chart::new(&format!(
            "{name} attempts if each fails as early as it can, seconds from the Job's start"
        ));
        for attempt in &job.attempts {
            chart.section(&format!("attempt {}", attempt.number));
            let id = format!("a{}", attempt.number);
            if attempt.backoff_seconds.0 > 0.0 {
                chart.task(
                    &format!("back-off {}", attempt.backoff_seconds),
                    Style::Known,
                    &format!("{id}b"),
                    attempt.start_seconds.0 - attempt.backoff_seconds.0,
                    attempt.backoff_seconds.0,
                );
            }
            if job.attempt_seconds.min.0 > 0.0 {
                chart.task(
                    "starts, until its last container starts",
                    Style::Bounded,
                    &format!("{id}s"),
                    attempt.start_seconds.0,
                    job.attempt_seconds.min.0,
                );
            } else {
                chart.task(
                    "starts",
                    Style::Milestone,
                    &format!("{id}s"),
                    attempt.start_seconds.0,
                    0.0,
                );
            }
        }
        if let Some(deadline) = job.active_deadline_seconds {
            chart.section("deadline");
            #[allow(clippy::cast_precision_loss)]
            chart.task(
                &format!("activeDeadlineSeconds {deadline}s, DeadlineExceeded"),
                Style::Critical,
                "deadline",
                deadline as f64,
                0.0,
            );
        }
        return Some(chart.text);
    }
    None
}
