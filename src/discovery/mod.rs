//! Finds what to lint: explicit files always; directories walked recursively for `*.yaml`,
//! `*.yml` and `*.json`, honouring `.gitignore`, `.ignore` and `--exclude` (unless isolated),
//! of which only Kubernetes manifests are linted as they are (`classify`); Helm charts and
//! Kustomize overlays to render; and, for `--show-files` and the summary, what was skipped and
//! why.

pub(crate) mod classify;
pub(crate) mod fixtures;
mod git_index;
pub(crate) mod harness;
pub(crate) mod kept;
mod listed;
pub(crate) mod owners;
pub mod roles;

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;
use rayon::prelude::*;

use self::classify::{FileClass, classify, classify_walked};
use self::kept::{Budget, KeptTexts};
use self::listed::Listed;
use self::roles::PatchIndex;
use crate::model::scope::may_hold_scope;
use crate::render::{helm, kustomize};
use crate::safe_fs::{FileKind, Reader, describe_io_error};

/// Extensions of manifest files found by walking a directory.
pub(crate) const MANIFEST_EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// Directories of version control systems and tools, never walked: they hold no manifests of
/// the project, only copies, caches and metadata. Other hidden directories are walked.
pub(crate) const TOOL_DIRECTORIES: [&str; 14] = [
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".jj",
    ".sl",
    ".pijul",
    ".idea",
    ".vscode",
    ".cache",
    ".terraform",
    ".venv",
    ".tox",
    ".direnv",
];

/// What is not linted by default when walking directories: Go's tools skip directories named
/// `testdata`, and golden files are a test's expected output — fixtures, not what a
/// repository deploys. The configuration's `exclude` replaces them, `extend-exclude` adds to
/// them. Matched against the names of the file and of the directories below the walked root.
/// Directories named for tests ([`TEST_DIRECTORIES`]) and the directories of test harnesses'
/// cases (`harness`) are excluded by default too, and replaced with these.
pub(crate) const DEFAULT_EXCLUDES: [&str; 3] = ["testdata", "golden", "*.golden.*"];

/// Names of directories that hold a program's tests and their inputs (`test/e2e`, Linkerd's
/// `fake/data`, JavaScript's `__fixtures__`), excluded by default with everything below them:
/// their manifests are written for a test, often broken on purpose, not deployed. A directory
/// so named that is itself a deployment unit, a Kustomize root or a Helm chart (the
/// `overlays/test` of a test environment), is what a repository deploys and is linted.
pub(crate) const TEST_DIRECTORIES: [&str; 7] = [
    "test",
    "tests",
    "e2e",
    "fake",
    "fakes",
    "fixtures",
    "__fixtures__",
];

/// Whether `dir` is a directory of tests' inputs by its name ([`TEST_DIRECTORIES`]) and not
/// a deployment unit.
fn is_test_directory(dir: &Path) -> bool {
    dir.file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|name| TEST_DIRECTORIES.contains(&name))
        && !kustomize::has_kustomization(dir)
        && !helm::is_chart(dir)
}

/// Why the default excludes leave a path out: the directory or file they match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum DefaultExclusion {
    /// A directory or file whose name a glob of [`DEFAULT_EXCLUDES`] matches.
    Named(PathBuf),
    /// A directory holding a test harness's own file.
    TestDirectory(PathBuf, harness::Marker),
    /// A directory named for tests ([`TEST_DIRECTORIES`]).
    TestsNamed(PathBuf),
}

impl fmt::Display for DefaultExclusion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |path: &Path| {
            crate::render::display(path)
                .trim_start_matches("./")
                .to_owned()
        };
        match self {
            DefaultExclusion::Named(path) => {
                let name = path.file_name().unwrap_or(path.as_os_str());
                if Path::new(name).extension().is_some() {
                    write!(f, "{}, a golden file", shown(path))
                } else if name == "testdata" {
                    write!(f, "in {}, a testdata directory", shown(path))
                } else {
                    write!(f, "in {}, a directory of golden files", shown(path))
                }
            }
            DefaultExclusion::TestDirectory(dir, marker) => {
                write!(f, "in {}, {}", shown(dir), marker.describe())
            }
            DefaultExclusion::TestsNamed(dir) => {
                write!(f, "in {}, a directory of tests", shown(dir))
            }
        }
    }
}

