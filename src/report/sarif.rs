//! SARIF 2.1.0, the subset code scanning reads: one run, every rule in `tool.driver`, results
//! with regions, logical locations, related locations and stable fingerprints.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};

use serde::Serialize;

use super::{FileReport, Options, RenderedFix, range, rendered_fixes};
use crate::diagnostics::{Diagnostic, Placement, Severity};
use crate::docs::what_it_does;
use crate::fingerprint::Fnv;
use crate::rules::{ALL_RULES, Rule};
use crate::source::{SourceFile, Span};

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const INFORMATION_URI: &str = "https://github.com/podcycle/podcycle";
/// The base that relative artifact URIs are resolved against: the directory podcycle ran in.
const SOURCE_ROOT: &str = "%SRCROOT%";
/// The name of the fingerprint; the suffix changes whenever what goes into it changes.
const FINGERPRINT: &str = "podcycleFinding/v1";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run<'a>; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    #[serde(skip_serializing_if = "Option::is_none")]
    original_uri_base_ids: Option<BTreeMap<&'static str, ArtifactLocation>>,
    results: Vec<SarifResult<'a>>,
    column_kind: &'static str,
    /// Said when a chart or overlay could not be rendered, so a viewer does not take the run
    /// for a clean one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    invocations: Vec<Invocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    tool_execution_notifications: Vec<Notification>,
    /// The counts of what was not checked, so that a consumer need not count notifications.
    properties: InvocationProperties,
}

/// `notRendered`: Helm charts and Kustomize overlays not rendered; `notRead`: files and paths
/// that could not be read.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct InvocationProperties {
    not_rendered: usize,
    not_read: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Notification {
    level: &'static str,
    message: Message,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    name: String,
    short_description: Message,
    full_description: Message,
    help_uri: String,
    help: MultiformatMessage,
    default_configuration: Configuration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
    enabled: bool,
}

#[derive(Serialize)]
struct RuleProperties {
    category: &'static str,
    /// Who acts on the rule's findings (a finding may say otherwise in its own properties).
    enforcement: &'static str,
    tags: [&'static str; 1],
}

#[derive(Serialize)]
struct Message {
    text: String,
}

#[derive(Serialize)]
struct MultiformatMessage {
    text: String,
    markdown: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: Message,
    locations: [Location; 1],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<RelatedLocation<'a>>,
    partial_fingerprints: BTreeMap<&'static str, String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<SarifFix>,
    properties: ResultProperties,
}

#[derive(Serialize)]
struct ResultProperties {
    /// Who acts on this finding: `decoder`, `api-server`, `runtime` or `advice`.
    enforcement: &'static str,
    /// The platform whose cut the finding is about (`gke-spot`), when it judges one.
    #[serde(skip_serializing_if = "Option::is_none")]
    platform: Option<&'static str>,
}

/// A fix as SARIF describes one: replacements in the result's file.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFix {
    description: Message,
    artifact_changes: [ArtifactChange; 1],
    properties: FixProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement {
    deleted_region: Region,
    inserted_content: Message,
}

/// Whether `check --fix` applies it without `--unsafe-fixes`.
#[derive(Serialize)]
struct FixProperties {
    applicability: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    logical_locations: Vec<LogicalLocation>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelatedLocation<'a> {
    id: usize,
    physical_location: PhysicalLocation,
    message: MessageRef<'a>,
}

#[derive(Serialize)]
struct MessageRef<'a> {
    text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    /// `None` for a finding about a whole file.
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LogicalLocation {
    name: String,
    fully_qualified_name: String,
    kind: &'static str,
}

/// Writes one SARIF log for all files.
pub(crate) fn write(
    out: &mut dyn Write,
    reports: &[FileReport],
    options: &Options,
) -> io::Result<()> {
    let rule_index: HashMap<&str, usize> = ALL_RULES
        .iter()
        .enumerate()
        .map(|(i, r)| (r.name, i))
        .collect();
    let mut results = Vec::new();
    for report in reports {
        let artifact = || artifact_location(&report.file.uri_path_bytes());
        let mut seen: HashMap<String, usize> = HashMap::new();
        let fixes = rendered_fixes(&report.file, &report.diagnostics);
        for (diagnostic, fixes) in report.diagnostics.iter().zip(fixes) {
            let fingerprint = fingerprint(&report.file, diagnostic);
            let occurrence = seen.entry(fingerprint.clone()).or_default();
            *occurrence += 1;
            results.push(SarifResult {
                rule_id: diagnostic.rule,
                rule_index: rule_index.get(diagnostic.rule).copied().unwrap_or_default(),
                level: level(diagnostic.severity),
                message: Message {
                    text: message_text(diagnostic),
                },
                locations: [Location {
                    physical_location: PhysicalLocation {
                        artifact_location: artifact(),
                        region: diagnostic
                            .rendered
                            .as_ref()
                            .is_none_or(|r| r.placement != Placement::File)
                            .then(|| region(&report.file, diagnostic.span)),
                    },
                    logical_locations: logical_location(diagnostic).into_iter().collect(),
                }],
                related_locations: diagnostic
                    .labels
                    .iter()
                    .enumerate()
                    .map(|(id, label)| RelatedLocation {
                        id,
                        physical_location: PhysicalLocation {
                            artifact_location: match &label.file {
                                Some(other) => artifact_location(&other.uri_path_bytes()),
                                None => artifact(),
                            },
                            region: Some(region(label.file_or(&report.file), label.span)),
                        },
                        message: MessageRef {
                            text: &label.message,
                        },
                    })
                    .collect(),
                partial_fingerprints: BTreeMap::from([(
                    FINGERPRINT,
                    format!("{fingerprint}:{occurrence}"),
                )]),
                fixes: fixes
                    .iter()
                    .map(|fix| sarif_fix(&report.file, fix))
                    .collect(),
                properties: ResultProperties {
                    enforcement: diagnostic.enforcement.as_str(),
                    platform: diagnostic.platform,
                },
            });
        }
    }
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "podcycle",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: INFORMATION_URI,
                    rules: ALL_RULES.iter().map(|rule| descriptor(rule)).collect(),
                },
            },
            original_uri_base_ids: options.source_root.as_ref().map(|root| {
                BTreeMap::from([(
                    SOURCE_ROOT,
                    ArtifactLocation {
                        uri: root.clone(),
                        uri_base_id: None,
                    },
                )])
            }),
            results,
            column_kind: "unicodeCodePoints",
            invocations: invocations(&options.run),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    writeln!(out)
}

