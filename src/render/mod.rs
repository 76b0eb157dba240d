//! Rendering what users deploy — Helm charts and Kustomize overlays — with the real tools, and
//! the source maps that move each finding in the rendered output back to the template, base
//! or patch line that wrote it.
//!
//! Rendering is safe on untrusted input (see [`process`]): no network, no plugins, no
//! post-renderers, a time limit; remote Kustomize resources and Helm dependencies that are not
//! vendored are reported as not rendered, never fetched.

pub mod files;
pub mod helm;
pub mod kustomize;
pub mod process;
pub mod rendered;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::diagnostics::{Diagnostic, RenderTool};
use crate::source::SourceFile;

pub use helm::HelmOptions;

/// How long a renderer may run by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The renderers available, and their limits.
#[derive(Clone, Debug)]
pub struct Tools {
    /// `helm`, or why it cannot be used.
    pub helm: Result<PathBuf, String>,
    /// `kustomize build` (or `kubectl kustomize`), or why neither can be used.
    pub kustomize: Result<KustomizeTool, String>,
    pub timeout: Duration,
}

#[derive(Clone, Debug)]
pub enum KustomizeTool {
    /// `kustomize build DIR`.
    Kustomize(PathBuf),
    /// `kubectl kustomize DIR`.
    Kubectl(PathBuf),
}

impl Tools {
    /// Finds the tools: the paths given, else `helm` and `kustomize` (or `kubectl`) on `PATH`.
    pub fn find(helm: Option<&Path>, kustomize: Option<&Path>, timeout: Duration) -> Tools {
        let helm = match helm {
            Some(path) => process::find_executable(path)
                .ok_or_else(|| format!("{} is not an executable (--helm)", path.display())),
            None => process::find_executable(Path::new("helm"))
                .ok_or_else(|| "helm not found — install it or pass --helm".to_owned()),
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
                .ok_or_else(|| format!("{} is not an executable (--kustomize)", path.display())),
            None => process::find_executable(Path::new("kustomize"))
                .map(KustomizeTool::Kustomize)
                .or_else(|| {
                    process::find_executable(Path::new("kubectl")).map(KustomizeTool::Kubectl)
                })
                .ok_or_else(|| {
                    "kustomize not found — install kustomize (or kubectl) or pass --kustomize"
                        .to_owned()
                }),
        };
        Tools {
            helm,
            kustomize,
            timeout,
        }
    }
}

/// Something to render.
#[derive(Clone, Debug)]
pub enum Input {
    Chart { dir: PathBuf, options: HelmOptions },
    Overlay { dir: PathBuf },
}

impl Input {
    pub fn tool(&self) -> RenderTool {
        match self {
            Input::Chart { .. } => RenderTool::Helm,
            Input::Overlay { .. } => RenderTool::Kustomize,
        }
    }

    pub fn dir(&self) -> &Path {
        match self {
            Input::Chart { dir, .. } | Input::Overlay { dir } => dir,
        }
    }

    /// The directory as users wrote it.
    pub fn display(&self) -> String {
        display(self.dir())
    }
}

/// An input that was not rendered, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotRendered {
    pub tool: RenderTool,
    pub input: String,
    pub reason: String,
}

/// Rendered output and its source map.
#[derive(Debug)]
pub struct Output {
    pub tool: RenderTool,
    pub input: String,
    /// The rendered stream, named after its input.
    pub file: SourceFile,
    pub map: SourceMap,
}

#[derive(Debug)]
pub enum SourceMap {
    Helm(Box<helm::HelmMap>),
    Kustomize(Box<kustomize::KustomizeMap>),
}

impl SourceMap {
    /// Moves a finding in the rendered output to the file, line and column that wrote it.
    pub fn place(
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

/// Renders one input.
pub fn render(input: &Input, tools: &Tools) -> Result<Output, NotRendered> {
    let not_rendered = |reason: String| NotRendered {
        tool: input.tool(),
        input: input.display(),
        reason,
    };
    match input {
        Input::Chart { dir, options } => {
            let chart = helm::read_chart(dir).map_err(not_rendered)?;
            let missing = helm::missing_dependencies(&chart);
            if !missing.is_empty() {
                return Err(not_rendered(format!(
                    "{} not vendored under charts/ — run `helm dependency build`; podcycle never downloads charts",
                    list("dependency", "dependencies", &missing)
                )));
            }
            let helm_path = tools.helm.as_ref().map_err(|e| not_rendered(e.clone()))?;
            let text =
                helm::render(helm_path, &chart, options, tools.timeout).map_err(not_rendered)?;
            let file = SourceFile::new(format!("{} (rendered)", input.display()), text);
            let mut values: Vec<PathBuf> = Vec::new();
            values.extend(options.values.iter().cloned());
            let map = helm::HelmMap::new(&chart, input.display(), &values, &file);
            Ok(Output {
                tool: RenderTool::Helm,
                input: input.display(),
                file,
                map: SourceMap::Helm(Box::new(map)),
            })
        }
        Input::Overlay { dir } => {
            let tool = tools
                .kustomize
                .as_ref()
                .map_err(|e| not_rendered(e.clone()))?;
            let (text, map) = kustomize::render(tool, dir, input.display(), tools.timeout)
                .map_err(not_rendered)?;
            Ok(Output {
                tool: RenderTool::Kustomize,
                input: input.display(),
                file: SourceFile::new(format!("{} (rendered)", input.display()), text),
                map: SourceMap::Kustomize(Box::new(map)),
            })
        }
    }
}

fn list(one: &str, many: &str, names: &[String]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let word = if names.len() == 1 { one } else { many };
    format!("{word} {}", quoted.join(", "))
}

/// A path the way users wrote it: without a leading `./`.
pub fn display(path: &Path) -> String {
    let shown = path.display().to_string();
    let shown = shown.strip_prefix("./").map(str::to_owned).unwrap_or(shown);
    if shown.is_empty() {
        ".".to_owned()
    } else {
        shown
    }
}

/// Text from a renderer or a file, safe to print: control characters and bidirectional
/// controls written as visible escapes, as every human output does ([`crate::escape`]).
pub fn printable(text: &str) -> String {
    crate::escape::escape_controls(text).into_owned()
}
