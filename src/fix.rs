//! Fixes: changes that resolve a finding, described on the YAML tree (field paths, not
//! offsets) so that a rule can propose them without seeing the text, and turned into byte
//! edits of the text afterwards with the tree's spans.
//!
//! A rule attaches a fix only where the change is certain. Rendering is conservative too: a
//! field reached through an alias or a merge key is shared with other places, and a fix that
//! would edit it is dropped rather than applied.

use crate::model::path::{FieldPath, PathSegment};
use crate::source::{LineIndex, Span};
use crate::yaml::{Comment, Document, Kind, Located, NodeId, lookup};

/// Whether a fix may be applied without review (`check --fix`) or only on request
/// (`check --fix --unsafe-fixes`); editors offer both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Applicability {
    /// Resolves the finding and changes nothing else about how the pod runs.
    Safe,
    /// Resolves the finding, and also changes behaviour beyond it (how a hook runs, how long
    /// shutdown may take): worth a look before committing.
    Unsafe,
}

impl Applicability {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// Whether `--fix` edits the file named `path`: fixes are written as YAML (a block mapping, a
/// comment), so JSON files are left as they are, and their findings are not counted as
/// fixable.
pub(crate) fn edits_file(path: &str) -> bool {
    !std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Whether a rule offers fixes, for `podcycle rules` and the rule's documentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixAvailability {
    /// The rule never offers a fix.
    None,
    /// Where the change is certain (a fix for some findings, not all).
    Sometimes,
    /// Every finding comes with a fix.
    Always,
}

impl FixAvailability {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            FixAvailability::None => "none",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "always",
        }
    }
}

/// One fix for a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the fix does, as an editor shows it: "Raise terminationGracePeriodSeconds to 90".
    pub title: String,
    pub(crate) applicability: Applicability,
    /// The document of the stream the paths start in (set by the lint pipeline).
    pub(crate) document: usize,
    pub(crate) edits: Vec<FixEdit>,
    /// Where the edits land in the text the fix was found in (set by the lint pipeline).
    pub placement: Placement,
}

/// Where a fix lands in the text it was found in. The lint pipeline places every fix while the
/// document's tree is at hand, so that showing a fix does not parse the file again.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Placement {
    /// Not placed: whoever shows the fix places it with [`text_edits`].
    #[default]
    Pending,
    /// The text edits, as [`text_edits`] gives them.
    At(Vec<TextEdit>),
    /// [`text_edits`] gives none: the fix cannot be applied to this text.
    Nowhere,
}

/// One change, addressed by field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FixEdit {
    /// Gives the field at `path` a scalar value: replaces the value where the key is written,
    /// or adds `key: value` to the mapping that lacks it.
    Set { path: FieldPath, value: String },
    /// Replaces the entry at `path`, key and value, with `key:` and a mapping of scalars.
    Replace {
        path: FieldPath,
        key: String,
        fields: Vec<(String, String)>,
    },
    /// Removes the entry at `path`, a scalar written on a line of its own in a block mapping
    /// with no comment on it: the fix is not offered otherwise.
    Remove { path: FieldPath },
}

/// A change of the text: `span` is replaced by `text` (an insertion when `span` is empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub(crate) span: Span,
    pub(crate) text: String,
}

impl Fix {
    /// A safe fix whose paths start at the object root, as rules write them.
    pub(crate) fn new(title: impl Into<String>, edits: Vec<FixEdit>) -> Fix {
        Fix {
            title: title.into(),
            applicability: Applicability::Safe,
            document: 0,
            edits,
            placement: Placement::Pending,
        }
    }

    /// A fix that changes behaviour beyond the finding ([`Applicability::Unsafe`]).
    pub(crate) fn new_unsafe(title: impl Into<String>, edits: Vec<FixEdit>) -> Fix {
        Fix {
            applicability: Applicability::Unsafe,
            ..Fix::new(title, edits)
        }
    }

