//! The objects applied together: a PodDisruptionBudget or a HorizontalPodAutoscaler is matched
//! with the workloads of every manifest of its directory, as `kubectl apply -f DIR` applies
//! them together — not only those of its own file. (A rendered chart or overlay is one output,
//! its own scope.)
//!
//! The scope of a directory is gathered before its files are linted and travels in their
//! [`FilePlan`], so that `check`, `explain` and `--fix` lint each file against the same
//! objects and never disagree. Only directories where a file names a budget or an autoscaler
//! get one: elsewhere a file's own scope says the same.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::files::{ReadFile, UnreadFile, read_path, read_unless_kept, text_of};
use super::options::FilePlan;
use crate::discovery::kept::KeptTexts;
use crate::lint::FileRole;
use crate::model::scope::{Placed, Scope, may_hold_scope};
use crate::safe_fs::Reader;
use crate::source::SourceFile;

/// Gives every manifest of a directory that holds a budget or an autoscaler, among `files`,
/// the scope of all the manifests of that directory in `files`, read here: for showing what
/// each file is linted with (`--show-files`). `check` reads the same units in two
/// phases instead, each file parsed once (`directory_units`, `read_unit`). Files that
/// cannot be read are left out of it (linting them reports why).
pub(crate) fn share_directory_scopes(files: &mut [(PathBuf, FilePlan)], texts: &KeptTexts) {
    let reader = Reader::default();
    for members in directory_units(files, texts) {
        let parts: Vec<Scope> = members
            .par_iter()
            .filter_map(|&index| {
                let (path, plan) = &files[index];
                let kept = texts.get(path).map(<[u8]>::to_vec);
                let (name, bytes) = read_unless_kept(&reader, path, kept).ok()?;
                let file = SourceFile::new(name, text_of(bytes).0);
                Some(Scope::read_part(
                    &file,
                    plan.settings.pod_templates(),
                    plan.settings.kube_version,
                ))
            })
            .collect();
        share(files, &members, &join_unit(parts));
    }
}

/// A file of a run, ready to be linted in its turn ([`in_order`]).
pub(crate) enum Ready {
    /// Its own scope: lint the bytes.
    Bytes(String, Vec<u8>),
    /// A file of a directory judged together, read in the first phase when the first of its
    /// files came up, with the scope to finish it in.
    Read(Box<ReadFile>, Arc<Scope>),
}

/// Hands `each` the files of a run one at a time, in order, ready to lint: a directory judged
/// together is read (each file once, [`ReadFile`]) when its first file comes up, and its scope
/// joined, so that a front end that writes as it goes (`explain`) lints as `check` does and
/// parses each file once. Plans get the scope they are linted with, as in `check`.
pub(crate) fn in_order<E>(
    files: &mut [(PathBuf, FilePlan)],
    mut texts: KeptTexts,
    mut each: impl FnMut(&Path, &FilePlan, Result<Ready, UnreadFile>) -> Result<(), E>,
) -> Result<(), E> {
    let reader = Reader::default();
    let units = directory_units(files, &texts);
    let mut unit_of: HashMap<usize, usize> = HashMap::new();
    for (unit, members) in units.iter().enumerate() {
        for &index in members {
            unit_of.insert(index, unit);
        }
    }
    let mut read: HashMap<usize, Result<Ready, UnreadFile>> = HashMap::new();
    for index in 0..files.len() {
        let ready = match unit_of.get(&index) {
            None => {
                let path = &files[index].0;
                read_unless_kept(&reader, path, texts.take(path))
                    .map(|(name, bytes)| Ready::Bytes(name, bytes))
            }
            Some(&unit) => {
                if !read.contains_key(&index) {
                    let members = units[unit]
                        .iter()
                        .map(|&member| (member, texts.take(&files[member].0)))
                        .collect();
                    let unit = read_unit(files, members, &reader);
                    share(files, &unit.read_positions(), &unit.joined);
                    for (index, unread) in unit.unread {
                        read.insert(index, Err(unread));
                    }
                    for (n, (index, file)) in unit.read.into_iter().enumerate() {
                        let scope = unit.joined.scope(n);
                        read.insert(index, Ok(Ready::Read(Box::new(file), scope)));
                    }
                }
                match read.remove(&index) {
                    Some(result) => result,
                    None => read_path(&reader, &files[index].0)
                        .map(|(name, bytes)| Ready::Bytes(name, bytes)),
                }
            }
        };
        let (path, plan) = &files[index];
        each(path, plan, ready)?;
    }
    Ok(())
}

