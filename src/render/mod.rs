//! Rendering what users deploy — Helm charts and Kustomize overlays — with the real tools, and
//! the source maps that move each finding in the rendered output back to the template, base
//! or patch line that wrote it.
//!
//! A chart or overlay from a pull request is a program that runs on the CI machine, so
//! rendering is a trust boundary (docs/security.md): Helm renders a private copy of the chart
//! with every link resolved by podcycle (`helm::stage`, `boundary`); what Kustomize would
//! fetch, run or read outside the repository is refused before it runs ([`kustomize`]); both
//! run sealed, without network where the system allows ([`sandbox`]), within limits of time,
//! memory and output ([`process`]) and the run's `budget`. A renderer's refusal of the input
//! is a finding ([`failure`]); remote resources, Helm dependencies that are not vendored and the
//! limits are reported as not rendered, never fetched or waited for.

pub(crate) mod boundary;
pub(crate) mod budget;
pub(crate) mod cache;
pub mod failure;
pub(crate) mod files;
pub(crate) mod helm;
pub mod kustomize;
#[cfg(feature = "testing")]
pub mod map_fuzzing;
pub mod process;
pub(crate) mod rendered;
pub mod sandbox;
pub mod stage;
pub(crate) mod staged;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::diagnostics::{Diagnostic, RenderTool};
use crate::source::SourceFile;

pub use budget::Budget;
pub(crate) use failure::{Refusal, Verdict};
pub(crate) use helm::HelmOptions;
pub(crate) use process::Limits;

/// How long a renderer may run by default.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The renderers available, and their limits.
#[derive(Clone, Debug)]
pub(crate) struct Tools {
    /// `helm`, or why it cannot be used.
    pub(crate) helm: Result<PathBuf, ToolMissing>,
    /// `kustomize build` (or `kubectl kustomize`), or why neither can be used.
    pub(crate) kustomize: Result<KustomizeTool, ToolMissing>,
    /// What each renderer may use.
    pub(crate) limits: Limits,
    /// What the whole run may spend.
    pub(crate) budget: Budget,
    /// Where renders are kept between runs; `None` with `--no-cache`.
    pub(crate) cache: Option<cache::Cache>,
    /// The run renders what it must not trust (`check --isolated`, `explain --isolated`,
    /// `lsp --isolated`, the editor in an untrusted workspace): Kustomize plugins other than
    /// plain built-ins are refused, and a render that cannot be confined does not run.
    pub(crate) untrusted: bool,
    /// Which files each repository's renderers may be given, listed once per run.
    pub(crate) listings: Arc<stage::Listings>,
}

/// Why a renderer cannot be used.
#[derive(Clone, Debug, thiserror::Error)]
pub(crate) enum ToolMissing {
    /// The path given with `flag` is not an executable.
    #[error("{} is not an executable ({flag})", path.display())]
    NotExecutable { path: PathBuf, flag: &'static str },
    #[error("helm not found — install it or pass --helm")]
    NoHelm,
    #[error("kustomize not found — install kustomize (or kubectl) or pass --kustomize")]
    NoKustomize,
}

#[derive(Clone, Debug)]
pub(crate) enum KustomizeTool {
    /// `kustomize build DIR`.
    Kustomize(PathBuf),
    /// `kubectl kustomize DIR`.
    Kubectl(PathBuf),
}

impl KustomizeTool {
    /// The command it builds an overlay with, as the notes name it.
    pub(crate) fn command(&self) -> &'static str {
        match self {
            KustomizeTool::Kustomize(_) => "kustomize build",
            KustomizeTool::Kubectl(_) => "kubectl kustomize",
        }
    }
}

impl Tools {
    /// Finds the tools: the paths given, else `helm` and `kustomize` (or `kubectl`) on `PATH`.
    pub(crate) fn find(helm: Option<&Path>, kustomize: Option<&Path>, timeout: Duration) -> Tools {
        let not_executable = |path: &Path, flag| ToolMissing::NotExecutable {
            path: path.to_owned(),
            flag,
        };
        let helm = match helm {
            Some(path) => {
                process::find_executable(path).ok_or_else(|| not_executable(path, "--helm"))
            }
            None => process::find_executable(Path::new("helm")).ok_or(ToolMissing::NoHelm),
        };
        let kustomize = match kustomize {
            Some(path) => process::find_executable(path)
                .map(|path| {
                    if path.file_stem().is_some_and(|n| n == "kubectl") {
                        KustomizeTool::Kubectl(path)
                    } else {
                        KustomizeTool::Kustomize(path)
                    }
                })
                .ok_or_else(|| not_executable(path, "--kustomize")),
            None => process::find_executable(Path::new("kustomize"))
                .map(KustomizeTool::Kustomize)
                .or_else(|| {
                    process::find_executable(Path::new("kubectl")).map(KustomizeTool::Kubectl)
                })
                .ok_or(ToolMissing::NoKustomize),
        };
        Tools {
            helm,
            kustomize,
            limits: Limits::new(timeout),
            budget: Budget::unlimited(),
            cache: None,
            untrusted: false,
            listings: Arc::default(),
        }
    }