    /// The same fix with paths from the document root: the object sits at `prefix` (inside a
    /// `List`) of the stream's document number `document`.
    #[must_use]
    pub(crate) fn within(self, prefix: &FieldPath, document: usize) -> Fix {
        let rebase = |path: FieldPath| prefix.join(path.segments());
        Fix {
            title: self.title,
            applicability: self.applicability,
            document,
            edits: self
                .edits
                .into_iter()
                .map(|edit| match edit {
                    FixEdit::Set { path, value } => FixEdit::Set {
                        path: rebase(path),
                        value,
                    },
                    FixEdit::Replace { path, key, fields } => FixEdit::Replace {
                        path: rebase(path),
                        key,
                        fields,
                    },
                    FixEdit::Remove { path } => FixEdit::Remove { path: rebase(path) },
                })
                .collect(),
            placement: Placement::Pending,
        }
    }

    /// Places the fix in `text`, read as `document` (its document of the stream): see
    /// [`Placement`].
    pub(crate) fn place(&mut self, text: &str, lines: &LineIndex, document: &Document) {
        self.placement = match text_edits_in(text, lines, document, self) {
            Some(edits) => Placement::At(edits),
            None => Placement::Nowhere,
        };
    }
}

/// The text edits of `fix`, in order, for `text` read as `documents`
/// ([`crate::yaml::parse_stream`] of the same text). `None` when the tree no longer has the
/// places the fix names, or when an edit would change a node shared through an alias or merge
/// key.
pub fn text_edits(text: &str, documents: &[Document], fix: &Fix) -> Option<Vec<TextEdit>> {
    let document = documents.get(fix.document)?;
    text_edits_in(text, &LineIndex::new(text), document, fix)
}

/// [`text_edits`] in the fix's own document, with the line index of `text`.
pub(crate) fn text_edits_in(
    text: &str,
    lines: &LineIndex,
    document: &Document,
    fix: &Fix,
) -> Option<Vec<TextEdit>> {
    let root = document.root?;
    let tree = Tree {
        text,
        document,
        root,
        lines,
    };
    let mut edits = fix
        .edits
        .iter()
        .map(|edit| match edit {
            FixEdit::Set { path, value } => tree.set(path, value),
            FixEdit::Replace { path, key, fields } => tree.replace(path, key, fields),
            FixEdit::Remove { path } => tree.remove(path),
        })
        .collect::<Option<Vec<_>>>()?;
    edits.sort_by_key(|edit| (edit.span.start, edit.span.end));
    let overlapping = edits
        .windows(2)
        .any(|pair| pair[0].span.end > pair[1].span.start);
    (!overlapping).then_some(edits)
}

/// Applies edits that do not overlap (as [`text_edits`] returns them) to `text`.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|edit| (edit.span.start, edit.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in sorted {
        let range = edit.span.range();
        out.push_str(&text[at..range.start.max(at)]);
        out.push_str(&edit.text);
        at = at.max(range.end);
    }
    out.push_str(&text[at.min(text.len())..]);
    out
}

struct Tree<'a> {
    text: &'a str,
    document: &'a Document,
    root: NodeId,
    lines: &'a LineIndex,
}

