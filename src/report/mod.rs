//! Output formats. Each reporter writes the diagnostics of every file, already sorted.

mod concise;
mod full;
mod github;
mod gitlab;
mod json;
mod junit;
mod sarif;
mod summary;

use std::borrow::Cow;
use std::io::{self, Write};

use crate::diagnostics::{Diagnostic, Severity};
use crate::fix::{Fix, Placement, TextEdit};
use crate::model::ObjectRef;
use crate::source::SourceFile;

pub(crate) use full::{notes, render_problem};
pub use json::JsonDiagnostic;
pub(crate) use sarif::percent_encode;
pub(crate) use summary::{Summary, plural};

/// A linted file and its findings.
#[derive(Debug)]
pub struct FileReport {
    pub file: SourceFile,
    pub diagnostics: Vec<Diagnostic>,
    /// The workload objects in the file (JUnit reports one test case per object).
    pub(crate) objects: Vec<ObjectRef>,
    /// The least severity that fails the run for this file (`fail-on`); `None` for never.
    pub(crate) fail_at: Option<Severity>,
}

impl FileReport {
    /// Whether a finding fails the run.
    pub(crate) fn fails(&self, diagnostic: &Diagnostic) -> bool {
        self.fail_at.is_some_and(|at| diagnostic.severity >= at)
    }

    /// Keeps of the file only the lines that some format shows or counts columns on, so that
    /// a run over many files holds a few lines of each rather than every file whole. Every
    /// format renders the compacted report exactly as the whole one. A report with a fix the
    /// lint pipeline did not place keeps the whole file: its edits are computed from it.
    pub fn compact(&mut self) {
        let fixes = || self.diagnostics.iter().flat_map(|d| &d.fixes);
        if fixes().any(|fix| fix.placement == Placement::Pending) {
            return;
        }
        let file = &self.file;
        let mut lines = Vec::new();
        for diagnostic in &self.diagnostics {
            let own_labels = diagnostic
                .labels
                .iter()
                .filter(|label| label.file.as_ref().is_none_or(|f| f.path == file.path));
            let edits = diagnostic
                .fixes
                .iter()
                .flat_map(|fix| match &fix.placement {
                    Placement::At(edits) => edits.as_slice(),
                    _ => &[],
                });
            let spans = std::iter::once(diagnostic.span)
                .chain(own_labels.map(|l| l.span))
                .chain(edits.map(|edit| edit.span));
            for span in spans {
                for offset in [span.start, span.end] {
                    let line = file.line_of(offset as usize);
                    lines.push(line..=line);
                }
            }
            lines.extend(
                full::lines_shown(file, diagnostic)
                    .into_iter()
                    .map(|(first, last)| first..=last),
            );
        }
        self.file = self.file.excerpt(lines);
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Source snippets with labels and help, like rustc (the default).
    Full,
    /// One line per finding: `file:line:col: severity[rule] message`.
    Concise,
    /// A JSON array of findings (see docs/output.md).
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands, shown as annotations on pull requests.
    Github,
    /// JUnit XML: a test suite per file, a test case per object.
    Junit,
    /// GitLab Code Quality JSON, for merge request widgets.
    Gitlab,
}

/// What some formats need besides the findings.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// ANSI colours in the human formats.
    pub color: bool,
    /// The directory relative paths are relative to, as a `file://` URI ending with `/`;
    /// SARIF names it as the base of its artifact URIs.
    pub source_root: Option<String>,
    /// What the run rendered, could not render, and left out.
    pub run: RunNotes,
}

