//! The run of the language server: one open file at a time, planned as `check` plans it — its
//! configuration, its settings, and, for a Helm template or a Kustomize patch, the chart or
//! overlay it is judged through, rendered with the configuration's `helm.charts` entries; for a
//! `Chart.yaml` or a kustomization, the chart or overlay it stands for, whose findings placed in
//! it (a renderer's refusal among them) it shows beside its own.
//! Renderers read files from disk, so a file is judged through them as saved: while it has
//! unsaved changes, nothing is claimed about it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::configs::Configs;
use super::options::{FilePlan, RunOptions};
use super::plan::{RenderJob, chart_jobs, overlay_job, overlay_marker};
use super::rendering::{Renderer, refused_report, unrendered};
use crate::config::{Config, ConfigError};
use crate::diagnostics::{Diagnostic, RenderTool};
use crate::discovery::FoundChart;
use crate::discovery::roles::PatchIndex;
use crate::lint::FileRole;
use crate::render::{helm, kustomize};

/// How an open file is judged.
#[derive(Clone, Debug)]
pub struct EditorPlan {
    /// The file's own plan; `None` when its configuration excludes it (nothing is shown, as
    /// `check` shows nothing).
    pub(crate) file: Option<FilePlan>,
    /// The chart or overlay it is judged through, one job per rendering; empty for a file
    /// linted as it is written.
    pub(crate) renders: Vec<RenderJob>,
    /// The chart or overlay the file stands for (its `Chart.yaml`, its kustomization), whose
    /// findings placed in the file — a refusal of its renderer among them — are shown beside
    /// the file's own, as `check` reports them.
    pub(crate) marks: Vec<RenderJob>,
    /// The configuration that should apply and cannot be used: the defaults apply meanwhile.
    pub(crate) config_error: Option<Arc<ConfigError>>,
    /// The configuration over the file, which says what else of its directory `check` reads
    /// ([`super::WorkspaceIndex`]).
    pub(crate) config: Option<Arc<Config>>,
}

/// What rendering gives for an open file.
#[derive(Debug)]
pub enum EditorRender {
    /// The findings of the rendered chart or overlay in this file, sorted.
    Findings(Vec<Diagnostic>),
    /// The chart or overlay could not be rendered, or the file has unsaved changes: why.
    Unavailable(String),
}

impl EditorPlan {
    /// Plans the file at `path` (`None`: a document with no file, which gets the defaults).
    pub fn new(options: &RunOptions, configs: &mut Configs, path: Option<&Path>) -> EditorPlan {
        let Some(path) = path else {
            return EditorPlan {
                file: Some(options.file_plan(None, None, FileRole::Manifest)),
                renders: Vec::new(),
                marks: Vec::new(),
                config_error: None,
                config: None,
            };
        };
        let mut patches = PatchIndex::default();
        let (config, config_error) = match configs.resolve(path) {
            Ok(config) => (config, None),
            Err(error) => (None, Some(error)),
        };
        if config.as_deref().is_some_and(|c| c.excludes(path)) {
            return EditorPlan {
                file: None,
                renders: Vec::new(),
                marks: Vec::new(),
                config_error,
                config,
            };
        }
        let role = patches.role(path);
        let file = options.file_plan(config.as_deref(), Some(path), role);
        let absolute = absolute(path);
        let renders = if let Some(dir) = helm::chart_of_template(&absolute) {
            let config = configs.for_file(&dir.join("Chart.yaml"));
            let chart = FoundChart {
                dir,
                named_templates: Vec::new(),
            };
            chart_jobs(options, config.as_deref(), chart)
        } else {
            match absolute.parent() {
                Some(dir) if role == FileRole::Patch && kustomize::is_overlay(dir) => {
                    let config = configs.for_file(&overlay_marker(dir));
                    vec![overlay_job(options, config.as_deref(), dir.to_owned())]
                }
                _ => Vec::new(),
            }
        };
        let marks = if renders.is_empty() {
            marked(options, configs, &absolute)
        } else {
            Vec::new()
        };
        EditorPlan {
            file: Some(file),
            renders,
            marks,
            config_error,
            config,
        }
    }

    /// Renders what the file belongs to and keeps the findings placed in it; `None` for a
    /// file linted as it is written. `text` is what the editor holds.
    pub fn rendered_findings(
        &self,
        options: &RunOptions,
        path: &Path,
        text: &str,
    ) -> Option<EditorRender> {
        findings_in(&self.renders, options, path, text)
    }

