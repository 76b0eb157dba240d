use crate::rules::declare_rule;

declare_rule! {
    /// ## What it does
    /// Finds a key written twice in the same mapping.
    ///
    /// ## Why is this bad?
    /// The two values do not merge. `kubectl` rejects the document with
    /// `mapping key "…" already defined at line …`, while other tools in a delivery chain
    /// (Helm among them) silently keep only the last value, so the first is lost without a
    /// word — a second `volumeMounts:` or `env:` drops everything the first one listed.
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
    ///     ports:
    ///     - containerPort: 80
    ///     ports:
    ///     - containerPort: 443
    /// ```
    ///
    /// Write the key once, with everything it should hold:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     ports:
    ///     - containerPort: 80
    ///     - containerPort: 443
    /// ```
    ///
    /// ## References
    /// - kubernetes/kubernetes#14791, "yaml and json parsers silently drop duplicate keys".
    /// - k8up-io/k8up#452: `kubectl` reporting `mapping key "timeoutSeconds" already defined`.
    pub static RULE = {
        name: "duplicate-key",
        category: Correctness,
        enforcement: Decoder,
        summary: "key written twice in one mapping",
        check: crate::rules::Check::Document,
    }
}
