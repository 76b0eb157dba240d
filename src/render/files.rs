//! Every file the renderers read — `Chart.yaml`, values files, templates, kustomizations,
//! patches — goes through [`read_text`], so that what podcycle agrees to open is decided in
//! one place: regular files only (a symlink is followed only to a regular file), and no
//! larger than [`MAX_INPUT_SIZE`].

use std::io::Read;
use std::path::Path;

use crate::discovery::describe_io_error;

/// The largest chart, values or kustomization file podcycle reads.
pub const MAX_INPUT_SIZE: u64 = 16 * 1024 * 1024;

/// Reads a UTF-8 text file, refusing anything but a regular file of a sane size.
pub fn read_text(path: &Path) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|e| describe_io_error(&e))?;
    if !metadata.is_file() {
        return Err("not a regular file".to_owned());
    }
    if metadata.len() > MAX_INPUT_SIZE {
        return Err(format!(
            "larger than {} MiB",
            MAX_INPUT_SIZE / (1024 * 1024)
        ));
    }
    let file = std::fs::File::open(path).map_err(|e| describe_io_error(&e))?;
    let mut bytes = Vec::new();
    // The size was checked before opening; the limit guards against a file that grows.
    file.take(MAX_INPUT_SIZE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| describe_io_error(&e))?;
    if bytes.len() as u64 > MAX_INPUT_SIZE {
        return Err("the file grew while it was read".to_owned());
    }
    String::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_owned())
}

/// Whether a path is a regular file (following a symlink only to a regular file).
pub fn is_file(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_text(dir.path()).unwrap_err(), "not a regular file");
        let file = dir.path().join("a.yaml");
        std::fs::write(&file, "a: 1\n").unwrap();
        assert_eq!(read_text(&file).unwrap(), "a: 1\n");
        assert!(read_text(&dir.path().join("missing")).is_err());
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert_eq!(read_text(&fifo).unwrap_err(), "not a regular file");
            }
        }
    }
}
