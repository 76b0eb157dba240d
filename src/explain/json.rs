use std::io::{self, Write};

use serde::Serialize;

use super::PodExplanation;

#[derive(Serialize)]
struct Document<'a> {
    pods: &'a [PodExplanation],
}

/// `{"pods": [...]}`, the schema of docs/explain.md.
pub fn write(out: &mut dyn Write, pods: &[PodExplanation]) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &Document { pods })?;
    writeln!(out)
}
