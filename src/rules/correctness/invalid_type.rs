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
    pub(crate) static RULE = {
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
    let written = match (&located, scalar) {
        (_, Some(scalar)) => Written::Scalar {
            value: scalar.value,
            quoted: scalar.style != ScalarStyle::Plain,
        },
        // `{{ .x }}` is a mapping whose key is a mapping: no other YAML a person writes is.
        (Some(located), None) => match document.mapping(located.node) {
            Some(entries)
                if entries
                    .iter()
                    .any(|(key, _)| document.mapping(*key).is_some()) =>
            {
                Written::TemplateBraces
            }
            _ => Written::Collection,
        },
        (None, None) => Written::Unknown,
    };
    let finding = findings.report(target, friendly_type_error(&error.message));
    if let Some(help) = type_error_help(&error.message, written) {
        finding.help(help);
    }
}

/// What a value of the wrong type was written as, for help that names it.
#[derive(Clone, Copy, Debug)]
enum Written<'a> {
    Scalar {
        value: &'a str,
        quoted: bool,
    },
    /// A template expression in braces, `{{ .x }}`, which YAML reads as a mapping.
    TemplateBraces,
    /// A block mapping or a list.
    Collection,
    Unknown,
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

/// A concrete fix for the type errors YAML makes easy: a quoted number, a word where a number
/// belongs, an unquoted YAML 1.1 boolean or a number where a string belongs, a mapping where a
/// list belongs and the other way round, and a template expression YAML reads as a mapping.
fn type_error_help(message: &str, written: Written<'_>) -> Option<String> {
    let found = message
        .strip_prefix("invalid type: ")
        .and_then(|rest| rest.split([' ', ',']).next())
        .unwrap_or_default();
    let expected = message.split("expected ").nth(1).unwrap_or_default();
    let expects_number = expected.starts_with('i') || expected.starts_with('u');
    match (found, written) {
        ("string", Written::Scalar { value, quoted }) if expects_number => {
            Some(if quoted && value.trim().parse::<f64>().is_ok() {
                "write the number without quotes".to_owned()
            } else {
                // A short word is named; a longer text is only said to be one.
                let what = if value.len() <= 40 && !value.contains(char::is_control) {
                    format!("`{value}`")
                } else {
                    "the text".to_owned()
                };
                format!(
                    "{what} is not a number: write the number itself (Kubernetes does not replace placeholders; render the manifest first)"
                )
            })
        }
        ("boolean", Written::Scalar { value, quoted: false })
            if expected.starts_with("a string") =>
        {
            Some(format!(
                "quote the value: the unquoted `{value}` is a boolean: YAML 1.1, which kubectl reads, takes `y`, `yes`, `on`, `true`, `n`, `no`, `off` and `false` (lower case, capitalised or all capitals) as booleans"
            ))
        }
        ("boolean", _) if expected.starts_with("a string") => Some(
            "quote the value: YAML 1.1, which kubectl reads, takes `y`, `yes`, `on`, `true`, `n`, `no`, `off` and `false` (lower case, capitalised or all capitals) as booleans".to_owned(),
        ),
        ("integer" | "floating", Written::Scalar { value, quoted: false })
            if expected.starts_with("a string") =>
        {
            Some(format!("quote the value to keep it a string: `\"{value}\"`"))
        }
        ("integer" | "floating", _) if expected.starts_with("a string") => {
            Some("quote the value to keep it a string".to_owned())
        }
        ("map", Written::TemplateBraces) if !expected.starts_with("a sequence") => Some(
            "YAML reads `{{ … }}` as a mapping: a template expression must be rendered before the manifest is applied (or quoted, if it is meant as text)".to_owned(),
        ),
        ("map", _) if expected.starts_with("a sequence") => Some(
            "write a list: start each item with `- ` (`- name: data`), even when there is only one".to_owned(),
        ),
        // An object type is named as such (`PodSecurityContext`).
        ("sequence", _)
            if expected.starts_with("a map")
                || expected.starts_with("struct")
                || expected.starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            Some("write a mapping: this field holds one object, so remove the `- ` before its first key".to_owned())
        }
        ("map" | "sequence", _) => Some(
            "this field holds a single value, not nested keys or a list".to_owned(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn help_names_what_was_written() {
        let scalar = |value, quoted| Written::Scalar { value, quoted };
        let help = |message: &str, written| type_error_help(message, written).unwrap();
        let boolean = help(
            "invalid type: boolean `true`, expected a string",
            scalar("y", false),
        );
        assert!(
            boolean.contains("the unquoted `y` is a boolean"),
            "{boolean}"
        );
        let float = help(
            "invalid type: floating point `1.3`, expected a string",
            scalar("1.30", false),
        );
        assert!(
            float.contains("`\"1.30\"`") && !float.contains("1.29"),
            "{float}"
        );
        assert_eq!(
            help(
                "invalid type: string \"80\", expected i32",
                scalar("80", true)
            ),
            "write the number without quotes"
        );
        // A word is not a quoted number: removing quotes it does not have would not help.
        let word = help(
            "invalid type: string \"PORT\", expected i32",
            scalar("PORT", false),
        );
        assert!(word.starts_with("`PORT` is not a number"), "{word}");
        let list = help(
            "invalid type: map, expected a sequence",
            Written::Collection,
        );
        assert!(list.starts_with("write a list"), "{list}");
        let braces = help(
            "invalid type: map, expected a string",
            Written::TemplateBraces,
        );
        assert!(braces.contains("`{{ … }}`"), "{braces}");
    }
}
