use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a pod spec whose `containers` list is empty. In a Kustomize patch, which podcycle
    /// recognises as one, a partial pod spec is fine.
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload (`Required value`): a pod needs at least one
    /// app container. Init containers and sidecars alone do not make a pod.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers: []
    /// ```
    ///
    /// List the app container:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateContainers`
    ///   (`len(containers) == 0` is `Required`), called by `ValidatePodSpec`.
    pub(crate) static RULE = {
        name: "missing-containers",
        category: Correctness,
        enforcement: ApiServer,
        summary: "pod spec without any container",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    if ctx.site.spec.containers.is_empty() {
        findings
            .report(
                Target::key(ctx.site.spec_path.key("containers")),
                "the pod spec has no containers, which the API server requires",
            )
            .help("list at least one container under `containers`");
    }
}
