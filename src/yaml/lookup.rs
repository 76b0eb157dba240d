//! Finds the node a field path names, so that findings about typed values get exact spans.

use super::json::is_merge_key;
use super::node::{Document, NodeId};
use super::resolve::key_text;
use crate::source::Span;
use podcycle_path::PathSegment;

/// Where a path leads in the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Located {
    /// The deepest node reached (the value itself when the whole path exists).
    pub(crate) node: NodeId,
    /// The span of that node's value, where it is written (aliases are followed).
    pub(crate) value: Span,
    /// The key of the last mapping segment reached, if the last step was a key.
    pub(crate) key: Option<Span>,
    /// Whether every segment was found.
    pub(crate) complete: bool,
}

/// Walks `path` from `root`, reading mappings the way Kubernetes does (last duplicate wins,
/// merge keys apply at their position).
pub(crate) fn lookup(document: &Document, root: NodeId, path: &[PathSegment]) -> Located {
    let mut located = Located {
        node: root,
        value: document.node(document.resolve(root)).span,
        key: None,
        complete: true,
    };
    for segment in path {
        let next = match segment {
            PathSegment::Key(key) => {
                find_key(document, located.node, key, 0).map(|(k, v)| (Some(k), v))
            }
            PathSegment::Index(index) => document
                .sequence(located.node)
                .and_then(|items| items.get(*index))
                .map(|&item| (None, item)),
        };
        let Some((key, value)) = next else {
            located.complete = false;
            return located;
        };
        let resolved = document.resolve(value);
        located = Located {
            node: resolved,
            value: document.node(resolved).span,
            key: key.map(|k| document.node(k).span),
            complete: true,
        };
    }
    located
}

/// The winning (key, value) for `name` in the mapping at `mapping`.
fn find_key(
    document: &Document,
    mapping: NodeId,
    name: &str,
    depth: usize,
) -> Option<(NodeId, NodeId)> {
    const MAX_MERGE_DEPTH: usize = 64;
    let entries = document.mapping(mapping)?;
    let mut winner = None;
    for &(key, value) in entries {
        if is_merge_key(document, key) {
            if depth < MAX_MERGE_DEPTH
                && let Some(found) = find_in_merge(document, value, name, depth + 1)
            {
                winner = Some(found);
            }
        } else if key_text(document, key).as_deref() == Some(name) {
            winner = Some((key, value));
        }
    }
    winner
}

fn find_in_merge(
    document: &Document,
    source: NodeId,
    name: &str,
    depth: usize,
) -> Option<(NodeId, NodeId)> {
    let source = document.resolve(source);
    if document.mapping(source).is_some() {
        return find_key(document, source, name, depth);
    }
    // In a list of merged mappings the earlier ones win, so the first hit is the answer.
    document
        .sequence(source)?
        .iter()
        .find_map(|&item| find_in_merge(document, item, name, depth + 1))
}
