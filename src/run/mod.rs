//! One run over files, charts and overlays, the same for every front end: `check` and
//! `explain` on the command line, the language server, and the tests. Beneath them all, so
//! that they plan, render and lint through one path and never disagree.
//!
//! - `options`: [`RunOptions`], what a run is asked to do on top of each file's
//!   configuration, and the [`FilePlan`] one file is linted with;
//! - `configs`: the configuration of each file, found and read once;
//! - `plan`: what a run reads — files, standard input, charts and overlays — each with its
//!   plan, and what it leaves out;
//! - `files`: reading a file and linting it with its plan;
//! - `rendering`: rendering charts and overlays, linting the output, placing each finding in
//!   the file that wrote it (`check`, `explain` and the editor alike);
//! - `editor`: the language server's run, one open file at a time;
//! - `explaining`: the pods of what is linted, explained as `explain` shows them (the
//!   command and the editor's "explain this pod" alike);
//! - `scopes`: the objects applied together — the manifests of a directory — with which a
//!   file's budgets and autoscalers are matched, gathered before its files are linted;
//! - `workspace`: the language server's index of a workspace's manifests, by directory: the
//!   facts their scopes are made of, kept up to date as files are edited and changed;
//! - `after_lint`: what runs once every file is linted: findings merged per file, the passes
//!   that read several files, the order of the reports.
//!
//! `Checking` drives a `check` run through these steps; the front ends print what it says.

pub(crate) mod after_lint;
pub(crate) mod configs;
pub(crate) mod editor;
pub(crate) mod explaining;
pub(crate) mod files;
pub(crate) mod options;
pub(crate) mod plan;
pub(crate) mod rendering;
pub(crate) mod scopes;
pub(crate) mod workspace;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;

pub use configs::Configs;
pub use editor::{EditorPlan, EditorRender};
pub(crate) use editor::{owners_findings, owners_of_saved};
pub(crate) use explaining::Explaining;
pub use files::lint_bytes;
pub(crate) use files::{
    CheckedFile, NotEdited, UnreadFile, Walked, lint_walked, read_stdin, read_unless_kept,
};
pub(crate) use options::{CacheChoice, ConfigChoice, HelmOverrides, Rendering, Walk};
pub use options::{FilePlan, RunOptions};
pub(crate) use plan::{RenderJob, RunPlan, StdinPlan};
pub(crate) use rendering::{RenderedOutput, Renderer};
pub(crate) use scopes::{Ready, in_order, share_directory_scopes};
pub use workspace::{DirectoryContext, IndexLimits, WorkspaceIndex};

use crate::diagnostics::RenderTool;
use crate::discovery::Discovered;
use crate::discovery::kept::KeptTexts;
use crate::report::{FileReport, RenderedFor, RunNotes};
use crate::safe_fs::Reader;

/// The sizes of `files`, read on every core without following links. Files are linted largest
/// first, so that the last to be linted are small: a large file linted last keeps one core
/// busy while the others wait (on the shared corpus, a 0.7 MB file at the end took a fifth of
/// the run on one core). A file that cannot be read counts as empty, and reading it says why.
fn file_sizes(files: &[(PathBuf, FilePlan)], texts: &KeptTexts) -> Vec<u64> {
    files
        .par_iter()
        .map(|(path, _)| match texts.get(path) {
            Some(text) => text.len() as u64,
            None => std::fs::symlink_metadata(path).map_or(0, |m| m.len()),
        })
        .collect()
}

/// One piece of `check`'s work: a file that is its own scope, or the files of a directory
/// judged together; each by its position, with its text where discovery kept it.
enum Work {
    File((usize, Option<Vec<u8>>)),
    Unit(Vec<(usize, Option<Vec<u8>>)>),
}

/// The files of one piece of `check`'s work, each linted or why it was not read, and for a
/// directory judged together the positions of its files read and what they are linted with.
type LintedWork = (
    Vec<(usize, Result<Walked, UnreadFile>)>,
    Option<(Vec<usize>, scopes::Joined)>,
);

