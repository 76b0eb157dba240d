//! The diagnostic model every output format renders.

use std::cmp::Ordering;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use serde::Serialize;

use crate::fix::Fix;
use crate::model::ObjectRef;
use crate::source::{SourceFile, Span};

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

/// A severity name that is not one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown severity `{0}` (expected error, warning or info)")]
pub struct UnknownSeverity(pub String);

impl FromStr for Severity {
    type Err = UnknownSeverity;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "info" => Ok(Severity::Info),
            "warning" => Ok(Severity::Warning),
            "error" => Ok(Severity::Error),
            other => Err(UnknownSeverity(other.to_owned())),
        }
    }
}

/// Who acts on a finding: what podcycle claims happens to the manifest. Every rule declares
/// one, and a finding may state another for its case (an exec `sleep` in a preStop hook is a
/// runtime problem, the `sleep` action of the same length an API rejection).
///
/// Claims of rejection (`decoder`, `api-server`) are checked against Kubernetes' own code by
/// the differential test (docs/fidelity.md), and are errors; a runtime consequence is at most a
/// warning unless the pod can never run or become Ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Enforcement {
    /// kubectl's decoder refuses the document (`kubectl apply -f`, or `kustomize build` and
    /// `kubectl apply -k` where the finding says so): nothing of it reaches the cluster.
    Decoder,
    /// The API server rejects the object.
    ApiServer,
    /// The API server accepts the object — a custom resource, whose schema does not run pod
    /// validation — and rejects the pods (or the ReplicaSets) its controller creates from it:
    /// the controller cannot create them and reports the error in the object's status.
    Controller,
    /// The API server accepts the object; the kubelet or a controller then behaves as the
    /// message says.
    Runtime,
    /// A judgement: nothing rejects it and nothing fails, but it is likely not what was meant.
    Advice,
    /// `helm template` or `kustomize build` refuses the chart or overlay: nothing of it can be
    /// installed or applied.
    Renderer,
}

/// Whether these findings of one object say that kubectl or the API server refuses it: then
/// nothing of it runs, and nothing is claimed about what its controller would do.
pub fn rejects(found: &[Diagnostic]) -> bool {
    found.iter().any(|d| {
        d.severity == Severity::Error
            && matches!(d.enforcement, Enforcement::Decoder | Enforcement::ApiServer)
    })
}

impl Enforcement {
    pub(crate) const ALL: [Enforcement; 6] = [
        Enforcement::Decoder,
        Enforcement::ApiServer,
        Enforcement::Controller,
        Enforcement::Runtime,
        Enforcement::Advice,
        Enforcement::Renderer,
    ];

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Enforcement::Decoder => "decoder",
            Enforcement::ApiServer => "api-server",
            Enforcement::Controller => "controller",
            Enforcement::Runtime => "runtime",
            Enforcement::Advice => "advice",
            Enforcement::Renderer => "renderer",
        }
    }

    /// Whether the finding claims the manifest, or the pods made from it, are refused before
    /// they run.
    pub fn is_rejection(self) -> bool {
        matches!(
            self,
            Enforcement::Decoder
                | Enforcement::ApiServer
                | Enforcement::Controller
                | Enforcement::Renderer
        )
    }

    /// One sentence for documentation: what the claim means.
    pub(crate) fn meaning(self) -> &'static str {
        match self {
            Enforcement::Decoder => "kubectl's decoder refuses the document",
            Enforcement::ApiServer => "the API server rejects the object",
            Enforcement::Controller => {
                "the API server accepts the custom resource and rejects the pods its controller creates from it"
            }
            Enforcement::Runtime => {
                "the API server accepts it; the kubelet or a controller then behaves as the message says"
            }
            Enforcement::Advice => "a judgement: nothing rejects it",
            Enforcement::Renderer => {
                "`helm template` or `kustomize build` refuses the chart or overlay, so nothing of it can be applied"
            }
        }
    }
}

impl fmt::Display for Enforcement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A secondary place related to a diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Label {
    pub span: Span,
    pub message: String,
    /// The file the label points into when it is not the diagnostic's own: the values file
    /// that set a chart's value, the Kustomize base or patch on the other side of a conflict.
    pub file: Option<Arc<SourceFile>>,
}

