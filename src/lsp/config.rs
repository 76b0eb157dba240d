//! Configuration files in the editor: which documents are configuration files, the problems of
//! one being edited, and which documents a change of them concerns. Which configuration and
//! settings apply to a document is the run layer's ([`crate::run::EditorPlan`]), as for
//! `check`.

use std::path::{Path, PathBuf};

use lsp_types::{FileEvent, Uri};

use crate::config as podcycle_config;

/// The glob of the configuration files that apply to the manifests below them, for the client
/// to watch.
pub(crate) const CONFIG_FILES_GLOB: &str = "**/.podcycle.{yaml,yml}";

/// Whether a configuration file is among the watched files that changed: then every open
/// document is linted again with fresh settings.
pub(crate) fn changes_config(changes: &[FileEvent]) -> bool {
    changes.iter().any(|change| is_config_file(&change.uri))
}

/// Whether the document is a configuration file (`.podcycle.yaml`, `.podcycle.yml`).
pub(crate) fn is_config_file(uri: &Uri) -> bool {
    file_path(uri).is_some_and(|path| {
        path.file_name()
            .and_then(|name| name.to_str())
            .is_some_and(|name| podcycle_config::FILE_NAMES.contains(&name))
    })
}

/// The problems of a configuration file's text, as diagnostics: the editor shows what
/// `podcycle check` would refuse while the file is being written.
pub(crate) fn config_diagnostics(
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

/// The local path of a `file:` URI.
pub(crate) fn file_path(uri: &Uri) -> Option<PathBuf> {
    let scheme = uri.scheme()?;
    if !scheme.as_str().eq_ignore_ascii_case("file") {
        return None;
    }
    let path = uri.path().as_estr().decode().into_string().ok()?;
    Some(Path::new(path.as_ref()).to_path_buf())
}

/// The name diagnostics carry for a document: its path, or the URI when it has none.
pub(crate) fn display_name(uri: &Uri) -> String {
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
        let event = |text: &str| FileEvent {
            uri: uri(text),
            typ: lsp_types::FileChangeType::CHANGED,
        };
        assert!(changes_config(&[event("file:///w/.podcycle.yaml")]));
        assert!(!changes_config(&[event("file:///w/web.yaml")]));
    }
}