    /// The same tools, for a run that must not trust what it renders ([`Tools::untrusted`]).
    pub(crate) fn with_untrusted(mut self, untrusted: bool) -> Tools {
        self.untrusted = untrusted;
        self
    }

    /// The same tools, keeping renders in `cache`.
    pub(crate) fn with_cache(mut self, cache: Option<cache::Cache>) -> Tools {
        self.cache = cache;
        self
    }

    /// The same tools, with the run's render budget.
    pub(crate) fn with_budget(mut self, budget: Budget) -> Tools {
        self.budget = budget;
        self
    }

    /// The same tools, with a renderer's memory limit in bytes.
    pub(crate) fn with_memory(mut self, bytes: u64) -> Tools {
        self.limits.memory = bytes;
        self
    }
}

/// Something to render.
#[derive(Clone, Debug)]
pub(crate) enum Input {
    Chart {
        dir: PathBuf,
        options: HelmOptions,
    },
    Overlay {
        dir: PathBuf,
        restrictor: kustomize::LoadRestrictor,
    },
}

impl Input {
    pub(crate) fn tool(&self) -> RenderTool {
        match self {
            Input::Chart { .. } => RenderTool::Helm,
            Input::Overlay { .. } => RenderTool::Kustomize,
        }
    }

    pub(crate) fn dir(&self) -> &Path {
        match self {
            Input::Chart { dir, .. } | Input::Overlay { dir, .. } => dir,
        }
    }

    /// The directory as users wrote it.
    pub(crate) fn display(&self) -> String {
        display(self.dir())
    }
}

/// An input that was not rendered, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NotRendered {
    pub(crate) tool: RenderTool,
    pub(crate) input: String,
    pub(crate) reason: String,
    /// Set when the renderer refused the input itself: the finding to report instead of a
    /// note ([`failure::diagnostic`]).
    pub(crate) refusal: Option<Box<Refusal>>,
}

impl NotRendered {
    fn from_verdict(input: &Input, verdict: Verdict) -> NotRendered {
        let (reason, refusal) = match verdict {
            Verdict::NotRendered(reason) => (reason, None),
            Verdict::Refused(refusal) => (refusal.sentence(), Some(refusal)),
        };
        NotRendered {
            tool: input.tool(),
            input: input.display(),
            reason,
            refusal,
        }
    }
}

/// Rendered output and its source map.
#[derive(Debug)]
pub(crate) struct Output {
    pub(crate) tool: RenderTool,
    pub(crate) input: String,
    /// The rendered stream, named after its input.
    pub(crate) file: SourceFile,
    pub(crate) map: SourceMap,
    /// What the renderer warned about on standard error, one line each, its temporary paths
    /// replaced by the user's.
    pub(crate) warnings: Vec<String>,
}

#[derive(Debug)]
pub(crate) enum SourceMap {
    Helm(Box<helm::HelmMap>),
    Kustomize(Box<kustomize::KustomizeMap>),
}

impl SourceMap {
    /// Moves a finding in the rendered output to the file, line and column that wrote it.
    pub(crate) fn place(
        &mut self,
        rendered: &SourceFile,
        diagnostic: Diagnostic,
    ) -> (Arc<SourceFile>, Diagnostic) {
        match self {
            SourceMap::Helm(map) => map.place(rendered, diagnostic),
            SourceMap::Kustomize(map) => map.place(rendered, diagnostic),
        }
    }
}

/// Renders one input, with what placing its findings in the files that wrote them needs.
pub(crate) fn render(input: &Input, tools: &Tools) -> Result<Output, NotRendered> {
    render_with(input, tools, kustomize::BuildMetadata::On)
}

/// Renders an input as users deploy it, without what placing its findings needs: an overlay
/// without Kustomize's build metadata, cheaper to build, whose source map places findings only
/// at the overlay's kustomization; `None` for a chart, which costs nothing more to place (render
/// it with [`render`]). Everything else is as [`render`] does: the screens, the limits, the
/// cache, and a refusal judged alike.
pub(crate) fn render_unplaced(input: &Input, tools: &Tools) -> Option<Result<Output, NotRendered>> {
    matches!(input, Input::Overlay { .. })
        .then(|| render_with(input, tools, kustomize::BuildMetadata::Off))
}

