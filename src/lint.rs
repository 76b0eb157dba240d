//! The pipeline for one file: YAML tree → objects → typed pod specs → lifecycle → rules →
//! diagnostics with spans. Free of I/O, so every front end, the tests and the benchmarks share
//! it. `FileLint` holds what every step of one file needs, `DocumentLint` what every step of
//! one of its documents needs, `ObjectLint` what every step of one of its objects needs.

use crate::diagnostics::{self, Diagnostic, Label};
use crate::fix::Placement;
use crate::lifecycle::Lifecycle;
use crate::lifecycle::rollout::{Rollout, RolloutSource};
use crate::model::custom::{self, FoundTemplate, PodTemplateKind};
use crate::model::patch::{PATCH_DIRECTIVES, has_assertion_expressions, has_patch_directives};
use crate::model::path::FieldPath;
use crate::model::path::PathSegment;
use crate::model::scope::{Scope, ScopeMember, may_hold_scope};
use crate::model::services::{Service, services_in};
use crate::model::tree::ObjectTree;
use crate::model::{
    AnyObject, ObjectRef, ObjectSite, PodSite, WorkloadKind, custom_workloads_among, objects,
    workloads_among,
};
use crate::rules::{
    Check, DocumentContext, Finding, Findings, ObjectContext, Part, PodContext, Position,
    RolloutContext, Rule, ScopeContext, ScopeObject,
};
use crate::settings::Settings;
use crate::source::{SourceFile, Span};
use crate::suppression::{
    COMMENT_PREFIX, IGNORE_ANNOTATION, KUBE_LINTER_ANNOTATION_PREFIX, Suppressions,
};
use crate::yaml::{self, Comments, Document, NodeId, lookup};
use podcycle_k8s::{JsonTree, Tree};
use std::collections::HashMap;
use std::sync::Arc;

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

/// A pod spec and the lifecycle derived from it.
pub(crate) type PodParts<'a> = (&'a PodSite<'a>, &'a Lifecycle<'a>);

/// A workload object met while linting, for callers that need more than diagnostics (the
/// explain command): its pod spec and lifecycle when they could be read, and its findings.
pub struct ObjectVisit<'a> {
    pub(crate) file: &'a SourceFile,
    pub document: &'a Document,
    pub object: &'a ObjectSite,
    /// `None` when the object has no pod spec or it could not be decoded.
    pub pod: Option<PodParts<'a>>,
    /// The diagnostics found in this object, unsorted.
    pub diagnostics: &'a [Diagnostic],
    /// Where the pod spec is in the object, when it is not where `pod`'s site says (the pod
    /// templates of custom kinds are decoded from a `PodTemplate` built from them).
    pub(crate) spec_path: Option<&'a FieldPath>,
    /// The rollout of a workload controller (`None` for a Pod, a PodTemplate or a custom kind).
    pub rollout: Option<&'a Rollout>,
    /// The platforms the settings name (`platforms:`, `--platform`), for `explain`'s cuts.
    pub(crate) platforms: &'a [&'static crate::lifecycle::platforms::Platform],
}

/// What [`lint_file`] shows its visitor on the way.
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
    pub(crate) objects: Vec<ObjectRef>,
    /// Where the file's first syntax error is (a byte offset), if it has one.
    pub(crate) first_syntax_error: Option<usize>,
}

/// The objects a file's PodDisruptionBudgets and HorizontalPodAutoscalers are matched with.
#[derive(Clone, Copy, Debug)]
pub enum Within<'s> {
    /// The file is its own scope: its budgets and autoscalers are matched with its workloads.
    Itself,
    /// The objects applied with the file — a rendered chart or overlay, a directory — known
    /// before the file is read (the editor's index, a directory whose parts were joined), the
    /// file's own among them.
    Scope(&'s Scope),
}

impl<'s> From<Option<&'s Scope>> for Within<'s> {
    /// `None`: the file is its own scope.
    fn from(scope: Option<&'s Scope>) -> Within<'s> {
        scope.map_or(Within::Itself, Within::Scope)
    }
}

