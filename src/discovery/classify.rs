//! What a file found by walking a directory is, before anything judges it: a Kubernetes
//! manifest, a file of a Helm chart, a template for another tool, or some other YAML or JSON.
//! Only manifests are linted as they are; a syntax error in a file that is not one is not a
//! Kubernetes error. Files named on the command line are not classified: they are linted
//! whatever they are.

use std::ffi::OsStr;
use std::path::Path;

use crate::render::helm;
use crate::source::LineIndex;
use crate::yaml::{self, Comments, Kind, NodeId};

/// The texts that open a template expression or statement of another tool: Go templates
/// (Helm outside a chart, envsubst-like generators, Hugo, `gomplate`), Jinja and Liquid,
/// Mustache and Handlebars, GitHub Actions and Tekton `${{ }}`.
const TEMPLATE_MARKERS: [&str; 2] = ["{{", "{%"];

/// The names of a chart's own files at its root: its metadata and its values.
const CHART_METADATA_FILES: [&str; 4] = [
    "Chart.yaml",
    "Chart.lock",
    "requirements.yaml",
    "requirements.lock",
];

/// Directories of a chart whose files its templates read (`files/`, through `.Files`) or that
/// hold values for its tests (`ci/`, read by chart-testing).
const CHART_DATA_DIRECTORIES: [&str; 2] = ["files", "ci"];

/// What a walked file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FileClass {
    /// Linted as it is: a document has `apiVersion` and `kind`, or the file does not parse
    /// and writes both keys (a manifest with a syntax error, which kubectl refuses).
    Manifest,
    /// A chart's metadata, values, or a file under its `files/` or `ci/`: read through the
    /// rendered chart.
    ChartFile,
    /// A template for another tool: it does not parse, or YAML reads a template expression
    /// as a mapping (`name: {{ .name }}`). `line` is where the first marker is (1-based).
    Template { marker: &'static str, line: usize },
    /// YAML or JSON in which no document has `apiVersion` and `kind`: configuration of
    /// other tools, values, test data.
    NotManifest,
    /// A stream of block-style manifests that holds a placeholder of another tool
    /// (`$(VAR)` in a command, `{name}` in a string): a manifest, unless it fails to parse at
    /// a placeholder, which makes it a template ([`template_at`]). Left for the lint's own parse
    /// to tell ([`classify_walked`]), so that the file is parsed once.
    ManifestUnlessTemplate,
}

/// Classifies a walked file from its path and text, as [`classify`] does, but without parsing
/// a stream of block-style manifests that holds a placeholder: that is
/// [`FileClass::ManifestUnlessTemplate`], for the lint's parse to decide with [`template_at`].
pub(crate) fn classify_walked(path: &Path, text: &str) -> FileClass {
    classify_with(path, text, true)
}

/// Whether a file that fails to parse at `error` (the offset of its first syntax error) is a
/// template for another tool: a placeholder is on the error's line or the line before. The
/// placeholder's name and the line of the error (1-based).
pub(crate) fn template_at(text: &str, error: usize) -> Option<(&'static str, usize)> {
    let marker = placeholder_near(text, error)?;
    Some((marker, LineIndex::new(text).line_of(error) + 1))
}

/// Classifies a walked file from its path and text.
pub(crate) fn classify(path: &Path, text: &str) -> FileClass {
    classify_with(path, text, false)
}

/// [`classify`], leaving a stream of block-style manifests with a placeholder to the lint when
/// `leave_placeholders` ([`classify_walked`]).
fn classify_with(path: &Path, text: &str, leave_placeholders: bool) -> FileClass {
    if is_chart_file(path) {
        return FileClass::ChartFile;
    }
    let marker = first_marker(text);
    let placeholder = has_placeholder(text);
    let block_manifests = marker.is_none() && root_keys(text);
    if block_manifests && !placeholder {
        // The common case, decided without parsing: a stream of block-style manifests.
        return FileClass::Manifest;
    }
    if block_manifests && leave_placeholders {
        return FileClass::ManifestUnlessTemplate;
    }
    if marker.is_none() && !(text.contains("apiVersion") && text.contains("kind")) {
        return FileClass::NotManifest;
    }
    let read = read_documents(text);
    if let Some((marker, line)) = read.first_error.and_then(|error| template_at(text, error)) {
        return FileClass::Template { marker, line };
    }
    if let Some((marker, offset)) = marker
        && (read.syntax_error || read.template_node)
    {
        let line = LineIndex::new(text).line_of(offset) + 1;
        return FileClass::Template { marker, line };
    }
    if read.object || (read.syntax_error && keys_on_lines(text)) {
        FileClass::Manifest
    } else {
        FileClass::NotManifest
    }
}

