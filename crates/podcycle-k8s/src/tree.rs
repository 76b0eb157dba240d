//! What the decoder reads: a tree of values whose nodes are named by index.
//!
//! podcycle's YAML tree implements [`Tree`], so objects are decoded straight from the parsed
//! document, without an intermediate `serde_json::Value` holding a copy of every key and
//! string. [`JsonTree`] puts a `Value` behind the same interface, for objects podcycle builds
//! itself (the pod templates of custom kinds) and for tests.

use std::borrow::Cow;

use serde_json::Value;

/// The value of a node, as the object would reach the API server in JSON.
#[derive(Clone, Debug, PartialEq)]
pub enum TreeValue<'a> {
    Null,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Cow<'a, str>),
    /// A sequence of this many items; [`Tree::item`] gives each.
    Seq(usize),
    /// A mapping; [`Tree::entries`] gives its entries.
    Map,
}

/// A tree of values. Node 0 need not be the root: [`crate::decode`] is told where to start.
///
/// A tree must be finite and acyclic as the decoder walks it (aliases expanded within a
/// budget, nesting bounded), since decoding recurses once per level.
pub trait Tree {
    /// The value of `node`.
    fn value(&self, node: u32) -> TreeValue<'_>;

    /// Item `index` of the sequence at `node`.
    fn item(&self, node: u32, index: usize) -> Option<u32>;

    /// The entries of the mapping at `node` as JSON has them: each key once (the last value
    /// written wins), keys as strings, in byte order of the keys, as Go's encoder writes a map
    /// and so as the API machinery meets them.
    fn entries(&self, node: u32) -> Vec<(Cow<'_, str>, u32)>;
}

/// A `serde_json::Value` as a [`Tree`]; the root is node 0.
pub struct JsonTree<'a> {
    /// Every value with the node of its first child; a node's children are numbered together.
    nodes: Vec<(&'a Value, u32)>,
}

impl<'a> JsonTree<'a> {
    pub fn new(root: &'a Value) -> Self {
        let mut nodes = vec![(root, 0)];
        let mut next = 0;
        while let Some(&(value, _)) = nodes.get(next) {
            let first = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
            nodes[next].1 = first;
            match value {
                Value::Array(items) => nodes.extend(items.iter().map(|item| (item, 0))),
                Value::Object(map) => nodes.extend(map.values().map(|item| (item, 0))),
                _ => {}
            }
            next += 1;
        }
        JsonTree { nodes }
    }

    fn node(&self, node: u32) -> Option<(&'a Value, u32)> {
        self.nodes.get(node as usize).copied()
    }
}

impl Tree for JsonTree<'_> {
    fn value(&self, node: u32) -> TreeValue<'_> {
        let Some((value, _)) = self.node(node) else {
            return TreeValue::Null;
        };
        match value {
            Value::Null => TreeValue::Null,
            Value::Bool(b) => TreeValue::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => TreeValue::Int(i),
                (None, Some(u)) => TreeValue::UInt(u),
                _ => TreeValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => TreeValue::Str(Cow::Borrowed(s)),
            Value::Array(items) => TreeValue::Seq(items.len()),
            Value::Object(_) => TreeValue::Map,
        }
    }

    fn item(&self, node: u32, index: usize) -> Option<u32> {
        let (Value::Array(items), first) = self.node(node)? else {
            return None;
        };
        (index < items.len()).then(|| first + u32::try_from(index).unwrap_or(u32::MAX))
    }

    fn entries(&self, node: u32) -> Vec<(Cow<'_, str>, u32)> {
        let mut entries: Vec<(Cow<'_, str>, u32)> = match self.node(node) {
            Some((Value::Object(map), first)) => map
                .keys()
                .zip(first..)
                .map(|(key, child)| (Cow::Borrowed(key.as_str()), child))
                .collect(),
            _ => Vec::new(),
        };
        // serde_json's map is in key order unless a dependency turns on `preserve_order`;
        // sorting what is already sorted costs one pass.
        entries.sort_by(|(a, _), (b, _)| a.cmp(b));
        entries
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_json_tree_numbers_children_together() {
        let value = json!({"b": [1, "x"], "a": {"c": null}});
        let tree = JsonTree::new(&value);
        assert_eq!(tree.value(0), TreeValue::Map);
        let entries = tree.entries(0);
        let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "b"]);
        let b = entries[1].1;
        assert_eq!(tree.value(b), TreeValue::Seq(2));
        let second = tree.item(b, 1).unwrap();
        assert_eq!(tree.value(second), TreeValue::Str(Cow::Borrowed("x")));
        assert_eq!(tree.item(b, 2), None);
        let a = entries[0].1;
        assert_eq!(tree.value(tree.entries(a)[0].1), TreeValue::Null);
    }
}