fn invocations(run: &super::RunNotes) -> Vec<Invocation> {
    let not_read = run.unread_files + run.unread_paths;
    if run.unrendered.is_empty()
        && run.rendered_for.is_empty()
        && run.unconfined.is_none()
        && not_read == 0
    {
        return Vec::new();
    }
    let (charts, overlays) = run.unrendered_counts();
    // Renderers that ran without full confinement: once, for the whole run.
    let unconfined = run.unconfined.iter().map(|warning| Notification {
        level: "warning",
        message: Message {
            text: sentence(warning),
        },
        locations: Vec::new(),
    });
    // What was rendered for the files named: which chart or overlay a values file or a patch
    // brought in, and what it found.
    let rendered_for = run.rendered_for.iter().map(|rendered| Notification {
        level: "note",
        message: Message {
            text: sentence(&rendered.sentence()),
        },
        locations: Vec::new(),
    });
    vec![Invocation {
        execution_successful: true,
        properties: InvocationProperties {
            not_rendered: charts + overlays,
            not_read,
        },
        tool_execution_notifications: run
            .unrendered
            .iter()
            .map(|unrendered| Notification {
                level: "warning",
                message: Message {
                    text: sentence(&unrendered.sentence()),
                },
                locations: vec![Location {
                    physical_location: PhysicalLocation {
                        artifact_location: artifact_location(unrendered.file.as_bytes()),
                        region: None,
                    },
                    logical_locations: Vec::new(),
                }],
            })
            .chain(rendered_for)
            .chain(unconfined)
            .collect(),
    }]
}

fn descriptor(rule: &'static Rule) -> ReportingDescriptor {
    let documentation = rule.documentation();
    ReportingDescriptor {
        id: rule.name,
        name: pascal_case(rule.name),
        short_description: Message {
            text: sentence(rule.summary),
        },
        full_description: Message {
            text: what_it_does(rule),
        },
        help_uri: rule.url(),
        help: MultiformatMessage {
            text: format!("{} See {}", sentence(rule.summary), rule.url()),
            markdown: documentation,
        },
        default_configuration: Configuration {
            level: level(rule.default_severity),
            enabled: rule.enabled_by_default(),
        },
        properties: RuleProperties {
            category: rule.category.as_str(),
            enforcement: rule.enforcement.as_str(),
            tags: [rule.category.as_str()],
        },
    }
}

