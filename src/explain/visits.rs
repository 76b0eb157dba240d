//! The explanations of the pods the lint pipeline visits: each selected pod is explained with
//! the findings `check` reports for it, and written as soon as its document is done. The
//! command (`cli/explain.rs`) and the language server's "explain this pod" feed it, so both
//! print the same explanation for the same text.

use std::collections::BTreeSet;
use std::io::{self, Write};

use super::{ExplainWriter, Finding, PodExplanation, PodSource, Selection, explain_pod};
use crate::diagnostics::Diagnostic;
use crate::lint::{ObjectVisit, Visit, locate};
use crate::model::ObjectRef;
use crate::report::JsonDiagnostic;
use crate::rules::Part;
use crate::source::Span;

/// The explaining of every input: pods are written as their document ends; what the caller
/// needs to say at the end (nothing matched, suggestions) is kept small.
pub struct Explaining<'s, W: Write> {
    selection: &'s Selection,
    pub writer: ExplainWriter<W>,
    /// Pods of the current document, waiting for its suppressions.
    pending: Vec<Pending>,
    /// Workload objects seen, for suggestions when `--object` matches nothing.
    pub objects: BTreeSet<String>,
    /// Container names of the selected pods, for suggestions when `--container` matches
    /// nothing.
    pub containers: BTreeSet<String>,
    /// Selected objects whose pod spec could not be decoded, or that have none, with where
    /// they are (`file:line`).
    pub unreadable: Vec<(ObjectRef, String)>,
    pub without_pod_spec: Vec<(ObjectRef, String)>,
    /// Pod specs selected (before `--container`).
    pub selected_pods: usize,
}

/// A pod explained, and the spans of its findings, to keep those its document keeps.
struct Pending {
    pod: PodExplanation<JsonDiagnostic>,
    spans: Vec<(Span, &'static str, String)>,
    /// Whether its object holds [`Selection::at`].
    at: bool,
}

impl<'s, W: Write> Explaining<'s, W> {
    pub fn new(selection: &'s Selection, writer: ExplainWriter<W>) -> Explaining<'s, W> {
        Explaining {
            selection,
            writer,
            pending: Vec::new(),
            objects: BTreeSet::new(),
            containers: BTreeSet::new(),
            unreadable: Vec::new(),
            without_pod_spec: Vec::new(),
            selected_pods: 0,
        }
    }

    /// What is explained.
    pub fn selection(&self) -> &'s Selection {
        self.selection
    }

    /// Takes what [`crate::lint::lint_file_with`] shows on the way.
    pub fn visit(&mut self, visit: Visit<'_, '_>) -> io::Result<()> {
        match visit {
            Visit::Object(visit) => {
                self.object(visit);
                Ok(())
            }
            Visit::DocumentEnd(kept) => self.document_end(kept),
        }
    }

    fn object(&mut self, visit: &ObjectVisit<'_>) {
        let object = &visit.object.object;
        if self.objects.len() < 10_000 {
            self.objects.insert(object.display_name());
        }
        if !self.selection.wants_object(object) {
            return;
        }
        let object_span = visit.document.node(visit.object.root).span;
        let holds = |span: Span| {
            self.selection
                .at
                .is_none_or(|at| span.start <= at && at <= span.end)
        };
        let at_object = self.selection.at.is_some() && holds(object_span);
        if !holds(object_span) && !holds(visit.document.span) {
            return;
        }
        let Some((site, life)) = visit.pod else {
            let at = format!(
                "{}:{}",
                visit.file.path,
                visit.file.line_col(object_span.start).line
            );
            let undecodable = visit
                .diagnostics
                .iter()
                .any(|d| matches!(d.rule, "invalid-type" | "yaml-syntax"));
            if undecodable {
                self.unreadable.push((object.clone(), at));
            } else if self.selection.object.is_some() || at_object {
                self.without_pod_spec.push((object.clone(), at));
            }
            return;
        };
        self.selected_pods += 1;
        if self.selection.container.is_some() && self.containers.len() < 10_000 {
            self.containers
                .extend(life.containers.iter().map(|c| c.name.to_owned()));
        }
        if let Some(name) = &self.selection.container
            && !life.containers.iter().any(|c| c.name == name)
        {
            return;
        }
        // A custom kind's pod spec is where its kind puts it, not where the decoded site says.
        let spec_path = visit.spec_path.unwrap_or(&site.spec_path);
        let span = locate(visit.document, visit.object, spec_path, Part::Key);
        let mut sorted = visit.diagnostics.to_vec();
        crate::diagnostics::sort(&mut sorted);
        let spans = sorted
            .iter()
            .map(|d| (d.span, d.rule, d.message.clone()))
            .collect();
        let pod = explain_pod(PodSource {
            file: &visit.file.path,
            line: visit.file.line_col(span.start).line,
            object,
            spec_path: spec_path.to_string(),
            life,
            readiness_gates: site
                .spec
                .readiness_gates
                .as_ref()
                .is_some_and(|gates| !gates.is_empty()),
            active_deadline_seconds: site.spec.active_deadline_seconds,
            findings: sorted
                .iter()
                .map(|d| JsonDiagnostic::new(visit.file, d))
                .collect(),
        });
        self.pending.push(Pending {
            pod,
            spans,
            at: at_object,
        });
    }

    /// A document is done: its pods keep the findings `check` reports (suppressions
    /// applied) and are written. With [`Selection::at`], only the pod of the object that holds
    /// it, or the document's pods where no object does.
    fn document_end(&mut self, kept: &[Diagnostic]) -> io::Result<()> {
        let mut pending = std::mem::take(&mut self.pending);
        if pending.iter().any(|p| p.at) {
            pending.retain(|p| p.at);
        }
        for Pending { mut pod, spans, .. } in pending {
            let mut found = spans.iter();
            pod.findings.retain(|_| {
                found.next().is_some_and(|(span, rule, message)| {
                    kept.iter()
                        .any(|d| d.span == *span && d.rule == *rule && d.message == *message)
                })
            });
            if let Some(name) = &self.selection.container {
                pod.retain_container(name);
            }
            self.writer.pod(&pod)?;
        }
        Ok(())
    }
}

/// `explain` lists the findings in the shape `check --format json` writes them.
impl Finding for JsonDiagnostic {
    fn severity(&self) -> &str {
        self.severity.as_str()
    }
    fn rule(&self) -> &str {
        self.rule
    }
    fn file(&self) -> &str {
        &self.file
    }
    fn line(&self) -> usize {
        self.line
    }
    fn column(&self) -> usize {
        self.column
    }
    fn message(&self) -> &str {
        &self.message
    }
    fn container(&self) -> Option<&str> {
        self.container.as_deref()
    }
    fn field(&self) -> Option<&str> {
        self.field.as_deref()
    }
}
