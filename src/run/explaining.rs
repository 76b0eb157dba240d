//! The explaining of pods as a run lints them, for every front end: `podcycle explain` and
//! the language server's "explain this pod" both feed [`Explaining`], so they print the same
//! explanation. Each selected pod is explained with the findings `check` reports for it, and
//! written as soon as its document is done; for rendered output, it is shown in the template,
//! base or patch that wrote it.

use std::collections::BTreeSet;
use std::io::{self, Write};

use super::files::{ReadFile, lint_bytes};
use super::rendering::Placer;
use super::scopes::Ready;
use super::{FilePlan, RenderJob, RenderedOutput};
use crate::diagnostics::{Diagnostic, Enforcement, Severity};
use crate::explain::{
    ExplainWriter, PodExplanation, PodFilter, PodSource, RolloutExplanation, RolloutSource,
    ShownFinding, explain_pod, explain_rollout, platform_cuts,
};
use crate::lint::{Visit, locate};
use crate::model::ObjectRef;
use crate::render::Output;
use crate::report::JsonDiagnostic;
use crate::rules::Part;
use crate::source::{SourceFile, Span};

/// The explaining of every input: pods are written as their document ends; what the caller
/// needs to say at the end (nothing matched, suggestions) is kept small.
pub(crate) struct Explaining<'s, W: Write> {
    filter: &'s PodFilter,
    pub(crate) writer: ExplainWriter<W>,
    /// Pods of the current document, waiting for its suppressions.
    pending: Vec<Pending>,
    /// Workload objects seen, for suggestions when `--object` matches nothing.
    pub(crate) objects: BTreeSet<String>,
    /// Container names of the selected pods, for suggestions when `--container` matches
    /// nothing.
    pub(crate) containers: BTreeSet<String>,
    /// Selected objects whose pod spec could not be decoded, or that have none, with where
    /// they are (`file:line`).
    pub(crate) unreadable: Vec<(ObjectRef, String)>,
    pub(crate) without_pod_spec: Vec<(ObjectRef, String)>,
    /// Pod specs selected (before `--container`).
    pub(crate) selected_pods: usize,
    /// `--rollout`: explain what the controllers do with the pods, not the pods.
    pub(crate) rollouts: bool,
}

/// A pod or a rollout explained, and its findings as linted, to keep those its document keeps.
struct Pending {
    explained: Explained,
    found: Vec<Diagnostic>,
    /// Whether its object holds [`PodFilter::at`].
    at: bool,
}

enum Explained {
    Pod(Box<PodExplanation<JsonDiagnostic>>),
    Rollout(Box<RolloutExplanation<JsonDiagnostic>>),
}

/// Where the pods and findings of what is linted are shown: the file itself, or, for rendered
/// output, the template, base or patch that wrote each.
enum Shown<'p, 'r> {
    AsRead,
    Rendered {
        placer: &'p mut Placer<'r>,
        /// Only the pods of these templates are explained, when some are named.
        named_templates: &'p [String],
    },
}

impl Shown<'_, '_> {
    /// A finding as `check` reports it, in the file that wrote it.
    fn finding(&mut self, file: &SourceFile, diagnostic: &Diagnostic) -> JsonDiagnostic {
        match self {
            Shown::AsRead => JsonDiagnostic::new(file, diagnostic),
            Shown::Rendered { placer, .. } => {
                let (file, placed) = placer.place(diagnostic.clone());
                JsonDiagnostic::new(&file, &placed)
            }
        }
    }

    /// The file and line of a place in what was linted; `None` for a place outside the named
    /// templates.
    fn line(&mut self, file: &SourceFile, at: Span, object: &ObjectRef) -> Option<(String, usize)> {
        match self {
            Shown::AsRead => Some((file.path.clone(), file.line_col(at.start).line)),
            Shown::Rendered {
                placer,
                named_templates,
            } => {
                let mut place =
                    Diagnostic::new("", Severity::Info, Enforcement::Advice, at, String::new());
                place.object = Some(object.clone());
                let (file, placed) = placer.place(place);
                if !named_templates.is_empty() && !named_templates.contains(&file.path) {
                    return None;
                }
                Some((file.path.clone(), file.line_col(placed.span.start).line))
            }
        }
    }
}

impl<'s, W: Write> Explaining<'s, W> {
    pub(crate) fn new(filter: &'s PodFilter, writer: ExplainWriter<W>) -> Explaining<'s, W> {
        Explaining {
            filter,
            writer,
            pending: Vec::new(),
            objects: BTreeSet::new(),
            containers: BTreeSet::new(),
            unreadable: Vec::new(),
            without_pod_spec: Vec::new(),
            selected_pods: 0,
            rollouts: false,
        }
    }

    /// What is explained.
    pub(crate) fn filter(&self) -> &'s PodFilter {
        self.filter
    }

    /// Explains the pods of a file as it is.
    pub(crate) fn file(&mut self, file: Ready, plan: &FilePlan) -> io::Result<()> {
        let mut result = Ok(());
        let mut visit = |visit: Visit<'_, '_>| {
            if result.is_ok() {
                result = self.visit(visit, &mut Shown::AsRead);
            }
        };
        match file {
            // Whether it is a template is told by its parse, before anything is shown of it:
            // read first, as `check` lints it.
            Ready::Bytes(name, bytes) if plan.unless_template => {
                let mut read = ReadFile::new(name, bytes, plan);
                let own;
                let scope = match &plan.scope {
                    Some(scope) => scope.as_ref(),
                    None => {
                        own = read.take_part().matched();
                        &own
                    }
                };
                read.finish(plan, scope, &mut visit);
            }
            Ready::Bytes(name, bytes) => {
                lint_bytes(name, bytes, plan, &mut visit);
            }
            Ready::Read(file, scope) => {
                file.finish(plan, &scope, &mut visit);
            }
        }
        result
    }