/// What a run did besides linting files, so that no format passes it off as a clean result.
#[derive(Clone, Debug, Default)]
pub struct RunNotes {
    /// Helm charts and Kustomize overlays rendered.
    pub(crate) rendered_charts: usize,
    pub(crate) rendered_overlays: usize,
    /// Inputs that could not be rendered.
    pub(crate) unrendered: Vec<Unrendered>,
    /// Files and directories that ignore files (`.gitignore`, `.ignore`) kept out.
    pub(crate) ignored_files: usize,
    pub(crate) ignored_directories: usize,
    /// Files, and charts and overlays, the default excludes (`testdata`, golden files) kept
    /// out.
    pub(crate) default_excluded: (usize, usize),
    /// Files found by walking that are not Kubernetes manifests, so not linted.
    pub(crate) not_manifests: NotManifests,
    /// Charts and overlays rendered because files named on the command line belong to them.
    pub(crate) rendered_for: Vec<RenderedFor>,
    /// Renderers ran without full confinement: why ([`crate::render::sandbox`]).
    pub(crate) unconfined: Option<String>,
    /// Files that could not be read, and paths given or walked that could not be (each is an
    /// error on standard error; the summary counts them).
    pub(crate) unread_files: usize,
    pub(crate) unread_paths: usize,
}

/// A chart or overlay rendered for files named on the command line (a values file, a patch),
/// and what its rendering found: so that a clean result names what was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RenderedFor {
    pub(crate) tool: crate::diagnostics::RenderTool,
    /// The chart or overlay directory.
    pub(crate) input: String,
    /// The named files, as users wrote them.
    pub(crate) files: Vec<String>,
    /// Findings its rendering placed (in any file).
    pub(crate) findings: usize,
}

impl RenderedFor {
    /// `Helm chart charts/web rendered for charts/web/values.yaml: no problems found`.
    pub(crate) fn sentence(&self) -> String {
        let noun = match self.tool {
            crate::diagnostics::RenderTool::Helm => "Helm chart",
            crate::diagnostics::RenderTool::Kustomize => "Kustomize overlay",
        };
        let found = match self.findings {
            0 => "no problems found".to_owned(),
            n => summary::plural(n, "finding"),
        };
        format!(
            "{noun} {} rendered for {}: {found}",
            self.input,
            self.files.join(", ")
        )
    }
}

/// What walking found that was not linted as it is, by what it is: files that are not
/// Kubernetes manifests, and overlays linted through the overlays that build from them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NotManifests {
    /// Templates for other tools (`{{`, `{%` that YAML cannot read, or reads as a mapping).
    pub(crate) templates: usize,
    /// Other YAML and JSON: no document has `apiVersion` and `kind`.
    pub(crate) other: usize,
    /// Charts' values, metadata and `files/`, read through the rendered chart.
    pub(crate) chart_files: usize,
    /// Of `chart_files`, those of charts that were not rendered: not read at all.
    pub(crate) chart_files_unrendered: usize,
    /// Kustomize overlays another overlay of the run builds from, linted through that one.
    pub(crate) built_through: usize,
}

impl NotManifests {
    /// `12 templated files and 30 other YAML or JSON files not linted: …`, and the chart files
    /// read only through their charts.
    fn summary_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut parts = Vec::new();
        if self.templates > 0 {
            parts.push(summary::plural(self.templates, "templated file"));
        }
        if self.other > 0 {
            parts.push(summary::plural(self.other, "other YAML or JSON file"));
        }
        if !parts.is_empty() {
            let what = if self.templates + self.other == 1 {
                "it is not a Kubernetes manifest (`--show-files` lists it)"
            } else {
                "they are not Kubernetes manifests (`--show-files` lists them)"
            };
            lines.push(format!("{} not linted: {what}", parts.join(" and ")));
        }
        let read_through = self.chart_files - self.chart_files_unrendered.min(self.chart_files);
        if read_through > 0 {
            lines.push(format!(
                "{} (values, Chart.yaml, files/) read only through the rendered chart",
                summary::plural(read_through, "chart file")
            ));
        }
        if self.chart_files_unrendered > 0 {
            let their = if self.chart_files_unrendered == 1 {
                "its chart was"
            } else {
                "their charts were"
            };
            lines.push(format!(
                "{} (values, Chart.yaml, files/) not read: {their} not rendered",
                summary::plural(self.chart_files_unrendered, "chart file")
            ));
        }
        if self.built_through > 0 {
            lines.push(format!(
                "{} linted through the overlays that build from them",
                summary::plural(self.built_through, "Kustomize overlay")
            ));
        }
        lines
    }
}