/// Whether a file is one of a Helm chart's own files: its metadata and values at its root
/// (`Chart.yaml`, `values.yaml`, `values-prod.yaml`, `values.schema.json`), or a file under
/// its `files/` or `ci/` directory. Its `crds/` and any other directory hold what they hold.
pub(crate) fn is_chart_file(path: &Path) -> bool {
    let Some(parent) = path.parent() else {
        return false;
    };
    let name = path.file_name().and_then(OsStr::to_str).unwrap_or_default();
    let is_values = name.starts_with("values") && name != "values";
    if (CHART_METADATA_FILES.contains(&name) || is_values) && helm::is_chart(parent) {
        return true;
    }
    path.ancestors().skip(1).any(|dir| {
        dir.file_name()
            .and_then(OsStr::to_str)
            .is_some_and(|name| CHART_DATA_DIRECTORIES.contains(&name))
            && dir.parent().is_some_and(helm::is_chart)
    })
}

/// The first template marker in the text and where it is. Found from each `{` (a search for
/// one byte, which is fast over a large manifest that has none).
fn first_marker(text: &str) -> Option<(&'static str, usize)> {
    let bytes = text.as_bytes();
    text.match_indices('{').find_map(|(at, _)| {
        TEMPLATE_MARKERS
            .iter()
            .find(|marker| bytes[at..].starts_with(marker.as_bytes()))
            .map(|marker| (*marker, at))
    })
}

/// The placeholders other tools fill in before a file is YAML: `make`'s and `sed`'s
/// `{SERVICE_IP}`, envsubst's and Terraform's `${VAR}`, Kubernetes' own `$(VAR)` (which a
/// container's `command` expands, and which parses), and the `@VAR@` of autoconf's
/// `AC_CONFIG_FILES`, CMake's `configure_file` and scripts' `replace("@NAME@", …)` (`@` is
/// reserved in YAML and cannot start a plain scalar, YAML 1.2 `c-reserved`, so a value that
/// starts with one fails to parse). Each with the name shown for it.
const PLACEHOLDERS: [(&str, &str, &str); 4] = [
    ("${", "}", "${VAR}"),
    ("$(", ")", "$(VAR)"),
    ("{", "}", "{VAR}"),
    ("@", "@", "@VAR@"),
];

/// Whether the text holds a placeholder anywhere. A `{` alone is common in manifests
/// (`resources: {}`, JSON in an annotation), as an `@` is (an image digest, `@sha256:`, an
/// e-mail address), and is no reason to parse a file twice: only a named placeholder can be
/// where a parse fails because another tool has not filled the file in.
///
/// One pass over the `{`, `(` and `@` of the text: the same answer as `placeholder_in(text)`,
/// whose search for each opener in turn is slower over a large JSON file.
fn has_placeholder(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr3_iter(b'{', b'(', b'@', bytes).any(|at| {
        let rest = &bytes[at + 1..];
        match bytes[at] {
            b'{' => is_name_then(rest, b"}"),
            b'@' => is_name_then(rest, b"@"),
            _ => at > 0 && bytes[at - 1] == b'$' && is_name_then(rest, b")"),
        }
    })
}

/// Whether `rest` starts with a placeholder's name (`[A-Za-z_][A-Za-z0-9_.-]*`) and then
/// `close`.
fn is_name_then(rest: &[u8], close: &[u8]) -> bool {
    let name_len = rest
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')))
        .unwrap_or(rest.len());
    rest.first()
        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
        && rest[name_len..].starts_with(close)
}