/// A directory judged together after its first phase: its files read, in order, each with its
/// part of the scope taken, those that could not be read, and what the parts joined to.
pub(crate) struct UnitRead {
    pub(crate) read: Vec<(usize, ReadFile)>,
    pub(crate) unread: Vec<(usize, UnreadFile)>,
    pub(crate) joined: Joined,
}

impl UnitRead {
    /// The positions of the files read, whose plans [`share`] writes.
    pub(crate) fn read_positions(&self) -> Vec<usize> {
        self.read.iter().map(|(index, _)| *index).collect()
    }
}

/// The first phase of a directory judged together, for `check` and `explain` alike: every file
/// read on every core ([`ReadFile`], each parsed once), and the parts joined.
pub(crate) fn read_unit(
    files: &[(PathBuf, FilePlan)],
    members: Vec<(usize, Option<Vec<u8>>)>,
    reader: &Reader,
) -> UnitRead {
    let results: Vec<(usize, Result<ReadFile, UnreadFile>)> = members
        .into_par_iter()
        .map(|(index, kept)| {
            let (path, plan) = &files[index];
            let read = read_unless_kept(reader, path, kept)
                .map(|(name, bytes)| ReadFile::new(name, bytes, plan));
            (index, read)
        })
        .collect();
    let mut read = Vec::new();
    let mut unread = Vec::new();
    for (index, result) in results {
        match result {
            Ok(file) => read.push((index, file)),
            Err(error) => unread.push((index, error)),
        }
    }
    let parts = read.iter_mut().map(|(_, file)| file.take_part()).collect();
    UnitRead {
        read,
        unread,
        joined: join_unit(parts),
    }
}

/// What the files of one directory are linted with: the scope they share, or why each is its
/// own.
pub(crate) enum Joined {
    Shared(Arc<Scope>),
    /// Why the files are alternatives, and each one's own scope, in order.
    Alone(Arc<str>, Vec<Arc<Scope>>),
}

impl Joined {
    /// The scope the `n`th file of the unit is linted in.
    pub(crate) fn scope(&self, n: usize) -> Arc<Scope> {
        match self {
            Joined::Shared(scope) => Arc::clone(scope),
            Joined::Alone(_, own) => own.get(n).map_or_else(Arc::default, Arc::clone),
        }
    }
}

/// Joins the parts of one directory's scope, one per file: their union, or, where two files
/// hold an object of one kind, namespace and name, why the files are alternatives, each then
/// its own scope.
pub(crate) fn join_unit(parts: Vec<Scope>) -> Joined {
    match alternatives(&parts) {
        Some(why) => Joined::Alone(
            Arc::from(why),
            parts
                .into_iter()
                .map(|part| Arc::new(part.matched()))
                .collect(),
        ),
        None => Joined::Shared(Arc::new(Scope::union(parts))),
    }
}

/// Writes what `members` are linted with into their plans.
pub(crate) fn share(files: &mut [(PathBuf, FilePlan)], members: &[usize], joined: &Joined) {
    for &index in members {
        let plan = &mut files[index].1;
        match joined {
            Joined::Shared(scope) => plan.scope = Some(Arc::clone(scope)),
            Joined::Alone(why, _) => plan.alone_because = Some(Arc::clone(why)),
        }
    }
}