/// Lints one file — as manifests or as patches, `within` the scope of the objects applied with
/// it — showing `visit` every workload object and the end of every document on the way, and
/// applies the file's suppressions: the one way to lint a file, for every front end, the
/// tests and the benchmarks. Documents are read one at a time, so a large stream never holds
/// more than one tree, and each is parsed once: a file that is its own scope and holds budgets
/// or autoscalers is linted in the two phases of a scope read with its files (`read_file`,
/// then `FileRead::finish` with its own part matched), the others in one.
pub fn lint_file(
    file: &SourceFile,
    settings: &Settings,
    role: FileRole,
    within: Within<'_>,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> Linted {
    match within {
        Within::Itself if role == FileRole::Manifest && may_hold_scope(&file.text) => {
            let mut read = read_file(file, settings, role);
            let scope = read.take_part().matched();
            read.finish(file, settings, role, &scope, visit)
        }
        Within::Itself => lint_in_scope(file, settings, role, &Scope::default(), visit),
        Within::Scope(scope) => lint_in_scope(file, settings, role, scope, visit),
    }
}

/// Lints one file in one pass, within a scope that is whole.
fn lint_in_scope(
    file: &SourceFile,
    settings: &Settings,
    role: FileRole,
    scope: &Scope,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> Linted {
    let mut linted = Linted::default();
    let lint = FileLint::new(file, settings, role, scope);
    let mut with_comments = None;
    yaml::for_each_document_with(&file.text, lint.marks.comments, |document| {
        let objects = objects(&document);
        lint_document(
            &lint,
            &document,
            &objects,
            &mut with_comments,
            &mut linted,
            visit,
        );
    });
    diagnostics::sort(&mut linted.diagnostics);
    linted
}

/// A document of a file read before its scope is whole.
enum ReadDocument {
    /// Nothing in it depends on the scope: linted at once, its tree dropped.
    Linted(Linted),
    /// It holds a workload, a budget or an autoscaler: kept, tree and objects, until the
    /// scope is whole.
    Waiting(Box<(Document, Vec<AnyObject>)>),
}

/// The first phase of a file whose scope is read with it ([`read_file`]): its documents, in
/// order, and its part of the scope. [`lint_file`] runs both phases for a file that is its own
/// scope; a directory judged together runs the first for each of its files, joins their parts
/// ([`Scope::union`]), then runs the second.
pub(crate) struct FileRead {
    documents: Vec<ReadDocument>,
    /// The file's part of the scope, not yet matched.
    part: Scope,
    /// The file parsed with its comments, when a fix needed it ([`place_fixes`]).
    with_comments: Option<Vec<Document>>,
    /// Where the file's first syntax error is (a byte offset), if it has one.
    first_syntax_error: Option<usize>,
    /// What the first look at the text found, for the second phase too.
    marks: Marks,
}

/// Reads a file of a scope that is not yet whole, parsing each document once: its objects
/// are added to the file's part of the scope, and a document the scope cannot change is
/// linted at once; one that holds a workload, a budget or an autoscaler keeps its tree (the
/// small documents of a manifest set: a large CustomResourceDefinition is linted and dropped)
/// until [`FileRead::finish`] lints it with the whole scope. Patches have no scope.
pub(crate) fn read_file(file: &SourceFile, settings: &Settings, role: FileRole) -> FileRead {
    let empty = Scope::default();
    let lint = FileLint::new(file, settings, role, &empty);
    let name: Arc<str> = Arc::from(file.path.as_str());
    let kinds = settings.pod_templates();
    let mut documents = Vec::new();
    let mut part = Scope::default();
    let mut with_comments = None;
    let mut first_error = None;
    yaml::for_each_document_with(&file.text, lint.marks.comments, |document| {
        if first_error.is_none() {
            first_error = first_syntax_error(&document);
        }
        let objects = objects(&document);
        let waits = role == FileRole::Manifest
            && part.add_document(
                file,
                &name,
                &document,
                &objects,
                kinds,
                settings.kube_version,
            );
        if waits {
            documents.push(ReadDocument::Waiting(Box::new((document, objects))));
        } else {
            let mut linted = Linted::default();
            lint_document(
                &lint,
                &document,
                &objects,
                &mut with_comments,
                &mut linted,
                &mut |_| {},
            );
            documents.push(ReadDocument::Linted(linted));
        }
    });
    FileRead {
        documents,
        part,
        with_comments,
        first_syntax_error: first_error,
        marks: lint.marks,
    }
}

impl FileRead {
    /// The file's part of the scope, to match alone (`Scope::matched`) or join with the
    /// other files' ([`Scope::union`]); what is left is empty.
    pub(crate) fn take_part(&mut self) -> Scope {
        std::mem::take(&mut self.part)
    }

    /// Where the file's first syntax error is (a byte offset), if it has one.
    pub(crate) fn first_syntax_error(&self) -> Option<usize> {
        self.first_syntax_error
    }

    /// The second phase: lints the documents that waited, within `scope`, which holds the
    /// file's part, and shows `visit` every document in file order, as [`lint_file`] does.
    /// `file`, `settings` and `role` are those it was read with.
    pub(crate) fn finish(
        mut self,
        file: &SourceFile,
        settings: &Settings,
        role: FileRole,
        scope: &Scope,
        visit: &mut dyn FnMut(Visit<'_, '_>),
    ) -> Linted {
        // The text's marks were found in the first phase: not searched for again.
        let lint = FileLint {
            file,
            settings,
            role,
            marks: self.marks,
            scope,
        };
        let mut linted = Linted {
            first_syntax_error: self.first_syntax_error,
            ..Linted::default()
        };
        for document in self.documents {
            match document {
                ReadDocument::Linted(mut done) => {
                    // No workload in it, so nothing to show but its end.
                    visit(Visit::DocumentEnd(&done.diagnostics));
                    linted.diagnostics.append(&mut done.diagnostics);
                    linted.objects.append(&mut done.objects);
                }
                ReadDocument::Waiting(waiting) => lint_document(
                    &lint,
                    &waiting.0,
                    &waiting.1,
                    &mut self.with_comments,
                    &mut linted,
                    visit,
                ),
            }
        }
        diagnostics::sort(&mut linted.diagnostics);
        linted
    }
}

/// Where a document's first syntax error is, a byte offset of the file; an error of size
/// (a document too large to read) says nothing of its syntax.
fn first_syntax_error(document: &Document) -> Option<usize> {
    document
        .errors
        .iter()
        .find(|error| !error.too_large)
        .map(|error| error.span.start as usize)
}

/// Lints one document of a file with the file's lint, adding what it finds to `linted`.
fn lint_document(
    lint: &FileLint<'_>,
    document: &Document,
    objects: &[AnyObject],
    with_comments: &mut Option<Vec<Document>>,
    linted: &mut Linted,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) {
    if linted.first_syntax_error.is_none() {
        linted.first_syntax_error = first_syntax_error(document);
    }
    let mut document_lint = DocumentLint {
        file: lint,
        document,
        objects,
        found: Vec::new(),
    };
    let complete = document_lint.run(&mut linted.objects, visit);
    let mut found = document_lint.found;
    if lint.marks.may_suppress {
        apply_suppressions(
            lint.file,
            document,
            objects,
            lint.settings,
            complete,
            &mut found,
        );
    }
    place_fixes(lint, document, with_comments, &mut found);
    visit(Visit::DocumentEnd(&found));
    linted.diagnostics.append(&mut found);
}

/// Places the fixes of a document's findings in the text while its tree is at hand, so that no
/// format parses the file again to show them. An edit keeps the comments inside what it
/// replaces: when the document was read without its comments and an edit replaces text with a
/// `#` in it, the fix is placed again on the file read with them (`with_comments`, read once).
fn place_fixes(
    lint: &FileLint<'_>,
    document: &Document,
    with_comments: &mut Option<Vec<Document>>,
    found: &mut [Diagnostic],
) {
    let file = lint.file;
    for fix in found.iter_mut().flat_map(|d| &mut d.fixes) {
        fix.place(&file.text, &file.lines, document);
        let Placement::At(edits) = &fix.placement else {
            continue;
        };
        let may_hold_comments = || {
            edits
                .iter()
                .any(|edit| file.text.as_bytes()[edit.span.range()].contains(&b'#'))
        };
        if lint.marks.comments == Comments::Skip && may_hold_comments() {
            let documents = with_comments.get_or_insert_with(|| yaml::parse_stream(&file.text));
            match documents.get(document.index) {
                Some(document) => fix.place(&file.text, &file.lines, document),
                None => fix.placement = Placement::Nowhere,
            }
        }
    }
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
pub(crate) fn invalid_utf8(
    settings: &Settings,
    text: &str,
    valid_up_to: usize,
) -> Option<Diagnostic> {
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
        && crate::text::contains(&file.text, "Service")
    {
        yaml::for_each_document_with(&file.text, Comments::Skip, |document| {
            services.extend(services_in(&document));
        });
    }
    services
}

/// What a first look at a file's text found, once per file: which of the rarely used
/// features it may hold, and its Services.
struct Marks {
    /// Only `# podcycle: …` comments matter (suppressions): most files have none.
    comments: Comments,
    /// The file may hold suppression comments or annotations.
    may_suppress: bool,
    /// The marks of partial objects the text may hold.
    may_patch: Partial,
    /// The Services of the file, read in a first pass when an enabled rule needs them.
    services: Vec<Service>,
}

impl Marks {
    /// Most files have no suppression comments or annotations, nor patch directives: what
    /// cannot apply is skipped. Each search is of the whole text, so the rare words are
    /// looked for only where a word or byte they all hold occurs (`podcycle`, `$`).
    fn of(file: &SourceFile, settings: &Settings, role: FileRole) -> Marks {
        let has = |needle: &str| crate::text::contains(&file.text, needle);
        let names_podcycle = has("podcycle");
        let comments = if names_podcycle && has(COMMENT_PREFIX) {
            Comments::Keep
        } else {
            Comments::Skip
        };
        let dollar = memchr::memchr(b'$', file.text.as_bytes()).is_some();
        Marks {
            comments,
            may_suppress: comments == Comments::Keep
                || (names_podcycle && has(IGNORE_ANNOTATION))
                || has(KUBE_LINTER_ANNOTATION_PREFIX),
            may_patch: Partial {
                directives: dollar && PATCH_DIRECTIVES.iter().any(|d| has(d)),
                expressions: has("):") || (dollar && has("($")),
            },
            services: file_services(file, settings, role),
        }
    }
}

/// What linting one file needs at every step: the file and how it is linted, and what a first
/// look at its text found.
struct FileLint<'f> {
    file: &'f SourceFile,
    settings: &'f Settings,
    role: FileRole,
    marks: Marks,
    /// The objects applied with the file's: the budgets and autoscalers its workloads are
    /// matched with.
    scope: &'f Scope,
}

impl<'f> FileLint<'f> {
    fn new(
        file: &'f SourceFile,
        settings: &'f Settings,
        role: FileRole,
        scope: &'f Scope,
    ) -> FileLint<'f> {
        FileLint {
            file,
            settings,
            role,
            marks: Marks::of(file, settings, role),
            scope,
        }
    }
}

