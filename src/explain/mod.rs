//! `podcycle explain`: the lifecycle model of each pod spec as a timeline people can read
//! (`text`), tools can use (`json`) and GitHub can draw (`mermaid`), with the findings of
//! `check` for the same pod. docs/explain.md describes the output.
//!
//! This module depends on the lifecycle model, nothing above it: the run layer's
//! `run::Explaining` hands each pod over as it is linted, with its findings (any
//! `ShownFinding`: it passes them in the shape of `check --format json`), and
//! `ExplainWriter` writes it at once, so that memory does not grow with the input. The
//! command (`cli/explain.rs`) and the language server's "explain this pod" both feed
//! `run::Explaining`, so they print the same explanation.

mod build;
mod json;
pub mod mermaid;
mod model;
pub(crate) mod rollout;
mod select;
mod text;
mod units;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::io::{self, Write};
use std::sync::Arc;

use crate::model::scope::CoveringBudget;

pub(crate) use build::platform_cuts;
pub use build::{PodSource, explain_pod};
pub(crate) use model::{Note, PodExplanation, ShownFinding};
pub(crate) use rollout::RolloutExplanation;
pub use rollout::{RolloutSource, explain_rollout};
pub(crate) use select::{ObjectSelector, PodFilter};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExplainFormat {
    /// A timeline for the terminal.
    Text,
    /// The JSON schema of docs/explain.md.
    Json,
    /// Markdown with Mermaid Gantt charts, for GitHub issues and pull requests.
    Mermaid,
}

impl ExplainFormat {
    pub(crate) const ALL: [ExplainFormat; 3] = [
        ExplainFormat::Text,
        ExplainFormat::Json,
        ExplainFormat::Mermaid,
    ];

    /// The name `--format` takes, and one line on what it is.
    pub(crate) fn name_and_description(self) -> (&'static str, &'static str) {
        match self {
            ExplainFormat::Text => ("text", "a timeline for the terminal"),
            ExplainFormat::Json => ("json", "the JSON schema of docs/explain.md"),
            ExplainFormat::Mermaid => (
                "mermaid",
                "Markdown with Mermaid Gantt charts, for GitHub issues and pull requests",
            ),
        }
    }
}

/// Writes explanations one at a time, as they are produced.
pub(crate) struct ExplainWriter<W: Write> {
    out: W,
    format: ExplainFormat,
    written: usize,
    /// The key of the JSON list: `pods`, or `rollouts`.
    key: &'static str,
    /// The disruption budgets the rollouts written so far name, each once, for the JSON
    /// list beside them.
    budgets: Vec<rollout::BudgetInfo>,
    /// The groups of budgets already in `budgets`, by address: the rollouts of one scope
    /// share them. Each is held here, so that its address cannot be taken by another group
    /// once its scope is dropped: a file that is its own scope makes its groups while it is
    /// explained and drops them after, and the next file's groups were often made at the
    /// same address, and their budgets left out of the list.
    budget_groups_seen: HashMap<usize, Arc<[CoveringBudget]>>,
}

impl<W: Write> ExplainWriter<W> {
    /// A writer of pod explanations (`{"pods": [...]}`).
    pub(crate) fn new(out: W, format: ExplainFormat) -> ExplainWriter<W> {
        ExplainWriter {
            out,
            format,
            written: 0,
            key: "pods",
            budgets: Vec::new(),
            budget_groups_seen: HashMap::new(),
        }
    }

    /// A writer of rollout explanations (`{"rollouts": [...]}`).
    pub(crate) fn for_rollouts(out: W, format: ExplainFormat) -> ExplainWriter<W> {
        ExplainWriter {
            key: "rollouts",
            ..ExplainWriter::new(out, format)
        }
    }

