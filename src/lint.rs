//! The pipeline for one file: YAML tree → objects → typed pod specs → lifecycle → rules →
//! diagnostics with spans. Free of I/O, so the command line, tests and benchmarks share it.

use crate::diagnostics::{self, Diagnostic, Label};
use crate::lifecycle::Lifecycle;
use crate::lifecycle::rollout::{Rollout, RolloutSource};
use crate::model::custom::{self, FoundTemplate, PodTemplateKind};
use crate::model::patch::{PATCH_DIRECTIVES, has_assertion_expressions, has_patch_directives};
use crate::model::path::FieldPath;
use crate::model::path::PathSegment;
use crate::model::scope::Scope;
use crate::model::services::{Service, services_in};
use crate::model::tree::ObjectTree;
use crate::model::{
    AnyObject, ObjectRef, ObjectSite, PodSite, WorkloadKind, custom_workloads_among, objects,
    workloads_among,
};
use crate::rules::{
    Check, DocumentContext, Finding, Findings, ObjectContext, Part, PodContext, RolloutContext,
    Rule, ScopeContext, ScopeObject, Target,
};
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use crate::suppression::{
    COMMENT_PREFIX, IGNORE_ANNOTATION, KUBE_LINTER_ANNOTATION_PREFIX, Suppressions,
};
use crate::yaml::{self, Comments, Document, NodeId, lookup};
use podcycle_k8s::{JsonTree, Tree};

/// What a file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// Complete manifests: every rule applies.
    Manifest,
    /// Kustomize patches (partial objects): only the document checks apply.
    Patch,
}

/// What a file's text says it may hold besides complete objects, so that objects are searched
/// for the marks of partial ones only where they can be.
#[derive(Clone, Copy, Debug)]
struct Partial {
    /// Strategic-merge-patch directives (`$patch`).
    directives: bool,
    /// Test assertions' JMESPath keys and bindings (`(length(x)):`, `($ns)`).
    expressions: bool,
}

/// What lint shows the caller for each object: its pod spec and lifecycle (if it has them), its
/// findings so far, where the pod spec is when the site does not say (custom kinds), and its
/// rollout (workload controllers).
type VisitPod<'v> =
    dyn FnMut(Option<PodParts<'_>>, &[Diagnostic], Option<&FieldPath>, Option<&Rollout>) + 'v;

/// A pod spec and the lifecycle derived from it.
pub type PodParts<'a> = (&'a PodSite<'a>, &'a Lifecycle<'a>);

/// A workload object met while linting, for callers that need more than diagnostics (the
/// explain command): its pod spec and lifecycle when they could be read, and its findings.
pub struct ObjectVisit<'a> {
    pub file: &'a SourceFile,
    pub document: &'a Document,
    pub object: &'a ObjectSite,
    /// `None` when the object has no pod spec or it could not be decoded.
    pub pod: Option<PodParts<'a>>,
    /// The diagnostics found in this object, unsorted.
    pub diagnostics: &'a [Diagnostic],
    /// Where the pod spec is in the object, when it is not where `pod`'s site says (the pod
    /// templates of custom kinds are decoded from a `PodTemplate` built from them).
    pub spec_path: Option<&'a FieldPath>,
    /// The rollout of a workload controller (`None` for a Pod, a PodTemplate or a custom kind).
    pub rollout: Option<&'a Rollout>,
}

