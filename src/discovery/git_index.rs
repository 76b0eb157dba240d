//! The paths git tracks in a repository, read from its index (`.git/index`), so that finding
//! the kustomizations of a repository costs one file read, not a walk of every directory: a
//! pre-commit run of one file in a large checkout stats nothing it does not need.
//!
//! The format is git's `Documentation/gitformat-index.txt`: a 12-byte header (`DIRC`, the
//! version — 2, 3 or 4 — and the entry count), then the entries, each 62 bytes of stat data,
//! object id and flags (two more flag bytes when the extended flag is set, from version 3),
//! then the path: NUL-terminated and padded with NULs to a multiple of 8 bytes in versions 2
//! and 3; in version 4 a varint count of bytes to drop from the previous path, then the rest,
//! NUL-terminated, unpadded. Extensions and the checksum follow the entries and are not read.
//! Only SHA-1 repositories (20-byte object ids) are read; any other index, or a malformed one,
//! gives `None`, and the caller walks instead.

use std::io::Read;
use std::path::Path;

/// The most bytes of index read: beyond that, walking costs less than the index.
const MAX_INDEX_BYTES: u64 = 256 << 20;
/// Stat data (40 bytes), object id (20) and flags (2).
const FIXED: usize = 62;
const EXTENDED: u16 = 0x4000;

/// The paths the index of the repository at `root` tracks that `keep` keeps (it sees each
/// path's bytes; only those kept are copied), relative to `root`, with `/` between
/// components; `None` when there is no index podcycle reads.
pub(crate) fn tracked_paths(root: &Path, keep: impl Fn(&[u8]) -> bool) -> Option<Vec<String>> {
    let index = git_dir(root)?.join("index");
    let metadata = std::fs::symlink_metadata(&index).ok()?;
    if !metadata.is_file() || metadata.len() > MAX_INDEX_BYTES {
        return None;
    }
    parse(std::fs::File::open(&index).ok()?, keep)
}

