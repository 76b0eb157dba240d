//! The pipeline for one file: YAML tree → objects → typed pod specs → lifecycle → rules →
//! diagnostics with spans. Free of I/O, so the command line, tests and benchmarks share it.

use crate::diagnostics::{self, Diagnostic, Label};
use crate::lifecycle::Lifecycle;
use crate::model::custom::{self, FoundTemplate, PodTemplateKind};
use crate::model::patch::{PATCH_DIRECTIVES, has_assertion_expressions, has_patch_directives};
use crate::model::path::FieldPath;
use crate::model::services::{Service, pod_labels, services_in};
use crate::model::{
    AnyObject, ObjectRef, ObjectSite, PodSite, WorkloadKind, custom_workloads_among, objects,
    workloads_among,
};
use crate::rules::{Check, Finding, Findings, Part, PodContext, Rule, Target};
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use crate::suggest::did_you_mean_help;
use crate::suppression::{
    COMMENT_PREFIX, IGNORE_ANNOTATION, KUBE_LINTER_ANNOTATION_PREFIX, Suppressions,
};
use crate::yaml::{self, Comments, Document, lookup};

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
/// findings so far, and where the pod spec is when the site does not say (custom kinds).
type VisitPod<'v> = dyn FnMut(Option<PodParts<'_>>, &[Diagnostic], Option<&FieldPath>) + 'v;

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

/// Lints one file like [`lint_file_as`], showing `visit` every workload object on the way, and
/// applies the file's suppressions. Documents are read one at a time, so a large stream never
/// holds more than one tree.
pub fn lint_file_with(
    file: &SourceFile,
    settings: &Settings,
    role: FileRole,
    visit: &mut dyn FnMut(&ObjectVisit<'_>),
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
            &mut found,
            &mut linted.objects,
            visit,
        );
        if may_suppress {
            apply_suppressions(file, &document, &objects, settings, complete, &mut found);
        }
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
    let Some(rule) = settings.enabled(crate::rules::UNUSED_SUPPRESSION.name) else {
        return;
    };
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
    let rule = settings.enabled("yaml-syntax")?;
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
    out: &mut Vec<Diagnostic>,
    checked: &mut Vec<ObjectRef>,
    visit: &mut dyn FnMut(&ObjectVisit<'_>),
) -> bool {
    if let Some(rule) = settings.enabled("yaml-syntax") {
        for error in &document.errors {
            out.push(document_diagnostic(
                rule,
                settings,
                error.span,
                error.message.clone(),
                None,
            ));
        }
    }
    if let Some(rule) = settings.enabled("duplicate-key") {
        for duplicate in &document.duplicate_keys {
            let mut diagnostic = document_diagnostic(
                rule,
                settings,
                duplicate.second,
                format!("duplicate key `{}`", duplicate.key),
                Some("write the key once; kubectl rejects the document and other tools keep only the last value".to_owned()),
            );
            diagnostic.labels.push(Label::new(
                duplicate.first,
                format!("`{}` is first written here", duplicate.key),
            ));
            out.push(diagnostic);
        }
    }
    if role == FileRole::Patch {
        // Object rules do not run on partial objects.
        return false;
    }
    let mut complete = document.errors.is_empty();
    for object in workloads_among(document, objects) {
        let mut visit_object = |pod: Option<(&PodSite<'_>, &Lifecycle<'_>)>,
                                found: &[Diagnostic],
                                spec_path: Option<&FieldPath>| {
            visit(&ObjectVisit {
                file,
                document,
                object: &object,
                pod,
                diagnostics: found,
                spec_path,
            });
        };
        complete &= lint_object(
            document,
            &object,
            settings,
            may_patch,
            services,
            out,
            &mut visit_object,
        );
        checked.push(object.object);
    }
    for (object, kind) in custom_workloads_among(document, objects, settings.pod_templates()) {
        let mut visit_object = |pod: Option<(&PodSite<'_>, &Lifecycle<'_>)>,
                                found: &[Diagnostic],
                                spec_path: Option<&FieldPath>| {
            visit(&ObjectVisit {
                file,
                document,
                object: &object,
                pod,
                diagnostics: found,
                spec_path,
            });
        };
        complete &= lint_custom_object(
            document,
            &object,
            &kind,
            settings,
            services,
            out,
            &mut visit_object,
        );
        checked.push(object.object);
    }
    complete
}

/// Lints one object, then shows it to `visit` with its pod spec and lifecycle, if any, and
/// the diagnostics so far. Returns false when it could not be read, so its rules did not run.
fn lint_object(
    document: &Document,
    object: &ObjectSite,
    settings: &Settings,
    may_patch: Partial,
    services: &[Service],
    out: &mut Vec<Diagnostic>,
    visit: &mut VisitPod<'_>,
) -> bool {
    let first = out.len();
    let value = match yaml::to_json(document, object.root) {
        Ok(value) => value,
        Err(error) => {
            if let Some(rule) = settings.enabled("yaml-syntax") {
                out.push(document_diagnostic(
                    rule,
                    settings,
                    error.span,
                    error.message,
                    None,
                ));
            }
            visit(None, &out[first..], None);
            return false;
        }
    };
    if may_patch.directives && has_patch_directives(&value) {
        return false;
    }
    // A test framework's expected state (Chainsaw's JMESPath keys) is not an object to apply.
    if may_patch.expressions && has_assertion_expressions(&value) {
        return false;
    }
    lint_decoded(
        document,
        object,
        &Decoding {
            value: &value,
            kind: object.kind,
            remap: None,
        },
        settings,
        services,
        out,
        visit,
    )
}

/// What to decode for a pod spec: the object itself, or the `PodTemplate` built from a custom
/// kind's template, whose paths `remap` takes back to the object.
struct Decoding<'a> {
    value: &'a serde_json::Value,
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
}