/// A chart or overlay that was not rendered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unrendered {
    pub(crate) tool: crate::diagnostics::RenderTool,
    /// The chart or overlay directory.
    pub(crate) input: String,
    pub(crate) reason: String,
    /// The file that stands for it in annotations: `Chart.yaml`, `kustomization.yaml`.
    pub(crate) file: String,
    /// The files named on the command line that were to be checked through it.
    pub(crate) named: Vec<String>,
    /// Whether it fails the run ([`crate::run::RenderJob::unrendered_fails`]).
    pub(crate) fails: bool,
}

impl Unrendered {
    /// `Helm chart charts/web not rendered: helm not found — …`.
    pub(crate) fn sentence(&self) -> String {
        format!(
            "{} {} not rendered: {}",
            self.noun(),
            self.input,
            self.reason
        )
    }

    /// The same chart or overlay, not rendered for the same reason.
    pub(crate) fn same(&self, other: &Unrendered) -> bool {
        (self.tool, &self.input, &self.reason) == (other.tool, &other.input, &other.reason)
    }

    /// Why it fails the run, when it does: `exit 1: charts/web/values.yaml is checked only
    /// through Helm chart charts/web, which was not rendered`.
    pub(crate) fn failure_line(&self) -> Option<String> {
        if !self.fails || self.named.is_empty() {
            return None;
        }
        Some(format!(
            "exit 1: {} {} checked only through {} {}, which was not rendered (`--no-fail-on-unrendered` passes such a run)",
            self.named.join(", "),
            if self.named.len() == 1 { "is" } else { "are" },
            self.noun(),
            self.input
        ))
    }

    pub(crate) fn noun(&self) -> &'static str {
        match self.tool {
            crate::diagnostics::RenderTool::Helm => "Helm chart",
            crate::diagnostics::RenderTool::Kustomize => "Kustomize overlay",
        }
    }
}

impl RunNotes {
    /// What was not rendered or not read, as the summary's first line says it: `1 file not
    /// read, 7 Helm charts not rendered`; `None` when nothing was left unchecked.
    pub(crate) fn gaps(&self) -> Option<String> {
        let (unrendered_charts, unrendered_overlays) = self.unrendered_counts();
        Summary {
            unrendered_charts,
            unrendered_overlays,
            unread_files: self.unread_files,
            unread_paths: self.unread_paths,
            ..Summary::default()
        }
        .gaps()
    }

    /// How many Helm charts and how many Kustomize overlays were not rendered (a chart not
    /// rendered with two sets of values counts once).
    pub(crate) fn unrendered_counts(&self) -> (usize, usize) {
        let mut seen: Vec<(crate::diagnostics::RenderTool, &str)> = Vec::new();
        for unrendered in &self.unrendered {
            let key = (unrendered.tool, unrendered.input.as_str());
            if !seen.contains(&key) {
                seen.push(key);
            }
        }
        let charts = seen
            .iter()
            .filter(|(tool, _)| *tool == crate::diagnostics::RenderTool::Helm)
            .count();
        (charts, seen.len() - charts)
    }

