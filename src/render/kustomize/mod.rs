//! Kustomize overlays: which kustomizations to build, refusing what would reach the network,
//! running `kustomize build`, and the source map back to base and patch lines.

mod generated;
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
pub use tree::{Kustomization, loads, plugin_configs};

use super::boundary::Boundary;
use super::cache;
use super::failure::Verdict;
use super::files::is_file;
use super::process::{Failure, Outcome, run};
use super::sandbox::Access;
use super::stage;
use super::{KustomizeTool, Tools};

pub(crate) use super::files::KUSTOMIZATION_FILES;

/// Which files a kustomization may load, as Kustomize's `--load-restrictor` says. Either way
/// podcycle checks before Kustomize runs that every load stays in the repository, out of
/// `.git`, and through no link that leaves it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, schemars::JsonSchema)]
pub(crate) enum LoadRestrictor {
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

/// Whether a kustomization is built on its own ([`Kustomization::is_built`]).
pub(crate) fn is_overlay(dir: &Path) -> bool {
    read_kustomization(dir).is_ok_and(|k| k.is_built())
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
    pub(crate) text: String,
    pub(crate) map: KustomizeMap,
    pub(crate) warnings: Vec<String>,
}

/// Builds an overlay, with Kustomize's build metadata as `metadata` says, from a private copy
/// of what it may read ([`stage::stage_tree`]): the directories of its kustomizations and the
/// files they load, through a kustomization of our own at the top of the copy that refers to
/// the overlay. The user's files are not touched, and Kustomize is held to the copy.
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
    let not_rendered = |e: &dyn std::fmt::Display| Verdict::NotRendered(e.to_string());
    let overlay = std::path::absolute(dir).map_err(|e| not_rendered(&e))?;
    // One boundary for the screen, the stage and the paths named: the repository's root.
    let boundary = Boundary::of(&overlay);
    let tree = screen::read_screened(&overlay, &boundary, tools.untrusted)?;
    let (mut dirs, files) = staged_paths(&tree);
    // The overlay itself, even when podcycle could not read its kustomization: Kustomize
    // then refuses it in its own words.
    dirs.push(overlay.clone());
    let staged = stage::stage_tree(&dirs, &files, &boundary, &tools.listings, tools.untrusted)
        .map_err(|e| not_rendered(&e))?;
    // A file the repository generates and git ignores is never staged: the build could only
    // fail, over nothing the repository can fix.
    if let Some(need) = generated::ignored_need(&tree, &boundary, &staged.repository) {
        return Err(not_rendered(&need));
    }
    // The overlay, relative to the repository's root, as the user's path names it (Kustomize's
    // build metadata is relative to the wrapper, and the source map reads it from the user's
    // files).
    let canonical = overlay.canonicalize().map_err(|e| not_rendered(&e))?;
    let relative = canonical
        .strip_prefix(boundary.root())
        .map_err(|_| not_rendered(&"the overlay is outside the repository"))?
        .to_owned();
    let root_as_named = overlay
        .ancestors()
        .nth(relative.components().count())
        .filter(|root| root.canonicalize().ok().as_deref() == Some(boundary.root()))
        .unwrap_or(boundary.root())
        .to_owned();
    // podcycle's kustomization sits beside the repository's copy, never in it (Kustomize
    // refuses a root that holds another), and the copy bears the repository's name, so that
    // paths relative to the wrapper lead to the user's files from a wrapper beside the root.
    let wrapper_copy = staged.base.join(stage::BUILD_DIR);
    let wrapper = root_as_named
        .parent()
        .unwrap_or(&root_as_named)
        .join(stage::BUILD_DIR);
    let from_wrapper = Path::new("..").join(&staged.name).join(&relative);
    let kustomization = format!(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- {}\n{}",
        serde_json::to_string(&from_wrapper.to_string_lossy()).unwrap_or_default(),
        match metadata {
            BuildMetadata::On => "buildMetadata: [originAnnotations, transformerAnnotations]\n",
            BuildMetadata::Off => "",
        }
    );
    std::fs::create_dir_all(&wrapper_copy)
        .and_then(|()| std::fs::write(wrapper_copy.join("kustomization.yaml"), &kustomization))
        .map_err(|e| {
            Verdict::NotRendered(format!("cannot write a temporary kustomization: {e}"))
        })?;
    let (program, command) = match tool {
        KustomizeTool::Kustomize(path) => (path, "build"),
        KustomizeTool::Kubectl(path) => (path, "kustomize"),
    };
    let mut arguments = vec![OsStr::new(command), wrapper_copy.as_os_str()];
    arguments.extend(restrictor.arguments().iter().map(OsStr::new));
    // The key: everything in the copy, which is everything Kustomize can read, and the
    // arguments but the copy's directory, which is new on every run.
    let key = tools.cache.as_ref().map(|cache| {
        let mut key = cache.key("kustomize");
        key.program(program)
            .field(&kustomization)
            .field(staged.digest)
            .field(relative.as_os_str().as_encoded_bytes())
            // Kustomize's messages name the user's files by absolute path: a checkout
            // elsewhere renders again.
            .path(&root_as_named)
            .field(super::sandbox::confinement().key());
        for argument in arguments.iter().filter(|a| **a != wrapper_copy.as_os_str()) {
            key.field(argument.as_encoded_bytes());
        }
        key.finish()
    });
    let shown = input.clone();
    let repository_copy = format!("{}/", staged.repository.display());
    let repository_named = format!("{}/", root_as_named.display());
    let as_named = |text: &str| {
        text.replace(&*wrapper_copy.to_string_lossy(), &wrapper.to_string_lossy())
            .replace(&repository_copy, &repository_named)
    };
    let clean = |text: &str| clean_paths(&as_named(text), &wrapper, &from_wrapper, &shown);
    let judge = |failed: &Failure| {
        let mut verdict = refusal::judge(failed, &tree.kustomizations, &clean);
        if let Verdict::Refused(refusal) = &mut verdict {
            refusal.command = tool.command();
        }
        match tree.kustomizations.first() {
            Some(overlay) => super::staged::refusal_within(
                verdict,
                &staged.files(&[&root_as_named, boundary.root()]),
                &overlay.file,
            ),
            None => verdict,
        }
    };
    let entry = cache::through(
        tools.cache.as_ref().zip(key.as_ref()),
        &wrapper,
        || {
            // Kustomize reads the copy and nothing else.
            let access = Access {
                read: vec![staged.base.clone()],
                write: Vec::new(),
            };
            // Its messages name the copy: they are kept (a refusal is cached) as they name
            // the user's files, since the copy's directory is new on every run.
            match run(program, &arguments, &wrapper_copy, &access, limits, budget) {
                Outcome::Failed(Failure::Exited { stderr }) => Outcome::Failed(Failure::Exited {
                    stderr: as_named(&stderr),
                }),
                Outcome::Output { text, warnings } => Outcome::Output {
                    text,
                    warnings: warnings.iter().map(|w| as_named(w)).collect(),
                },
                other => other,
            }
        },
        &clean,
        &judge,
    )?;
    // The map reads only what was staged, by the paths the build's metadata gives relative to
    // podcycle's kustomization in the stage.
    let files = staged.files(&[&root_as_named, boundary.root()]);
    Ok(Built {
        map: KustomizeMap::new(input, files, tree, tool.command()),
        text: entry.text,
        warnings: entry.warnings,
    })
}

/// What to copy for Kustomize: each kustomization's directory (with everything below it), and
/// each file or directory it loads that exists.
fn staged_paths(tree: &tree::Tree) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let dirs = tree.kustomizations.iter().map(|k| k.dir.clone()).collect();
    let files = tree
        .kustomizations
        .iter()
        .flat_map(|k| k.loads.iter().map(|load| k.dir.join(&load.value)))
        .filter(|path| std::fs::symlink_metadata(path).is_ok())
        .collect();
    (dirs, files)
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

/// The source map of the overlay at `overlay` over `files`, as [`render`] makes it, for the
/// fuzz target that feeds it arbitrary output.
#[cfg(feature = "testing")]
pub(crate) fn map_over(overlay: &Path, files: super::staged::StagedFiles) -> Option<KustomizeMap> {
    let tree = tree::Tree::read(overlay).ok()?;
    Some(KustomizeMap::new(
        super::display(overlay),
        files,
        tree,
        "kustomize build",
    ))
}
