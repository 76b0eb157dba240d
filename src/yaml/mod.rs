//! YAML with spans: the tree, Kubernetes scalar typing, JSON conversion and path lookup.

mod json;
mod lookup;
mod node;
mod parse;
mod resolve;

pub use json::to_json;
pub(crate) use json::{ConversionError, check_convertible, json_entries, json_scalar};
pub(crate) use lookup::{Located, lookup};
pub(crate) use node::{Comment, Document, Kind, NodeId, ScalarStyle};
pub use parse::{Comments, MAX_DOCUMENT_VALUES, for_each_document_with, parse_stream};
pub(crate) use resolve::Resolved;

#[cfg(test)]
pub(crate) use parse::parsed;
#[cfg(test)]
mod tests;
