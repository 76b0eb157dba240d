//! `podcycle check`: discover files, find each one's configuration, lint them in parallel,
//! report, pick the exit code.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use globset::GlobSet;
use rayon::prelude::*;

use super::configs::Configs;
use super::fixing::{FixRun, fix_files};
use super::input::{lint_bytes_with, read_path, read_stdin, walked_paths};
use super::{
    CheckArgs, ColorChoice, EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, eprint_line, ignoring,
    statistics, usage_error,
};
use crate::baseline::Baseline;
use crate::config::{self, Config};
use crate::diagnostics::{Diagnostic, Severity};
use crate::discovery::roles::{PatchIndex, role_by_name};
use crate::discovery::{Discovered, Skip, WalkOptions, discover_with, exclude_set, excluded};
use crate::escape::escape_controls;
use crate::fix::Applicability;
use crate::lint::FileRole;
use crate::render::{self, HelmOptions, Input, NotRendered, Output, Tools};
use crate::report::{self, FileReport, Format, RunNotes, Unrendered};
use crate::safe_fs::{self, Existing, describe_io_error};
use crate::settings::{FailOn, Selection, Selector, Settings};
use crate::source::SourceFile;

/// What a file is linted with.
#[derive(Clone)]
pub(super) struct Plan {
    pub settings: Settings,
    pub fail_at: Option<Severity>,
    pub role: FileRole,
    /// Keep each file's whole text in its report: `--fix`, `--diff` and `--add-ignore` edit
    /// it. Otherwise a report keeps only the lines it shows.
    pub keep_text: bool,
}

/// A checked file: its report, what it was linted with, and where it is.
pub(super) struct Checked {
    pub report: FileReport,
    /// `None` for a file only rendered output reports findings in (a Helm template): it was
    /// not linted as it is, and is not edited.
    pub plan: Option<Plan>,
    /// The file on disk; `None` for standard input.
    pub path: Option<PathBuf>,
}

impl Checked {
    /// Lints `text` as this file, the way it was linted as it is (not what rendering found
    /// in it): the findings `--fix` and `--add-ignore` work on.
    pub fn lint(&self, text: &str) -> FileReport {
        match &self.plan {
            Some(plan) => lint_with_plan(
                self.report.file.path.clone(),
                text.as_bytes().to_vec(),
                plan,
            ),
            None => FileReport {
                file: SourceFile::new(self.report.file.path.clone(), text),
                diagnostics: Vec::new(),
                objects: Vec::new(),
                fail_at: self.report.fail_at,
            },
        }
    }

    /// Lints the file again after it changed to `text`. Findings rendering placed in it are
    /// kept as they were: the chart or overlay is not rendered again.
    pub fn relint(&mut self, text: String) {
        let rendered: Vec<Diagnostic> = self
            .report
            .diagnostics
            .drain(..)
            .filter(|d| d.rendered.is_some())
            .collect();
        let mut report = self.lint(&text);
        if let Some(path) = &self.path {
            report.file.set_os_path(path);
        }
        report.diagnostics.extend(rendered);
        crate::diagnostics::sort(&mut report.diagnostics);
        self.report = report;
    }
}

