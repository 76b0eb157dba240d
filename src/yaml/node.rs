//! The span-preserving YAML tree: one arena of nodes per document.

use std::num::NonZeroU32;

use crate::source::Span;
use podcycle_path::PathSegment;

/// Index of a node in its document's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NodeId(pub(crate) u32);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScalarStyle {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

/// A scalar as the tree holds it: its value and tag are in the document's arenas, so that a
/// scalar costs no allocation of its own (see [`Nodes`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StoredScalar {
    value: TextRef,
    /// Index + 1 into the document's tags.
    tag: Option<NonZeroU32>,
    style: ScalarStyle,
}

/// A range of the document's `strings`.
#[derive(Clone, Copy, Debug)]
struct TextRef {
    start: u32,
    len: u32,
}

/// A run of the document's `items` (a sequence) or `entries` (a mapping).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Children {
    start: u32,
    len: u32,
}

impl Children {
    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len as usize
    }
}

/// A scalar: its value after escape processing, style and tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Scalar<'a> {
    pub(crate) value: &'a str,
    pub(crate) style: ScalarStyle,
    /// An explicit tag: the core-schema suffix (`str`, `int`, ...) for `!!x`, or the whole tag
    /// for any other.
    pub(crate) tag: Option<&'a str>,
}

/// What a node holds, as the tree stores it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum NodeKind {
    Scalar(StoredScalar),
    Sequence(Children),
    Mapping(Children),
    /// An alias, already resolved to the anchored node.
    Alias(NodeId),
}