/// Lints the files of a directory judged together in two phases, each file parsed once: the
/// first ([`scopes::read_unit`]), then the documents that waited linted within the whole scope.
/// `members`: the unit's files, with their texts where discovery kept them.
fn lint_unit(
    files: &[(PathBuf, FilePlan)],
    members: Vec<(usize, Option<Vec<u8>>)>,
    reader: &Reader,
) -> LintedWork {
    let unit = scopes::read_unit(files, members, reader);
    let positions = unit.read_positions();
    let joined = unit.joined;
    let mut linted: Vec<(usize, Result<Walked, UnreadFile>)> = unit
        .read
        .into_par_iter()
        .enumerate()
        .map(|(n, (index, file))| {
            let report = file.finish(&files[index].1, &joined.scope(n), &mut |_| {});
            (index, Ok(report))
        })
        .collect();
    linted.extend(
        unit.unread
            .into_iter()
            .map(|(index, error)| (index, Err(error))),
    );
    (linted, Some((positions, joined)))
}

/// A `check` run after planning: the files linted as they are, then the charts and overlays
/// rendered and their findings merged into the files that wrote them.
#[derive(Debug, Default)]
pub(crate) struct Checking {
    reports: Vec<FileReport>,
    /// Where each file linted as it is came from and what it was linted with, for `--fix`
    /// and `--add-ignore`.
    plans: HashMap<String, (Option<PathBuf>, FilePlan)>,
    notes: RunNotes,
    stdin: bool,
    /// `--verbose`: each renderer warning is shown, not counted.
    verbose: bool,
    /// Walked files their lint found to be templates for another tool ([`Walked::Template`]).
    templates: usize,
}

/// What a `check` run found.
#[derive(Debug)]
pub(crate) struct CheckOutcome {
    /// Every file with findings or linted as it is: standard input first, then by name.
    pub(crate) files: Vec<CheckedFile>,
    /// What the run rendered, could not render (and whether that fails it), and left out.
    pub(crate) notes: RunNotes,
}

impl Checking {
    pub(crate) fn new(options: &RunOptions) -> Checking {
        Checking {
            verbose: options.rendering.verbose,
            ..Checking::default()
        }
    }

    /// Lints what was read from standard input.
    pub(crate) fn stdin(&mut self, stdin: StdinPlan, bytes: Vec<u8>) {
        let report = lint_bytes(stdin.name, bytes, &stdin.plan, &mut |_| {});
        self.plans
            .insert(report.file.path.clone(), (None, stdin.plan));
        self.reports.push(report);
        self.stdin = true;
    }

    /// Lints files on every core, keeping their order; returns why those that could not be
    /// read were not. The manifests of a directory judged together ([`scopes::directory_units`])
    /// are linted in two phases, each parsed once: every file is read and its part of the scope
    /// taken from its trees while what the scope cannot change is linted; then the parts are
    /// joined and the documents that waited for them linted.
    ///
    /// `texts`: the texts discovery kept of small files, linted without reading them again.
    pub(crate) fn files(
        &mut self,
        mut files: Vec<(PathBuf, FilePlan)>,
        mut texts: KeptTexts,
    ) -> Vec<UnreadFile> {
        let units = scopes::directory_units(&files, &texts);
        let mut in_unit = vec![false; files.len()];
        for &index in units.iter().flatten() {
            in_unit[index] = true;
        }
        // A unit is linted as one piece of work, its phases on every core within it, so that
        // the trees kept between the phases are those of the few units under way.
        let sizes = file_sizes(&files, &texts);
        let mut take = |index: usize| (index, texts.take(&files[index].0));
        let mut work: Vec<(u64, Work)> = units
            .into_iter()
            .map(|members| {
                let size = members.iter().map(|&i| sizes[i]).sum();
                (
                    size,
                    Work::Unit(members.into_iter().map(&mut take).collect()),
                )
            })
            .collect();
        work.extend(
            (0..files.len())
                .filter(|&i| !in_unit[i])
                .map(|i| (sizes[i], Work::File(take(i)))),
        );
        // The files whose texts discovery kept come first, so that the texts are not held while
        // the largest files are linted (the run's peak); they are small, and quickly done.
        work.sort_by_key(|(size, work)| {
            let kept = matches!(work, Work::File((_, Some(_))));
            (!kept, std::cmp::Reverse(*size))
        });
        let reader = Reader::default();
        // Then taken from the list by whichever thread is free, largest first: a parallel
        // iterator splits the list in halves instead, so that one thread came to the largest
        // files one after another and linted the last of them alone while the others waited.
        let done: Vec<LintedWork> = work
            .into_iter()
            .par_bridge()
            .map(|(_, work)| match work {
                Work::File((index, kept)) => {
                    let (path, plan) = &files[index];
                    let report = read_unless_kept(&reader, path, kept)
                        .map(|(name, bytes)| lint_walked(name, bytes, plan));
                    (vec![(index, report)], None)
                }
                Work::Unit(members) => lint_unit(&files, members, &reader),
            })
            .collect();
        let mut results: Vec<Option<Result<Walked, UnreadFile>>> =
            files.iter().map(|_| None).collect();
        for (linted, unit) in done {
            if let Some((positions, joined)) = unit {
                scopes::share(&mut files, &positions, &joined);
            }
            for (index, report) in linted {
                results[index] = Some(report);
            }
        }
        let mut errors = Vec::new();
        for (result, (path, plan)) in results.into_iter().zip(files) {
            match result.expect("every file is linted once") {
                Ok(Walked::Template) => self.templates += 1,
                Ok(Walked::Report(mut report)) => {
                    report.file.set_os_path(&path);
                    self.plans
                        .insert(report.file.path.clone(), (Some(path), plan));
                    self.reports.push(report);
                }
                Err(unread) => errors.push(unread),
            }
        }
        errors
    }

