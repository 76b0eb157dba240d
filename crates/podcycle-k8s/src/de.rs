//! A `serde::Deserializer` over a [`Tree`] that keeps the field path.
//!
//! k8s-openapi's generated `Deserialize` impls silently skip unknown fields and report type
//! errors without a location. This deserializer fixes both in one pass: every error carries
//! the path of the value it was raised on, and every struct call records the keys the struct
//! does not know together with the list of keys it does (the `fields` argument of
//! `deserialize_struct`), so a typo can be answered with "did you mean ...?".

use std::cell::RefCell;
use std::fmt;

use std::borrow::Cow;

use serde::de::value::{BorrowedStrDeserializer, CowStrDeserializer};
use serde::de::{self, DeserializeSeed, IntoDeserializer, Visitor};

use crate::tree::{Tree, TreeValue};
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

pub(crate) struct TreeDeserializer<'de, 'p> {
    pub(crate) tree: &'de dyn Tree,
    pub(crate) node: u32,
    pub(crate) path: Path<'p>,
    pub(crate) collector: &'p RefCell<Collector>,
    /// Replaces the root `apiVersion` so that legacy group versions decode as the current one.
    pub(crate) api_version_override: Option<&'static str>,
    /// The node's value when a caller has read it already (an `Option` field reads it to
    /// tell null from a value), so that each scalar is typed once.
    pub(crate) value: Option<TreeValue<'de>>,
}

impl<'de, 'p> TreeDeserializer<'de, 'p> {
    fn child<'q>(&'q self, node: u32, path: Path<'q>) -> TreeDeserializer<'de, 'q>
    where
        'p: 'q,
    {
        TreeDeserializer {
            tree: self.tree,
            node,
            path,
            collector: self.collector,
            api_version_override: None,
            value: None,
        }
    }

    fn value(&mut self) -> TreeValue<'de> {
        self.value
            .take()
            .unwrap_or_else(|| self.tree.value(self.node))
    }
}

impl<'de> de::Deserializer<'de> for TreeDeserializer<'de, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        let path = self.path;
        let result = match self.value() {
            TreeValue::Null => visitor.visit_unit(),
            TreeValue::Bool(b) => visitor.visit_bool(b),
            TreeValue::Int(i) => match u64::try_from(i) {
                // As serde_json does: a non-negative integer is visited as unsigned.
                Ok(u) => visitor.visit_u64(u),
                Err(_) => visitor.visit_i64(i),
            },
            TreeValue::UInt(u) => visitor.visit_u64(u),
            TreeValue::Float(f) => visitor.visit_f64(f),
            TreeValue::Str(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            TreeValue::Str(Cow::Owned(s)) => visitor.visit_string(s),
            TreeValue::Seq(len) => visitor.visit_seq(SeqAccess {
                len,
                index: 0,
                parent: &self,
            }),
            TreeValue::Map => visitor.visit_map(MapAccess::new(&self, None)),
        };
        result.map_err(|e| e.at(path))
    }

    fn deserialize_option<V: Visitor<'de>>(mut self, visitor: V) -> Result<V::Value, Error> {
        match self.value() {
            TreeValue::Null => visitor.visit_none(),
            value => {
                self.value = Some(value);
                visitor.visit_some(self)
            }
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        mut self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value() {
            TreeValue::Map => {
                let path = self.path;
                visitor
                    .visit_map(MapAccess::new(&self, Some((name, fields))))
                    .map_err(|e| e.at(path))
            }
            value => {
                self.value = Some(value);
                self.deserialize_any(visitor)
            }
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
        mut self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let path = self.path;
        match self.value() {
            TreeValue::Str(s) => visitor
                .visit_enum(CowStrDeserializer::<Error>::new(s))
                .map_err(|e| e.at(path)),
            other => {
                Err(<Error as de::Error>::invalid_type(unexpected(&other), &"a string").at(path))
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

fn unexpected<'a>(value: &'a TreeValue<'_>) -> de::Unexpected<'a> {
    match value {
        TreeValue::Null => de::Unexpected::Unit,
        TreeValue::Bool(b) => de::Unexpected::Bool(*b),
        TreeValue::Int(i) => de::Unexpected::Signed(*i),
        TreeValue::UInt(u) => de::Unexpected::Unsigned(*u),
        TreeValue::Float(f) => de::Unexpected::Float(*f),
        TreeValue::Str(s) => de::Unexpected::Str(s),
        TreeValue::Seq(_) => de::Unexpected::Seq,
        TreeValue::Map => de::Unexpected::Map,
    }
}

struct SeqAccess<'de, 'p, 'q> {
    len: usize,
    index: usize,
    parent: &'q TreeDeserializer<'de, 'p>,
}

impl<'de> de::SeqAccess<'de> for SeqAccess<'de, '_, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        if self.index >= self.len {
            return Ok(None);
        }
        let index = self.index;
        self.index += 1;
        let Some(item) = self.parent.tree.item(self.parent.node, index) else {
            return Ok(None);
        };
        let path = Path::Index(&self.parent.path, index);
        seed.deserialize(self.parent.child(item, path)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.index)
    }
}

struct MapAccess<'de, 'p, 'q> {
    entries: std::vec::IntoIter<(Cow<'de, str>, u32)>,
    pending: Option<(Cow<'de, str>, u32)>,
    parent: &'q TreeDeserializer<'de, 'p>,
    known: Option<(&'static str, &'static [&'static str])>,
}

impl<'de, 'p, 'q> MapAccess<'de, 'p, 'q> {
    fn new(
        parent: &'q TreeDeserializer<'de, 'p>,
        known: Option<(&'static str, &'static [&'static str])>,
    ) -> Self {
        MapAccess {
            entries: parent.tree.entries(parent.node).into_iter(),
            pending: None,
            parent,
            known,
        }
    }
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
            && !fields.contains(&key.as_ref())
        {
            let mut path = self.parent.path.to_segments();
            path.push(PathSegment::Key(key.clone().into_owned()));
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
        let deserializer = match &key {
            Cow::Borrowed(key) => seed.deserialize(BorrowedStrDeserializer::<Error>::new(key)),
            Cow::Owned(key) => {
                seed.deserialize(IntoDeserializer::<Error>::into_deserializer(key.as_str()))
            }
        };
        self.pending = Some((key, value));
        deserializer.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        let Some((key, value)) = self.pending.take() else {
            return Err(de::Error::custom("value requested before key"));
        };
        let is_root = matches!(self.parent.path, Path::Root);
        if let (true, "apiVersion", Some(api_version)) =
            (is_root, key.as_ref(), self.parent.api_version_override)
        {
            return seed.deserialize(BorrowedStrDeserializer::<Error>::new(api_version));
        }
        let path = Path::Key(&self.parent.path, &key);
        seed.deserialize(self.parent.child(value, path))
    }
}
