//! Reading kustomizations the way `kustomize build` will: which resources, components and
//! patches each one has, and — before anything runs — whether any of them is remote or a plugin.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::kustomization_file;
use crate::render::files::read_text;
use crate::yaml;

/// Where a patch is written.
#[derive(Clone, Debug)]
pub enum PatchSource {
    /// A file of its own.
    File(PathBuf),
    /// Inline in the kustomization, at `patches[index].patch` (or `patchesStrategicMerge[index]`).
    Inline { key: &'static str, index: usize },
}

/// Which list of the kustomization a patch is in; Kustomize applies them as different
/// transformers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchList {
    Patches,
    StrategicMerge,
    Json6902,
}

impl PatchList {
    /// The transformer kind Kustomize names in `alpha.config.kubernetes.io/transformations`.
    pub fn transformer(self) -> &'static str {
        match self {
            PatchList::Patches => "PatchTransformer",
            PatchList::StrategicMerge => "PatchStrategicMergeTransformer",
            PatchList::Json6902 => "PatchJson6902Transformer",
        }
    }
}

/// A patch and what it targets.
#[derive(Clone, Debug)]
pub struct Patch {
    pub list: PatchList,
    pub source: PatchSource,
    /// `target.kind` and `target.name` (a regular expression), when given.
    pub target_kind: Option<String>,
    pub target_name: Option<String>,
}

/// One kustomization file.
#[derive(Clone, Debug)]
pub struct Kustomization {
    pub dir: PathBuf,
    pub file: PathBuf,
    /// `kind: Component`.
    pub component: bool,
    /// Local directories among `resources` (and the legacy `bases`): other kustomizations.
    pub bases: Vec<PathBuf>,
    pub components: Vec<PathBuf>,
    pub patches: Vec<Patch>,
    /// `replacements`: values copied between objects.
    pub replacements: bool,
    /// Entries that would reach the network.
    pub remote: Vec<String>,
    /// Plugins and generators podcycle does not run (exec and KRM functions, `helmCharts`).
    pub plugins: Vec<String>,
}

impl Kustomization {
    /// Whether it changes the objects of its resources: patches, components, replacements.
    pub fn transforms(&self) -> bool {
        !self.patches.is_empty() || !self.components.is_empty() || self.replacements
    }
}

pub fn read_kustomization(dir: &Path) -> Result<Kustomization, String> {
    let dir = &normalize(dir);
    let file =
        kustomization_file(dir).ok_or_else(|| format!("{}: no kustomization", dir.display()))?;
    let text = read_text(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    let documents = yaml::parse_stream(&text);
    let value = match documents.first() {
        Some(document) => {
            if let Some(error) = document.errors.first() {
                return Err(format!("{}: {}", file.display(), error.message));
            }
            match document.root {
                Some(root) => yaml::to_json(document, root).map_err(|e| e.message)?,
                None => Value::Null,
            }
        }
        None => Value::Null,
    };
    let strings = |key: &str| -> Vec<String> {
        value
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    let mut kustomization = Kustomization {
        dir: dir.to_owned(),
        file: file.clone(),
        component: value.get("kind").and_then(Value::as_str) == Some("Component"),
        bases: Vec::new(),
        components: Vec::new(),
        patches: Vec::new(),
        replacements: value.get("replacements").is_some_and(|r| !r.is_null()),
        remote: Vec::new(),
        plugins: Vec::new(),
    };
    for entry in strings("resources").into_iter().chain(strings("bases")) {
        if is_remote(&entry) {
            kustomization.remote.push(entry);
        } else if dir.join(&entry).is_dir() {
            kustomization.bases.push(dir.join(&entry));
        }
    }
    for entry in strings("components") {
        if is_remote(&entry) {
            kustomization.remote.push(entry);
        } else {
            kustomization.components.push(dir.join(&entry));
        }
    }
    if value.get("helmCharts").is_some_and(|v| !v.is_null())
        || value
            .get("helmChartInflationGenerator")
            .is_some_and(|v| !v.is_null())
    {
        kustomization
            .plugins
            .push(format!("`helmCharts` ({})", file.display()));
    }
    for key in ["generators", "transformers", "validators"] {
        for entry in strings(key) {
            if is_remote(&entry) {
                kustomization.remote.push(entry);
                continue;
            }
            let path = dir.join(&entry);
            let declares_function = read_text(&path).is_ok_and(|text| {
                text.contains("config.kubernetes.io/function")
                    || text.contains("config.k8s.io/function")
            }) || entry.contains("config.kubernetes.io/function");
            if declares_function {
                kustomization.plugins.push(format!(
                    "a KRM or exec function in `{key}` ({})",
                    file.display()
                ));
            }
        }
    }
    for (index, entry) in value
        .get("patchesStrategicMerge")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
    {
        let Some(text) = entry.as_str() else { continue };
        let source = if text.contains('\n') {
            PatchSource::Inline {
                key: "patchesStrategicMerge",
                index,
            }
        } else {
            PatchSource::File(dir.join(text))
        };
        kustomization.patches.push(Patch {
            list: PatchList::StrategicMerge,
            source,
            target_kind: None,
            target_name: None,
        });
    }
    for (key, list) in [
        ("patches", PatchList::Patches),
        ("patchesJson6902", PatchList::Json6902),
    ] {
        for (index, entry) in value
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            let source = match (
                entry.get("path").and_then(Value::as_str),
                entry.get("patch"),
            ) {
                (Some(path), _) => PatchSource::File(dir.join(path)),
                (None, Some(_)) => PatchSource::Inline {
                    key: if list == PatchList::Patches {
                        "patches"
                    } else {
                        "patchesJson6902"
                    },
                    index,
                },
                (None, None) => continue,
            };
            let target = entry.get("target");
            let field = |name: &str| {
                target
                    .and_then(|t| t.get(name))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            kustomization.patches.push(Patch {
                list,
                source,
                target_kind: field("kind"),
                target_name: field("name"),
            });
        }
    }
    Ok(kustomization)
}

/// Removes `.` and `..` components without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    let mut normalized = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                if !normalized.pop() {
                    normalized.push("..");
                }
            }
            other => normalized.push(other),
        }
    }
    normalized
}

