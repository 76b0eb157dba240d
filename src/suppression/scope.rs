//! Where a line suppression applies: the outermost mapping entry or list item that starts on
//! its line or, for a comment alone on its line, on the next line with YAML on it.
//!
//! A document can hold tens of thousands of comments and nodes, so the places are sorted once
//! and each comment looks its scope up by binary search, not by a scan of every node.

use std::collections::HashMap;

use crate::source::{SourceFile, Span};
use crate::yaml::{Document, Kind, NodeId};

/// The mapping entries (key to end of value) and list items of a document, with their depth,
/// sorted by where they start; and where every node starts, sorted.
pub(super) struct Scopes {
    /// (span, depth), by start, then outermost first, then longest first.
    spans: Vec<(Span, usize)>,
    node_starts: Vec<u32>,
    /// The scope found for each line, since many own-line comments can precede one line.
    by_line: HashMap<usize, Option<Span>>,
}

impl Scopes {
    pub(super) fn of(document: &Document) -> Scopes {
        let mut spans = Vec::new();
        let mut stack: Vec<(NodeId, usize)> = document.root.into_iter().map(|r| (r, 0)).collect();
        while let Some((id, depth)) = stack.pop() {
            match document.kind(id) {
                Kind::Mapping(entries) => {
                    for &(key, value) in entries {
                        let span = document.node(key).span.cover(document.node(value).span);
                        spans.push((span, depth));
                        stack.push((value, depth + 1));
                    }
                }
                Kind::Sequence(items) => {
                    for &item in items {
                        spans.push((document.node(item).span, depth));
                        stack.push((item, depth + 1));
                    }
                }
                Kind::Scalar(_) | Kind::Alias(_) => {}
            }
        }
        spans.sort_by_key(|&(span, depth)| (span.start, depth, std::cmp::Reverse(span.end)));
        let mut node_starts: Vec<u32> = document.nodes.iter().map(|n| n.span.start).collect();
        node_starts.sort_unstable();
        Scopes {
            spans,
            node_starts,
            by_line: HashMap::new(),
        }
    }

    /// The outermost entry or item that starts in `line` (a byte range); the longest of those
    /// at the same depth.
    fn outermost_in(&mut self, line_number: usize, line: Span) -> Option<Span> {
        let spans = &self.spans;
        *self.by_line.entry(line_number).or_insert_with(|| {
            let first = spans.partition_point(|(span, _)| span.start < line.start);
            spans[first..]
                .iter()
                .take_while(|(span, _)| span.start < line.end)
                .min_by_key(|(span, depth)| (*depth, std::cmp::Reverse(span.end)))
                .map(|(span, _)| *span)
        })
    }

    /// Where the first node at or after `offset` starts.
    fn next_node_start(&self, offset: u32) -> Option<u32> {
        let index = self.node_starts.partition_point(|&start| start < offset);
        self.node_starts.get(index).copied()
    }
}

/// Where a `# podcycle: ignore[…]` comment applies: the outermost entry or item that starts on
/// its line, or, alone on its line, on the next line with YAML on it. Without such an entry,
/// the line itself; an own-line comment with nothing after it applies nowhere.
pub(super) fn comment_scope(file: &SourceFile, scopes: &mut Scopes, comment: Span) -> Span {
    let line_of = |offset: usize| file.lines.line_of(offset);
    let line = line_of(comment.start as usize);
    let before = file
        .text
        .get(file.lines.line_start(line)..comment.start as usize)
        .unwrap_or_default();
    let target = if before.trim().is_empty() {
        match scopes.next_node_start(comment.end) {
            Some(start) => line_of(start as usize),
            None => return Span::empty(comment.start as usize),
        }
    } else {
        line
    };
    let start = file.lines.line_start(target);
    let end = if target + 1 < file.lines.line_count() {
        file.lines.line_start(target + 1)
    } else {
        file.text.len()
    };
    let range = Span::new(start, end);
    scopes.outermost_in(target, range).unwrap_or(range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_stream;

    fn scope_text(text: &str, marker: &str) -> String {
        let file = SourceFile::new("t.yaml", text);
        let documents = parse_stream(text);
        let document = &documents[0];
        let comment = document
            .comments
            .iter()
            .find(|c| c.text.contains(marker))
            .unwrap();
        let mut scopes = Scopes::of(document);
        let span = comment_scope(&file, &mut scopes, comment.span);
        text[span.range()].to_owned()
    }

    #[test]
    fn line_comments_apply_to_the_outermost_node_on_their_line() {
        let text = "\
spec:
  containers:
  - name: a # A
    image: x
  # B
  - name: b
    lifecycle: # C
      postStart: {}
  restartPolicy: Never # D
  # E
";
        assert_eq!(scope_text(text, "A"), "name: a # A\n    image: x");
        assert_eq!(
            scope_text(text, "B"),
            "name: b\n    lifecycle: # C\n      postStart: {}"
        );
        assert_eq!(scope_text(text, "C"), "lifecycle: # C\n      postStart: {}");
        assert_eq!(scope_text(text, "D"), "restartPolicy: Never");
        assert_eq!(scope_text(text, "E"), "");
    }

    #[test]
    fn a_comment_on_a_line_without_a_node_applies_to_the_line() {
        let text = "args: [\n  a,\n] # A\n";
        assert_eq!(scope_text(text, "A"), "] # A\n");
    }
}