    /// The lines the human formats print under the summary: inputs not rendered, grouped by
    /// reason, and what ignore files left out.
    pub(crate) fn summary_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let mut groups: Vec<(&'static str, &str, usize)> = Vec::new();
        for unrendered in &self.unrendered {
            match groups.iter_mut().find(|(noun, reason, _)| {
                *noun == unrendered.noun() && *reason == unrendered.reason
            }) {
                Some(group) => group.2 += 1,
                None => groups.push((unrendered.noun(), &unrendered.reason, 1)),
            }
        }
        for (noun, reason, count) in groups {
            lines.push(format!(
                "{} not rendered: {reason}",
                summary::plural(count, noun)
            ));
        }
        if self.ignored_files + self.ignored_directories > 0 {
            let mut parts = Vec::new();
            if self.ignored_files > 0 {
                parts.push(summary::plural(self.ignored_files, "file"));
            }
            if self.ignored_directories > 0 {
                parts.push(summary::plural(self.ignored_directories, "directory"));
            }
            lines.push(format!(
                "{} skipped by ignore files (.gitignore, .ignore; --isolated lints them)",
                parts.join(" and ")
            ));
        }
        let (files, directories) = self.default_excluded;
        if files + directories > 0 {
            let mut parts = Vec::new();
            if files > 0 {
                parts.push(summary::plural(files, "file"));
            }
            if directories > 0 {
                parts.push(summary::plural(directories, "directory"));
            }
            let them = if files + directories == 1 {
                "it"
            } else {
                "them"
            };
            lines.push(format!(
                "{} in testdata, golden files, tests' or test harnesses' directories not linted: excluded by default (`--show-files` lists {them}; name {them} to lint {them}, or set `exclude` in .podcycle.yaml, which replaces the defaults)",
                parts.join(" and ")
            ));
        }
        lines.extend(self.not_manifests.summary_lines());
        lines.extend(self.rendered_for.iter().map(RenderedFor::sentence));
        lines.extend(self.unrendered.iter().filter_map(Unrendered::failure_line));
        let (charts, overlays) = RunNotes {
            unrendered: self
                .unrendered
                .iter()
                .filter(|u| u.fails && u.named.is_empty())
                .cloned()
                .collect(),
            ..RunNotes::default()
        }
        .unrendered_counts();
        let asked: Vec<String> = [(charts, "Helm chart"), (overlays, "Kustomize overlay")]
            .into_iter()
            .filter(|(count, _)| *count > 0)
            .map(|(count, noun)| summary::plural(count, noun))
            .collect();
        if !asked.is_empty() {
            lines.push(format!(
                "exit 1: {} not rendered (`fail-on-unrendered`)",
                asked.join(" and ")
            ));
        }
        lines
    }
}

impl Format {
    pub const ALL: [Format; 7] = [
        Format::Full,
        Format::Concise,
        Format::Json,
        Format::Sarif,
        Format::Github,
        Format::Junit,
        Format::Gitlab,
    ];

    /// The name `--format` takes.
    pub fn name(self) -> &'static str {
        match self {
            Format::Full => "full",
            Format::Concise => "concise",
            Format::Json => "json",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Junit => "junit",
            Format::Gitlab => "gitlab",
        }
    }

    /// One line on what it is, for `--help`.
    pub(crate) fn description(self) -> &'static str {
        match self {
            Format::Full => "source snippets with labels and help, like rustc (the default)",
            Format::Concise => "one line per finding: `file:line:col: severity[rule] message`",
            Format::Json => "a JSON array of findings (see docs/output.md)",
            Format::Sarif => "SARIF 2.1.0, for GitHub code scanning and other SARIF viewers",
            Format::Github => "GitHub Actions workflow commands, shown as annotations",
            Format::Junit => "JUnit XML: a test suite per file, a test case per object",
            Format::Gitlab => "GitLab Code Quality JSON, for merge request widgets",
        }
    }

    /// Human formats end with a summary line; machine formats print nothing else.
    pub(crate) fn is_human(self) -> bool {
        matches!(self, Format::Full | Format::Concise)
    }
}

/// Writes the report in `format`.
pub fn write(
    out: &mut dyn Write,
    format: Format,
    reports: &[FileReport],
    options: &Options,
) -> io::Result<()> {
    match format {
        Format::Full => full::write(out, reports, options.color)?,
        Format::Concise => concise::write(out, reports, options.color)?,
        Format::Json => json::write(out, reports, &options.run)?,
        Format::Sarif => sarif::write(out, reports, options)?,
        Format::Github => github::write(out, reports, &options.run)?,
        Format::Junit => junit::write(out, reports, &options.run)?,
        Format::Gitlab => gitlab::write(out, reports, &options.run)?,
    }
    if format.is_human() {
        if format == Format::Full && Summary::of(reports).total() > 0 {
            writeln!(out)?;
        }
        write_summary(out, reports, options)?;
    }
    Ok(())
}

