//! What the server reports for a text: the diagnostics of [`crate::run::lint_bytes`] — the call
//! `podcycle check` makes, with the scope `check` gives the file on its directory (the budgets
//! and autoscalers of the manifests beside it, from the workspace's index,
//! [`crate::run::WorkspaceIndex`]) — in the files that hold a Kubernetes object, every document of them as `check` reports it (a
//! PodDisruptionBudget beside a Deployment, a broken document beside a Pod). The language
//! server runs next to general YAML servers, so a YAML file that is not a Kubernetes manifest
//! (a CI workflow, a Helm values file) gets nothing, not even a syntax error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Uri;

use super::config::{display_name, file_path};
use super::convert::{self, ClientInfo, Text};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::run::{DirectoryContext, FilePlan, RunOptions, WorkspaceIndex, lint_bytes};
use crate::source::LineIndex;
use crate::yaml::{Document, parse_stream};

/// The diagnostics to publish for a document, linted within the scope of the manifests
/// beside it as they are on disk (read now), converted for the client.
#[cfg(feature = "testing")]
pub fn lsp_diagnostics(
    uri: &Uri,
    text: &str,
    settings: &crate::settings::Settings,
    role: crate::lint::FileRole,
    client: ClientInfo,
) -> Vec<lsp_types::Diagnostic> {
    let index = WorkspaceIndex::default();
    let options = RunOptions::default();
    let workspace = Workspace {
        index: &index,
        options: &options,
        config: None,
    };
    let plan = FilePlan::new(settings.clone(), role);
    lsp_diagnostics_in(&workspace, uri, text, &plan, client).0
}

/// Where an open document is: the workspace's index, and what the directory is read with.
#[derive(Clone, Copy, Debug)]
pub struct Workspace<'a> {
    pub index: &'a WorkspaceIndex,
    pub options: &'a RunOptions,
    /// The configuration over the document.
    pub config: Option<&'a Arc<Config>>,
}

/// The diagnostics to publish for a document in `workspace`, converted for the client, and
/// the directory and generation of the scope they were linted in.
pub fn lsp_diagnostics_in(
    workspace: &Workspace<'_>,
    uri: &Uri,
    text: &str,
    plan: &FilePlan,
    client: ClientInfo,
) -> (Vec<lsp_types::Diagnostic>, Option<(PathBuf, u64)>) {
    let (found, generation) = analyse_in_workspace(workspace, uri, text, plan);
    if found.is_empty() {
        return (Vec::new(), generation);
    }
    let lines = LineIndex::new(text);
    let text = Text {
        text,
        lines: &lines,
        encoding: client.encoding,
    };
    let converted = found
        .iter()
        .map(|diagnostic| convert::diagnostic(diagnostic, uri, &text, client))
        .collect();
    (converted, generation)
}

/// Lints an open document with its plan the way `check` lints its file on its directory:
/// within the scope the workspace's index gives it. Also the directory and its generation,
/// when it has one.
pub(crate) fn analyse_in_workspace(
    workspace: &Workspace<'_>,
    uri: &Uri,
    text: &str,
    plan: &FilePlan,
) -> (Vec<Diagnostic>, Option<(PathBuf, u64)>) {
    let scoped = file_path(uri).map(|path| {
        let context = DirectoryContext {
            options: workspace.options,
            config: workspace.config.cloned(),
            kinds: plan.settings.pod_templates(),
        };
        let scope = workspace.index.scope_of(&path, text, plan.role, &context);
        let directory = path.parent().map(Path::to_path_buf).unwrap_or_default();
        (scope, directory)
    });
    let plan = FilePlan {
        scope: scoped.as_ref().and_then(|(s, _)| s.scope.clone()),
        alone_because: scoped.as_ref().and_then(|(s, _)| s.alone_because.clone()),
        // Only the diagnostics are kept: the text is the editor's.
        keep_text: true,
        ..plan.clone()
    };
    let found = analyse(&display_name(uri), text, &plan);
    let generation = scoped.map(|(s, directory)| (directory, s.generation));
    (found, generation)
}

/// Lints `text` as `path` with `plan` the way `check` lints the file ([`lint_bytes`]); nothing
/// when no document of it is a Kubernetes object.
pub fn analyse(path: &str, text: &str, plan: &FilePlan) -> Vec<Diagnostic> {
    let mut diagnostics =
        lint_bytes(path.to_owned(), text.as_bytes().to_vec(), plan, &mut |_| {}).diagnostics;
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
    // A file with a Kubernetes object in it is a manifest, and `check` reports every one of
    // its documents; any other YAML file is left to other tools.
    let manifest = documents.iter().enumerate().any(|(i, document)| {
        let end = starts.get(i + 1).copied().unwrap_or(text.len());
        holds_objects(document, text.get(starts[i]..end).unwrap_or_default())
    });
    if !manifest {
        diagnostics.clear();
    }
    diagnostics
}

/// Whether a document holds Kubernetes objects (`apiVersion` and `kind`). A document that a
/// syntax error cut short (typing in progress) has no tree; its top-level `apiVersion` and
/// `kind` lines decide.
fn holds_objects(document: &Document, source: &str) -> bool {
    if !crate::model::objects(document).is_empty() {
        return true;
    }
    if document.root.is_some() {
        return false;
    }
    let (api_version, kind) = top_level_type(source);
    api_version.is_some() && kind.is_some()
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
