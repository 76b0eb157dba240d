use std::collections::HashMap;

use crate::model::path::FieldPath;
use crate::rules::{Findings, PodContext, Target, declare_rule};

declare_rule! {
    /// ## What it does
    /// Finds a container name used twice across `containers`, `initContainers` and
    /// `ephemeralContainers` of one pod spec.
    ///
    /// ## Why is this bad?
    /// Container names identify containers in status, logs, `kubectl exec` and probes'
    /// results. The API server rejects the pod (or the workload) with `Duplicate value`.
    ///
    /// The finding points where the API server does: at the init container that reuses an app
    /// container's name, at the ephemeral container that reuses any name, and otherwise at the
    /// later of two entries in the same list.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   initContainers:
    ///   - name: web
    ///     image: busybox:1.36
    ///     command: ["sh", "-c", "echo init"]
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    /// ```
    ///
    /// Give every container its own name:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   initContainers:
    ///   - name: web-init
    ///     image: busybox:1.36
    ///     command: ["sh", "-c", "echo init"]
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes `pkg/apis/core/validation/validation.go`: `validateContainers`,
    ///   `validateInitContainers` and `validateEphemeralContainers` report `field.Duplicate` on
    ///   the name that repeats an earlier one.
    pub(crate) static RULE = {
        name: "duplicate-container-name",
        category: Correctness,
        enforcement: ApiServer,
        summary: "container name used more than once in a pod",
        check: crate::rules::Check::Pod(check),
    }
}

fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let spec = ctx.site.spec;
    let path = &ctx.site.spec_path;
    // Kubernetes validates app containers first, then init containers against them, then
    // ephemeral containers against both; the later one in that order is the duplicate.
    let lists = [
        (
            "containers",
            spec.containers
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>(),
        ),
        (
            "initContainers",
            spec.init_containers
                .iter()
                .flatten()
                .map(|c| c.name.as_str())
                .collect(),
        ),
        (
            "ephemeralContainers",
            spec.ephemeral_containers
                .iter()
                .flatten()
                .map(|c| c.name.as_str())
                .collect(),
        ),
    ];
    let mut first_use: HashMap<&str, FieldPath> = HashMap::new();
    for (list, names) in &lists {
        for (index, &name) in names.iter().enumerate() {
            if name.is_empty() {
                continue;
            }
            let name_path = path.key(list).index(index).key("name");
            match first_use.get(name) {
                Some(first) => {
                    // Where the API server reports it: the later entry in its order, which
                    // across lists may come first in the file.
                    let same_list = first.parent().parent() == name_path.parent().parent();
                    let finding = findings
                        .report(
                            Target::value(name_path),
                            format!("container name `{name}` is used more than once"),
                        )
                        .label(
                            Target::value(first.clone()),
                            if same_list {
                                format!("`{name}` is first used here")
                            } else {
                                format!("`{name}` is also used here")
                            },
                        )
                        .help("give each container, init container and ephemeral container a unique name")
                        .container(name);
                    if !same_list {
                        finding.note(
                            "the API server checks `containers`, then `initContainers` against them, then `ephemeralContainers` against both, and names the later one",
                        );
                    }
                }
                None => {
                    first_use.insert(name, name_path);
                }
            }
        }
    }
}