/// The placeholder on the line of a syntax error at `at`, or on the line before (a parser
/// reports some errors at the next token): where a file that fails to parse fails because
/// another tool has not filled it in yet.
fn placeholder_near(text: &str, at: usize) -> Option<&'static str> {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let previous_start = text[..line_start.saturating_sub(1)]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line_end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    placeholder_in(&text[previous_start..line_end])
}

/// The first placeholder in `line`: an opener, a name (`[A-Za-z_][A-Za-z0-9_.-]*`), a closer.
fn placeholder_in(line: &str) -> Option<&'static str> {
    PLACEHOLDERS.iter().find_map(|(open, close, shown)| {
        line.match_indices(open).find_map(|(at, _)| {
            is_name_then(&line.as_bytes()[at + open.len()..], close.as_bytes()).then_some(*shown)
        })
    })
}

/// Whether `apiVersion:` and `kind:` both start a line: the root keys of a block-style
/// manifest.
fn root_keys(text: &str) -> bool {
    // Each place the key is written, found by a vectorised search: the same answer as looking
    // at the start of every line, without walking the lines of a large file.
    let bytes = text.as_bytes();
    let starts = |key: &str| {
        memchr::memmem::find_iter(bytes, key.as_bytes()).any(|at| {
            (at == 0 || bytes[at - 1] == b'\n')
                && text[at + key.len()..]
                    .trim_start_matches(' ')
                    .starts_with(':')
        })
    };
    starts("apiVersion") && starts("kind")
}

/// Whether `apiVersion` and `kind` are both written as keys on some line, at any indentation,
/// quoted or not, or as the first key of a sequence item or of a JSON object: how a manifest that does not parse
/// is told from other text that does not.
fn keys_on_lines(text: &str) -> bool {
    let written = |key: &str| {
        text.lines().any(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("- ").unwrap_or(line).trim_start();
            // The first member of a JSON object begins on the line of its brace.
            let line = line.strip_prefix('{').unwrap_or(line).trim_start();
            let line = line
                .strip_prefix('"')
                .or_else(|| line.strip_prefix('\''))
                .unwrap_or(line);
            line.strip_prefix(key).is_some_and(|rest| {
                rest.trim_start_matches(['"', '\''])
                    .trim_start()
                    .starts_with(':')
            })
        })
    };
    written("apiVersion") && written("kind")
}

/// What reading a file's documents found.
#[derive(Default)]
struct Read {
    /// A document does not parse.
    syntax_error: bool,
    /// Where the first syntax error is.
    first_error: Option<usize>,
    /// A document's root is a mapping with `apiVersion` and `kind`.
    object: bool,
    /// A mapping is written `{{ … }}`: a Go template expression that happens to be valid
    /// flow YAML, which no manifest holds.
    template_node: bool,
}

