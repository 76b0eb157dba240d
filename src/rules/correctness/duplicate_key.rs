use std::collections::HashMap;

use crate::diagnostics::Severity;
use crate::model::path::FieldPath;
use crate::rules::{DocumentContext, Findings, declare_rule};
use crate::yaml::{Document, Kind, NodeId, json_scalar};

declare_rule! {
    /// ## What it does
    /// Finds a key written twice in the same mapping.
    ///
    /// ## Why is this bad?
    /// The two values do not merge, and the tools disagree on what the document means.
    /// `kubectl apply -f` (through sigs.k8s.io/yaml) and Helm silently keep only the last value,
    /// so the first is lost without a word — a second `volumeMounts:` or `env:` drops
    /// everything the first one listed. `kustomize build` and `kubectl apply -k` reject the
    /// document: `mapping key "…" already defined at line …`.
    ///
    /// A key repeated with different values is an error: the manifest is either refused or
    /// silently loses data. A key repeated with the same value is a warning: nothing is lost,
    /// `kubectl apply -f` reads it (sigs.k8s.io/yaml's `YAMLToJSON` passes duplicate field
    /// names), but it is still a duplicate key, which the strict decoders refuse —
    /// Kustomize, and sigs.k8s.io/yaml's `YAMLToJSONStrict` and `UnmarshalStrict` (`key "a"
    /// already set in map`). The same value is the same value as the decoder types it:
    /// `type: "x"` and `type: x` are one string, `port: "80"` and `port: 80` are a string and
    /// a number, and differ.
    ///
    /// `apiVersion` or `kind` written twice at the top of a document is two objects run
    /// together, the `---` between them missing: it is reported once, where the second object
    /// starts, and the fix is the separator, not removing keys. A key written twice before any
    /// other (`apiVersion: v1` on two lines in a row) is a line repeated, reported as a
    /// duplicate key: a first object holds at least two keys.
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
    /// - kubernetes-sigs/yaml `yaml_test.go`, `TestYAMLToJSONStrict` and `TestUnmarshalStrict`:
    ///   `YAMLToJSON` passes on duplicate field names, the strict functions fail on them.
    pub(crate) static RULE = {
        name: "duplicate-key",
        category: Correctness,
        enforcement: Decoder,
        summary: "key written twice in one mapping",
        check: crate::rules::Check::Document(check),
    }
}

fn check(ctx: &DocumentContext<'_>, findings: &mut Findings) {
    let document = ctx.document;
    let run_together = objects_run_together(ctx, findings);
    // Each mapping's values by key node, built once: a mapping may repeat a key many times.
    let mut values_by_key: HashMap<NodeId, HashMap<NodeId, NodeId>> = HashMap::new();
    for duplicate in &document.duplicate_keys {
        if run_together && duplicate.path.len() == 1 {
            continue;
        }
        let key = &duplicate.key;
        let values_of = values_by_key.entry(duplicate.mapping).or_insert_with(|| {
            document
                .mapping(duplicate.mapping)
                .unwrap_or_default()
                .iter()
                .copied()
                .collect()
        });
        let values = (
            values_of.get(&duplicate.first_key).copied(),
            values_of.get(&duplicate.second_key).copied(),
        );
        let same = matches!(values, (Some(a), Some(b)) if same_value(document, a, b));
        let (message, help) = if same {
            (
                format!(
                    "`{key}` is written twice with the same value: `kustomize build` rejects the document (`kubectl apply -f` reads it)"
                ),
                format!("remove the second `{key}`"),
            )
        } else {
            (
                format!(
                    "`{key}` is written twice: `kubectl apply -f` keeps only the last value, and `kustomize build` rejects the document"
                ),
                format!("write `{key}` once, with everything it should hold"),
            )
        };
        let finding = findings
            .report_span(duplicate.second, message)
            .help(help)
            .span_label(duplicate.first, format!("`{key}` is first written here"))
            .field(FieldPath::new(duplicate.path.clone()));
        if same {
            finding.severity(Severity::Warning);
        }
    }
}

