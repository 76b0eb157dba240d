use crate::rules::declare_rule;

declare_rule! {
    /// ## What it does
    /// Finds a value of the wrong type: a quoted number where Kubernetes expects an integer
    /// (`periodSeconds: "10"`), a list where it expects a mapping, or a YAML 1.1 boolean where
    /// it expects a string (`value: yes`, `value: on`).
    ///
    /// Values are typed the way `kubectl` types them: YAML 1.1 rules, so `yes`, `no`, `on`,
    /// `off`, `y` and `n` are booleans and `0644` is the octal number 420.
    ///
    /// ## Why is this bad?
    /// The API server cannot decode the object and rejects it
    /// (`json: cannot unmarshal string into Go struct field …`). The rest of the object is not
    /// checked by podcycle either, since its meaning is unclear.
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
    ///     env:
    ///     - name: FEATURE_ENABLED
    ///       value: yes
    /// ```
    ///
    /// Quote values that must stay strings:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     env:
    ///     - name: FEATURE_ENABLED
    ///       value: "yes"
    /// ```
    ///
    /// ## References
    /// - kubernetes/api `core/v1/types.go`: the type of every field.
    /// - kubernetes-sigs/yaml and go-yaml v2 `resolve.go`: how `kubectl` types plain YAML
    ///   scalars before sending JSON to the API server.
    pub static RULE = {
        name: "invalid-type",
        category: Correctness,
        enforcement: ApiServer,
        summary: "value of the wrong type for its field",
        check: crate::rules::Check::Document,
    }
}