/// The repository's git directory: `.git`, or where a linked worktree's `.git` file points
/// (`gitdir: PATH`). Only the names of the index are used, each joined to the checkout's root.
fn git_dir(root: &Path) -> Option<std::path::PathBuf> {
    let dot_git = root.join(".git");
    let metadata = std::fs::symlink_metadata(&dot_git).ok()?;
    if metadata.is_dir() {
        return Some(dot_git);
    }
    if !metadata.is_file() || metadata.len() > 4096 {
        return None;
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(root.join(target))
}

/// Reads the index through a small window ([`Window`]) rather than whole: a large checkout's
/// index is megabytes, and reading it into one buffer cost more (the pages of that buffer)
/// than parsing it.
fn parse(index: impl Read, keep: impl Fn(&[u8]) -> bool) -> Option<Vec<String>> {
    let mut window = Window::new(index);
    window.fill_to(12)?;
    let header = window.available();
    let word = |at: usize| {
        u32::from_be_bytes([header[at], header[at + 1], header[at + 2], header[at + 3]])
    };
    if &header[..4] != b"DIRC" {
        return None;
    }
    let version = word(4);
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = usize::try_from(word(8)).ok()?;
    window.consume(12);
    let mut paths = Vec::new();
    // The current path: version 4 builds each from the one before.
    let mut path: Vec<u8> = Vec::new();
    for _ in 0..count {
        window.fill_to(FIXED)?;
        let bytes = window.available();
        let flags = u16::from_be_bytes([bytes[60], bytes[61]]);
        let mut at = FIXED;
        if version >= 3 && flags & EXTENDED != 0 {
            at += 2;
        }
        if version == 4 {
            // The varint (at most 10 bytes) and the NUL-terminated rest of the path.
            window.fill_to(at + 1)?;
            let varint_at = at;
            let (drop, read) = loop {
                match varint(&window.available()[varint_at..]) {
                    Some(found) => break found,
                    None if window.available().len() >= varint_at + 10 => return None,
                    None => window.fill_to(window.available().len() + 1)?,
                }
            };
            at += read;
            let end = window.nul_from(at)?;
            let keep = path.len().checked_sub(drop)?;
            path.truncate(keep);
            path.extend_from_slice(&window.available()[at..end]);
            window.consume(end + 1);
        } else {
            let end = window.nul_from(at)?;
            path.clear();
            path.extend_from_slice(&window.available()[at..end]);
            // The entry, path and at least one NUL, padded to a multiple of 8.
            let length = (end + 8) & !7;
            window.fill_to(length)?;
            window.consume(length);
        }
        if keep(&path) {
            paths.push(String::from_utf8(path.clone()).ok()?);
        }
    }
    Some(paths)
}

/// The bytes of a reader not yet consumed, read 64 KiB at a time.
struct Window<R> {
    reader: R,
    buffer: Vec<u8>,
    start: usize,
    end: usize,
}

impl<R: Read> Window<R> {
    fn new(reader: R) -> Window<R> {
        Window {
            reader,
            buffer: vec![0; 64 << 10],
            start: 0,
            end: 0,
        }
    }

    fn available(&self) -> &[u8] {
        &self.buffer[self.start..self.end]
    }

    fn consume(&mut self, n: usize) {
        self.start = (self.start + n).min(self.end);
    }

    /// Makes at least `n` bytes available; `None` when the reader ends first or fails.
    fn fill_to(&mut self, n: usize) -> Option<()> {
        while self.end - self.start < n {
            if self.start > 0 {
                self.buffer.copy_within(self.start..self.end, 0);
                self.end -= self.start;
                self.start = 0;
            }
            if self.buffer.len() < n {
                self.buffer.resize(n.max(self.buffer.len() * 2), 0);
            }
            match self.reader.read(&mut self.buffer[self.end..]) {
                Ok(0) => return None,
                Ok(read) => self.end += read,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return None,
            }
        }
        Some(())
    }

    /// Where the first NUL at or after `from` is, in what is available, reading on as needed.
    fn nul_from(&mut self, from: usize) -> Option<usize> {
        let mut searched = from;
        loop {
            if let Some(at) = self
                .available()
                .get(searched..)
                .and_then(|rest| memchr::memchr(0, rest))
            {
                return Some(searched + at);
            }
            searched = self.available().len().max(from);
            self.fill_to(searched + 1)?;
        }
    }
}

/// Git's offset varint (`varint.c`, `decode_varint`): 7 bits a byte, most significant first,
/// with one added at each continuation.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut value: usize = 0;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        if i > 0 {
            value = value.checked_add(1)?;
        }
        value = value.checked_mul(128)? | usize::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> bool {
        Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .is_ok_and(|o| o.status.success())
    }

    #[test]
    fn reads_the_paths_of_every_index_version() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        if !git(root, &["init", "-q"]) {
            eprintln!("git is not available: skipped");
            return;
        }
        let names = [
            "a/kustomization.yaml",
            "a/b/deploy.yaml",
            "a/b/deploy-with-a-much-longer-name.yaml",
            "z.yaml",
        ];
        for name in names {
            let path = root.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x: 1\n").unwrap();
        }
        assert!(git(root, &["add", "."]));
        for version in ["2", "3", "4"] {
            assert!(git(root, &["update-index", "--index-version", version]));
            let mut paths = tracked_paths(root, |_| true).expect("an index");
            paths.sort();
            let mut expected: Vec<&str> = names.to_vec();
            expected.sort();
            assert_eq!(paths, expected, "index version {version}");
            // Read a byte at a time, every entry crosses the edge of the window.
            let index = std::fs::read(root.join(".git/index")).unwrap();
            let mut by_bytes = parse(OneByte(&index), |_| true).expect("an index");
            by_bytes.sort();
            assert_eq!(
                by_bytes, expected,
                "index version {version}, a byte at a time"
            );
        }
    }

    /// A reader that gives one byte per read.
    struct OneByte<'a>(&'a [u8]);

    impl Read for OneByte<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            let Some((first, rest)) = self.0.split_first() else {
                return Ok(0);
            };
            match buffer.first_mut() {
                Some(byte) => *byte = *first,
                None => return Ok(0),
            }
            self.0 = rest;
            Ok(1)
        }
    }

    #[test]
    fn a_malformed_index_is_not_read() {
        let all = |_: &[u8]| true;
        assert_eq!(parse(&b"DIRC\0\0\0\x02\0\0\0\x05"[..], all), None);
        assert_eq!(parse(&b"NOPE"[..], all), None);
        assert_eq!(parse(&b""[..], all), None);
    }
}
