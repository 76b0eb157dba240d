//! What the server reports for a text: the diagnostics of [`crate::run::lint_bytes`] — the call
//! `podcycle check` makes, with the scope `check` gives the file on its directory (the budgets
//! and autoscalers of the manifests beside it, from the workspace's index,
//! [`crate::run::WorkspaceIndex`]) — in the files `check`'s walk lints as manifests, every
//! document of them as `check` reports it (a PodDisruptionBudget beside a Deployment, a broken
//! document beside a Pod, a `kind:` indented under `apiVersion:`). The language server runs next
//! to general YAML servers, so a YAML file that is not a Kubernetes manifest (a CI workflow, a
//! Helm values file) gets nothing, not even a syntax error.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Uri;

use super::config::{display_name, file_path};
use super::convert::{self, ClientInfo, Text};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::discovery::classify::FileClass;
use crate::run::{DirectoryContext, FilePlan, RunOptions, WorkspaceIndex, lint_bytes};
use crate::source::LineIndex;

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
/// when `check`'s walk would not lint it as a manifest (`is_linted_as_manifest`).
pub fn analyse(path: &str, text: &str, plan: &FilePlan) -> Vec<Diagnostic> {
    let mut diagnostics =
        lint_bytes(path.to_owned(), text.as_bytes().to_vec(), plan, &mut |_| {}).diagnostics;
    if !diagnostics.is_empty() && !is_linted_as_manifest(Path::new(path), text) {
        diagnostics.clear();
    }
    diagnostics
}

/// Whether `check` lints the file as a manifest when its walk finds it: a document holds a
/// Kubernetes object, or the file does not parse and writes `apiVersion` and `kind` as keys
/// (a manifest with a syntax error, typing in progress). The editor asks the walk's own
/// question, so that it publishes what `check` reports; any other YAML file (a CI workflow,
/// a chart's values, a template for another tool) is left to other tools.
fn is_linted_as_manifest(path: &Path, text: &str) -> bool {
    crate::discovery::classify::classify(path, text) == FileClass::Manifest
}