    /// Renders the charts and overlays on every core and merges their findings into the
    /// reports of the files that wrote them. Returns the warnings to show: what was not
    /// rendered, once each.
    pub(crate) fn renders(&mut self, jobs: &[RenderJob], renderer: &Renderer) -> Vec<String> {
        let mut warnings = Vec::new();
        if !jobs.is_empty() {
            warnings.extend(renderer.warnings());
            self.notes.unconfined = renderer.unconfined();
        }
        let outcomes = renderer.render_and_lint_all(jobs);
        let mut counted: Vec<(RenderTool, String)> = Vec::new();
        let mut printed = RendererWarnings::default();
        for (job, outcome) in jobs.iter().zip(outcomes) {
            match outcome {
                Ok(linted) => {
                    if self.verbose {
                        for warning in &linted.warnings {
                            warnings.push(format!("{} {}: {warning}", linted.tool, linted.input));
                        }
                    } else {
                        printed.add(linted.tool, &linted.warnings);
                    }
                    let key = (linted.tool, linted.input);
                    if !counted.contains(&key) {
                        match linted.tool {
                            RenderTool::Helm => self.notes.rendered_charts += 1,
                            RenderTool::Kustomize => self.notes.rendered_overlays += 1,
                        }
                        counted.push(key);
                    }
                    let reports = linted.reports;
                    self.rendered_for(job, reports.iter().map(|r| r.diagnostics.len()).sum());
                    after_lint::merge(&mut self.reports, reports, !job.plan.keep_text);
                }
                Err(not_rendered)
                    if let Some(report) = rendering::refused_report(&not_rendered, job) =>
                {
                    self.rendered_for(job, report.diagnostics.len());
                    after_lint::merge(&mut self.reports, vec![report], !job.plan.keep_text);
                }
                Err(not_rendered) => {
                    let mut unrendered = rendering::unrendered(job, not_rendered);
                    unrendered.fails = job.unrendered_fails(renderer.disabled());
                    if let Some(noted) = self
                        .notes
                        .unrendered
                        .iter_mut()
                        .find(|noted| noted.same(&unrendered))
                    {
                        noted.fails |= unrendered.fails;
                        continue;
                    }
                    // Asked for: the summary counts what `--no-render` left out, once.
                    if !renderer.disabled() {
                        warnings.push(unrendered.sentence());
                    }
                    if !job.named_templates.is_empty() {
                        let named: Vec<String> = job
                            .named_templates
                            .iter()
                            .map(|p| crate::render::display(p))
                            .collect();
                        warnings.push(format!(
                            "not linted: {} (Helm templates are linted through their chart)",
                            named.join(", ")
                        ));
                    }
                    if let Some(sentence) = not_read_through(job) {
                        warnings.push(sentence);
                    }
                    self.notes.unrendered.push(unrendered);
                }
            }
        }
        warnings.extend(printed.sentences());
        warnings
    }

    /// Notes that a chart or overlay was rendered for named files, with what it found.
    fn rendered_for(&mut self, job: &RenderJob, findings: usize) {
        if job.rendered_for.is_empty() {
            return;
        }
        let input = job.input.display();
        let tool = job.input.tool();
        match self
            .notes
            .rendered_for
            .iter_mut()
            .find(|r| r.tool == tool && r.input == input)
        {
            Some(noted) => noted.findings += findings,
            None => self.notes.rendered_for.push(RenderedFor {
                tool,
                input,
                files: job
                    .rendered_for
                    .iter()
                    .map(|p| crate::render::display(p))
                    .collect(),
                findings,
            }),
        }
    }

    /// Whether any file was linted or got findings.
    pub(crate) fn is_empty(&self) -> bool {
        self.reports.is_empty()
    }

