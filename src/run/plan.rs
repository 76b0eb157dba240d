//! Planning a run: which files are linted as they are and with what, which charts and overlays
//! are rendered and with what, and what is left out and why. Nothing is read but directories
//! and configurations, so that a broken configuration stops a run before any output.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use super::configs::Configs;
use super::options::{FilePlan, RunOptions};
use crate::config::Config;
use crate::discovery::harness::Marker;
use crate::discovery::kept::KeptTexts;
use crate::discovery::owners::{add_owner, chart_of_file, overlays_using};
use crate::discovery::roles::role_by_name;
use crate::discovery::{self, Discovered, FoundChart, Skip};
use crate::lint::FileRole;
use crate::render::{HelmOptions, Input, kustomize};

/// What a run reads, each input with its plan.
#[derive(Debug, Default)]
pub(crate) struct RunPlan {
    /// Standard input, when `-` is among the paths (and not left out).
    pub(crate) stdin: Option<StdinPlan>,
    /// Files linted as they are, in the order of discovery.
    pub(crate) files: Vec<(PathBuf, FilePlan)>,
    /// Charts and overlays to render.
    pub(crate) renders: Vec<RenderJob>,
    /// What discovery left out and could not read; its files, charts and overlays are above.
    pub(crate) discovered: Discovered,
    /// The texts of small manifests among `files`, kept from the read that classified them:
    /// their lint takes them instead of reading the file again.
    pub(crate) texts: KeptTexts,
}

/// Standard input and what it is linted with.
#[derive(Debug)]
pub(crate) struct StdinPlan {
    /// The name reported for it: `--stdin-filename`, else `-`.
    pub(crate) name: String,
    pub(crate) plan: FilePlan,
}

/// A chart or overlay to render, with what its output is linted and reported with.
#[derive(Clone, Debug)]
pub(crate) struct RenderJob {
    pub(crate) input: Input,
    pub(crate) plan: FilePlan,
    /// Template files named on the command line: only their findings are reported.
    pub(crate) named_templates: Vec<PathBuf>,
    /// The run's `--fail-on-unrendered` or `--no-fail-on-unrendered`, else the
    /// configuration's `fail-on-unrendered`; `None` when neither says.
    pub(crate) fail_on_unrendered: Option<bool>,
    /// The files named on the command line it is rendered for (a values file, a helper, a
    /// patch, a base resource), when it was not named or walked itself.
    pub(crate) rendered_for: Vec<PathBuf>,
}

impl RenderJob {
    /// Whether this chart or overlay, not rendered, fails the run (exit 1). As asked
    /// (`--fail-on-unrendered`, `--no-fail-on-unrendered`, `fail-on-unrendered` in the
    /// configuration); else when a file named on the command line is checked through it — a
    /// values file, a template, a patch: pre-commit names only the files a commit changes, and
    /// passing would say that a change nothing checked is clean. Not when rendering was turned
    /// off (`--no-render`, an untrusted workspace), nor under `fail-on: never`, which fail
    /// nothing.
    pub(crate) fn unrendered_fails(&self, rendering_off: bool) -> bool {
        match self.fail_on_unrendered {
            Some(asked) => asked,
            None => !rendering_off && self.plan.fail_at.is_some() && self.checks_named_files(),
        }
    }

    /// Whether a file named on the command line is checked through it.
    pub(crate) fn checks_named_files(&self) -> bool {
        !self.rendered_for.is_empty() || !self.named_templates.is_empty()
    }

    /// What a finding of a chart rendered with a release, namespace or values files of its
    /// own says of them, so that a chart rendered once per environment tells which one found
    /// it: `rendered as release `web-staging` in namespace `staging` with values-staging.yaml`.
    pub(crate) fn rendering_note(&self) -> Option<String> {
        let Input::Chart { options, .. } = &self.input else {
            return None;
        };
        let mut parts = Vec::new();
        if let Some(release) = &options.release {
            parts.push(format!("as release `{release}`"));
        }
        if let Some(namespace) = &options.namespace {
            parts.push(format!("in namespace `{namespace}`"));
        }
        if !options.values.is_empty() {
            let values: Vec<String> = options
                .values
                .iter()
                .map(|p| crate::render::shown_path(&std::path::absolute(p).unwrap_or(p.clone())))
                .collect();
            parts.push(format!("with {}", values.join(", ")));
        }
        (!parts.is_empty()).then(|| format!("rendered {}", parts.join(" ")))
    }
}