/// One document being linted, and what was found in it so far.
struct DocumentLint<'l, 'f> {
    file: &'l FileLint<'f>,
    document: &'l Document,
    /// Every object of the document.
    objects: &'l [AnyObject],
    found: Vec<Diagnostic>,
}

/// A workload object ready for its rules: a built-in kind's subtree, decoded straight from the
/// document, or a custom kind's object as JSON, from which its pod templates are built.
enum Readable<'d> {
    BuiltIn(ObjectTree<'d>),
    Custom(PodTemplateKind, serde_json::Value),
}

impl<'d> Readable<'d> {
    /// Checks the object against the limits of conversion (alias expansion, depth).
    fn new(
        document: &'d Document,
        root: NodeId,
        custom: Option<PodTemplateKind>,
    ) -> Result<Self, yaml::ConversionError> {
        match custom {
            None => ObjectTree::new(document, root).map(Readable::BuiltIn),
            Some(kind) => yaml::to_json(document, root).map(|value| Readable::Custom(kind, value)),
        }
    }
}

impl DocumentLint<'_, '_> {
    fn settings(&self) -> &Settings {
        self.file.settings
    }

    /// Lints the document; returns whether every object in it could be read (so every rule
    /// ran).
    fn run(&mut self, checked: &mut Vec<ObjectRef>, visit: &mut dyn FnMut(Visit<'_, '_>)) -> bool {
        let partial = self.file.role == FileRole::Patch;
        // Built-in workloads, then objects of custom kinds with their kind.
        let workloads: Vec<(ObjectSite, Option<PodTemplateKind>)> = if partial {
            Vec::new()
        } else {
            workloads_among(self.document, self.objects)
                .into_iter()
                .map(|site| (site, None))
                .chain(
                    custom_workloads_among(
                        self.document,
                        self.objects,
                        self.settings().pod_templates(),
                    )
                    .into_iter()
                    .map(|(site, kind)| (site, Some(kind))),
                )
                .collect()
        };
        // Each object is checked once against the limits of conversion; the document rules
        // see those that fail.
        let readable: Vec<(ObjectSite, Result<Readable<'_>, yaml::ConversionError>)> = workloads
            .into_iter()
            .map(|(object, custom)| {
                let readable = Readable::new(self.document, object.root, custom);
                (object, readable)
            })
            .collect();
        let unconvertible: Vec<(&ObjectSite, yaml::ConversionError)> = readable
            .iter()
            .filter_map(|(object, readable)| readable.as_ref().err().map(|e| (object, e.clone())))
            .collect();
        let context = DocumentContext {
            document: self.document,
            objects: self.objects,
            unconvertible: &unconvertible,
            partial,
            kube: self.settings().kube_version,
        };
        let settings = self.file.settings;
        run_checks(settings, document_check, &context, &mut |rule, finding| {
            let diagnostic = self.document_diagnostic(rule, finding);
            self.found.push(diagnostic);
        });
        if partial {
            // Object rules do not run on partial objects.
            return false;
        }
        self.scope_objects();
        let mut complete = self.document.errors.is_empty();
        for (object, readable) in readable {
            let mut lint = ObjectLint {
                document: self,
                object: &object,
                visit: &mut *visit,
            };
            complete &= match readable {
                // A document rule (yaml-syntax) reported why it could not be read.
                Err(_) => {
                    lint.show(None, lint.document.found.len(), None, None);
                    false
                }
                Ok(Readable::BuiltIn(tree)) => lint.built_in(&tree),
                Ok(Readable::Custom(kind, value)) => lint.custom(&kind, &value),
            };
            checked.push(object.object);
        }
        complete
    }

    /// Runs the scope rules on the PodDisruptionBudgets and HorizontalPodAutoscalers of the
    /// document, each judged with the workloads of its scope.
    fn scope_objects(&mut self) {
        let scope = self.file.scope;
        if scope.is_empty() {
            return;
        }
        let settings = self.file.settings;
        let members = scope.members_in(&self.file.file.path, self.document.index);
        if members.is_empty() {
            return;
        }
        // The document's budgets and autoscalers by their place in it, so that a `List` of
        // many is matched with its items in one pass, not each item with every member.
        let by_prefix: HashMap<&FieldPath, ScopeObject<'_>> = members
            .iter()
            .map(|member| match *member {
                ScopeMember::Budget(b) => {
                    let budget = &scope.budgets()[b];
                    (&budget.at.prefix, ScopeObject::Budget(budget))
                }
                ScopeMember::Autoscaler(a) => {
                    let autoscaler = &scope.autoscalers()[a];
                    (&autoscaler.at.prefix, ScopeObject::Autoscaler(autoscaler))
                }
            })
            .collect();
        for object in self.objects {
            let Some(&target) = by_prefix.get(&object.prefix) else {
                continue;
            };
            let context = ScopeContext {
                scope,
                object: target,
                kube: settings.kube_version,
                platforms: &settings.platforms,
            };
            let document = self.document;
            run_checks(settings, scope_check, &context, &mut |rule, finding| {
                let fixes = finding
                    .fixes
                    .iter()
                    .map(|fix| fix.clone().within(&object.prefix, document.index))
                    .collect();
                self.found.push(Diagnostic {
                    object: Some(crate::model::object_ref(document, object)),
                    fixes,
                    ..diagnostic_of(rule, settings, finding, &|path, part| {
                        locate(document, &object.prefix.join(path.segments()), part)
                    })
                });
            });
        }
    }

    /// The diagnostic of a document rule's finding, placed by path from the document's root
    /// or by span; about the object its field is in, if any.
    fn document_diagnostic(&self, rule: &'static Rule, finding: Finding) -> Diagnostic {
        let object = finding
            .position
            .field()
            .and_then(|field| {
                self.objects
                    .iter()
                    .rev()
                    .find(|object| field.segments().starts_with(object.prefix.segments()))
            })
            .map(|object| crate::model::object_ref(self.document, object));
        Diagnostic {
            object,
            ..diagnostic_of(rule, self.settings(), finding, &|path, part| {
                locate(self.document, path, part)
            })
        }
    }
}

/// One workload object of a document being linted.
struct ObjectLint<'d, 'l, 'f, 'v> {
    document: &'d mut DocumentLint<'l, 'f>,
    object: &'d ObjectSite,
    visit: &'d mut (dyn FnMut(Visit<'_, '_>) + 'v),
}

