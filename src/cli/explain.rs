//! `podcycle explain`: plan the files, charts and overlays as `check` does ([`crate::run`]),
//! lint them one after another, and write each selected pod's explanation as soon as its
//! document is done, so that memory stays near the size of the largest file (or rendered
//! chart), whatever the number of pods.

use std::io::{self, Write};

use super::configs::{open_configs, print_config_errors};
use super::{
    ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, ExplainArgs, eprint_line, stderr_colors,
    usage_error,
};
use crate::explain::{ExplainWriter, ObjectSelector, PodFilter};
use crate::run::rendering::unrendered as unrendered_note;
use crate::run::{
    ConfigChoice, Explaining, Ready, Renderer, RunOptions, RunPlan, in_order, read_stdin,
};
use crate::suggest::did_you_mean_help;
use crate::text::name_list;

pub(crate) fn run(args: &ExplainArgs) -> io::Result<u8> {
    let object = match args
        .object
        .as_deref()
        .map(ObjectSelector::parse)
        .transpose()
    {
        Ok(object) => object,
        Err(bad) => return Ok(usage_error(&bad.to_string())),
    };
    let filter = PodFilter {
        object,
        container: args.container.clone(),
        at: None,
    };
    let stdin_count = args.paths.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        return Ok(usage_error("`-` (standard input) may be given only once"));
    }
    let options = run_options(args);
    let Some(mut configs) = open_configs(&options, ColorChoice::Auto)? else {
        return Ok(EXIT_ERROR);
    };

    // Plan every input first, as `check` does, so that a broken configuration stops the
    // command before anything is written.
    let mut plan = RunPlan::new(&options, &mut configs, &args.paths, None);
    let mut failed = false;
    for error in &plan.discovered.errors {
        eprint_line(format_args!("podcycle: error: {error}"))?;
        failed = true;
    }
    if print_config_errors(&configs, stderr_colors(ColorChoice::Auto))? {
        return Ok(EXIT_ERROR);
    }

    // Buffered: a pod's output is many short lines, which a line-buffered stdout would write
    // one system call at a time.
    let out = io::BufWriter::new(io::stdout().lock());
    let writer = if args.rollout {
        ExplainWriter::for_rollouts(out, args.format)
    } else {
        ExplainWriter::new(out, args.format)
    };
    let mut run = Explaining::new(&filter, writer);
    run.rollouts = args.rollout;
    if let Some(stdin) = plan.stdin.take() {
        run.file(Ready::Bytes(stdin.name, read_stdin()?), &stdin.plan)?;
    }
    let mut files = std::mem::take(&mut plan.files);
    // A directory judged together is read as `check` reads it, each file parsed once.
    in_order(
        &mut files,
        std::mem::take(&mut plan.texts),
        |_, file_plan, ready| match ready {
            Ok(ready) => run.file(ready, file_plan),
            Err(unread) => {
                failed = true;
                eprint_line(format_args!("podcycle: error: {unread}"))
            }
        },
    )?;
    // Charts and overlays as `check` renders them, one at a time: each pod is written as its
    // document ends, placed in the template, base or patch that wrote it.
    let renderer = Renderer::new(&options);
    let mut unrendered = Vec::new();
    for job in &plan.renders {
        match renderer.render(job) {
            Ok(output) => run.rendered(output, job)?,
            Err(not_rendered) => {
                let sentence = unrendered_note(job, not_rendered).sentence();
                if !unrendered.contains(&sentence) {
                    eprint_line(format_args!("podcycle: warning: {sentence}"))?;
                    unrendered.push(sentence);
                }
            }
        }
    }
    finish(run, args, failed)
}

/// The run `explain` is asked for: its options over each file's configuration; the rules as
/// configured, since `explain` lists the findings of `check`.
fn run_options(args: &ExplainArgs) -> RunOptions {
    let config = match (&args.config, args.no_config || args.isolated) {
        (Some(path), _) => ConfigChoice::File(path.clone()),
        // `--isolated` reads no configuration but the one named with `--config`.
        (None, true) => ConfigChoice::Nothing,
        (None, false) => ConfigChoice::Nearest,
    };
    RunOptions {
        config,
        kube_version: args.kube_version,
        platforms: (!args.platforms.is_empty()).then(|| args.platforms.clone()),
        helm: args.render.helm_overrides(),
        rendering: args.render.rendering(args.isolated),
        ..RunOptions::default()
    }
}

