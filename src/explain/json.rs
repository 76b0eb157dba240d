//! `{"pods": [...]}`, the schema of docs/explain.md, written one pod at a time: the same bytes
//! `serde_json::to_writer_pretty` writes for the whole document, without holding it.

use std::io::{self, Write};

use super::PodExplanation;

/// Writes one pod, opening the document before the first.
pub fn write_pod(out: &mut dyn Write, pod: &PodExplanation, first: bool) -> io::Result<()> {
    out.write_all(if first { b"{\n  \"pods\": [\n" } else { b",\n" })?;
    let text = serde_json::to_string_pretty(pod)?;
    for (index, line) in text.lines().enumerate() {
        if index > 0 {
            out.write_all(b"\n")?;
        }
        out.write_all(b"    ")?;
        out.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Closes the document: `{"pods": []}` when no pod was written.
pub fn finish(out: &mut dyn Write, written: usize) -> io::Result<()> {
    if written == 0 {
        out.write_all(b"{\n  \"pods\": []\n}\n")
    } else {
        out.write_all(b"\n  ]\n}\n")
    }
}