fn sarif_fix(file: &SourceFile, rendered: &RenderedFix<'_>) -> SarifFix {
    SarifFix {
        description: Message {
            text: sentence(&rendered.fix.title),
        },
        artifact_changes: [ArtifactChange {
            artifact_location: artifact_location(&file.uri_path_bytes()),
            replacements: rendered
                .edits
                .iter()
                .map(|edit| Replacement {
                    deleted_region: region(file, edit.span),
                    inserted_content: Message {
                        text: edit.text.clone(),
                    },
                })
                .collect(),
        }],
        properties: FixProperties {
            applicability: rendered.fix.applicability.as_str(),
        },
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// SARIF messages are sentences: the finding, the notes, then what to do about it, each
/// after a label, so that none needs a capital letter (field names keep their case).
fn message_text(diagnostic: &Diagnostic) -> String {
    let mut text = sentence(&diagnostic.message);
    for note in &super::full::notes(diagnostic) {
        text.push_str(" Note: ");
        text.push_str(&sentence(note));
    }
    if let Some(help) = &diagnostic.help {
        text.push_str(" Help: ");
        text.push_str(&sentence(help));
    }
    text
}

/// Ends the text with a period, unless it ends with punctuation. The first letter keeps its
/// case: messages often start with a Kubernetes field name (`readinessProbe`, `preStop`),
/// which is case-sensitive and must read as the manifest spells it.
fn sentence(text: &str) -> String {
    let mut sentence = text.to_owned();
    if !sentence.ends_with(['.', '?', '!']) {
        sentence.push('.');
    }
    sentence
}

/// `init-container-probe` → `InitContainerProbe`, the form SARIF prefers for rule names.
fn pascal_case(name: &str) -> String {
    name.split('-')
        .map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|c| c.to_uppercase().chain(chars).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

fn region(file: &SourceFile, span: Span) -> Region {
    let (start_line, start_column, end_line, end_column) = range(file, span);
    Region {
        start_line,
        start_column,
        end_line,
        end_column,
    }
}

/// The object and field a finding is about: `Deployment/web/spec.template.spec.containers[0]`.
fn logical_location(diagnostic: &Diagnostic) -> Option<LogicalLocation> {
    let object = diagnostic.object.as_ref()?;
    let mut qualified = match &object.namespace {
        Some(namespace) => format!("{namespace}/{}", object.display_name()),
        None => object.display_name(),
    };
    Some(match &diagnostic.field {
        Some(field) => {
            qualified.push('/');
            qualified.push_str(field);
            LogicalLocation {
                name: field.clone(),
                fully_qualified_name: qualified,
                kind: "property",
            }
        }
        None => LogicalLocation {
            name: object.display_name(),
            fully_qualified_name: qualified,
            kind: "object",
        },
    })
}

/// A relative path stays relative to the directory podcycle ran in; an absolute one becomes a
/// `file://` URI. The path is its bytes, so that a name that is not UTF-8 keeps them
/// (percent-encoded) instead of U+FFFD.
fn artifact_location(path: &[u8]) -> ArtifactLocation {
    let path: Vec<u8> = path
        .iter()
        .map(|&b| if b == b'\\' { b'/' } else { b })
        .collect();
    if path.starts_with(b"/") {
        ArtifactLocation {
            uri: format!("file://{}", percent_encode_bytes(&path)),
            uri_base_id: None,
        }
    } else {
        ArtifactLocation {
            uri: percent_encode_bytes(&path),
            uri_base_id: Some(SOURCE_ROOT),
        }
    }
}

/// Encodes what may not appear in a URI path as is.
pub(crate) fn percent_encode(path: &str) -> String {
    percent_encode_bytes(path.as_bytes())
}

fn percent_encode_bytes(path: &[u8]) -> String {
    let mut encoded = String::with_capacity(path.len());
    for &byte in path {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                encoded.push(char::from(byte));
            }
            _ => encoded.push_str(&format!("%{byte:02X}")),
        }
    }
    encoded
}

/// A hash of what identifies a finding independently of where it is in the file: the rule,
/// the file, the object, the field and the message; for findings outside objects (syntax), the
/// text of the line instead of its number. Adding lines above a finding keeps its fingerprint.
fn fingerprint(file: &SourceFile, diagnostic: &Diagnostic) -> String {
    let mut hash = Fnv::default();
    hash.write(diagnostic.rule);
    hash.write(&file.path);
    match &diagnostic.object {
        Some(object) => {
            hash.write(&object.api_version);
            hash.write(&object.kind);
            hash.write(object.namespace.as_deref().unwrap_or_default());
            hash.write(object.name.as_deref().unwrap_or_default());
            hash.write(diagnostic.field.as_deref().unwrap_or_default());
        }
        None => {
            let line = file.line_of(diagnostic.span.start as usize);
            hash.write(
                file.slice(file.line_start(line)..file.content_end(line))
                    .trim(),
            );
        }
    }
    hash.write(&diagnostic.message);
    format!("{:016x}", hash.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_messages_and_uris() {
        assert_eq!(pascal_case("init-container-probe"), "InitContainerProbe");
        assert_eq!(sentence("unknown field `x`"), "unknown field `x`.");
        assert_eq!(sentence("did you mean `x`?"), "did you mean `x`?");
        assert_eq!(
            sentence("readinessProbe is not allowed on init container `m`"),
            "readinessProbe is not allowed on init container `m`."
        );
        assert_eq!(
            percent_encode("deploy/my app#1.yaml"),
            "deploy/my%20app%231.yaml"
        );
        assert_eq!(percent_encode("a:b/é"), "a%3Ab/%C3%A9");
        let absolute = artifact_location(b"/srv/x.yaml");
        assert_eq!(absolute.uri, "file:///srv/x.yaml");
        assert!(absolute.uri_base_id.is_none());
    }
}
