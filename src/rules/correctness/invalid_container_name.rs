use crate::rules::values::{dns_label_problem, ordinal_container};
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a container or init container without a `name`, or with a name that is not a DNS
    /// label: 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or
    /// digit.
    ///
    /// ## Why is this bad?
    /// The API server rejects the pod or workload (`Required value`, `Invalid value`), so
    /// nothing of it is applied. Without a name, podcycle's messages speak of the container by
    /// its position: "the 2nd container".
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   initContainers:
    ///   - name: Setup_1
    ///     image: busybox:1.36
    ///   containers:
    ///   - image: nginx:1.25
    /// ```
    ///
    /// Name every container with a DNS label:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   initContainers:
    ///   - name: setup-1
    ///     image: busybox:1.36
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`:
    ///   `validateContainerCommon` (`name` required, `ValidateDNS1123Label`).
    /// - kubernetes/apimachinery `pkg/util/validation/validation.go`: `IsDNS1123Label`.
    pub(crate) static RULE = {
        name: "invalid-container-name",
        category: Correctness,
        enforcement: ApiServer,
        summary: "container without a name, or with a name that is not a DNS label",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    for (list, containers) in [
        ("containers", &ctx.site.spec.containers[..]),
        (
            "initContainers",
            ctx.site.spec.init_containers.as_deref().unwrap_or_default(),
        ),
    ] {
        for (index, container) in containers.iter().enumerate() {
            let path = ctx.site.spec_path.key(list).index(index).key("name");
            let name = container.name.as_str();
            if name.is_empty() {
                findings
                    .report(
                        Target::value(path),
                        format!(
                            "{} has no `name`, which the API server requires",
                            ordinal_container(list, index)
                        ),
                    )
                    .help(
                        "give every container a unique name: lowercase letters, digits and dashes",
                    );
            } else if let Some(problem) = dns_label_problem(name) {
                findings
                    .report(
                        Target::value(path),
                        format!("container name `{name}` is not valid: {problem}"),
                    )
                    .help("use 1 to 63 lowercase letters, digits and dashes, starting and ending with a letter or digit")
                    .container(name);
            }
        }
    }
}