pub fn run(args: &CheckArgs) -> io::Result<u8> {
    let selection = match selection(args) {
        Ok(selection) => selection,
        Err(message) => return Ok(usage_error(&message)),
    };
    let exclude = match exclude_set(&args.exclude) {
        Ok(set) => set,
        Err(message) => return Ok(usage_error(&message)),
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
        Some(path) => match read_baseline(path) {
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

    let Some(mut configs) = open_configs(args)? else {
        return Ok(EXIT_ERROR);
    };
    let mut failed = false;

    // Standard input first, then files in a stable order; each with its configuration.
    let stdin_name = args
        .stdin_filename
        .clone()
        .unwrap_or_else(|| "-".to_owned());
    let mut stdin_plan = None;
    if stdin_count == 1 {
        let shown = args.stdin_filename.as_deref().map(Path::new);
        let config = configs.for_file(shown.unwrap_or(Path::new("-")));
        let skip = shown.is_some_and(|path| {
            args.force_exclude && is_excluded(config.as_deref(), &exclude, path)
        });
        if !skip {
            let role = role_by_name(Path::new(&stdin_name));
            stdin_plan = Some(plan(args, &selection, config.as_deref(), shown, role));
        }
    }
    let paths = walked_paths(&given);
    let mut files: Vec<(PathBuf, Plan)> = Vec::new();
    let mut patches = PatchIndex::default();
    let mut renders: Vec<RenderJob> = Vec::new();
    let mut discovered = Discovered::default();
    if !paths.is_empty() {
        discovered = discover_with(
            &paths,
            &exclude,
            WalkOptions {
                no_ignore_files: args.isolated,
            },
        );
        for error in &discovered.errors {
            eprint_line(format_args!("podcycle: error: {error}"))?;
            failed = true;
        }
        for path in std::mem::take(&mut discovered.files) {
            let named = paths.contains(&path);
            let config = configs.for_file(&path);
            let excluded = if named {
                args.force_exclude && is_excluded(config.as_deref(), &exclude, &path)
            } else {
                config.as_deref().is_some_and(|c| c.excludes(&path))
            };
            if excluded {
                discovered.skipped.push((path, Skip::Excluded));
            } else {
                let role = patches.role(&path);
                let plan = plan(args, &selection, config.as_deref(), Some(&path), role);
                files.push((path, plan));
            }
        }
        renders = render_jobs(args, &selection, &mut configs, &exclude, &mut discovered);
    }
    if configs.print_errors(stderr_colors(args.color))? {
        return Ok(EXIT_ERROR);
    }

    if args.show_files {
        let mut out = io::stdout().lock();
        show_files(
            &mut out,
            stdin_plan.is_some(),
            &files,
            &renders,
            &discovered,
        )?;
        return Ok(if failed { EXIT_ERROR } else { EXIT_CLEAN });
    }

    let mut reports = Vec::new();
    // Where each file linted as it is came from, for --fix and --add-ignore.
    let mut plans: HashMap<String, (Option<PathBuf>, Plan)> = HashMap::new();
    if let Some(plan) = stdin_plan {
        let report = lint_with_plan(stdin_name, read_stdin()?, &plan);
        plans.insert(report.file.path.clone(), (None, plan));
        reports.push(report);
    }
    // Files are independent; lint them on every core and keep the order of discovery.
    let results: Vec<Result<FileReport, String>> = files
        .par_iter()
        .map(|(path, plan)| {
            read_path(path).map(|(name, bytes)| {
                let mut report = lint_with_plan(name, bytes, plan);
                report.file.set_os_path(path);
                report
            })
        })
        .collect();
    for (result, (path, plan)) in results.into_iter().zip(files) {
        match result {
            Ok(report) => {
                plans.insert(report.file.path.clone(), (Some(path), plan));
                reports.push(report);
            }
            Err(message) => {
                eprint_line(format_args!("podcycle: error: {message}"))?;
                failed = true;
            }
        }
    }

    // Charts and overlays, rendered on every core; their findings go to the files that wrote
    // them, merged with what those files gave as they are (a Kustomize base).
    let tools = Tools::find(
        args.helm.as_deref(),
        args.kustomize.as_deref(),
        std::time::Duration::from_secs(args.render_timeout.max(1)),
    )
    .with_memory(args.render_memory << 20)
    .with_budget(render::Budget::new(std::time::Duration::from_secs(
        args.render_budget,
    )));
    if !renders.is_empty()
        && !args.no_render
        && let Some(warning) = render::sandbox::warning()
    {
        eprint_line(format_args!("podcycle: warning: {warning}"))?;
    }
    let mut run = RunNotes::default();
    let outcomes: Vec<Result<Output, NotRendered>> = renders
        .par_iter()
        .map(|job| {
            if args.no_render {
                Err(NotRendered {
                    tool: job.input.tool(),
                    input: job.input.display(),
                    reason: "--no-render".to_owned(),
                    refusal: None,
                })
            } else {
                render::render(&job.input, &tools)
            }
        })
        .collect();
    let mut fail_on_unrendered = args.fail_on_unrendered;
    let mut counted: Vec<(crate::diagnostics::RenderTool, String)> = Vec::new();
    for (job, outcome) in renders.iter().zip(outcomes) {
        fail_on_unrendered |= job.fail_on_unrendered;
        match outcome {
            Ok(output) => {
                for warning in &output.warnings {
                    eprint_line(format_args!(
                        "podcycle: warning: {} {}: {warning}",
                        output.tool, output.input
                    ))?;
                }
                let key = (output.tool, output.input.clone());
                if !counted.contains(&key) {
                    match output.tool {
                        crate::diagnostics::RenderTool::Helm => run.rendered_charts += 1,
                        crate::diagnostics::RenderTool::Kustomize => run.rendered_overlays += 1,
                    }
                    counted.push(key);
                }
                merge(
                    &mut reports,
                    lint_rendered(output, job),
                    !job.plan.keep_text,
                );
            }
            Err(not_rendered) if let Some(report) = refused_report(&not_rendered, job) => {
                merge(&mut reports, vec![report], !job.plan.keep_text);
            }
            Err(not_rendered) => {
                let file = match not_rendered.tool {
                    crate::diagnostics::RenderTool::Helm => job.input.dir().join("Chart.yaml"),
                    crate::diagnostics::RenderTool::Kustomize => {
                        render::kustomize::kustomization_file(job.input.dir())
                            .unwrap_or_else(|| job.input.dir().join("kustomization.yaml"))
                    }
                };
                let unrendered = Unrendered {
                    tool: not_rendered.tool,
                    input: not_rendered.input,
                    reason: render::printable(&not_rendered.reason),
                    file: render::display(&file),
                };
                if !run.unrendered.contains(&unrendered) {
                    writeln!(io::stderr(), "podcycle: warning: {}", unrendered.sentence())?;
                    if !job.named_templates.is_empty() {
                        let named: Vec<String> = job
                            .named_templates
                            .iter()
                            .map(|p| render::display(p))
                            .collect();
                        writeln!(
                            io::stderr(),
                            "podcycle: warning: not linted: {} (Helm templates are linted through their chart)",
                            named.join(", ")
                        )?;
                    }
                    run.unrendered.push(unrendered);
                }
            }
        }
    }
    let (ignored_files, ignored_directories) = discovered.ignored();
    run.ignored_files = ignored_files;
    run.ignored_directories = ignored_directories;
    // Standard input stays first; the files rendered findings landed in take their place.
    let stdin_report = (stdin_count == 1 && !reports.is_empty()).then(|| reports.remove(0));
    reports.sort_by(|a, b| a.file.path.cmp(&b.file.path));
    if let Some(report) = stdin_report {
        reports.insert(0, report);
    }

    if reports.is_empty() && renders.is_empty() && !failed && stdin_count == 0 {
        // Like ripgrep and ruff: say so, so that a mistyped path or an over-broad --exclude
        // does not pass for a clean result.
        eprint_line(format_args!(
            "podcycle: warning: no YAML or JSON files found to check"
        ))?;
    }

    // Only the errors when nothing could be read: "No problems found in 0 files" beside "no
    // such file" reads like a pass.
    if failed && reports.is_empty() && renders.is_empty() && args.format.is_human() {
        return Ok(EXIT_ERROR);
    }

    let mut checked: Vec<Checked> = reports
        .into_iter()
        .map(|report| {
            let (path, plan) = match plans.remove(&report.file.path) {
                Some((path, plan)) => (path, Some(plan)),
                None => (None, None),
            };
            Checked { report, plan, path }
        })
        .collect();
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

    let unrendered = !run.unrendered.is_empty();
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
            statistics::write(out, args.format, &reports, allowed)?;
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
            let mut out = io::stdout().lock();
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
        }
    }

    if failed {
        return Ok(EXIT_ERROR);
    }
    let fails = reports
        .iter()
        .any(|r| r.diagnostics.iter().any(|d| r.fails(d)));
    let fails = fails || (unrendered && fail_on_unrendered);
    Ok(if fails { EXIT_FINDINGS } else { EXIT_CLEAN })
}

