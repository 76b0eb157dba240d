//! Kustomize overlays: which kustomizations to build, refusing what would reach the network,
//! running `kustomize build`, and the source map back to base and patch lines.

mod map;
mod plan;
pub mod refusal;
mod screen;
mod tree;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub(crate) use map::KustomizeMap;
pub(crate) use plan::plan_builds;
pub(crate) use tree::read_kustomization;
pub use tree::{Kustomization, Load, PatchSource, PluginConfigs, loads, plugin_configs};

use super::boundary::Boundary;
use super::cache;
use super::failure::Verdict;
use super::files::is_file;
use super::process::{Failure, run};
use super::{KustomizeTool, Tools};
use crate::safe_fs::{self, FileKind};

pub(crate) use super::files::KUSTOMIZATION_FILES;

/// Which files a kustomization may load, as Kustomize's `--load-restrictor` says. Either way
/// podcycle checks before Kustomize runs that every load stays in the repository, out of
/// `.git`, and through no link that leaves it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
pub enum LoadRestrictor {
    /// Kustomize's default: only files in or below the kustomization's directory.
    #[default]
    LoadRestrictionsRootOnly,
    /// Files anywhere (in the repository, for podcycle), such as a patch shared by overlays
    /// in a sibling directory.
    LoadRestrictionsNone,
}

impl LoadRestrictor {
    /// The arguments that ask Kustomize for it; none for its default.
    fn arguments(self) -> &'static [&'static str] {
        match self {
            LoadRestrictor::LoadRestrictionsRootOnly => &[],
            LoadRestrictor::LoadRestrictionsNone => &["--load-restrictor", "LoadRestrictionsNone"],
        }
    }
}

/// The kustomization file of a directory.
pub(crate) fn kustomization_file(dir: &Path) -> Option<PathBuf> {
    KUSTOMIZATION_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| is_file(path))
}

pub(crate) fn has_kustomization(dir: &Path) -> bool {
    kustomization_file(dir).is_some()
}

/// A component (`kind: Component`) is built only as part of an overlay.
pub(crate) fn is_component(dir: &Path) -> bool {
    read_kustomization(dir).is_ok_and(|k| k.component)
}

/// Whether a kustomization is built on its own: it patches, uses components, or overlays
/// another kustomization. One that only lists files is a base: its files are linted as they are.
pub(crate) fn is_overlay(dir: &Path) -> bool {
    read_kustomization(dir).is_ok_and(|k| !k.component && (k.transforms() || !k.bases.is_empty()))
}

/// Whether a build carries Kustomize's build metadata (`originAnnotations`,
/// `transformerAnnotations`), which the source map reads to place findings. It costs Kustomize
/// up to two thirds more CPU on overlays with many objects and transformations
/// (docs/performance.md). Without it the build is what users deploy; with it Kustomize's own
/// selectors can see the annotations (a patch's `annotationSelector`), so the two may differ.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BuildMetadata {
    On,
    Off,
}

/// A built overlay: its output, the source map, and what Kustomize warned about.
pub(crate) struct Built {
    pub text: String,
    pub map: KustomizeMap,
    pub warnings: Vec<String>,
}