fn default_globs() -> &'static GlobSet {
    static DEFAULTS: std::sync::LazyLock<GlobSet> = std::sync::LazyLock::new(|| {
        let globs = DEFAULT_EXCLUDES.map(str::to_owned);
        exclude_set(&globs).unwrap_or_else(|_| GlobSet::empty())
    });
    &DEFAULTS
}

/// Whether a default exclude matches `path` below `root`, the directory named on the command
/// line it was found under: a directory named `testdata`, or one holding a test harness's own
/// file, is linted when named on the command line.
pub(crate) fn default_excluded(root: &Path, path: &Path) -> bool {
    default_excluded_with(root, path, &HashMap::new())
}

/// [`default_excluded`], with the test harnesses' markers of the directories a walk listed
/// ([`Discovered::markers`]) known: those are not listed again.
pub(crate) fn default_excluded_with(
    root: &Path,
    path: &Path,
    markers: &HashMap<PathBuf, Option<harness::Marker>>,
) -> bool {
    // The names first, which need no file system; then the directories' files.
    let (mut at, below) = match path.strip_prefix(root) {
        Ok(below) => (root.to_owned(), below),
        Err(_) => (PathBuf::new(), path),
    };
    if below
        .components()
        .any(|component| default_globs().is_match(Path::new(component.as_os_str())))
    {
        return true;
    }
    for component in below.components() {
        at.push(component);
        if at.as_path() == path && has_manifest_extension(path) {
            break;
        }
        let marked = match markers.get(&at) {
            Some(marker) => marker.is_some(),
            None => harness::test_directory(&at).is_some(),
        };
        if marked || is_test_directory(&at) {
            return true;
        }
    }
    false
}

/// What of `path` below `root` the default excludes match, if they do: the deepest directory
/// (or the file) they match, so that it is below `root` whatever `root` is.
pub(crate) fn default_exclusion(root: &Path, path: &Path) -> Option<DefaultExclusion> {
    let (mut at, below) = match path.strip_prefix(root) {
        Ok(below) => (root.to_owned(), below),
        Err(_) => (PathBuf::new(), path),
    };
    let mut found = None;
    for component in below.components() {
        at.push(component);
        if default_globs().is_match(Path::new(component.as_os_str())) {
            found = Some(DefaultExclusion::Named(at.clone()));
        } else if at.as_path() == path && has_manifest_extension(path) {
            // A manifest, not a directory with files.
        } else if is_test_directory(&at) {
            found = Some(DefaultExclusion::TestsNamed(at.clone()));
        } else if let Some(marker) = harness::test_directory(&at) {
            found = Some(DefaultExclusion::TestDirectory(at.clone(), marker));
        }
    }
    found
}

/// Whether the default excludes leave out a directory found by walking, by its own name or
/// files (not those of the directories above it).
pub(crate) fn excluded_directory(dir: &Path) -> bool {
    dir.file_name()
        .is_some_and(|name| default_globs().is_match(Path::new(name)))
        || is_test_directory(dir)
        || harness::test_directory(dir).is_some()
}

/// How a walk treats ignore files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WalkOptions {
    /// Honour no `.gitignore`, `.ignore` or global ignore file (`--isolated`).
    pub(crate) no_ignore_files: bool,
}

/// A Helm chart found, and the templates named on the command line, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FoundChart {
    pub(crate) dir: PathBuf,
    /// Template files named on the command line: only their findings are reported. Empty when
    /// the chart was found by walking or named as a directory.
    pub(crate) named_templates: Vec<PathBuf>,
}

