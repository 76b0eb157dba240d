//! `podcycle check`: the arguments, one run through [`crate::run`] (planning, linting files in
//! parallel, rendering charts and overlays, merging), then fixes, ignore comments, baselines,
//! the report and the exit code.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::configs::{open_configs, print_config_errors};
use super::write_fixes::{FixRun, fix_files};
use super::{
    CheckArgs, ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, colors, eprint_line, statistics,
    stderr_colors, usage_error, write_ignores,
};
use crate::baseline::Baseline;
use crate::discovery::roles::PatchIndex;
use crate::discovery::{self, ExcludeError, Skip, WalkOptions, exclude_set};
use crate::escape::escape_controls;
use crate::fix::Applicability;
use crate::lint::FileRole;
use crate::render::{self, Input};
use crate::report::{self, FileReport, Format, NotManifests};
use crate::run::{
    CheckOutcome, CheckedFile, Checking, ConfigChoice, Renderer, RunOptions, RunPlan, Walk,
    read_stdin,
};
use crate::safe_fs::{self, Existing, describe_io_error};
use crate::settings::{Selection, Selector, UnknownSelector};

pub(crate) fn run(args: &CheckArgs) -> io::Result<u8> {
    let options = match run_options(args) {
        Ok(options) => options,
        Err(error) => return Ok(usage_error(&error.to_string())),
    };
    // `--stdin-filename` alone reads standard input, as in ruff; beside paths, it needs `-`.
    let given: Vec<PathBuf> = if args.paths.is_empty() && args.stdin_filename.is_some() {
        vec![PathBuf::from("-")]
    } else {
        args.paths.clone()
    };
    let stdin_count = given.iter().filter(|p| p.as_os_str() == "-").count();
    if stdin_count > 1 {
        return Ok(usage_error("`-` (standard input) may be given only once"));
    }
    if args.stdin_filename.is_some() && stdin_count == 0 {
        return Ok(usage_error(
            "--stdin-filename names standard input, and no `-` is among the paths; add `-` to read standard input too",
        ));
    }
    if let Some(message) = conflicts(args, stdin_count) {
        return Ok(usage_error(&message));
    }
    let mut baseline = match &args.baseline {
        None => None,
        Some(path) => match read_baseline(path, args.settings_root.as_deref()) {
            Ok(baseline) => Some(baseline),
            Err(message) => return Ok(usage_error(&message)),
        },
    };
    let color = match args.color {
        _ if args.output.is_some() => false,
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => colors(&io::stdout()),
    };

    let Some(mut configs) = open_configs(&options, args.color)? else {
        return Ok(EXIT_ERROR);
    };
    // Standard input first, then files in a stable order; each with its configuration.
    let mut plan = RunPlan::new(
        &options,
        &mut configs,
        &given,
        args.stdin_filename.as_deref(),
    );
    let mut failed = false;
    for error in &plan.discovered.errors {
        eprint_line(format_args!("podcycle: error: {error}"))?;
        failed = true;
    }
    if print_config_errors(&configs, stderr_colors(args.color))? {
        return Ok(EXIT_ERROR);
    }

    if args.show_files {
        let mut out = io::stdout().lock();
        show_files(&mut out, &plan, &options)?;
        return Ok(if failed { EXIT_ERROR } else { EXIT_CLEAN });
    }

    let mut checking = Checking::new(&options);
    if let Some(stdin) = plan.stdin.take() {
        checking.stdin(stdin, read_stdin()?);
    }
    let texts = std::mem::take(&mut plan.texts);
    let mut unread_files = 0;
    for unread in checking.files(std::mem::take(&mut plan.files), texts) {
        eprint_line(format_args!("podcycle: error: {unread}"))?;
        failed = true;
        unread_files += 1;
    }
    // Charts and overlays: their findings go to the files that wrote them, merged with what
    // those files gave as they are (a Kustomize base).
    for warning in checking.renders(&plan.renders, &Renderer::new(&options)) {
        eprint_line(format_args!("podcycle: warning: {warning}"))?;
    }
    let nothing_linted = checking.is_empty() && plan.renders.is_empty();
    let outcome = checking.finish(&plan.discovered);

    if nothing_linted && !failed && stdin_count == 0 {
        // Like ripgrep and ruff: say so, so that a mistyped path or an over-broad --exclude
        // does not pass for a clean result.
        let what = if outcome.notes.not_manifests == NotManifests::default() {
            "YAML or JSON files"
        } else {
            "Kubernetes manifests, Helm charts or Kustomize overlays"
        };
        eprint_line(format_args!("podcycle: warning: no {what} found to check"))?;
    }

    // Only the errors when nothing could be read: "No problems found in 0 files" beside "no
    // such file" reads like a pass.
    if failed && nothing_linted && args.format.is_human() {
        return Ok(EXIT_ERROR);
    }

    let CheckOutcome {
        files: mut checked,
        notes: mut run,
    } = outcome;
    run.unread_files = unread_files;
    run.unread_paths = plan.discovered.errors.len();
    if let Some(path) = &args.write_baseline {
        return write_baseline(path, &checked, failed);
    }
    let allowed = if args.unsafe_fixes {
        Applicability::Unsafe
    } else {
        Applicability::Safe
    };
    let mut fix_run = None;
    if args.fix || args.diff {
        let mut out = io::stdout().lock();
        let run = fix_files(&mut checked, allowed, args.diff, &mut out)?;
        out.flush()?;
        failed |= run.failed;
        if args.diff {
            return diff_summary(&run, failed);
        }
        fix_run = Some(run);
    }
    if let Some(baseline) = &mut baseline {
        for entry in &mut checked {
            baseline.filter(&entry.report.file, &mut entry.report.diagnostics);
        }
    }
    if let Some(reason) = &args.add_ignore {
        return add_ignores(&mut checked, reason, failed);
    }
    let reports: Vec<FileReport> = checked.into_iter().map(|entry| entry.report).collect();
    if let Some(baseline) = &baseline {
        baseline_summary(baseline)?;
    }

    let unrendered_fails = run.unrendered.iter().any(|u| u.fails);
    let options = report::Options {
        color,
        source_root: (args.format == Format::Sarif)
            .then(|| std::env::current_dir().ok())
            .flatten()
            .map(|dir| report::directory_uri(&dir)),
        run,
    };
    let write = |out: &mut dyn Write| -> io::Result<()> {
        if args.statistics {
            statistics::write(out, args.format, &reports, allowed, &options.run)?;
            if args.format.is_human() {
                for line in options.run.summary_lines() {
                    writeln!(out, "{line}")?;
                }
            }
        } else {
            report::write(out, args.format, &reports, &options)?;
        }
        if let Some(run) = &fix_run {
            fixed_summary(out, args.format, run)?;
        }
        Ok(())
    };
    match &args.output {
        None => {
            // Buffered: every format writes many short lines, which a line-buffered stdout
            // would write one system call at a time.
            let mut out = io::BufWriter::new(io::stdout().lock());
            write(&mut out)?;
            out.flush()?;
        }
        Some(path) => {
            if let Err(error) = write_report_file(path, write) {
                let reason = match error {
                    OutputError::Create(reason) => reason,
                    OutputError::Write(error) => describe_io_error(&error),
                };
                return Ok(usage_error(&format!(
                    "cannot write {}: {reason}",
                    escape_controls(&path.display().to_string())
                )));
            }
            // The report is in the file; the log still says what was found.
            let mut summary = Vec::new();
            report::write_summary(&mut summary, &reports, &options)?;
            for line in String::from_utf8_lossy(&summary).lines() {
                eprint_line(format_args!("{line}"))?;
            }
        }
    }

    if failed {
        return Ok(EXIT_ERROR);
    }
    let fails = reports
        .iter()
        .any(|r| r.diagnostics.iter().any(|d| r.fails(d)));
    let fails = fails || unrendered_fails;
    Ok(if fails { EXIT_FINDINGS } else { EXIT_CLEAN })
}