/// What [`lint_file_with`] shows its visitor on the way.
pub enum Visit<'v, 'a> {
    /// A workload object, linted; its diagnostics are those before the document's
    /// suppressions apply.
    Object(&'v ObjectVisit<'a>),
    /// A document is done: the diagnostics it keeps once its suppressions apply, unsorted.
    DocumentEnd(&'v [Diagnostic]),
}

/// What linting a file found.
#[derive(Debug, Default)]
pub struct Linted {
    /// Sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The workload objects checked, in file order.
    pub objects: Vec<ObjectRef>,
}

/// Lints one file of manifests and returns its diagnostics, sorted.
pub fn lint_file(file: &SourceFile, settings: &Settings) -> Vec<Diagnostic> {
    lint_file_as(file, settings, FileRole::Manifest)
}

/// Lints one file, as manifests or as patches.
pub fn lint_file_as(file: &SourceFile, settings: &Settings, role: FileRole) -> Vec<Diagnostic> {
    lint_file_with(file, settings, role, &mut |_| {}).diagnostics
}

/// Lints one file like [`lint_file_as`], showing `visit` every workload object and the end of
/// every document on the way, and applies the file's suppressions. Documents are read one at a
/// time, so a large stream never holds more than one tree. The file is its own scope: its
/// budgets and autoscalers are matched with its workloads ([`lint_file_in_scope`]).
pub fn lint_file_with(
    file: &SourceFile,
    settings: &Settings,
    role: FileRole,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> Linted {
    let scope = match role {
        FileRole::Manifest => Scope::read(file, settings.pod_templates()),
        FileRole::Patch => Scope::default(),
    };
    lint_file_in_scope(file, settings, role, &scope, visit)
}

/// Lints one file of a scope — the objects applied together: a file, a rendered chart or
/// overlay, a directory — whose PodDisruptionBudgets and HorizontalPodAutoscalers are matched
/// with the workloads of the whole scope. A scope of many files is the union of their
/// [`Scope::read`] ([`Scope::extend`]); each file of it is linted with this.
pub fn lint_file_in_scope(
    file: &SourceFile,
    settings: &Settings,
    role: FileRole,
    scope: &Scope,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> Linted {
    let mut linted = Linted::default();
    let services = file_services(file, settings, role);
    // Only `# podcycle: …` comments matter here (suppressions); most files have none, nor
    // suppression annotations, nor patch directives: skip what cannot apply.
    let comments = if file.text.contains(COMMENT_PREFIX) {
        Comments::Keep
    } else {
        Comments::Skip
    };
    let may_suppress = comments == Comments::Keep
        || file.text.contains(IGNORE_ANNOTATION)
        || file.text.contains(KUBE_LINTER_ANNOTATION_PREFIX);
    let may_patch = Partial {
        directives: PATCH_DIRECTIVES.iter().any(|d| file.text.contains(d)),
        expressions: file.text.contains("):") || file.text.contains("($"),
    };
    yaml::for_each_document_with(&file.text, comments, |document| {
        let objects = objects(&document);
        let mut found = Vec::new();
        let complete = lint_document(
            file,
            &document,
            &objects,
            settings,
            role,
            may_patch,
            &services,
            scope,
            &mut found,
            &mut linted.objects,
            visit,
        );
        if may_suppress {
            apply_suppressions(file, &document, &objects, settings, complete, &mut found);
        }
        visit(Visit::DocumentEnd(&found));
        linted.diagnostics.append(&mut found);
    });
    diagnostics::sort(&mut linted.diagnostics);
    linted
}

/// Drops what the document's suppressions silence and reports the suppressions that are
/// wrong. Findings about suppressions can be silenced too (`ignore-file[unused-suppression]`).
fn apply_suppressions(
    file: &SourceFile,
    document: &Document,
    objects: &[AnyObject],
    settings: &Settings,
    complete: bool,
    found: &mut Vec<Diagnostic>,
) {
    let mut suppressions = Suppressions::read(file, document, objects);
    if suppressions.is_empty() {
        return;
    }
    suppressions.silence(found);
    let rule = &crate::rules::UNUSED_SUPPRESSION;
    if !settings.runs(rule) {
        return;
    }
    let mut problems: Vec<Diagnostic> = suppressions
        .problems(settings, complete)
        .into_iter()
        .map(|p| document_diagnostic(rule, settings, p.span, p.message, p.help))
        .collect();
    suppressions.silence(&mut problems);
    found.append(&mut problems);
}

/// The diagnostic for a file that is not valid UTF-8, at the first bad byte. `text` is the
/// lossy copy the caller lints, where that byte became a replacement character.
pub fn invalid_utf8(settings: &Settings, text: &str, valid_up_to: usize) -> Option<Diagnostic> {
    let rule = &crate::rules::YAML_SYNTAX;
    if !settings.runs(rule) {
        return None;
    }
    let width = text[valid_up_to..].chars().next().map_or(0, char::len_utf8);
    Some(document_diagnostic(
        rule,
        settings,
        Span::new(valid_up_to, valid_up_to + width),
        "the file is not valid UTF-8".to_owned(),
        Some("save the file as UTF-8; Kubernetes manifests must be UTF-8 text".to_owned()),
    ))
}

/// The Services of a file, read in a first pass over its documents, only when an enabled
/// rule needs them and the file can hold one.
fn file_services(file: &SourceFile, settings: &Settings, role: FileRole) -> Vec<Service> {
    let mut services = Vec::new();
    if role == FileRole::Manifest
        && settings.rules().any(|rule| rule.reads_services)
        && file.text.contains("Service")
    {
        yaml::for_each_document_with(&file.text, Comments::Skip, |document| {
            services.extend(services_in(&document));
        });
    }
    services
}

/// Lints one document; returns whether every object in it could be read (so every rule ran).
#[allow(clippy::too_many_arguments)]
fn lint_document(
    file: &SourceFile,
    document: &Document,
    objects: &[AnyObject],
    settings: &Settings,
    role: FileRole,
    may_patch: Partial,
    services: &[Service],
    scope: &Scope,
    out: &mut Vec<Diagnostic>,
    checked: &mut Vec<ObjectRef>,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> bool {
    let partial = role == FileRole::Patch;
    // Built-in workloads, then objects of custom kinds with their kind.
    let workloads: Vec<(ObjectSite, Option<PodTemplateKind>)> = if partial {
        Vec::new()
    } else {
        workloads_among(document, objects)
            .into_iter()
            .map(|site| (site, None))
            .chain(
                custom_workloads_among(document, objects, settings.pod_templates())
                    .into_iter()
                    .map(|(site, kind)| (site, Some(kind))),
            )
            .collect()
    };
    // Each object is checked once against the limits of conversion (alias expansion, depth);
    // the document rules see those that fail.
    let converted: Vec<Result<Readable<'_>, yaml::ConversionError>> = workloads
        .iter()
        .map(|(object, custom_kind)| Readable::new(document, object.root, custom_kind.is_some()))
        .collect();
    let unconvertible: Vec<(&ObjectSite, yaml::ConversionError)> = workloads
        .iter()
        .zip(&converted)
        .filter_map(|((object, _), readable)| readable.as_ref().err().map(|e| (object, e.clone())))
        .collect();
    let context = DocumentContext {
        document,
        objects,
        unconvertible: &unconvertible,
        partial,
        kube: settings.kube_version,
    };
    let mut findings = Findings::default();
    for rule in settings.rules() {
        if let Check::Document(check) = rule.check {
            check(&context, &mut findings);
            for finding in findings.take() {
                out.push(document_finding(rule, settings, document, objects, finding));
            }
        }
    }
    if partial {
        // Object rules do not run on partial objects.
        return false;
    }
    lint_scope_objects(file, document, objects, scope, settings, out);
    let mut complete = document.errors.is_empty();
    for ((object, custom_kind), readable) in workloads.into_iter().zip(converted) {
        let mut visit_object = |pod: Option<(&PodSite<'_>, &Lifecycle<'_>)>,
                                found: &[Diagnostic],
                                spec_path: Option<&FieldPath>,
                                rollout: Option<&Rollout>| {
            visit(Visit::Object(&ObjectVisit {
                file,
                document,
                object: &object,
                pod,
                diagnostics: found,
                spec_path,
                rollout,
            }));
        };
        complete &= match (&custom_kind, readable) {
            // A document rule (yaml-syntax) reported why it could not be read.
            (_, Err(_)) => {
                let first = out.len();
                visit_object(None, &out[first..], None, None);
                false
            }
            (None, Ok(Readable::Tree(tree))) => lint_object(
                document,
                &object,
                &tree,
                settings,
                may_patch,
                &Around { services, scope },
                out,
                &mut visit_object,
            ),
            (Some(kind), Ok(Readable::Json(value))) => lint_custom_object(
                document,
                &object,
                kind,
                &value,
                settings,
                &Around { services, scope },
                out,
                &mut visit_object,
            ),
            // `Readable::new` reads built-in kinds as trees and custom kinds as JSON.
            (None, Ok(Readable::Json(_))) | (Some(_), Ok(Readable::Tree(_))) => false,
        };
        checked.push(object.object);
    }
    complete
}

/// What an object is linted among: the Services of its file, and the budgets and autoscalers
/// of its scope.
struct Around<'a> {
    services: &'a [Service],
    scope: &'a Scope,
}

/// Lints one object, then shows it to `visit` with its pod spec and lifecycle, if any, and
/// the diagnostics so far. Returns false when it could not be read, so its rules did not run.
#[allow(clippy::too_many_arguments)]
fn lint_object(
    document: &Document,
    object: &ObjectSite,
    tree: &ObjectTree<'_>,
    settings: &Settings,
    may_patch: Partial,
    around: &Around<'_>,
    out: &mut Vec<Diagnostic>,
    visit: &mut VisitPod<'_>,
) -> bool {
    let root = tree.root_index();
    if may_patch.directives && has_patch_directives(tree, root) {
        return false;
    }
    // A test framework's expected state (Chainsaw's JMESPath keys) is not an object to apply.
    if may_patch.expressions && has_assertion_expressions(tree, root) {
        return false;
    }
    lint_decoded(
        document,
        object,
        &Decoding {
            tree,
            root,
            kind: object.kind,
            remap: None,
        },
        settings,
        around,
        out,
        visit,
    )
}

/// An object that converts within the YAML layer's limits: a built-in kind's subtree, decoded
/// straight from the document, or a custom kind's object as JSON, from which its pod templates
/// are built.
enum Readable<'d> {
    Tree(ObjectTree<'d>),
    Json(serde_json::Value),
}

impl<'d> Readable<'d> {
    fn new(
        document: &'d Document,
        root: NodeId,
        custom: bool,
    ) -> Result<Self, yaml::ConversionError> {
        if custom {
            yaml::to_json(document, root).map(Readable::Json)
        } else {
            ObjectTree::new(document, root).map(Readable::Tree)
        }
    }
}

/// What to decode for a pod spec: the object itself, or the `PodTemplate` built from a custom
/// kind's template, whose paths `remap` takes back to the object.
struct Decoding<'a> {
    tree: &'a dyn Tree,
    root: u32,
    kind: WorkloadKind,
    remap: Option<&'a FoundTemplate>,
}

impl Decoding<'_> {
    fn path(&self, path: &FieldPath) -> FieldPath {
        match self.remap {
            Some(template) => template.remap(path),
            None => path.clone(),
        }
    }

    fn segments(&self, path: &[PathSegment]) -> Vec<PathSegment> {
        match self.remap {
            Some(template) => template
                .remap(&FieldPath::new(path.to_vec()))
                .segments()
                .to_vec(),
            None => path.to_vec(),
        }
    }
}

/// Lints the pod templates of an object of a custom kind (`model::custom`), each as a pod of
/// the built-in kind whose rules it follows.
#[allow(clippy::too_many_arguments)]
fn lint_custom_object(
    document: &Document,
    object: &ObjectSite,
    kind: &PodTemplateKind,
    value: &serde_json::Value,
    settings: &Settings,
    around: &Around<'_>,
    out: &mut Vec<Diagnostic>,
    visit: &mut VisitPod<'_>,
) -> bool {
    let mut complete = true;
    for template in custom::templates(kind, value) {
        complete &= lint_decoded(
            document,
            object,
            &Decoding {
                tree: &JsonTree::new(&template.object),
                root: 0,
                kind: WorkloadKind::PodTemplate,
                remap: Some(&template),
            },
            settings,
            around,
            out,
            visit,
        );
    }
    complete
}

/// The object rules and the pod rules for one decoded pod spec.
#[allow(clippy::too_many_arguments)]
fn lint_decoded(
    document: &Document,
    object: &ObjectSite,
    decoding: &Decoding<'_>,
    settings: &Settings,
    around: &Around<'_>,
    out: &mut Vec<Diagnostic>,
    visit: &mut VisitPod<'_>,
) -> bool {
    let first = out.len();
    let mut decoded = podcycle_k8s::decode(decoding.kind, decoding.tree, decoding.root);
    let locate = |path: &FieldPath, part: Part| locate(document, object, path, part);
    // The object rules read paths in the object: a built template's are taken back to it, and
    // its fields are judged as the current types they are decoded as (no legacy exemption).
    let as_current;
    let judged = if decoding.remap.is_some() {
        for unknown in &mut decoded.unknown_fields {
            unknown.path = decoding.segments(&unknown.path);
        }
        if let Some(error) = &mut decoded.error {
            error.path = decoding.segments(&error.path);
        }
        let mut current = object.clone();
        current.object.api_version = current.kind.current_api_version().to_owned();
        as_current = current;
        &as_current
    } else {
        object
    };
    let context = ObjectContext {
        document,
        object: judged,
        decoded: &decoded,
        kube: settings.kube_version,
    };
    let mut findings = Findings::default();
    for rule in settings.rules() {
        if let Check::Object(check) = rule.check {
            check(&context, &mut findings);
            for finding in findings.take() {
                out.push(finding_diagnostic(
                    rule, settings, document, object, finding, &locate,
                ));
            }
        }
    }

    // A value of the wrong type stops decoding, and with it the pod rules.
    let Some(workload) = decoded.workload.as_ref() else {
        visit(None, &out[first..], None, None);
        return false;
    };
    let Some(spec) = workload.pod_spec.as_ref() else {
        visit(None, &out[first..], None, None);
        return true;
    };
    let mut site = PodSite::new(
        &object.object,
        object.kind,
        spec,
        workload.has_pod_failure_policy,
    );
    // A custom kind's pods follow its kind's rules; their spec is where the decoding put it.
    site.spec_path = FieldPath::from_keys(decoding.kind.pod_spec_path());
    site.job_active_deadline_seconds = workload.job_active_deadline_seconds;
    let life = Lifecycle::derive(&site, settings.sidecars(), settings.kube_version);
    let selecting: Vec<&Service> = around
        .services
        .iter()
        .filter(|s| s.selects(object.object.namespace.as_deref(), &workload.pod_labels))
        .collect();
    let context = PodContext {
        site: &site,
        life: &life,
        kube: settings.kube_version,
        services: &selecting,
    };
    let mut findings = Findings::default();
    for rule in settings.rules() {
        if let Check::Pod(check) = rule.check {
            check(&context, &mut findings);
            for mut finding in findings.take() {
                if decoding.remap.is_some() {
                    // Paths in the built template: the field stays the object's, and fixes,
                    // written for a plain pod spec, are not offered.
                    finding.at.path = decoding.path(&finding.at.path);
                    for (target, _) in &mut finding.labels {
                        target.path = decoding.path(&target.path);
                    }
                    finding.fixes.clear();
                    crate::rules::refused_by_controller(&mut finding, rule, &object.object.kind);
                }
                out.push(finding_diagnostic(
                    rule, settings, document, object, finding, &locate,
                ));
            }
        }
    }
    let rollout = decoding
        .remap
        .is_none()
        .then(|| {
            Rollout::derive(&RolloutSource {
                object: &object.object,
                kind: object.kind,
                controller: &workload.controller,
                pod_labels: &workload.pod_labels,
                life: &life,
                scope: around.scope,
                kube: settings.kube_version,
            })
        })
        .flatten();
    if let Some(rollout) = &rollout {
        let context = RolloutContext {
            site: &site,
            life: &life,
            rollout,
            kube: settings.kube_version,
            rollout_budget_seconds: settings.rollout_budget_seconds,
        };
        for rule in settings.rules() {
            if let Check::Rollout(check) = rule.check {
                check(&context, &mut findings);
                for finding in findings.take() {
                    out.push(finding_diagnostic(
                        rule, settings, document, object, finding, &locate,
                    ));
                }
            }
        }
    }
    let real_spec_path = decoding.path(&site.spec_path);
    visit(
        Some((&site, &life)),
        &out[first..],
        decoding.remap.map(|_| &real_spec_path),
        rollout.as_ref(),
    );
    true
}

/// The PodDisruptionBudgets and HorizontalPodAutoscalers of a document, judged with the
/// workloads of their scope.
fn lint_scope_objects(
    file: &SourceFile,
    document: &Document,
    objects: &[AnyObject],
    scope: &Scope,
    settings: &Settings,
    out: &mut Vec<Diagnostic>,
) {
    if scope.is_empty() {
        return;
    }
    for object in objects {
        let here =
            |at: &crate::model::scope::Placed| at.is(&file.path, document.index, &object.prefix);
        let target = match (
            scope.budgets().iter().find(|budget| here(&budget.at)),
            scope
                .autoscalers()
                .iter()
                .find(|autoscaler| here(&autoscaler.at)),
        ) {
            (Some(budget), _) => ScopeObject::Budget(budget),
            (None, Some(autoscaler)) => ScopeObject::Autoscaler(autoscaler),
            (None, None) => continue,
        };
        let context = ScopeContext {
            scope,
            object: target,
            kube: settings.kube_version,
        };
        let locate = |path: &FieldPath, part: Part| locate_at(document, &object.prefix, path, part);
        let mut findings = Findings::default();
        for rule in settings.rules() {
            if let Check::Scope(check) = rule.check {
                check(&context, &mut findings);
                for finding in findings.take() {
                    let fixes = finding
                        .fixes
                        .iter()
                        .map(|fix| fix.clone().within(&object.prefix, document.index))
                        .collect();
                    out.push(Diagnostic {
                        object: Some(crate::model::object_ref(document, object)),
                        fixes,
                        ..diagnostic_of(rule, settings, finding, &locate)
                    });
                }
            }
        }
    }
}

/// The span of a field, following the rules in DESIGN: a key or a value where the field
/// exists, else the deepest part of the path that exists (the mapping that lacks the field).
pub fn locate(document: &Document, object: &ObjectSite, path: &FieldPath, part: Part) -> Span {
    locate_at(document, &object.prefix, path, part)
}

/// [`locate`] for the object at `prefix` of the document.
fn locate_at(document: &Document, prefix: &FieldPath, path: &FieldPath, part: Part) -> Span {
    let full = prefix.join(path.segments());
    let Some(root) = document.root else {
        return document.span;
    };
    let located = lookup(document, root, full.segments());
    match (located.complete, part, located.key) {
        (true, Part::Value, _) | (_, _, None) => located.value,
        (_, _, Some(key)) => key,
    }
}

fn finding_diagnostic(
    rule: &'static Rule,
    settings: &Settings,
    document: &Document,
    object: &ObjectSite,
    finding: Finding,
    locate: &impl Fn(&FieldPath, Part) -> Span,
) -> Diagnostic {
    let fixes = finding
        .fixes
        .iter()
        .map(|fix| fix.clone().within(&object.prefix, document.index))
        .collect();
    let unnamed = finding.container.as_deref() == Some("");
    let mut diagnostic = Diagnostic {
        object: Some(object.object.clone()),
        fixes,
        ..diagnostic_of(rule, settings, finding, locate)
    };
    if unnamed {
        name_unnamed_container(&mut diagnostic);
    }
    diagnostic
}

/// Rules quote container names (`` `web` ``); a container without one would read as empty
/// backticks. Say which container it is instead: "the 2nd container".
fn name_unnamed_container(diagnostic: &mut Diagnostic) {
    let Some(field) = &diagnostic.field else {
        return;
    };
    let mut which = None;
    for list in ["initContainers", "ephemeralContainers", "containers"] {
        let needle = format!("{list}[");
        let at = field
            .match_indices(&needle)
            .map(|(at, _)| at)
            .filter(|&at| at == 0 || field.as_bytes()[at - 1] == b'.')
            .last();
        let index = at.and_then(|at| {
            field[at + needle.len()..]
                .split(']')
                .next()
                .and_then(|i| i.parse::<usize>().ok())
        });
        if let Some(index) = index {
            which = Some(crate::rules::ordinal_container(list, index));
            break;
        }
    }
    let Some(which) = which else {
        return;
    };
    let replace = |text: &mut String| {
        if text.contains("``") {
            *text = text.replace("``", &which);
        }
    };
    replace(&mut diagnostic.message);
    if let Some(help) = diagnostic.help.as_mut() {
        replace(help);
    }
    for label in &mut diagnostic.labels {
        replace(&mut label.message);
    }
    for note in &mut diagnostic.notes {
        replace(note);
    }
}

/// The diagnostic of a document rule's finding: placed by span, or by a path from the
/// document's root; about the object the path is in, if any.
fn document_finding(
    rule: &'static Rule,
    settings: &Settings,
    document: &Document,
    objects: &[AnyObject],
    finding: Finding,
) -> Diagnostic {
    let locate = |path: &FieldPath, part: Part| {
        let Some(root) = document.root else {
            return document.span;
        };
        let located = lookup(document, root, path.segments());
        match (located.complete, part, located.key) {
            (true, Part::Value, _) | (_, _, None) => located.value,
            (_, _, Some(key)) => key,
        }
    };
    let object = (!finding.no_field)
        .then(|| {
            objects.iter().rev().find(|object| {
                finding
                    .at
                    .path
                    .segments()
                    .starts_with(object.prefix.segments())
            })
        })
        .flatten()
        .map(|object| crate::model::object_ref(document, object));
    Diagnostic {
        object,
        ..diagnostic_of(rule, settings, finding, &locate)
    }
}

/// A finding as a diagnostic, its places looked up with `locate` unless it gives a span.
fn diagnostic_of(
    rule: &'static Rule,
    settings: &Settings,
    finding: Finding,
    locate: &dyn Fn(&FieldPath, Part) -> Span,
) -> Diagnostic {
    let Finding {
        at: Target { path, part },
        message,
        help,
        labels,
        notes,
        container,
        severity,
        enforcement,
        fixes: _,
        span,
        span_labels,
        no_field,
        claims: _,
    } = finding;
    Diagnostic {
        rule: rule.name,
        severity: severity.unwrap_or_else(|| settings.severity(rule)),
        enforcement: enforcement.unwrap_or(rule.enforcement),
        message,
        help,
        notes,
        span: span.unwrap_or_else(|| locate(&path, part)),
        labels: labels
            .into_iter()
            .map(|(target, message)| Label::new(locate(&target.path, target.part), message))
            .chain(
                span_labels
                    .into_iter()
                    .map(|(span, message)| Label::new(span, message)),
            )
            .collect(),
        object: None,
        container,
        field: (!no_field).then(|| path.to_string()),
        fixes: Vec::new(),
        rendered: None,
    }
}

fn document_diagnostic(
    rule: &'static Rule,
    settings: &Settings,
    span: Span,
    message: String,
    help: Option<String>,
) -> Diagnostic {
    Diagnostic {
        help,
        ..Diagnostic::new(
            rule.name,
            settings.severity(rule),
            rule.enforcement,
            span,
            message,
        )
    }
}
