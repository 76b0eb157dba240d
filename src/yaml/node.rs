//! The span-preserving YAML tree: one arena of nodes per document.

use crate::model::path::PathSegment;
use crate::source::Span;

/// Index of a node in its document's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub(crate) u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

#[derive(Clone, Debug)]
pub struct Scalar {
    /// The value after escape processing.
    pub value: Box<str>,
    pub style: ScalarStyle,
    /// An explicit tag: the core-schema suffix (`str`, `int`, ...) for `!!x`, or the whole tag
    /// for any other.
    pub tag: Option<Box<str>>,
}

#[derive(Clone, Debug)]
pub enum NodeKind {
    Scalar(Scalar),
    Sequence(Vec<NodeId>),
    Mapping(Vec<(NodeId, NodeId)>),
    /// An alias, already resolved to the anchored node.
    Alias(NodeId),
}

#[derive(Clone, Debug)]
pub struct Node {
    pub span: Span,
    pub kind: NodeKind,
}

/// A syntax problem found while reading a document.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

/// A comment, without its `#`.
#[derive(Clone, Debug)]
pub struct Comment {
    /// The whole comment, from `#` to the end of its line (without the line break).
    pub span: Span,
    /// The text after `#`, as written.
    pub text: Box<str>,
}

/// A key written twice in one mapping.
#[derive(Clone, Debug)]
pub struct DuplicateKey {
    pub key: String,
    pub first: Span,
    pub second: Span,
    /// The path from the document root to the key.
    pub path: Vec<PathSegment>,
    /// The mapping, and its two keys (their values are found through it).
    pub mapping: NodeId,
    pub first_key: NodeId,
    pub second_key: NodeId,
}

/// One YAML document of a stream.
#[derive(Debug, Default)]
pub struct Document {
    /// Position of the document in its stream, from 0.
    pub index: usize,
    pub span: Span,
    pub(crate) nodes: Vec<Node>,
    /// `None` for an empty document or one abandoned after a syntax error.
    pub root: Option<NodeId>,
    pub errors: Vec<SyntaxError>,
    pub duplicate_keys: Vec<DuplicateKey>,
    /// The comments of the document in source order, including those before its first node.
    pub comments: Vec<Comment>,
}

impl Document {
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// Follows aliases to the node that holds the value.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        // Aliases only point at completed, earlier nodes, so this terminates; the bound is a
        // second line of defence.
        for _ in 0..self.nodes.len() {
            match self.node(id).kind {
                NodeKind::Alias(target) => id = target,
                _ => break,
            }
        }
        id
    }

    pub fn scalar(&self, id: NodeId) -> Option<&Scalar> {
        match &self.node(self.resolve(id)).kind {
            NodeKind::Scalar(scalar) => Some(scalar),
            _ => None,
        }
    }

    /// The string value of a scalar node, the way a mapping key or `kind:` is read.
    pub fn scalar_str(&self, id: NodeId) -> Option<&str> {
        self.scalar(id).map(|s| &*s.value)
    }

    pub fn mapping(&self, id: NodeId) -> Option<&[(NodeId, NodeId)]> {
        match &self.node(self.resolve(id)).kind {
            NodeKind::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    pub fn sequence(&self, id: NodeId) -> Option<&[NodeId]> {
        match &self.node(self.resolve(id)).kind {
            NodeKind::Sequence(items) => Some(items),
            _ => None,
        }
    }

    /// The value of a mapping entry, by the key's node.
    pub fn value_of_key(&self, mapping: NodeId, key: NodeId) -> Option<NodeId> {
        self.mapping(mapping)?
            .iter()
            .find(|(k, _)| *k == key)
            .map(|&(_, value)| value)
    }

    /// Whether two nodes are written the same (scalars with the same text and quoting, and
    /// collections of such), following aliases. Bounded: a very large value counts as
    /// different.
    pub fn same_value(&self, a: NodeId, b: NodeId) -> bool {
        let mut budget = 10_000usize;
        self.same_value_within(a, b, &mut budget)
    }

    fn same_value_within(&self, a: NodeId, b: NodeId, budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let (a, b) = (self.resolve(a), self.resolve(b));
        if a == b {
            return true;
        }
        match (&self.node(a).kind, &self.node(b).kind) {
            (NodeKind::Scalar(x), NodeKind::Scalar(y)) => {
                let quoted = |s: &Scalar| !matches!(s.style, ScalarStyle::Plain);
                x.value == y.value && quoted(x) == quoted(y) && x.tag == y.tag
            }
            (NodeKind::Sequence(x), NodeKind::Sequence(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .all(|(&i, &j)| self.same_value_within(i, j, budget))
            }
            (NodeKind::Mapping(x), NodeKind::Mapping(y)) => {
                x.len() == y.len()
                    && x.iter().zip(y).all(|(&(ki, vi), &(kj, vj))| {
                        self.same_value_within(ki, kj, budget)
                            && self.same_value_within(vi, vj, budget)
                    })
            }
            _ => false,
        }
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
}
