//! The charts and overlays a file named on the command line belongs to, so that a run over the
//! files of one commit (pre-commit) renders what the change touches: a chart's values,
//! metadata, helpers and `files/` are read only through the chart, and an overlay's patch,
//! generator file or base resource only through the overlays that build from it.
//!
//! Owners are searched in the repository of each file — the same root rendering is confined to
//! (`Boundary::of`): the nearest directory holding `.git`, else `.podcycle.yaml`, else the
//! current directory. Git's own `rev-parse --show-toplevel` is not run: it gives the same
//! directory for a checkout, and a hostile `.git/config` (`core.worktree`) could make it name
//! a directory outside the repository. Of the repository only directory listings and
//! kustomization files are read, each once; no resource is opened.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use globset::GlobSet;
use ignore::WalkBuilder;

use super::classify::is_chart_file;
use super::{TOOL_DIRECTORIES, WalkOptions, excluded};
use crate::render::boundary::{Boundary, normalize};
use crate::render::{helm, kustomize};

/// Adds `file` to the files an owner is rendered for, and the owner when it is new.
pub(crate) fn add_owner(owners: &mut Vec<(PathBuf, Vec<PathBuf>)>, owner: PathBuf, file: &Path) {
    match owners.iter_mut().find(|(dir, _)| *dir == owner) {
        Some((_, files)) if !files.iter().any(|f| f == file) => files.push(file.to_owned()),
        Some(_) => {}
        None => owners.push((owner, vec![file.to_owned()])),
    }
}

/// The chart a file other than an ordinary template belongs to: its metadata, values, a file
/// under `files/` or `ci/`, a helper or other non-manifest file under `templates/`, or anything
/// in a chart vendored under its `charts/`. Vendored charts are rendered with their parent, so
/// the owner is the outermost chart. `None` for a template that renders manifests (linted
/// through its chart already, its findings alone reported) and for files of no chart.
pub(crate) fn chart_of_file(path: &Path) -> Option<PathBuf> {
    let in_templates = helm::chart_of_template(path);
    let chart = match in_templates {
        Some(chart) if is_partial_template(path) => chart,
        Some(_) => return None,
        None if is_chart_file(path) => {
            let dir = path.ancestors().skip(1).find(|dir| helm::is_chart(dir))?;
            dir.to_owned()
        }
        None => return None,
    };
    Some(outermost_chart(chart))
}

/// A chart vendored under another chart's `charts/` is rendered with it.
fn outermost_chart(mut chart: PathBuf) -> PathBuf {
    loop {
        let parent = chart
            .parent()
            .filter(|p| p.file_name() == Some(OsStr::new("charts")));
        match parent.and_then(Path::parent).filter(|p| helm::is_chart(p)) {
            Some(outer) => chart = outer.to_owned(),
            None => return chart,
        }
    }
}

/// A file under `templates/` that renders no manifest of its own: helpers (`_helpers.tpl`,
/// any name starting with `_`, which Helm does not render) and files that are not YAML
/// (`NOTES.txt`). A change to one can change every template of the chart.
fn is_partial_template(path: &Path) -> bool {
    let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
    let yaml = path
        .extension()
        .and_then(OsStr::to_str)
        .is_some_and(|e| matches!(e, "yaml" | "yml" | "json"));
    name.starts_with('_') || !yaml
}

/// The overlays of the repositories of `files` that build from one of them: each file's
/// kustomization, the kustomizations that load it (a resource, patch, generator file,
/// replacement, configuration), and every kustomization that builds from those, up to the
/// roots. Components and kustomizations that only list files are not overlays, but are
/// followed. Walks each repository once, honouring ignore files and `exclude` like a run.
pub(crate) fn overlays_using(
    files: &[PathBuf],
    exclude: &GlobSet,
    options: WalkOptions,
) -> Vec<(PathBuf, Vec<PathBuf>)> {
    let mut by_root: Vec<(PathBuf, Vec<&PathBuf>)> = Vec::new();
    for file in files {
        let root = Boundary::of(file.parent().unwrap_or(Path::new(".")))
            .root()
            .to_owned();
        match by_root.iter_mut().find(|(r, _)| *r == root) {
            Some((_, files)) => files.push(file),
            None => by_root.push((root, vec![file])),
        }
    }
    let mut owners = Vec::new();
    for (root, files) in by_root {
        let graph = if is_declared_root(&root) {
            Graph::read(&root, exclude, options)
        } else {
            Graph::above(&files, &root, exclude)
        };
        for file in files {
            for overlay in graph.reaching(&canonical(file)) {
                add_owner(&mut owners, shown(&overlay), file);
            }
        }
    }
    owners
}