/// Says what matched nothing, closes the output and picks the exit code.
fn finish<W: Write>(run: Explaining<'_, W>, args: &ExplainArgs, failed: bool) -> io::Result<u8> {
    for (object, at) in &run.unreadable {
        let file = at.rsplit_once(':').map_or(at.as_str(), |(file, _)| file);
        eprint_line(format_args!(
            "podcycle: warning: {} ({at}) has a pod spec that cannot be read; `podcycle check {file}` says why",
            object.display_name(),
        ))?;
    }
    let written = run.writer.written();
    let selected_elsewhere = !run.unreadable.is_empty() || !run.without_pod_spec.is_empty();
    if written == 0
        && let Some(code) = nothing_matched(&run, args, selected_elsewhere)?
    {
        // A usage error: nothing on standard output.
        return Ok(code);
    }
    run.writer.finish()?;
    if written == 0 {
        if run.rollouts && run.selected_pods > 0 && !failed {
            eprint_line(format_args!(
                "podcycle: no workload controller found in {} (explain --rollout reads Deployments, ReplicaSets, ReplicationControllers, StatefulSets, DaemonSets, Jobs and CronJobs; a Pod has no rollout)",
                shown_paths(args)
            ))?;
        } else if !failed && !selected_elsewhere {
            eprint_line(format_args!(
                "podcycle: no pod spec found in {} (explain reads Pods, PodTemplates and workload controllers)",
                shown_paths(args)
            ))?;
        }
        return Ok(if failed { EXIT_ERROR } else { EXIT_FINDINGS });
    }
    Ok(if failed { EXIT_ERROR } else { EXIT_CLEAN })
}

/// The usage error for an `--object` or `--container` that matches nothing, or for an
/// object without a pod spec; `None` when none applies.
fn nothing_matched<W: Write>(
    run: &Explaining<'_, W>,
    args: &ExplainArgs,
    selected_elsewhere: bool,
) -> io::Result<Option<u8>> {
    if let Some(selector) = &run.filter().object
        && run.selected_pods == 0
    {
        if let Some((object, at)) = run.without_pod_spec.first() {
            eprint_line(format_args!(
                "podcycle: {} ({at}) has no pod spec to explain",
                object.display_name()
            ))?;
            return Ok(Some(EXIT_FINDINGS));
        }
        if !selected_elsewhere {
            let wanted = selector.display();
            let candidates: Vec<&str> = run.objects.iter().map(String::as_str).collect();
            let hint = match did_you_mean_help(&wanted, &candidates) {
                Some(help) => format!("; {help}"),
                None if candidates.is_empty() => "; it holds no workload objects".to_owned(),
                None => format!("; it holds {}", list(&candidates)),
            };
            return Ok(Some(usage_error(&format!(
                "no object `{wanted}` in {}{hint}",
                shown_paths(args)
            ))));
        }
    }
    if let Some(name) = &run.filter().container
        && run.selected_pods > 0
    {
        let names: Vec<&str> = run.containers.iter().map(String::as_str).collect();
        let hint = did_you_mean_help(name, &names)
            .unwrap_or_else(|| format!("the containers are {}", list(&names)));
        let place = run
            .filter()
            .object
            .as_ref()
            .map_or_else(|| shown_paths(args), ObjectSelector::display);
        return Ok(Some(usage_error(&format!(
            "no container `{name}` in {place}; {hint}"
        ))));
    }
    Ok(None)
}

fn shown_paths(args: &ExplainArgs) -> String {
    if args.paths.is_empty() {
        return ".".to_owned();
    }
    let paths: Vec<String> = args.paths.iter().map(|p| p.display().to_string()).collect();
    paths.join(", ")
}

/// `` `a`, `b` and `c` ``; past ten names, `` `a`, ..., `j` and 3 more ``.
fn list(names: &[&str]) -> String {
    const SHOWN: usize = 10;
    if names.len() <= SHOWN {
        return name_list(names.iter().copied());
    }
    let shown: Vec<String> = names[..SHOWN].iter().map(|n| format!("`{n}`")).collect();
    format!("{} and {} more", shown.join(", "), names.len() - SHOWN)
}

/// Explains `text` as `path` with `settings`, every object and container, and returns what
/// `podcycle explain` (with `--rollout`, when `rollouts`) would print.
#[cfg(feature = "testing")]
pub(crate) fn explain_text(
    path: &str,
    text: &str,
    settings: &crate::settings::Settings,
    format: crate::explain::ExplainFormat,
    rollouts: bool,
) -> String {
    let filter = PodFilter::default();
    let writer = if rollouts {
        ExplainWriter::for_rollouts(Vec::new(), format)
    } else {
        ExplainWriter::new(Vec::new(), format)
    };
    let mut run = Explaining::new(&filter, writer);
    run.rollouts = rollouts;
    let plan = crate::run::FilePlan {
        settings: settings.clone(),
        fail_at: None,
        role: crate::lint::FileRole::Manifest,
        keep_text: false,
        scope: None,
        alone_because: None,
        names_no_scope: false,
        unless_template: false,
    };
    run.file(
        Ready::Bytes(path.to_owned(), text.as_bytes().to_vec()),
        &plan,
    )
    .expect("writing to memory");
    let out = run.writer.finish().expect("writing to memory");
    String::from_utf8_lossy(&out).into_owned()
}