/// `--show-files`: what would be linted and rendered, and what is skipped and why; a chart or
/// overlay that cannot be rendered here (its renderer missing, rendering off, a dependency
/// neither vendored nor in the repository) says so, with the reason the run would give.
fn show_files(out: &mut dyn Write, plan: &RunPlan, options: &RunOptions) -> io::Result<()> {
    let rendering = &options.rendering;
    let tools = (!rendering.disabled).then(|| {
        render::Tools::find(
            rendering.helm.as_deref(),
            rendering.kustomize.as_deref(),
            rendering.timeout,
        )
    });
    let mut lines: Vec<(String, String)> = Vec::new();
    if plan.stdin.is_some() {
        lines.push(("-".to_owned(), "lint (standard input)".to_owned()));
    }
    // Which directories hold alternatives rather than one deployment, as the run would find.
    let mut files = plan.files.clone();
    crate::run::share_directory_scopes(&mut files, &plan.texts);
    for (path, plan) in &files {
        if plan.unless_template
            && let Some(skip) = discovery::template_skip(path)
        {
            lines.push((render::display(path), format!("skip ({skip})")));
            continue;
        }
        let what = match (plan.role, &plan.alone_because) {
            (FileRole::Manifest, None) => "lint".to_owned(),
            (FileRole::Manifest, Some(why)) => format!("lint (its own scope: {why})"),
            (FileRole::Patch, _) => {
                "lint (patch or expected state: document checks only)".to_owned()
            }
        };
        lines.push((render::display(path), what));
    }
    // Charts that cannot be rendered: their files are not read at all.
    let mut unrenderable: Vec<PathBuf> = Vec::new();
    for job in &plan.renders {
        let what = match &job.input {
            Input::Chart { .. } if job.named_templates.is_empty() => {
                "render (Helm chart)".to_owned()
            }
            Input::Chart { .. } => {
                let named: Vec<String> = job
                    .named_templates
                    .iter()
                    .map(|p| render::display(p))
                    .collect();
                format!("render (Helm chart, for {})", named.join(", "))
            }
            Input::Overlay { .. } => "render (Kustomize overlay)".to_owned(),
        };
        let mut what = if job.rendered_for.is_empty() {
            what
        } else {
            let named: Vec<String> = job
                .rendered_for
                .iter()
                .map(|p| render::display(p))
                .collect();
            format!("{what}, for {}", named.join(", "))
        };
        if let Some(reason) = cannot_render(&job.input, tools.as_ref()) {
            what = format!(
                "{}: {reason}",
                what.replacen("render (", "cannot render (", 1)
            );
            if job.input.tool() == crate::diagnostics::RenderTool::Helm {
                unrenderable.push(job.input.dir().to_owned());
            }
        }
        lines.push((job.input.display(), what));
    }
    for (path, skip) in &plan.discovered.skipped {
        let why = match (skip, discovery::default_exclusion(Path::new(""), path)) {
            (Skip::DefaultExcluded, Some(exclusion)) => format!(
                "excluded by default: {exclusion} (`exclude` in .podcycle.yaml replaces the defaults)"
            ),
            (Skip::ChartFile, _) if unrenderable.iter().any(|chart| path.starts_with(chart)) => {
                "chart file: not read, as its chart cannot be rendered".to_owned()
            }
            (Skip::HelmTemplates, _)
                if unrenderable.iter().any(|chart| path.starts_with(chart)) =>
            {
                "Helm templates: not linted, as their chart cannot be rendered".to_owned()
            }
            _ => skip.to_string(),
        };
        lines.push((render::display(path), format!("skip ({why})")));
    }
    lines.sort();
    lines.dedup();
    for (path, what) in lines {
        writeln!(out, "{path}: {what}")?;
    }
    Ok(())
}

