//! The language server's index of a workspace's manifests: for each file, only the facts a
//! scope is made of ([`Scope::read_part`]: workloads with their labels and counts, budgets,
//! autoscalers, with where they are), grouped by directory, so that a file's scope in the
//! editor is a union of parts already read rather than a read of every manifest beside it at
//! every pause in typing.
//!
//! A directory's manifests are those `check` on that directory gathers in it: found by the
//! walk discovery makes (ignore files, hidden files, links not followed), less what the
//! configuration and the default excludes leave out, less patches and what is not a manifest;
//! whether they are one scope is `directory_scope`, the decision `check` makes. The text of
//! an open document takes the place of its file's; closed, the file is read again.
//!
//! The index is built in the background for the workspace's folders ([`WorkspaceIndex::build`],
//! bounded by [`IndexLimits`]), and any directory is listed when a file of it is linted first.
//! Where the client reports changed files, a directory is listed again only when it says so;
//! elsewhere it is listed again at each lint, which costs a directory listing and one `stat`
//! per file: only the files whose size or time changed are read again.
//!
//! Every change of what a directory holds for its scope gives it a new generation, so that
//! the language server knows when to lint the open files of that directory again.

use std::collections::{BTreeMap, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use super::configs::Configs;
use super::files::{read_path, text_of};
use super::options::RunOptions;
use super::scopes::{DirectoryScope, directory_scope};
use crate::config::Config;
use crate::discovery::classify::{FileClass, classify};
use crate::discovery::roles::PatchIndex;
use crate::discovery::{default_excluded, has_manifest_extension, skip_reason, walker};
use crate::lint::FileRole;
use crate::model::custom::PodTemplateKinds;
use crate::model::scope::{Scope, may_hold_scope};
use crate::render::kustomize::KUSTOMIZATION_FILES;
use crate::safe_fs::Reader;
use crate::source::SourceFile;
use crate::versions::KubeVersion;

/// How much of a workspace the background build reads, so that a huge one neither holds the
/// server's memory nor keeps a core busy without end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexLimits {
    /// Entries (files and directories) walked.
    pub entries: usize,
    /// Manifests read; also the most one directory lists.
    pub files: usize,
    /// Time spent building.
    pub time: Duration,
}

impl Default for IndexLimits {
    fn default() -> IndexLimits {
        IndexLimits {
            entries: 100_000,
            files: 20_000,
            time: Duration::from_secs(30),
        }
    }
}

/// What the background build did.
#[derive(Debug, Default)]
pub(crate) struct Built {
    pub(crate) directories: usize,
    pub(crate) files: usize,
    /// Why it stopped before the end of the workspace, in words.
    pub(crate) stopped_short: Option<String>,
}

/// What a directory's files are read with: the configuration over them (its excludes, whether
/// the default excludes hold) and the kinds with pod templates their settings know.
#[derive(Clone, Debug)]
pub struct DirectoryContext<'a> {
    pub options: &'a RunOptions,
    pub config: Option<Arc<Config>>,
    pub kinds: &'a PodTemplateKinds,
}

impl DirectoryContext<'_> {
    /// The cluster version the directory's files are judged for, as their settings say.
    fn kube_version(&self) -> KubeVersion {
        self.options
            .kube_version
            .or(self.config.as_ref().and_then(|config| config.kube_version))
            .unwrap_or(crate::versions::NEWEST_MODELLED)
    }
}

/// The scope an open file is judged in, and the generation of its directory's index.
#[derive(Clone, Debug)]
pub struct EditorScope {
    /// `None`: the file is its own scope.
    pub scope: Option<Arc<Scope>>,
    /// Why the file is its own scope although its directory names budgets: alternatives.
    pub(crate) alone_because: Option<Arc<str>>,
    /// Changes whenever what the directory holds for its scope changes.
    pub(crate) generation: u64,
}

/// The index, shared by the server's threads.
#[derive(Debug, Default)]
pub struct WorkspaceIndex {
    state: Mutex<State>,
    limits: IndexLimits,
}

#[derive(Debug, Default)]
struct State {
    directories: HashMap<PathBuf, Directory>,
    /// The texts of the open documents, by path.
    open: HashMap<PathBuf, Arc<String>>,
    /// Whether the client reports changed files: then a directory is listed again only when
    /// it says so.
    watched: bool,
    last_generation: u64,
}