/// The summary the human formats end with: the counts, what was not rendered or not linted,
/// and what `--fix` would fix. Also written to standard error when the report goes to a file
/// (`--output`), so that a CI log says what was found whatever the format.
pub(crate) fn write_summary(
    out: &mut dyn Write,
    reports: &[FileReport],
    options: &Options,
) -> io::Result<()> {
    let mut summary = Summary::of(reports);
    summary.charts = options.run.rendered_charts;
    summary.overlays = options.run.rendered_overlays;
    (summary.unrendered_charts, summary.unrendered_overlays) = options.run.unrendered_counts();
    summary.unread_files = options.run.unread_files;
    summary.unread_paths = options.run.unread_paths;
    writeln!(out, "{summary}")?;
    for line in options.run.summary_lines() {
        writeln!(out, "{line}")?;
    }
    if let Some(line) = fixable_line(reports) {
        writeln!(out, "{line}")?;
    }
    Ok(())
}

/// How many findings `check --fix` would fix, for the human formats (as ruff says it), and how
/// many more `--unsafe-fixes` would; `None` when there are none.
fn fixable_line(reports: &[FileReport]) -> Option<String> {
    use crate::fix::Applicability;
    let (mut safe, mut unsafe_only) = (0, 0);
    let edited = reports
        .iter()
        .filter(|r| crate::fix::edits_file(&r.file.path));
    for diagnostic in edited.flat_map(|r| &r.diagnostics) {
        if diagnostic
            .fixes
            .iter()
            .any(|f| f.applicability == Applicability::Safe)
        {
            safe += 1;
        } else if !diagnostic.fixes.is_empty() {
            unsafe_only += 1;
        }
    }
    let findings = |n: usize| if n == 1 { "finding" } else { "findings" };
    match (safe, unsafe_only) {
        (0, 0) => None,
        (0, n) => Some(format!(
            "{n} {} fixable with `podcycle check --fix --unsafe-fixes`.",
            findings(n)
        )),
        (n, 0) => Some(format!(
            "{n} {} fixable with `podcycle check --fix`.",
            findings(n)
        )),
        (n, m) => Some(format!(
            "{n} {} fixable with `podcycle check --fix` ({m} more with `--unsafe-fixes`).",
            findings(n)
        )),
    }
}

/// The `file://` URI of a directory, ending with `/`, for [`Options::source_root`].
pub(crate) fn directory_uri(directory: &std::path::Path) -> String {
    let mut path = directory.to_string_lossy().replace('\\', "/");
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    if !path.ends_with('/') {
        path.push('/');
    }
    format!("file://{}", sarif::percent_encode(&path))
}

/// A fix of a finding with the text edits it makes in its file.
pub(crate) struct RenderedFix<'a> {
    pub(crate) fix: &'a Fix,
    pub(crate) edits: Cow<'a, [TextEdit]>,
}

/// Each diagnostic's fixes that render on the file's text (the order of `diagnostics`): where
/// the lint pipeline placed them, or, for a fix it did not place, on the file parsed again.
pub(crate) fn rendered_fixes<'a>(
    file: &SourceFile,
    diagnostics: &'a [Diagnostic],
) -> Vec<Vec<RenderedFix<'a>>> {
    let mut documents = None;
    diagnostics
        .iter()
        .map(|diagnostic| {
            diagnostic
                .fixes
                .iter()
                .filter_map(|fix| {
                    let edits = match &fix.placement {
                        Placement::At(edits) => Cow::Borrowed(edits.as_slice()),
                        Placement::Nowhere => return None,
                        Placement::Pending => {
                            let documents = documents
                                .get_or_insert_with(|| crate::yaml::parse_stream(&file.text));
                            Cow::Owned(crate::fix::text_edits(&file.text, documents, fix)?)
                        }
                    };
                    Some(RenderedFix { fix, edits })
                })
                .collect()
        })
        .collect()
}

/// Line and column (1-based, columns in characters, end exclusive) of a span.
pub(crate) fn range(file: &SourceFile, span: crate::source::Span) -> (usize, usize, usize, usize) {
    let start = file.line_col(span.start);
    let end = file.line_col(span.end);
    (start.line, start.column, end.line, end.column)
}