impl RunPlan {
    /// Plans a run over `paths` (`-` is standard input, named `stdin_name` when given; none is
    /// the current directory), with each input's configuration from `configs`. The errors of
    /// configurations met are left in `configs`.
    pub(crate) fn new(
        options: &RunOptions,
        configs: &mut Configs,
        paths: &[PathBuf],
        stdin_name: Option<&str>,
    ) -> RunPlan {
        let mut plan = RunPlan::default();
        if paths.iter().any(|p| p.as_os_str() == "-") {
            let shown = stdin_name.map(Path::new);
            let config = configs.for_file(shown.unwrap_or(Path::new("-")));
            let left_out =
                shown.is_some_and(|path| options.leaves_out(config.as_deref(), path, true));
            if !left_out {
                let name = stdin_name.unwrap_or("-");
                let role = role_by_name(Path::new(name));
                plan.stdin = Some(StdinPlan {
                    name: name.to_owned(),
                    plan: options.file_plan(config.as_deref(), shown, role),
                });
            }
        }
        let walked = walked_paths(paths);
        if walked.is_empty() {
            return plan;
        }
        let mut discovered = discovery::find(&walked, &options.walk.exclude, options.walk.options);
        let markers = std::mem::take(&mut discovered.markers);
        // The walked files the default excludes leave out are not read to tell what they are:
        // they are not linted whatever they are (`testdata` is often most of a repository's
        // YAML). Those a configuration excludes are, as before, counted by what they are.
        let mut to_read = Vec::new();
        // Left out neither by the configuration nor by the default excludes: linted if they
        // are manifests, and not asked again below.
        let mut included: HashSet<PathBuf> = HashSet::new();
        for path in std::mem::take(&mut discovered.walked) {
            let config = configs.for_file(&path);
            if options.leaves_out(config.as_deref(), &path, false) {
                to_read.push(path);
            } else if default_excluded(options, config.as_deref(), &walked, &markers, &path) {
                discovered.skipped.push((path, Skip::DefaultExcluded));
            } else {
                included.insert(path.clone());
                to_read.push(path);
            }
        }
        discovered.classify(to_read, |path| included.contains(path));
        let owners = Owned::find(options, configs, &walked, &mut discovered);
        let mut patches = std::mem::take(&mut discovered.patches);
        patches.read_beside(&discovered.files);
        for path in std::mem::take(&mut discovered.files) {
            let config = configs.for_file(&path);
            if options.leaves_out(config.as_deref(), &path, walked.contains(&path)) {
                discovered.skipped.push((path, Skip::Excluded));
            } else if !included.contains(&path)
                && default_excluded(options, config.as_deref(), &walked, &markers, &path)
            {
                discovered.skipped.push((path, Skip::DefaultExcluded));
            } else {
                let role = patches.role(&path);
                let mut file_plan = options.file_plan(config.as_deref(), Some(&path), role);
                file_plan.names_no_scope = discovered.names_no_scope.contains(&path);
                file_plan.unless_template = discovered.unless_template.contains(&path);
                plan.files.push((path, file_plan));
            }
        }
        for chart in std::mem::take(&mut discovered.charts) {
            let config = configs.for_file(&chart.dir.join("Chart.yaml"));
            let left_out = if chart.named_templates.is_empty() {
                config.as_deref().is_some_and(|c| c.excludes(&chart.dir))
            } else {
                options.walk.force_exclude
                    && chart
                        .named_templates
                        .iter()
                        .all(|t| options.excludes(config.as_deref(), t))
            };
            if left_out {
                discovered.skipped.push((chart.dir, Skip::Excluded));
            } else if chart.named_templates.is_empty()
                && default_excluded(options, config.as_deref(), &walked, &markers, &chart.dir)
            {
                discovered.skipped.push((chart.dir, Skip::DefaultExcluded));
            } else {
                let rendered_for = owners.chart_files(&chart.dir);
                plan.renders.extend(
                    chart_jobs(options, config.as_deref(), chart)
                        .into_iter()
                        .map(|mut job| {
                            job.rendered_for.clone_from(&rendered_for);
                            job
                        }),
                );
            }
        }
        let walked_overlays: Vec<PathBuf> = std::mem::take(&mut discovered.overlays);
        let mut overlays: Vec<(PathBuf, _)> = Vec::new();
        let owning = owners.overlays.iter().map(|(dir, _)| dir);
        for overlay in walked_overlays.iter().chain(owning) {
            if overlays.iter().any(|(dir, _)| same_path(dir, overlay)) {
                continue;
            }
            let config = configs.for_file(&overlay_marker(overlay));
            if config.as_deref().is_some_and(|c| c.excludes(overlay)) {
                discovered.skipped.push((overlay.clone(), Skip::Excluded));
            } else if default_excluded(options, config.as_deref(), &walked, &markers, overlay) {
                discovered
                    .skipped
                    .push((overlay.clone(), Skip::DefaultExcluded));
            } else {
                overlays.push((overlay.clone(), config));
            }
        }
        // Only the roots of the overlay graph are built; the overlays they build from are
        // linted through them.
        let dirs: Vec<PathBuf> = overlays.iter().map(|(dir, _)| dir.clone()).collect();
        let builds = crate::render::kustomize::plan_builds(&dirs);
        for (overlay, root) in &builds.through {
            if walked_overlays.contains(overlay) {
                let root = crate::render::display(root);
                discovered
                    .skipped
                    .push((overlay.clone(), Skip::BuiltThrough(root)));
            }
        }
        for (overlay, config) in overlays {
            if builds.builds.contains(&overlay) {
                let mut job = overlay_job(options, config.as_deref(), overlay.clone());
                job.rendered_for = owners.overlay_files(&overlay, &builds.through);
                if walked_overlays.contains(&overlay) {
                    job.rendered_for.clear();
                }
                plan.renders.push(job);
            }
        }
        // What walking found under the default excludes and set aside as not manifests was
        // not linted because of the excludes: counted with them.
        for (path, skip) in &mut discovered.skipped {
            let not_manifest = matches!(
                skip,
                Skip::Template { .. } | Skip::NotManifest | Skip::ChartFile
            );
            if not_manifest && !included.contains(path) {
                let config = configs.for_file(path);
                if default_excluded(options, config.as_deref(), &walked, &markers, path) {
                    *skip = Skip::DefaultExcluded;
                }
            }
        }
        plan.texts = std::mem::take(&mut discovered.texts);
        plan.discovered = discovered;
        plan
    }
}