impl Tree<'_> {
    /// Looks `path` up and makes sure every step is written where the path says: a step
    /// through an alias or a merge key lands on a node that other places share. Returns the
    /// lookup when the whole path exists that way.
    fn direct(&self, path: &FieldPath) -> Option<Located> {
        let segments = path.segments();
        let mut node = self.root;
        let mut located = None;
        for depth in 0..segments.len() {
            let step = lookup(self.document, self.root, &segments[..=depth]);
            if !step.complete {
                return None;
            }
            let written = match &segments[depth] {
                PathSegment::Key(_) => {
                    let key = step.key?;
                    self.document
                        .mapping(node)?
                        .iter()
                        .find(|&&(k, _)| self.document.node(k).span == key)?
                        .1
                }
                PathSegment::Index(index) => *self.document.sequence(node)?.get(*index)?,
            };
            if matches!(self.document.kind(written), Kind::Alias(_)) {
                return None;
            }
            node = step.node;
            located = Some(step);
        }
        located
    }

    fn set(&self, path: &FieldPath, value: &str) -> Option<TextEdit> {
        if let Some(found) = self.direct(path) {
            // Only a scalar is replaced; a mapping or list there is not what the fix expects.
            self.document.scalar(found.node)?;
            return Some(TextEdit {
                span: found.value,
                text: value.to_owned(),
            });
        }
        if lookup(self.document, self.root, path.segments()).complete {
            // The field exists, but through an alias or a merge key.
            return None;
        }
        let PathSegment::Key(key) = path.segments().last()? else {
            return None;
        };
        let parent = path.parent();
        let mapping = if parent.segments().is_empty() {
            self.root
        } else {
            self.direct(&parent)?.node
        };
        self.insert_entry(mapping, key, value)
    }

    /// Adds `key: value` to a mapping: first in a flow mapping; in a block mapping on a line of
    /// its own, above the first key when that starts its line, else below the first entry
    /// (a list item's `- name: x` line).
    fn insert_entry(&self, mapping: NodeId, key: &str, value: &str) -> Option<TextEdit> {
        let span = self.document.node(mapping).span;
        let entries = self.document.mapping(mapping)?;
        if self.is_flow(span) {
            return Some(match entries.first() {
                Some(&(first, _)) => TextEdit {
                    span: Span::empty(self.document.node(first).span.start as usize),
                    text: format!("{key}: {value}, "),
                },
                None => TextEdit {
                    span,
                    text: format!("{{{key}: {value}}}"),
                },
            });
        }
        let &(first_key, first_value) = entries.first()?;
        let key_start = self.document.node(first_key).span.start as usize;
        let line = self.lines.line_of(key_start);
        let line_start = self.lines.line_start(line);
        let before = &self.text[line_start..key_start];
        if before.chars().all(|c| c == ' ') {
            let newline = self.line_ending(line);
            return Some(TextEdit {
                span: Span::empty(line_start),
                text: format!("{before}{key}: {value}{newline}"),
            });
        }
        let indent = " ".repeat(before.chars().count());
        let value_end = self.document.node(first_value).span.end as usize;
        Some(self.line_after(value_end, &format!("{indent}{key}: {value}")))
    }

    /// Inserts `line` as a line of its own after the line where `end` is.
    fn line_after(&self, end: usize, line: &str) -> TextEdit {
        if end > 0 && self.text.as_bytes().get(end - 1) == Some(&b'\n') {
            // A block scalar's span takes its last line break along.
            let newline = self.line_ending(self.lines.line_of(end - 1));
            return TextEdit {
                span: Span::empty(end),
                text: format!("{line}{newline}"),
            };
        }
        let line_index = self.lines.line_of(end);
        let at = self.lines.content_end(self.text, line_index);
        let newline = self.line_ending(line_index);
        TextEdit {
            span: Span::empty(at),
            text: format!("{newline}{line}"),
        }
    }

    /// The line break that ends the 0-based `line` (`\r\n`, `\n` or a lone `\r`), so that an
    /// inserted line ends like its neighbours; the last line, which has none, takes the one
    /// before it.
    fn line_ending(&self, line: usize) -> &'static str {
        let mut line = line;
        loop {
            let end = self.lines.content_end(self.text, line);
            let rest = &self.text.as_bytes()[end.min(self.text.len())..];
            match rest {
                [b'\r', b'\n', ..] => return "\r\n",
                [b'\r', ..] => return "\r",
                [b'\n', ..] => return "\n",
                _ if line == 0 => return "\n",
                _ => line -= 1,
            }
        }
    }

    fn replace(
        &self,
        path: &FieldPath,
        key: &str,
        fields: &[(String, String)],
    ) -> Option<TextEdit> {
        let found = self.direct(path)?;
        let key_span = found.key?;
        let start = key_span.start as usize;
        let mut end = found.value.end.max(key_span.end) as usize;
        while end > start && self.text.as_bytes()[end - 1].is_ascii_whitespace() {
            end -= 1;
        }
        let parent = self.direct(&path.parent()).map_or(self.root, |p| p.node);
        let pairs = fields
            .iter()
            .map(|(name, value)| format!("{name}: {value}"));
        // Comments inside the replaced entry are kept: on the key's line after the new key,
        // on lines of their own above the new fields, and after code at the end of the last.
        let comments: Vec<&Comment> = self
            .document
            .comments
            .iter()
            .filter(|c| (start..end).contains(&(c.span.start as usize)))
            .collect();
        let text = if self.is_flow(self.document.node(parent).span) {
            if !comments.is_empty() {
                // A flow collection written over lines with comments inside: no one-line
                // rewrite keeps them.
                return None;
            }
            format!("{key}: {{{}}}", pairs.collect::<Vec<_>>().join(", "))
        } else {
            let column = self.column(start);
            let step = self.indent_step(found.node, column).unwrap_or(2);
            let indent = " ".repeat(column + step);
            let key_line = self.lines.line_of(start);
            let newline = self.line_ending(key_line);
            let comment_text = |c: &Comment| &self.text[c.span.range()];
            let mut text = format!("{key}:");
            let mut trailing = Vec::new();
            for &comment in &comments {
                let at = comment.span.start as usize;
                let line_start = self.lines.line_start(self.lines.line_of(at));
                if self.lines.line_of(at) == key_line {
                    text.push_str("  ");
                    text.push_str(comment_text(comment));
                } else if self.text[line_start..at].trim().is_empty() {
                    text.push_str(newline);
                    text.push_str(&indent);
                    text.push_str(comment_text(comment));
                } else {
                    trailing.push(comment_text(comment));
                }
            }
            for pair in pairs {
                text.push_str(newline);
                text.push_str(&indent);
                text.push_str(&pair);
            }
            for comment in trailing {
                text.push_str("  ");
                text.push_str(comment);
            }
            text
        };
        Some(TextEdit {
            span: Span::new(start, end),
            text,
        })
    }

    /// Deletes the line of a `key: scalar` entry of a block mapping, when nothing else is on it
    /// (no comment, no other entry) and the mapping keeps another entry.
    fn remove(&self, path: &FieldPath) -> Option<TextEdit> {
        let found = self.direct(path)?;
        self.document.scalar(found.node)?;
        let key = found.key?;
        let parent = self.direct(&path.parent()).map_or(self.root, |p| p.node);
        if self.is_flow(self.document.node(parent).span) || self.document.mapping(parent)?.len() < 2
        {
            return None;
        }
        let line = self.lines.line_of(key.start as usize);
        if self.lines.line_of(found.value.end as usize) != line {
            return None;
        }
        let start = self.lines.line_start(line);
        let end = if line + 1 < self.lines.line_count() {
            self.lines.line_start(line + 1)
        } else {
            self.text.len()
        };
        let before = &self.text[start..key.start as usize];
        let after = &self.text[found.value.end as usize..end];
        if !before.trim().is_empty() || !after.trim().is_empty() {
            // A list item's `- ` or a comment shares the line.
            return None;
        }
        Some(TextEdit {
            span: Span::new(start, end),
            text: String::new(),
        })
    }

    /// How much deeper than `column` the entries of a block mapping at `node` are indented.
    fn indent_step(&self, node: NodeId, column: usize) -> Option<usize> {
        let span = self.document.node(node).span;
        if self.is_flow(span) {
            return None;
        }
        let &(first, _) = self.document.mapping(node)?.first()?;
        let start = self.document.node(first).span.start as usize;
        let inner = self.column(start);
        (self.lines.line_of(start) != self.lines.line_of(span.start as usize) || inner > column)
            .then(|| inner.checked_sub(column))
            .flatten()
            .filter(|&step| step > 0)
    }

    /// The column of `offset` in characters.
    fn column(&self, offset: usize) -> usize {
        let line_start = self.lines.line_start(self.lines.line_of(offset));
        self.text[line_start..offset].chars().count()
    }

    fn is_flow(&self, span: Span) -> bool {
        matches!(
            self.text.as_bytes().get(span.start as usize),
            Some(b'{' | b'[')
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_stream;

    fn fixed(text: &str, edits: Vec<FixEdit>) -> Option<String> {
        let documents = parse_stream(text);
        let fix = Fix::new("test", edits);
        text_edits(text, &documents, &fix).map(|edits| apply(text, &edits))
    }

    fn set(keys: &[&str], value: &str) -> FixEdit {
        set_at(FieldPath::from_keys(keys), value)
    }

    fn set_at(path: FieldPath, value: &str) -> FixEdit {
        FixEdit::Set {
            path,
            value: value.to_owned(),
        }
    }

    /// A CRLF file kept its CRLF lines but got a bare LF on each line a fix added.
    #[test]
    fn inserted_lines_end_like_their_neighbours() {
        let crlf = |text: &str| text.replace('\n', "\r\n");
        let text = crlf("spec:\n  containers:\n  - name: a\n    image: x\n");
        assert_eq!(
            fixed(&text, vec![set(&["spec", "grace"], "90")]).unwrap(),
            crlf("spec:\n  grace: 90\n  containers:\n  - name: a\n    image: x\n")
        );
        let container = FieldPath::from_keys(&["spec", "containers"]).index(0);
        assert_eq!(
            fixed(
                &text,
                vec![set_at(container.key("restartPolicy"), "Always")]
            )
            .unwrap(),
            crlf("spec:\n  containers:\n  - name: a\n    restartPolicy: Always\n    image: x\n")
        );
        // The last line, without a break of its own, takes the one before it.
        let unterminated = "spec:\r\n  containers:\r\n  - name: a";
        assert_eq!(
            fixed(unterminated, vec![set_at(container.key("image"), "x")]).unwrap(),
            "spec:\r\n  containers:\r\n  - name: a\r\n    image: x"
        );
        let block = crlf("preStop:\n  exec:\n    command:\n    - sleep\n    - '5'\nnext: 1\n");
        let edit = FixEdit::Replace {
            path: FieldPath::from_keys(&["preStop", "exec"]),
            key: "sleep".to_owned(),
            fields: vec![("seconds".to_owned(), "5".to_owned())],
        };
        assert_eq!(
            fixed(&block, vec![edit]).unwrap(),
            crlf("preStop:\n  sleep:\n    seconds: 5\nnext: 1\n")
        );
    }

    #[test]
    fn remove_deletes_an_entry_line_and_keeps_everything_else() {
        let remove = || FixEdit::Remove {
            path: FieldPath::from_keys(&["spec", "replicas"]),
        };
        let text = "spec:\n  # scaled by the autoscaler\n  replicas: 3\n  selector: {}\n";
        assert_eq!(
            fixed(text, vec![remove()]).unwrap(),
            "spec:\n  # scaled by the autoscaler\n  selector: {}\n"
        );
        let crlf = "spec:\r\n  replicas: 3\r\n  selector: {}";
        assert_eq!(
            fixed(crlf, vec![remove()]).unwrap(),
            "spec:\r\n  selector: {}"
        );
        // A comment on the line, a flow mapping, or the only entry: not offered.
        assert!(fixed("spec:\n  replicas: 3 # three\n  x: 1\n", vec![remove()]).is_none());
        assert!(fixed("spec: {replicas: 3, x: 1}\n", vec![remove()]).is_none());
        assert!(fixed("spec:\n  replicas: 3\n", vec![remove()]).is_none());
    }

    #[test]
    fn set_replaces_a_written_scalar() {
        let text = "spec:\n  grace: 30 # seconds\n  x: 1\n";
        assert_eq!(
            fixed(text, vec![set(&["spec", "grace"], "90")]).unwrap(),
            "spec:\n  grace: 90 # seconds\n  x: 1\n"
        );
    }

    #[test]
    fn set_adds_a_missing_key_above_the_first_or_below_a_list_item_line() {
        let text = "spec:\n  containers:\n  - name: a\n    image: x\n";
        assert_eq!(
            fixed(text, vec![set(&["spec", "grace"], "90")]).unwrap(),
            "spec:\n  grace: 90\n  containers:\n  - name: a\n    image: x\n"
        );
        let path = FieldPath::from_keys(&["spec", "containers"]).index(0);
        let edit = set_at(path.key("restartPolicy"), "Always");
        assert_eq!(
            fixed(text, vec![edit]).unwrap(),
            "spec:\n  containers:\n  - name: a\n    restartPolicy: Always\n    image: x\n"
        );
    }

    #[test]
    fn set_adds_to_flow_mappings() {
        assert_eq!(
            fixed("spec: {a: 1}\n", vec![set(&["spec", "b"], "2")]).unwrap(),
            "spec: {b: 2, a: 1}\n"
        );
        assert_eq!(
            fixed("spec: {}\n", vec![set(&["spec", "b"], "2")]).unwrap(),
            "spec: {b: 2}\n"
        );
    }

    #[test]
    fn shared_nodes_are_not_edited() {
        let merged = "base: &b {grace: 30}\nspec:\n  <<: *b\n  x: 1\n";
        assert_eq!(fixed(merged, vec![set(&["spec", "grace"], "90")]), None);
        let aliased = "base: &b {grace: 30}\nspec: *b\n";
        assert_eq!(fixed(aliased, vec![set(&["spec", "grace"], "90")]), None);
        assert_eq!(fixed("spec: [1]\n", vec![set(&["spec", "x"], "1")]), None);
        assert_eq!(
            fixed("spec: {x: [1]}\n", vec![set(&["spec", "x"], "1")]),
            None
        );
    }

    #[test]
    fn replace_writes_an_entry_in_the_surrounding_style() {
        let edit = || FixEdit::Replace {
            path: FieldPath::from_keys(&["preStop", "exec"]),
            key: "sleep".to_owned(),
            fields: vec![("seconds".to_owned(), "5".to_owned())],
        };
        let block = "preStop:\n    exec:\n      command: [sleep, '5'] # drain\nnext: 1\n";
        assert_eq!(
            fixed(block, vec![edit()]).unwrap(),
            "preStop:\n    sleep:\n      seconds: 5 # drain\nnext: 1\n"
        );
        let nested = "preStop:\n  exec:\n    command:\n    - sleep\n    - '5'\n\nnext: 1\n";
        assert_eq!(
            fixed(nested, vec![edit()]).unwrap(),
            "preStop:\n  sleep:\n    seconds: 5\n\nnext: 1\n"
        );
        let commented = "preStop:\n  exec:  # drain\n    # for the balancer\n    command: [sleep, '5']  # seconds\n    x: 1\nnext: 1\n";
        assert_eq!(
            fixed(commented, vec![edit()]).unwrap(),
            "preStop:\n  sleep:  # drain\n    # for the balancer\n    seconds: 5  # seconds\nnext: 1\n"
        );
        let flow = "preStop: {exec: {command: [sleep, '5']}}\n";
        assert_eq!(
            fixed(flow, vec![edit()]).unwrap(),
            "preStop: {sleep: {seconds: 5}}\n"
        );
    }

    #[test]
    fn fixes_follow_their_document_and_prefix() {
        let text = "a: 1\n---\nkind: List\nitems:\n- spec:\n    x: 1\n";
        let documents = parse_stream(text);
        let prefix = FieldPath::from_keys(&["items"]).index(0);
        let fix = Fix::new("t", vec![set(&["spec", "x"], "2")]).within(&prefix, 1);
        let edits = text_edits(text, &documents, &fix).unwrap();
        assert_eq!(
            apply(text, &edits),
            "a: 1\n---\nkind: List\nitems:\n- spec:\n    x: 2\n"
        );
        let elsewhere = Fix { document: 7, ..fix };
        assert_eq!(text_edits(text, &documents, &elsewhere), None);
    }
}
