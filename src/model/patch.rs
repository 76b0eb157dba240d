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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