/// The outcome of discovery: files in a stable order, and problems met on the way.
#[derive(Debug, Default)]
pub(crate) struct Discovered {
    /// Files to lint as they are.
    pub(crate) files: Vec<PathBuf>,
    /// Helm charts to render (library charts and vendored dependencies are not among them).
    pub(crate) charts: Vec<FoundChart>,
    /// Kustomize overlays to build.
    pub(crate) overlays: Vec<PathBuf>,
    /// What was not linted, and why.
    pub(crate) skipped: Vec<(PathBuf, Skip)>,
    /// Paths that do not exist or could not be read while walking.
    pub(crate) errors: Vec<String>,
    /// The kustomizations and tests read beside the walked files, which say whether a file is
    /// a patch: kept for the files' roles, so that no directory is read twice.
    pub(crate) patches: PatchIndex,
    /// The walked manifests whose text names no PodDisruptionBudget or
    /// HorizontalPodAutoscaler (`may_hold_scope`), learnt while classifying them: deciding
    /// which directories are judged together then reads none of them again.
    pub(crate) names_no_scope: HashSet<PathBuf>,
    /// The walked manifests that hold a placeholder of another tool: templates if they fail
    /// to parse at one, which their lint tells ([`FileClass::ManifestUnlessTemplate`]).
    pub(crate) unless_template: HashSet<PathBuf>,
    /// Each walked directory with the test harness's marker it holds, if any, learnt from the
    /// listing that finds what the walk left out: the default excludes then list none again.
    pub(crate) markers: HashMap<PathBuf, Option<harness::Marker>>,
    /// Walked files not yet read, whose kind only their text tells ([`find`]).
    pub(crate) walked: Vec<PathBuf>,
    /// The texts of small walked manifests, kept from the read that classified them for
    /// their lint ([`kept`]).
    pub(crate) texts: KeptTexts,
}

impl Discovered {
    /// Reads `walked` files on every core and sorts them by what they are ([`classify_walked`]):
    /// manifests to lint, the rest skipped and why.
    /// The texts of small manifests that `linted` says are linted are kept for their lint
    /// ([`Discovered::texts`]).
    pub(crate) fn classify(&mut self, walked: Vec<PathBuf>, linted: impl Fn(&Path) -> bool + Sync) {
        let reader = Reader::default();
        let budget = Budget::default();
        let classes: Vec<Option<Classified>> = walked
            .par_iter()
            .map(|path| class_of(&reader, path, linted(path).then_some(&budget)))
            .collect();
        for (path, class) in walked.into_iter().zip(classes) {
            if class.as_ref().is_some_and(|class| !class.names_scope) {
                self.names_no_scope.insert(path.clone());
            }
            let class = class.map(|class| {
                if let Some(text) = class.kept {
                    self.texts.insert(path.clone(), text);
                }
                class.class
            });
            match class {
                Some(FileClass::ChartFile) => self.skipped.push((path, Skip::ChartFile)),
                Some(FileClass::Template { marker, line }) => {
                    self.skipped.push((path, Skip::Template { marker, line }))
                }
                Some(FileClass::NotManifest) => self.skipped.push((path, Skip::NotManifest)),
                Some(FileClass::ManifestUnlessTemplate) => {
                    self.unless_template.insert(path.clone());
                    self.files.push(path);
                }
                Some(FileClass::Manifest) | None => self.files.push(path),
            }
        }
        self.files.sort();
        self.files.dedup();
        self.skipped.sort();
        self.skipped.dedup();
    }

    /// How many files and directories ignore files (`.gitignore`, `.ignore`) kept out of the
    /// walk.
    pub(crate) fn ignored(&self) -> (usize, usize) {
        self.skipped_for(&Skip::IgnoreFile)
    }

    /// How many files and directories (charts, overlays) the default excludes kept out.
    pub(crate) fn default_excluded(&self) -> (usize, usize) {
        self.skipped_for(&Skip::DefaultExcluded)
    }

    /// How many files and directories were skipped for `reason`.
    fn skipped_for(&self, reason: &Skip) -> (usize, usize) {
        let skipped = self.skipped.iter().filter(|(_, skip)| skip == reason);
        let directories = skipped.clone().filter(|(path, _)| path.is_dir()).count();
        (skipped.count() - directories, directories)
    }

    /// How many walked files were not linted because they are not Kubernetes manifests.
    pub(crate) fn not_manifests(&self) -> crate::report::NotManifests {
        let mut counts = crate::report::NotManifests::default();
        for (_, skip) in &self.skipped {
            match skip {
                Skip::Template { .. } => counts.templates += 1,
                Skip::ChartFile => counts.chart_files += 1,
                Skip::NotManifest => counts.other += 1,
                Skip::BuiltThrough(_) => counts.built_through += 1,
                _ => {}
            }
        }
        counts
    }
}

