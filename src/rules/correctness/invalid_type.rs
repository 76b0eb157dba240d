use crate::model::path::FieldPath;
use crate::rules::{Findings, ObjectContext, Target, declare_rule};
use crate::yaml::{ScalarStyle, lookup};

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
        check: crate::rules::Check::Object(check),
    }
}

fn check(ctx: &ObjectContext<'_>, findings: &mut Findings) {
    let Some(error) = &ctx.decoded.error else {
        return;
    };
    let path = FieldPath::new(error.path.clone());
    let document = ctx.document;
    let full = ctx.object.prefix.join(path.segments());
    let located = document
        .root
        .map(|root| lookup(document, root, full.segments()))
        .filter(|located| located.complete);
    // A wrong scalar is underlined; a wrong mapping or list is pointed at by its key, so the
    // finding does not cover the whole block.
    let scalar = located.as_ref().and_then(|l| document.scalar(l.node));
    let target = if located.is_some() && scalar.is_none() {
        Target::key(path)
    } else {
        Target::value(path)
    };
    // What was written, for help that names it: `y`, not only the YAML 1.1 spellings.
    let plain = scalar
        .filter(|s| s.style == ScalarStyle::Plain)
        .map(|s| s.value);
    let finding = findings.report(target, friendly_type_error(&error.message));
    if let Some(help) = type_error_help(&error.message, plain) {
        finding.help(help);
    }
}

/// serde's messages name Rust types; say what Kubernetes expects instead.
pub(crate) fn friendly_type_error(message: &str) -> String {
    let mut text = message.to_owned();
    for (rust, kubernetes) in [
        ("expected i32", "expected an integer"),
        ("expected i64", "expected an integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected u64", "expected a non-negative integer"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected `true` or `false`"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected a mapping"),
        ("expected struct ", "expected a mapping ("),
    ] {
        if let Some(at) = text.find(rust) {
            let closing = if kubernetes.ends_with('(') { ")" } else { "" };
            text = format!(
                "{}{kubernetes}{}{closing}",
                &text[..at],
                &text[at + rust.len()..]
            );
            break;
        }
    }
    text
}

/// A concrete fix for the type errors YAML makes easy: a quoted number, and an unquoted
/// YAML 1.1 boolean or a number where a string belongs. `written` is the plain scalar as
/// written, when there is one.
fn type_error_help(message: &str, written: Option<&str>) -> Option<String> {
    if message.starts_with("invalid type: string") && message.contains("expected i") {
        return Some("write the number without quotes".to_owned());
    }
    if message.starts_with("invalid type: boolean") && message.contains("expected a string") {
        let seen = written.map_or_else(String::new, |w| {
            format!("the unquoted `{w}` is a boolean: ")
        });
        return Some(format!(
            "quote the value: {seen}YAML 1.1, which kubectl reads, takes `y`, `yes`, `on`, `true`, `n`, `no`, `off` and `false` (lower case, capitalised or all capitals) as booleans"
        ));
    }
    if (message.starts_with("invalid type: integer")
        || message.starts_with("invalid type: floating point"))
        && message.contains("expected a string")
    {
        return Some(match written {
            Some(w) => format!("quote the value to keep it a string: `\"{w}\"`"),
            None => "quote the value to keep it a string".to_owned(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_names_what_was_written() {
        let help =
            type_error_help("invalid type: boolean `true`, expected a string", Some("y")).unwrap();
        assert!(help.contains("the unquoted `y` is a boolean"), "{help}");
        let help = type_error_help(
            "invalid type: floating point `1.3`, expected a string",
            Some("1.30"),
        )
        .unwrap();
        assert!(help.contains("`\"1.30\"`"), "{help}");
        assert!(!help.contains("1.29"));
    }
}
