//! The structure of rendered output that source maps work from: which document holds an
//! offset, the YAML key each line writes with its path of keys and indices, and the field (key
//! or value) a finding's span marks.

use crate::source::{SourceFile, Span};
use crate::yaml::{Document, Kind, NodeId};
use podcycle_path::PathSegment;

/// A mapping key in rendered output.
#[derive(Clone, Debug)]
pub(crate) struct KeyLine {
    /// 0-based line of the key.
    pub(crate) line: usize,
    pub(crate) key: String,
    pub(crate) key_span: Span,
    /// The span of a scalar value written on the key's line.
    pub(crate) value_span: Option<Span>,
    /// The path from the document root: keys and list indices.
    pub(crate) path: Vec<PathSegment>,
    /// 0-based column of the key, in bytes.
    pub(crate) column: usize,
}

impl KeyLine {
    /// The path's keys alone, the way a template's indentation shows them.
    pub(crate) fn keys(&self) -> Vec<&str> {
        keys_of(&self.path)
    }
}

/// The keys of a path, without its list indices.
pub(crate) fn keys_of(path: &[PathSegment]) -> Vec<&str> {
    path.iter()
        .filter_map(|segment| match segment {
            PathSegment::Key(key) => Some(key.as_str()),
            PathSegment::Index(_) => None,
        })
        .collect()
}

/// The document of `documents` that holds `offset`.
pub(crate) fn document_at(documents: &[Document], offset: u32) -> Option<usize> {
    let index = documents
        .partition_point(|d| d.span.start <= offset)
        .checked_sub(1)?;
    Some(index)
}

/// Every mapping key of a document, in the order they are written. Aliases are not followed:
/// what they repeat is written elsewhere.
pub(crate) fn key_lines(document: &Document, file: &SourceFile) -> Vec<KeyLine> {
    let mut lines = Vec::new();
    if let Some(root) = document.root {
        walk(document, file, root, &mut Vec::new(), &mut lines, 0);
    }
    lines.sort_by_key(|line| line.key_span.start);
    lines
}

fn walk(
    document: &Document,
    file: &SourceFile,
    node: NodeId,
    path: &mut Vec<PathSegment>,
    out: &mut Vec<KeyLine>,
    depth: usize,
) {
    // Rendered output comes from tools, but a template can still nest without end.
    const MAX_DEPTH: usize = 256;
    if depth > MAX_DEPTH {
        return;
    }
    match document.kind(node) {
        Kind::Mapping(entries) => {
            for &(key, value) in entries {
                let Some(name) = document.scalar_str(key) else {
                    continue;
                };
                let key_span = document.node(key).span;
                let line = file.lines.line_of(key_span.start as usize);
                let value_node = document.node(value);
                let value_span = match document.kind(value) {
                    Kind::Scalar(_)
                        if file.lines.line_of(value_node.span.start as usize) == line =>
                    {
                        Some(value_node.span)
                    }
                    _ => None,
                };
                path.push(PathSegment::Key(name.to_owned()));
                out.push(KeyLine {
                    line,
                    key: name.to_owned(),
                    key_span,
                    value_span,
                    path: path.clone(),
                    column: key_span.start as usize - file.lines.line_start(line),
                });
                walk(document, file, value, path, out, depth + 1);
                path.pop();
            }
        }
        Kind::Sequence(items) => {
            for (index, &item) in items.iter().enumerate() {
                path.push(PathSegment::Index(index));
                walk(document, file, item, path, out, depth + 1);
                path.pop();
            }
        }
        Kind::Scalar(_) | Kind::Alias(_) => {}
    }
}

/// The part of a field a span marks, as rules name it: a finding points at the key
/// (`preStop:`) or at the value (`30`, or the whole mapping or list under the key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Key,
    /// The value; for a list item, the item.
    Value,
}

/// A field of a rendered document, and the part of it a span marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// The path from the document root: keys and list indices.
    pub(crate) path: Vec<PathSegment>,
    pub(crate) part: Part,
}