/// A chart or overlay to render, with what its findings are linted and reported with.
struct RenderJob {
    input: Input,
    plan: Plan,
    /// Template files named on the command line: only their findings are reported.
    named_templates: Vec<PathBuf>,
    fail_on_unrendered: bool,
}

/// The charts and overlays discovery found, each with its configuration's settings (a chart
/// listed several times in `helm.charts` is rendered once per entry).
fn render_jobs(
    args: &CheckArgs,
    selection: &Selection,
    configs: &mut Configs,
    exclude: &GlobSet,
    discovered: &mut Discovered,
) -> Vec<RenderJob> {
    let mut jobs = Vec::new();
    for chart in std::mem::take(&mut discovered.charts) {
        let marker = chart.dir.join("Chart.yaml");
        let config = configs.for_file(&marker);
        let named = !chart.named_templates.is_empty();
        let is_excluded = if named {
            args.force_exclude
                && chart
                    .named_templates
                    .iter()
                    .all(|t| is_excluded(config.as_deref(), exclude, t))
        } else {
            config.as_deref().is_some_and(|c| c.excludes(&chart.dir))
        };
        if is_excluded {
            discovered.skipped.push((chart.dir, Skip::Excluded));
            continue;
        }
        let plan = plan(
            args,
            selection,
            config.as_deref(),
            Some(&marker),
            FileRole::Manifest,
        );
        let mut entries = config
            .as_deref()
            .map(|c| c.charts_for(&chart.dir))
            .unwrap_or_default();
        if entries.is_empty() {
            entries.push(crate::config::ChartSettings {
                dir: chart.dir.clone(),
                release: None,
                namespace: None,
                values: Vec::new(),
            });
        }
        for entry in entries {
            let mut values = entry.values;
            values.extend(args.helm_values.iter().cloned());
            jobs.push(RenderJob {
                input: Input::Chart {
                    dir: chart.dir.clone(),
                    options: HelmOptions {
                        release: args.helm_release.clone().or(entry.release),
                        namespace: args.helm_namespace.clone().or(entry.namespace),
                        values,
                        kube_version: Some(plan.settings.kube_version),
                    },
                },
                plan: plan.clone(),
                named_templates: chart.named_templates.clone(),
                fail_on_unrendered: config
                    .as_deref()
                    .and_then(|c| c.fail_on_unrendered)
                    .unwrap_or(false),
            });
        }
    }
    let mut overlays = Vec::new();
    for overlay in std::mem::take(&mut discovered.overlays) {
        let marker = render::kustomize::kustomization_file(&overlay)
            .unwrap_or_else(|| overlay.join("kustomization.yaml"));
        let config = configs.for_file(&marker);
        if config.as_deref().is_some_and(|c| c.excludes(&overlay)) {
            discovered.skipped.push((overlay, Skip::Excluded));
        } else {
            overlays.push(overlay);
        }
    }
    // Only the roots of the overlay graph are built; the overlays they build from are linted
    // through them.
    let builds = render::kustomize::plan_builds(&overlays);
    for (overlay, root) in builds.through {
        discovered
            .skipped
            .push((overlay, Skip::BuiltThrough(render::display(&root))));
    }
    for overlay in builds.builds {
        let marker = render::kustomize::kustomization_file(&overlay)
            .unwrap_or_else(|| overlay.join("kustomization.yaml"));
        let config = configs.for_file(&marker);
        let plan = plan(
            args,
            selection,
            config.as_deref(),
            Some(&marker),
            FileRole::Manifest,
        );
        jobs.push(RenderJob {
            input: Input::Overlay { dir: overlay },
            plan,
            named_templates: Vec::new(),
            fail_on_unrendered: config
                .as_deref()
                .and_then(|c| c.fail_on_unrendered)
                .unwrap_or(false),
        });
    }
    jobs
}

