//! Field paths such as `spec.containers[0].name`: the vocabulary that the YAML layer (where a
//! path leads in the tree) and the Kubernetes decoding (where a value was wrong) both speak.
//!
//! It is a crate of its own so that neither depends on the other: the YAML layer knows nothing
//! of Kubernetes types, and the decoding knows nothing of spans.

use std::fmt;

/// One step of a field path: a mapping key or a sequence index.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSegment {
    Key(String),
    Index(usize),
}

/// Writes a path the way Kubernetes error messages do: `spec.containers[0].name`.
pub struct DisplayPath<'a>(pub &'a [PathSegment]);

impl fmt::Display for DisplayPath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                PathSegment::Key(key) if i == 0 => f.write_str(key)?,
                PathSegment::Key(key) => write!(f, ".{key}")?,
                PathSegment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_keys_with_dots_and_indexes_in_brackets() {
        let path = [
            PathSegment::Key("spec".into()),
            PathSegment::Key("containers".into()),
            PathSegment::Index(0),
            PathSegment::Key("name".into()),
        ];
        assert_eq!(DisplayPath(&path).to_string(), "spec.containers[0].name");
        assert_eq!(DisplayPath(&[]).to_string(), "");
    }
}
