//! Builds the tree from granit-parser events. This is the only file that knows the parser.

use std::borrow::Cow;
use std::collections::HashMap;

use granit_parser::{Event, Marker, Parser, ScanError, StructureStyle};

use super::node::{
    Children, Comment, Document, DuplicateKey, Node, NodeId, NodeKind, ScalarStyle, SyntaxError,
};
use super::resolve::{Resolved, key_string, resolve};
use crate::source::Span;
use podcycle_path::PathSegment;

/// The most values (scalars, collections and aliases) podcycle reads of one document. A tree
/// costs about 30 bytes a value, and a value can be written in 2 bytes (`1,` in a flow
/// sequence), so without a bound a large document would cost 15 times its size. Kubernetes
/// objects are far smaller: every value takes at least 2 bytes of JSON, so an object this
/// large is over 4 MB as JSON, above the 3 MiB request body the API server accepts
/// (`MaxRequestBodyBytes` in k8s.io/apiserver).
pub const MAX_DOCUMENT_VALUES: usize = 2_000_000;

/// Reads every document of a YAML stream. A syntax error abandons its document; reading goes
/// on at the next `---`, so one broken document does not hide the others.
pub fn parse_stream(text: &str) -> Vec<Document> {
    let mut documents = Vec::new();
    for_each_document(text, |document| documents.push(document));
    documents
}

/// Like [`parse_stream`], but hands each document over as soon as it is read, so a large
/// stream never holds more than one document's tree in memory.
pub(crate) fn for_each_document(text: &str, on_document: impl FnMut(Document)) {
    for_each_document_with(text, Comments::Keep, on_document);
}

/// Whether to keep comments in the documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comments {
    Keep,
    /// Skip them: reading them costs a few percent of parsing, wasted where nothing reads them.
    Skip,
}

/// `for_each_document`, keeping comments or not.
pub fn for_each_document_with(text: &str, comments: Comments, on_document: impl FnMut(Document)) {
    #[cfg(test)]
    parsed::record(text);
    let mut builder = Builder::new(text, on_document);
    match json_stream(text) {
        Some(values) => {
            for value in values {
                builder.base = value.start;
                read(&mut builder, &text[value], comments);
            }
        }
        None => read(&mut builder, text, comments),
    }
    builder.finish();
}

/// The objects of a JSON stream, read as kubectl reads a file: `YAMLOrJSONDecoder` in
/// k8s.io/apimachinery/pkg/util/yaml/decoder.go decodes a stream whose first non-space byte
/// is `{` as a series of JSON values (`{}{}`, one per line, or back to back), and once it has
/// decoded more than one it never reads the rest as YAML. `None` when the text is not such a
/// stream (YAML, or a single JSON document, which YAML reads the same); what follows the last
/// value that decodes is read as one more part, whose syntax error is then reported.
fn json_stream(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
    let first = text.find(|c: char| !c.is_whitespace())?;
    if !text[first..].starts_with('{') {
        return None;
    }
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    let mut start = first;
    while let Some(Ok(_)) = stream.next() {
        let end = stream.byte_offset();
        values.push(start..end);
        start = text[end..]
            .find(|c: char| !c.is_whitespace())
            .map_or(text.len(), |at| end + at);
    }
    if values.len() < 2 {
        return None;
    }
    if start < text.len() {
        values.push(start..text.len());
    }
    Some(values)
}

/// Reads the documents of `text`, a part of the builder's text at its `base`.
fn read<F: FnMut(Document)>(builder: &mut Builder<'_, F>, text: &str, comments: Comments) {
    let mut parser = Parser::new_from_str_with_options(text, parser_options(comments));
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((event, span))) => builder.event(event, span.start, span.end),
            Some(Err(error)) => {
                builder.syntax_error(&error);
                match parser.proceed_next_document() {
                    Ok(true) => continue,
                    Ok(false) => break,
                    Err(error) => {
                        builder.syntax_error(&error);
                        break;
                    }
                }
            }
        }
    }
}

