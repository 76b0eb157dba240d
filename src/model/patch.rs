//! Strategic-merge-patch directives: keys only Kustomize patches carry.

use podcycle_k8s::{Tree, TreeValue};

/// The keys of strategic-merge-patch directives; a file without any of them has no patch.
pub(crate) const PATCH_DIRECTIVES: [&str; 4] = [
    "$patch",
    "$retainKeys",
    "$setElementOrder",
    "$deleteFromPrimitiveList",
];

/// Whether an object carries strategic-merge-patch directives (`$patch`, `$retainKeys`,
/// `$setElementOrder/...`, `$deleteFromPrimitiveList/...`), which only patches have.
pub(crate) fn has_patch_directives(tree: &dyn Tree, node: u32) -> bool {
    match tree.value(node) {
        TreeValue::Map => tree
            .entries(node)
            .iter()
            .any(|(key, value)| key.starts_with('$') || has_patch_directives(tree, *value)),
        TreeValue::Seq(len) => items(tree, node, len).any(|item| has_patch_directives(tree, item)),
        _ => false,
    }
}

/// Whether an object holds the expressions of a test framework's expected state: keys that are
/// JMESPath expressions in parentheses (`(length(spec.containers))`), or values that are
/// bindings (`($namespace)`), as Chainsaw asserts write them. Such an object is not applied;
/// only the document checks apply to it.
pub(crate) fn has_assertion_expressions(tree: &dyn Tree, node: u32) -> bool {
    fn walk(tree: &dyn Tree, node: u32, depth: usize) -> bool {
        if depth > 64 {
            return false;
        }
        match tree.value(node) {
            TreeValue::Map => tree.entries(node).iter().any(|(key, value)| {
                (key.starts_with('(') && key.ends_with(')')) || walk(tree, *value, depth + 1)
            }),
            TreeValue::Seq(len) => items(tree, node, len).any(|item| walk(tree, item, depth + 1)),
            TreeValue::Str(text) => text.starts_with("($") && text.ends_with(')'),
            _ => false,
        }
    }
    walk(tree, node, 0)
}

fn items(tree: &dyn Tree, node: u32, len: usize) -> impl Iterator<Item = u32> + '_ {
    (0..len).filter_map(move |index| tree.item(node, index))
}

#[cfg(test)]
mod tests {
    use podcycle_k8s::JsonTree;
    use serde_json::{Value, json};

    fn has_assertion_expressions(value: &Value) -> bool {
        super::has_assertion_expressions(&JsonTree::new(value), 0)
    }

    fn has_patch_directives(value: &Value) -> bool {
        super::has_patch_directives(&JsonTree::new(value), 0)
    }

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