    /// Writes one rollout's explanation.
    pub(crate) fn rollout(
        &mut self,
        rollout: &RolloutExplanation<impl ShownFinding>,
    ) -> io::Result<()> {
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            ExplainFormat::Json => {
                for group in &rollout.budget_groups {
                    // The address of a group's shared list: equal for every rollout it covers.
                    let address = group.as_ptr() as usize;
                    if let Entry::Vacant(entry) = self.budget_groups_seen.entry(address) {
                        self.budgets.extend(group.iter().map(rollout::budget_info));
                        entry.insert(Arc::clone(group));
                    }
                }
                json::write_item(&mut self.out, self.key, rollout, first)
            }
            ExplainFormat::Text | ExplainFormat::Mermaid => {
                let mut out = crate::escape::ControlFilter::new(&mut self.out);
                if !first {
                    writeln!(out)?;
                }
                if self.format == ExplainFormat::Text {
                    rollout::text::write_rollout(&mut out, rollout)
                } else {
                    rollout::mermaid::write_rollout(&mut out, rollout)
                }
            }
        }
    }

    /// Writes one pod's explanation.
    pub(crate) fn pod(&mut self, pod: &PodExplanation<impl ShownFinding>) -> io::Result<()> {
        let first = self.written == 0;
        self.written += 1;
        match self.format {
            ExplainFormat::Json => json::write_item(&mut self.out, self.key, pod, first),
            ExplainFormat::Text | ExplainFormat::Mermaid => {
                // Names come from the manifest: no control character of theirs reaches a
                // terminal or log.
                let mut out = crate::escape::ControlFilter::new(&mut self.out);
                if !first {
                    writeln!(out)?;
                }
                if self.format == ExplainFormat::Text {
                    text::write_pod(&mut out, pod)
                } else {
                    mermaid::write_pod(&mut out, pod)
                }
            }
        }
    }

    /// How many pods have been written.
    pub(crate) fn written(&self) -> usize {
        self.written
    }

    /// Ends the output (closes the JSON document, `{"pods": []}` when nothing was written)
    /// and flushes it.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        match (self.format, self.key) {
            (ExplainFormat::Json, "rollouts") => json::finish_with(
                &mut self.out,
                self.key,
                self.written,
                "disruption_budgets",
                &self.budgets,
            )?,
            (ExplainFormat::Json, _) => json::finish(&mut self.out, self.key, self.written)?,
            _ => {}
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// How a format writes the notes and findings under a pod: headings, bullet, and the quote
/// around rule names and places (backticks in Markdown).
struct ListStyle {
    notes: &'static str,
    findings: &'static str,
    bullet: &'static str,
    code: &'static str,
}

impl ListStyle {
    /// The terminal's: lower-case headings, indented bullets, nothing around names.
    const TEXT: ListStyle = ListStyle {
        notes: "notes",
        findings: "findings",
        bullet: "  - ",
        code: "",
    };
    /// Markdown's: headings, list items, names in backticks.
    const MARKDOWN: ListStyle = ListStyle {
        notes: "Notes:",
        findings: "Findings:",
        bullet: "- ",
        code: "`",
    };
}

/// The notes and the findings of `check`, each under its heading when there are any.
fn write_notes_and_findings(
    out: &mut dyn Write,
    notes: &[Note],
    findings: &[impl ShownFinding],
    style: &ListStyle,
) -> io::Result<()> {
    let code = style.code;
    let notes: Vec<String> = notes.iter().map(|note| note.text.clone()).collect();
    let findings: Vec<String> = findings
        .iter()
        .map(|f| {
            format!(
                "{}[{code}{}{code}] {code}{}:{}:{}{code}: {}",
                f.severity(),
                f.rule(),
                f.file(),
                f.line(),
                f.column(),
                f.message()
            )
        })
        .collect();
    for (heading, items) in [(style.notes, notes), (style.findings, findings)] {
        if items.is_empty() {
            continue;
        }
        writeln!(out)?;
        writeln!(out, "{heading}")?;
        for item in items {
            writeln!(out, "{}{item}", style.bullet)?;
        }
    }
    Ok(())
}