/// Builds an overlay, with Kustomize's build metadata as `metadata` says, through a
/// kustomization of our own in a temporary directory that refers to the overlay; the overlay's
/// files are not touched.
/// Nothing is run when the screen ([`screen::screen`]) finds a reason not to.
pub(crate) fn render(
    tool: &KustomizeTool,
    dir: &Path,
    restrictor: LoadRestrictor,
    metadata: BuildMetadata,
    input: String,
    tools: &Tools,
) -> Result<Built, Verdict> {
    let (limits, budget) = (&tools.limits, &tools.budget);
    let overlay = std::path::absolute(dir).map_err(|e| Verdict::NotRendered(e.to_string()))?;
    let tree = screen::read_screened(&overlay, tools.untrusted)?;
    let wrapper = tempfile::Builder::new()
        .prefix("podcycle-kustomize-")
        .tempdir()
        .map_err(|e| Verdict::NotRendered(format!("cannot create a temporary directory: {e}")))?;
    let wrapper_dir =
        std::path::absolute(wrapper.path()).map_err(|e| Verdict::NotRendered(e.to_string()))?;
    let relative = relative_path(&wrapper_dir, &overlay);
    let kustomization = format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\n{}",
        serde_json::to_string(&relative.to_string_lossy()).unwrap_or_default(),
        match metadata {
            BuildMetadata::On => "buildMetadata: [originAnnotations, transformerAnnotations]\n",
            BuildMetadata::Off => "",
        }
    );
    std::fs::write(wrapper_dir.join("kustomization.yaml"), &kustomization).map_err(|e| {
        Verdict::NotRendered(format!("cannot write a temporary kustomization: {e}"))
    })?;
    let (program, command) = match tool {
        KustomizeTool::Kustomize(path) => (path, "build"),
        KustomizeTool::Kubectl(path) => (path, "kustomize"),
    };
    let mut arguments = vec![OsStr::new(command), wrapper_dir.as_os_str()];
    arguments.extend(restrictor.arguments().iter().map(OsStr::new));
    let key = tools.cache.as_ref().and_then(|cache| {
        let mut key = cache.key("kustomize");
        key.program(program).field(&kustomization).path(&overlay);
        // Every argument but the wrapper's directory, which is new on every run.
        for argument in arguments.iter().filter(|a| **a != wrapper_dir.as_os_str()) {
            key.field(argument.as_encoded_bytes());
        }
        tree_key(&tree, &mut key)?;
        Some(key.finish())
    });
    let shown = input.clone();
    let clean = |text: &str| clean_paths(text, &wrapper_dir, &relative, &shown);
    let judge = |failed: &Failure| {
        let mut verdict = refusal::judge(failed, &tree.kustomizations, &clean);
        if let Verdict::Refused(refusal) = &mut verdict {
            refusal.command = tool.command();
        }
        verdict
    };
    let entry = cache::through(
        tools.cache.as_ref().zip(key.as_ref()),
        &wrapper_dir,
        || run(program, &arguments, &wrapper_dir, limits, budget),
        &clean,
        &judge,
    )?;
    // A kept build's metadata is relative to the wrapper of the run that kept it.
    let wrapper = entry.wrapper.unwrap_or(wrapper_dir);
    Ok(Built {
        map: KustomizeMap::new(input, &wrapper, tree, tool.command()),
        text: entry.text,
        warnings: entry.warnings,
    })
}

/// Adds to `key` everything Kustomize reads for the overlay: each kustomization (with the
/// kustomization files its directory holds: two of them make Kustomize refuse it) and every
/// file it loads. `None` when one cannot be read: that build is not cached.
fn tree_key(tree: &tree::Tree, key: &mut cache::KeyBuilder) -> Option<()> {
    for kustomization in &tree.kustomizations {
        key.path(&kustomization.file);
        for name in KUSTOMIZATION_FILES {
            key.field([u8::from(is_file(&kustomization.dir.join(name)))]);
        }
        key.field(safe_fs::read_file(&kustomization.file, FileKind::Kustomization).ok()?);
        for load in &kustomization.loads {
            let path = kustomization.dir.join(&load.value);
            key.field(&load.field).field(&load.value);
            match std::fs::metadata(&path) {
                Ok(metadata) if metadata.is_file() => {
                    key.field(safe_fs::read_file(&path, FileKind::Manifest).ok()?);
                }
                Ok(metadata) if metadata.is_dir() => {
                    // A directory is a kustomization of the tree, hashed on its own; its
                    // listing stands for anything else Kustomize would make of it.
                    let mut names: Vec<_> = std::fs::read_dir(&path)
                        .ok()?
                        .filter_map(|e| e.ok().map(|e| e.file_name()))
                        .collect();
                    names.sort();
                    for name in names {
                        key.field(name.as_encoded_bytes());
                    }
                }
                // Missing: Kustomize fails, and a failure is never cached.
                _ => {
                    key.field("absent");
                }
            }
        }
    }
    Some(())
}

/// A message of Kustomize's as users name things: the overlay as the wrapper names it
/// (`'../../home/ci/checkout/deploy/prod'`) by the name it was given, the temporary wrapper's
/// directory by `.`, and absolute paths in the repository relative to the current directory
/// (`../base/app.yaml` from inside an overlay).
fn clean_paths(text: &str, wrapper: &Path, overlay: &Path, input: &str) -> String {
    let mut names = vec![
        (format!("'{}'", overlay.display()), format!("'{input}'")),
        (wrapper.to_string_lossy().into_owned(), ".".to_owned()),
    ];
    if let Ok(cwd) = std::env::current_dir() {
        let canonical = cwd.canonicalize().unwrap_or_else(|_| cwd.clone());
        for cwd in [canonical.clone(), cwd] {
            names.push((format!("{}/", cwd.display()), String::new()));
        }
        // Above the current directory, up to the repository's root.
        let root = Boundary::of(&canonical).root().to_owned();
        let mut up = String::new();
        for dir in canonical.ancestors().skip(1) {
            up.push_str("../");
            if !dir.starts_with(&root) {
                break;
            }
            names.push((format!("{}/", dir.display()), up.clone()));
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