fn parser_options(comments: Comments) -> granit_parser::Options {
    // Comments carry suppressions. The parser buffers runs of comments while it looks ahead, and
    // by default refuses more than 96 in a row; the buffer only ever holds comments of the input,
    // so it is as bounded as the input itself.
    granit_parser::options! {
        emit_comments: comments == Comments::Keep,
        max_buffered_comment_events: usize::MAX,
    }
}

/// A collection being read. Its children so far are at the end of the builder's `items` or
/// `entries`, from `start`: one stack for all open collections instead of a `Vec` each.
enum Frame<'t> {
    Sequence {
        id: NodeId,
        start: usize,
        flow: bool,
    },
    Mapping {
        id: NodeId,
        start: usize,
        pending_key: Option<NodeId>,
        seen: SeenKeys<'t>,
        flow: bool,
    },
}

/// The keys of one mapping so far, to report a duplicate key as it arrives. Most mappings
/// have a handful of keys: those are compared in a list, without hashing; a longer mapping
/// moves them to a hash map.
#[derive(Default)]
struct SeenKeys<'t> {
    list: Vec<(Cow<'t, str>, NodeId)>,
    map: HashMap<Cow<'t, str>, NodeId>,
}

impl<'t> SeenKeys<'t> {
    const LIST_LIMIT: usize = 16;

    /// The node where `key` was first written, if it was.
    fn first(&self, key: &str) -> Option<NodeId> {
        if self.map.is_empty() {
            self.list
                .iter()
                .find(|(seen, _)| seen == key)
                .map(|&(_, id)| id)
        } else {
            self.map.get(key).copied()
        }
    }

    fn insert(&mut self, key: Cow<'t, str>, id: NodeId) {
        if self.map.is_empty() {
            if self.list.len() < Self::LIST_LIMIT {
                self.list.push((key, id));
                return;
            }
            self.map.extend(self.list.drain(..));
        }
        self.map.insert(key, id);
    }
}

/// The key string of a mapping key (see [`key_string`]), borrowed from the source text when
/// the key is written as it reads, as almost every Kubernetes key is, so that it costs no
/// allocation.
fn key_text<'t>(text: &'t str, document: &Document, id: NodeId) -> Option<Cow<'t, str>> {
    let scalar = document.scalar(id)?;
    if let Resolved::Str(value) = resolve(&scalar) {
        let source = text.get(document.node(id).span.range());
        if let Some(source) = source.filter(|&source| source == value) {
            return Some(Cow::Borrowed(source));
        }
    }
    key_string(document, id).map(Cow::Owned)
}

struct Builder<'t, F: FnMut(Document)> {
    text: &'t str,
    on_document: F,
    /// Documents handed over so far; the next one's index.
    count: usize,
    current: Option<Document>,
    stack: Vec<Frame<'t>>,
    /// The items of the open sequences, innermost last.
    items: Vec<NodeId>,
    /// The entries of the open mappings, innermost last.
    entries: Vec<(NodeId, NodeId)>,
    /// Anchor id → node, for the current document.
    anchors: HashMap<usize, NodeId>,
    /// Collections still being read; an alias to one of them would make a cycle.
    open: Vec<NodeId>,
    /// Set after an error inside a document: its remaining events are skipped.
    abandoned: bool,
    /// Comments read between documents, for the next one (or the last, at the end).
    pending_comments: Vec<Comment>,
    /// The last document read, kept until the next one starts or the stream ends.
    held: Option<Document>,
    /// Where the part being read starts in `text`: the parser's offsets are within the part.
    base: usize,
}

impl<'t, F: FnMut(Document)> Builder<'t, F> {
    fn new(text: &'t str, on_document: F) -> Self {
        Builder {
            text,
            on_document,
            count: 0,
            current: None,
            stack: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            anchors: HashMap::new(),
            open: Vec::new(),
            abandoned: false,
            pending_comments: Vec::new(),
            held: None,
            base: 0,
        }
    }