/// Lints rendered output and moves each finding to the file that wrote it.
fn lint_rendered(mut output: Output, job: &RenderJob) -> Vec<FileReport> {
    let rendered = std::mem::replace(&mut output.file, SourceFile::new("", ""));
    let path = rendered.path.clone();
    let (rendered, linted) = lint_bytes_with(
        path,
        rendered.text.into_bytes(),
        &job.plan.settings,
        FileRole::Manifest,
        &mut |_| {},
    );
    let named: Vec<String> = job
        .named_templates
        .iter()
        .map(|p| render::display(p))
        .collect();
    let mut by_file: Vec<(Arc<SourceFile>, Vec<Diagnostic>)> = Vec::new();
    for mut diagnostic in linted.diagnostics {
        // A fix names places in the rendered output, not in the template, base or patch the
        // finding is reported in: --fix edits only files linted as they are.
        diagnostic.fixes.clear();
        let (file, diagnostic) = output.map.place(&rendered, diagnostic);
        if !named.is_empty() && !named.contains(&file.path) {
            continue;
        }
        match by_file.iter_mut().find(|(f, _)| f.path == file.path) {
            Some((_, diagnostics)) => diagnostics.push(diagnostic),
            None => by_file.push((file, vec![diagnostic])),
        }
    }
    by_file
        .into_iter()
        .map(|(file, diagnostics)| {
            let mut objects: Vec<crate::model::ObjectRef> = Vec::new();
            for object in diagnostics.iter().filter_map(|d| d.object.clone()) {
                if !objects.contains(&object) {
                    objects.push(object);
                }
            }
            FileReport {
                file: Arc::try_unwrap(file).unwrap_or_else(|shared| (*shared).clone()),
                diagnostics,
                objects,
                fail_at: job.plan.fail_at,
            }
        })
        .collect()
}