#[derive(Debug, Default)]
struct Directory {
    /// The configuration it was listed with; `None` until listed.
    listed: Option<Option<Arc<Config>>>,
    /// To be listed again: the client said a file of it changed.
    stale: bool,
    files: BTreeMap<PathBuf, Entry>,
    generation: u64,
    /// The directory's scope, for the generation it was decided at.
    decided: Option<(u64, DirectoryScope)>,
}

#[derive(Debug)]
struct Entry {
    stamp: Option<Stamp>,
    role: FileRole,
    facts: Option<Facts>,
}

/// Size and modification time: what tells that a file changed without reading it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

/// What was read from which text.
#[derive(Clone, Debug)]
enum Origin {
    Disk(Option<Stamp>),
    Open(Arc<String>),
}

impl Origin {
    fn same(&self, other: &Origin) -> bool {
        match (self, other) {
            (Origin::Disk(a), Origin::Disk(b)) => a == b,
            (Origin::Open(a), Origin::Open(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// What one file holds for its directory's scope.
#[derive(Debug)]
struct Facts {
    origin: Origin,
    kinds: PodTemplateKinds,
    /// The cluster version the part was read for: objects it no longer serves are left out.
    kube: KubeVersion,
    /// A manifest of the directory, as `check` finds it: a Kubernetes manifest, a
    /// kustomization, or a file that cannot be read (counted, and left out of the scope).
    member: bool,
    /// Names a budget or an autoscaler.
    names: bool,
    /// `None` when the file cannot be read.
    part: Option<Scope>,
    fingerprint: u64,
}

impl WorkspaceIndex {
    /// An empty index that [`WorkspaceIndex::build`] fills within `limits`.
    pub(crate) fn new(limits: IndexLimits) -> WorkspaceIndex {
        WorkspaceIndex {
            state: Mutex::default(),
            limits,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic while the lock was held left at worst a directory half updated, which its
        // next listing puts right.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether the client reports changed files (`WorkspaceIndex::changed_on_disk`).
    pub fn set_watched(&self, watched: bool) {
        self.state().watched = watched;
    }

    /// The document at `path` is open with `text`, which takes the place of the file's.
    pub fn open(&self, path: &Path, text: Arc<String>) {
        self.state().open.insert(path.to_owned(), text);
    }

    /// The document at `path` was closed: the file on disk counts again.
    pub(crate) fn close(&self, path: &Path) {
        let mut state = self.state();
        state.open.remove(path);
        if let Some(directory) = path.parent().and_then(|d| state.directories.get_mut(d)) {
            directory.stale = true;
        }
    }

    /// The client says the file at `path` was created, changed or deleted: its directory is
    /// listed again, and the file read again, when next needed. Returns its directory.
    pub(crate) fn changed_on_disk(&self, path: &Path) -> Option<PathBuf> {
        let directory = path.parent()?;
        let mut state = self.state();
        let entry = state.directories.entry(directory.to_owned()).or_default();
        entry.stale = true;
        if let Some(file) = entry.files.get_mut(path) {
            file.facts = None;
        }
        Some(directory.to_owned())
    }

    /// Brings `directory` up to date — listed again when needed, the files that changed
    /// read again — and returns its generation.
    pub(crate) fn refresh(&self, directory: &Path, context: &DirectoryContext<'_>) -> u64 {
        let mut state = self.state();
        refresh(&mut state, directory, context, self.limits.files);
        state.directories.get(directory).map_or(0, |d| d.generation)
    }

    /// The scope of the file at `path`, as `check` on its directory gives it, with the open
    /// documents' texts in place of their files'; `text` is the file's text as it is linted.
    pub fn scope_of(
        &self,
        path: &Path,
        text: &str,
        role: FileRole,
        context: &DirectoryContext<'_>,
    ) -> EditorScope {
        let own = EditorScope {
            scope: None,
            alone_because: None,
            generation: 0,
        };
        let Some(directory) = path.parent() else {
            return own;
        };
        let mut state = self.state();
        refresh(&mut state, directory, context, self.limits.files);
        let linted_as_indexed = match state.open.get(path) {
            Some(open) => open.as_str() == text,
            None => false,
        };
        let Some(entries) = state.directories.get_mut(directory) else {
            return own;
        };
        let generation = entries.generation;
        if role != FileRole::Manifest {
            return EditorScope { generation, ..own };
        }
        let is_member = entries
            .files
            .get(path)
            .is_some_and(|entry| entry.is_member());
        let decided = if is_member && linted_as_indexed {
            match &entries.decided {
                Some((at, decided)) if *at == generation => decided.clone(),
                _ => {
                    let decided = decide(entries.files.values(), None);
                    entries.decided = Some((generation, decided.clone()));
                    decided
                }
            }
        } else {
            // A text other than the index's (a document the index was not told of), or a file
            // `check` would not lint (hidden, ignored): its own part beside the directory's.
            let file = SourceFile::new(path.display().to_string(), text);
            let part = Scope::read_part(&file, context.kinds, context.kube_version());
            let others = entries.files.iter().filter(|(p, _)| p.as_path() != path);
            let own_names = may_hold_scope(text);
            decide(others.map(|(_, e)| e), Some((part, own_names)))
        };
        match decided {
            DirectoryScope::Own => EditorScope { generation, ..own },
            DirectoryScope::Alternatives(why) => EditorScope {
                alone_because: Some(why),
                generation,
                ..own
            },
            DirectoryScope::Shared(scope) => EditorScope {
                scope: Some(scope),
                alone_because: None,
                generation,
            },
        }
    }

    /// Indexes the manifests under `roots`, a directory at a time, until `stop` is set or one
    /// of the index's limits is reached; a directory already listed (a file of it was linted first) is left as
    /// it is. `configs` gives each directory its configuration.
    pub(crate) fn build(
        &self,
        roots: &[PathBuf],
        options: &RunOptions,
        configs: &mut Configs,
        stop: &AtomicBool,
    ) -> Built {
        let limits = self.limits;
        let started = Instant::now();
        let mut built = Built::default();
        let mut entries = 0;
        let mut directories: Vec<PathBuf> = Vec::new();
        'roots: for root in roots {
            let exclude = options.walk.exclude.clone();
            let walk_root = root.clone();
            let walk = walker(root, !options.walk.options.no_ignore_files)
                .filter_entry(move |entry| {
                    let path = entry.path();
                    entry.depth() == 0
                        || (skip_reason(&exclude, path, entry.file_type()).is_none()
                            && !(entry.file_type().is_some_and(|t| t.is_dir())
                                && default_excluded(&walk_root, path)))
                })
                .build();
            for entry in walk {
                if stop.load(Ordering::Relaxed) {
                    return built;
                }
                entries += 1;
                if entries > limits.entries {
                    built.stopped_short = Some(format!(
                        "the workspace has more than {} files and directories",
                        limits.entries
                    ));
                    break 'roots;
                }
                if started.elapsed() > limits.time {
                    built.stopped_short = Some(format!(
                        "walking the workspace took more than {} s",
                        limits.time.as_secs()
                    ));
                    break 'roots;
                }
                let Ok(entry) = entry else { continue };
                let is_manifest = entry.file_type().is_some_and(|t| t.is_file())
                    && has_manifest_extension(entry.path());
                if !is_manifest {
                    continue;
                }
                if let Some(directory) = entry.path().parent()
                    && directories.last().map(PathBuf::as_path) != Some(directory)
                {
                    directories.push(directory.to_owned());
                }
            }
        }
        directories.sort();
        directories.dedup();
        for directory in directories {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            if started.elapsed() > limits.time {
                built.stopped_short.get_or_insert_with(|| {
                    format!(
                        "reading the manifests took more than {} s",
                        limits.time.as_secs()
                    )
                });
                break;
            }
            if built.files >= limits.files {
                built.stopped_short.get_or_insert_with(|| {
                    format!("the workspace has more than {} manifests", limits.files)
                });
                break;
            }
            let config = configs.for_file(&directory.join("manifest.yaml"));
            let settings = options.settings(config.as_deref(), None);
            let context = DirectoryContext {
                options,
                config,
                kinds: settings.pod_templates(),
            };
            let mut state = self.state();
            if state
                .directories
                .get(&directory)
                .is_some_and(|d| d.listed.is_some())
            {
                continue;
            }
            refresh(&mut state, &directory, &context, limits.files - built.files);
            built.files += state
                .directories
                .get(&directory)
                .map_or(0, |d| d.files.len());
            built.directories += 1;
        }
        built
    }
}

impl Entry {
    fn is_member(&self) -> bool {
        self.role == FileRole::Manifest && self.facts.as_ref().is_some_and(|f| f.member)
    }
}

/// The decision over a directory's entries, with the part of a file linted beside them that
/// is not one of them.
fn decide<'e>(
    entries: impl Iterator<Item = &'e Entry> + Clone,
    extra: Option<(Scope, bool)>,
) -> DirectoryScope {
    let members = entries.clone().filter(|e| e.is_member());
    let count = members.clone().count() + usize::from(extra.is_some());
    let names = members
        .clone()
        .any(|e| e.facts.as_ref().is_some_and(|f| f.names))
        || extra.as_ref().is_some_and(|(_, names)| *names);
    directory_scope(count, names, || {
        let mut parts: Vec<Scope> = Vec::with_capacity(count);
        if let Some((part, _)) = extra {
            parts.push(part);
        }
        parts.extend(members.filter_map(|e| e.facts.as_ref().and_then(|f| f.part.clone())));
        parts
    })
}

/// Lists `directory` again when it must be, reads what changed, and gives it a new generation
/// when what it holds for its scope changed.
fn refresh(state: &mut State, directory: &Path, context: &DirectoryContext<'_>, limit: usize) {
    let watched = state.watched;
    let entry = state.directories.entry(directory.to_owned()).or_default();
    let same_config = match &entry.listed {
        Some(config) => match (config, &context.config) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        },
        None => false,
    };
    let mut changed = false;
    if !watched || entry.stale || !same_config {
        let listed = list(directory, context, limit);
        changed |= listed.len() != entry.files.len()
            || listed
                .iter()
                .any(|(path, _, _)| !entry.files.contains_key(path));
        let mut files = BTreeMap::new();
        for (path, stamp, role) in listed {
            let facts = entry.files.remove(&path).and_then(|old| old.facts);
            files.insert(path, Entry { stamp, role, facts });
        }
        entry.files = files;
        entry.listed = Some(context.config.clone());
        entry.stale = false;
    }
    let reader = Reader::default();
    let kube = context.kube_version();
    for (path, file) in &mut entry.files {
        let origin = match state.open.get(path) {
            Some(text) => Origin::Open(Arc::clone(text)),
            None => Origin::Disk(file.stamp),
        };
        let current = file
            .facts
            .as_ref()
            .is_some_and(|f| f.origin.same(&origin) && f.kinds == *context.kinds && f.kube == kube);
        if current {
            continue;
        }
        let facts = read_facts(&reader, path, origin, context.kinds, kube);
        let before = file
            .facts
            .as_ref()
            .map(|f| (f.member, f.names, f.fingerprint));
        changed |= before != Some((facts.member, facts.names, facts.fingerprint));
        file.facts = Some(facts);
    }
    if changed {
        state.last_generation += 1;
        entry.generation = state.last_generation;
    }
}

/// The manifests of `directory` as `check` on it finds them, each with its stamp and role.
fn list(
    directory: &Path,
    context: &DirectoryContext<'_>,
    limit: usize,
) -> Vec<(PathBuf, Option<Stamp>, FileRole)> {
    let options = context.options;
    let exclude = options.walk.exclude.clone();
    let walk = walker(directory, !options.walk.options.no_ignore_files)
        .max_depth(Some(1))
        .filter_entry(move |entry| {
            entry.depth() == 0 || skip_reason(&exclude, entry.path(), entry.file_type()).is_none()
        })
        .build();
    let config = context.config.as_deref();
    let keeps_defaults = config.is_none_or(Config::keeps_default_excludes);
    let mut patches = PatchIndex::default();
    let mut files = Vec::new();
    for entry in walk.flatten() {
        if files.len() >= limit {
            break;
        }
        let path = entry.path();
        let is_file = entry.file_type().is_some_and(|t| t.is_file());
        if entry.depth() == 0 || !is_file || !has_manifest_extension(path) {
            continue;
        }
        if options.leaves_out(config, path, false)
            || (keeps_defaults && default_excluded(directory, path))
        {
            continue;
        }
        let stamp = std::fs::symlink_metadata(path).ok().map(|m| Stamp {
            len: m.len(),
            modified: m.modified().ok(),
        });
        let role = patches.role(path);
        files.push((entry.into_path(), stamp, role));
    }
    files
}

/// Reads what a file holds for its directory's scope, from the open text or the file.
fn read_facts(
    reader: &Reader,
    path: &Path,
    origin: Origin,
    kinds: &PodTemplateKinds,
    kube: KubeVersion,
) -> Facts {
    let text = match &origin {
        Origin::Open(text) => Some(String::clone(text)),
        Origin::Disk(_) => read_path(reader, path)
            .ok()
            .map(|(_, bytes)| text_of(bytes).0),
    };
    let Some(text) = text else {
        // `check` counts a file it cannot read among the directory's and says why when it
        // lints it.
        return Facts {
            origin,
            kinds: kinds.clone(),
            kube,
            member: true,
            names: false,
            part: None,
            fingerprint: 0,
        };
    };
    let kustomization = path
        .file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| KUSTOMIZATION_FILES.contains(&name));
    let member = kustomization || classify(path, &text) == FileClass::Manifest;
    let names = may_hold_scope(&text);
    let file = SourceFile::new(path.display().to_string(), text);
    let part = Scope::read_part(&file, kinds, kube);
    Facts {
        origin,
        kinds: kinds.clone(),
        kube,
        member,
        names,
        fingerprint: fingerprint(&part),
        part: Some(part),
    }
}

/// A digest of what a part holds: its objects with their labels, counts, specs and places.
/// The parts' types print every field matching reads, so two parts that print alike are
/// matched alike (a difference that is not one only lints the open files again).
fn fingerprint(part: &Scope) -> u64 {
    let mut hasher = DefaultHasher::new();
    format!(
        "{:?}{:?}{:?}{:?}",
        part.workloads(),
        part.budgets(),
        part.autoscalers(),
        part.opaque()
    )
    .hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n";
    const BUDGET: &str = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 1\n  selector: {matchLabels: {app: web}}\n";

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [
            ("a/deploy.yaml", DEPLOYMENT),
            ("a/pdb.yaml", BUDGET),
            ("a/.hidden.yaml", BUDGET),
            ("a/notes.yaml", "title: not a manifest\n"),
            ("b/deploy.yaml", DEPLOYMENT),
            ("ignored/deploy.yaml", DEPLOYMENT),
            ("testdata/deploy.yaml", DEPLOYMENT),
        ] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        std::fs::write(dir.path().join(".ignore"), "ignored/\n").unwrap();
        dir
    }

    fn build(root: &Path, limits: IndexLimits) -> (WorkspaceIndex, Built) {
        let index = WorkspaceIndex::new(limits);
        let options = RunOptions::default();
        let built = index.build(
            &[root.to_owned()],
            &options,
            &mut Configs::nearest(),
            &AtomicBool::new(false),
        );
        (index, built)
    }

    #[test]
    fn the_build_reads_what_check_reads_and_says_where_it_stopped() {
        let dir = workspace();
        let root = dir.path().canonicalize().unwrap();
        let (index, built) = build(&root, IndexLimits::default());
        assert_eq!(built.stopped_short, None);
        // a/ (the hidden file left out; notes.yaml read, to learn it is not a manifest) and b/;
        // not the ignored directory, not testdata.
        assert_eq!((built.directories, built.files), (2, 4));
        let state = index.state();
        let members: Vec<&Path> = state.directories[&root.join("a")]
            .files
            .iter()
            .filter(|(_, entry)| entry.is_member())
            .map(|(path, _)| path.strip_prefix(&root).unwrap())
            .collect();
        assert_eq!(
            members,
            [Path::new("a/deploy.yaml"), Path::new("a/pdb.yaml")]
        );
        drop(state);

        let few = IndexLimits {
            entries: 3,
            ..IndexLimits::default()
        };
        let (_, built) = build(&root, few);
        let why = built.stopped_short.unwrap();
        assert!(why.contains("more than 3 files and directories"), "{why}");
    }

    #[test]
    fn an_open_text_takes_the_place_of_the_file() {
        let dir = workspace();
        let root = dir.path().canonicalize().unwrap();
        let (index, _) = build(&root, IndexLimits::default());
        let options = RunOptions::default();
        let kinds = PodTemplateKinds::default();
        let context = DirectoryContext {
            options: &options,
            config: None,
            kinds: &kinds,
        };
        let deploy = root.join("a/deploy.yaml");
        let scoped = index.scope_of(&deploy, DEPLOYMENT, FileRole::Manifest, &context);
        assert_eq!(scoped.scope.unwrap().budgets().len(), 1);
        let before = scoped.generation;
        // The budget's file open with a text that holds none: the directory is its files'
        // own scopes, at a new generation.
        let pdb = root.join("a/pdb.yaml");
        index.open(&pdb, Arc::new(DEPLOYMENT.replace("web", "api")));
        let scoped = index.scope_of(&deploy, DEPLOYMENT, FileRole::Manifest, &context);
        assert!(scoped.scope.is_none());
        assert_ne!(scoped.generation, before);
        index.close(&pdb);
        let scoped = index.scope_of(&deploy, DEPLOYMENT, FileRole::Manifest, &context);
        assert_eq!(scoped.scope.unwrap().budgets().len(), 1);
    }
}