/// Whether the default excludes keep `path` out of the run: when its configuration does not
/// replace them, a path below the directory named on the command line it was found under
/// matches one; a file named on the command line only with `--force-exclude`.
fn default_excluded(
    options: &RunOptions,
    config: Option<&Config>,
    walked: &[PathBuf],
    markers: &HashMap<PathBuf, Option<Marker>>,
    path: &Path,
) -> bool {
    if !config.is_none_or(Config::keeps_default_excludes) {
        return false;
    }
    let root = walked
        .iter()
        .filter(|root| path.starts_with(root))
        .max_by_key(|root| root.components().count());
    match root {
        Some(root) if root == path => {
            options.walk.force_exclude && discovery::default_excluded(Path::new(""), path)
        }
        Some(root) => discovery::default_excluded_with(root, path, markers),
        None => false,
    }
}

/// The charts and overlays the files named on the command line belong to, each with the
/// files that brought it in.
#[derive(Debug, Default)]
struct Owned {
    charts: Vec<(PathBuf, Vec<PathBuf>)>,
    overlays: Vec<(PathBuf, Vec<PathBuf>)>,
}

impl Owned {
    /// Finds the owners of the named files among `walked` and adds their charts to
    /// `discovered`: a chart's own files (values, metadata, helpers, `files/`) are read through
    /// the chart, which is then reported whole; an overlay's files are linted as they are too
    /// (a patch as a patch), and the overlays that build from them are rendered.
    fn find(
        options: &RunOptions,
        configs: &mut Configs,
        walked: &[PathBuf],
        discovered: &mut Discovered,
    ) -> Owned {
        let mut owned = Owned::default();
        let mut rest = Vec::new();
        for file in walked.iter().filter(|p| crate::render::files::is_file(p)) {
            let mut charts: Vec<PathBuf> = chart_of_file(file).into_iter().collect();
            if let Some(config) = configs.for_file(file) {
                for chart in config.charts_reading_values(file) {
                    if !charts.iter().any(|c| same_path(c, &chart)) {
                        charts.push(PathBuf::from(crate::render::shown_path(
                            &std::path::absolute(&chart).unwrap_or(chart),
                        )));
                    }
                }
            }
            if charts.is_empty() {
                rest.push(file.clone());
                continue;
            }
            discovered.files.retain(|f| f != file);
            discovered.skipped.push((file.clone(), Skip::ChartFile));
            for chart in charts {
                match discovered
                    .charts
                    .iter_mut()
                    .find(|c| same_path(&c.dir, &chart))
                {
                    // Reported whole: a changed helper or values file can change every
                    // template.
                    Some(found) => {
                        found.named_templates.clear();
                        add_owner(&mut owned.charts, found.dir.clone(), file);
                    }
                    None => {
                        add_owner(&mut owned.charts, chart.clone(), file);
                        discovered.charts.push(FoundChart {
                            dir: chart,
                            named_templates: Vec::new(),
                        });
                    }
                }
            }
        }
        if !rest.is_empty() {
            owned.overlays = overlays_using(&rest, &options.walk.exclude, options.walk.options);
        }
        owned
    }