/// The directories of `files` whose manifests are judged together: those with more than one
/// manifest, one of which names a budget or an autoscaler (elsewhere a file's own scope says
/// the same). Each is the positions of its files, in order. Only the text is looked at here,
/// not parsed, and not read again where discovery already found that it names neither kind.
pub(crate) fn directory_units(files: &[(PathBuf, FilePlan)], texts: &KeptTexts) -> Vec<Vec<usize>> {
    let mut by_directory: BTreeMap<&Path, Vec<usize>> = BTreeMap::new();
    for (index, (path, plan)) in files.iter().enumerate() {
        if plan.role == FileRole::Manifest {
            let directory = path.parent().unwrap_or(Path::new(""));
            by_directory.entry(directory).or_default().push(index);
        }
    }
    // One file alone is its own scope already.
    let candidates: Vec<Vec<usize>> = by_directory
        .into_values()
        .filter(|members| members.len() > 1)
        .collect();
    let reader = Reader::default();
    candidates
        .into_par_iter()
        .filter(|members| {
            members.iter().any(|&index| {
                let (path, plan) = &files[index];
                let names = |bytes: &[u8]| may_hold_scope(&String::from_utf8_lossy(bytes));
                !plan.names_no_scope
                    && match texts.get(path) {
                        Some(bytes) => names(bytes),
                        None => read_path(&reader, path).is_ok_and(|(_, bytes)| names(&bytes)),
                    }
            })
        })
        .collect()
}

/// How the manifests of one directory are judged.
#[derive(Clone, Debug)]
pub(crate) enum DirectoryScope {
    /// Each file is its own scope: the directory has one manifest, or none names a budget or
    /// an autoscaler.
    Own,
    /// Two files hold one object: each file is its own scope, for this reason.
    Alternatives(Arc<str>),
    /// One scope of every manifest of the directory.
    Shared(Arc<Scope>),
}

/// How `check` judges the manifests of a directory, decided from what they hold — the one
/// decision `check` ([`share_directory_scopes`]) and the language server's workspace index
/// make, so that they cannot drift apart. `members`: the directory's manifests, those that
/// cannot be read among them; `names`: whether the text of one of them names a budget or an
/// autoscaler ([`may_hold_scope`]); `parts`: the parts ([`Scope::read_part`]) of those that can
/// be read, asked for only when the directory is judged together.
pub(crate) fn directory_scope(
    members: usize,
    names: bool,
    parts: impl FnOnce() -> Vec<Scope>,
) -> DirectoryScope {
    if members < 2 || !names {
        return DirectoryScope::Own;
    }
    match join_unit(parts()) {
        Joined::Shared(scope) => DirectoryScope::Shared(scope),
        Joined::Alone(why, _) => DirectoryScope::Alternatives(why),
    }
}