    /// Renders the chart or overlay the file stands for and keeps the findings placed in it;
    /// `None` for a file that stands for none.
    pub fn marked_findings(
        &self,
        options: &RunOptions,
        path: &Path,
        text: &str,
    ) -> Option<EditorRender> {
        findings_in(&self.marks, options, path, text)
    }
}

/// The charts and overlays the file at `path` (absolute) stands for: a chart's `Chart.yaml`, an
/// overlay's kustomization.
fn marked(options: &RunOptions, configs: &mut Configs, path: &Path) -> Vec<RenderJob> {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Vec::new();
    };
    if name == "Chart.yaml" && helm::is_chart(dir) {
        let config = configs.for_file(path);
        let chart = FoundChart {
            dir: dir.to_owned(),
            named_templates: Vec::new(),
        };
        return chart_jobs(options, config.as_deref(), chart);
    }
    if kustomize::KUSTOMIZATION_FILES.iter().any(|k| name == *k)
        && kustomize::is_overlay(dir)
        && overlay_marker(dir) == path
    {
        let config = configs.for_file(path);
        return vec![overlay_job(options, config.as_deref(), dir.to_owned())];
    }
    Vec::new()
}

/// Renders `jobs` and keeps the findings placed in the file at `path`, whose text in the
/// editor is `text`; `None` when there is nothing to render. A refusal of the renderer placed in
/// the file is its `render-error`, as `check` reports it; one placed elsewhere is said.
fn findings_in(
    jobs: &[RenderJob],
    options: &RunOptions,
    path: &Path,
    text: &str,
) -> Option<EditorRender> {
    let first = jobs.first()?;
    let path = absolute(path);
    let on_disk = crate::safe_fs::read_file(&path, crate::safe_fs::FileKind::Manifest)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok());
    if on_disk.as_deref() != Some(text) {
        let noun = match first.input.tool() {
            RenderTool::Helm => "chart",
            RenderTool::Kustomize => "overlay",
        };
        return Some(EditorRender::Unavailable(format!(
            "{} is judged through its {noun} as saved: save it to see its findings",
            path.display(),
        )));
    }
    let renderer = Renderer::new(options);
    let mut found: Vec<Diagnostic> = Vec::new();
    for job in jobs {
        let reports = match renderer.render_and_lint(job) {
            Ok(linted) => linted.reports,
            Err(not_rendered) => match refused_report(&not_rendered, job) {
                Some(report) if absolute(Path::new(&report.file.path)) == path => vec![report],
                _ => {
                    let sentence = unrendered(job, not_rendered).sentence();
                    return Some(EditorRender::Unavailable(sentence));
                }
            },
        };
        for report in reports {
            if absolute(Path::new(&report.file.path)) != path {
                continue;
            }
            for diagnostic in report.diagnostics {
                // A chart rendered once per `helm.charts` entry may find one thing twice.
                if !found.iter().any(|d| d.same_finding(&diagnostic)) {
                    found.push(diagnostic);
                }
            }
        }
    }
    crate::diagnostics::sort(&mut found);
    Some(EditorRender::Findings(found))
}

/// The charts and overlays a saved file belongs to without being one of their templates or
/// patches judged through them: a values file, `Chart.yaml`, a helper, a file under `files/`, a
/// base resource. Planned as `check` plans the file named alone (pre-commit's run), so that
/// the editor and the command line render the same owners.
pub(crate) fn owners_of_saved(
    options: &RunOptions,
    configs: &mut Configs,
    path: &Path,
) -> Vec<RenderJob> {
    super::plan::RunPlan::new(options, configs, &[path.to_owned()], None)
        .renders
        .into_iter()
        .filter(|job| !job.rendered_for.is_empty())
        .collect()
}

/// What rendering the owners of a saved file found, by file: every file a finding was placed
/// in (each report holds the file's text as read), and what could not be rendered.
pub(crate) fn owners_findings(
    options: &RunOptions,
    jobs: &[RenderJob],
) -> (Vec<crate::report::FileReport>, Vec<String>) {
    let renderer = Renderer::new(options);
    let mut reports = Vec::new();
    let mut unavailable = Vec::new();
    for job in jobs {
        match renderer.render_and_lint(job) {
            Ok(linted) => super::after_lint::merge(&mut reports, linted.reports, false),
            Err(not_rendered) => match refused_report(&not_rendered, job) {
                // Refused by its renderer: a finding in the file the refusal names.
                Some(report) => super::after_lint::merge(&mut reports, vec![report], false),
                None => unavailable.push(unrendered(job, not_rendered).sentence()),
            },
        }
    }
    (reports, unavailable)
}

fn absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    absolute.canonicalize().unwrap_or(absolute)
}
