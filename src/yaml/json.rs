//! Converts a YAML node to the JSON value Kubernetes would decode, as sigs.k8s.io/yaml does:
//! go-yaml v2 scalar typing, aliases expanded, merge keys (`<<`) applied, the last duplicate
//! key winning.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use super::node::{Document, Kind, NodeId, Scalar};
use super::resolve::{Resolved, go_non_finite, key_text, resolve};
use crate::source::Span;

/// Values that alias expansion may add beyond the nodes written in the document. A
/// "billion laughs" document stops here instead of exhausting memory.
pub(crate) const ALIAS_EXPANSION_LIMIT: usize = 100_000;
/// Nesting depth after alias expansion; deeper input is refused rather than overflowing the
/// stack.
pub(crate) const MAX_DEPTH: usize = 512;

#[derive(Debug, Clone, PartialEq)]
pub struct ConversionError {
    /// Where the problem shows: the alias that pushed expansion over the limit, or the node
    /// that nests too deep.
    pub(crate) span: Span,
    pub(crate) message: String,
}

/// Converts the subtree at `id`.
pub fn to_json(document: &Document, id: NodeId) -> Result<Value, ConversionError> {
    Converter::new(document, JsonBuilder).value(id, 0)
}

/// Whether the subtree at `id` converts: the walk of [`to_json`] within the same limits,
/// building nothing. A subtree that passes can be read through [`json_entries`] and
/// [`json_scalar`] without bounds of its own.
pub(crate) fn check_convertible(document: &Document, id: NodeId) -> Result<(), ConversionError> {
    // Without aliases a subtree has no more values than nodes, and merge keys at most double
    // its depth (each adds a level): such a subtree converts, and the walk can be skipped.
    if !document.has_aliases && document.depth.saturating_mul(2) < MAX_DEPTH {
        return Ok(());
    }
    Converter::new(document, NoBuilder).value(id, 0)
}

/// Types a scalar as [`to_json`] does: as `resolve`, with floats as Go's JSON encoder writes
/// them (see `json_float`).
pub(crate) fn json_scalar<'a>(scalar: &Scalar<'a>) -> Resolved<'a> {
    match resolve(scalar) {
        Resolved::Float(f) => json_float(f),
        other => other,
    }
}

/// The entries of the mapping at `id` as [`to_json`] makes them: merge keys applied at their
/// position, the last value of each key winning, keys as strings in byte order (the order of
/// a Go map written as JSON). Keys that are collections have no JSON form and are left out.
pub(crate) fn json_entries(document: &Document, id: NodeId) -> Vec<(Cow<'_, str>, NodeId)> {
    let mut entries = Vec::new();
    collect_entries(document, id, 0, &mut entries);
    // Reversed, a stable sort puts the last value written first among equal keys.
    entries.reverse();
    entries.sort_by(|(a, _), (b, _)| a.cmp(b));
    entries.dedup_by(|later, first| later.0 == first.0);
    entries
}

fn collect_entries<'d>(
    document: &'d Document,
    id: NodeId,
    depth: usize,
    out: &mut Vec<(Cow<'d, str>, NodeId)>,
) {
    let Some(entries) = document.mapping(id) else {
        return;
    };
    for &(key, value) in entries {
        if is_merge_key(document, key) {
            collect_merged(document, value, depth + 1, out);
        } else if let Some(key) = key_text(document, key) {
            out.push((key, value));
        }
    }
}

