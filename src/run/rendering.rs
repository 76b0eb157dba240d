//! Rendering charts and overlays with the run's renderers, linting the output with the job's
//! plan, and moving each finding to the template, base or patch line that wrote it.

use std::sync::Arc;

use rayon::prelude::*;

use super::options::{CacheChoice, FilePlan, RunOptions};
use super::plan::{RenderJob, overlay_marker};
use crate::diagnostics::{Diagnostic, RenderTool};
use crate::lint::{FileRole, Visit, lint_file_with};
use crate::model::ObjectRef;
use crate::render::cache::{Cache, CacheError, Key};
use crate::render::{self, NotRendered, Output, SourceMap, Tools, Unplaced};
use crate::report::{FileReport, Unrendered};
use crate::source::SourceFile;

/// The renderers of a run.
#[derive(Clone, Debug)]
pub(crate) struct Renderer {
    /// `None` with `--no-render`.
    tools: Option<Tools>,
    /// Why the render cache asked for is not used.
    cache_refused: Option<Arc<CacheError>>,
}

impl Renderer {
    pub(crate) fn new(options: &RunOptions) -> Renderer {
        let rendering = &options.rendering;
        let mut cache_refused = None;
        let tools = (!rendering.disabled).then(|| {
            let cache = open_cache(&rendering.cache)
                .map_err(|why| cache_refused = Some(Arc::new(why)))
                .ok()
                .flatten();
            Tools::find(
                rendering.helm.as_deref(),
                rendering.kustomize.as_deref(),
                rendering.timeout.max(std::time::Duration::from_secs(1)),
            )
            .with_memory(rendering.memory)
            .with_budget(render::Budget::new(rendering.budget))
            .with_cache(cache)
        });
        Renderer {
            tools,
            cache_refused,
        }
    }

    /// Renders one chart or overlay.
    pub(crate) fn render(&self, job: &RenderJob) -> Result<Output, NotRendered> {
        match &self.tools {
            Some(tools) => render::render(&job.input, tools),
            None => Err(NotRendered {
                tool: job.input.tool(),
                input: job.input.display(),
                reason: "--no-render".to_owned(),
                refusal: None,
            }),
        }
    }

    /// What to warn about before rendering: a sandbox the system refused, a render cache that
    /// cannot be used.
    pub fn warnings(&self) -> Vec<String> {
        let sandbox = self.tools.as_ref().and_then(|_| render::sandbox::warning());
        let cache = self
            .cache_refused
            .as_ref()
            .map(|why| format!("renders are not cached: {why}"));
        sandbox.into_iter().chain(cache).collect()
    }

    /// Renders every job and lints its output, on every core; the outcomes in the order of
    /// the jobs.
    pub(crate) fn render_and_lint_all(
        &self,
        jobs: &[RenderJob],
    ) -> Vec<Result<Linted, NotRendered>> {
        jobs.par_iter()
            .map(|job| self.render_and_lint(job))
            .collect()
    }

    /// Renders one job and lints its output. An overlay is first built as cheaply as its
    /// findings can be known ([`render::render_unplaced`]: without Kustomize's build
    /// metadata, which no rule reads); only when that output has findings is it built again to
    /// place them.
    fn render_and_lint(&self, job: &RenderJob) -> Result<Linted, NotRendered> {
        if let Some(tools) = &self.tools
            && let Some(unplaced) = render::render_unplaced(&job.input, tools)
        {
            let unplaced = unplaced?;
            if !self.finds_something(&unplaced, job) {
                return Ok(Linted {
                    tool: job.input.tool(),
                    input: job.input.display(),
                    warnings: unplaced.warnings,
                    reports: Vec::new(),
                });
            }
        }
        let output = self.render(job)?;
        Ok(Linted {
            tool: output.tool,
            input: output.input.clone(),
            warnings: output.warnings.clone(),
            reports: self.lint(output, job),
        })
    }

