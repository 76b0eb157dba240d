//! Field paths such as `spec.template.spec.initContainers[0].readinessProbe`.

use std::fmt;

pub use podcycle_path::PathSegment;

/// A path from an object's root to one of its fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FieldPath(Vec<PathSegment>);

impl FieldPath {
    pub fn new(segments: Vec<PathSegment>) -> FieldPath {
        FieldPath(segments)
    }

    pub(crate) fn from_keys(keys: &[&str]) -> FieldPath {
        FieldPath(
            keys.iter()
                .map(|k| PathSegment::Key((*k).to_owned()))
                .collect(),
        )
    }

    pub(crate) fn segments(&self) -> &[PathSegment] {
        &self.0
    }

    /// This path with a key appended.
    #[must_use]
    pub(crate) fn key(&self, key: &str) -> FieldPath {
        let mut segments = self.0.clone();
        segments.push(PathSegment::Key(key.to_owned()));
        FieldPath(segments)
    }

    /// This path with a sequence index appended.
    #[must_use]
    pub(crate) fn index(&self, index: usize) -> FieldPath {
        let mut segments = self.0.clone();
        segments.push(PathSegment::Index(index));
        FieldPath(segments)
    }

    /// This path followed by `other`.
    #[must_use]
    pub(crate) fn join(&self, other: &[PathSegment]) -> FieldPath {
        let mut segments = self.0.clone();
        segments.extend_from_slice(other);
        FieldPath(segments)
    }

    /// The path without its last segment.
    #[must_use]
    pub(crate) fn parent(&self) -> FieldPath {
        let mut segments = self.0.clone();
        segments.pop();
        FieldPath(segments)
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        podcycle_path::DisplayPath(&self.0).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn displays_like_kubernetes_field_paths() {
        let path = FieldPath::from_keys(&["spec", "template", "spec"])
            .key("initContainers")
            .index(0)
            .key("readinessProbe");
        assert_eq!(
            path.to_string(),
            "spec.template.spec.initContainers[0].readinessProbe"
        );
        assert_eq!(
            path.parent().to_string(),
            "spec.template.spec.initContainers[0]"
        );
    }
}