impl ObjectLint<'_, '_, '_, '_> {
    /// Shows the object to the visitor with its pod spec and lifecycle, if any, and its
    /// findings from `first` on.
    fn show(
        &mut self,
        pod: Option<PodParts<'_>>,
        first: usize,
        spec_path: Option<&FieldPath>,
        rollout: Option<&Rollout>,
    ) {
        (self.visit)(Visit::Object(&ObjectVisit {
            file: self.document.file.file,
            document: self.document.document,
            object: self.object,
            pod,
            diagnostics: &self.document.found[first..],
            spec_path,
            rollout,
            platforms: &self.document.settings().platforms,
        }));
    }

    /// Lints an object of a built-in kind. Returns false when it could not be read, so its
    /// rules did not run.
    fn built_in(&mut self, tree: &ObjectTree<'_>) -> bool {
        let root = tree.root_index();
        let may_patch = self.document.file.marks.may_patch;
        if may_patch.directives && has_patch_directives(tree, root) {
            return false;
        }
        // A test framework's expected state (Chainsaw's JMESPath keys) is not an object to
        // apply.
        if may_patch.expressions && has_assertion_expressions(tree, root) {
            return false;
        }
        self.decoded(&Decoding {
            tree,
            root,
            kind: self.object.kind,
            remap: None,
        })
    }