    /// Whether linting unplaced output with the job's settings finds anything, as kept in the
    /// render cache when this build linted the same render with the same settings before.
    fn finds_something(&self, unplaced: &Unplaced, job: &RenderJob) -> bool {
        let marks = self.marks(unplaced.key, job);
        if let Some((cache, marks)) = &marks {
            if cache.is_marked(&marks.clean) {
                return false;
            }
            if cache.is_marked(&marks.found) {
                return true;
            }
        }
        let found = !lint_file_with(
            &unplaced.file,
            &job.plan.settings,
            FileRole::Manifest,
            &mut |_| {},
        )
        .diagnostics
        .is_empty();
        if let Some((cache, marks)) = &marks {
            cache.mark(if found { &marks.found } else { &marks.clean });
        }
        found
    }

    /// Lints rendered output ([`lint_rendered`]), unless the render cache holds that this
    /// render, linted by this build of podcycle with the job's settings, found nothing: a lint
    /// depends on nothing else, so it would find nothing again. A lint that finds nothing is
    /// kept so.
    pub(crate) fn lint(&self, output: Output, job: &RenderJob) -> Vec<FileReport> {
        let Some((cache, marks)) = self.marks(output.key, job) else {
            return lint_rendered(output, job).0;
        };
        if cache.is_marked(&marks.clean) {
            return Vec::new();
        }
        let (reports, found) = lint_rendered(output, job);
        if found == 0 {
            cache.mark(&marks.clean);
        }
        reports
    }

    /// Where the render cache keeps what linting the render of `key` with the job's settings
    /// found: a lint depends on the rendered text (which the render's key stands for), the
    /// settings (`Settings::fingerprint`) and podcycle's build (the executable's path, size,
    /// modification time). `None` without a cache, or when the executable is unknown.
    fn marks(&self, key: Option<Key>, job: &RenderJob) -> Option<(&Cache, LintMarks)> {
        let cache = self.tools.as_ref()?.cache.as_ref()?;
        let render = key?;
        let build = std::env::current_exe().ok()?;
        let fingerprint = job.plan.settings.fingerprint();
        let mark = |verdict: &str| {
            cache
                .key(verdict)
                .key(&render)
                .program(&build)
                .field(&fingerprint)
                .finish()
        };
        Some((
            cache,
            LintMarks {
                clean: mark("lint found nothing"),
                found: mark("lint found something"),
            },
        ))
    }
}

/// The keys of what a render's lint found.
struct LintMarks {
    clean: Key,
    found: Key,
}

/// A rendered chart or overlay and what linting it found.
pub(crate) struct Linted {
    pub tool: RenderTool,
    pub input: String,
    /// What the renderer warned about ([`Output::warnings`]).
    pub warnings: Vec<String>,
    pub reports: Vec<FileReport>,
}

/// The directory of the render cache asked for, and the repository's root: `None` when none is.
pub fn cache_dir(choice: &CacheChoice) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
    let cwd = std::env::current_dir().ok()?;
    let cwd = cwd.canonicalize().unwrap_or(cwd);
    let root = render::boundary::Boundary::of(&cwd).root().to_owned();
    let dir = match choice {
        CacheChoice::Off => return None,
        CacheChoice::AtRoot => root.join(render::cache::DEFAULT_DIR),
        CacheChoice::Dir(dir) => cwd.join(dir),
    };
    Some((dir, root))
}

/// Opens the render cache asked for: `Ok(None)` when none is.
fn open_cache(choice: &CacheChoice) -> Result<Option<render::cache::Cache>, CacheError> {
    match cache_dir(choice) {
        Some((dir, root)) => render::cache::Cache::open(&dir, Some(&root)).map(Some),
        None => Ok(None),
    }
}

/// Rendered output, ready to be linted and its findings placed.
pub(crate) struct RenderedOutput {
    /// The rendered stream.
    pub file: SourceFile,
    map: SourceMap,
}