/// Renders one input; an overlay with Kustomize's build metadata as `metadata` says.
fn render_with(
    input: &Input,
    tools: &Tools,
    metadata: kustomize::BuildMetadata,
) -> Result<Output, NotRendered> {
    let not_rendered =
        |reason: String| NotRendered::from_verdict(input, Verdict::NotRendered(reason));
    if tools.budget.is_spent() {
        return Err(not_rendered(tools.budget.spent_reason()));
    }
    // Fail closed: in untrusted mode a renderer runs only where the kernel holds it to the
    // stage and keeps it off the network.
    if tools.untrusted
        && let Some(shortfall) = sandbox::confinement().shortfall()
    {
        return Err(not_rendered(format!(
            "untrusted mode renders only where renderers can be confined, and here {shortfall}"
        )));
    }
    match input {
        Input::Chart { dir, options } => {
            let chart = helm::read_chart(dir).map_err(|e| not_rendered(e.to_string()))?;
            let missing = helm::missing_dependencies(&chart);
            if !missing.is_empty() {
                return Err(not_rendered(unvendored(&missing)));
            }
            let helm_path = tools
                .helm
                .as_ref()
                .map_err(|e| not_rendered(e.to_string()))?;
            let output = helm::render(helm_path, &chart, &input.display(), options, tools)
                .map_err(|verdict| NotRendered::from_verdict(input, verdict))?;
            let file = SourceFile::new(format!("{} (rendered)", input.display()), output.text);
            let warnings = output.warnings;
            let map = helm::HelmMap::new(&chart, input.display(), output.staged, &file);
            Ok(Output {
                tool: RenderTool::Helm,
                input: input.display(),
                file,
                map: SourceMap::Helm(Box::new(map)),
                warnings,
            })
        }
        Input::Overlay { dir, restrictor } => {
            let tool = tools
                .kustomize
                .as_ref()
                .map_err(|e| not_rendered(e.to_string()))?;
            let built = kustomize::render(tool, dir, *restrictor, metadata, input.display(), tools)
                .map_err(|verdict| NotRendered::from_verdict(input, verdict))?;
            Ok(Output {
                tool: RenderTool::Kustomize,
                input: input.display(),
                file: SourceFile::new(format!("{} (rendered)", input.display()), built.text),
                map: SourceMap::Kustomize(Box::new(built.map)),
                warnings: built.warnings,
            })
        }
    }
}

/// Why a chart whose dependencies are neither vendored nor in the repository is not rendered.
pub(crate) fn unvendored(missing: &[String]) -> String {
    format!(
        "{} not vendored under charts/ — run `helm dependency build`; podcycle never downloads charts",
        list("dependency", "dependencies", missing)
    )
}

fn list(one: &str, many: &str, names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let word = if names.len() == 1 { one } else { many };
    format!("{word} {}", quoted.join(", "))
}

/// A path the way users wrote it: without a leading `./`.
pub(crate) fn display(path: &Path) -> String {
    let shown = path.display().to_string();
    let shown = shown.strip_prefix("./").map(str::to_owned).unwrap_or(shown);
    if shown.is_empty() {
        ".".to_owned()
    } else {
        shown
    }
}

/// A path as users name it: relative to the current directory when under it, without `./`.
pub(crate) fn shown_path(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            let canonical = cwd.canonicalize().unwrap_or_else(|_| cwd.clone());
            path.strip_prefix(&cwd)
                .or_else(|_| path.strip_prefix(&canonical))
                .ok()
                .map(Path::to_owned)
        })
        .unwrap_or_else(|| path.to_owned());
    display(&relative)
}

/// `text` with each temporary path replaced by the user's name for it (longest first, as
/// given): renderer messages name the copies, findings and notes name what users wrote.
pub fn clean_paths(text: &str, names: &[(String, String)]) -> String {
    let mut text = text.to_owned();
    for (temporary, shown) in names {
        if !temporary.is_empty() {
            text = text.replace(temporary.as_str(), shown);
        }
    }
    text
}

/// Text from a renderer or a file, safe to print: control characters and bidirectional
/// controls written as visible escapes, as every human output does ([`crate::escape`]).
pub(crate) fn printable(text: &str) -> String {
    crate::escape::escape_controls(text).into_owned()
}
