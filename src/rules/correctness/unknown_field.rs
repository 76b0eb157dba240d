use crate::model::path::FieldPath;
use crate::rules::{Findings, ObjectContext, Target, declare_rule};
use crate::suggest::did_you_mean_help;

declare_rule! {
    /// ## What it does
    /// Finds a field that the object's Kubernetes type does not have — usually a typo
    /// (`imagePullPolice`), a field at the wrong level (`livenessProbe` under `ports`), or a
    /// field of a newer API. Suggests the closest real field name.
    ///
    /// The misspelt field is reported once: another rule's finding about a field that is not
    /// written beside it (`containerPort` 0 where `grpcPort` was written) is not reported, since
    /// the value is missing only because the field was not read.
    ///
    /// Objects written against a legacy API version (`extensions/v1beta1`, `apps/v1beta2`,
    /// `batch/v1beta1`) are checked only inside their pod template, whose fields have not
    /// changed.
    ///
    /// ## Why is this bad?
    /// `kubectl` validates fields strictly by default (`--validate=strict`) and rejects the
    /// object. Where validation is relaxed, the API server drops the field silently: the probe,
    /// hook or setting you wrote never takes effect.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     readinesProbe:
    ///       httpGet:
    ///         path: /healthz
    ///         port: 80
    /// ```
    ///
    /// Use the field name the API defines:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     readinessProbe:
    ///       httpGet:
    ///         path: /healthz
    ///         port: 80
    /// ```
    ///
    /// ## References
    /// - kubernetes/api `core/v1/types.go`, `apps/v1/types.go`, `batch/v1/types.go`: the field
    ///   names of every type (podcycle decodes into the generated k8s-openapi types, v1.37).
    /// - [Field validation](https://kubernetes.io/docs/reference/using-api/api-concepts/#field-validation):
    ///   `Strict` rejects unknown fields; `kubectl` uses it by default.
    pub(crate) static RULE = {
        name: "unknown-field",
        category: Correctness,
        enforcement: ApiServer,
        summary: "field that the Kubernetes type does not have",
        check: crate::rules::Check::Object(check),
    }
}

fn check(ctx: &ObjectContext<'_>, findings: &mut Findings) {
    let kind = ctx.object.kind;
    let legacy = ctx.object.object.api_version != kind.current_api_version();
    let pod_spec_path = FieldPath::from_keys(kind.pod_spec_path());
    for unknown in &ctx.decoded.unknown_fields {
        let path = FieldPath::new(unknown.path.clone());
        // Legacy API versions had fields of their own outside the pod template.
        if legacy && !path.segments().starts_with(pod_spec_path.segments()) {
            continue;
        }
        let Some(podcycle_k8s::PathSegment::Key(name)) = unknown.path.last() else {
            continue;
        };
        let help = misplaced_security_field(unknown.type_name, name)
            .or_else(|| did_you_mean_help(name, unknown.known_fields))
            .unwrap_or_else(|| {
                format!(
                    "remove it; `{}` has no field of that name",
                    unknown.type_name
                )
            });
        findings
            .report(
                Target::key(path),
                format!("unknown field `{name}` in {}", unknown.type_name),
            )
            .help(help);
    }
}

/// Fields of a container's `securityContext` that the pod's does not have, and the other way
/// round (kubernetes/api `core/v1/types.go`, `SecurityContext` and `PodSecurityContext`).
const CONTAINER_ONLY_SECURITY_FIELDS: [&str; 5] = [
    "allowPrivilegeEscalation",
    "capabilities",
    "privileged",
    "procMount",
    "readOnlyRootFilesystem",
];
const POD_ONLY_SECURITY_FIELDS: [&str; 6] = [
    "fsGroup",
    "fsGroupChangePolicy",
    "seLinuxChangePolicy",
    "supplementalGroups",
    "supplementalGroupsPolicy",
    "sysctls",
];

/// Help for a security setting written in the wrong `securityContext`: removing it, as for
/// other unknown fields, would drop the hardening it asks for; it belongs in the other one.
fn misplaced_security_field(type_name: &str, name: &str) -> Option<String> {
    match type_name {
        "PodSecurityContext" if CONTAINER_ONLY_SECURITY_FIELDS.contains(&name) => Some(format!(
            "`{name}` is set per container: move it to the `securityContext` of each container (removing it drops the hardening it asks for)"
        )),
        "SecurityContext" if POD_ONLY_SECURITY_FIELDS.contains(&name) => Some(format!(
            "`{name}` is set for the whole pod: move it to the pod's `securityContext` (beside `containers`)"
        )),
        _ => None,
    }
}
