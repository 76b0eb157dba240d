//! Rendering charts and overlays with the run's renderers, linting the output with the job's
//! plan, and moving each finding to the template, base or patch line that wrote it.

use std::sync::Arc;

use rayon::prelude::*;

use super::options::{CacheChoice, FilePlan, RunOptions};
use super::plan::{RenderJob, overlay_marker};
use crate::diagnostics::{Diagnostic, RenderTool};
use crate::lint::{FileRole, Visit, Within, lint_file};
use crate::model::ObjectRef;
use crate::render::cache::{Cache, CacheError, Key};
use crate::render::{self, NotRendered, Output, SourceMap, Tools};
use crate::report::{FileReport, Unrendered};
use crate::source::SourceFile;

/// The renderers of a run.
#[derive(Clone, Debug)]
pub(crate) struct Renderer {
    /// `None` with `--no-render`.
    tools: Option<Tools>,
    /// Why nothing is rendered, when `tools` is `None`.
    off: &'static str,
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
            .with_untrusted(rendering.untrusted)
        });
        // The editor in a workspace that is not trusted renders nothing.
        let off = if rendering.untrusted {
            "the workspace is not trusted"
        } else {
            "--no-render"
        };
        Renderer {
            tools,
            off,
            cache_refused,
        }
    }

    /// Whether rendering is off (`--no-render`).
    pub(crate) fn disabled(&self) -> bool {
        self.tools.is_none()
    }

    /// Renders one chart or overlay.
    pub(crate) fn render(&self, job: &RenderJob) -> Result<Output, NotRendered> {
        match &self.tools {
            Some(tools) => render::render(&job.input, tools),
            None => Err(NotRendered {
                tool: job.input.tool(),
                input: job.input.display(),
                reason: self.off.to_owned(),
                refusal: None,
            }),
        }
    }

    /// Why renderers run without full confinement, when they render at all (in untrusted mode
    /// they do not: each input is not rendered, with the reason).
    pub(crate) fn unconfined(&self) -> Option<String> {
        self.tools
            .as_ref()
            .filter(|tools| !tools.untrusted)
            .and_then(|_| render::sandbox::warning())
    }

    /// What to warn about before rendering: a confinement the system cannot give, a render
    /// cache that cannot be used.
    pub(crate) fn warnings(&self) -> Vec<String> {
        let sandbox = self.unconfined();
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

    /// Renders one job and lints its output. An overlay is built first as users deploy it,
    /// without Kustomize's build metadata ([`render::render_unplaced`]), which is cheaper;
    /// only when that output has findings is it built again with the metadata to place them
    /// ([`Renderer::lint_overlay`]).
    pub(crate) fn render_and_lint(&self, job: &RenderJob) -> Result<Linted, NotRendered> {
        let (output, overlay) = match self
            .tools
            .as_ref()
            .and_then(|tools| render::render_unplaced(&job.input, tools))
        {
            Some(unplaced) => (unplaced?, true),
            None => (self.render(job)?, false),
        };
        let (tool, input, warnings) = (output.tool, output.input.clone(), output.warnings.clone());
        let reports = if overlay {
            self.lint_overlay(output, job)
        } else {
            self.lint(output, job)
        };
        Ok(Linted {
            tool,
            input,
            warnings,
            reports,
        })
    }

    /// The findings of an overlay built without build metadata, placed through its build with
    /// metadata when that build finds the same; else placed at the overlay's kustomization,
    /// with a note that says why. What the lint found is kept in the render cache
    /// ([`Renderer::verdict_key`]), so a later run does not lint the same output again.
    fn lint_overlay(&self, unplaced: Output, job: &RenderJob) -> Vec<FileReport> {
        let verdict = self.verdict_key(&unplaced.file.text, job);
        let mut unplaced = RenderedOutput::new(unplaced);
        // The findings themselves when this run linted the output; only what they are when
        // the cache kept it.
        let (linted, found) = match verdict.as_ref().and_then(|(cache, key)| cache.noted(key)) {
            Some(found) => (None, found),
            None => {
                let linted = unplaced.lint_with(&job.plan, &mut |_, _| {});
                let found = identities(&linted);
                if let Some((cache, key)) = &verdict {
                    cache.note(key, &found);
                }
                (Some(linted), found)
            }
        };
        if found.is_empty() {
            return Vec::new();
        }
        let why = match self.render(job) {
            Ok(placed) => {
                let (reports, placed_found) = lint_rendered(placed, job, None);
                if placed_found == found {
                    return reports;
                }
                "with Kustomize's build metadata on, which says which file wrote each field, the overlay builds otherwise (a selector of its sees the metadata's annotations), so podcycle cannot place this in the file that wrote it".to_owned()
            }
            Err(not_rendered) => format!(
                "the overlay's build with Kustomize's build metadata, which says which file wrote each field, did not end ({}), so podcycle cannot place this in the file that wrote it",
                not_rendered.reason
            ),
        };
        let linted = linted.unwrap_or_else(|| unplaced.lint_with(&job.plan, &mut |_, _| {}));
        place_rendered(unplaced, linted, job, Some(why))
    }

    /// Lints rendered output ([`lint_rendered`]), unless the render cache keeps that this
    /// output, linted by this build of podcycle with the job's settings, found nothing.
    pub(crate) fn lint(&self, output: Output, job: &RenderJob) -> Vec<FileReport> {
        let verdict = self.verdict_key(&output.file.text, job);
        if let Some((cache, key)) = &verdict
            && cache.noted(key).is_some_and(|found| found.is_empty())
        {
            return Vec::new();
        }
        let (reports, found) = lint_rendered(output, job, None);
        if let Some((cache, key)) = &verdict {
            cache.note(key, &found);
        }
        reports
    }

    /// Where the render cache keeps what linting `text` with the job's settings found: a lint
    /// depends on the text, the settings (`Settings::fingerprint`) and podcycle's build (the
    /// executable's path, size, modification time, inode), and on nothing else. `None`
    /// without a cache, or when the executable cannot be read (replaced while running).
    fn verdict_key(&self, text: &str, job: &RenderJob) -> Option<(&Cache, Key)> {
        let cache = self.tools.as_ref()?.cache.as_ref()?;
        let build = std::env::current_exe().ok()?;
        std::fs::metadata(&build).ok()?;
        let key = cache
            .key("lint verdict")
            .field(text)
            .program(&build)
            .field(job.plan.settings.fingerprint())
            .finish();
        Some((cache, key))
    }
}

