//! Kustomize overlays: which kustomizations to build, refusing what would reach the network,
//! running `kustomize build`, and the source map back to base and patch lines.

mod map;
mod plan;
pub mod refusal;
mod screen;
mod tree;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub use map::KustomizeMap;
pub use plan::{Plan, plan_builds};
pub use tree::{
    Kustomization, Load, PatchSource, PluginConfigs, loads, plugin_configs, read_kustomization,
};

use super::KustomizeTool;
use super::boundary::Boundary;
use super::budget::Budget;
use super::failure::Verdict;
use super::files::is_file;
use super::process::{Limits, Outcome, run};

pub use super::files::KUSTOMIZATION_FILES;

/// The kustomization file of a directory.
pub fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| is_file(path))
}

pub fn has_kustomization(dir: &Path) -> bool {
    kustomization_file(dir).is_some()
}

/// A component (`kind: Component`) is built only as part of an overlay.
pub fn is_component(dir: &Path) -> bool {
    read_kustomization(dir).is_ok_and(|k| k.component)
}

/// Whether a kustomization is built on its own: it patches, uses components, or overlays
/// another kustomization. One that only lists files is a base: its files are linted as they are.
pub fn is_overlay(dir: &Path) -> bool {
    read_kustomization(dir).is_ok_and(|k| !k.component && (k.transforms() || !k.bases.is_empty()))
}

/// A built overlay: its output, the source map, and what Kustomize warned about.
pub struct Built {
    pub text: String,
    pub map: KustomizeMap,
    pub warnings: Vec<String>,
}

/// Builds an overlay, with Kustomize's build metadata on, through a kustomization of our own
/// in a temporary directory that refers to the overlay; the overlay's files are not touched.
/// Nothing is run when the screen ([`screen::screen`]) finds a reason not to.
pub fn render(
    tool: &KustomizeTool,
    dir: &Path,
    input: String,
    limits: &Limits,
    budget: &Budget,
) -> Result<Built, Verdict> {
    let overlay = std::path::absolute(dir).map_err(|e| Verdict::NotRendered(e.to_string()))?;
    let tree = tree::Tree::read(&overlay).map_err(Verdict::NotRendered)?;
    screen::screen(&tree, &Boundary::of(&overlay)).map_err(Verdict::NotRendered)?;
    let wrapper = tempfile::Builder::new()
        .prefix("podcycle-kustomize-")
        .tempdir()
        .map_err(|e| Verdict::NotRendered(format!("cannot create a temporary directory: {e}")))?;
    let wrapper_dir =
        std::path::absolute(wrapper.path()).map_err(|e| Verdict::NotRendered(e.to_string()))?;
    let relative = relative_path(&wrapper_dir, &overlay);
    let kustomization = format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\nbuildMetadata: [originAnnotations, transformerAnnotations]\n",
        serde_json::to_string(&relative.to_string_lossy()).unwrap_or_default()
    );
    std::fs::write(wrapper_dir.join("kustomization.yaml"), kustomization).map_err(|e| {
        Verdict::NotRendered(format!("cannot write a temporary kustomization: {e}"))
    })?;
    let (program, command) = match tool {
        KustomizeTool::Kustomize(path) => (path, "build"),
        KustomizeTool::Kubectl(path) => (path, "kustomize"),
    };
    let outcome = run(
        program,
        &[OsStr::new(command), wrapper_dir.as_os_str()],
        &wrapper_dir,
        limits,
        budget,
    );
    let clean = |text: &str| clean_paths(text, &wrapper_dir);
    match outcome {
        Outcome::Output { text, warnings } => {
            let map = KustomizeMap::new(input, &wrapper_dir, &text, tree);
            Ok(Built {
                text,
                map,
                warnings: warnings.iter().map(|w| clean(w)).collect(),
            })
        }
        Outcome::Failed(failed) => Err(refusal::judge(&failed, &tree.kustomizations, &clean)),
    }
}

/// A message of Kustomize's with the temporary wrapper's directory replaced by `.` and the
/// user's absolute paths under the current directory made relative, as users name them.
fn clean_paths(text: &str, wrapper: &Path) -> String {
    let mut names = vec![(wrapper.to_string_lossy().into_owned(), ".".to_owned())];
    if let Ok(cwd) = std::env::current_dir() {
        for cwd in [cwd.canonicalize().unwrap_or_else(|_| cwd.clone()), cwd] {
            names.push((format!("{}/", cwd.display()), String::new()));
        }
    }
    super::clean_paths(text, &names)
}

/// The path from `from` to `to`, both absolute.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for component in &to[common..] {
        path.push(component);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        assert_eq!(
            relative_path(Path::new("/tmp/x/w"), Path::new("/work/repo/overlay")),
            PathBuf::from("../../../work/repo/overlay")
        );
        assert_eq!(
            relative_path(Path::new("/a/b"), Path::new("/a/c")),
            PathBuf::from("../c")
        );
    }
}
