//! The commented starter configuration `podcycle init` writes.

/// A configuration that changes nothing, every key commented out and explained; a test checks
/// that it reads without problems and points at [`super::SCHEMA_URL`].
pub(crate) const STARTER: &str = r#"# yaml-language-server: $schema=https://raw.githubusercontent.com/podcycle/podcycle/main/docs/schema/podcycle.schema.json
#
# podcycle's configuration. podcycle uses the nearest .podcycle.yaml above each file it lints;
# command-line flags override what is set here. docs/configuration.md explains every key.

# The Kubernetes version of your clusters, as "MAJOR.MINOR" (quoted).
# kube-version: "1.33"

# Rules or categories to run instead of the defaults (correctness, suspicious, advice).
# `podcycle rules` lists them all.
# select: [correctness, suspicious, advice]

# Rules or categories to run as well, and ones not to run.
# extend-select: [pedantic]
# ignore: [poststart-delays-containers]

# A different severity for a rule: error, warning or info.
# severity:
#   poststart-blocks-sidecar: error

# Exit with 1 when a finding at or above this severity is reported: error, warning (the
# default), info or never.
# fail-on: warning

# Files and directories not to lint when walking directories (globs, relative to this file).
# `exclude` replaces the default excludes (testdata, golden, "*.golden.*", directories named
# test, tests, e2e, fake, fakes, fixtures or __fixtures__, and test harnesses' directories):
# `exclude: []` lints them too; `extend-exclude` adds to them.
# exclude: [vendor, "generated/**"]
# extend-exclude: [examples/broken]

# Rules not to run for some files (globs, relative to this file).
# per-path-ignores:
#   "tests/**": [poststart-delays-containers]

# Containers that count as sidecars by name or image, besides the built-in list
# (docs/configuration.md, "Sidecars").
# sidecars:
#   - description: our mesh proxy
#     names: ["*-proxy"]
#     images: [platform/mesh-proxy]

# How the Helm charts under this file are rendered: the release, namespace and values files
# (after the chart's own values.yaml) per chart, relative to this file. A chart may be listed
# more than once, to render it once per entry; charts not listed get their own values.yaml.
# helm:
#   charts:
#     - path: charts/web
#       release: web
#       namespace: shop
#       values: [charts/web/values-prod.yaml]

# Kustomize's --load-restrictor for the overlays under this file: LoadRestrictionsRootOnly
# (Kustomize's default) or LoadRestrictionsNone, when the repository builds its overlays so;
# nothing outside the repository is loaded either way.
# kustomize:
#   load-restrictor: LoadRestrictionsNone

# Exit with 1 when a chart or overlay cannot be rendered (Helm or Kustomize missing, a render
# error, a dependency not vendored) instead of warning.
# fail-on-unrendered: true

# Custom workload kinds whose pod templates are linted, besides the built-in ones
# (docs/configuration.md, "Custom workload kinds").
# pod-templates:
#   - apiVersion: example.com/v1
#     kind: Widget
#     path: spec.template
#     like: Deployment

# How long your deploys wait for a rollout, in seconds (`helm upgrade --wait --timeout`);
# a StatefulSet whose rollout certainly takes longer is reported. Default 300.
# rollout-budget-seconds: 300

# The platforms that stop this cluster's pods (docs/platforms.md): shutdown plans are judged
# against their notices, grace caps and drain timeouts. Pods that select or tolerate Spot or
# preemptible nodes are judged against that platform without this.
# platforms: [gke-spot, cluster-autoscaler]
"#;

/// The starter configuration for a repository, with the directories the default excludes skip
/// in it named in a comment (paths relative to the configuration's directory).
pub(crate) fn starter_for(excluded_by_default: &[String]) -> String {
    const ANCHOR: &str = "# extend-exclude: [examples/broken]\n";
    const SHOWN: usize = 5;
    if excluded_by_default.is_empty() {
        return STARTER.to_owned();
    }
    let names: Vec<&str> = excluded_by_default
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect();
    let more = excluded_by_default.len() - names.len();
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let found = format!(
        "# Skipped here by the default excludes: {}{more}.\n",
        names.join(", ")
    );
    STARTER.replacen(ANCHOR, &format!("{ANCHOR}{found}"), 1)
}
