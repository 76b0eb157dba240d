//! Which overlays a run builds: only the roots of the overlay graph, those no other overlay of
//! the run builds from. An overlay that another uses as a base is built as part of it, and its
//! files' findings are placed in them through that build; building it on its own as well would
//! make a chain of N overlays cost N²/2 builds of a kustomization instead of N.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::tree::read_kustomization;

/// The overlays to build, and those built through another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Plan {
    /// Built, in the order given.
    pub(crate) builds: Vec<PathBuf>,
    /// Not built on their own: each with the overlay it is built through.
    pub(crate) through: Vec<(PathBuf, PathBuf)>,
}

/// Plans the builds of `overlays` (directories, as discovered). Each kustomization of the
/// graph is read once. Overlays that only build each other (a cycle, which Kustomize refuses)
/// are not all left out: the first of them is built, so that the cycle is reported.
pub(crate) fn plan_builds(overlays: &[PathBuf]) -> Plan {
    let key = |dir: &Path| dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    let keys: Vec<PathBuf> = overlays.iter().map(|dir| key(dir)).collect();
    let index: HashMap<&Path, usize> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.as_path(), i))
        .collect();
    // What each directory builds from directly, read once per directory.
    let mut edges: HashMap<PathBuf, Vec<PathBuf>> = HashMap::new();
    let mut pending: Vec<PathBuf> = keys.clone();
    while let Some(dir) = pending.pop() {
        if edges.contains_key(&dir) {
            continue;
        }
        let next: Vec<PathBuf> = read_kustomization(&dir)
            .map(|k| {
                k.bases
                    .iter()
                    .chain(&k.components)
                    .chain(&k.plugin_dirs)
                    .map(|d| key(d))
                    .collect()
            })
            .unwrap_or_default();
        pending.extend(next.iter().filter(|d| !edges.contains_key(*d)).cloned());
        edges.insert(dir, next);
    }
    // The overlays of the run each overlay builds from, directly or not.
    let reach: Vec<Vec<usize>> = keys
        .iter()
        .enumerate()
        .map(|(own, start)| {
            let mut seen: HashSet<&Path> = HashSet::new();
            let mut stack: Vec<&Path> = edges
                .get(start)
                .map(|e| e.iter().map(PathBuf::as_path).collect())
                .unwrap_or_default();
            let mut found = Vec::new();
            while let Some(dir) = stack.pop() {
                if !seen.insert(dir) {
                    continue;
                }
                if let Some(&other) = index.get(dir)
                    && other != own
                {
                    found.push(other);
                }
                if let Some(next) = edges.get(dir) {
                    stack.extend(next.iter().map(PathBuf::as_path));
                }
            }
            found
        })
        .collect();
    let mut used_by: Vec<Option<usize>> = vec![None; keys.len()];
    for (user, reached) in reach.iter().enumerate() {
        for &base in reached {
            used_by[base].get_or_insert(user);
        }
    }
    let mut built: Vec<bool> = used_by.iter().map(Option::is_none).collect();
    // Covered: built, or reached from something built.
    let mut covered = vec![false; keys.len()];
    let mark = |covered: &mut Vec<bool>, from: usize| {
        covered[from] = true;
        for &base in &reach[from] {
            covered[base] = true;
        }
    };
    for (i, &is_built) in built.iter().enumerate() {
        if is_built {
            mark(&mut covered, i);
        }
    }
    // Cycles with no root outside them: build their first member.
    for i in 0..keys.len() {
        if !covered[i] {
            built[i] = true;
            mark(&mut covered, i);
        }
    }
    let mut plan = Plan::default();
    for (i, dir) in overlays.iter().enumerate() {
        if built[i] {
            plan.builds.push(dir.clone());
        } else {
            let through = (0..keys.len())
                .find(|&user| built[user] && reach[user].contains(&i))
                .or(used_by[i])
                .unwrap_or(i);
            plan.through.push((dir.clone(), overlays[through].clone()));
        }
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlay(root: &Path, name: &str, base: &str) -> PathBuf {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("kustomization.yaml"),
            format!("resources: [../{base}]\npatches: [{{path: p.yaml}}]\n"),
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_chain_is_built_from_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("base")).unwrap();
        std::fs::write(
            root.join("base/kustomization.yaml"),
            "resources: [a.yaml]\n",
        )
        .unwrap();
        let mut overlays = vec![overlay(root, "o0", "base")];
        for i in 1..50 {
            overlays.push(overlay(root, &format!("o{i}"), &format!("o{}", i - 1)));
        }
        let plan = plan_builds(&overlays);
        assert_eq!(plan.builds, [root.join("o49")]);
        assert_eq!(plan.through.len(), 49);
        assert!(
            plan.through
                .iter()
                .all(|(_, through)| *through == root.join("o49"))
        );
    }

    #[test]
    fn independent_overlays_and_cycles_are_built() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let a = overlay(root, "a", "b");
        let b = overlay(root, "b", "a");
        let c = overlay(root, "c", "base");
        let plan = plan_builds(&[a.clone(), b.clone(), c.clone()]);
        assert_eq!(plan.builds, [a.clone(), c]);
        assert_eq!(plan.through, [(b, a)]);
    }
}
