//! Reading kustomizations the way `kustomize build` will: which resources, components and
//! patches each one has, and — before anything runs — whether any of them is remote or a plugin.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::kustomization_file;
pub(crate) use crate::render::boundary::normalize;
use crate::render::files::{ReadTextError, read_text};
use crate::yaml;

/// Where a patch is written.
#[derive(Clone, Debug)]
pub(crate) enum PatchSource {
    /// A file of its own.
    File(PathBuf),
    /// Inline in the kustomization, at `patches[index].patch` (or `patchesStrategicMerge[index]`).
    Inline { key: &'static str, index: usize },
}

/// Which list of the kustomization a patch is in; Kustomize applies them as different
/// transformers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PatchList {
    Patches,
    StrategicMerge,
    Json6902,
}

impl PatchList {
    /// The transformer kind Kustomize names in `alpha.config.kubernetes.io/transformations`.
    pub(crate) fn transformer(self) -> &'static str {
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
    pub(crate) list: PatchList,
    pub(crate) source: PatchSource,
    /// `target.kind` and `target.name` (a regular expression), when given.
    pub(crate) target_kind: Option<String>,
    pub(crate) target_name: Option<String>,
}

/// A path or address a kustomization makes Kustomize read: a file, a directory, or (what
/// podcycle refuses) a URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Load {
    /// Where it is written, as a user finds it: `patches[0].path`,
    /// `transformers[1] (PatchTransformer).path`.
    pub(crate) field: String,
    pub value: String,
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
    /// Local directories among `generators`, `transformers` and `validators`: kustomizations
    /// whose output configures plugins.
    pub plugin_dirs: Vec<PathBuf>,
    pub patches: Vec<Patch>,
    /// `replacements`: values copied between objects.
    pub replacements: bool,
    /// Every path and address Kustomize loads for this kustomization (see [`loads`]).
    pub loads: Vec<Load>,
    /// Entries that would reach the network.
    pub remote: Vec<String>,
    /// Plugins and generators podcycle does not run (exec and KRM functions, `helmCharts`).
    pub plugins: Vec<String>,
    /// Plugin configurations that are built-ins but not ones podcycle knows (refused where the
    /// input is not trusted).
    pub unknown_builtins: Vec<String>,
    /// Its top-level keys other than `resources` and `bases` (and the object's own
    /// `apiVersion`, `kind`, `metadata`): what transforms or adds to its resources.
    pub transforming_keys: Vec<String>,
}

impl Kustomization {
    /// Whether it changes the objects of its resources: patches, components, replacements.
    pub(crate) fn transforms(&self) -> bool {
        !self.patches.is_empty() || !self.components.is_empty() || self.replacements
    }

    /// Whether it is built on its own: it patches, uses components, overlays another
    /// kustomization, or names a file that is not there. One that only lists files that are
    /// there is a base: its files are linted as they are. One that names a missing file is
    /// built, so that Kustomize's refusal is reported (or the file is said to be generated):
    /// linting its other files alone would say nothing of it.
    pub(crate) fn is_built(&self) -> bool {
        !self.component && (self.transforms() || !self.bases.is_empty() || self.names_missing())
    }

    /// Whether a path it makes Kustomize load is missing (an address on the network aside).
    fn names_missing(&self) -> bool {
        self.loads.iter().any(|load| {
            !is_remote(&load.value)
                && std::fs::symlink_metadata(self.dir.join(&load.value)).is_err()
        })
    }
}

/// Why a directory's kustomization was not read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KustomizationError {
    #[error("{}: no kustomization", dir.display())]
    Missing { dir: PathBuf },
    /// podcycle does not read the file (a link out of the tree, too large, not UTF-8).
    #[error("{}: {source}", file.display())]
    Read {
        file: PathBuf,
        #[source]
        source: ReadTextError,
    },
    /// Not valid YAML, or YAML with no JSON value, for podcycle's reader (at `line`, 1-based):
    /// refused, since what podcycle cannot read it cannot screen.
    #[error("{}: {message}", file.display())]
    Invalid {
        file: PathBuf,
        message: String,
        line: Option<usize>,
    },
    /// More kustomizations than podcycle reads through for one overlay.
    #[error("{}: builds from more than {MAX_KUSTOMIZATIONS} kustomizations", overlay.display())]
    TooMany { overlay: PathBuf },
}

