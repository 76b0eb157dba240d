//! The terminal timeline: the start chain on one line, then startup and shutdown with their
//! budgets, notes and findings.

use std::io::{self, Write};

use super::model::{HookInfo, PodExplanation, ProbeInfo, ShownFinding, StartupStep, StopStep};
use super::units::Secs;
use super::{ListStyle, write_notes_and_findings};

pub(crate) fn write_pod(
    out: &mut dyn Write,
    pod: &PodExplanation<impl ShownFinding>,
) -> io::Result<()> {
    writeln!(
        out,
        "{}  {}:{}  {}",
        pod.object.display_name(),
        pod.file,
        pod.line,
        pod.field
    )?;
    if !pod.startup.is_empty() {
        writeln!(out, "  {}", chain(&pod.startup))?;
    }
    writeln!(out)?;
    write_startup(out, pod)?;
    writeln!(out)?;
    write_shutdown(out, pod)?;
    write_notes_and_findings(out, &pod.notes, &pod.findings, &ListStyle::TEXT)?;
    Ok(())
}

/// `migrate ─exit 0→ proxy ─started→ app ─postStart 5s→ worker`.
fn chain(steps: &[StartupStep]) -> String {
    let mut text = String::new();
    for (index, step) in steps.iter().enumerate() {
        let previous = index.checked_sub(1).map(|i| &steps[i]);
        match step.waits_for.first() {
            Some(gate) => {
                if previous.is_none() {
                    text.push_str(&gate.container);
                }
                let label = match gate.event {
                    "completion" if previous.is_some_and(|p| p.never_exits.is_some()) => {
                        "never exits".to_owned()
                    }
                    "completion" => "exit 0".to_owned(),
                    "started" => "started".to_owned(),
                    _ => match previous.and_then(|p| p.post_start.as_ref()) {
                        Some(hook) => format!("postStart {}", hook_length(hook)),
                        None => "postStart".to_owned(),
                    },
                };
                text.push_str(&format!(" ─{label}→ "));
            }
            None if previous.is_some() => text.push_str(" → "),
            None => {}
        }
        text.push_str(&step.container);
    }
    text
}

fn write_startup(out: &mut dyn Write, pod: &PodExplanation<impl ShownFinding>) -> io::Result<()> {
    writeln!(
        out,
        "startup  (earliest times, in seconds from the pod's start)"
    )?;
    if pod.startup.is_empty() {
        writeln!(out, "  no containers")?;
    }
    let times: Vec<String> = pod
        .startup
        .iter()
        .map(|s| at_least(s.earliest_start_seconds))
        .collect();
    let time_width = width(times.iter().map(String::as_str));
    let name_width = width(pod.startup.iter().map(|s| s.container.as_str()));
    let indent = 2 + time_width + 2 + name_width + 2 + 7 + 2;
    for (index, (step, time)) in pod.startup.iter().zip(&times).enumerate() {
        let previous = index.checked_sub(1).map(|i| &pod.startup[i]);
        writeln!(
            out,
            "  {time:time_width$}  {:name_width$}  {:7}  {}",
            step.container,
            step.role,
            gate_text(step, previous)
        )?;
        for (label, detail) in details(step) {
            writeln!(out, "{:indent$}{label:15} {detail}", "")?;
        }
    }
    match pod.earliest_ready_seconds {
        Some(ready) if ready.is_finite() => {
            let because: Vec<String> = pod
                .ready_delays
                .iter()
                .map(|delay| delay.what.clone())
                .collect();
            let because = if because.is_empty() {
                String::new()
            } else {
                format!(" ({})", because.join(", "))
            };
            writeln!(
                out,
                "  pod Ready {}{because}, not counting {}",
                at_least(ready),
                pod.not_counted.join(", ")
            )?;
        }
        Some(_) => writeln!(out, "  the pod never becomes Ready")?,
        None => {}
    }
    if let Some(deadline) = pod.active_deadline_seconds {
        writeln!(
            out,
            "  activeDeadlineSeconds {deadline}s: the pod is failed {deadline}s after it starts"
        )?;
    }
    Ok(())
}

fn gate_text(step: &StartupStep, previous: Option<&StartupStep>) -> String {
    let failed_hook = previous
        .and_then(|p| p.post_start.as_ref())
        .is_some_and(|hook| hook.duration == "fails-at-once");
    let mut text = match step.waits_for.first() {
        None => match &step.starts_after {
            Some(previous) => format!("right after {previous}"),
            None => "starts first".to_owned(),
        },
        Some(gate) => match gate.event {
            "completion" => format!("after {} exits", gate.container),
            "started" => format!("after {} has started", gate.container),
            _ if failed_hook => format!(
                "after {}'s postStart fails and {} is killed",
                gate.container, gate.container
            ),
            _ => format!("after {}'s postStart returns", gate.container),
        },
    };
    if step.role == "init" {
        match &step.never_exits {
            Some(why) => text.push_str(&format!(", never exits ({why})")),
            None => text.push_str(", runs to completion (exit 0)"),
        }
    }
    text
}