/// Lints the pod templates of an object of a custom kind (`model::custom`), each as a pod of
/// the built-in kind whose rules it follows.
#[allow(clippy::too_many_arguments)]
fn lint_custom_object(
    document: &Document,
    object: &ObjectSite,
    kind: &PodTemplateKind,
    settings: &Settings,
    services: &[Service],
    out: &mut Vec<Diagnostic>,
    visit: &mut VisitPod<'_>,
) -> bool {
    let value = match yaml::to_json(document, object.root) {
        Ok(value) => value,
        // The object's syntax is reported with the document's.
        Err(_) => return false,
    };
    let mut complete = true;
    for template in custom::templates(kind, &value) {
        complete &= lint_decoded(
            document,
            object,
            &Decoding {
                value: &template.object,
                kind: WorkloadKind::PodTemplate,
                remap: Some(&template),
            },
            settings,
            services,
            out,
            visit,
        );
    }
    complete
}

/// The typed checks and the pod rules for one decoded pod spec.
#[allow(clippy::too_many_arguments)]
fn lint_decoded(
    document: &Document,
    object: &ObjectSite,
    decoding: &Decoding<'_>,
    settings: &Settings,
    services: &[Service],
    out: &mut Vec<Diagnostic>,
    visit: &mut VisitPod<'_>,
) -> bool {
    let first = out.len();
    let value = decoding.value;
    let decoded = podcycle_k8s::decode(decoding.kind, value);
    let locate =
        |path: &FieldPath, part: Part| locate(document, object, &decoding.path(path), part);

    if let Some(rule) = settings.enabled("unknown-field") {
        let legacy = decoding.remap.is_none()
            && object.object.api_version != object.kind.current_api_version();
        let pod_spec_path = FieldPath::from_keys(object.kind.pod_spec_path());
        for unknown in &decoded.unknown_fields {
            let path = FieldPath::new(unknown.path.clone());
            // Legacy API versions had fields of their own outside the pod template.
            if legacy && !path.segments().starts_with(pod_spec_path.segments()) {
                continue;
            }
            let Some(podcycle_k8s::PathSegment::Key(name)) = unknown.path.last() else {
                continue;
            };
            let help = did_you_mean_help(name, unknown.known_fields).unwrap_or_else(|| {
                format!(
                    "remove it; `{}` has no field of that name",
                    unknown.type_name
                )
            });
            out.push(object_diagnostic(
                rule,
                settings,
                object,
                locate(&path, Part::Key),
                format!("unknown field `{name}` in {}", unknown.type_name),
                Some(help),
                Some(decoding.path(&path).to_string()),
            ));
        }
    }
    if let (Some(error), Some(rule)) = (&decoded.error, settings.enabled("invalid-type")) {
        let path = FieldPath::new(error.path.clone());
        // A wrong scalar is underlined; a wrong mapping or list is pointed at by its key, so
        // the finding does not cover the whole block.
        let part = if value_is_collection(document, object, &decoding.path(&path)) {
            Part::Key
        } else {
            Part::Value
        };
        let span = locate(&path, part);
        let help = type_error_help(&error.message);
        out.push(object_diagnostic(
            rule,
            settings,
            object,
            span,
            friendly_type_error(&error.message),
            help,
            Some(decoding.path(&path).to_string()),
        ));
    }

    // A value of the wrong type stops decoding, and with it the pod rules.
    let Some(workload) = decoded.workload.as_ref() else {
        visit(None, &out[first..], None);
        return false;
    };
    let Some(spec) = workload.pod_spec.as_ref() else {
        visit(None, &out[first..], None);
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
    let life = Lifecycle::derive(&site, settings.sidecars());
    let selecting: Vec<&Service> = match pod_labels(decoding.kind, value) {
        Some(labels) => services
            .iter()
            .filter(|s| s.selects(object.object.namespace.as_deref(), labels))
            .collect(),
        None => Vec::new(),
    };
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
                }
                let locate_real =
                    |path: &FieldPath, part: Part| self::locate(document, object, path, part);
                out.push(finding_diagnostic(
                    rule,
                    settings,
                    document,
                    object,
                    finding,
                    &locate_real,
                ));
            }
        }
    }
    let real_spec_path = decoding.path(&site.spec_path);
    visit(
        Some((&site, &life)),
        &out[first..],
        decoding.remap.map(|_| &real_spec_path),
    );
    true
}