/// Reads the kustomization of `dir` and everything it names.
pub(crate) fn read_kustomization(dir: &Path) -> Result<Kustomization, KustomizationError> {
    let dir = &normalize(dir);
    let file = kustomization_file(dir).ok_or_else(|| KustomizationError::Missing {
        dir: dir.to_owned(),
    })?;
    let text = read_text(&file).map_err(|source| KustomizationError::Read {
        file: file.clone(),
        source,
    })?;
    let invalid = |message: String, at: usize| KustomizationError::Invalid {
        file: file.clone(),
        message,
        line: Some(text[..at.min(text.len())].matches('\n').count() + 1),
    };
    let documents = yaml::parse_stream(&text);
    let value = match documents.first() {
        Some(document) => {
            if let Some(error) = document.errors.first() {
                return Err(invalid(error.message.clone(), error.span.start as usize));
            }
            match document.root {
                Some(root) => yaml::to_json(document, root)
                    .map_err(|e| invalid(e.message, e.span.start as usize))?,
                None => Value::Null,
            }
        }
        None => Value::Null,
    };
    let mut kustomization = Kustomization {
        dir: dir.to_owned(),
        file: file.clone(),
        component: value.get("kind").and_then(Value::as_str) == Some("Component"),
        bases: Vec::new(),
        components: Vec::new(),
        plugin_dirs: Vec::new(),
        patches: Vec::new(),
        replacements: value.get("replacements").is_some_and(|r| !r.is_null()),
        loads: loads(&value),
        remote: Vec::new(),
        plugins: Vec::new(),
        unknown_builtins: Vec::new(),
        transforming_keys: value
            .as_object()
            .into_iter()
            .flat_map(|object| object.keys())
            .filter(|key| {
                !["apiVersion", "kind", "metadata", "resources", "bases"].contains(&key.as_str())
            })
            .cloned()
            .collect(),
    };
    for entry in strings(&value, "resources")
        .into_iter()
        .chain(strings(&value, "bases"))
    {
        if is_remote(&entry) {
            kustomization.remote.push(entry);
        } else if dir.join(&entry).is_dir() {
            kustomization.bases.push(dir.join(&entry));
        }
    }
    for entry in strings(&value, "components") {
        if is_remote(&entry) {
            kustomization.remote.push(entry);
        } else {
            kustomization.components.push(dir.join(&entry));
        }
    }
    for key in ["helmCharts", "helmChartInflationGenerator", "helmGlobals"] {
        if value.get(key).is_some_and(|v| !v.is_null()) {
            kustomization
                .plugins
                .push(format!("`{key}` ({})", file.display()));
        }
    }
    for key in ["generators", "transformers", "validators"] {
        for (index, entry) in strings(&value, key).into_iter().enumerate() {
            if is_remote(&entry) {
                kustomization.remote.push(entry);
                continue;
            }
            // An entry is a plugin's configuration written inline (whatever parses as one, as
            // Kustomize decides: `NewResMapFromBytes`), a file of them, or a kustomization whose
            // output they are (`api/internal/target/kusttarget.go`).
            let inline = is_inline(&entry);
            let path = dir.join(&entry);
            if !inline && path.is_dir() {
                kustomization.plugin_dirs.push(path);
                continue;
            }
            let text = if inline {
                entry.clone()
            } else if std::fs::symlink_metadata(&path).is_err() {
                // Missing: Kustomize's to report — unless podcycle cannot even read the entry
                // as YAML, where Kustomize might read a configuration podcycle did not see.
                if yaml::parse_stream(&entry)
                    .iter()
                    .any(|document| !document.errors.is_empty())
                {
                    kustomization.plugins.push(format!(
                        "an entry of `{key}` podcycle cannot read (`{key}[{index}]`)"
                    ));
                }
                continue;
            } else {
                match read_text(&path) {
                    Ok(text) => text,
                    Err(error) => {
                        kustomization.plugins.push(format!(
                            "a plugin configuration podcycle cannot read (`{key}[{index}]`: {error})"
                        ));
                        continue;
                    }
                }
            };
            let configs = plugin_configs(&text, &format!("{key}[{index}]"));
            for plugin in configs.refused {
                kustomization
                    .plugins
                    .push(format!("{plugin} in `{key}` ({})", file.display()));
            }
            kustomization
                .unknown_builtins
                .extend(configs.unknown_builtins);
            kustomization.loads.extend(configs.loads);
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

/// The strings of the list `key`.
fn strings(value: &Value, key: &str) -> Vec<String> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// Every path or address a kustomization makes Kustomize load, by the fields of its
/// `types.Kustomization` that reach `Loader.Load` or `Loader.New` (kustomize
/// `api/internal/target/kusttarget.go`, `api/kv/kv.go`, `api/resource/factory.go`,
/// `api/internal/accumulator/loadconfigfromcrds.go`,
/// `api/internal/plugins/builtinconfig/loaddefaultconfig.go`). `Loader.Load` fetches any
/// `http://` or `https://` address; `Loader.New` clones git repositories.
pub fn loads(value: &Value) -> Vec<Load> {
    let mut loads = Vec::new();
    let mut push = |field: String, value: &str| {
        loads.push(Load {
            field,
            value: value.to_owned(),
        });
    };
    for key in [
        "resources",
        "bases",
        "components",
        "crds",
        "configurations",
        "generators",
        "transformers",
        "validators",
    ] {
        for (index, entry) in strings(value, key).iter().enumerate() {
            // Inline plugin configurations are read by [`plugin_configs`].
            if !is_inline(entry) {
                push(format!("{key}[{index}]"), entry);
            }
        }
    }
    for (index, entry) in strings(value, "patchesStrategicMerge").iter().enumerate() {
        // Kustomize reads an entry as a patch when it parses as resources, and as a path
        // otherwise — a path may hold a newline (`PatchStrategicMergeTransformer.Config`).
        if !is_inline(entry) {
            push(format!("patchesStrategicMerge[{index}]"), entry);
        }
    }
    for key in ["patches", "patchesJson6902", "replacements"] {
        for (index, entry) in array(value, key).iter().enumerate() {
            if let Some(path) = entry.get("path").and_then(Value::as_str) {
                push(format!("{key}[{index}].path"), path);
            }
        }
    }
    for key in ["configMapGenerator", "secretGenerator"] {
        for (index, generator) in array(value, key).iter().enumerate() {
            generator_loads(generator, &format!("{key}[{index}]"), &mut push);
        }
    }
    if let Some(path) = value
        .get("openapi")
        .and_then(|o| o.get("path"))
        .and_then(Value::as_str)
    {
        push("openapi.path".to_owned(), path);
    }
    loads
}

fn array<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// `files` (`[key=]path`), `envs` and `env` of a ConfigMap or Secret generator (kustomize
/// `api/kv/kv.go`).
fn generator_loads(generator: &Value, at: &str, push: &mut dyn FnMut(String, &str)) {
    for (index, entry) in strings(generator, "files").iter().enumerate() {
        // `key=path` with one `=` (`api/kv/kv.go`, `ParseFileSource`); an address anywhere in
        // the entry is screened whole.
        let path = match entry.split_once('=') {
            Some((_, path)) if !entry.contains("://") => path,
            _ => entry.as_str(),
        };
        push(format!("{at}.files[{index}]"), path);
    }
    for (index, entry) in strings(generator, "envs").iter().enumerate() {
        push(format!("{at}.envs[{index}]"), entry);
    }
    if let Some(env) = generator.get("env").and_then(Value::as_str) {
        push(format!("{at}.env"), env);
    }
}

/// What the plugin configurations of a `generators`, `transformers` or `validators` entry make
/// Kustomize load, and what would run a program.
#[derive(Debug, Default)]
pub struct PluginConfigs {
    pub(crate) loads: Vec<Load>,
    /// Plugins podcycle does not run, described.
    pub refused: Vec<String>,
    /// Built-in plugins podcycle does not know, described.
    pub(crate) unknown_builtins: Vec<String>,
}

/// The built-in plugins of Kustomize (`api/internal/builtins`, `api/krusty`'s plugin list).
const BUILTIN_KINDS: [&str; 19] = [
    "AnnotationsTransformer",
    "ConfigMapGenerator",
    "HashTransformer",
    "IAMPolicyGenerator",
    "ImageTagTransformer",
    "LabelTransformer",
    "LegacyOrderTransformer",
    "NamespaceTransformer",
    "PatchJson6902Transformer",
    "PatchStrategicMergeTransformer",
    "PatchTransformer",
    "PrefixSuffixTransformer",
    "PrefixTransformer",
    "ReplacementTransformer",
    "ReplicaCountTransformer",
    "SecretGenerator",
    "SortOrderTransformer",
    "SuffixTransformer",
    "ValueAddTransformer",
];

/// Whether a `generators`, `transformers` or `validators` entry is a configuration written
/// inline rather than a path: Kustomize tries to read it as resources first
/// (`configureExternalGenerators` in `api/internal/target/kusttarget.go`), so a one-line flow
/// mapping (`{apiVersion: builtin, kind: …}`) is inline as much as a block is, and a
/// multi-line scalar is a path, newline and all.
pub(crate) fn is_inline(entry: &str) -> bool {
    yaml::parse_stream(entry).iter().any(|document| {
        document
            .root
            .is_some_and(|root| yaml::to_json(document, root).is_ok_and(|v| v.is_object()))
    })
}

/// Whether an `apiVersion` names Kustomize's built-in plugins: its group (before the first
/// `/`) empty and its version `builtin`, so `builtin` and `/builtin` alike (kyaml
/// `resid.ParseGroupVersion`; `isBuiltinPlugin` in `api/internal/plugins/loader/loader.go`).
pub(crate) fn is_builtin(api_version: &str) -> bool {
    match api_version.split_once('/') {
        Some((group, version)) => group.is_empty() && version == "builtin",
        None => api_version == "builtin",
    }
}

/// Reads plugin configurations (`text`, one or more YAML documents) as Kustomize's plugin
/// loader does (`api/internal/plugins/loader/loader.go`): a `…List` with `items` stands for its
/// items (`RNodesFromBytes` in `api/resource/factory.go`); a function is a document with the
/// annotation `config.kubernetes.io/function` (or `config.k8s.io/function`), read from the
/// decoded key, so no escape in the YAML hides it; a builtin plugin (`is_builtin`) loads the
/// files its fields name (`api/internal/builtins`); any other is an external plugin, which
/// podcycle does not run. A document podcycle cannot read is refused: what it cannot read it
/// cannot screen.
pub fn plugin_configs(text: &str, at: &str) -> PluginConfigs {
    let mut configs = PluginConfigs::default();
    let mut pending: std::collections::VecDeque<Value> = std::collections::VecDeque::new();
    for document in yaml::parse_stream(text) {
        if let Some(error) = document.errors.first() {
            configs.refused.push(format!(
                "a plugin configuration podcycle cannot read (`{at}`: {})",
                error.message
            ));
            continue;
        }
        let Some(root) = document.root else { continue };
        match yaml::to_json(&document, root) {
            Ok(value) => pending.push_back(value),
            Err(error) => configs.refused.push(format!(
                "a plugin configuration podcycle cannot read (`{at}`: {})",
                error.message
            )),
        }
    }
    while let Some(value) = pending.pop_front() {
        let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
        if kind.ends_with("List") {
            if let Some(items) = value.get("items").and_then(Value::as_array) {
                pending.extend(items.iter().cloned());
            }
            continue;
        }
        let annotations = value
            .get("metadata")
            .and_then(|m| m.get("annotations"))
            .and_then(Value::as_object);
        if annotations.is_some_and(|a| {
            a.keys().any(|key| {
                let key = key.trim();
                key == "config.kubernetes.io/function" || key == "config.k8s.io/function"
            })
        }) {
            configs
                .refused
                .push(format!("a KRM or exec function (`{kind}`)"));
            continue;
        }
        let api_version = value
            .get("apiVersion")
            .and_then(Value::as_str)
            .unwrap_or("");
        if !is_builtin(api_version) {
            configs.refused.push(format!(
                "the external plugin `{}` (`{}`)",
                crate::render::printable(kind),
                crate::render::printable(api_version)
            ));
            continue;
        }
        if !BUILTIN_KINDS.contains(&kind) && kind != "HelmChartInflationGenerator" {
            configs
                .unknown_builtins
                .push(format!("`{}` in `{at}`", crate::render::printable(kind)));
        }
        let at = format!("{at} ({kind})");
        match kind {
            "HelmChartInflationGenerator" => {
                configs.refused.push(format!("`{kind}`"));
            }
            "ConfigMapGenerator" | "SecretGenerator" => {
                generator_loads(&value, &at, &mut |field, path| {
                    configs.loads.push(Load {
                        field,
                        value: path.to_owned(),
                    });
                });
            }
            _ => {
                for key in ["path", "targetFilePath"] {
                    if let Some(path) = value.get(key).and_then(Value::as_str) {
                        configs.loads.push(Load {
                            field: format!("{at}.{key}"),
                            value: path.to_owned(),
                        });
                    }
                }
                for (index, path) in strings(&value, "paths").iter().enumerate() {
                    configs.loads.push(Load {
                        field: format!("{at}.paths[{index}]"),
                        value: path.clone(),
                    });
                }
                for (index, entry) in array(&value, "replacements").iter().enumerate() {
                    if let Some(path) = entry.get("path").and_then(Value::as_str) {
                        configs.loads.push(Load {
                            field: format!("{at}.replacements[{index}].path"),
                            value: path.to_owned(),
                        });
                    }
                }
            }
        }
    }
    configs
}

/// Whether a resource entry names something on the network: a URL, or a repository in
/// Kustomize's `github.com/org/repo//path?ref=v1` form.
pub(crate) fn is_remote(entry: &str) -> bool {
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
pub(crate) struct Tree {
    pub(crate) kustomizations: Vec<Kustomization>,
    pub(crate) remote: Vec<String>,
    pub(crate) plugins: Vec<String>,
    /// Kustomizations whose output configures plugins (`generators: [dir]`), by file.
    pub(crate) plugin_dirs: Vec<String>,
    /// Built-in plugins podcycle does not know.
    pub(crate) unknown_builtins: Vec<String>,
}

/// The most kustomizations one overlay is read through.
const MAX_KUSTOMIZATIONS: usize = 10_000;

impl Tree {
    /// Reads the overlay's kustomization and every one it builds from. A kustomization that
    /// podcycle does not read or cannot parse stops it (it would not be screened); a missing
    /// one is left to Kustomize to report.
    pub(crate) fn read(overlay: &Path) -> Result<Tree, KustomizationError> {
        let mut tree = Tree::default();
        // Each directory, and the kustomization whose plugins its output configures.
        let mut pending: Vec<(PathBuf, Option<usize>)> = vec![(overlay.to_owned(), None)];
        let mut seen: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
        while let Some((dir, configures)) = pending.pop() {
            let canonical = dir.canonicalize().unwrap_or_else(|_| dir.clone());
            if !seen.insert(canonical) {
                continue;
            }
            if seen.len() > MAX_KUSTOMIZATIONS {
                return Err(KustomizationError::TooMany {
                    overlay: overlay.to_owned(),
                });
            }
            let kustomization = match read_kustomization(&dir) {
                Ok(kustomization) => kustomization,
                // A missing base: Kustomize's to report.
                Err(KustomizationError::Missing { .. }) => continue,
                // One podcycle cannot read (a link out of the tree, too large) or parse (too
                // deep, too many values) is not screened, so it is not built either.
                Err(error) => return Err(error),
            };
            let index = tree.kustomizations.len();
            if let Some(parent) = configures {
                let shown = kustomization.file.display().to_string();
                tree.plugin_dirs.push(shown.clone());
                // What its own transformations make of the configurations (a JSON patch on
                // `/files/0`) podcycle cannot tell: only resources are screened.
                for key in &kustomization.transforming_keys {
                    tree.plugins.push(format!(
                        "`{key}` in a kustomization whose output configures plugins ({shown}), which podcycle cannot screen"
                    ));
                }
                // Its resources are plugin configurations, loaded from the parent's root.
                let mut configs = PluginConfigs::default();
                for load in &kustomization.loads {
                    let path = kustomization.dir.join(&load.value);
                    if !load.field.starts_with("resources[") || path.is_dir() {
                        continue;
                    }
                    if std::fs::symlink_metadata(&path).is_err() {
                        // Missing: Kustomize's to report.
                        continue;
                    }
                    match read_text(&path) {
                        Ok(text) => {
                            let found = plugin_configs(&text, &load.value);
                            configs.loads.extend(found.loads);
                            configs.refused.extend(found.refused);
                            configs.unknown_builtins.extend(found.unknown_builtins);
                        }
                        Err(error) => configs.refused.push(format!(
                            "a plugin configuration podcycle cannot read (`{}`: {error})",
                            load.value
                        )),
                    }
                }
                let parent = &mut tree.kustomizations[parent];
                parent.loads.extend(configs.loads);
                for plugin in configs.refused {
                    tree.plugins.push(format!("{plugin} ({shown})"));
                }
                tree.unknown_builtins.extend(configs.unknown_builtins);
            }
            tree.remote.extend(kustomization.remote.iter().cloned());
            tree.plugins.extend(kustomization.plugins.iter().cloned());
            tree.unknown_builtins
                .extend(kustomization.unknown_builtins.iter().cloned());
            // The bases of a kustomization that configures plugins configure them too.
            pending.extend(kustomization.bases.iter().map(|d| (d.clone(), configures)));
            pending.extend(
                kustomization
                    .components
                    .iter()
                    .map(|d| (d.clone(), configures)),
            );
            pending.extend(
                kustomization
                    .plugin_dirs
                    .iter()
                    .map(|d| (d.clone(), Some(index))),
            );
            tree.kustomizations.push(kustomization);
        }
        Ok(tree)
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
