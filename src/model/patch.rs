//! Strategic-merge-patch directives: keys only Kustomize patches carry.

use serde_json::Value;

/// The keys of strategic-merge-patch directives; a file without any of them has no patch.
pub const PATCH_DIRECTIVES: [&str; 4] = [
    "$patch",
    "$retainKeys",
    "$setElementOrder",
    "$deleteFromPrimitiveList",
];

/// Whether an object carries strategic-merge-patch directives (`$patch`, `$retainKeys`,
/// `$setElementOrder/...`, `$deleteFromPrimitiveList/...`), which only patches have.
pub fn has_patch_directives(value: &Value) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| key.starts_with('$') || has_patch_directives(value)),
        Value::Array(items) => items.iter().any(has_patch_directives),
        _ => false,
    }
}

/// Whether an object holds the expressions of a test framework's expected state: keys that are
/// JMESPath expressions in parentheses (`(length(spec.containers))`), or values that are
/// bindings (`($namespace)`), as Chainsaw asserts write them. Such an object is not applied;
/// only the document checks apply to it.
pub fn has_assertion_expressions(value: &Value) -> bool {
    fn walk(value: &Value, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        match value {
            Value::Object(map) => map.iter().any(|(key, value)| {
                (key.starts_with('(') && key.ends_with(')')) || walk(value, depth + 1)
            }),
            Value::Array(items) => items.iter().any(|item| walk(item, depth + 1)),
            Value::String(text) => text.starts_with("($") && text.ends_with(')'),
            _ => false,
        }
    }
    walk(value, 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn assertion_expressions() {
        assert!(has_assertion_expressions(
            &json!({"spec": {"(length(containers))": 2}})
        ));
        assert!(has_assertion_expressions(
            &json!({"metadata": {"namespace": "($namespace)"}})
        ));
        assert!(!has_assertion_expressions(
            &json!({"spec": {"containers": [{"command": ["sh", "-c", "(true)"]}]}})
        ));
    }

    #[test]
    fn directives_anywhere_mark_a_patch() {
        assert!(has_patch_directives(
            &json!({"spec": {"containers": [{"$patch": "delete"}]}})
        ));
        assert!(!has_patch_directives(
            &json!({"spec": {"containers": [{"name": "a"}]}})
        ));
    }
}