/// The span of a field, following the rules in DESIGN: a key or a value where the field
/// exists, else the deepest part of the path that exists (the mapping that lacks the field).
pub fn locate(document: &Document, object: &ObjectSite, path: &FieldPath, part: Part) -> Span {
    let full = object.prefix.join(path.segments());
    let Some(root) = document.root else {
        return document.span;
    };
    let located = lookup(document, root, full.segments());
    match (located.complete, part, located.key) {
        (true, Part::Value, _) | (_, _, None) => located.value,
        (_, _, Some(key)) => key,
    }
}

fn value_is_collection(document: &Document, object: &ObjectSite, path: &FieldPath) -> bool {
    let full = object.prefix.join(path.segments());
    document.root.is_some_and(|root| {
        let located = lookup(document, root, full.segments());
        located.complete && document.scalar(located.node).is_none()
    })
}

fn finding_diagnostic(
    rule: &'static Rule,
    settings: &Settings,
    document: &Document,
    object: &ObjectSite,
    finding: Finding,
    locate: &impl Fn(&FieldPath, Part) -> Span,
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
        fixes,
    } = finding;
    Diagnostic {
        rule: rule.name,
        severity: severity.unwrap_or_else(|| settings.severity(rule)),
        enforcement: enforcement.unwrap_or(rule.enforcement),
        message,
        help,
        notes,
        span: locate(&path, part),
        labels: labels
            .into_iter()
            .map(|(target, message)| Label::new(locate(&target.path, target.part), message))
            .collect(),
        object: Some(object.object.clone()),
        container,
        field: Some(path.to_string()),
        fixes: fixes
            .into_iter()
            .map(|fix| fix.within(&object.prefix, document.index))
            .collect(),
        rendered: None,
    }
}

fn object_diagnostic(
    rule: &'static Rule,
    settings: &Settings,
    object: &ObjectSite,
    span: Span,
    message: String,
    help: Option<String>,
    field: Option<String>,
) -> Diagnostic {
    Diagnostic {
        object: Some(object.object.clone()),
        field,
        ..document_diagnostic(rule, settings, span, message, help)
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
        rule: rule.name,
        severity: settings.severity(rule),
        enforcement: rule.enforcement,
        message,
        help,
        notes: Vec::new(),
        span,
        labels: Vec::new(),
        object: None,
        container: None,
        field: None,
        fixes: Vec::new(),
        rendered: None,
    }
}

/// serde's messages name Rust types; say what Kubernetes expects instead.
pub(crate) fn friendly_type_error(message: &str) -> String {
    let mut text = message.to_owned();
    for (rust, kubernetes) in [
        ("expected i32", "expected an integer"),
        ("expected i64", "expected an integer"),
        ("expected u32", "expected a non-negative integer"),
        ("expected u64", "expected a non-negative integer"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected `true` or `false`"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected a mapping"),
        ("expected struct ", "expected a mapping ("),
    ] {
        if let Some(at) = text.find(rust) {
            let closing = if kubernetes.ends_with('(') { ")" } else { "" };
            text = format!(
                "{}{kubernetes}{}{closing}",
                &text[..at],
                &text[at + rust.len()..]
            );
            break;
        }
    }
    text
}

/// A concrete fix for the two type errors YAML makes easy: a quoted number and a YAML 1.1
/// boolean where a string belongs.
fn type_error_help(message: &str) -> Option<String> {
    if message.starts_with("invalid type: string") && message.contains("expected i") {
        return Some("write the number without quotes".to_owned());
    }
    if message.starts_with("invalid type: boolean") && message.contains("expected a string") {
        return Some("quote the value: YAML reads unquoted `yes`, `no`, `on`, `off`, `true` and `false` as booleans".to_owned());
    }
    if message.starts_with("invalid type: integer") && message.contains("expected a string") {
        return Some("quote the value to keep it a string".to_owned());
    }
    None
}
