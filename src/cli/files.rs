//! Writing files the user's repository holds (fixed manifests, baselines): whole or not at
//! all, never through a symbolic link.

use std::io::{self, Write};
use std::path::Path;

/// Replaces the file at `path` with `text`, or creates it: the text goes to a temporary file
/// in the same directory, which then takes the file's place, so that an interrupted run
/// leaves the old file or the new one, never half of it. An existing file keeps its
/// permissions. A symbolic link is refused: writing through it would change a file
/// elsewhere, and replacing it would change the repository's layout.
pub(crate) fn replace_file(path: &Path, text: &str) -> io::Result<()> {
    let existing = match std::fs::symlink_metadata(path) {
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(io::Error::other(
                "it is a symbolic link; podcycle does not write through links",
            ));
        }
        Ok(metadata) if !metadata.is_file() => {
            return Err(io::Error::other("it is not a regular file"));
        }
        Ok(metadata) => Some(metadata),
        Err(error) if error.kind() == io::ErrorKind::NotFound => None,
        Err(error) => return Err(error),
    };
    let dir = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let mut temporary = tempfile::Builder::new()
        .prefix(".podcycle-")
        .tempfile_in(dir)?;
    temporary.write_all(text.as_bytes())?;
    temporary.as_file().sync_all()?;
    if let Some(metadata) = existing {
        temporary
            .as_file()
            .set_permissions(metadata.permissions())?;
    }
    temporary.persist(path).map_err(|error| error.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_creates_and_refuses_links() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.yaml");
        replace_file(&file, "new: 1\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "new: 1\n");
        replace_file(&file, "newer: 2\n").unwrap();
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "newer: 2\n");
        assert!(replace_file(dir.path(), "x").is_err());
        #[cfg(unix)]
        {
            let link = dir.path().join("link.yaml");
            std::os::unix::fs::symlink(&file, &link).unwrap();
            let error = replace_file(&link, "x").unwrap_err();
            assert!(error.to_string().contains("symbolic link"));
            assert_eq!(std::fs::read_to_string(&file).unwrap(), "newer: 2\n");
        }
        // Nothing is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), if cfg!(unix) { 2 } else { 1 });
    }
}
