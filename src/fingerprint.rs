//! What identifies a finding across edits of its file: its rule, its file, and the object and
//! field it is about — not its line, which moves when lines are added above it, nor its
//! message, which changes with the wording or a number in it, nor the place of its container
//! in its list, which moves when a container is added before it (the field names the
//! container: `spec.containers[name=web].livenessProbe`). Baselines (`--baseline`) and the
//! GitLab report's fingerprints are built from it.

use serde::{Deserialize, Serialize};

use crate::diagnostics::Diagnostic;
use crate::source::SourceFile;

/// The object a finding is in, as a cluster names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct ObjectName {
    pub(crate) kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) name: Option<String>,
}

/// A finding's identity. Findings outside any object (a syntax error) have no object or
/// field; the text of their line stands in for them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub(crate) struct Identity {
    pub(crate) rule: String,
    /// The file's path, with `/` between components.
    pub(crate) file: String,
    #[serde(default)]
    pub(crate) object: Option<ObjectName>,
    #[serde(default)]
    pub(crate) field: Option<String>,
    /// The trimmed text of the finding's line, for findings without an object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) line_text: Option<String>,
}

/// How a finding's field names the container it is in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum ContainerKey {
    /// By name, `containers[name=web]`: what identities are made of.
    #[default]
    Name,
    /// By place, `containers[0]`: how baselines of the first format recorded them.
    Index,
}

impl Identity {
    /// The identity of `diagnostic` in `file`, with the file named `path`.
    pub(crate) fn of(path: &str, file: &SourceFile, diagnostic: &Diagnostic) -> Identity {
        Identity::keyed(path, file, diagnostic, ContainerKey::Name)
    }

    /// [`Identity::of`], with the container in the field named as `key` says.
    pub(crate) fn keyed(
        path: &str,
        file: &SourceFile,
        diagnostic: &Diagnostic,
        key: ContainerKey,
    ) -> Identity {
        let object = diagnostic.object.as_ref().map(|object| ObjectName {
            kind: object.kind.clone(),
            namespace: object.namespace.clone(),
            name: object.name.clone(),
        });
        let line_text = object.is_none().then(|| {
            let line = file.lines.line_of(diagnostic.span.start as usize);
            let start = file.lines.line_start(line);
            let end = file.lines.content_end(&file.text, line);
            file.text[start..end.max(start)].trim().to_owned()
        });
        Identity {
            rule: diagnostic.rule.to_owned(),
            file: path.replace('\\', "/"),
            object,
            field: match (key, &diagnostic.field, &diagnostic.container) {
                (ContainerKey::Name, Some(field), Some(name)) => {
                    Some(field_by_container_name(field, name))
                }
                _ => diagnostic.field.clone(),
            },
            line_text,
        }
    }

    /// A 64-bit hash of the identity, as 16 hex digits; the same on every platform.
    pub(crate) fn hash(&self) -> String {
        let mut hash = Fnv::default();
        hash.write(&self.rule);
        hash.write(&self.file);
        if let Some(object) = &self.object {
            hash.write(&object.kind);
            hash.write(object.namespace.as_deref().unwrap_or_default());
            hash.write(object.name.as_deref().unwrap_or_default());
        }
        hash.write(self.field.as_deref().unwrap_or_default());
        hash.write(self.line_text.as_deref().unwrap_or_default());
        format!("{:016x}", hash.finish())
    }
}

/// The container lists of a pod spec.
const CONTAINER_LISTS: [&str; 3] = ["containers", "initContainers", "ephemeralContainers"];

/// `field` with the place of the container it is in replaced by the container's name:
/// `spec.containers[1].livenessProbe` → `spec.containers[name=web].livenessProbe`. A
/// container without a name keeps its place.
fn field_by_container_name(field: &str, name: &str) -> String {
    if name.is_empty() {
        return field.to_owned();
    }
    for list in CONTAINER_LISTS {
        let opening = format!("{list}[");
        let mut from = 0;
        while let Some(found) = field[from..].find(&opening) {
            let start = from + found;
            let index_start = start + opening.len();
            let at_key = start == 0 || field[..start].ends_with('.');
            let index_len = field[index_start..]
                .bytes()
                .take_while(u8::is_ascii_digit)
                .count();
            if at_key && index_len > 0 && field[index_start + index_len..].starts_with(']') {
                return format!(
                    "{}name={name}{}",
                    &field[..index_start],
                    &field[index_start + index_len..]
                );
            }
            from = index_start;
        }
    }
    field.to_owned()
}

/// 64-bit FNV-1a: tiny, and the same on every platform and Rust version, which fingerprints
/// need (`std`'s hashers promise neither).
pub(crate) struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    /// Adds `text`, then a separator, which keeps ("ab", "c") apart from ("a", "bc").
    pub(crate) fn write(&mut self, text: &str) {
        for byte in text.bytes() {
            self.byte(byte);
        }
        self.byte(0xff);
    }

    fn byte(&mut self, byte: u8) {
        self.0 ^= u64::from(byte);
        self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_is_the_reference_function() {
        // FNV-1a of "a" is af63dc4c8601ec8c; `write` adds the separator byte after it.
        let mut plain = Fnv::default();
        plain.byte(b'a');
        assert_eq!(plain.finish(), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn containers_are_named_in_the_field() {
        for (field, expected) in [
            (
                "spec.template.spec.containers[1].livenessProbe",
                "spec.template.spec.containers[name=web].livenessProbe",
            ),
            ("spec.initContainers[0]", "spec.initContainers[name=web]"),
            (
                "spec.workerGroupSpecs[2].template.spec.containers[10].ports[0]",
                "spec.workerGroupSpecs[2].template.spec.containers[name=web].ports[0]",
            ),
            ("spec.volumes[0]", "spec.volumes[0]"),
            (
                "metadata.sidecarcontainers[0]",
                "metadata.sidecarcontainers[0]",
            ),
        ] {
            assert_eq!(field_by_container_name(field, "web"), expected);
        }
        assert_eq!(
            field_by_container_name("spec.containers[0]", ""),
            "spec.containers[0]"
        );
    }

    #[test]
    fn identity_ignores_lines_and_messages() {
        let text = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n";
        let file = SourceFile::new("a.yaml", text);
        let shifted = SourceFile::new("a.yaml", format!("# moved\n{text}"));
        let diagnostic = |span_start: usize, message: &str| Diagnostic {
            object: Some(crate::model::ObjectRef {
                api_version: "v1".to_owned(),
                kind: "Pod".to_owned(),
                name: Some("p".to_owned()),
                namespace: None,
            }),
            field: Some("spec".to_owned()),
            ..Diagnostic::new(
                "x",
                crate::diagnostics::Severity::Error,
                crate::diagnostics::Enforcement::Runtime,
                crate::source::Span::new(span_start, span_start + 1),
                message.to_owned(),
            )
        };
        let a = Identity::of("a.yaml", &file, &diagnostic(0, "one"));
        let b = Identity::of("a.yaml", &shifted, &diagnostic(8, "two"));
        assert_eq!(a, b);
        assert_eq!(a.hash(), b.hash());
        assert_ne!(
            a.hash(),
            Identity::of("b.yaml", &file, &diagnostic(0, "one")).hash()
        );
    }
}