/// Whether `root` is a repository's or a configuration's root (it holds `.git` or
/// `.podcycle.yaml`), whose kustomizations are all read; otherwise it is only the current
/// directory or the file's own, which may be a home or a temporary directory of any size, and
/// only the directories from the file up to it are read.
fn is_declared_root(root: &Path) -> bool {
    // The configuration's name, as `Boundary::of` finds it (`config` is above this layer).
    [".git", ".podcycle.yaml"]
        .iter()
        .any(|marker| std::fs::symlink_metadata(root.join(marker)).is_ok())
}

/// The kustomizations of one repository: what each loads, and who builds from whom.
#[derive(Default)]
struct Graph {
    /// Each kustomization directory (canonical), with whether it is built on its own.
    overlays: HashMap<PathBuf, bool>,
    /// The kustomizations that load a file or build from a directory, by that path.
    users: HashMap<PathBuf, Vec<PathBuf>>,
}

/// The most kustomizations one repository is read for.
const MAX_KUSTOMIZATIONS: usize = 10_000;

impl Graph {
    fn read(root: &Path, exclude: &GlobSet, options: WalkOptions) -> Graph {
        let mut graph = Graph::default();
        // A checkout's index names every kustomization it tracks: one read instead of a walk
        // of the whole tree.
        if let Some(dirs) = kustomizations_tracked(root, exclude) {
            for dir in dirs.iter().take(MAX_KUSTOMIZATIONS) {
                graph.add(dir);
            }
            return graph;
        }
        let ignore_files = !options.no_ignore_files;
        let exclude = exclude.clone();
        let walk = WalkBuilder::new(root)
            .follow_links(false)
            .hidden(false)
            .git_ignore(ignore_files)
            .git_global(ignore_files)
            .git_exclude(ignore_files)
            .ignore(ignore_files)
            .parents(ignore_files)
            .filter_entry(move |entry| {
                let name = entry.file_name();
                entry.depth() == 0
                    || !(excluded(&exclude, entry.path())
                        || TOOL_DIRECTORIES.iter().any(|tool| name == OsStr::new(tool)))
            })
            .build();
        for entry in walk.flatten() {
            if graph.overlays.len() >= MAX_KUSTOMIZATIONS {
                break;
            }
            if !entry.file_type().is_some_and(|t| t.is_dir()) {
                continue;
            }
            graph.add(entry.path());
        }
        graph
    }

    /// The kustomizations of the directories of `files` and of those above them, up to
    /// `root`: walking up, never down, outside a repository.
    fn above(files: &[&PathBuf], root: &Path, exclude: &GlobSet) -> Graph {
        let mut graph = Graph::default();
        let mut read: HashSet<PathBuf> = HashSet::new();
        for file in files {
            let directory = canonical(file.parent().unwrap_or(Path::new(".")));
            for dir in directory.ancestors() {
                if !dir.starts_with(root) {
                    break;
                }
                if read.insert(dir.to_owned()) && !excluded(exclude, dir) {
                    graph.add(dir);
                }
            }
        }
        graph
    }

    /// Adds the kustomization of `dir`, if it has one podcycle reads.
    fn add(&mut self, dir: &Path) {
        let Ok(kustomization) = kustomize::read_kustomization(dir) else {
            return;
        };
        let dir = canonical(&kustomization.dir);
        let mut used = vec![canonical(&kustomization.file)];
        used.extend(
            kustomization
                .loads
                .iter()
                // A remote address names no file here, and matches none.
                .map(|load| canonical(&kustomization.dir.join(&load.value))),
        );
        used.extend(
            kustomization
                .bases
                .iter()
                .chain(&kustomization.components)
                .chain(&kustomization.plugin_dirs)
                .map(|d| canonical(d)),
        );
        for path in used {
            let users = self.users.entry(path).or_default();
            if !users.contains(&dir) {
                users.push(dir.clone());
            }
        }
        let overlay = kustomization.is_built();
        self.overlays.insert(dir, overlay);
    }

