//! The texts of walked manifests kept from the read that told what they are, for their lint:
//! each such file is opened and read once in a run.
//!
//! Only small files are kept, up to a total: the texts wait from the classification until
//! their lint, and what they take can add to the run's peak (`check` lints these files first,
//! so that they are not held while the largest files are; on the real manifests of the
//! benchmarks the median peak rose by about 1 MiB). Most of a repository's manifests are
//! small — on a corpus of 1,360 real ones, 1,327 are under 16 KiB, 1,000 under 2.3 KiB — so
//! the caps save the second open, `stat` and read of most files; a large file is read again,
//! which costs its copy more than its calls.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The largest file whose text is kept.
pub(crate) const KEPT_FILE_BYTES: usize = 16 * 1024;

/// The most bytes kept in all: beyond it, files are read again by their lint.
pub(crate) const KEPT_TOTAL_BYTES: usize = 1024 * 1024;

/// The kept texts, by path as walked.
#[derive(Debug, Default)]
pub(crate) struct KeptTexts {
    texts: HashMap<PathBuf, Vec<u8>>,
}

impl KeptTexts {
    /// The text kept for `path`, handed over: whoever takes it lints it.
    pub(crate) fn take(&mut self, path: &Path) -> Option<Vec<u8>> {
        self.texts.remove(path)
    }

    /// The text kept for `path`, to look at.
    pub(crate) fn get(&self, path: &Path) -> Option<&[u8]> {
        self.texts.get(path).map(Vec::as_slice)
    }

    /// Keeps `text` for `path`.
    pub(crate) fn insert(&mut self, path: PathBuf, text: Vec<u8>) {
        self.texts.insert(path, text);
    }
}

/// What may still be kept, shared by the threads that read.
#[derive(Debug, Default)]
pub(crate) struct Budget {
    used: AtomicUsize,
}

impl Budget {
    /// `bytes`, kept when they are small enough and the total allows it; else dropped.
    pub(crate) fn keep(&self, bytes: Vec<u8>) -> Option<Vec<u8>> {
        if bytes.len() > KEPT_FILE_BYTES {
            return None;
        }
        let before = self.used.fetch_add(bytes.len(), Ordering::Relaxed);
        if before + bytes.len() > KEPT_TOTAL_BYTES {
            self.used.fetch_sub(bytes.len(), Ordering::Relaxed);
            return None;
        }
        Some(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_texts_are_kept_up_to_the_total() {
        let budget = Budget::default();
        assert!(budget.keep(vec![b'a'; KEPT_FILE_BYTES + 1]).is_none());
        let file = vec![b'a'; KEPT_FILE_BYTES];
        let fit = KEPT_TOTAL_BYTES / KEPT_FILE_BYTES;
        for _ in 0..fit {
            assert_eq!(budget.keep(file.clone()), Some(file.clone()));
        }
        assert!(budget.keep(file).is_none(), "the total is spent");
        assert!(
            budget.keep(Vec::new()).is_some(),
            "an empty text costs nothing"
        );
    }
}