/// Why `input` would not be rendered, when that is known before rendering: the reason the run
/// would give.
fn cannot_render(input: &Input, tools: Option<&render::Tools>) -> Option<String> {
    let Some(tools) = tools else {
        return Some("rendering is off (--no-render)".to_owned());
    };
    match input {
        Input::Chart { dir, .. } => {
            if let Err(missing) = &tools.helm {
                return Some(missing.to_string());
            }
            render::helm::cannot_render(dir)
        }
        Input::Overlay { .. } => tools.kustomize.as_ref().err().map(ToString::to_string),
    }
}

fn write_report_file(
    path: &Path,
    write: impl Fn(&mut dyn Write) -> io::Result<()>,
) -> Result<(), OutputError> {
    let file = safe_fs::create_file(path, Existing::Replace)
        .map_err(|error| OutputError::Create(error.to_string()))?;
    let mut out = io::BufWriter::new(file);
    write(&mut out).map_err(OutputError::Write)?;
    out.flush().map_err(OutputError::Write)
}

/// Why `--output` could not be written.
enum OutputError {
    Create(String),
    Write(io::Error),
}

/// Options that cannot go together, or not with standard input.
fn conflicts(args: &CheckArgs, stdin_count: usize) -> Option<String> {
    if stdin_count > 0 && args.fix && !args.diff {
        return Some(
            "`--fix` cannot write standard input back; use `--diff` to see the fixes".to_owned(),
        );
    }
    if stdin_count > 0 && args.add_ignore.is_some() {
        return Some("`--add-ignore` cannot write standard input back".to_owned());
    }
    if let Some(reason) = &args.add_ignore {
        return crate::ignore_comment::check_reason(reason)
            .err()
            .map(|bad| bad.to_string());
    }
    None
}