fn read_documents(text: &str) -> Read {
    let mut read = Read::default();
    yaml::for_each_document_with(text, Comments::Skip, |document| {
        let error = document.errors.iter().find(|error| !error.too_large);
        read.syntax_error |= error.is_some();
        if read.first_error.is_none() {
            read.first_error = error.map(|error| error.span.start as usize);
        }
        read.object |= document.root.is_some_and(|root| {
            document.mapping(root).is_some_and(|entries| {
                let has = |key: &str| {
                    entries
                        .iter()
                        .any(|(k, _)| document.scalar_str(*k) == Some(key))
                };
                has("apiVersion") && has("kind")
            })
        });
        read.template_node |= (0..document.node_count()).any(|index| {
            let id = NodeId(u32::try_from(index).unwrap_or(u32::MAX));
            matches!(document.kind(id), Kind::Mapping(_))
                && text
                    .get(document.node(id).span.start as usize..)
                    .is_some_and(|rest| rest.starts_with("{{"))
        });
    });
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> FileClass {
        classify(Path::new("deploy/file.yaml"), text)
    }

    #[test]
    fn manifests_are_manifests_even_with_a_syntax_error() {
        assert_eq!(class("apiVersion: v1\nkind: Pod\n"), FileClass::Manifest);
        assert_eq!(
            class("{\"apiVersion\": \"v1\", \"kind\": \"Pod\"}"),
            FileClass::Manifest
        );
        assert_eq!(
            class("---\n  apiVersion: v1\n  kind: Pod\n"),
            FileClass::Manifest
        );
        // A JSON manifest cut short: kubectl refuses it, and podcycle says why.
        assert_eq!(
            class("{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\",\n \"spec\": [\n"),
            FileClass::Manifest
        );
        // Indented too far: kubectl refuses it, and podcycle says why.
        assert_eq!(
            class("apiVersion: apps/v1\n    kind: Deployment\n    spec: {}\n"),
            FileClass::Manifest
        );
        // Template markers inside strings are what the object holds (alerting templates).
        assert_eq!(
            class(
                "apiVersion: v1\nkind: ConfigMap\ndata:\n  summary: '{{ $labels.instance }} is down'\n  rule: |\n    {{ if .x }}\n"
            ),
            FileClass::Manifest
        );
    }

    /// What the walk leaves for the lint's parse is what parsing here decides: a template
    /// where the parse fails at a placeholder, a manifest elsewhere.
    #[test]
    fn a_placeholder_in_a_manifest_is_left_for_the_lint_to_tell() {
        for (text, fails_at) in [
            (
                "apiVersion: v1\nkind: Service\nspec:\n  clusterIP: {SERVICE_IP_PREFIX}.16\n",
                Some("apiVersion: v1\nkind: Service\nspec:\n  clusterIP: ".len() + 20),
            ),
            (
                "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    args: [\"$(HOME)\"]\n",
                None,
            ),
        ] {
            assert_eq!(
                classify_walked(Path::new("deploy/file.yaml"), text),
                FileClass::ManifestUnlessTemplate
            );
            let mut first_error = None;
            yaml::for_each_document_with(text, Comments::Skip, |document| {
                if first_error.is_none() {
                    first_error = document.errors.first().map(|e| e.span.start as usize);
                }
            });
            let told = match first_error.and_then(|error| template_at(text, error)) {
                Some((marker, line)) => FileClass::Template { marker, line },
                None => FileClass::Manifest,
            };
            assert_eq!(told, class(text), "{text}");
            assert_eq!(first_error.is_some(), fails_at.is_some(), "{text}");
        }
        // Charts' files and what has no placeholder are decided at once, as before.
        assert_eq!(
            classify_walked(Path::new("deploy/file.yaml"), "apiVersion: v1\nkind: Pod\n"),
            FileClass::Manifest
        );
    }

    #[test]
    fn templates_for_other_tools() {
        assert_eq!(
            class("{% raw %}\napiVersion: v1\nkind: Secret\n{% endraw %}\n"),
            FileClass::Template {
                marker: "{%",
                line: 1
            }
        );
        assert_eq!(
            class("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {{ .ns }}\n"),
            FileClass::Template {
                marker: "{{",
                line: 4
            }
        );
        assert_eq!(
            class("apiVersion: v1\nkind: Service\nspec:\n  {{- range .ports }}\n  - port: 1\n"),
            FileClass::Template {
                marker: "{{",
                line: 4
            }
        );
        // Placeholders another tool fills in, where the file fails to parse.
        assert_eq!(
            class("apiVersion: v1\nkind: Service\nspec:\n  clusterIP: {SERVICE_IP_PREFIX}.16\n"),
            FileClass::Template {
                marker: "{VAR}",
                line: 4
            }
        );
        assert_eq!(
            class("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: ${A}: b\n"),
            FileClass::Template {
                marker: "${VAR}",
                line: 4
            }
        );
        // `@NAME@`, which a script replaces: `@` cannot start a plain scalar.
        assert_eq!(
            class("apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: @STS_NAME@\n"),
            FileClass::Template {
                marker: "@VAR@",
                line: 4
            }
        );
        // An image digest or an address is no placeholder.
        assert_eq!(
            class(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  annotations: {owner: a@b.com}\nspec:\n  containers:\n  - image: web@sha256:0a\n"
            ),
            FileClass::Manifest
        );
        // A placeholder that parses is a value; a syntax error elsewhere is a manifest's.
        assert_eq!(
            class("apiVersion: v1\nkind: Pod\nspec:\n  image: ${IMAGE}\n"),
            FileClass::Manifest
        );
        assert_eq!(
            class("apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${NAME}\n\n\nspec: [\n"),
            FileClass::Manifest
        );
        // A GitHub Actions workflow is other YAML whatever its expressions.
        assert_eq!(
            class("on: push\njobs:\n  a:\n    steps:\n    - run: echo ${{ github.sha }}\n"),
            FileClass::NotManifest
        );
    }

    /// A walked manifest is parsed by its lint, not first by its classification too: braces
    /// that are YAML (`{}`, JSON in an annotation) are no placeholder.
    #[test]
    fn a_manifest_with_braces_is_classified_without_parsing() {
        use crate::yaml::parsed;
        let marker = format!("{} braces", parsed::MARK);
        let text = format!(
            "{marker}\napiVersion: v1\nkind: Pod\nmetadata:\n  annotations:\n    a: '{{\"b\": 1}}'\nspec:\n  containers:\n  - name: a\n    resources: {{}}\n"
        );
        assert_eq!(class(&text), FileClass::Manifest);
        assert_eq!(parsed::count(&marker), 0);
        // A named placeholder still makes it read, to tell a template from a manifest.
        let marker = format!("{} placeholder", parsed::MARK);
        let text = format!("{marker}\napiVersion: v1\nkind: Pod\nmetadata:\n  name: ${{NAME}}\n");
        assert_eq!(class(&text), FileClass::Manifest);
        assert_eq!(parsed::count(&marker), 1);
    }

    proptest::proptest! {
        /// The one-pass search agrees with the search for each placeholder in turn.
        #[test]
        fn the_placeholder_search_agrees(text in "[a-z_.{}()$@: 9-]{0,24}") {
            proptest::prop_assert_eq!(has_placeholder(&text), placeholder_in(&text).is_some());
        }

        /// The search for root keys agrees with looking at the start of every line.
        #[test]
        fn the_root_key_search_agrees(
            text in "((apiVersion|kind|  kind|xkind|- kind)( *|:|: v1| x:)(\n|\r\n)?){0,6}"
        ) {
            let starts = |key: &str| {
                text.lines().any(|line| {
                    line.strip_prefix(key)
                        .is_some_and(|rest| rest.trim_start_matches(' ').starts_with(':'))
                })
            };
            proptest::prop_assert_eq!(root_keys(&text), starts("apiVersion") && starts("kind"));
        }
    }

    #[test]
    fn other_yaml_and_json() {
        assert_eq!(class("key: value\n"), FileClass::NotManifest);
        assert_eq!(
            class("{\n  // comment\n  \"name\": \"dev\",\n}\n"),
            FileClass::NotManifest
        );
        assert_eq!(class("title: \"a\" b\nkind: x\n"), FileClass::NotManifest);
        assert_eq!(
            class("values:\n  extraObjects:\n  - apiVersion: v1\n    kind: ConfigMap\n"),
            FileClass::NotManifest
        );
        assert_eq!(class(""), FileClass::NotManifest);
    }

    #[test]
    fn files_of_a_chart() {
        let dir = tempfile::tempdir().unwrap();
        let chart = dir.path().join("web");
        let files = [
            ("Chart.yaml", true),
            ("values.yaml", true),
            ("values-prod.yaml", true),
            ("values.schema.json", true),
            ("files/config.yaml", true),
            ("ci/lint-values.yaml", true),
            ("crds/crd.yaml", false),
            ("examples/pod.yaml", false),
        ];
        for (file, _) in files {
            let path = chart.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "a: 1\n").unwrap();
        }
        for (file, of_the_chart) in files {
            assert_eq!(is_chart_file(&chart.join(file)), of_the_chart, "{file}");
        }
        assert!(!is_chart_file(&dir.path().join("values.yaml")));
    }
}