    /// The reports in order, each with what it was linted with.
    pub(crate) fn finish(mut self, discovered: &Discovered) -> CheckOutcome {
        let (ignored_files, ignored_directories) = discovered.ignored();
        self.notes.ignored_files = ignored_files;
        self.notes.ignored_directories = ignored_directories;
        self.notes.default_excluded = discovered.default_excluded();
        self.notes.not_manifests = discovered.not_manifests();
        self.notes.not_manifests.templates += self.templates;
        // A chart's files are read only through it: those of a chart not rendered were not
        // read at all, and are not said to be.
        let unrendered: HashSet<&str> = self
            .notes
            .unrendered
            .iter()
            .filter(|u| u.tool == RenderTool::Helm)
            .map(|u| u.input.as_str())
            .collect();
        if !unrendered.is_empty() {
            self.notes.not_manifests.chart_files_unrendered = discovered
                .skipped
                .iter()
                .filter(|(_, skip)| *skip == crate::discovery::Skip::ChartFile)
                .filter_map(|(path, _)| crate::discovery::owners::chart_of_file(path))
                .filter(|chart| unrendered.contains(crate::render::display(chart).as_str()))
                .count();
        }
        after_lint::order(&mut self.reports, self.stdin);
        let files = self
            .reports
            .into_iter()
            .map(|report| {
                let (path, plan) = match self.plans.remove(&report.file.path) {
                    Some((path, plan)) => (path, Some(plan)),
                    None => (None, None),
                };
                CheckedFile { report, plan, path }
            })
            .collect();
        CheckOutcome {
            files,
            notes: self.notes,
        }
    }
}

/// What a chart not rendered leaves unread of the named files it was to be rendered for: its
/// values, metadata and helpers are read only through it.
fn not_read_through(job: &RenderJob) -> Option<String> {
    if job.rendered_for.is_empty() || job.input.tool() != RenderTool::Helm {
        return None;
    }
    let named: Vec<String> = job
        .rendered_for
        .iter()
        .map(|p| crate::render::display(p))
        .collect();
    Some(format!(
        "not linted: {} (a chart's files are read through the rendered chart)",
        named.join(", ")
    ))
}

/// What the renderers printed on standard error, counted per renderer: Kustomize prints a
/// deprecation for every kustomization that has it, which at a repository's root is dozens of
/// lines that say one thing. `--verbose` shows them.
#[derive(Debug, Default)]
struct RendererWarnings {
    /// Per renderer: lines printed, and whether every one was a deprecation.
    counts: Vec<(RenderTool, usize, bool)>,
}

impl RendererWarnings {
    /// Counts one render's warnings, as `render` keeps them: each distinct line once, with
    /// `(N times)` when it came more than once, and `and N more lines` past the kept ones.
    fn add(&mut self, tool: RenderTool, warnings: &[String]) {
        if warnings.is_empty() {
            return;
        }
        let mut lines = 0;
        let mut deprecations = true;
        for warning in warnings {
            let (line, times) = times_printed(warning);
            lines += times;
            deprecations &= line.to_ascii_lowercase().contains("deprecat");
        }
        match self.counts.iter_mut().find(|(t, ..)| *t == tool) {
            Some((_, count, all_deprecations)) => {
                *count += lines;
                *all_deprecations &= deprecations;
            }
            None => self.counts.push((tool, lines, deprecations)),
        }
    }

    /// `kustomize printed 41 deprecation warnings; `--verbose` shows them`, per renderer.
    fn sentences(&self) -> Vec<String> {
        self.counts
            .iter()
            .map(|(tool, count, deprecations)| {
                let what = if *deprecations {
                    "deprecation warning"
                } else {
                    "warning"
                };
                let them = if *count == 1 { "it" } else { "them" };
                format!(
                    "{} printed {}; `--verbose` shows {them}",
                    tool.as_str(),
                    crate::text::plural(*count, what)
                )
            })
            .collect()
    }
}

/// A kept warning line and how many lines it stands for.
fn times_printed(warning: &str) -> (&str, usize) {
    if let Some(more) = warning
        .strip_prefix("and ")
        .and_then(|rest| rest.strip_suffix(" lines").or(rest.strip_suffix(" line")))
        .and_then(|n| n.parse().ok())
    {
        return ("", more);
    }
    if let Some((line, times)) = warning.rsplit_once(" (")
        && let Some(times) = times.strip_suffix(" times)").and_then(|n| n.parse().ok())
    {
        return (line, times);
    }
    (warning, 1)
}