fn collect_merged<'d>(
    document: &'d Document,
    source: NodeId,
    depth: usize,
    out: &mut Vec<(Cow<'d, str>, NodeId)>,
) {
    // The same bound as the conversion's, for callers that did not check first.
    if depth > MAX_DEPTH {
        return;
    }
    let source = document.resolve(source);
    match document.kind(source) {
        Kind::Mapping(_) => collect_entries(document, source, depth, out),
        Kind::Sequence(items) => {
            // Earlier mappings in the list take precedence, so apply them last.
            for &item in items.iter().rev() {
                collect_merged(document, item, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// What a conversion makes of the tree: JSON, or nothing when only the limits are checked.
trait Builder {
    type Value;
    type Map;
    fn scalar(&mut self, scalar: &Scalar<'_>) -> Self::Value;
    fn sequence(&mut self, items: Vec<Self::Value>) -> Self::Value;
    fn map(&mut self) -> Self::Map;
    /// Sets `key` (a scalar node) to `value`, replacing an earlier value.
    fn insert(&mut self, map: &mut Self::Map, document: &Document, key: NodeId, value: Self::Value);
    fn mapping(&mut self, map: Self::Map) -> Self::Value;
}

struct JsonBuilder;

impl Builder for JsonBuilder {
    type Value = Value;
    type Map = Map<String, Value>;

    fn scalar(&mut self, scalar: &Scalar<'_>) -> Value {
        match json_scalar(scalar) {
            Resolved::Null => Value::Null,
            Resolved::Bool(b) => Value::Bool(b),
            Resolved::Int(i) => Value::Number(i.into()),
            Resolved::UInt(u) => Value::Number(u.into()),
            Resolved::Float(f) => Number::from_f64(f).map_or(Value::Null, Value::Number),
            Resolved::Str(s) => Value::String(s.to_owned()),
        }
    }

    fn sequence(&mut self, items: Vec<Value>) -> Value {
        Value::Array(items)
    }

    fn map(&mut self) -> Map<String, Value> {
        Map::new()
    }

    fn insert(
        &mut self,
        map: &mut Map<String, Value>,
        document: &Document,
        key: NodeId,
        value: Value,
    ) {
        if let Some(key) = key_text(document, key) {
            map.insert(key.into_owned(), value);
        }
    }

    fn mapping(&mut self, map: Map<String, Value>) -> Value {
        Value::Object(map)
    }
}

/// Builds nothing: a `Vec<()>` does not allocate.
struct NoBuilder;

impl Builder for NoBuilder {
    type Value = ();
    type Map = ();

    fn scalar(&mut self, _: &Scalar<'_>) {}
    fn sequence(&mut self, _: Vec<()>) {}
    fn map(&mut self) {}
    fn insert(&mut self, (): &mut (), _: &Document, _: NodeId, (): ()) {}
    fn mapping(&mut self, (): ()) {}
}

struct Converter<'d, B> {
    document: &'d Document,
    builder: B,
    /// How many more values may be produced.
    budget: usize,
    /// The outermost alias being expanded: where a "billion laughs" shows in the source.
    expanding: Option<NodeId>,
}

impl<'d, B: Builder> Converter<'d, B> {
    fn new(document: &'d Document, builder: B) -> Self {
        Converter {
            document,
            builder,
            budget: document.node_count() + ALIAS_EXPANSION_LIMIT,
            expanding: None,
        }
    }

    fn spend(&mut self, id: NodeId) -> Result<(), ConversionError> {
        if self.budget == 0 {
            return Err(ConversionError {
                span: self.document.node(self.expanding.unwrap_or(id)).span,
                message: format!(
                    "aliases expand to more than {ALIAS_EXPANSION_LIMIT} values beyond the document's own; \
                     the document is not linted"
                ),
            });
        }
        self.budget -= 1;
        Ok(())
    }

    fn value(&mut self, id: NodeId, depth: usize) -> Result<B::Value, ConversionError> {
        self.spend(id)?;
        if depth > MAX_DEPTH {
            return Err(ConversionError {
                span: self.document.node(id).span,
                message: format!(
                    "values nest more than {MAX_DEPTH} levels deep; the document is not linted"
                ),
            });
        }
        Ok(match self.document.kind(id) {
            Kind::Alias(target) => {
                let outermost = self.expanding.is_none();
                if outermost {
                    self.expanding = Some(id);
                }
                let value = self.value(target, depth + 1);
                if outermost {
                    self.expanding = None;
                }
                return value;
            }
            Kind::Scalar(scalar) => self.builder.scalar(&scalar),
            Kind::Sequence(items) => {
                let mut values = Vec::with_capacity(items.len());
                for &item in items {
                    values.push(self.value(item, depth + 1)?);
                }
                self.builder.sequence(values)
            }
            Kind::Mapping(_) => {
                let mut map = self.builder.map();
                self.merge_into(&mut map, id, depth)?;
                self.builder.mapping(map)
            }
        })
    }

    /// Sets the entries of the mapping at `id` on `map`, in order, so later keys override
    /// earlier ones; a merge key sets the merged mapping's entries at its position (go-yaml v2
    /// semantics).
    fn merge_into(
        &mut self,
        map: &mut B::Map,
        id: NodeId,
        depth: usize,
    ) -> Result<(), ConversionError> {
        let Some(entries) = self.document.mapping(id) else {
            return Ok(());
        };
        for &(key, value) in entries {
            if is_merge_key(self.document, key) {
                self.merge(map, value, depth + 1)?;
                continue;
            }
            // Collections as keys have no JSON form; sigs.k8s.io/yaml rejects them, and the
            // model never looks them up, so they are left out.
            if self.document.scalar(key).is_none() {
                continue;
            }
            let value = self.value(value, depth + 1)?;
            self.builder.insert(map, self.document, key, value);
        }
        Ok(())
    }

    fn merge(
        &mut self,
        map: &mut B::Map,
        source: NodeId,
        depth: usize,
    ) -> Result<(), ConversionError> {
        self.spend(source)?;
        let resolved = self.document.resolve(source);
        match self.document.kind(resolved) {
            Kind::Mapping(_) => self.merge_into(map, resolved, depth),
            Kind::Sequence(items) => {
                // Earlier mappings in the list take precedence, so apply them last.
                for &item in items.iter().rev() {
                    self.merge(map, item, depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }
}

pub(crate) fn is_merge_key(document: &Document, key: NodeId) -> bool {
    document.scalar(key).is_some_and(|s| {
        s.tag.is_none() && s.style == super::node::ScalarStyle::Plain && s.value == "<<"
    })
}

/// sigs.k8s.io/yaml writes floats with Go's JSON encoder, which prints integral values without
/// a fraction: `10.0` reaches the API server as `10` and fits an integer field.
fn json_float(f: f64) -> Resolved<'static> {
    const EXACT_INTEGER_LIMIT: f64 = 1e21;
    if f.fract() == 0.0 && f.abs() < EXACT_INTEGER_LIMIT {
        #[allow(clippy::cast_possible_truncation)]
        if let Ok(i) = i64::try_from(f as i128) {
            return Resolved::Int(i);
        }
    }
    // Go's encoder cannot write NaN or infinities; keep the text (as Go formats it) so the
    // typed decoder reports a type error instead of a silent change.
    go_non_finite(f).map_or(Resolved::Float(f), Resolved::Str)
}