    /// Every overlay that builds from `file` (canonical), directly or not.
    fn reaching(&self, file: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        let mut seen: HashSet<&Path> = HashSet::new();
        let mut pending: Vec<&Path> = self
            .users
            .get(file)
            .map(|users| users.iter().map(PathBuf::as_path).collect())
            .unwrap_or_default();
        while let Some(dir) = pending.pop() {
            if !seen.insert(dir) {
                continue;
            }
            if self.overlays.get(dir) == Some(&true) {
                found.push(dir.to_owned());
            }
            if let Some(users) = self.users.get(dir) {
                pending.extend(users.iter().map(PathBuf::as_path));
            }
        }
        found.sort();
        found
    }
}

/// The directories of the kustomizations the index of the checkout at `root` tracks, less
/// those `exclude` or a tool's directory leave out; `None` when `root` has no index podcycle
/// reads (then the tree is walked).
fn kustomizations_tracked(root: &Path, exclude: &GlobSet) -> Option<Vec<PathBuf>> {
    let paths = super::git_index::tracked_paths(root, |path| {
        let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        kustomize::KUSTOMIZATION_FILES
            .iter()
            .any(|file| file.as_bytes() == name)
    })?;
    let mut dirs: Vec<PathBuf> = paths
        .iter()
        .filter_map(|path| {
            let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
            kustomize::KUSTOMIZATION_FILES
                .contains(&name)
                .then(|| root.join(dir))
        })
        .filter(|dir| {
            let relative = dir.strip_prefix(root).unwrap_or(dir);
            // Only paths inside the checkout: an index names none other, but is not trusted to.
            relative
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
                && !relative.components().any(|c| {
                    TOOL_DIRECTORIES
                        .iter()
                        .any(|tool| c.as_os_str() == OsStr::new(tool))
                })
                && !excluded(exclude, dir)
        })
        .collect();
    dirs.sort();
    dirs.dedup();
    Some(dirs)
}

fn canonical(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
    absolute
        .canonicalize()
        .unwrap_or_else(|_| normalize(&absolute))
}

