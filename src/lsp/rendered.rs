//! Helm templates and Kustomize patches in the editor: the chart or overlay is rendered as
//! `podcycle check` renders it, and the findings that land in the open file are published,
//! through the same source map. Renderers read files from disk, so a file is judged as saved;
//! while it has unsaved changes, nothing is published for it.

use std::path::{Path, PathBuf};

use crate::diagnostics::Diagnostic;
use crate::discovery::roles::PatchIndex;
use crate::lint::{FileRole, lint_file_as};
use crate::render::{self, HelmOptions, Input, Tools, helm, kustomize};
use crate::settings::Settings;

/// What rendering gave for an open file.
pub enum Rendered {
    /// Not a Helm template nor a patch of an overlay: lint the text as it is.
    NotRendered,
    /// The findings of the rendered chart or overlay in this file.
    Findings(Vec<Diagnostic>),
    /// The chart or overlay could not be rendered (or the file has unsaved changes): why.
    Unavailable(String),
}

/// Renders what `path` belongs to, if anything.
pub fn rendered_findings(path: &Path, text: &str, settings: &Settings) -> Rendered {
    let Some(input) = input_for(path) else {
        return Rendered::NotRendered;
    };
    let on_disk = crate::safe_fs::read_file(path, crate::safe_fs::FileKind::Manifest)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok());
    if on_disk.as_deref() != Some(text) {
        return Rendered::Unavailable(format!(
            "{} is judged through its {} as saved: save it to see its findings",
            path.display(),
            input.noun()
        ));
    }
    let input = match input {
        Belongs::Chart(dir) => Input::Chart {
            dir,
            options: HelmOptions {
                kube_version: Some(settings.kube_version),
                ..HelmOptions::default()
            },
        },
        Belongs::Overlay(dir) => Input::Overlay { dir },
    };
    let tools = Tools::find(None, None, render::DEFAULT_TIMEOUT);
    let mut output = match render::render(&input, &tools) {
        Ok(output) => output,
        Err(not_rendered) => {
            return Rendered::Unavailable(format!(
                "{} {} not rendered: {}",
                match not_rendered.tool {
                    crate::diagnostics::RenderTool::Helm => "Helm chart",
                    crate::diagnostics::RenderTool::Kustomize => "Kustomize overlay",
                },
                not_rendered.input,
                render::printable(&not_rendered.reason)
            ));
        }
    };
    let rendered = std::mem::replace(&mut output.file, crate::source::SourceFile::new("", ""));
    let found = lint_file_as(&rendered, settings, FileRole::Manifest);
    let wanted = absolute(path);
    let mut kept = Vec::new();
    for diagnostic in found {
        let (file, diagnostic) = output.map.place(&rendered, diagnostic);
        if absolute(Path::new(&file.path)) == wanted {
            kept.push(diagnostic);
        }
    }
    crate::diagnostics::sort(&mut kept);
    Rendered::Findings(kept)
}

/// What `path` would be judged through, were rendering on: `"chart"`, `"overlay"`, or `None`
/// for a file linted as it is.
pub fn rendered_through(path: &Path) -> Option<&'static str> {
    input_for(path).map(|input| input.noun())
}

enum Belongs {
    Chart(PathBuf),
    Overlay(PathBuf),
}

impl Belongs {
    fn noun(&self) -> &'static str {
        match self {
            Belongs::Chart(_) => "chart",
            Belongs::Overlay(_) => "overlay",
        }
    }
}

/// The chart a template belongs to, or the overlay in the same directory that patches with it.
fn input_for(path: &Path) -> Option<Belongs> {
    let path = absolute(path);
    if let Some(chart) = helm::chart_of_template(&path) {
        return Some(Belongs::Chart(chart));
    }
    let dir = path.parent()?;
    if PatchIndex::default().is_patch(&path) && kustomize::is_overlay(dir) {
        return Some(Belongs::Overlay(dir.to_owned()));
    }
    None
}

fn absolute(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    absolute.canonicalize().unwrap_or(absolute)
}
