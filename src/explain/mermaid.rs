//! Markdown with two Mermaid Gantt charts per pod — startup and shutdown — that GitHub draws
//! when the output is pasted into an issue or a pull request.
//!
//! Times are written in milliseconds (`dateFormat x`) and shown as seconds on the axis
//! (`axisFormat %s`): Mermaid reads plain numbers as milliseconds under both `x` and `X` in
//! recent versions, so `x` is the one format every version reads the same way. Known
//! durations are drawn to scale; a time that is only bounded, or unknown, gets the `active`
//! style and says so in its name — an unknown wait is drawn with the length the title gives,
//! so that the order shows.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::model::{HookInfo, PodExplanation, ShownFinding, StartupStep, StopStep};
use super::units::{Range, Secs};
use super::{ListStyle, write_notes_and_findings};

pub(crate) fn write_pod(
    out: &mut dyn Write,
    pod: &PodExplanation<impl ShownFinding>,
) -> io::Result<()> {
    let name = pod.object.display_name();
    writeln!(out, "### {name}")?;
    writeln!(out)?;
    writeln!(out, "`{}:{}`, `{}`", pod.file, pod.line, pod.field)?;
    writeln!(out)?;
    for chart in [startup_chart(pod), shutdown_chart(pod)] {
        writeln!(out, "```mermaid")?;
        write!(out, "{chart}")?;
        writeln!(out, "```")?;
        writeln!(out)?;
    }
    writeln!(
        out,
        "Startup times are the earliest possible; not counted: {}.",
        pod.not_counted.join(", ")
    )?;
    write_notes_and_findings(out, &pod.notes, &pod.findings, &ListStyle::MARKDOWN)?;
    Ok(())
}

/// A Gantt chart being written.
pub(super) struct Chart {
    pub(super) text: String,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Style {
    /// A known duration, drawn to scale.
    Known,
    /// Only bounds are known.
    Bounded,
    /// A point in time.
    Milestone,
    /// A point where the container is killed or never starts.
    Critical,
}

impl Chart {
    pub(super) fn new(title: &str) -> Chart {
        let mut text = String::from("gantt\n");
        let _ = writeln!(text, "    title {}", sanitize(title));
        text.push_str("    dateFormat x\n    axisFormat %s\n    todayMarker off\n");
        Chart { text }
    }

    pub(super) fn section(&mut self, name: &str) {
        let _ = writeln!(self.text, "    section {}", sanitize(name));
    }