/// Why a file or directory was not linted as it is.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Skip {
    /// `--exclude` or the configuration's `exclude`.
    Excluded,
    /// The default excludes ([`DEFAULT_EXCLUDES`]).
    DefaultExcluded,
    /// A `.gitignore`, `.ignore` or global ignore file.
    IgnoreFile,
    /// A version-control or tool directory.
    ToolDirectory,
    /// A hidden file (`.pre-commit-config.yaml`): tool configuration, not manifests.
    HiddenFile,
    /// A chart's `templates/`: Go templates, linted through the rendered chart.
    HelmTemplates,
    /// A chart vendored under another chart's `charts/`: rendered with its parent.
    VendoredChart,
    /// A library chart: rendered through the charts that use it.
    LibraryChart,
    /// A Kustomize component: built through the overlays that use it.
    KustomizeComponent,
    /// A chart's values, metadata or `files/`: read through the rendered chart.
    ChartFile,
    /// A template for another tool: the first marker, and its line.
    Template { marker: &'static str, line: usize },
    /// YAML or JSON in which no document has `apiVersion` and `kind`.
    NotManifest,
    /// A Kustomize overlay another overlay of the run builds from: built through that one
    /// (named as users write it).
    BuiltThrough(String),
}

impl fmt::Display for Skip {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Skip::BuiltThrough(overlay) => {
                return write!(
                    f,
                    "Kustomize overlay another overlay builds from: built through {overlay}"
                );
            }
            Skip::Excluded => "excluded",
            Skip::DefaultExcluded => {
                "excluded by default: testdata, golden files, directories named for tests and test harnesses' test directories (`exclude` in .podcycle.yaml replaces the defaults)"
            }
            Skip::IgnoreFile => {
                "ignored by an ignore file (.gitignore, .ignore; --isolated lints it)"
            }
            Skip::ToolDirectory => "version-control or tool directory",
            Skip::HiddenFile => "hidden file",
            Skip::HelmTemplates => "Helm templates: linted through the rendered chart",
            Skip::VendoredChart => "vendored chart: rendered with the chart that depends on it",
            Skip::LibraryChart => "library chart: rendered through the charts that use it",
            Skip::KustomizeComponent => "Kustomize component: built with the overlays that use it",
            Skip::ChartFile => "chart file: read through the rendered chart",
            Skip::Template { marker, line } => {
                return write!(
                    f,
                    "template for another tool (`{marker}` on line {line}): not a manifest as it is"
                );
            }
            Skip::NotManifest => "not a Kubernetes manifest: no document has apiVersion and kind",
        })
    }
}

/// An `--exclude` glob that does not compile.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ExcludeError {
    #[error("invalid --exclude glob `{glob}`: {source}")]
    Glob {
        glob: String,
        #[source]
        source: globset::Error,
    },
    /// The globs compile one by one but not as a set.
    #[error(transparent)]
    Set(globset::Error),
}

/// Compiles `--exclude` globs.
pub(crate) fn exclude_set(globs: &[String]) -> Result<GlobSet, ExcludeError> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let compiled = Glob::new(glob).map_err(|source| ExcludeError::Glob {
            glob: glob.clone(),
            source,
        })?;
        builder.add(compiled);
    }
    builder.build().map_err(ExcludeError::Set)
}

/// Whether `--exclude` matches a path or a directory it is in: the whole path or its last
/// component (so `vendor` excludes every `vendor` directory, as in ruff and ripgrep, and
/// `--exclude deploy` excludes `deploy/web.yaml` when it is named on the command line).
pub(crate) fn excluded(exclude: &GlobSet, path: &Path) -> bool {
    let normalised = path.strip_prefix("./").unwrap_or(path);
    normalised
        .ancestors()
        .filter(|p| !p.as_os_str().is_empty() && *p != Path::new("."))
        .any(|p| exclude.is_match(p) || p.file_name().is_some_and(|name| exclude.is_match(name)))
}

#[cfg(test)]
pub(crate) fn discover(paths: &[PathBuf], exclude: &GlobSet) -> Discovered {
    discover_with(paths, exclude, WalkOptions::default())
}

/// Everything a walk of `paths` finds, every walked file read to tell what it is ([`find`],
/// then [`Discovered::classify`]).
#[cfg(test)]
pub(crate) fn discover_with(
    paths: &[PathBuf],
    exclude: &GlobSet,
    options: WalkOptions,
) -> Discovered {
    let mut discovered = find(paths, exclude, options);
    let walked = std::mem::take(&mut discovered.walked);
    discovered.classify(walked, |_| true);
    discovered
}