/// The `render-error` finding for an input its renderer refused, when the rule is on for it
/// (else the refusal is a note, like any input not rendered).
fn refused_report(not_rendered: &NotRendered, job: &RenderJob) -> Option<FileReport> {
    let refusal = not_rendered.refusal.as_deref()?;
    let rule = job.plan.settings.enabled(render::failure::RULE)?;
    let severity = job.plan.settings.severity(rule);
    let (file, diagnostic) = render::failure::diagnostic(refusal, &not_rendered.input, severity);
    Some(FileReport {
        file: Arc::try_unwrap(file).unwrap_or_else(|shared| (*shared).clone()),
        diagnostics: vec![diagnostic],
        objects: Vec::new(),
        fail_at: job.plan.fail_at,
    })
}

/// Adds findings to the report of their file, or a new one. A finding already there (a base
/// linted as it is, an overlay built twice) is kept once: the copy with the most labels.
/// With `compact`, the reports keep only the lines they show.
fn merge(reports: &mut Vec<FileReport>, incoming: Vec<FileReport>, compact: bool) {
    for mut report in incoming {
        match reports.iter_mut().find(|r| r.file.path == report.file.path) {
            Some(existing) => {
                // The file as read for the rendered findings holds the lines they show, which
                // the compacted report of the file may not.
                if existing.file.is_excerpt() && !report.file.is_excerpt() {
                    let os_path = existing.file.os_path.take();
                    existing.file = std::mem::replace(&mut report.file, SourceFile::new("", ""));
                    existing.file.os_path = os_path;
                }
                for diagnostic in report.diagnostics {
                    let same = existing.diagnostics.iter_mut().find(|d| {
                        d.rule == diagnostic.rule
                            && d.span == diagnostic.span
                            && d.message == diagnostic.message
                    });
                    match same {
                        Some(kept) if kept.labels.len() < diagnostic.labels.len() => {
                            *kept = diagnostic;
                        }
                        Some(_) => {}
                        None => existing.diagnostics.push(diagnostic),
                    }
                }
                for object in report.objects {
                    if !existing.objects.contains(&object) {
                        existing.objects.push(object);
                    }
                }
                crate::diagnostics::sort(&mut existing.diagnostics);
                if compact {
                    existing.compact();
                }
            }
            None => {
                let mut report = report;
                let mut unique: Vec<Diagnostic> = Vec::new();
                for diagnostic in report.diagnostics {
                    if !unique.iter().any(|d| {
                        d.rule == diagnostic.rule
                            && d.span == diagnostic.span
                            && d.message == diagnostic.message
                    }) {
                        unique.push(diagnostic);
                    }
                }
                crate::diagnostics::sort(&mut unique);
                report.diagnostics = unique;
                if compact {
                    report.compact();
                }
                reports.push(report);
            }
        }
    }
}