/// The baseline at `path`; the paths it records are relative to `root`, else to its directory.
fn read_baseline(path: &Path, root: Option<&Path>) -> Result<Baseline, String> {
    let bytes = safe_fs::read_file(path, safe_fs::FileKind::Baseline)
        .map_err(|error| format!("cannot read baseline {}: {error}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("invalid baseline {}: not UTF-8", path.display()))?;
    let root = root.map_or_else(|| parent_dir(path), Path::to_owned);
    Baseline::parse(&root, &text)
        .map_err(|message| format!("invalid baseline {}: {message}", path.display()))
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `--write-baseline FILE`: records every finding and reports nothing else.
fn write_baseline(path: &Path, checked: &[CheckedFile], failed: bool) -> io::Result<u8> {
    let mut baseline = Baseline::new(&parent_dir(path));
    for entry in checked {
        baseline.record(&entry.report.file, &entry.report.diagnostics);
    }
    if let Err(reason) = baseline.write(path) {
        return Ok(usage_error(&format!(
            "cannot write baseline {}: {reason}",
            path.display()
        )));
    }
    eprint_line(format_args!(
        "podcycle: recorded {} in {}; `--baseline {}` reports only new ones",
        count(baseline.len(), "finding"),
        path.display(),
        path.display()
    ))?;
    Ok(if failed { EXIT_ERROR } else { EXIT_CLEAN })
}

fn baseline_summary(baseline: &Baseline) -> io::Result<()> {
    let stale = baseline.stale();
    let mut line = format!(
        "podcycle: {} in the baseline not shown",
        count(baseline.matched, "finding")
    );
    if stale > 0 {
        line.push_str(&format!(
            "; {} no longer occur (`--write-baseline` records the findings anew)",
            count(stale, "baseline entry")
        ));
    }
    eprint_line(format_args!("{line}"))
}

/// `--diff`: says how many fixes the diff holds; exits with 1 when there are some, so that a
/// CI step can require that nothing is left to fix.
fn diff_summary(run: &FixRun, failed: bool) -> io::Result<u8> {
    eprint_line(format_args!("podcycle: {}", run.diff_line()))?;
    Ok(if failed {
        EXIT_ERROR
    } else if run.files > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    })
}

/// The line after the report of `--fix`: in it for the human formats, on stderr otherwise.
fn fixed_summary(out: &mut dyn Write, format: Format, run: &FixRun) -> io::Result<()> {
    let line = run.fixed_line();
    if format.is_human() {
        writeln!(out, "{line}")
    } else {
        eprint_line(format_args!("podcycle: {line}"))
    }
}

/// `--add-ignore REASON`: a suppression comment for every finding left.
fn add_ignores(checked: &mut [CheckedFile], reason: &str, failed: bool) -> io::Result<u8> {
    let outcome = write_ignores::add_ignores(checked, reason)?;
    let mut line = format!(
        "podcycle: added {} in {}",
        count(outcome.comments, "ignore comment"),
        count(outcome.files, "file")
    );
    if outcome.left > 0 {
        line.push_str(&format!(
            "; {} could not be silenced with a comment",
            count(outcome.left, "finding")
        ));
    }
    eprint_line(format_args!("{line}"))?;
    Ok(if failed || outcome.failed {
        EXIT_ERROR
    } else if outcome.left > 0 {
        EXIT_FINDINGS
    } else {
        EXIT_CLEAN
    })
}

fn count(n: usize, word: &str) -> String {
    crate::text::plural(n, word)
}

/// Why the flags do not make a run: a name or a glob that does not parse.
#[derive(Debug, thiserror::Error)]
enum OptionsError {
    #[error(transparent)]
    Selector(#[from] UnknownSelector),
    #[error(transparent)]
    Exclude(#[from] ExcludeError),
}

fn selection(args: &CheckArgs) -> Result<Selection, UnknownSelector> {
    let parse = |names: &[String]| {
        names
            .iter()
            .map(|n| Selector::parse(n.trim()))
            .collect::<Result<Vec<_>, _>>()
    };
    Ok(Selection {
        select: parse(&args.select)?,
        extend_select: parse(&args.extend_select)?,
        ignore: parse(&args.ignore)?,
    })
}

/// The run `check` is asked for: its options over each file's configuration.
fn run_options(args: &CheckArgs) -> Result<RunOptions, OptionsError> {
    let config = match (&args.config, args.no_config || args.isolated) {
        (Some(path), _) => match &args.settings_root {
            Some(root) => ConfigChoice::FileAt {
                file: path.clone(),
                root: root.clone(),
            },
            None => ConfigChoice::File(path.clone()),
        },
        // `--isolated` reads no configuration but the one named with `--config`.
        (None, true) => ConfigChoice::Nothing,
        (None, false) => ConfigChoice::Nearest,
    };
    Ok(RunOptions {
        config,
        kube_version: args.kube_version,
        platforms: (!args.platforms.is_empty()).then(|| args.platforms.clone()),
        selection: selection(args)?,
        fail_on: args.fail_on,
        fail_on_unrendered: match (args.fail_on_unrendered, args.no_fail_on_unrendered) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        },
        helm: args.render.helm_overrides(),
        rendering: args.render.rendering(args.isolated),
        walk: Walk {
            exclude: exclude_set(&args.exclude)?,
            force_exclude: args.force_exclude,
            options: WalkOptions {
                no_ignore_files: args.isolated,
            },
        },
        keep_text: args.fix || args.diff || args.add_ignore.is_some(),
    })
}

/// `--show-settings FILE`: what `check` would lint the file with, and where that comes from.
pub(super) fn show_settings(args: &CheckArgs, file: &Path) -> io::Result<u8> {
    let options = match run_options(args) {
        Ok(options) => options,
        Err(error) => return Ok(usage_error(&error.to_string())),
    };
    let Some(mut configs) = open_configs(&options, args.color)? else {
        return Ok(EXIT_ERROR);
    };
    let config = configs.for_file(file);
    if print_config_errors(&configs, stderr_colors(args.color))? {
        return Ok(EXIT_ERROR);
    }
    let role = PatchIndex::default().role(file);
    let plan = options.file_plan(config.as_deref(), Some(file), role);
    let source = match (&config, args.no_config) {
        (_, true) => "none (--no-config)".to_owned(),
        (Some(config), false) => config.path.display().to_string(),
        (None, false) => "none: no .podcycle.yaml in the file's directory or above".to_owned(),
    };
    let default_excluded = config
        .as_deref()
        .is_none_or(crate::config::Config::keeps_default_excludes)
        && crate::discovery::default_excluded(Path::new(""), file);
    let excluded = if options.excludes(config.as_deref(), file) {
        "yes: `exclude` matches it; it is linted only when named, without --force-exclude"
    } else if default_excluded {
        "yes, by default (testdata, golden files, directories named for tests, test harnesses' test directories): linted only when named or below a directory named so, without --force-exclude; `exclude` in .podcycle.yaml replaces the defaults"
    } else {
        "no"
    };
    let fail_on = options.fail_on(config.as_deref());
    let rules: Vec<_> = plan
        .settings
        .rules()
        .map(|rule| (rule.name, plan.settings.severity(rule)))
        .collect();
    let off: Vec<&str> = crate::rules::ALL_RULES
        .iter()
        .filter(|rule| plan.settings.enabled(rule.name).is_none())
        .map(|rule| rule.name)
        .collect();
    // As `--show-files` says it: a chart's own files and templates are read through the
    // rendered chart, not linted as they are.
    let role = if crate::render::helm::chart_of_template(file).is_some() {
        "Helm template: linted through the rendered chart"
    } else if crate::discovery::classify::is_chart_file(file) {
        "chart file: read through the rendered chart"
    } else {
        match plan.role {
            FileRole::Manifest => "manifest",
            FileRole::Patch => "Kustomize patch (document checks only)",
        }
    };
    let mut out = io::stdout().lock();
    if args.format == Format::Json {
        let value = serde_json::json!({
            "file": file.display().to_string(),
            "configuration": config.as_ref().map(|c| c.path.display().to_string()),
            "excluded": excluded != "no",
            "role": role,
            "kube_version": plan.settings.kube_version.to_string(),
            "fail_on": fail_on.name(),
            "rules": rules.iter().map(|(name, severity)| serde_json::json!({"rule": name, "severity": severity})).collect::<Vec<_>>(),
            "off": off,
            "render_sandbox": crate::render::sandbox::confinement().describe(),
        });
        serde_json::to_writer_pretty(&mut out, &value)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "file: {}",
            escape_controls(&file.display().to_string())
        )?;
        writeln!(out, "configuration: {}", escape_controls(&source))?;
        writeln!(out, "excluded: {excluded}")?;
        writeln!(out, "role: {role}")?;
        writeln!(out, "kube-version: {}", plan.settings.kube_version)?;
        writeln!(out, "fail-on: {}", fail_on.name())?;
        writeln!(out, "rules ({} enabled):", rules.len())?;
        let width = rules.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
        for (name, severity) in &rules {
            writeln!(out, "  {name:width$}  {severity}")?;
        }
        writeln!(
            out,
            "off: {}",
            if off.is_empty() {
                "none".to_owned()
            } else {
                off.join(", ")
            }
        )?;
        writeln!(
            out,
            "render sandbox: {}",
            crate::render::sandbox::confinement().describe()
        )?;
        let cache = match crate::run::rendering::cache_dir(&options.rendering.cache) {
            Some((dir, _)) => dir.display().to_string(),
            None => "off (--no-cache)".to_owned(),
        };
        writeln!(out, "render cache: {cache}")?;
    }
    out.flush()?;
    Ok(EXIT_CLEAN)
}