/// The field a span of a document marks: a span that is exactly a key or a value names that
/// field — the deepest one, where a value and its first item or key begin and end together (a
/// list of one item, a mapping under a key); any other span names the deepest field that holds
/// its start, at the key when the start is in a key.
pub(crate) fn field_at(document: &Document, span: Span) -> Field {
    let inside =
        |outer: Span| outer.start <= span.start && span.start < outer.end.max(outer.start + 1);
    let mut path = Vec::new();
    // The deepest value found so far whose span is exactly `span`.
    let mut exact: Option<Vec<PathSegment>> = None;
    let value = |path: Vec<PathSegment>| Field {
        path,
        part: Part::Value,
    };
    let Some(mut node) = document.root else {
        return value(path);
    };
    'descend: for _ in 0..256 {
        match document.kind(node) {
            Kind::Mapping(entries) => {
                for &(key, entry_value) in entries {
                    let key_span = document.node(key).span;
                    let value_span = document.node(entry_value).span;
                    if !inside(key_span) && !inside(value_span) {
                        continue;
                    }
                    let Some(name) = document.scalar_str(key) else {
                        break 'descend;
                    };
                    path.push(PathSegment::Key(name.to_owned()));
                    if key_span == span || inside(key_span) && exact.is_none() {
                        return Field {
                            path,
                            part: Part::Key,
                        };
                    }
                    if inside(key_span) {
                        break 'descend;
                    }
                    if value_span == span {
                        exact = Some(path.clone());
                    }
                    node = entry_value;
                    continue 'descend;
                }
                break;
            }
            Kind::Sequence(items) => {
                for (index, &item) in items.iter().enumerate() {
                    let item_span = document.node(item).span;
                    if inside(item_span) {
                        path.push(PathSegment::Index(index));
                        if item_span == span {
                            exact = Some(path.clone());
                        }
                        node = item;
                        continue 'descend;
                    }
                }
                break;
            }
            Kind::Scalar(_) | Kind::Alias(_) => break,
        }
    }
    value(exact.unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parse_stream;

    #[test]
    fn keys_and_paths() {
        let text = "a:\n  b: 1\n  c:\n  - name: x\n    d: 2\n";
        let file = SourceFile::new("t", text);
        let documents = parse_stream(text);
        let lines = key_lines(&documents[0], &file);
        let described: Vec<(usize, String, Vec<&str>)> = lines
            .iter()
            .map(|l| (l.line, l.key.clone(), l.keys()))
            .collect();
        assert_eq!(described[3], (3, "name".to_owned(), vec!["a", "c", "name"]));
        assert_eq!(lines[3].path[2], PathSegment::Index(0));
        assert!(lines[1].value_span.is_some());
        let two = text.find('2').unwrap();
        let field = field_at(&documents[0], Span::new(two, two + 1));
        assert_eq!(
            field.path,
            [
                PathSegment::Key("a".into()),
                PathSegment::Key("c".into()),
                PathSegment::Index(0),
                PathSegment::Key("d".into())
            ]
        );
    }

    #[test]
    fn the_part_of_a_field_a_span_marks() {
        let text = "a:\n  b: 1\n  c:\n  - name: x\n    d: 2\n";
        let document = &parse_stream(text)[0];
        let span_of = |needle: &str| {
            let start = text.find(needle).unwrap();
            Span::new(start, start + needle.len())
        };
        let key = |k: &str| PathSegment::Key(k.into());
        let field = |path: Vec<PathSegment>, part| Field { path, part };
        assert_eq!(
            field_at(document, span_of("b")),
            field(vec![key("a"), key("b")], Part::Key)
        );
        assert_eq!(
            field_at(document, span_of("1")),
            field(vec![key("a"), key("b")], Part::Value)
        );
        // A mapping's value starts at its first key: the whole span names the mapping, the
        // key's span the key.
        let root = document.root.unwrap();
        let located =
            crate::yaml::lookup(document, root, &[key("a"), key("c"), PathSegment::Index(0)]);
        assert_eq!(
            field_at(document, located.value),
            field(vec![key("a"), key("c"), PathSegment::Index(0)], Part::Value)
        );
        let located = crate::yaml::lookup(document, root, &[key("a")]);
        assert_eq!(
            field_at(document, located.value),
            field(vec![key("a")], Part::Value)
        );
        assert_eq!(
            field_at(document, span_of("name")),
            field(
                vec![key("a"), key("c"), PathSegment::Index(0), key("name")],
                Part::Key
            )
        );
    }
}
