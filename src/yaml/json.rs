//! Converts a YAML node to the JSON value Kubernetes would decode, as sigs.k8s.io/yaml does:
//! go-yaml v2 scalar typing, aliases expanded, merge keys (`<<`) applied, the last duplicate
//! key winning.

use serde_json::{Map, Number, Value};

use super::node::{Document, Kind, NodeId};
use super::resolve::{Resolved, go_format_float, key_string, resolve};
use crate::source::Span;

/// Values that alias expansion may add beyond the nodes written in the document. A
/// "billion laughs" document stops here instead of exhausting memory.
pub const ALIAS_EXPANSION_LIMIT: usize = 100_000;
/// Nesting depth after alias expansion; deeper input is refused rather than overflowing the
/// stack.
pub const MAX_DEPTH: usize = 512;

#[derive(Debug, Clone, PartialEq)]
pub struct ConversionError {
    /// Where the problem shows: the alias that pushed expansion over the limit, or the node
    /// that nests too deep.
    pub span: Span,
    pub message: String,
}

/// Converts the subtree at `id`.
pub fn to_json(document: &Document, id: NodeId) -> Result<Value, ConversionError> {
    let mut converter = Converter {
        document,
        budget: document.node_count() + ALIAS_EXPANSION_LIMIT,
        expanding: None,
    };
    converter.value(id, 0)
}

struct Converter<'d> {
    document: &'d Document,
    /// How many more values may be produced.
    budget: usize,
    /// The outermost alias being expanded: where a "billion laughs" shows in the source.
    expanding: Option<NodeId>,
}

impl Converter<'_> {
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

    fn value(&mut self, id: NodeId, depth: usize) -> Result<Value, ConversionError> {
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
            Kind::Scalar(scalar) => scalar_value(resolve(&scalar)),
            Kind::Sequence(items) => {
                let mut values = Vec::with_capacity(items.len());
                for &item in items {
                    values.push(self.value(item, depth + 1)?);
                }
                Value::Array(values)
            }
            Kind::Mapping(_) => {
                let mut map = Map::new();
                self.merge_into(&mut map, id, depth)?;
                Value::Object(map)
            }
        })
    }

    /// Sets the entries of the mapping at `id` on `map`, in order, so later keys override
    /// earlier ones; a merge key sets the merged mapping's entries at its position (go-yaml v2
    /// semantics).
    fn merge_into(
        &mut self,
        map: &mut Map<String, Value>,
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
            let Some(key) = key_string(self.document, key) else {
                continue;
            };
            let value = self.value(value, depth + 1)?;
            map.insert(key, value);
        }
        Ok(())
    }

    fn merge(
        &mut self,
        map: &mut Map<String, Value>,
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

fn scalar_value(resolved: Resolved<'_>) -> Value {
    match resolved {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Number(i.into()),
        Resolved::UInt(u) => Value::Number(u.into()),
        Resolved::Float(f) => float_value(f),
        Resolved::Str(s) => Value::String(s.to_owned()),
    }
}

/// sigs.k8s.io/yaml writes floats with Go's JSON encoder, which prints integral values without
/// a fraction: `10.0` reaches the API server as `10` and fits an integer field.
fn float_value(f: f64) -> Value {
    const EXACT_INTEGER_LIMIT: f64 = 1e21;
    if f.fract() == 0.0 && f.abs() < EXACT_INTEGER_LIMIT {
        #[allow(clippy::cast_possible_truncation)]
        if let Ok(i) = i64::try_from(f as i128) {
            return Value::Number(i.into());
        }
    }
    match Number::from_f64(f) {
        Some(n) => Value::Number(n),
        // Go's encoder cannot write NaN or infinities; keep the text so the typed decoder
        // reports a type error instead of a silent change.
        None => Value::String(go_format_float(f)),
    }
}