/// Finds what to lint under `paths`: the files named, the charts and overlays, what the walk
/// left out and why. The walked files whose kind only their text tells are not read yet:
/// [`Discovered::walked`] holds them for [`Discovered::classify`], so that a run reads none
/// that its excludes leave out.
pub(crate) fn find(paths: &[PathBuf], exclude: &GlobSet, options: WalkOptions) -> Discovered {
    let mut discovered = Discovered::default();
    let mut walked = Vec::new();
    for path in paths {
        match std::fs::metadata(path) {
            Err(error) => {
                discovered
                    .errors
                    .push(format!("{}: {}", path.display(), describe_io_error(&error)))
            }
            Ok(metadata) if metadata.is_dir() => {
                // A directory named on the command line is built even when it is only a base.
                if kustomize::has_kustomization(path) && !kustomize::is_component(path) {
                    discovered.overlays.push(path.clone());
                }
                walk(path, exclude, options, &mut walked, &mut discovered);
            }
            // pre-commit and editors pass files explicitly: lint them whatever their name, but
            // a Helm template only through its chart.
            Ok(_) => match helm::chart_of_template(path) {
                Some(chart) => add_named_template(&mut discovered, chart, path.clone()),
                None => discovered.files.push(path.clone()),
            },
        }
    }
    if paths.len() > 1 {
        spell_each_once(&mut discovered, &mut walked);
    }
    walked.sort();
    walked.dedup();
    // A file named on the command line is linted whatever it is; one found by walking, only
    // if it is a manifest. The files of overlays (kustomizations, patches) are linted as they
    // are linted now: a kustomization for its document checks, a patch as a patch.
    let named: HashSet<&PathBuf> = discovered.files.iter().collect();
    let patches = &mut discovered.patches;
    patches.read_beside(&walked);
    let (overlay_files, walked): (Vec<PathBuf>, Vec<PathBuf>) = walked
        .into_iter()
        .filter(|path| !named.contains(path))
        .partition(|path| is_kustomization_file(path) || patches.is_patch(path));
    discovered.files.extend(overlay_files);
    discovered.walked = walked;
    discovered.files.sort();
    discovered.files.dedup();
    discovered.charts.sort_by(|a, b| a.dir.cmp(&b.dir));
    discovered.charts.dedup_by(|b, a| {
        if a.dir == b.dir {
            // A chart both walked and named by a template: everything is reported.
            if a.named_templates.is_empty() || b.named_templates.is_empty() {
                a.named_templates.clear();
            } else {
                a.named_templates.append(&mut b.named_templates);
            }
            true
        } else {
            false
        }
    });
    for chart in &mut discovered.charts {
        chart.named_templates.sort();
        chart.named_templates.dedup();
    }
    discovered.overlays.sort();
    discovered.overlays.dedup();
    discovered.skipped.sort();
    discovered.skipped.dedup();
    discovered
}

/// Gives every file and directory reached more than once — named twice, named and walked, or
/// walked from two overlapping paths, under different names (`a.yaml`, `./a.yaml`, an
/// absolute path, a link) — the name it was first reached by, so that it is linted, rendered
/// and reported once. Only runs with several paths can reach anything twice.
fn spell_each_once(discovered: &mut Discovered, walked: &mut [PathBuf]) {
    let mut first: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut spell = |path: &mut PathBuf| {
        let key = std::fs::canonicalize(&*path).unwrap_or_else(|_| path.clone());
        let spelled = first.entry(key).or_insert_with(|| path.clone());
        path.clone_from(spelled);
    };
    discovered.files.iter_mut().for_each(&mut spell);
    for chart in &mut discovered.charts {
        spell(&mut chart.dir);
        chart.named_templates.iter_mut().for_each(&mut spell);
    }
    discovered.overlays.iter_mut().for_each(&mut spell);
    walked.iter_mut().for_each(&mut spell);
    for (path, _) in &mut discovered.skipped {
        spell(path);
    }
}

fn add_named_template(discovered: &mut Discovered, chart: PathBuf, template: PathBuf) {
    match discovered.charts.iter_mut().find(|c| c.dir == chart) {
        Some(found) if !found.named_templates.is_empty() => found.named_templates.push(template),
        Some(_) => {}
        None => discovered.charts.push(FoundChart {
            dir: chart,
            named_templates: vec![template],
        }),
    }
}