    /// Lints the pod templates of an object of a custom kind (`model::custom`), each as a pod
    /// of the built-in kind whose rules it follows.
    fn custom(&mut self, kind: &PodTemplateKind, value: &serde_json::Value) -> bool {
        let mut complete = true;
        for template in custom::templates(kind, value) {
            complete &= self.decoded(&Decoding {
                tree: &JsonTree::new(&template.object),
                root: 0,
                kind: WorkloadKind::PodTemplate,
                remap: Some(&template),
            });
        }
        complete
    }

    /// Where the object's findings start: the document rules' findings about it (a key written
    /// twice, an apiVersion not served) just before its own count as its, so that an object
    /// the API server refuses for them has no rollout judged, and explain lists them.
    fn document_findings_about_object(&self) -> usize {
        let found = &self.document.found;
        let about = found
            .iter()
            .rev()
            .take_while(|d| d.object.as_ref() == Some(&self.object.object))
            .count();
        found.len() - about
    }

    /// The object rules and the pod rules for one decoded pod spec.
    fn decoded(&mut self, decoding: &Decoding<'_>) -> bool {
        let first = self.document_findings_about_object();
        let settings = self.document.file.settings;
        let mut decoded = podcycle_k8s::decode(decoding.kind, decoding.tree, decoding.root);
        // The object rules read paths in the object: a built template's are taken back to it,
        // and its fields are judged as the current types they are decoded as (no legacy
        // exemption).
        let as_current;
        let judged = if decoding.remap.is_some() {
            for unknown in &mut decoded.unknown_fields {
                unknown.path = decoding.segments(&unknown.path);
            }
            if let Some(error) = &mut decoded.error {
                error.path = decoding.segments(&error.path);
            }
            let mut current = self.object.clone();
            current.object.api_version = current.kind.current_api_version().to_owned();
            as_current = current;
            &as_current
        } else {
            self.object
        };
        let context = ObjectContext {
            document: self.document.document,
            object: judged,
            decoded: &decoded,
            kube: settings.kube_version,
        };
        run_checks(settings, object_check, &context, &mut |rule, finding| {
            let diagnostic = self.diagnostic(rule, finding);
            self.document.found.push(diagnostic);
        });

        // A value of the wrong type stops decoding, and with it the pod rules.
        let Some(workload) = decoded.workload.as_ref() else {
            self.show(None, first, None, None);
            return false;
        };
        let Some(spec) = workload.pod_spec.as_ref() else {
            self.show(None, first, None, None);
            return true;
        };
        let mut site = PodSite::new(
            &self.object.object,
            self.object.kind,
            spec,
            workload.has_pod_failure_policy,
        );
        // A custom kind's pods follow its kind's rules; their spec is where the decoding put
        // it.
        site.spec_path = FieldPath::from_keys(decoding.kind.pod_spec_path());
        site.job_active_deadline_seconds = workload.job_active_deadline_seconds;
        site.controller = Some(&workload.controller);
        let life = Lifecycle::derive(&site, settings.sidecars(), settings.kube_version);
        let namespace = self.object.object.namespace.as_deref();
        let selecting: Vec<&Service> = self
            .document
            .file
            .marks
            .services
            .iter()
            .filter(|s| s.selects(namespace, &workload.pod_labels))
            .collect();
        let context = PodContext {
            site: &site,
            life: &life,
            kube: settings.kube_version,
            services: &selecting,
            platforms: &settings.platforms,
        };
        run_pod_rules(&context, settings, &mut |rule, mut finding| {
            if decoding.remap.is_some() {
                // Paths in the built template: the field stays the object's, and fixes,
                // written for a plain pod spec, are not offered.
                if let Position::Field(target) = &mut finding.position {
                    target.path = decoding.path(&target.path);
                }
                for (target, _) in &mut finding.labels {
                    target.path = decoding.path(&target.path);
                }
                finding.fixes.clear();
                crate::rules::refused_by_controller(&mut finding, rule, &self.object.object.kind);
            }
            let document = self.document.document;
            if absent_beside_unknown(document, &self.object.prefix, &finding, &decoded) {
                return;
            }
            let diagnostic = self.diagnostic(rule, finding);
            self.document.found.push(diagnostic);
        });
        // A built-in controller's rollout; a custom kind's controller is not modelled.
        let rollout = match decoding.remap {
            Some(_) => None,
            None => Rollout::derive(&RolloutSource {
                object: &self.object.object,
                kind: self.object.kind,
                controller: &workload.controller,
                pod_labels: &workload.pod_labels,
                life: &life,
                scope: self.document.file.scope,
                kube: settings.kube_version,
            }),
        };
        // An object the API server rejects has no rollout: its rejection is the finding.
        let rejected = crate::diagnostics::rejects(&self.document.found[first..]);
        if let Some(rollout) = rollout.as_ref().filter(|_| !rejected) {
            let context = RolloutContext {
                site: &site,
                life: &life,
                rollout,
                kube: settings.kube_version,
                rollout_budget_seconds: settings.rollout_budget_seconds,
            };
            run_checks(settings, rollout_check, &context, &mut |rule, finding| {
                let diagnostic = self.diagnostic(rule, finding);
                self.document.found.push(diagnostic);
            });
        }
        let real_spec_path = decoding.path(&site.spec_path);
        self.show(
            Some((&site, &life)),
            first,
            decoding.remap.map(|_| &real_spec_path),
            rollout.as_ref(),
        );
        true
    }