    /// Explains the pods of a rendered chart or overlay.
    pub(crate) fn rendered(&mut self, output: Output, job: &RenderJob) -> io::Result<()> {
        let named: Vec<String> = job
            .named_templates
            .iter()
            // As the source map names the files it places findings in.
            .map(|p| crate::render::shown_path(p))
            .collect();
        let mut output = RenderedOutput::new(output);
        let mut result = Ok(());
        output.lint_with(&job.plan, &mut |visit, placer| {
            if result.is_ok() {
                let mut shown = Shown::Rendered {
                    placer,
                    named_templates: &named,
                };
                result = self.visit(visit, &mut shown);
            }
        });
        result
    }

    fn visit(&mut self, visit: Visit<'_, '_>, shown: &mut Shown<'_, '_>) -> io::Result<()> {
        match visit {
            Visit::Object(visit) => {
                self.object(visit, shown);
                Ok(())
            }
            Visit::DocumentEnd(kept) => self.document_end(kept),
        }
    }

    fn object(&mut self, visit: &crate::lint::ObjectVisit<'_>, shown: &mut Shown<'_, '_>) {
        let object = &visit.object.object;
        self.remember(object);
        if !self.filter.wants_object(object) {
            return;
        }
        let object_span = visit.document.node(visit.object.root).span;
        let holds = |span: Span| {
            self.filter
                .at
                .is_none_or(|at| span.start <= at && at <= span.end)
        };
        let at_object = self.filter.at.is_some() && holds(object_span);
        if !holds(object_span) && !holds(visit.document.span) {
            return;
        }
        let Some((site, life)) = visit.pod else {
            let span = object_span;
            let Some((file, line)) = shown.line(visit.file, span, object) else {
                return;
            };
            let at = format!("{file}:{line}");
            let undecodable = visit
                .diagnostics
                .iter()
                .any(|d| matches!(d.rule, "invalid-type" | "yaml-syntax"));
            if undecodable {
                self.unreadable.push((object.clone(), at));
            } else if self.filter.object.is_some() || at_object {
                self.without_pod_spec.push((object.clone(), at));
            }
            return;
        };
        // A custom kind's pod spec is where its kind puts it, not where the decoded site says.
        let spec_path = visit.spec_path.unwrap_or(&site.spec_path);
        let in_document = visit.object.prefix.join(spec_path.segments());
        let span = locate(visit.document, &in_document, Part::Key);
        let Some((file, line)) = shown.line(visit.file, span, object) else {
            return;
        };
        self.selected_pods += 1;
        if self.filter.container.is_some() && self.containers.len() < 10_000 {
            self.containers
                .extend(life.containers.iter().map(|c| c.name.to_owned()));
        }
        if let Some(name) = &self.filter.container
            && !life.containers.iter().any(|c| c.name == name)
        {
            return;
        }
        let mut found = visit.diagnostics.to_vec();
        crate::diagnostics::sort(&mut found);
        let findings = found.iter().map(|d| shown.finding(visit.file, d)).collect();
        if self.rollouts {
            // A Pod or a PodTemplate has no controller to roll it out.
            let Some(rollout) = visit.rollout else {
                return;
            };
            let Some((file, line)) = shown.line(visit.file, object_span, object) else {
                return;
            };
            let explained = explain_rollout(RolloutSource {
                file: &file,
                line,
                object,
                life,
                rollout,
                rejected: crate::diagnostics::rejects(visit.diagnostics),
                findings,
            });
            self.pending.push(Pending {
                explained: Explained::Rollout(Box::new(explained)),
                found,
                at: at_object,
            });
            return;
        }
        let mut pod = explain_pod(PodSource {
            file: &file,
            line,
            object,
            spec_path: spec_path.to_string(),
            life,
            readiness_gates: site
                .spec
                .readiness_gates
                .as_ref()
                .is_some_and(|gates| !gates.is_empty()),
            active_deadline_seconds: site.spec.active_deadline_seconds,
            findings,
        });
        pod.shutdown.platform_cuts = platform_cuts(site, life, visit.platforms);
        self.pending.push(Pending {
            explained: Explained::Pod(Box::new(pod)),
            found,
            at: at_object,
        });
    }

    /// Remembers an object's name, for suggestions when `--object` matches nothing.
    fn remember(&mut self, object: &ObjectRef) {
        if self.objects.len() < 10_000 {
            self.objects.insert(object.display_name());
        }
    }

    /// A document is done: its pods keep the findings `check` reports (suppressions
    /// applied) and are written. With [`PodFilter::at`], only the pod of the object that holds
    /// it, or the document's pods where no object does.
    fn document_end(&mut self, kept: &[Diagnostic]) -> io::Result<()> {
        let mut pending = std::mem::take(&mut self.pending);
        if pending.iter().any(|p| p.at) {
            pending.retain(|p| p.at);
        }
        for Pending {
            explained, found, ..
        } in pending
        {
            let mut found = found.iter();
            let mut keep = |_: &JsonDiagnostic| {
                found
                    .next()
                    .is_some_and(|linted| kept.iter().any(|d| d.same_finding(linted)))
            };
            match explained {
                Explained::Pod(mut pod) => {
                    pod.findings.retain(|d| keep(d));
                    if let Some(name) = &self.filter.container {
                        pod.retain_container(name);
                    }
                    self.writer.pod(&pod)?;
                }
                Explained::Rollout(mut rollout) => {
                    rollout.findings.retain(|d| keep(d));
                    self.writer.rollout(&rollout)?;
                }
            }
        }
        Ok(())
    }
}

/// `explain` lists the findings in the shape `check --format json` writes them.
impl ShownFinding for JsonDiagnostic {
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