/// A directory as the run names it: relative to the current directory when under it.
fn shown(dir: &Path) -> PathBuf {
    PathBuf::from(crate::render::shown_path(dir))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, file: &str, text: &str) -> PathBuf {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn chart_files_belong_to_the_outermost_chart() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "web/Chart.yaml", "name: web\n");
        write(root, "web/charts/db/Chart.yaml", "name: db\n");
        let web = root.join("web");
        for (file, owner) in [
            ("web/values.yaml", Some(&web)),
            ("web/values-prod.yaml", Some(&web)),
            ("web/Chart.yaml", Some(&web)),
            ("web/templates/_helpers.tpl", Some(&web)),
            ("web/templates/NOTES.txt", Some(&web)),
            ("web/files/x.conf", Some(&web)),
            ("web/charts/db/values.yaml", Some(&web)),
            ("web/charts/db/templates/_db.tpl", Some(&web)),
            ("web/templates/deployment.yaml", None),
            ("web/crds/crd.yaml", None),
            ("other/values.yaml", None),
        ] {
            let path = write(root, file, "");
            assert_eq!(chart_of_file(&path).as_ref(), owner, "{file}");
        }
    }

    /// Outside a repository (no `.git`, no `.podcycle.yaml`: a temporary or home directory),
    /// the kustomizations read are those from the file's directory up, never a walk down.
    #[test]
    fn outside_a_repository_only_the_directories_above_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        write(
            &root,
            "kustomization.yaml",
            "resources: [app]\nnamePrefix: all-\n",
        );
        write(
            &root,
            "app/kustomization.yaml",
            "resources: [deploy.yaml]\n",
        );
        let deploy = write(&root, "app/deploy.yaml", "");
        // Below the file's directory: a walk down would find it.
        write(
            &root,
            "app/below/kustomization.yaml",
            "resources: [..]\nnamePrefix: below-\n",
        );
        let owners_from = |cwd_root: &Path| {
            let mut dirs: Vec<PathBuf> =
                Graph::above(&[&deploy], cwd_root, &GlobSet::empty()).reaching(&canonical(&deploy));
            dirs.sort();
            dirs
        };
        // `app` lists its file (nothing to build on its own); the root builds from it.
        assert_eq!(owners_from(&root), std::slice::from_ref(&root));
        assert!(owners_from(&root.join("app")).is_empty());
        assert!(!is_declared_root(&root));
        // The file's own directory is the root here (the temporary directory is not under the
        // current one): `app/below` is not looked for.
        let owners = overlays_using(
            std::slice::from_ref(&deploy),
            &GlobSet::empty(),
            WalkOptions::default(),
        );
        assert!(owners.is_empty(), "{owners:?}");
        // A repository's root is read whole (here by a walk: this `.git` has no index).
        std::fs::create_dir(root.join(".git")).unwrap();
        assert!(is_declared_root(&root));
        let owners = overlays_using(
            std::slice::from_ref(&deploy),
            &GlobSet::empty(),
            WalkOptions::default(),
        );
        let mut dirs: Vec<PathBuf> = owners.iter().map(|(dir, _)| canonical(dir)).collect();
        dirs.sort();
        assert_eq!(dirs, [root.clone(), root.join("app/below")]);
    }

    #[test]
    fn a_base_file_is_owned_by_the_overlays_that_reach_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        write(
            &root,
            "base/kustomization.yaml",
            "resources: [deploy.yaml]\n",
        );
        let deploy = write(&root, "base/deploy.yaml", "");
        write(
            &root,
            "mid/kustomization.yaml",
            "resources: [../base]\npatches: [{path: p.yaml}]\n",
        );
        let patch = write(&root, "mid/p.yaml", "");
        write(&root, "prod/kustomization.yaml", "resources: [../mid]\n");
        write(
            &root,
            "comp/kustomization.yaml",
            "kind: Component\nconfigMapGenerator: [{name: c, files: [app.conf]}]\n",
        );
        let conf = write(&root, "comp/app.conf", "");
        write(
            &root,
            "uses-comp/kustomization.yaml",
            "resources: [../base]\ncomponents: [../comp]\n",
        );
        let lone = write(&root, "lone/lone.yaml", "");
        write(&root, "lone/kustomization.yaml", "resources: [lone.yaml]\n");
        let owners = overlays_using(
            &[deploy.clone(), patch.clone(), conf.clone(), lone.clone()],
            &GlobSet::empty(),
            WalkOptions::default(),
        );
        let of = |file: &Path| -> Vec<PathBuf> {
            let mut dirs: Vec<PathBuf> = owners
                .iter()
                .filter(|(_, files)| files.iter().any(|f| f == file))
                .map(|(dir, _)| canonical(dir))
                .collect();
            dirs.sort();
            dirs
        };
        assert_eq!(
            of(&deploy),
            [root.join("mid"), root.join("prod"), root.join("uses-comp")]
        );
        assert_eq!(of(&patch), [root.join("mid"), root.join("prod")]);
        assert_eq!(of(&conf), [root.join("uses-comp")]);
        // Only a kustomization that lists files: linted as they are, nothing to build.
        assert!(of(&lone).is_empty());
    }

    #[test]
    fn a_checkouts_index_names_its_kustomizations_without_a_walk() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(&root)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .env("HOME", &root)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        if !git(&["init", "-q"]) {
            eprintln!("git is not available: skipped");
            return;
        }
        write(
            &root,
            "base/kustomization.yaml",
            "resources: [deploy.yaml]\n",
        );
        let deploy = write(&root, "base/deploy.yaml", "");
        write(
            &root,
            "prod/kustomization.yaml",
            "resources: [../base]\nnamePrefix: prod-\n",
        );
        assert!(git(&["add", "base", "prod"]));
        // Not tracked: the index does not name it, so it is not read.
        write(
            &root,
            "draft/kustomization.yaml",
            "resources: [../base]\nnamePrefix: draft-\n",
        );
        let owners = overlays_using(
            std::slice::from_ref(&deploy),
            &GlobSet::empty(),
            WalkOptions::default(),
        );
        let dirs: Vec<PathBuf> = owners.iter().map(|(dir, _)| canonical(dir)).collect();
        assert_eq!(dirs, [root.join("prod")]);
    }
}