/// The lines under a container: its postStart and probes.
fn details(step: &StartupStep) -> Vec<(&'static str, String)> {
    let mut lines = Vec::new();
    if let Some(hook) = &step.post_start {
        lines.push(("postStart", hook_text(hook)));
    }
    if let Some(probe) = &step.probes.startup {
        lines.push(("startupProbe", startup_text(probe)));
    }
    if let Some(probe) = &step.probes.readiness {
        lines.push(("readinessProbe", readiness_text(probe)));
    }
    if let Some(probe) = &step.probes.liveness {
        lines.push(("livenessProbe", liveness_text(probe)));
    }
    lines
}

fn startup_text(probe: &ProbeInfo) -> String {
    let Some(first) = probe.first_probe_seconds else {
        return invalid();
    };
    if let Some(why) = &probe.never_passes {
        return format!(
            "never passes ({why}): the container is never started, never Ready, and killed {} after the start",
            probe
                .window_bounds_seconds
                .map_or_else(|| "at some point".to_owned(), |w| w.to_string())
        );
    }
    let mut text = format!("passes {}", at_least(first));
    if let Some(window) = probe.window_bounds_seconds {
        text.push_str(&format!(
            "; if it never does, killed {window} after the start"
        ));
    }
    push_kill(&mut text, probe);
    text
}

fn readiness_text(probe: &ProbeInfo) -> String {
    let (Some(first), Some(fails)) = (probe.first_probe_seconds, probe.fails_after_seconds) else {
        return invalid();
    };
    if let Some(why) = &probe.never_passes {
        return format!("never passes ({why}): never Ready");
    }
    let ready = probe.earliest_ready_seconds.unwrap_or(Secs(f64::INFINITY));
    let first = if ready == first {
        String::new()
    } else {
        format!("first probe {}, ", at_least(first))
    };
    let mut text = format!(
        "{first}Ready {}; unready {fails} after it starts failing",
        at_least(ready)
    );
    if let Some(recovers) = probe
        .recovers_after_seconds
        .filter(|_| probe.success_threshold > 1)
    {
        text.push_str(&format!(", Ready again {recovers} after it recovers"));
    }
    text
}

fn liveness_text(probe: &ProbeInfo) -> String {
    let (Some(first), Some(fails)) = (probe.first_probe_seconds, probe.fails_after_seconds) else {
        return invalid();
    };
    let mut text = format!(
        "first probe {}; kills it {fails} after it starts failing",
        at_least(first)
    );
    if let Some(window) = probe.window_bounds_seconds {
        text.push_str(&format!(", {window} after the start if it never answers"));
    }
    push_kill(&mut text, probe);
    text
}

/// A probe whose numbers the API server rejects.
fn invalid() -> String {
    "rejected by the API server (see the findings); no timing".to_owned()
}

/// `, SIGKILL ≤12s later (probe grace 10s)`.
fn push_kill(text: &mut String, probe: &ProbeInfo) {
    if let Some(kill) = &probe.kill {
        text.push_str(&format!(", SIGKILL ≤{} later", kill.sigkill_within_seconds));
        if kill.grace_period_source == "probe" {
            text.push_str(&format!(" (probe grace {}s)", kill.grace_period_seconds));
        }
    }
}

fn write_shutdown(out: &mut dyn Write, pod: &PodExplanation<impl ShownFinding>) -> io::Result<()> {
    let shutdown = &pod.shutdown;
    let grace = if shutdown.effective_grace_period_seconds == shutdown.grace_period_seconds {
        format!(
            "grace period {}s, {}",
            shutdown.grace_period_seconds,
            if shutdown.grace_period_source == "spec" {
                "set"
            } else {
                "default"
            }
        )
    } else {
        format!(
            "grace period {}s set, {}s in effect",
            shutdown.grace_period_seconds, shutdown.effective_grace_period_seconds
        )
    };
    if shutdown.containers.is_empty() {
        writeln!(out, "shutdown  (on deletion: {grace})")?;
    } else {
        writeln!(
            out,
            "shutdown  (on deletion: {grace}; every container is killed by {})",
            shutdown.hard_bound_seconds
        )?;
    }
    if shutdown.containers.is_empty() {
        writeln!(out, "  no running containers")?;
    }
    let name_width = width(shutdown.containers.iter().map(|s| s.container.as_str()));
    let only_app = only_app(pod);
    for stop in &shutdown.containers {
        writeln!(
            out,
            "  {:name_width$}  {}",
            stop.container,
            stop_text(stop, only_app)
        )?;
    }
    for cut in &shutdown.platform_cuts {
        let placed = match &cut.placed_by {
            Some(field) => format!("placed by {field}"),
            None => "named by the settings".to_owned(),
        };
        writeln!(
            out,
            "  ✂ {}: {} stops the pod at {}s ({}, {placed}); every container is killed by {}",
            cut.platform, cut.by, cut.seconds, cut.caps, cut.sigkill_by_seconds
        )?;
        if !cut.not_happening.is_empty() {
            writeln!(out, "    does not happen: {}", cut.not_happening.join("; "))?;
        }
    }
    Ok(())
}

