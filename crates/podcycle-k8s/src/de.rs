//! A `serde::Deserializer` over `&serde_json::Value` that keeps the field path.
//!
//! k8s-openapi's generated `Deserialize` impls silently skip unknown fields and report type
//! errors without a location. This deserializer fixes both in one pass: every error carries
//! the path of the value it was raised on, and every struct call records the keys the struct
//! does not know together with the list of keys it does (the `fields` argument of
//! `deserialize_struct`), so a typo can be answered with "did you mean ...?".

use std::cell::RefCell;
use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};
use serde_json::Value;

use crate::{PathSegment, UnknownField};

/// The path from the decoded object to the current value, as a linked list on the stack.
#[derive(Clone, Copy)]
pub(crate) enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    pub(crate) fn to_segments(self) -> Vec<PathSegment> {
        let mut segments = Vec::new();
        let mut current = &self;
        loop {
            match current {
                Path::Root => break,
                Path::Key(parent, key) => {
                    segments.push(PathSegment::Key((*key).to_owned()));
                    current = parent;
                }
                Path::Index(parent, index) => {
                    segments.push(PathSegment::Index(*index));
                    current = parent;
                }
            }
        }
        segments.reverse();
        segments
    }
}

/// A decoding error with the path of the value it was raised on.
#[derive(Debug)]
pub struct Error {
    pub(crate) path: Option<Vec<PathSegment>>,
    pub(crate) message: String,
}

impl Error {
    fn at(mut self, path: Path<'_>) -> Self {
        // The innermost deserializer sees the error first; keep its path.
        if self.path.is_none() {
            self.path = Some(path.to_segments());
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl de::Error for Error {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Error {
            path: None,
            message: msg.to_string(),
        }
    }
}

/// What a decoding pass collects besides the value.
#[derive(Default)]
pub(crate) struct Collector {
    pub(crate) unknown_fields: Vec<UnknownField>,
}

pub(crate) struct ValueDeserializer<'de, 'p> {
    pub(crate) value: &'de Value,
    pub(crate) path: Path<'p>,
    pub(crate) collector: &'p RefCell<Collector>,
    /// Replaces the root `apiVersion` so that legacy group versions decode as the current one.
    pub(crate) api_version_override: Option<&'static str>,
}

impl<'de, 'p> ValueDeserializer<'de, 'p> {
    fn child<'q>(&'q self, value: &'de Value, path: Path<'q>) -> ValueDeserializer<'de, 'q>
    where
        'p: 'q,
    {
        ValueDeserializer {
            value,
            path,
            collector: self.collector,
            api_version_override: None,
        }
    }
}

impl<'de> de::Deserializer<'de> for ValueDeserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        let path = self.path;
        let result = match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => visitor.visit_seq(SeqAccess {
                items: items.iter(),
                index: 0,
                parent: &self,
            }),
            Value::Object(_) => visitor.visit_map(MapAccess::new(&self, None)),
        };
        result.map_err(|e| e.at(path))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(_) => {
                let path = self.path;
                visitor
                    .visit_map(MapAccess::new(&self, Some((name, fields))))
                    .map_err(|e| e.at(path))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let path = self.path;
        match self.value {
            Value::String(s) => visitor
                .visit_enum(s.as_str().into_deserializer())
                .map_err(|e: Error| e.at(path)),
            other => {
                Err(<Error as de::Error>::invalid_type(unexpected(other), &"a string").at(path))
            }
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map identifier
    }
}

fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(b) => de::Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => de::Unexpected::Signed(i),
            (None, Some(f)) => de::Unexpected::Float(f),
            _ => de::Unexpected::Other("number"),
        },
        Value::String(s) => de::Unexpected::Str(s),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

struct SeqAccess<'de, 'p, 'q> {
    items: std::slice::Iter<'de, Value>,
    index: usize,
    parent: &'q ValueDeserializer<'de, 'p>,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'de, '_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        let Some(item) = self.items.next() else {
            return Ok(None);
        };
        let index = self.index;
        self.index += 1;
        let path = Path::Index(&self.parent.path, index);
        seed.deserialize(self.parent.child(item, path)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

struct MapAccess<'de, 'p, 'q> {
    entries: serde_json::map::Iter<'de>,
    pending: Option<(&'de str, &'de Value)>,
    parent: &'q ValueDeserializer<'de, 'p>,
    known: Option<(&'static str, &'static [&'static str])>,
}

impl<'de, 'p, 'q> MapAccess<'de, 'p, 'q> {
    fn new(
        parent: &'q ValueDeserializer<'de, 'p>,
        known: Option<(&'static str, &'static [&'static str])>,
    ) -> Self {
        let entries = match parent.value {
            Value::Object(map) => map.iter(),
            _ => unreachable_empty_map().iter(),
        };
        MapAccess {
            entries,
            pending: None,
            parent,
            known,
        }
    }
}

/// An empty map to iterate when a caller hands a non-object to `MapAccess::new`, which the
/// callers above never do; this keeps the code free of panics all the same.
fn unreachable_empty_map() -> &'static serde_json::Map<String, Value> {
    static EMPTY: std::sync::OnceLock<serde_json::Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(serde_json::Map::new)
}

impl<'de> de::MapAccess<'de> for MapAccess<'de, '_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.entries.next() else {
            return Ok(None);
        };
        if let Some((type_name, fields)) = self.known
            && !fields.contains(&key.as_str())
        {
            let mut path = self.parent.path.to_segments();
            path.push(PathSegment::Key(key.clone()));
            self.parent
                .collector
                .borrow_mut()
                .unknown_fields
                .push(UnknownField {
                    path,
                    type_name,
                    known_fields: fields,
                });
        }
        self.pending = Some((key.as_str(), value));
        seed.deserialize(BorrowedStrDeserializer::<Error>::new(key))
            .map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("value requested before key"));
        };
        let is_root = matches!(self.parent.path, Path::Root);
        if let (true, "apiVersion", Some(api_version)) =
            (is_root, key, self.parent.api_version_override)
        {
            return seed.deserialize(BorrowedStrDeserializer::<Error>::new(api_version));
        }
        let path = Path::Key(&self.parent.path, key);
        seed.deserialize(self.parent.child(value, path))
    }
}