fn is_kustomization_file(path: &Path) -> bool {
    path.file_name()
        .and_then(OsStr::to_str)
        .is_some_and(|name| kustomize::KUSTOMIZATION_FILES.contains(&name))
}

/// What reading a walked file told of it.
struct Classified {
    class: FileClass,
    /// Whether its text names a budget or an autoscaler ([`may_hold_scope`]).
    names_scope: bool,
    /// Its text, kept for its lint: a small manifest, while the budget lasts.
    kept: Option<Vec<u8>>,
}

/// What a walked file is; `None` when it cannot be read, which linting it reports. Its text
/// is kept if it is a manifest and `budget` (none: it is not linted) allows.
fn class_of(reader: &Reader, path: &Path, budget: Option<&Budget>) -> Option<Classified> {
    let bytes = reader.read(path, FileKind::Manifest).ok()?;
    // Validation alone is several times faster than the lossy copy, which only text that is
    // not UTF-8 needs.
    let of = |text: &str| (classify_walked(path, text), may_hold_scope(text));
    let (class, names_scope) = match std::str::from_utf8(&bytes) {
        Ok(text) => of(text),
        Err(_) => of(&String::from_utf8_lossy(&bytes)),
    };
    let manifest = matches!(
        class,
        FileClass::Manifest | FileClass::ManifestUnlessTemplate
    );
    Some(Classified {
        class,
        names_scope,
        kept: budget
            .filter(|_| manifest)
            .and_then(|budget| budget.keep(bytes)),
    })
}

/// Whether a walked file whose kind discovery left for its lint to tell
/// ([`FileClass::ManifestUnlessTemplate`]) is a template for another tool, told by parsing it
/// here: for `--show-files`, which lints nothing.
pub(crate) fn template_skip(path: &Path) -> Option<Skip> {
    let bytes = Reader::default().read(path, FileKind::Manifest).ok()?;
    match classify(path, &String::from_utf8_lossy(&bytes)) {
        FileClass::Template { marker, line } => Some(Skip::Template { marker, line }),
        _ => None,
    }
}

fn walk(
    root: &Path,
    exclude: &GlobSet,
    options: WalkOptions,
    walked: &mut Vec<PathBuf>,
    discovered: &mut Discovered,
) {
    let exclude_for_filter = exclude.clone();
    let filter = move |entry: &ignore::DirEntry| {
        entry.depth() == 0
            || skip_reason(&exclude_for_filter, entry.path(), entry.file_type()).is_none()
    };
    // On every core: most of a walk is the kernel's, listing directories and looking for the
    // ignore files of each, and on one core it kept the other idle for a third of a run over
    // many small directories. Each thread gathers what it reached; the order is restored by
    // sorting below and where the results are merged.
    let reached = std::sync::Mutex::new(Vec::new());
    let mut builder = walker(root, !options.no_ignore_files);
    builder
        .filter_entry(filter)
        .threads(rayon::current_num_threads());
    builder
        .build_parallel()
        .visit(&mut Reaching { reached: &reached });
    let mut visited: HashSet<PathBuf> = HashSet::new();
    // By the walk's own file types: a link is not a directory, since links are not followed.
    // Each with whether it is the root.
    let mut directories: Vec<(PathBuf, bool)> = Vec::new();
    let mut errors = Vec::new();
    for reach in reached
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
    {
        visited.extend(reach.visited);
        directories.extend(reach.directories);
        walked.extend(reach.files);
        errors.extend(reach.errors);
    }
    errors.sort();
    discovered.errors.extend(errors);
    directories.sort();
    // Then, for each directory, on every core: whether it is a chart or an overlay, and what
    // the walk left out of it, and why (the entries it did not reach: one more listing of the
    // directories already walked, and none below them).
    let found: Vec<Discovered> = directories
        .par_iter()
        .map(|(directory, root)| {
            let mut found = Discovered::default();
            let listing = left_out(directory, &visited, exclude);
            found_directory(directory, *root, listing.listed, &mut found);
            found.skipped.extend(listing.skipped);
            found.markers.insert(directory.clone(), listing.marker);
            found.patches.listed_in(directory.clone(), listing.listed);
            found
        })
        .collect();
    for found in found {
        discovered.charts.extend(found.charts);
        discovered.overlays.extend(found.overlays);
        discovered.skipped.extend(found.skipped);
        discovered.markers.extend(found.markers);
        discovered.patches.merge_listed(found.patches);
    }
}

