use crate::diagnostics::Enforcement;
use crate::rules::{DocumentContext, Findings, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a document that is not valid YAML (or a file that is not valid UTF-8), and a
    /// document whose aliases expand beyond a safe size or nest too deep.
    ///
    /// ## Why is this bad?
    /// `kubectl` cannot read the document, so nothing in it is applied. podcycle reports the
    /// first error of the document and goes on with the next document of the file (after the
    /// next `---`), so one broken document does not hide problems in the others.
    ///
    /// Aliases are expanded the way Kubernetes tooling expands them. A document whose aliases
    /// would expand to more than 100,000 values beyond the document's own (a "billion laughs"
    /// document) is reported instead of exhausting memory.
    ///
    /// podcycle reads at most 2 million values (scalars, collections, aliases) of one document,
    /// so that its memory stays within a small multiple of the input. A larger document is
    /// reported and not linted. No Kubernetes object comes near: every value takes at least
    /// 2 bytes once the object is JSON, and the API server accepts request bodies of at most
    /// 3 MiB (`MaxRequestBodyBytes`, k8s.io/apiserver `pkg/server/config.go`), so this finding
    /// is marked as the API server's.
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
    ///      imagePullPolicy: Always
    /// ```
    ///
    /// Indent every key of a mapping by the same amount:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: web
    /// spec:
    ///   containers:
    ///   - name: web
    ///     image: nginx:1.25
    ///     imagePullPolicy: Always
    /// ```
    ///
    /// ## References
    /// - [YAML 1.2 specification](https://yaml.org/spec/1.2.2/)
    /// - kubernetes-sigs/yaml, which `kubectl` uses to turn YAML into JSON.
    pub(crate) static RULE = {
        name: "yaml-syntax",
        category: Correctness,
        enforcement: Decoder,
        summary: "document that is not valid YAML",
        check: crate::rules::Check::Document(check),
    }
}

fn check(ctx: &DocumentContext<'_>, findings: &mut Findings) {
    for error in &ctx.document.errors {
        let finding = findings.report_span(error.span, error.message.clone());
        if error.too_large {
            // Valid YAML that kubectl reads; the API server refuses a request this large.
            finding.enforcement(Enforcement::ApiServer).help(
                "split the object, or exclude the file; a Kubernetes object cannot be this large: \
                 the API server accepts request bodies of at most 3 MiB",
            );
        }
    }
    for (_, error) in ctx.unconvertible {
        findings.report_span(error.span, error.message.clone());
    }
}