    /// The diagnostic of an object or pod rule's finding: its places looked up in the object,
    /// its fixes placed in the document, an unnamed container named by its place.
    fn diagnostic(&self, rule: &'static Rule, finding: Finding) -> Diagnostic {
        let document = self.document.document;
        let prefix = &self.object.prefix;
        let fixes = finding
            .fixes
            .iter()
            .map(|fix| fix.clone().within(prefix, document.index))
            .collect();
        let unnamed = match (&finding.container, finding.position.field()) {
            (Some(name), Some(field)) if name.is_empty() => unnamed_container(field),
            _ => None,
        };
        let mut diagnostic = Diagnostic {
            object: Some(self.object.object.clone()),
            fixes,
            ..diagnostic_of(rule, self.document.settings(), finding, &|path, part| {
                locate(document, &prefix.join(path.segments()), part)
            })
        };
        if let Some(which) = unnamed {
            name_unnamed_container(&mut diagnostic, &which);
        }
        diagnostic
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

/// Runs the pod rules `settings` enables on one pod, handing each finding to `each`: the loop
/// [`lint_file`] runs for every pod spec, public so that the consistency tests run this very
/// loop.
pub fn run_pod_rules(
    context: &PodContext<'_>,
    settings: &Settings,
    each: &mut dyn FnMut(&'static Rule, Finding),
) {
    run_checks(settings, pod_check, context, each);
}

/// One rule's check on a context of type `C`.
type CheckFn<C> = fn(&C, &mut Findings);

fn pod_check<'a>(check: Check) -> Option<CheckFn<PodContext<'a>>> {
    match check {
        Check::Pod(check) => Some(check),
        _ => None,
    }
}

fn object_check<'a>(check: Check) -> Option<CheckFn<ObjectContext<'a>>> {
    match check {
        Check::Object(check) => Some(check),
        _ => None,
    }
}

fn rollout_check<'a>(check: Check) -> Option<CheckFn<RolloutContext<'a>>> {
    match check {
        Check::Rollout(check) => Some(check),
        _ => None,
    }
}

fn scope_check<'a>(check: Check) -> Option<CheckFn<ScopeContext<'a>>> {
    match check {
        Check::Scope(check) => Some(check),
        _ => None,
    }
}

fn document_check<'a>(check: Check) -> Option<CheckFn<DocumentContext<'a>>> {
    match check {
        Check::Document(check) => Some(check),
        _ => None,
    }
}

/// Runs the checks of one kind (`check_of` picks them) of every enabled rule on `context`.
fn run_checks<C>(
    settings: &Settings,
    check_of: fn(Check) -> Option<CheckFn<C>>,
    context: &C,
    each: &mut dyn FnMut(&'static Rule, Finding),
) {
    let mut findings = Findings::default();
    for rule in settings.rules() {
        if let Some(check) = check_of(rule.check) {
            check(context, &mut findings);
            for finding in findings.take() {
                each(rule, finding);
            }
        }
    }
}

/// The span of a field, by path from the document's root: its key or its value where the
/// field exists, else the deepest part of the path that exists (the mapping that lacks the
/// field).
pub(crate) fn locate(document: &Document, path: &FieldPath, part: Part) -> Span {
    let Some(root) = document.root else {
        return document.span;
    };
    let located = lookup(document, root, path.segments());
    match (located.complete, part, located.key) {
        (true, Part::Value, _) | (_, _, None) => located.value,
        (_, _, Some(key)) => key,
    }
}

/// Whether a pod rule's finding is about a field that is not written, in a mapping where a
/// field the type does not have is: most likely that field misspelt (`grpcPort` for
/// `containerPort`), which `unknown-field` reports. One cause gets one finding: the value the
/// rule saw missing is missing only because the field was not read.
fn absent_beside_unknown(
    document: &Document,
    prefix: &FieldPath,
    finding: &crate::rules::Finding,
    decoded: &podcycle_k8s::Decoded,
) -> bool {
    let Some((_, parent)) = finding
        .position
        .field()
        .and_then(|field| field.segments().split_last())
    else {
        return false;
    };
    let unknown_beside = decoded
        .unknown_fields
        .iter()
        .any(|unknown| unknown.path.split_last().is_some_and(|(_, p)| p == parent));
    let Some(root) = document.root else {
        return false;
    };
    let field = finding.position.field().map(|f| prefix.join(f.segments()));
    unknown_beside && field.is_some_and(|field| !lookup(document, root, field.segments()).complete)
}

/// "the 2nd container" for a finding about a container without a name, from the container
/// list and index its field is under (the last one, for a container inside a template).
fn unnamed_container(field: &FieldPath) -> Option<String> {
    field
        .segments()
        .windows(2)
        .rev()
        .find_map(|pair| match pair {
            [PathSegment::Key(list), PathSegment::Index(index)]
                if matches!(
                    list.as_str(),
                    "initContainers" | "ephemeralContainers" | "containers"
                ) =>
            {
                Some(crate::rules::ordinal_container(list, *index))
            }
            _ => None,
        })
}

/// Rules quote container names (`` `web` ``); a container without one would read as empty
/// backticks. Say which container it is instead: "the 2nd container".
fn name_unnamed_container(diagnostic: &mut Diagnostic, which: &str) {
    let replace = |text: &mut String| {
        if text.contains("``") {
            *text = text.replace("``", which);
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

/// A finding as a diagnostic, its places looked up with `locate` unless it is placed in the
/// text.
fn diagnostic_of(
    rule: &'static Rule,
    settings: &Settings,
    finding: Finding,
    locate: &dyn Fn(&FieldPath, Part) -> Span,
) -> Diagnostic {
    let Finding {
        position,
        message,
        help,
        labels,
        notes,
        container,
        platform,
        severity,
        enforcement,
        fixes: _,
        span_labels,
        claims: _,
    } = finding;
    let (span, field) = match position {
        Position::Field(target) => (locate(&target.path, target.part), Some(target.path)),
        Position::Text { span, field } => (span, field),
    };
    Diagnostic {
        rule: rule.name,
        severity: severity.unwrap_or_else(|| settings.severity(rule)),
        enforcement: enforcement.unwrap_or(rule.enforcement),
        message,
        help,
        notes,
        span,
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
        platform,
        field: field.map(|path| path.to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::yaml::parsed;

    /// A file that holds its own budget is parsed once: its scope is read from the lint's
    /// trees, and the workload's document waits for it.
    #[test]
    fn a_file_with_its_own_budget_is_parsed_once() {
        let marker = format!("{} own budget", parsed::MARK);
        let text = format!(
            "{marker}
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: 1
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec:
      containers: [{{name: web, image: web:1}}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {{name: web}}
spec:
  maxUnavailable: 0
  selector: {{matchLabels: {{app: web}}}}
"
        );
        let file = SourceFile::new("web.yaml", text);
        let found = lint_file(
            &file,
            &Settings::default(),
            FileRole::Manifest,
            Within::Itself,
            &mut |_| {},
        )
        .diagnostics;
        assert!(
            found
                .iter()
                .any(|d| d.rule == "disruption-budget-blocks-eviction"),
            "{found:?}"
        );
        assert_eq!(parsed::count(&marker), 1);
    }
}