/// What a node holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind<'a> {
    Scalar(Scalar<'a>),
    Sequence(&'a [NodeId]),
    Mapping(&'a [(NodeId, NodeId)]),
    /// An alias, already resolved to the anchored node.
    Alias(NodeId),
}

#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub(crate) span: Span,
    pub(crate) kind: NodeKind,
}

/// The nodes of a document, in chunks that never move.
///
/// A tree's memory is mostly its nodes: a 50 MB flow sequence holds 17 million. So a node is
/// small (24 bytes: scalar text, tags and children live in per-document arenas, not in
/// allocations of their own), and the nodes grow in chunks, without the copying of a single
/// `Vec` that doubles and holds the old buffer and the new one at once.
#[derive(Debug, Default)]
pub(crate) struct Nodes {
    chunks: Vec<Vec<Node>>,
    len: usize,
}

impl Nodes {
    /// Nodes per chunk; the first chunk grows as a `Vec` does up to this size, so that a small
    /// document allocates little.
    const CHUNK: usize = 1 << 14;

    pub(crate) fn push(&mut self, node: Node) {
        match self.chunks.last_mut() {
            Some(chunk) if chunk.len() < Self::CHUNK => chunk.push(node),
            _ => {
                let mut chunk = Vec::with_capacity(if self.chunks.is_empty() {
                    16
                } else {
                    Self::CHUNK
                });
                chunk.push(node);
                self.chunks.push(chunk);
            }
        }
        self.len += 1;
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &Node> {
        self.chunks.iter().flatten()
    }
}

impl std::ops::Index<usize> for Nodes {
    type Output = Node;

    fn index(&self, index: usize) -> &Node {
        &self.chunks[index / Self::CHUNK][index % Self::CHUNK]
    }
}

impl std::ops::IndexMut<usize> for Nodes {
    fn index_mut(&mut self, index: usize) -> &mut Node {
        &mut self.chunks[index / Self::CHUNK][index % Self::CHUNK]
    }
}

/// A syntax problem found while reading a document.
#[derive(Clone, Debug)]
pub struct SyntaxError {
    pub(crate) span: Span,
    pub(crate) message: String,
    /// The document is valid as far as it was read, but larger than podcycle reads
    /// ([`crate::yaml::MAX_DOCUMENT_VALUES`]).
    pub(crate) too_large: bool,
}

/// A comment, without its `#`.
#[derive(Clone, Debug)]
pub struct Comment {
    /// The whole comment, from `#` to the end of its line (without the line break).
    pub(crate) span: Span,
    /// The text after `#`, as written.
    pub text: Box<str>,
}

/// A key written twice in one mapping.
#[derive(Clone, Debug)]
pub struct DuplicateKey {
    pub(crate) key: String,
    pub(crate) first: Span,
    pub(crate) second: Span,
    /// The path from the document root to the key.
    pub(crate) path: Vec<PathSegment>,
    /// The mapping, and its two keys (their values are found through it).
    pub(crate) mapping: NodeId,
    pub(crate) first_key: NodeId,
    pub(crate) second_key: NodeId,
}

/// One YAML document of a stream.
#[derive(Debug, Default)]
pub struct Document {
    /// Position of the document in its stream, from 0.
    pub index: usize,
    pub span: Span,
    pub(crate) nodes: Nodes,
    /// The values of the scalars, one after another.
    pub(crate) strings: String,
    /// The explicit tags of scalars.
    pub(crate) tags: Vec<Box<str>>,
    /// The items of the sequences, each sequence's together.
    pub(crate) items: Vec<NodeId>,
    /// The entries of the mappings, each mapping's together.
    pub(crate) entries: Vec<(NodeId, NodeId)>,
    /// `None` for an empty document or one abandoned after a syntax error.
    pub root: Option<NodeId>,
    pub errors: Vec<SyntaxError>,
    pub duplicate_keys: Vec<DuplicateKey>,
    /// The comments of the document in source order, including those before its first node.
    pub comments: Vec<Comment>,
    /// Whether the document has an alias, which values may expand.
    pub(crate) has_aliases: bool,
    /// How deep its collections nest: 0 for a lone scalar, 1 for a flat mapping.
    pub(crate) depth: usize,
}

impl Document {
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// What the node holds (an alias as such; see [`Document::resolve`]).
    pub(crate) fn kind(&self, id: NodeId) -> Kind<'_> {
        match self.node(id).kind {
            NodeKind::Scalar(scalar) => Kind::Scalar(self.scalar_of(scalar)),
            NodeKind::Sequence(children) => Kind::Sequence(&self.items[children.range()]),
            NodeKind::Mapping(children) => Kind::Mapping(&self.entries[children.range()]),
            NodeKind::Alias(target) => Kind::Alias(target),
        }
    }

    /// Follows aliases to the node that holds the value.
    pub(crate) fn resolve(&self, mut id: NodeId) -> NodeId {
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

    pub(crate) fn scalar(&self, id: NodeId) -> Option<Scalar<'_>> {
        match self.kind(self.resolve(id)) {
            Kind::Scalar(scalar) => Some(scalar),
            _ => None,
        }
    }

    /// The string value of a scalar node, the way a mapping key or `kind:` is read.
    pub(crate) fn scalar_str(&self, id: NodeId) -> Option<&str> {
        self.scalar(id).map(|s| s.value)
    }

    pub(crate) fn mapping(&self, id: NodeId) -> Option<&[(NodeId, NodeId)]> {
        match self.kind(self.resolve(id)) {
            Kind::Mapping(entries) => Some(entries),
            _ => None,
        }
    }

    pub(crate) fn sequence(&self, id: NodeId) -> Option<&[NodeId]> {
        match self.kind(self.resolve(id)) {
            Kind::Sequence(items) => Some(items),
            _ => None,
        }
    }

    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }

    fn scalar_of(&self, stored: StoredScalar) -> Scalar<'_> {
        let start = stored.value.start as usize;
        Scalar {
            value: &self.strings[start..start + stored.value.len as usize],
            style: stored.style,
            tag: stored
                .tag
                .map(|index| &*self.tags[index.get() as usize - 1]),
        }
    }

    /// Keeps a scalar's value and tag in the document's arenas.
    pub(crate) fn store_scalar(
        &mut self,
        value: &str,
        style: ScalarStyle,
        tag: Option<String>,
    ) -> StoredScalar {
        let start = u32::try_from(self.strings.len()).unwrap_or(u32::MAX);
        self.strings.push_str(value);
        let tag = tag.and_then(|tag| {
            self.tags.push(tag.into_boxed_str());
            NonZeroU32::new(u32::try_from(self.tags.len()).unwrap_or(u32::MAX))
        });
        StoredScalar {
            value: TextRef {
                start,
                len: u32::try_from(value.len()).unwrap_or(0),
            },
            tag,
            style,
        }
    }

    /// Keeps a sequence's items together, for its node.
    pub(crate) fn store_items(&mut self, items: impl Iterator<Item = NodeId>) -> Children {
        let start = self.items.len();
        self.items.extend(items);
        children(start, self.items.len())
    }

    /// Keeps a mapping's entries together, for its node.
    pub(crate) fn store_entries(
        &mut self,
        entries: impl Iterator<Item = (NodeId, NodeId)>,
    ) -> Children {
        let start = self.entries.len();
        self.entries.extend(entries);
        children(start, self.entries.len())
    }
}

fn children(start: usize, end: usize) -> Children {
    Children {
        start: u32::try_from(start).unwrap_or(u32::MAX),
        len: u32::try_from(end - start).unwrap_or(0),
    }
}
