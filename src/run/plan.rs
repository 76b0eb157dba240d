//! Planning a run: which files are linted as they are and with what, which charts and overlays
//! are rendered and with what, and what is left out and why. Nothing is read but directories
//! and configurations, so that a broken configuration stops a run before any output.

use std::path::{Path, PathBuf};

use super::configs::Configs;
use super::options::{FilePlan, RunOptions};
use crate::config::Config;
use crate::discovery::roles::{PatchIndex, role_by_name};
use crate::discovery::{Discovered, FoundChart, Skip, discover_with};
use crate::lint::FileRole;
use crate::render::{HelmOptions, Input, kustomize};

/// What a run reads, each input with its plan.
#[derive(Debug, Default)]
pub struct RunPlan {
    /// Standard input, when `-` is among the paths (and not left out).
    pub stdin: Option<StdinPlan>,
    /// Files linted as they are, in the order of discovery.
    pub files: Vec<(PathBuf, FilePlan)>,
    /// Charts and overlays to render.
    pub renders: Vec<RenderJob>,
    /// What discovery left out and could not read; its files, charts and overlays are above.
    pub discovered: Discovered,
}

/// Standard input and what it is linted with.
#[derive(Debug)]
pub struct StdinPlan {
    /// The name reported for it: `--stdin-filename`, else `-`.
    pub name: String,
    pub plan: FilePlan,
}

/// A chart or overlay to render, with what its output is linted and reported with.
#[derive(Clone, Debug)]
pub struct RenderJob {
    pub input: Input,
    pub plan: FilePlan,
    /// Template files named on the command line: only their findings are reported.
    pub named_templates: Vec<PathBuf>,
    /// The configuration's `fail-on-unrendered`, or the run's.
    pub fail_on_unrendered: bool,
}

impl RunPlan {
    /// Plans a run over `paths` (`-` is standard input, named `stdin_name` when given; none is
    /// the current directory), with each input's configuration from `configs`. The errors of
    /// configurations met are left in `configs`.
    pub fn new(
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
        let mut discovered = discover_with(&walked, &options.walk.exclude, options.walk.options);
        let mut patches = PatchIndex::default();
        for path in std::mem::take(&mut discovered.files) {
            let config = configs.for_file(&path);
            if options.leaves_out(config.as_deref(), &path, walked.contains(&path)) {
                discovered.skipped.push((path, Skip::Excluded));
            } else {
                let role = patches.role(&path);
                let file_plan = options.file_plan(config.as_deref(), Some(&path), role);
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
            } else {
                plan.renders
                    .extend(chart_jobs(options, config.as_deref(), chart));
            }
        }
        let mut overlays = Vec::new();
        for overlay in std::mem::take(&mut discovered.overlays) {
            let config = configs.for_file(&overlay_marker(&overlay));
            if config.as_deref().is_some_and(|c| c.excludes(&overlay)) {
                discovered.skipped.push((overlay, Skip::Excluded));
            } else {
                overlays.push((overlay, config));
            }
        }
        // Only the roots of the overlay graph are built; the overlays they build from are
        // linted through them.
        let dirs: Vec<PathBuf> = overlays.iter().map(|(dir, _)| dir.clone()).collect();
        let builds = crate::render::kustomize::plan_builds(&dirs);
        for (overlay, root) in builds.through {
            discovered
                .skipped
                .push((overlay, Skip::BuiltThrough(crate::render::display(&root))));
        }
        for (overlay, config) in overlays {
            if builds.builds.contains(&overlay) {
                plan.renders
                    .push(overlay_job(options, config.as_deref(), overlay));
            }
        }
        plan.discovered = discovered;
        plan
    }
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
pub fn chart_jobs(
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
            }
        })
        .collect()
}

/// The build of an overlay.
pub fn overlay_job(options: &RunOptions, config: Option<&Config>, dir: PathBuf) -> RenderJob {
    let plan = options.file_plan(config, Some(&overlay_marker(&dir)), FileRole::Manifest);
    RenderJob {
        input: Input::Overlay { dir },
        plan,
        named_templates: Vec::new(),
        fail_on_unrendered: fail_on_unrendered(options, config),
    }
}

/// The file that stands for an overlay: its kustomization.
pub fn overlay_marker(dir: &Path) -> PathBuf {
    kustomize::kustomization_file(dir).unwrap_or_else(|| dir.join("kustomization.yaml"))
}

fn fail_on_unrendered(options: &RunOptions, config: Option<&Config>) -> bool {
    options.fail_on_unrendered || config.and_then(|c| c.fail_on_unrendered).unwrap_or(false)
}