impl RenderedOutput {
    pub(crate) fn new(mut output: Output) -> RenderedOutput {
        RenderedOutput {
            file: std::mem::replace(&mut output.file, SourceFile::new("", "")),
            map: output.map,
        }
    }

    /// Lints the rendered stream with `plan`, showing `visit` each object and document end,
    /// with a [`Placer`] that moves findings and places of the stream to the files that wrote
    /// them.
    pub(crate) fn lint_with(
        &mut self,
        plan: &FilePlan,
        visit: &mut dyn FnMut(Visit<'_, '_>, &mut Placer<'_>),
    ) -> Vec<Diagnostic> {
        let mut placer = Placer {
            rendered: &self.file,
            map: &mut self.map,
        };
        lint_file_with(
            &self.file,
            &plan.settings,
            FileRole::Manifest,
            &mut |seen| visit(seen, &mut placer),
        )
        .diagnostics
    }

    /// Moves a finding in the stream to the file that wrote it.
    pub(crate) fn place(&mut self, diagnostic: Diagnostic) -> (Arc<SourceFile>, Diagnostic) {
        self.map.place(&self.file, diagnostic)
    }
}

/// Moves findings in rendered output to the files that wrote them.
pub(crate) struct Placer<'r> {
    rendered: &'r SourceFile,
    map: &'r mut SourceMap,
}

impl Placer<'_> {
    pub(crate) fn place(&mut self, diagnostic: Diagnostic) -> (Arc<SourceFile>, Diagnostic) {
        self.map.place(self.rendered, diagnostic)
    }
}

/// Lints rendered output and moves each finding to the file that wrote it: one report per
/// file, holding only the findings of the named templates when the job names some; with how
/// many findings the lint made before that choice.
fn lint_rendered(output: Output, job: &RenderJob) -> (Vec<FileReport>, usize) {
    let mut output = RenderedOutput::new(output);
    let found = output.lint_with(&job.plan, &mut |_, _| {});
    let count = found.len();
    let named: Vec<String> = job
        .named_templates
        .iter()
        .map(|p| render::display(p))
        .collect();
    let mut by_file: Vec<(Arc<SourceFile>, Vec<Diagnostic>)> = Vec::new();
    let rendering = job.rendering_note();
    for mut diagnostic in found {
        diagnostic.notes.extend(rendering.iter().cloned());
        // A fix names places in the rendered output, not in the template, base or patch the
        // finding is reported in: --fix edits only files linted as they are.
        diagnostic.fixes.clear();
        let (file, diagnostic) = output.place(diagnostic);
        if !named.is_empty() && !named.contains(&file.path) {
            continue;
        }
        match by_file.iter_mut().find(|(f, _)| f.path == file.path) {
            Some((_, diagnostics)) => diagnostics.push(diagnostic),
            None => by_file.push((file, vec![diagnostic])),
        }
    }
    let reports = by_file
        .into_iter()
        .map(|(file, diagnostics)| {
            let mut objects: Vec<ObjectRef> = Vec::new();
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
        .collect();
    (reports, count)
}

/// The `render-error` finding for an input its renderer refused, when the rule is on for the
/// job (else the refusal is a note, like any input not rendered).
pub(crate) fn refused_report(not_rendered: &NotRendered, job: &RenderJob) -> Option<FileReport> {
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

/// What the run's notes say of a job that was not rendered: the reason, printable, and the
/// file that stands for the chart or overlay in annotations.
pub(crate) fn unrendered(job: &RenderJob, not_rendered: NotRendered) -> Unrendered {
    let file = match not_rendered.tool {
        RenderTool::Helm => job.input.dir().join("Chart.yaml"),
        RenderTool::Kustomize => overlay_marker(job.input.dir()),
    };
    Unrendered {
        tool: not_rendered.tool,
        input: not_rendered.input,
        reason: render::printable(&not_rendered.reason),
        file: render::display(&file),
    }
}