    /// A task from `start` lasting `length` seconds; nothing when a time is infinite.
    pub(super) fn task(&mut self, name: &str, style: Style, id: &str, start: f64, length: f64) {
        if !start.is_finite() || !length.is_finite() {
            return;
        }
        let tags = match style {
            Style::Known => "",
            Style::Bounded => "active, ",
            Style::Milestone => "milestone, ",
            Style::Critical => "crit, milestone, ",
        };
        let length = if matches!(style, Style::Milestone | Style::Critical) {
            0.0
        } else {
            length.max(0.0)
        };
        let _ = writeln!(
            self.text,
            "    {} :{tags}{id}, {}, {}",
            sanitize(name),
            millis(start),
            duration(length)
        );
    }
}

fn startup_chart(pod: &PodExplanation<impl ShownFinding>) -> String {
    let unknown = pod.drawn.unknown_seconds;
    // Image pulls are always unknown; anything else is drawn with a made-up length.
    let legend = if pod.not_counted.len() > 1 {
        format!(
            " (a wait of unknown length is drawn {} long)",
            Secs(unknown)
        )
    } else {
        String::new()
    };
    let mut chart = Chart::new(&format!(
        "{} startup, seconds from the pod start{legend}",
        pod.object.display_name()
    ));
    // Where to draw what never happens: after everything that does.
    let horizon = pod
        .startup
        .iter()
        .flat_map(|s| [Some(s.drawn.start), s.drawn.ready])
        .flatten()
        .filter(|t| t.is_finite())
        .fold(0.0, f64::max);
    for (index, step) in pod.startup.iter().enumerate() {
        chart.section(&format!("{} ({})", step.container, step.role));
        startup_tasks(&mut chart, step, index, horizon, unknown);
    }
    if let Some(ready) = pod.drawn.pod_ready.filter(|r| r.is_finite()) {
        chart.section("pod");
        chart.task("Ready", Style::Milestone, "ready", ready, 0.0);
    }
    chart.text
}

fn startup_tasks(chart: &mut Chart, step: &StartupStep, index: usize, horizon: f64, unknown: f64) {
    let id = |letter: char| format!("s{index}{letter}");
    let times = step.drawn;
    if !times.start.is_finite() {
        chart.task("never starts", Style::Critical, &id('a'), horizon, 0.0);
        return;
    }
    if step.role == "init" {
        if step.never_exits.is_some() {
            chart.task("never exits", Style::Critical, &id('a'), times.start, 0.0);
            return;
        }
        let name = "runs to completion, length unknown";
        chart.task(name, Style::Bounded, &id('a'), times.start, unknown);
        return;
    }
    match &step.post_start {
        None => chart.task("starts", Style::Milestone, &id('a'), times.start, 0.0),
        Some(hook) => {
            let style = match hook.duration {
                "exact" if times.post_start_end > times.start => Style::Known,
                "exact" | "fails-at-once" => Style::Milestone,
                "never-returns" => Style::Critical,
                _ => Style::Bounded,
            };
            let name = format!("postStart {}", hook_words(hook));
            let length = times.post_start_end - times.start;
            chart.task(&name, style, &id('a'), times.start, length);
        }
    }
    if let Some(probe) = &step.probes.startup {
        let name = if probe.initial_delay_seconds > 0 {
            format!(
                "startupProbe passes, after at least {}s",
                probe.initial_delay_seconds
            )
        } else {
            "startupProbe passes, time unknown".to_owned()
        };
        let from = times.post_start_end;
        chart.task(&name, Style::Bounded, &id('b'), from, times.started - from);
    }
    if let Some(ready) = times.ready {
        chart.task("Ready", Style::Milestone, &id('r'), ready, 0.0);
    }
}

fn shutdown_chart(pod: &PodExplanation<impl ShownFinding>) -> String {
    let shutdown = &pod.shutdown;
    let mut chart = Chart::new(&format!(
        "{} shutdown, seconds after deletion (grace period {}s)",
        pod.object.display_name(),
        shutdown.effective_grace_period_seconds
    ));
    let only_app = super::text::only_app(pod);
    for (index, stop) in shutdown.containers.iter().enumerate() {
        chart.section(&format!("{} ({})", stop.container, stop.role));
        shutdown_tasks(&mut chart, stop, index, only_app);
    }
    chart.section("pod");
    let hard_bound = shutdown.hard_bound_seconds.0;
    chart.task(
        &format!("every container is killed by {}", Secs(hard_bound)),
        Style::Critical,
        "gone",
        hard_bound,
        0.0,
    );
    // Where each platform in effect stops the pod (docs/platforms.md).
    for (index, cut) in shutdown.platform_cuts.iter().enumerate() {
        chart.section(&format!("platform {}", cut.platform));
        #[allow(clippy::cast_precision_loss)]
        let at = cut.seconds as f64;
        chart.task(
            &format!("{} stops the pod at {}s", cut.platform, cut.seconds),
            Style::Critical,
            &format!("cut{index}"),
            at,
            0.0,
        );
    }
    chart.text
}

fn shutdown_tasks(chart: &mut Chart, stop: &StopStep, index: usize, only_app: Option<&str>) {
    let id = |letter: char| format!("d{index}{letter}");
    if stop.prestop_rejected {
        chart.task(
            "preStop longer than the grace period, rejected by the API server",
            Style::Critical,
            &id('a'),
            0.0,
            0.0,
        );
        return;
    }
    if let (true, Some(hook)) = (stop.prestop_runs, &stop.prestop) {
        let spent = stop.sigterm_seconds;
        let mut name = format!("preStop {}", hook_words(hook));
        if stop.prestop_cut_off {
            let _ = write!(name, ", cut off at {}", spent.min);
        }
        match stop.prestop_seconds {
            Some(seconds) if seconds.0 > 0.0 => {
                chart.task(&name, Style::Known, &id('a'), 0.0, seconds.0);
            }
            Some(_) => chart.task(&name, Style::Milestone, &id('a'), 0.0, 0.0),
            None => {
                // Bounded by the grace period: drawn up to it.
                let upto = stop.sigterm_seconds.max.0.min(stop.sigkill_seconds.max.0);
                let name = format!("{name}, up to {}", Secs(upto));
                chart.task(&name, Style::Bounded, &id('a'), 0.0, upto);
            }
        }
    }
    let sigterm = stop.sigterm_seconds;
    if let Some(waits) = super::text::waits_for(stop, only_app) {
        let from = stop.prestop_seconds.map_or(0.0, |s| s.0);
        let name = format!("waits for {waits} to exit");
        let style = if sigterm.exact().is_some() {
            Style::Known
        } else {
            Style::Bounded
        };
        chart.task(&name, style, &id('b'), from, sigterm.max.0 - from);
    }
    let window = stop.term_window_bounds_seconds;
    match (sigterm.exact(), window.exact()) {
        (Some(at), Some(length)) => chart.task(
            &format!("SIGTERM, {} to exit", length),
            Style::Known,
            &id('c'),
            at.0,
            length.0,
        ),
        _ => chart.task(
            &format!("SIGTERM at {}, {} to exit", words(sigterm), words(window)),
            Style::Bounded,
            &id('c'),
            sigterm.min.0,
            stop.sigkill_seconds.max.0 - sigterm.min.0,
        ),
    }
    let sigkill = stop.sigkill_seconds;
    let name = match sigkill.exact() {
        Some(at) => format!("SIGKILL at {at}"),
        None => format!("SIGKILL by {}", sigkill.max),
    };
    chart.task(&name, Style::Critical, &id('k'), sigkill.max.0, 0.0);
}

/// `sleep 5s`, `exec, at least 3s`, `exec, length unknown`.
fn hook_words(hook: &HookInfo) -> String {
    match (hook.duration, hook.seconds) {
        ("exact", Some(seconds)) => format!("{} {seconds}", hook.handler),
        ("at-least", Some(seconds)) => format!("{}, at least {seconds}", hook.handler),
        ("never-returns", _) => format!("{}, never returns", hook.handler),
        ("fails-at-once", _) => format!("{}, fails at once", hook.handler),
        _ => format!("{}, length unknown", hook.handler),
    }
}

/// `10s`, `10 to 30s`, `at least 10s`: a range in words, for task names.
fn words(range: Range) -> String {
    match (range.exact(), range.max.is_finite()) {
        (Some(value), _) => value.to_string(),
        (None, true) => format!("{} to {}", range.min.0, range.max),
        (None, false) => format!("at least {}", range.min),
    }
}

/// Milliseconds, kept within the dates JavaScript can represent (±8.64e15 ms), so that even an
/// absurd grace period draws.
#[allow(clippy::cast_possible_truncation)]
fn millis(seconds: f64) -> i64 {
    const LATEST_DATE_MS: f64 = 8.64e15;
    (seconds * 1000.0).round().clamp(0.0, LATEST_DATE_MS) as i64
}

/// `5s`, or `1500ms` for a time that is not whole seconds.
fn duration(seconds: f64) -> String {
    let ms = millis(seconds);
    if ms % 1000 == 0 {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}

/// Keeps a name to characters that mean nothing to the Gantt grammar: `:` ends a task name,
/// `#` and `;` start comments or entities, `%%` starts a comment, braces and angle brackets
/// are markup.
fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " .,_-()/'+=".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect::<String>()
        .trim()
        .to_owned()
}

/// What Mermaid would not read in a Gantt chart ([`validate_gantt`]).
#[cfg(any(test, feature = "testing"))]
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum GanttError {
    #[error("the chart does not start with `gantt`")]
    NoHeader,
    #[error("the chart has no `dateFormat`")]
    NoDateFormat,
    /// A line of the chart, and what is wrong with it.
    #[error("{why}: `{line}`")]
    Line { why: &'static str, line: String },
}

/// Checks a chart against the Gantt grammar of Mermaid (`gantt.jison` and `ganttDb.ts` in
/// mermaid-js/mermaid): the header lines, sections, and task lines `name :tags, id, start,
/// duration` with a start in milliseconds, a duration Mermaid reads, and names that neither
/// end early nor start with a keyword. Returns the first problem.
#[cfg(any(test, feature = "testing"))]
pub fn validate_gantt(chart: &str) -> Result<(), GanttError> {
    const KEYWORDS: &[&str] = &[
        "gantt",
        "dateformat",
        "inclusiveenddates",
        "topaxis",
        "axisformat",
        "tickinterval",
        "includes",
        "excludes",
        "todaymarker",
        "weekday",
        "title",
        "accdescription",
        "acctitle",
        "accdescr",
        "section",
        "click",
        "href",
        "call",
    ];
    const TAGS: &[&str] = &["active", "done", "crit", "milestone"];
    let mut lines = chart.lines().filter(|l| !l.trim().is_empty());
    if lines.next().map(str::trim) != Some("gantt") {
        return Err(GanttError::NoHeader);
    }
    let mut ids = std::collections::HashSet::new();
    let mut seen_date_format = false;
    for line in lines {
        let line = line.trim();
        let bad = |why: &'static str| {
            Err(GanttError::Line {
                why,
                line: line.to_owned(),
            })
        };
        if line.starts_with("%%") {
            continue;
        }
        if line.contains('#') || line.contains(';') {
            return bad("`#` and `;` start comments and entities");
        }
        let (word, rest) = line.split_once(' ').unwrap_or((line, ""));
        match word {
            "title" if !rest.trim().is_empty() => continue,
            "dateFormat" => {
                if rest.trim() != "x" {
                    return bad("times are written in milliseconds, `dateFormat x`");
                }
                seen_date_format = true;
                continue;
            }
            "axisFormat" if rest.trim() == "%s" => continue,
            "todayMarker" if rest.trim() == "off" => continue,
            "section" => {
                if rest.trim().is_empty() || rest.contains(':') {
                    return bad("a section needs a name without `:`");
                }
                continue;
            }
            _ => {}
        }
        let Some((name, data)) = line.split_once(':') else {
            return bad("not a header, section or task line");
        };
        let name = name.trim();
        let first = name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if name.is_empty() || KEYWORDS.contains(&first.as_str()) {
            return bad("a task name must not be empty or start with a keyword");
        }
        if name.len() >= 10
            && name.as_bytes()[..10].iter().enumerate().all(|(i, b)| {
                if i == 4 || i == 7 {
                    *b == b'-'
                } else {
                    b.is_ascii_digit()
                }
            })
        {
            return bad("a task name must not start with a date");
        }
        if data.contains(':') {
            return bad("a task has one `:`");
        }
        let mut fields: Vec<&str> = data.split(',').map(str::trim).collect();
        let tags = fields.iter().take_while(|f| TAGS.contains(f)).count();
        let milestone = fields[..tags].contains(&"milestone");
        fields.drain(..tags);
        let [id, start, length] = fields[..] else {
            return bad("a task needs an id, a start and a duration");
        };
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            || TAGS.contains(&id)
        {
            return bad("a task id is letters, digits, `_` and `-`");
        }
        if !ids.insert(id.to_owned()) {
            return bad("task ids must be unique");
        }
        if start.is_empty() || !start.bytes().all(|b| b.is_ascii_digit()) {
            return bad("a start is a number of milliseconds");
        }
        let unit_at = length
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .unwrap_or(length.len());
        let (number, unit) = length.split_at(unit_at);
        let number_ok = !number.is_empty()
            && !number.starts_with('.')
            && !number.ends_with('.')
            && number.matches('.').count() <= 1;
        if !number_ok || !["ms", "s", "m", "h", "d", "w"].contains(&unit) {
            return bad("a duration is a number and a unit such as `5s` or `1500ms`");
        }
        if milestone && number.parse::<f64>().is_ok_and(|n| n != 0.0) {
            return bad("milestones are drawn with a zero duration here");
        }
    }
    if !seen_date_format {
        return Err(GanttError::NoDateFormat);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_validator_accepts_what_mermaid_reads_and_rejects_the_rest() {
        let good = "gantt\n    title Pod/x startup\n    dateFormat x\n    axisFormat %s\n    todayMarker off\n    section app (app)\n    postStart sleep 5s :s0a, 0, 5s\n    Ready :milestone, s0r, 5000, 0s\n";
        assert_eq!(validate_gantt(good), Ok(()));
        for bad in [
            "gantt\n    dateFormat x\n    a: b :s0, 0, 5s\n",
            "gantt\n    dateFormat x\n    wait #1 :s0, 0, 5s\n",
            "gantt\n    dateFormat x\n    section pod\n    x :s0, 0, 5 s\n",
            "gantt\n    dateFormat x\n    x :s0, 0, 5s\n    y :s0, 0, 5s\n",
            "gantt\n    dateFormat x\n    title x\n    Title page :s0, 0, 5s\n",
            "gantt\n    dateFormat X\n    x :s0, 0, 5s\n",
            "gantt\n    dateFormat x\n    x :s0, 1.5, 5s\n",
            "gantt\n    x :s0, 0, 5s\n",
        ] {
            assert!(validate_gantt(bad).is_err(), "accepted {bad:?}");
        }
    }

    #[test]
    fn names_lose_what_the_grammar_would_read() {
        assert_eq!(sanitize("a:b#c;d%e<f>"), "a_b_c_d_e_f_");
        assert_eq!(duration(1.5), "1500ms");
        assert_eq!(duration(20.0), "20s");
    }
}
