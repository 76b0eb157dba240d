//! Which settings and file role apply to a document. Everything the server lints goes
//! through [`Config::settings_for`], so configuration files plug in at that one place.

use std::path::{Path, PathBuf};

use lsp_types::{FileEvent, Uri};

use super::editor_settings::EditorSettings;
use crate::config::{self as podcycle_config};
use crate::discovery::roles::PatchIndex;
use crate::lint::FileRole;
use crate::settings::Settings;

/// The glob of the configuration files that apply to the manifests below them, for the client
/// to watch.
pub const CONFIG_FILES_GLOB: &str = "**/.podcycle.{yaml,yml}";

/// Settings per document.
#[derive(Debug, Default)]
pub struct Config {
    /// The workspace folders the client opened, for the configuration search to stop at.
    pub workspace_folders: Vec<PathBuf>,
    /// What the editor's settings say, over the configuration files.
    pub editor: EditorSettings,
}

impl Config {
    pub fn new(workspace_folders: Vec<PathBuf>) -> Config {
        Config {
            workspace_folders,
            editor: EditorSettings::default(),
        }
    }

    /// The settings for the document at `uri`, as `podcycle check` would lint the file: the
    /// nearest `.podcycle.yaml` above it (with its `per-path-ignores` and `kube-version`), or
    /// the defaults. The file is read afresh each time, so an edit to it applies at the next
    /// change; a configuration that cannot be read leaves the defaults (`podcycle check`
    /// reports why). `None` when the configuration excludes the document.
    pub fn settings_for(&self, uri: &Uri) -> Option<Settings> {
        self.resolve(uri).settings
    }

    /// [`Config::settings_for`], with the error of a configuration that cannot be used. The
    /// editor's settings apply as the command line's options do for `check`.
    pub fn resolve(&self, uri: &Uri) -> podcycle_config::Resolved {
        let editor = &self.editor;
        let (cli, kube_version) = (&editor.selection, editor.kube_version);
        let path = file_path(uri);
        match (&editor.configuration, &path) {
            (Some(config), path) => {
                podcycle_config::resolve_with(config, path.as_deref(), cli, kube_version)
            }
            (None, Some(path)) => podcycle_config::resolve_for_path(path, cli, kube_version),
            (None, None) => podcycle_config::Resolved {
                settings: Some(podcycle_config::settings_without_config(cli, kube_version)),
                error: None,
            },
        }
    }

    /// Called when watched files change. Returns whether a configuration file is among them,
    /// in which case every open document is linted again with fresh settings.
    pub fn files_changed(&mut self, changes: &[FileEvent]) -> bool {
        changes.iter().any(|change| is_config_file(&change.uri))
    }
}

/// Whether the document is a configuration file (`.podcycle.yaml`, `.podcycle.yml`).
pub fn is_config_file(uri: &Uri) -> bool {
    file_path(uri).is_some_and(|path| {
        path.file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| podcycle_config::FILE_NAMES.contains(&name))
    })
}

/// The problems of a configuration file's text, as diagnostics: the editor shows what
/// `podcycle check` would refuse while the file is being written.
pub fn config_diagnostics(
    uri: &Uri,
    text: &str,
    client: super::convert::ClientInfo,
) -> Vec<lsp_types::Diagnostic> {
    let file = crate::source::SourceFile::new(display_name(uri), text);
    let Err(problems) = podcycle_config::parse(&file) else {
        return Vec::new();
    };
    let converter = super::convert::Text {
        text,
        lines: &file.lines,
        encoding: client.encoding,
    };
    problems
        .iter()
        .map(|problem| {
            let mut message = problem.message.clone();
            if let Some(help) = &problem.help {
                message.push_str("\nhelp: ");
                message.push_str(help);
            }
            lsp_types::Diagnostic {
                range: converter.range(problem.span),
                severity: Some(lsp_types::DiagnosticSeverity::ERROR),
                source: Some("podcycle".to_owned()),
                message,
                ..lsp_types::Diagnostic::default()
            }
        })
        .collect()
}

/// Whether `check` would lint the file as manifests or as Kustomize patches (by name, or listed
/// in the kustomization next to it).
pub fn file_role(uri: &Uri) -> FileRole {
    file_path(uri).map_or(FileRole::Manifest, |path| PatchIndex::default().role(&path))
}

/// The local path of a `file:` URI.
pub fn file_path(uri: &Uri) -> Option<PathBuf> {
    let scheme = uri.scheme()?;
    if !scheme.as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let path = uri.path().as_estr().decode().into_string().ok()?;
    Some(Path::new(path.as_ref()).to_path_buf())
}

/// The name diagnostics carry for a document: its path, or the URI when it has none.
pub fn display_name(uri: &Uri) -> String {
    file_path(uri).map_or_else(
        || uri.as_str().to_owned(),
        |path| path.display().to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(text: &str) -> Uri {
        text.parse().unwrap()
    }

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(
            file_path(&uri("file:///work/a%20b/web.yaml")),
            Some(PathBuf::from("/work/a b/web.yaml"))
        );
        assert_eq!(file_path(&uri("untitled:Untitled-1")), None);
        assert_eq!(
            display_name(&uri("untitled:Untitled-1")),
            "untitled:Untitled-1"
        );
    }

    #[test]
    fn config_changes_are_recognised() {
        let mut config = Config::default();
        let event = |text: &str| FileEvent {
            uri: uri(text),
            typ: lsp_types::FileChangeType::CHANGED,
        };
        assert!(config.files_changed(&[event("file:///w/.podcycle.yaml")]));
        assert!(!config.files_changed(&[event("file:///w/web.yaml")]));
    }

    #[test]
    fn patches_are_recognised_by_name() {
        assert_eq!(
            file_role(&uri("file:///nowhere/replicas-patch.yaml")),
            FileRole::Patch
        );
        assert_eq!(
            file_role(&uri("file:///nowhere/web.yaml")),
            FileRole::Manifest
        );
        assert_eq!(file_role(&uri("untitled:Untitled-1")), FileRole::Manifest);
    }
}