/// Why the files of one directory are alternatives rather than one deployment: the first
/// object of a kind, namespace and name that two of them hold.
fn alternatives(parts: &[Scope]) -> Option<String> {
    let mut first: HashMap<(&str, Option<&str>, &str), &Placed> = HashMap::new();
    for part in parts {
        for (object, at) in part.placed_objects() {
            let Some(name) = object.name.as_deref() else {
                continue;
            };
            let key = (object.kind.as_str(), object.namespace.as_deref(), name);
            match first.get(&key) {
                Some(earlier) if earlier.file != at.file => {
                    return Some(format!(
                        "`{}` is in both {} and {}, so the files of this directory are alternatives, not judged together",
                        object.display_name(),
                        earlier.display(),
                        at.display()
                    ));
                }
                Some(_) => {}
                None => {
                    first.insert(key, at);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::{Checking, RunOptions};
    use crate::discovery::kept::KeptTexts;
    use crate::lint::FileRole;
    use crate::yaml::parsed;

    const DEPLOYMENT: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: web:1
";

    const BUDGET: &str = "apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  minAvailable: 100%
  selector:
    matchLabels: {app: web}
";

    /// `check` on a directory whose budget is in another file than the workload judges them
    /// together, and parses each file once (the scope's parts are read from the lint's trees).
    #[test]
    fn a_directory_judged_together_is_parsed_once() {
        let directory = tempfile::tempdir().unwrap();
        let marker = format!("{} {}", parsed::MARK, directory.path().display());
        let mut files: Vec<(PathBuf, _)> = Vec::new();
        let options = RunOptions::default();
        for (name, text) in [
            ("deploy.yaml", DEPLOYMENT),
            ("pdb.yaml", BUDGET),
            (
                "config.yaml",
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
            ),
        ] {
            let path = directory.path().join(name);
            std::fs::write(&path, format!("{marker}\n{text}")).unwrap();
            files.push((path, options.file_plan(None, None, FileRole::Manifest)));
        }
        let mut checking = Checking::new(&options);
        assert!(checking.files(files, KeptTexts::default()).is_empty());
        let rules: Vec<(&str, &str)> = checking
            .reports
            .iter()
            .flat_map(|report| {
                let name = report.file.path.rsplit('/').next().unwrap_or_default();
                report.diagnostics.iter().map(move |d| (name, d.rule))
            })
            .collect();
        assert!(
            rules.contains(&("pdb.yaml", "disruption-budget-blocks-eviction")),
            "{rules:?}"
        );
        assert_eq!(parsed::count(&marker), 3, "each of the three files once");
    }

    /// Discovery learns, while it classifies the walked files, which name no budget or
    /// autoscaler; the directories judged together are then decided from that, without
    /// reading those files again.
    #[test]
    fn what_discovery_read_decides_the_directories_judged_together() {
        let directory = tempfile::tempdir().unwrap();
        let root = directory.path().to_path_buf();
        for (name, text) in [("deploy.yaml", DEPLOYMENT), ("pdb.yaml", BUDGET)] {
            std::fs::write(root.join(name), text).unwrap();
        }
        let discovered = crate::discovery::discover_with(
            std::slice::from_ref(&root),
            &globset::GlobSet::empty(),
            crate::discovery::WalkOptions::default(),
        );
        let mut known: Vec<_> = discovered.names_no_scope.iter().cloned().collect();
        known.sort();
        assert_eq!(known, [root.join("deploy.yaml")]);
        let options = RunOptions::default();
        let plans = |budget_known_free: bool| -> Vec<(PathBuf, _)> {
            ["deploy.yaml", "pdb.yaml"]
                .into_iter()
                .map(|name| {
                    let mut plan = options.file_plan(None, None, FileRole::Manifest);
                    plan.names_no_scope =
                        discovered.names_no_scope.contains(&root.join(name)) || budget_known_free;
                    (root.join(name), plan)
                })
                .collect()
        };
        assert_eq!(
            super::directory_units(&plans(false), &KeptTexts::default()),
            [vec![0, 1]]
        );
        // Taken at its word: a file said to name neither kind is not read to check.
        assert!(super::directory_units(&plans(true), &KeptTexts::default()).is_empty());
    }

    /// `explain`'s walk over the files in order reads a directory judged together the same
    /// way: each file parsed once, the budget's file linted with the workload's.
    #[test]
    fn files_in_order_are_parsed_once() {
        let directory = tempfile::tempdir().unwrap();
        let marker = format!("{} in order {}", parsed::MARK, directory.path().display());
        let options = RunOptions::default();
        let mut files: Vec<(PathBuf, _)> = Vec::new();
        for (name, text) in [("deploy.yaml", DEPLOYMENT), ("pdb.yaml", BUDGET)] {
            let path = directory.path().join(name);
            std::fs::write(&path, format!("{marker}\n{text}")).unwrap();
            files.push((path, options.file_plan(None, None, FileRole::Manifest)));
        }
        let mut rules = Vec::new();
        let done: Result<(), ()> =
            super::in_order(&mut files, KeptTexts::default(), |_, plan, ready| {
                let super::Ready::Read(file, scope) = ready.unwrap() else {
                    panic!("a file of a directory judged together is read with it");
                };
                let crate::run::Walked::Report(report) = file.finish(plan, &scope, &mut |_| {})
                else {
                    panic!("a manifest is reported");
                };
                rules.extend(report.diagnostics.iter().map(|d| d.rule));
                Ok(())
            });
        assert!(done.is_ok());
        assert_eq!(rules, ["disruption-budget-blocks-eviction"]);
        assert_eq!(parsed::count(&marker), 2);
    }
}