/// Whether two nodes hold the same value: scalars the same as the decoder types them (`"x"`
/// and `x` are one string, `"1"` and `1` a string and a number), and collections of such,
/// mappings in the same order; aliases followed. Bounded: a very large value counts as
/// different.
fn same_value(document: &Document, a: NodeId, b: NodeId) -> bool {
    let mut budget = 10_000usize;
    same_value_within(document, a, b, &mut budget)
}

fn same_value_within(document: &Document, a: NodeId, b: NodeId, budget: &mut usize) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let (a, b) = (document.resolve(a), document.resolve(b));
    if a == b {
        return true;
    }
    match (document.kind(a), document.kind(b)) {
        (Kind::Scalar(x), Kind::Scalar(y)) => json_scalar(&x) == json_scalar(&y),
        (Kind::Sequence(x), Kind::Sequence(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(&i, &j)| same_value_within(document, i, j, budget))
        }
        (Kind::Mapping(x), Kind::Mapping(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(&(ki, vi), &(kj, vj))| {
                    same_value_within(document, ki, kj, budget)
                        && same_value_within(document, vi, vj, budget)
                })
        }
        _ => false,
    }
}

/// What Kustomize does with a duplicate key, as the messages of this rule say it; a chart's
/// output is not built by Kustomize, so [`for_helm_output`] leaves it out there.
const KUSTOMIZE_CLAUSES: [&str; 3] = [
    ": `kustomize build` rejects the document (`kubectl apply -f` reads it)",
    ", and `kustomize build` rejects the document",
    " and `kustomize build` rejects it",
];

/// The message of a finding of this rule in a Helm chart's output: without what `kustomize
/// build` would do, which has nothing to do with a chart (and a same-value duplicate, which
/// `kubectl apply -f` reads, says so).
pub(crate) fn for_helm_output(message: &str) -> String {
    KUSTOMIZE_CLAUSES
        .iter()
        .fold(message.to_owned(), |message, clause| {
            let replacement = if clause.contains("reads it") {
                " (`kubectl apply -f` reads it)"
            } else {
                ""
            };
            message.replace(clause, replacement)
        })
}

/// Reports two objects written as one document — `apiVersion` or `kind` repeated at its top,
/// the `---` between them forgotten — once, where the second object starts; returns whether
/// it did, so that the keys repeated at the top are not each reported on their own.
fn objects_run_together(ctx: &DocumentContext<'_>, findings: &mut Findings) -> bool {
    let document = ctx.document;
    let top: Vec<_> = document
        .duplicate_keys
        .iter()
        // The path names the key itself: one segment is a key at the top of the document.
        .filter(|duplicate| duplicate.path.len() == 1)
        .collect();
    if !top
        .iter()
        .any(|duplicate| matches!(duplicate.key.as_str(), "apiVersion" | "kind"))
    {
        return false;
    }
    // The second object starts at the earliest key written again.
    let (Some(first), Some(second)) = (
        top.iter().min_by_key(|d| d.first.start),
        top.iter().min_by_key(|d| d.second.start),
    ) else {
        return false;
    };
    // A first object has at least two keys before the second starts (`apiVersion` and
    // `kind`, at least): `apiVersion: v1` written on two lines in a row is a line repeated,
    // which a `---` between them would leave as a document without `kind`.
    let before_second = top
        .iter()
        .filter(|d| d.first.start < second.second.start)
        .count();
    if before_second < 2 {
        return false;
    }
    let keys = crate::text::short_name_list(top.iter().map(|d| d.key.as_str()), top.len());
    let verb = if top.len() == 1 { "is" } else { "are" };
    findings
        .report_span(
            second.second,
            format!(
                "a second object starts here without `---`: {keys} {verb} written twice at the top of one document, so `kubectl apply -f` reads the two objects as one (the later values win) and `kustomize build` rejects it"
            ),
        )
        .help("put `---` on its own line before this one, so that each object is a document of its own")
        .span_label(first.first, "the first object starts here");
    true
}