    fn offset(&self, marker: Marker) -> usize {
        // granit reports byte offsets for string input; the character index is a fallback
        // that is only wrong for non-ASCII text.
        let offset = marker.byte_offset().unwrap_or_else(|| {
            self.text[self.base..]
                .char_indices()
                .nth(marker.index())
                .map_or(self.text.len() - self.base, |(i, _)| i)
        });
        self.base + offset
    }

    fn document(&mut self, at: usize) -> &mut Document {
        if self.current.is_none() {
            self.current = Some(Document {
                index: self.count,
                span: Span::empty(at),
                comments: std::mem::take(&mut self.pending_comments),
                ..Document::default()
            });
        }
        self.current.as_mut().expect("just created")
    }

    fn event(&mut self, event: Event<'_>, start: Marker, end: Marker) {
        let (start, end) = (self.offset(start), self.offset(end));
        if let Event::Comment(text, _) = event {
            // Kept even in an abandoned document: a suppression may be about its error.
            self.comment(Span::new(start, end), &text);
            return;
        }
        let boundary = matches!(event, Event::DocumentStart(..) | Event::DocumentEnd);
        if self.abandoned && !boundary {
            return;
        }
        let adds_node = matches!(
            event,
            Event::Scalar(..)
                | Event::SequenceStart(..)
                | Event::MappingStart(..)
                | Event::Alias(..)
        );
        if adds_node && self.document(start).nodes.len() >= MAX_DOCUMENT_VALUES {
            self.too_large(Span::new(start, end));
            return;
        }
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Anchor(..) | Event::Comment(..) => {}
            Event::DocumentStart(..) => {
                self.close_document();
                self.document(start);
            }
            Event::DocumentEnd => {
                let document = self.document(start);
                document.span.end = document.span.end.max(Span::empty(end).end);
                self.close_document();
            }
            Event::Scalar(value, style, anchor, tag) => {
                let style = match style {
                    granit_parser::ScalarStyle::Plain => ScalarStyle::Plain,
                    granit_parser::ScalarStyle::SingleQuoted => ScalarStyle::SingleQuoted,
                    granit_parser::ScalarStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
                    granit_parser::ScalarStyle::Literal => ScalarStyle::Literal,
                    granit_parser::ScalarStyle::Folded => ScalarStyle::Folded,
                };
                let tag = tag.map(|tag| {
                    tag.core_suffix()
                        .map_or_else(|| tag.original(), str::to_owned)
                });
                let scalar = self.document(start).store_scalar(&value, style, tag);
                // A block scalar's end event sits on the next token, lines further down.
                let end = match style {
                    ScalarStyle::Literal | ScalarStyle::Folded => self
                        .text
                        .get(start..end)
                        .map_or(end, |block| start + block.trim_end().len()),
                    _ => end,
                };
                let id = self.push_node(start, end, NodeKind::Scalar(scalar));
                self.anchor(anchor, id);
                self.value(id);
            }
            Event::SequenceStart(style, anchor, _) => {
                let id = self.push_node(start, end, NodeKind::Sequence(Children::default()));
                self.anchor(anchor, id);
                self.open.push(id);
                self.note_depth();
                self.stack.push(Frame::Sequence {
                    id,
                    start: self.items.len(),
                    flow: style == StructureStyle::Flow,
                });
            }
            Event::MappingStart(style, anchor, _) => {
                let id = self.push_node(start, end, NodeKind::Mapping(Children::default()));
                self.anchor(anchor, id);
                self.open.push(id);
                self.note_depth();
                self.stack.push(Frame::Mapping {
                    id,
                    start: self.entries.len(),
                    pending_key: None,
                    seen: SeenKeys::default(),
                    flow: style == StructureStyle::Flow,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => self.close_collection(end),
            Event::Alias(anchor) => {
                let target = self.anchors.get(&anchor).copied();
                match target {
                    Some(target) if !self.open.contains(&target) => {
                        self.document(start).has_aliases = true;
                        let id = self.push_node(start, end, NodeKind::Alias(target));
                        self.value(id);
                    }
                    Some(_) => self.fail(
                        Span::new(start, end),
                        "an alias refers to a node that contains it",
                    ),
                    None => self.fail(
                        Span::new(start, end),
                        "an alias refers to an unknown anchor",
                    ),
                }
            }
            Event::UnresolvedAlias(name) => {
                let message = format!("unknown anchor `{name}`");
                self.fail(Span::new(start, end), &message);
            }
            // The event type is non-exhaustive; later presentation events carry no data.
            _ => {}
        }
    }

    /// A comment belongs to the document it is read in; one read between documents belongs to
    /// the next document, or to the last one when none follows.
    fn comment(&mut self, span: Span, text: &str) {
        let comment = Comment {
            span,
            text: text.into(),
        };
        match self.current.as_mut() {
            Some(document) => document.comments.push(comment),
            None => self.pending_comments.push(comment),
        }
    }

    fn push_node(&mut self, start: usize, end: usize, kind: NodeKind) -> NodeId {
        let document = self.document(start);
        let id = NodeId(u32::try_from(document.nodes.len()).unwrap_or(u32::MAX));
        document.nodes.push(Node {
            span: Span::new(start, end),
            kind,
        });
        id
    }

    /// Records the nesting of a collection about to open.
    fn note_depth(&mut self) {
        let depth = self.stack.len() + 1;
        if let Some(document) = self.current.as_mut() {
            document.depth = document.depth.max(depth);
        }
    }

    fn anchor(&mut self, anchor: usize, id: NodeId) {
        if anchor != 0 {
            self.anchors.insert(anchor, id);
        }
    }

    /// Attaches a finished node to its parent (or makes it the document root).
    fn value(&mut self, id: NodeId) {
        let Some(document) = self.current.as_ref() else {
            return;
        };
        // Duplicate keys are found as keys arrive, so the first occurrence is known.
        let duplicate = match self.stack.last() {
            Some(Frame::Mapping {
                id: mapping,
                pending_key: None,
                seen,
                ..
            }) => key_text(self.text, document, id)
                .filter(|key| key != "<<")
                .map(|key| match seen.first(&key) {
                    Some(first) => Err(DuplicateKey {
                        key: key.clone().into_owned(),
                        first: document.node(first).span,
                        second: document.node(id).span,
                        path: self.path_to(&key),
                        mapping: *mapping,
                        first_key: first,
                        second_key: id,
                    }),
                    None => Ok(key),
                }),
            _ => None,
        };
        let Some(document) = self.current.as_mut() else {
            return;
        };
        match self.stack.last_mut() {
            None => document.root = Some(id),
            Some(Frame::Sequence { .. }) => self.items.push(id),
            Some(Frame::Mapping {
                pending_key, seen, ..
            }) => match pending_key.take() {
                None => {
                    *pending_key = Some(id);
                    match duplicate {
                        Some(Ok(key)) => seen.insert(key, id),
                        Some(Err(duplicate)) => document.duplicate_keys.push(duplicate),
                        None => {}
                    }
                }
                Some(key) => self.entries.push((key, id)),
            },
        }
    }

    /// The path from the document root to `key` in the innermost open mapping: the keys and
    /// indexes of the collections being read.
    fn path_to(&self, key: &str) -> Vec<PathSegment> {
        let Some(document) = self.current.as_ref() else {
            return Vec::new();
        };
        let mut path = Vec::with_capacity(self.stack.len() + 1);
        let open = &self.stack[..self.stack.len().saturating_sub(1)];
        for (depth, frame) in open.iter().enumerate() {
            match frame {
                Frame::Sequence { start, .. } => {
                    // The sequence's items so far end where the next open sequence's begin.
                    let end = self.stack[depth + 1..]
                        .iter()
                        .find_map(|inner| match inner {
                            Frame::Sequence { start, .. } => Some(*start),
                            Frame::Mapping { .. } => None,
                        })
                        .unwrap_or(self.items.len());
                    path.push(PathSegment::Index(end - start));
                }
                Frame::Mapping { pending_key, .. } => {
                    let name = pending_key
                        .and_then(|k| key_text(self.text, document, k))
                        .map(Cow::into_owned)
                        .unwrap_or_default();
                    path.push(PathSegment::Key(name));
                }
            }
        }
        path.push(PathSegment::Key(key.to_owned()));
        path
    }

    fn close_collection(&mut self, end: usize) {
        let Some(frame) = self.stack.pop() else {
            return;
        };
        self.open.pop();
        let Some(document) = self.current.as_mut() else {
            return;
        };
        let (id, kind, flow, last) = match frame {
            Frame::Sequence { id, start, flow } => {
                let last = self
                    .items
                    .last()
                    .copied()
                    .filter(|_| self.items.len() > start);
                let items = document.store_items(self.items.drain(start..));
                (id, NodeKind::Sequence(items), flow, last)
            }
            Frame::Mapping {
                id,
                start,
                pending_key,
                flow,
                ..
            } => {
                // A key without a value cannot come from the parser, but keep it if it does.
                if let Some(key) = pending_key {
                    self.entries.push((key, key));
                }
                let last = self
                    .entries
                    .last()
                    .filter(|_| self.entries.len() > start)
                    .map(|&(_, value)| value);
                let entries = document.store_entries(self.entries.drain(start..));
                (id, NodeKind::Mapping(entries), flow, last)
            }
        };
        // A block collection ends where its last child ends; the parser's end event sits on
        // the next token, which may be lines further down.
        let end = if flow {
            end
        } else {
            last.map_or(document.node(id).span.end as usize, |last| {
                document.node(last).span.end as usize
            })
        };
        let node = &mut document.nodes[id.0 as usize];
        node.kind = kind;
        node.span.end = Span::empty(end).end.max(node.span.start);
        self.value(id);
    }

    fn fail(&mut self, span: Span, message: &str) {
        self.abandon(SyntaxError {
            span,
            message: message.to_owned(),
            too_large: false,
        });
    }

    /// Stops reading a document at [`MAX_DOCUMENT_VALUES`]; `span` is the value that would
    /// have gone over.
    fn too_large(&mut self, span: Span) {
        let message = format!(
            "the document holds more than {} million values, the most podcycle reads of one \
             document; it is not linted",
            MAX_DOCUMENT_VALUES / 1_000_000
        );
        self.abandon(SyntaxError {
            span,
            message,
            too_large: true,
        });
    }

    fn abandon(&mut self, error: SyntaxError) {
        let document = self.document(error.span.start as usize);
        document.errors.push(error);
        // The tree is incomplete: drop it but keep the error.
        document.root = None;
        self.stack.clear();
        self.items.clear();
        self.entries.clear();
        self.open.clear();
        self.abandoned = true;
    }

    fn syntax_error(&mut self, error: &ScanError) {
        let at = self.offset(*error.marker()).min(self.text.len());
        let end = self.text[at..]
            .chars()
            .next()
            .map_or(at, |c| at + c.len_utf8());
        let message = error.info();
        let message = if message.is_empty() {
            "invalid YAML".to_owned()
        } else {
            requote(message)
        };
        self.fail(Span::new(at, end), &message);
        self.close_document();
    }

    fn close_document(&mut self) {
        self.stack.clear();
        self.items.clear();
        self.entries.clear();
        self.open.clear();
        self.anchors.clear();
        self.abandoned = false;
        if let Some(mut document) = self.current.take() {
            document.comments.sort_by_key(|c| c.span);
            if !document.errors.is_empty() {
                document.root = None;
            }
            if let Some(root) = document.root {
                let root_span = document.node(root).span;
                document.span = document.span.cover(root_span);
            }
            self.count += 1;
            // Handed over one document late: comments that follow the last document are
            // still added to it.
            if let Some(previous) = self.held.replace(document) {
                (self.on_document)(previous);
            }
        }
    }

    fn finish(mut self) {
        self.close_document();
        // Comments after the last document belong to it.
        if let Some(mut last) = self.held.take() {
            last.comments.append(&mut self.pending_comments);
            last.comments.sort_by_key(|c| c.span);
            (self.on_document)(last);
        }
    }
}

/// The parser quotes a character the C way, `` `x' ``, which a backtick garbles (`` ``' ``):
/// podcycle's messages quote as Markdown does, a backtick in a longer fence. The characters
/// YAML reserves (`@` and `` ` ``, YAML 1.2 §5.3, "reserved for future use") say so.
fn requote(message: String) -> String {
    let Some(character) = message
        .strip_prefix("unexpected character: `")
        .and_then(|rest| rest.strip_suffix('\''))
    else {
        return message;
    };
    match character {
        "`" => "unexpected character `` ` ``: YAML reserves it, so it cannot start a plain value; quote the value".to_owned(),
        "@" => "unexpected character `@`: YAML reserves it, so it cannot start a plain value; quote the value".to_owned(),
        other => format!("unexpected character `{other}`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_character_is_quoted_whole() {
        let messages = |text: &str| -> Vec<String> {
            parse_stream(text)
                .into_iter()
                .flat_map(|document| document.errors)
                .map(|error| error.message)
                .collect()
        };
        assert_eq!(
            messages("a: `x`\n"),
            [
                "unexpected character `` ` ``: YAML reserves it, so it cannot start a plain value; quote the value"
            ]
        );
        assert_eq!(
            messages("a: @x\n"),
            [
                "unexpected character `@`: YAML reserves it, so it cannot start a plain value; quote the value"
            ]
        );
    }

    fn duplicates(text: &str) -> Vec<(String, &str, &str)> {
        parse_stream(text)
            .into_iter()
            .flat_map(|document| document.duplicate_keys)
            .map(|d| (d.key, &text[d.first.range()], &text[d.second.range()]))
            .collect()
    }

    #[test]
    fn duplicates_are_found_in_short_and_long_mappings() {
        let short = "a: 1\nb: 2\na: 3\n";
        assert_eq!(duplicates(short), [("a".to_owned(), "a", "a")]);

        // Past the list limit the keys move to a hash map; both sides of the move count.
        let mut long: String = (0..SeenKeys::LIST_LIMIT + 5)
            .map(|i| format!("k{i}: {i}\n"))
            .collect();
        long.push_str("k3: again\nk19: again\nk20: again\n");
        let keys: Vec<String> = duplicates(&long).into_iter().map(|(k, ..)| k).collect();
        assert_eq!(keys, ["k3", "k19", "k20"]);
    }

    #[test]
    fn keys_written_differently_are_the_same_key() {
        assert_eq!(
            duplicates("a: 1\n\"a\": 2\n"),
            [("a".to_owned(), "a", "\"a\"")]
        );
        // `0x1` and `1` both become the key "1", as sigs.k8s.io/yaml reads them.
        assert_eq!(
            duplicates("{1: x, '1': y, 0x1: z}"),
            [("1".to_owned(), "1", "'1'"), ("1".to_owned(), "1", "0x1")]
        );
        assert_eq!(
            duplicates("名前: a\nname: b\n名前: c\n"),
            [("名前".to_owned(), "名前", "名前")]
        );
        assert!(duplicates("<<: {a: 1}\n<<: {b: 2}\n").is_empty());
    }
}

/// The texts parsed that carry [`parsed::MARK`], so that a test can count how often a run parses
/// a file.
#[cfg(test)]
pub(crate) mod parsed {
    use std::sync::Mutex;

    /// Marks a text whose parses are counted.
    pub(crate) const MARK: &str = "# parses counted:";

    static TEXTS: Mutex<Vec<String>> = Mutex::new(Vec::new());

    pub(super) fn record(text: &str) {
        if text.contains(MARK) {
            TEXTS
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(text.to_owned());
        }
    }

    /// How many times a text holding `marker` was parsed.
    pub(crate) fn count(marker: &str) -> usize {
        let texts = TEXTS.lock().unwrap_or_else(|e| e.into_inner());
        texts.iter().filter(|text| text.contains(marker)).count()
    }
}
