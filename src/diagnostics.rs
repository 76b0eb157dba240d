//! The diagnostic model every output format renders.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

mod json;

pub(crate) use json::range;
pub use json::{JsonDiagnostic, JsonLabel};

use crate::fix::Fix;
use crate::model::ObjectRef;
use crate::source::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Severity {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(format!(
                "unknown severity `{other}` (expected error, warning or info)"
            )),
        }
    }
}

/// A secondary place related to a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule's name, e.g. `init-container-probe`.
    pub rule: &'static str,
    pub severity: Severity,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// Facts that explain the finding but have no place in the file (a default that applies).
    pub notes: Vec<String>,
    pub span: Span,
    pub labels: Vec<Label>,
    pub object: Option<ObjectRef>,
    pub container: Option<String>,
    /// Field path from the object root, e.g. `spec.initContainers[0].readinessProbe`.
    pub field: Option<String>,
    /// Changes that certainly resolve the finding (offered as quick fixes in editors).
    pub fixes: Vec<Fix>,
}

impl Diagnostic {
    /// Output order: position, then rule name, then message, so output is deterministic.
    pub fn sort_key(&self) -> (u32, u32, &'static str, &str) {
        (self.span.start, self.span.end, self.rule, &self.message)
    }
}

pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        a.sort_key()
            .cmp(&b.sort_key())
            .then_with(|| compare_rest(a, b))
    });
}

fn compare_rest(a: &Diagnostic, b: &Diagnostic) -> Ordering {
    a.field
        .cmp(&b.field)
        .then_with(|| a.labels.len().cmp(&b.labels.len()))
}
