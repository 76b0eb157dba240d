//! What the server reports for a text: the diagnostics of [`lint_file_as`] — the call
//! `podcycle check` makes — in the documents that hold Kubernetes workloads. The language
//! server runs next to general YAML servers, so a YAML file that is not a Kubernetes manifest
//! (a CI workflow, a Helm values file) gets nothing, not even a syntax error.

use lsp_types::Uri;

use super::config::display_name;
use super::convert::{self, ClientInfo, Text};
use crate::diagnostics::Diagnostic;
use crate::lint::{FileRole, lint_file_as};
use crate::model::{WorkloadKind, workload_objects};
use crate::settings::Settings;
use crate::source::{LineIndex, SourceFile};
use crate::yaml::{Document, parse_stream};

/// The diagnostics to publish for a document: [`analyse`], converted for the client.
pub fn lsp_diagnostics(
    uri: &Uri,
    text: &str,
    settings: &Settings,
    role: FileRole,
    client: ClientInfo,
) -> Vec<lsp_types::Diagnostic> {
    let found = analyse(&display_name(uri), text, settings, role);
    if found.is_empty() {
        return Vec::new();
    }
    let lines = LineIndex::new(text);
    let text = Text {
        text,
        lines: &lines,
        encoding: client.encoding,
    };
    found
        .iter()
        .map(|diagnostic| convert::diagnostic(diagnostic, uri, &text, client))
        .collect()
}

/// Lints `text` the way `check` lints a file, and keeps the diagnostics of the documents that
/// hold Kubernetes workloads.
pub fn analyse(path: &str, text: &str, settings: &Settings, role: FileRole) -> Vec<Diagnostic> {
    let file = SourceFile::new(path, text);
    let mut diagnostics = lint_file_as(&file, settings, role);
    if diagnostics.is_empty() {
        return diagnostics;
    }
    let documents = parse_stream(text);
    // Each document owns the text from its start to the next one's; the first from the start
    // of the file, since one cut short by a syntax error may only begin at the error.
    let starts: Vec<usize> = documents
        .iter()
        .enumerate()
        .map(|(i, document)| {
            if i == 0 {
                0
            } else {
                document.span.start as usize
            }
        })
        .collect();
    let kubernetes: Vec<(u32, bool)> = documents
        .iter()
        .enumerate()
        .map(|(i, document)| {
            let end = starts.get(i + 1).copied().unwrap_or(text.len());
            let source = text.get(starts[i]..end).unwrap_or_default();
            (
                u32::try_from(starts[i]).unwrap_or(u32::MAX),
                holds_workloads(document, source, settings),
            )
        })
        .collect();
    diagnostics.retain(|diagnostic| {
        // The document a diagnostic belongs to is the last one starting at or before it.
        let index = kubernetes
            .partition_point(|&(start, _)| start <= diagnostic.span.start)
            .saturating_sub(1);
        kubernetes.get(index).is_some_and(|&(_, yes)| yes)
    });
    diagnostics
}

/// Whether a document holds Kubernetes workloads. A document that a syntax error cut short
/// (typing in progress) has no tree; its top-level `apiVersion` and `kind` lines decide.
fn holds_workloads(document: &Document, source: &str, settings: &Settings) -> bool {
    if !workload_objects(document).is_empty() {
        return true;
    }
    let kinds = settings.pod_templates();
    if !crate::model::custom_workloads_among(document, &crate::model::objects(document), kinds)
        .is_empty()
    {
        return true;
    }
    if document.root.is_some() {
        return false;
    }
    let (api_version, kind) = top_level_type(source);
    match (api_version, kind) {
        (Some(api_version), Some(kind)) => {
            kind.ends_with("List")
                || WorkloadKind::from_type(api_version, kind).is_some()
                || settings.pod_templates().find(api_version, kind).is_some()
        }
        _ => false,
    }
}

/// The values of the first `apiVersion:` and `kind:` keys at the start of a line (YAML), or of
/// the first `"apiVersion":` and `"kind":` members (JSON).
fn top_level_type(source: &str) -> (Option<&str>, Option<&str>) {
    let mut api_version = None;
    let mut kind = None;
    // Lines end at `\n`, `\r\n` or a lone `\r`, as in the line index.
    for line in source.split(['\n', '\r']) {
        let json = line.trim_start().trim_start_matches('{').trim_start();
        let value = |key: &str| {
            line.strip_prefix(key)
                .and_then(|rest| rest.strip_prefix(':'))
                .or_else(|| {
                    json.strip_prefix('"')?
                        .strip_prefix(key)?
                        .strip_prefix('"')?
                        .trim_start()
                        .strip_prefix(':')
                })
                .map(scalar)
        };
        api_version = api_version.or_else(|| value("apiVersion"));
        kind = kind.or_else(|| value("kind"));
        if api_version.is_some() && kind.is_some() {
            break;
        }
    }
    (api_version, kind)
}

/// A plain, quoted or JSON scalar with what follows it (a comment, a comma) left out.
fn scalar(rest: &str) -> &str {
    let rest = rest.trim_start();
    let end = rest.find([' ', '\t', ',', '}', '#']).unwrap_or(rest.len());
    let rest = rest[..end].trim();
    rest.trim_matches(['"', '\''])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_top_level_types() {
        assert_eq!(
            top_level_type("apiVersion: 'apps/v1' # x\nkind: Deployment\n"),
            (Some("apps/v1"), Some("Deployment"))
        );
        assert_eq!(
            top_level_type("{\"apiVersion\": \"v1\", \"kind\": \"Pod\"\n"),
            (Some("v1"), None)
        );
        assert_eq!(top_level_type("  kind: Pod\n"), (None, None));
    }
}
