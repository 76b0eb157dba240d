//! Kustomize overlays: which kustomizations to build, refusing what would reach the network,
//! running `kustomize build`, and the source map back to base and patch lines.

mod map;
mod tree;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use map::KustomizeMap;
pub use tree::{Kustomization, read_kustomization};

use super::KustomizeTool;
use super::files::is_file;
use super::process::{Outcome, run};

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

/// Builds an overlay, with Kustomize's build metadata on, through a kustomization of our own
/// in a temporary directory that refers to the overlay; the overlay's files are not touched.
pub fn render(
    tool: &KustomizeTool,
    dir: &Path,
    input: String,
    timeout: Duration,
) -> Result<(String, KustomizeMap), String> {
    let overlay = std::path::absolute(dir).map_err(|e| e.to_string())?;
    let tree = tree::Tree::read(&overlay)?;
    if let Some(remote) = tree.remote.first() {
        return Err(format!(
            "refers to the remote resource `{remote}` — podcycle never fetches; vendor it to lint the overlay"
        ));
    }
    if let Some(plugin) = tree.plugins.first() {
        return Err(format!(
            "uses {plugin} — podcycle runs Kustomize without plugins, exec functions or Helm"
        ));
    }
    let wrapper = tempfile::Builder::new()
        .prefix("podcycle-kustomize-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let wrapper_dir = std::path::absolute(wrapper.path()).map_err(|e| e.to_string())?;
    let relative = relative_path(&wrapper_dir, &overlay);
    let kustomization = format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\nbuildMetadata: [originAnnotations, transformerAnnotations]\n",
        serde_json::to_string(&relative.to_string_lossy()).unwrap_or_default()
    );
    std::fs::write(wrapper_dir.join("kustomization.yaml"), kustomization)
        .map_err(|e| format!("cannot write a temporary kustomization: {e}"))?;
    let outcome = match tool {
        KustomizeTool::Kustomize(path) => run(
            path,
            &[OsStr::new("build"), wrapper_dir.as_os_str()],
            &wrapper_dir,
            timeout,
        ),
        KustomizeTool::Kubectl(path) => run(
            path,
            &[OsStr::new("kustomize"), wrapper_dir.as_os_str()],
            &wrapper_dir,
            timeout,
        ),
    };
    match outcome {
        Outcome::Output(text) => {
            let map = KustomizeMap::new(input, &wrapper_dir, &text, tree);
            Ok((text, map))
        }
        Outcome::Failed(message) => Err(message.replace(&*wrapper_dir.to_string_lossy(), ".")),
    }
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