/// What one thread of a walk reached: every entry, the directories (each with whether it is
/// the root), the files with a manifest's extension, and the errors met.
#[derive(Default)]
struct Reach {
    visited: Vec<PathBuf>,
    directories: Vec<(PathBuf, bool)>,
    files: Vec<PathBuf>,
    errors: Vec<String>,
}

/// Hands each thread of a parallel walk its own [`Reach`], gathered when the thread ends.
struct Reaching<'a> {
    reached: &'a std::sync::Mutex<Vec<Reach>>,
}

impl<'s> ignore::ParallelVisitorBuilder<'s> for Reaching<'s> {
    fn build(&mut self) -> Box<dyn ignore::ParallelVisitor + 's> {
        Box::new(Reacher {
            reach: Reach::default(),
            reached: self.reached,
        })
    }
}

struct Reacher<'a> {
    reach: Reach,
    reached: &'a std::sync::Mutex<Vec<Reach>>,
}

impl ignore::ParallelVisitor for Reacher<'_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) -> ignore::WalkState {
        let reach = &mut self.reach;
        match entry {
            Ok(entry) => {
                reach.visited.push(entry.path().to_owned());
                if let Some(kind) = entry.file_type() {
                    if kind.is_dir() {
                        let root = entry.depth() == 0;
                        reach.directories.push((entry.into_path(), root));
                    } else if kind.is_file() && has_manifest_extension(entry.path()) {
                        reach.files.push(entry.into_path());
                    }
                }
            }
            Err(error) => reach.errors.push(error.to_string()),
        }
        ignore::WalkState::Continue
    }
}

impl Drop for Reacher<'_> {
    fn drop(&mut self) {
        let reach = std::mem::take(&mut self.reach);
        self.reached
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
            .push(reach);
    }
}

/// The walk of `root` every walk of manifests makes: links not followed, hidden entries kept,
/// and, with `ignore_files`, `.gitignore`, `.ignore` and the global ignore files honoured (those
/// of the directories above `root` too). Filter it with [`skip_reason`].
pub(crate) fn walker(root: &Path, ignore_files: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .follow_links(false)
        .hidden(false)
        .git_ignore(ignore_files)
        .git_global(ignore_files)
        .git_exclude(ignore_files)
        .ignore(ignore_files)
        .parents(ignore_files);
    builder
}

/// What one more listing of a walked directory tells: the entries the walk did not reach and
/// why, the marker of a test harness it holds, and which of the files discovery looks for are
/// there.
struct Listing {
    skipped: Vec<(PathBuf, Skip)>,
    marker: Option<harness::Marker>,
    listed: Listed,
}

fn left_out(directory: &Path, visited: &HashSet<PathBuf>, exclude: &GlobSet) -> Listing {
    let Ok(entries) = std::fs::read_dir(directory) else {
        // Not listed: a directory that cannot be read marks nothing, as for `harness`.
        return Listing {
            skipped: Vec::new(),
            marker: None,
            listed: Listed::UNKNOWN,
        };
    };
    let mut skipped = Vec::new();
    let mut markers = harness::Markers::default();
    let mut listed = Listed::default();
    for entry in entries.flatten() {
        let file_type = entry.file_type().ok();
        let name = entry.file_name();
        listed.see(&name);
        if file_type.is_some_and(|t| t.is_file()) {
            markers.see(&name);
        }
        let path = entry.path();
        if visited.contains(&path) {
            continue;
        }
        let is_dir = file_type.is_some_and(|t| t.is_dir());
        if !is_dir && !has_manifest_extension(&path) {
            continue;
        }
        let reason = skip_reason(exclude, &path, file_type).unwrap_or(Skip::IgnoreFile);
        skipped.push((path, reason));
    }
    Listing {
        skipped,
        marker: markers.first(),
        listed,
    }
}