/// Whether a resource entry names something on the network: a URL, or a repository in
/// Kustomize's `github.com/org/repo//path?ref=v1` form.
pub fn is_remote(entry: &str) -> bool {
    let entry = entry.trim();
    entry.contains("://")
        || entry.starts_with("git@")
        || entry.contains("?ref=")
        || entry.contains("?version=")
        || [
            "github.com/",
            "gitlab.com/",
            "bitbucket.org/",
            "dev.azure.com/",
        ]
        .iter()
        .any(|host| entry.starts_with(host))
}

/// Every kustomization an overlay builds from, with what would make building it unsafe.
#[derive(Clone, Debug, Default)]
pub struct Tree {
    pub kustomizations: Vec<Kustomization>,
    pub remote: Vec<String>,
    pub plugins: Vec<String>,
}

impl Tree {
    pub fn read(overlay: &Path) -> Result<Tree, String> {
        let mut tree = Tree::default();
        let mut pending = vec![overlay.to_owned()];
        let mut seen: Vec<PathBuf> = Vec::new();
        while let Some(dir) = pending.pop() {
            let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            if seen.contains(&canonical) || seen.len() > 1000 {
                continue;
            }
            seen.push(canonical);
            // A missing base is Kustomize's to report.
            let Ok(kustomization) = read_kustomization(&dir) else {
                continue;
            };
            tree.remote.extend(kustomization.remote.iter().cloned());
            tree.plugins.extend(kustomization.plugins.iter().cloned());
            pending.extend(kustomization.bases.iter().cloned());
            pending.extend(kustomization.components.iter().cloned());
            tree.kustomizations.push(kustomization);
        }
        Ok(tree)
    }

    /// The kustomization whose file is at `path` (absolute, normalized).
    pub fn by_file(&self, path: &Path) -> Option<&Kustomization> {
        let canonical = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
        let wanted = canonical(path);
        self.kustomizations
            .iter()
            .find(|k| k.file == path || canonical(&k.file) == wanted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remote_entries() {
        for remote in [
            "https://example.com/x.yaml",
            "github.com/org/repo//deploy?ref=v1",
            "git@github.com:org/repo.git",
            "ssh://git@host/repo",
        ] {
            assert!(is_remote(remote), "{remote}");
        }
        for local in ["../base", "deployment.yaml", "github-app/deploy.yaml"] {
            assert!(!is_remote(local), "{local}");
        }
    }
}