    /// The named files a chart is rendered for.
    fn chart_files(&self, dir: &Path) -> Vec<PathBuf> {
        self.charts
            .iter()
            .filter(|(chart, _)| same_path(chart, dir))
            .flat_map(|(_, files)| files.iter().cloned())
            .collect()
    }

    /// The named files an overlay is built for: its own, and those of the overlays built
    /// through it.
    fn overlay_files(&self, built: &Path, through: &[(PathBuf, PathBuf)]) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = Vec::new();
        for (overlay, named) in &self.overlays {
            let reached = same_path(overlay, built)
                || through
                    .iter()
                    .any(|(o, root)| same_path(o, overlay) && same_path(root, built));
            if reached {
                for file in named {
                    if !files.contains(file) {
                        files.push(file.clone());
                    }
                }
            }
        }
        files
    }
}

/// Whether two paths name the same file or directory, however spelled.
fn same_path(a: &Path, b: &Path) -> bool {
    let key = |p: &Path| p.canonicalize().unwrap_or_else(|_| p.to_owned());
    a == b || key(a) == key(b)
}

/// The paths to walk: those given other than `-` (standard input), or the current directory
/// when none is given at all.
fn walked_paths(paths: &[PathBuf]) -> Vec<PathBuf> {
    if paths.is_empty() {
        return vec![PathBuf::from(".")];
    }
    paths
        .iter()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect()
}

/// The renderings of a chart: one per entry of the configuration's `helm.charts` for it, or
/// one with the chart's defaults; the run's `--helm-*` options on top of each.
pub(crate) fn chart_jobs(
    options: &RunOptions,
    config: Option<&Config>,
    chart: FoundChart,
) -> Vec<RenderJob> {
    let marker = chart.dir.join("Chart.yaml");
    let plan = options.file_plan(config, Some(&marker), FileRole::Manifest);
    let mut entries = config.map(|c| c.charts_for(&chart.dir)).unwrap_or_default();
    if entries.is_empty() {
        entries.push(crate::config::ChartSettings {
            dir: chart.dir.clone(),
            release: None,
            namespace: None,
            values: Vec::new(),
        });
    }
    let fail_on_unrendered = fail_on_unrendered(options, config);
    entries
        .into_iter()
        .map(|entry| {
            let mut values = entry.values;
            values.extend(options.helm.values.iter().cloned());
            RenderJob {
                input: Input::Chart {
                    dir: chart.dir.clone(),
                    options: HelmOptions {
                        release: options.helm.release.clone().or(entry.release),
                        namespace: options.helm.namespace.clone().or(entry.namespace),
                        values,
                        kube_version: Some(plan.settings.kube_version),
                    },
                },
                plan: plan.clone(),
                named_templates: chart.named_templates.clone(),
                fail_on_unrendered,
                rendered_for: Vec::new(),
            }
        })
        .collect()
}

/// The build of an overlay.
pub(crate) fn overlay_job(
    options: &RunOptions,
    config: Option<&Config>,
    dir: PathBuf,
) -> RenderJob {
    let plan = options.file_plan(config, Some(&overlay_marker(&dir)), FileRole::Manifest);
    RenderJob {
        input: Input::Overlay {
            dir,
            restrictor: config.and_then(|c| c.load_restrictor).unwrap_or_default(),
        },
        plan,
        named_templates: Vec::new(),
        fail_on_unrendered: fail_on_unrendered(options, config),
        rendered_for: Vec::new(),
    }
}