/// `preStop sleep 10s → SIGTERM at 10s → 20s to exit → SIGKILL at 30s`.
fn stop_text(stop: &StopStep, only_app: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let (true, Some(hook)) = (stop.prestop_runs, &stop.prestop) {
        let mut text = format!("preStop {}", hook_text(hook));
        if stop.prestop_rejected {
            // The pod is never created: nothing follows.
            text.push_str(", longer than the grace period: the API server rejects the pod, so this shutdown never happens");
            return text;
        }
        if stop.prestop_cut_off {
            text.push_str(&format!(", cut off at {}", stop.sigterm_seconds.min));
        }
        parts.push(text);
    }
    if let Some(waits) = waits_for(stop, only_app) {
        parts.push(format!("waits for {waits} to exit"));
    }
    let window = stop.term_window_bounds_seconds;
    let minimum = if window.max == Secs(2.0) {
        " (the minimum)"
    } else {
        ""
    };
    parts.push(format!("SIGTERM at {}", stop.sigterm_seconds));
    parts.push(format!("{window} to exit{minimum}"));
    parts.push(format!("SIGKILL at {}", stop.sigkill_seconds));
    parts.join(" → ")
}

/// The name of a pod's only app container, if it has one: what a sidecar waiting for "the
/// app containers" waits for.
pub(super) fn only_app(pod: &PodExplanation<impl ShownFinding>) -> Option<&str> {
    let mut apps = pod.startup.iter().filter(|s| s.role == "app");
    match (apps.next(), apps.next()) {
        (Some(only), None) => Some(&only.container),
        _ => None,
    }
}

/// What a sidecar waits for on shutdown, in words: `api and proxy`, `the 3 app containers`.
pub(super) fn waits_for(stop: &StopStep, only_app: Option<&str>) -> Option<String> {
    let apps = match (stop.waits_for.app_containers, only_app) {
        (0, _) => None,
        (1, Some(name)) => Some(name.to_owned()),
        (1, None) => Some("the app container".to_owned()),
        (n, _) => Some(format!("the {n} app containers")),
    };
    match (apps, &stop.waits_for.sidecar) {
        (None, None) => None,
        (Some(apps), None) => Some(apps),
        (None, Some(sidecar)) => Some(sidecar.clone()),
        (Some(apps), Some(sidecar)) => Some(format!("{apps} and {sidecar}")),
    }
}

/// `sleep 5s`, `exec ≥3s`, `exec, length unknown`, `tcpSocket, fails: killed, SIGKILL ≤32s`.
fn hook_text(hook: &HookInfo) -> String {
    match hook.duration {
        "exact" | "at-least" => format!("{} {}", hook.handler, hook_length(hook)),
        "never-returns" => format!("{}, never returns", hook.handler),
        "fails-at-once" => {
            let mut text = format!("{}, fails at once", hook.handler);
            if let Some(why) = &hook.fails_because {
                text.push_str(&format!(" ({why})"));
            }
            if let Some(kill) = &hook.kill {
                text.push_str(&format!(
                    ": killed, SIGTERM at {}, SIGKILL ≤{}, before the next container starts; restarted, never Ready",
                    kill.sigterm_seconds, kill.sigkill_within_seconds
                ));
            }
            text
        }
        _ => format!("{}, length unknown", hook.handler),
    }
}

fn hook_length(hook: &HookInfo) -> String {
    match (hook.duration, hook.seconds) {
        ("exact", Some(seconds)) => seconds.to_string(),
        ("at-least", Some(seconds)) => format!("≥{seconds}"),
        ("never-returns", _) => "never returns".to_owned(),
        ("fails-at-once", _) => "fails".to_owned(),
        _ => "?".to_owned(),
    }
}

/// `≥5s`, or `never`.
fn at_least(seconds: Secs) -> String {
    if seconds.is_finite() {
        format!("≥{seconds}")
    } else {
        seconds.to_string()
    }
}

fn width<'a>(items: impl Iterator<Item = &'a str>) -> usize {
    items.map(|s| s.chars().count()).max().unwrap_or(0)
}