/// Records a chart or an overlay found while walking; `listed` says which of their files the
/// directory's listing showed.
fn found_directory(dir: &Path, named: bool, listed: Listed, discovered: &mut Discovered) {
    if listed.may_hold("Chart.yaml") && helm::is_chart(dir) {
        match helm::read_chart(dir) {
            Ok(chart) if chart.library => {
                discovered
                    .skipped
                    .push((dir.to_owned(), Skip::LibraryChart));
            }
            _ => discovered.charts.push(FoundChart {
                dir: dir.to_owned(),
                named_templates: Vec::new(),
            }),
        }
    }
    let kustomization = kustomize::KUSTOMIZATION_FILES
        .iter()
        .any(|name| listed.may_hold(name));
    if !named && kustomization && kustomize::has_kustomization(dir) {
        if kustomize::is_component(dir) {
            discovered
                .skipped
                .push((dir.to_owned(), Skip::KustomizeComponent));
        } else if kustomize::is_overlay(dir) {
            discovered.overlays.push(dir.to_owned());
        }
    }
}

/// Why the walk leaves out an entry, if it does (ignore files aside).
pub(crate) fn skip_reason(
    exclude: &GlobSet,
    path: &Path,
    file_type: Option<std::fs::FileType>,
) -> Option<Skip> {
    let is_dir = file_type.is_some_and(|t| t.is_dir());
    let name = path.file_name().unwrap_or_default();
    if excluded(exclude, path) {
        return Some(Skip::Excluded);
    }
    if is_dir && TOOL_DIRECTORIES.iter().any(|tool| name == OsStr::new(tool)) {
        return Some(Skip::ToolDirectory);
    }
    if !is_dir && name.as_encoded_bytes().starts_with(b".") {
        return Some(Skip::HiddenFile);
    }
    if is_dir {
        let parent = path.parent().unwrap_or(Path::new(""));
        if name == "templates" && helm::is_chart(parent) {
            return Some(Skip::HelmTemplates);
        }
        if parent.file_name() == Some(OsStr::new("charts"))
            && parent.parent().is_some_and(helm::is_chart)
            && helm::is_chart(path)
        {
            return Some(Skip::VendoredChart);
        }
    }
    None
}

pub(crate) fn has_manifest_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| MANIFEST_EXTENSIONS.contains(&e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(globs: &[&str]) -> GlobSet {
        exclude_set(&globs.iter().map(|g| (*g).to_owned()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn an_excluded_directory_excludes_the_files_under_it() {
        let exclude = set(&["deploy"]);
        assert!(excluded(&exclude, Path::new("deploy/web.yaml")));
        assert!(excluded(&exclude, Path::new("./deploy/web.yaml")));
        assert!(excluded(&exclude, Path::new("apps/deploy/web.yaml")));
        assert!(!excluded(&exclude, Path::new("deployment/web.yaml")));
        let exclude = set(&["apps/legacy"]);
        assert!(excluded(&exclude, Path::new("apps/legacy/a/web.yaml")));
        assert!(!excluded(&exclude, Path::new("apps/web.yaml")));
        let exclude = set(&["*.json"]);
        assert!(excluded(&exclude, Path::new("a/b.json")));
        assert!(!excluded(&exclude, Path::new("a/b.yaml")));
    }

    #[test]
    fn hidden_directories_are_walked_and_tool_directories_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for file in [
            ".github/k8s/pod.yaml",
            ".git/config.yaml",
            "a/.hidden.yaml",
            "a/web.yaml",
            "build/out.yaml",
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "apiVersion: v1\nkind: Pod\n").unwrap();
        }
        std::fs::write(root.join(".ignore"), "build/\n").unwrap();
        let found = discover(&[root.to_owned()], &GlobSet::empty());
        let relative = |p: &PathBuf| p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let files: Vec<String> = found.files.iter().map(relative).collect();
        assert_eq!(files, [".github/k8s/pod.yaml", "a/web.yaml"]);
        let skipped: Vec<(String, Skip)> = found
            .skipped
            .iter()
            .map(|(p, s)| (relative(p), s.clone()))
            .collect();
        assert_eq!(
            skipped,
            [
                (".git".to_owned(), Skip::ToolDirectory),
                ("a/.hidden.yaml".to_owned(), Skip::HiddenFile),
                ("build".to_owned(), Skip::IgnoreFile),
            ]
        );
        let isolated = discover_with(
            &[root.to_owned()],
            &GlobSet::empty(),
            WalkOptions {
                no_ignore_files: true,
            },
        );
        let files: Vec<String> = isolated.files.iter().map(relative).collect();
        assert_eq!(
            files,
            [".github/k8s/pod.yaml", "a/web.yaml", "build/out.yaml"]
        );
    }
}