/// The file that stands for an overlay: its kustomization.
pub(crate) fn overlay_marker(dir: &Path) -> PathBuf {
    kustomize::kustomization_file(dir).unwrap_or_else(|| dir.join("kustomization.yaml"))
}

fn fail_on_unrendered(options: &RunOptions, config: Option<&Config>) -> Option<bool> {
    options
        .fail_on_unrendered
        .or_else(|| config.and_then(|c| c.fail_on_unrendered))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::options::ConfigChoice;

    /// A walked file the default excludes leave out is counted with them without being read:
    /// what reading a walked file learns of it (whether it names a budget) is known only of
    /// the files read.
    #[test]
    fn walked_files_the_default_excludes_leave_out_are_not_read() {
        let directory = tempfile::tempdir().unwrap();
        let root = directory.path().to_path_buf();
        let manifest = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        std::fs::create_dir(root.join("testdata")).unwrap();
        std::fs::write(root.join("app.yaml"), manifest).unwrap();
        std::fs::write(root.join("testdata/case.yaml"), manifest).unwrap();
        std::fs::write(root.join("testdata/notes.yaml"), "title: not a manifest\n").unwrap();
        let options = RunOptions::default();
        let mut configs = Configs::new(&ConfigChoice::Nothing).unwrap();
        let plan = RunPlan::new(&options, &mut configs, std::slice::from_ref(&root), None);
        let linted: Vec<&PathBuf> = plan.files.iter().map(|(path, _)| path).collect();
        assert_eq!(linted, [&root.join("app.yaml")]);
        let mut skipped: Vec<(PathBuf, Skip)> = plan.discovered.skipped.clone();
        skipped.sort();
        assert_eq!(
            skipped,
            [
                (root.join("testdata/case.yaml"), Skip::DefaultExcluded),
                (root.join("testdata/notes.yaml"), Skip::DefaultExcluded),
            ]
        );
        let read: Vec<&PathBuf> = plan.discovered.names_no_scope.iter().collect();
        assert_eq!(
            read,
            [&root.join("app.yaml")],
            "only the linted file was read"
        );
    }

    /// A small walked manifest is read once: the text that told what it is is the one its
    /// lint reads, so the file is not opened again (here it is gone by then, and linted all
    /// the same). A large one is read again by its lint, which says it is gone.
    #[test]
    fn a_small_walked_manifest_is_read_once() {
        use crate::discovery::kept::KEPT_FILE_BYTES;
        let directory = tempfile::tempdir().unwrap();
        let root = directory.path().to_path_buf();
        let small = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - {name: a, image: a:1}\n    - {name: a, image: a:1}\n";
        let padding = format!("# {}\n", "x".repeat(KEPT_FILE_BYTES));
        std::fs::write(root.join("small.yaml"), small).unwrap();
        std::fs::write(root.join("large.yaml"), format!("{padding}{small}")).unwrap();
        let options = RunOptions::default();
        let mut configs = Configs::new(&ConfigChoice::Nothing).unwrap();
        let mut plan = RunPlan::new(&options, &mut configs, std::slice::from_ref(&root), None);
        assert!(plan.texts.get(&root.join("small.yaml")).is_some());
        assert!(plan.texts.get(&root.join("large.yaml")).is_none());
        std::fs::remove_file(root.join("small.yaml")).unwrap();
        std::fs::remove_file(root.join("large.yaml")).unwrap();
        let mut checking = crate::run::Checking::new(&options);
        let texts = std::mem::take(&mut plan.texts);
        let unread = checking.files(std::mem::take(&mut plan.files), texts);
        let unread: Vec<&str> = unread.iter().map(|u| u.name.as_str()).collect();
        assert_eq!(unread, [root.join("large.yaml").display().to_string()]);
        let outcome = checking.finish(&plan.discovered);
        let linted: Vec<(&str, Vec<&str>)> = outcome
            .files
            .iter()
            .map(|file| {
                let name = file.report.file.path.rsplit('/').next().unwrap_or_default();
                let rules = file.report.diagnostics.iter().map(|d| d.rule).collect();
                (name, rules)
            })
            .collect();
        assert_eq!(linted.len(), 1, "{linted:?}");
        assert_eq!(linted[0].0, "small.yaml");
        assert!(
            linted[0].1.contains(&"duplicate-container-name"),
            "{linted:?}"
        );
    }
}
