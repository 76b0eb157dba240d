//! `{"pods": [...]}` and `{"rollouts": [...]}`, the schemas of docs/explain.md, written one item
//! at a time: the same bytes `serde_json::to_writer_pretty` writes for the whole document,
//! without holding it — nor one pod's text, which for a pod of thousands of containers is
//! large.

use std::io::{self, Write};

use serde::Serialize;

/// Writes one item of the list `key`, opening the document before the first.
pub(crate) fn write_item(
    out: &mut dyn Write,
    key: &str,
    item: &impl Serialize,
    first: bool,
) -> io::Result<()> {
    if first {
        write!(out, "{{\n  \"{key}\": [\n    ")?;
    } else {
        out.write_all(b",\n    ")?;
    }
    serde_json::to_writer_pretty(Indented { out }, item)?;
    Ok(())
}

/// Closes the document: `{"pods": []}` when nothing was written.
pub(crate) fn finish(out: &mut dyn Write, key: &str, written: usize) -> io::Result<()> {
    if written == 0 {
        write!(out, "{{\n  \"{key}\": []\n}}\n")
    } else {
        out.write_all(b"\n  ]\n}\n")
    }
}

/// Closes the list `key` and adds the list `more_key` of `more`, whole: `{"rollouts": [...],
/// "disruption_budgets": [...]}`.
pub(crate) fn finish_with(
    out: &mut dyn Write,
    key: &str,
    written: usize,
    more_key: &str,
    more: &[impl Serialize],
) -> io::Result<()> {
    if written == 0 {
        write!(out, "{{\n  \"{key}\": [],\n  \"{more_key}\": [")?;
    } else {
        write!(out, "\n  ],\n  \"{more_key}\": [")?;
    }
    for (index, item) in more.iter().enumerate() {
        out.write_all(if index == 0 { b"\n    " } else { b",\n    " })?;
        serde_json::to_writer_pretty(Indented { out }, item)?;
    }
    if more.is_empty() {
        out.write_all(b"]\n}\n")
    } else {
        out.write_all(b"\n  ]\n}\n")
    }
}

/// Indents every line after the first by the two levels of the `pods` array. JSON strings
/// hold no raw newline (serde escapes it), so every newline is the printer's own.
struct Indented<'w> {
    out: &'w mut dyn Write,
}

impl Write for Indented<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            self.out.write_all(&rest[..=at])?;
            self.out.write_all(b"    ")?;
            rest = &rest[at + 1..];
        }
        self.out.write_all(rest)?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indents_what_follows_each_newline() {
        let mut out = Vec::new();
        Indented { out: &mut out }
            .write_all(b"{\n  \"a\": \"x\\ny\"\n}")
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "{\n      \"a\": \"x\\ny\"\n    }"
        );
    }
}
