use crate::rules::declare_rule;

declare_rule! {
    /// ## What it does
    /// Checks podcycle's own suppressions — `# podcycle: ignore[…]` and
    /// `# podcycle: ignore-file[…]` comments and the `podcycle.io/ignore` annotation — and
    /// reports one that:
    /// - silences nothing: none of the findings it names is reported where it applies;
    /// - names a rule that does not exist;
    /// - gives no reason (a comment needs text after the brackets, an annotation needs
    ///   `podcycle.io/ignore-reason`); such a suppression does not apply;
    /// - cannot be read (`# podcycle: ignor[…]`, a missing bracket).
    ///
    /// A suppression of a rule that is not enabled in the run is not reported: it may be in use
    /// where that rule runs. kube-linter's `ignore-check.kube-linter.io/…` annotations are
    /// honoured but never reported, since they are kube-linter's to check.
    ///
    /// ## Why is this bad?
    /// A suppression outlives the problem it was written for. Once the manifest is fixed, a
    /// stale suppression hides the next, unrelated finding of the same rule at that place. A
    /// misspelt rule name silences nothing from the start, and a suppression without a reason
    /// leaves the next reader guessing whether it may go.
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
    ///     image: example/web:1.0
    ///     lifecycle:
    ///       # podcycle: ignore[poststart-delay-containers] the worker must wait for the warm cache
    ///       postStart:
    ///         exec:
    ///           command: ["/bin/warm-cache"]
    ///   - name: worker
    ///     image: example/worker:1.0
    /// ```
    ///
    /// Name the rule as `podcycle rules` lists it, and remove suppressions that no longer
    /// silence anything:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: example/web:1.0
    ///     lifecycle:
    ///       # podcycle: ignore[poststart-delays-containers] the worker must wait for the warm cache
    ///       postStart:
    ///         exec:
    ///           command: ["/bin/warm-cache"]
    ///   - name: worker
    ///     image: example/worker:1.0
    /// ```
    ///
    /// ## References
    /// - [Suppressions](../suppressions.md): the comment and annotation forms and where each
    ///   applies.
    /// - ruff's `RUF100` (unused `noqa`) and Biome's required suppression explanations, which
    ///   this rule follows.
    pub(crate) static RULE = {
        name: "unused-suppression",
        category: Suspicious,
        enforcement: Advice,
        summary: "suppression that silences nothing, names an unknown rule or gives no reason",
        check: crate::rules::Check::Suppressions,
    }
}
