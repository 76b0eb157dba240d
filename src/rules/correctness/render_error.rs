use crate::rules::declare_rule;

declare_rule! {
    /// ## What it does
    /// Reports a Helm chart that `helm template` refuses, or a Kustomize overlay that
    /// `kustomize build` refuses, because of what is written in it: a template that calls
    /// `fail` or `required`, includes a template that does not exist, does not parse, or writes
    /// output that is not YAML; a values file or `Chart.yaml` that is not valid; a kustomization
    /// that lists a file that does not exist, a patch that matches nothing, or the same object
    /// twice. The finding is at the file, line and column the renderer names, with its message.
    ///
    /// Failures the chart or overlay cannot help — the renderer is not installed, a dependency
    /// is not vendored, a base is remote, a limit of podcycle's is reached — are not findings:
    /// the input is reported as not rendered, and `--fail-on-unrendered` decides whether that
    /// fails the run.
    ///
    /// ## Why is this bad?
    /// Nothing of a chart that Helm cannot render can be installed, and nothing of an overlay
    /// that Kustomize cannot build can be applied: the deployment fails before any object
    /// reaches the API server. A failing render is also a finding so that breaking a chart
    /// cannot hide its other findings and pass a check that failed before.
    ///
    /// ## Example
    /// A template of a chart (`templates/deployment.yaml`) that requires a value the chart's
    /// `values.yaml` does not set:
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       terminationGracePeriodSeconds: {{ required "drainSeconds is required" .Values.drainSeconds }}
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.27
    /// ```
    ///
    /// Give the value a default (or set it in `values.yaml`):
    /// ```yaml
    /// apiVersion: apps/v1
    /// kind: Deployment
    /// metadata:
    ///   name: web
    /// spec:
    ///   selector:
    ///     matchLabels: {app: web}
    ///   template:
    ///     metadata:
    ///       labels: {app: web}
    ///     spec:
    ///       terminationGracePeriodSeconds: {{ .Values.drainSeconds | default 30 }}
    ///       containers:
    ///       - name: web
    ///         image: nginx:1.27
    /// ```
    ///
    /// ## References
    /// - helm/helm `pkg/engine/engine.go`: `cleanupExecError` and `cleanupParseError` write
    ///   `execution error at (CHART/templates/x.yaml:LINE:COLUMN): MESSAGE`, the place this
    ///   finding is reported at; `pkg/engine/funcs.go`, `required` and `fail`.
    /// - kubernetes-sigs/kustomize `api/internal/target/kusttarget.go`
    ///   (`accumulateResources`, `accumulateDirectory`): the errors of a kustomization, wrapped
    ///   by each kustomization they pass through.
    /// - [Helm: the `required` function](https://helm.sh/docs/howto/charts_tips_and_tricks/#using-the-required-function)
    pub(crate) static RULE = {
        name: "render-error",
        category: Correctness,
        enforcement: Renderer,
        summary: "chart or overlay that Helm or Kustomize refuses to render",
        check: crate::rules::Check::Render,
    }
}
