//! Every file the renderers' source maps read — `Chart.yaml`, values files, templates,
//! kustomizations, patches — goes through [`read_text`], which reads with
//! [`safe_fs::read_file`]: regular files only, no symbolic link out of the tree, a size cap.

use std::path::Path;

use crate::safe_fs::{self, FileKind};

/// File names Kustomize reads as a kustomization, in its order of preference.
pub(crate) const KUSTOMIZATION_FILES: [&str; 3] =
    ["kustomization.yaml", "kustomization.yml", "Kustomization"];

/// Why a file the renderers' source maps need was not read. Says it without the path, for
/// messages of the form `path: reason`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ReadTextError {
    #[error(transparent)]
    Read(#[from] safe_fs::ReadError),
    #[error("not valid UTF-8")]
    NotUtf8(#[source] std::string::FromUtf8Error),
}

/// Reads a UTF-8 text file the way podcycle reads every file a pull request controls.
pub(crate) fn read_text(path: &Path) -> Result<String, ReadTextError> {
    let kind = if KUSTOMIZATION_FILES
        .iter()
        .any(|name| path.file_name().is_some_and(|n| n == *name))
    {
        FileKind::Kustomization
    } else {
        FileKind::Manifest
    };
    let bytes = safe_fs::read_file(path, kind)?;
    String::from_utf8(bytes).map_err(ReadTextError::NotUtf8)
}

/// Whether a path is a regular file (following a symlink only to a regular file).
pub(crate) fn is_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_text(dir.path()),
            Err(ReadTextError::Read(safe_fs::ReadError::NotRegular { .. }))
        ));
        let file = dir.path().join("a.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        assert_eq!(read_text(&file).unwrap(), "a: 1\n");
        assert!(read_text(&dir.path().join("missing")).is_err());
    }
}