impl Label {
    /// A label in the diagnostic's own file.
    pub(crate) fn new(span: Span, message: impl Into<String>) -> Label {
        Label {
            span,
            message: message.into(),
            file: None,
        }
    }

    /// The file the label points into, given the diagnostic's own.
    pub(crate) fn file_or<'a>(&'a self, own: &'a SourceFile) -> &'a SourceFile {
        self.file.as_deref().unwrap_or(own)
    }
}

/// The tool that rendered the input a finding was found in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum RenderTool {
    Helm,
    Kustomize,
}

impl RenderTool {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            RenderTool::Helm => "helm",
            RenderTool::Kustomize => "kustomize",
        }
    }

    /// The command that renders with it by default (`kubectl kustomize` stands in for
    /// `kustomize build` when only kubectl is installed: see [`RenderOrigin::command`]).
    pub(crate) fn command(self) -> &'static str {
        match self {
            RenderTool::Helm => "helm template",
            RenderTool::Kustomize => "kustomize build",
        }
    }
}

impl fmt::Display for RenderTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How exactly a finding in rendered output was placed in the file that wrote it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Placement {
    /// At the line and column that wrote the field.
    Exact,
    /// The field's line is not known; the finding points at the object's declaration.
    Object,
    /// Neither the field's nor the object's line is known: the finding is about the file.
    File,
}

impl Placement {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Placement::Exact => "exact",
            Placement::Object => "object",
            Placement::File => "file",
        }
    }
}

/// Where a finding in rendered output comes from: the renderer, its input and how exactly the
/// finding was placed in the file that wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RenderOrigin {
    pub(crate) tool: RenderTool,
    /// The chart or overlay directory, as shown to the user.
    pub(crate) input: String,
    pub(crate) placement: Placement,
    /// The command that rendered it: `helm template`, `kustomize build`, `kubectl kustomize`.
    pub(crate) command: &'static str,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The rule's name, e.g. `init-container-probe`.
    pub rule: &'static str,
    pub severity: Severity,
    /// Who acts on it: the claim the finding makes.
    pub enforcement: Enforcement,
    /// What is wrong, lowercase, no trailing period.
    pub message: String,
    /// What to do about it.
    pub help: Option<String>,
    /// Facts that explain the finding but have no place in the file (a default that applies).
    pub(crate) notes: Vec<String>,
    pub span: Span,
    pub labels: Vec<Label>,
    pub object: Option<ObjectRef>,
    pub(crate) container: Option<String>,
    /// The platform whose cut the finding is about (`gke-spot`).
    pub(crate) platform: Option<&'static str>,
    /// Field path from the object root, e.g. `spec.initContainers[0].readinessProbe`.
    pub field: Option<String>,
    /// Changes that certainly resolve the finding (offered as quick fixes in editors).
    pub fixes: Vec<Fix>,
    /// Set when the finding was found in the output of Helm or Kustomize and mapped back to
    /// the file that wrote it.
    pub(crate) rendered: Option<RenderOrigin>,
}

impl Diagnostic {
    /// A finding with only what every finding has: the rest (help, notes, labels, object,
    /// container, field, fixes, rendering) is added by its producer where it has it.
    pub(crate) fn new(
        rule: &'static str,
        severity: Severity,
        enforcement: Enforcement,
        span: Span,
        message: String,
    ) -> Diagnostic {
        Diagnostic {
            rule,
            severity,
            enforcement,
            message,
            help: None,
            notes: Vec::new(),
            span,
            labels: Vec::new(),
            object: None,
            container: None,
            platform: None,
            field: None,
            fixes: Vec::new(),
            rendered: None,
        }
    }

    /// Whether `other` reports the same thing at the same place: a finding rendered twice (a
    /// base linted as it is and through its overlay, a chart rendered for two environments), or
    /// the one a document kept after its suppressions.
    pub(crate) fn same_finding(&self, other: &Diagnostic) -> bool {
        self.rule == other.rule && self.span == other.span && self.message == other.message
    }

    /// Output order: position, then rule name, then message, so output is deterministic.
    pub(crate) fn sort_key(&self) -> (u32, u32, &'static str, &str) {
        (self.span.start, self.span.end, self.rule, &self.message)
    }
}

pub(crate) fn sort(diagnostics: &mut [Diagnostic]) {
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