/// What a lint found, told apart from where: each finding's rule, severity, message, help,
/// object, container and field, one line each, sorted. Empty when it found nothing.
fn identities(found: &[Diagnostic]) -> String {
    let mut lines: Vec<String> = found
        .iter()
        .map(|d| {
            format!(
                "{:?}",
                (
                    d.rule,
                    d.severity,
                    &d.message,
                    &d.help,
                    &d.object,
                    &d.container,
                    &d.field
                )
            )
        })
        .collect();
    lines.sort();
    lines.join("\n")
}

/// A rendered chart or overlay and what linting it found.
pub(crate) struct Linted {
    pub(crate) tool: RenderTool,
    pub(crate) input: String,
    /// What the renderer warned about ([`Output::warnings`]).
    pub(crate) warnings: Vec<String>,
    pub(crate) reports: Vec<FileReport>,
}

/// The directory of the render cache asked for, and the repository's root: `None` when none is.
pub(crate) fn cache_dir(choice: &CacheChoice) -> Option<(std::path::PathBuf, std::path::PathBuf)> {
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
    pub(crate) file: SourceFile,
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
        lint_file(
            &self.file,
            &plan.settings,
            FileRole::Manifest,
            Within::Itself,
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

/// Lints rendered output and moves each finding to the file that wrote it
/// ([`place_rendered`]), with what the lint found before the named templates are chosen
/// ([`identities`]).
fn lint_rendered(
    output: Output,
    job: &RenderJob,
    note: Option<String>,
) -> (Vec<FileReport>, String) {
    let mut output = RenderedOutput::new(output);
    let found = output.lint_with(&job.plan, &mut |_, _| {});
    let identities = identities(&found);
    (place_rendered(output, found, job, note), identities)
}

/// Moves each finding of a lint of rendered output to the file that wrote it, with `note` when
/// given: one report per file, holding only the findings of the named templates when the job
/// names some.
fn place_rendered(
    mut output: RenderedOutput,
    found: Vec<Diagnostic>,
    job: &RenderJob,
    note: Option<String>,
) -> Vec<FileReport> {
    let named: Vec<String> = job
        .named_templates
        .iter()
        // As the source map names the files it places findings in.
        .map(|p| render::shown_path(p))
        .collect();
    let mut by_file: Vec<(Arc<SourceFile>, Vec<Diagnostic>)> = Vec::new();
    let rendering = job.rendering_note();
    for mut diagnostic in found {
        diagnostic.notes.extend(rendering.iter().cloned());
        diagnostic.notes.extend(note.iter().cloned());
        // A fix names places in the rendered output, not in the template, base or patch the
        // finding is reported in: --fix edits only files linted as they are.
        diagnostic.fixes.clear();
        if diagnostic.rule == crate::rules::DUPLICATE_KEY.name
            && job.input.tool() == crate::diagnostics::RenderTool::Helm
        {
            diagnostic.message = crate::rules::duplicate_key_for_helm(&diagnostic.message);
        }
        let (file, diagnostic) = output.place(diagnostic);
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
        .collect()
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
        named: job
            .named_templates
            .iter()
            .chain(&job.rendered_for)
            .map(|p| render::display(p))
            .collect(),
        fails: false,
    }
}