/// `--show-files`: what would be linted and rendered, and what is skipped and why.
fn show_files(
    out: &mut dyn Write,
    stdin: bool,
    files: &[(PathBuf, Plan)],
    renders: &[RenderJob],
    discovered: &Discovered,
) -> io::Result<()> {
    let mut lines: Vec<(String, String)> = Vec::new();
    if stdin {
        lines.push(("-".to_owned(), "lint (standard input)".to_owned()));
    }
    for (path, plan) in files {
        let what = match plan.role {
            FileRole::Manifest => "lint",
            FileRole::Patch => "lint (patch or expected state: document checks only)",
        };
        lines.push((render::display(path), what.to_owned()));
    }
    for job in renders {
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
        lines.push((job.input.display(), what));
    }
    for (path, skip) in &discovered.skipped {
        lines.push((render::display(path), format!("skip ({skip})")));
    }
    lines.sort();
    lines.dedup();
    for (path, what) in lines {
        writeln!(out, "{path}: {what}")?;
    }
    Ok(())
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
        return crate::add_ignore::check_reason(reason).err();
    }
    None
}

fn read_baseline(path: &Path) -> Result<Baseline, String> {
    let bytes = safe_fs::read_file(path, safe_fs::FileKind::Baseline)
        .map_err(|error| format!("cannot read baseline {}: {error}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("invalid baseline {}: not UTF-8", path.display()))?;
    Baseline::parse(&parent_dir(path), &text)
        .map_err(|message| format!("invalid baseline {}: {message}", path.display()))
}

fn parent_dir(path: &Path) -> PathBuf {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    }
}

/// `--write-baseline FILE`: records every finding and reports nothing else.
fn write_baseline(path: &Path, checked: &[Checked], failed: bool) -> io::Result<u8> {
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
    let line = if run.files == 0 {
        "podcycle: no fixes to apply".to_owned()
    } else {
        format!(
            "podcycle: `--fix` would fix {} in {}",
            count(run.findings(), "finding"),
            count(run.files, "file")
        )
    };
    eprint_line(format_args!("{line}"))?;
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
    let line = format!(
        "Fixed {} in {}.",
        count(run.findings(), "finding"),
        count(run.files, "file")
    );
    if format.is_human() {
        writeln!(out, "{line}")
    } else {
        eprint_line(format_args!("podcycle: {line}"))
    }
}

/// `--add-ignore REASON`: a suppression comment for every finding left.
fn add_ignores(checked: &mut [Checked], reason: &str, failed: bool) -> io::Result<u8> {
    let outcome = ignoring::add_ignores(checked, reason)?;
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

fn selection(args: &CheckArgs) -> Result<Selection, String> {
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

/// The settings and fail level for a file: the configuration's, with the command line on top,
/// less the configuration's `per-path-ignores` for the file.
fn plan(
    args: &CheckArgs,
    cli: &Selection,
    config: Option<&Config>,
    path: Option<&Path>,
    role: FileRole,
) -> Plan {
    let settings = match config {
        None => config::settings_without_config(cli, args.kube_version),
        Some(config) => config.settings_for_file(cli, args.kube_version, path),
    };
    let fail_on = args
        .fail_on
        .or(config.and_then(|c| c.fail_on))
        .unwrap_or(FailOn::Warning);
    Plan {
        settings,
        fail_at: fail_on.threshold(),
        role,
        keep_text: args.fix || args.diff || args.add_ignore.is_some(),
    }
}

fn is_excluded(config: Option<&Config>, exclude: &GlobSet, path: &Path) -> bool {
    excluded(exclude, path) || config.is_some_and(|c| c.excludes(path))
}

fn lint_with_plan(name: String, bytes: Vec<u8>, plan: &Plan) -> FileReport {
    let (file, linted) = lint_bytes_with(name, bytes, &plan.settings, plan.role, &mut |_| {});
    let mut report = FileReport {
        file,
        diagnostics: linted.diagnostics,
        objects: linted.objects,
        fail_at: plan.fail_at,
    };
    // Reports are written once every file is linted: keep only the lines they show.
    if !plan.keep_text {
        report.compact();
    }
    report
}

/// Lints `text` as a file named `path` with `settings` and the default fail level.
pub fn lint_text(path: &str, text: &str, settings: &Settings) -> FileReport {
    super::input::lint_bytes(path.to_owned(), text.as_bytes().to_vec(), settings)
}

/// Whether to colour what goes to `stream` when `--color auto`: the conventions anstream reads
/// (`NO_COLOR`, `CLICOLOR_FORCE`, `CLICOLOR=0`, `TERM=dumb`, CI), and a terminal.
fn colors(stream: &impl anstream::stream::RawStream) -> bool {
    anstream::AutoStream::choice(stream) != anstream::ColorChoice::Never
}

/// Colour for messages on stderr (configuration errors), by the same flag.
pub(super) fn stderr_colors(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => colors(&io::stderr()),
    }
}

/// The configurations `check` reads; `None` when the one named with `--config` is unusable
/// (already said). `--isolated` reads no configuration but the one named with `--config`.
fn open_configs(args: &CheckArgs) -> io::Result<Option<Configs>> {
    Configs::open(
        args.config.as_deref(),
        args.no_config || (args.isolated && args.config.is_none()),
        stderr_colors(args.color),
    )
}

/// `--show-settings FILE`: what `check` would lint the file with, and where that comes from.
pub(super) fn show_settings(args: &CheckArgs, file: &Path) -> io::Result<u8> {
    let selection = match selection(args) {
        Ok(selection) => selection,
        Err(message) => return Ok(usage_error(&message)),
    };
    let exclude = match exclude_set(&args.exclude) {
        Ok(set) => set,
        Err(message) => return Ok(usage_error(&message)),
    };
    let Some(mut configs) = open_configs(args)? else {
        return Ok(EXIT_ERROR);
    };
    let config = configs.for_file(file);
    if configs.print_errors(stderr_colors(args.color))? {
        return Ok(EXIT_ERROR);
    }
    let role = PatchIndex::default().role(file);
    let plan = plan(args, &selection, config.as_deref(), Some(file), role);
    let source = match (&config, args.no_config) {
        (_, true) => "none (--no-config)".to_owned(),
        (Some(config), false) => config.path.display().to_string(),
        (None, false) => "none: no .podcycle.yaml in the file's directory or above".to_owned(),
    };
    let excluded = if is_excluded(config.as_deref(), &exclude, file) {
        "yes: `exclude` matches it; it is linted only when named, without --force-exclude"
    } else {
        "no"
    };
    let fail_on = args
        .fail_on
        .or(config.as_ref().and_then(|c| c.fail_on))
        .unwrap_or(FailOn::Warning);
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
    let role = match plan.role {
        FileRole::Manifest => "manifest",
        FileRole::Patch => "Kustomize patch (document checks only)",
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
            "render_sandbox": render::sandbox::sandbox().describe(),
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
            render::sandbox::sandbox().describe()
        )?;
    }
    out.flush()?;
    Ok(EXIT_CLEAN)
}
