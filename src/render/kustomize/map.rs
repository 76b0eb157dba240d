//! The source map from `kustomize build` output back to bases and patches.
//!
//! Kustomize's build metadata names, for each object, the file it came from
//! (`config.kubernetes.io/origin`) and the kustomizations whose patches changed it
//! (`alpha.config.kubernetes.io/transformations`). A field is placed at the last patch that
//! writes it, else where the base writes it, on the part the finding marks in the output (the
//! key or the value, as in a plain file); list items are matched by their merge key
//! (`name` for containers), not their position, since patches add and reorder. When a patch
//! overrides a value the base (or an earlier patch) set, the other side gets a label.
//!
//! The metadata is the output's, which the overlay writes as it likes (a patch can set
//! `config.kubernetes.io/origin` itself): its paths are read as text and looked up in the
//! stage's list ([`StagedFiles`]), and what names anything else is not opened.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::tree::{Kustomization, Patch, PatchList, PatchSource, Tree};
use crate::diagnostics::{Diagnostic, Label, Placement, RenderOrigin, RenderTool};
use crate::render::rendered::{Field, Part, document_at, field_at};
use crate::render::shown_path;
use crate::render::stage::BUILD_DIR;
use crate::render::staged::StagedFiles;
use crate::source::{SourceFile, Span};
use crate::yaml::{self, Document, NodeId};
use podcycle_path::PathSegment;

/// A YAML text that lives in a file: the file itself, or a block scalar inside a
/// kustomization (an inline patch), with the way back to the file's offsets.
struct Text {
    file: Arc<SourceFile>,
    documents: Vec<Document>,
    /// For inline text: the parsed text, the first line in the file, and the indentation.
    inline: Option<(SourceFile, usize, usize)>,
}

impl Text {
    /// A span of the parsed text as a span of the file.
    fn to_file(&self, span: Span) -> Span {
        let Some((inline, first_line, indent)) = &self.inline else {
            return span;
        };
        let convert = |offset: u32| {
            let at = inline.line_col(offset);
            let line = first_line + at.line - 1;
            let start = self.file.lines.line_start(line);
            let column_bytes =
                inline.text[inline.lines.line_start(at.line - 1)..offset as usize].len();
            (start + indent + column_bytes).min(self.file.text.len())
        };
        Span::new(convert(span.start), convert(span.end))
    }
}

/// A place in a file.
type Place = (Arc<SourceFile>, Span);

/// A place that writes a field.
#[derive(Clone, Debug)]
struct Writer {
    file: Arc<SourceFile>,
    span: Span,
    /// The value written, for the message of an override label.
    value: Option<String>,
    patch: bool,
}

pub(crate) struct KustomizeMap {
    input: String,
    tree: Tree,
    /// What Kustomize was given: the only files the map reads. The build's metadata names
    /// them relative to podcycle's kustomization, [`BUILD_DIR`] in the stage.
    files: StagedFiles,
    /// The rendered stream's documents, parsed when the first finding is placed: output
    /// without findings is parsed once, by the lint.
    documents: Option<Vec<Document>>,
    /// Files parsed, by their key in the stage.
    texts: HashMap<String, Option<Arc<Text>>>,
    inline_texts: HashMap<(String, &'static str, usize), Option<Arc<Text>>>,
    /// The command that built it (`kustomize build`, `kubectl kustomize`), for the notes.
    command: &'static str,
}

impl std::fmt::Debug for KustomizeMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KustomizeMap")
            .field("input", &self.input)
            .finish_non_exhaustive()
    }
}

impl KustomizeMap {
    pub(crate) fn new(
        input: String,
        files: StagedFiles,
        tree: Tree,
        command: &'static str,
    ) -> KustomizeMap {
        KustomizeMap {
            command,
            input,
            files,
            tree,
            documents: None,
            texts: HashMap::new(),
            inline_texts: HashMap::new(),
        }
    }

    /// The rendered stream's documents (parsed by [`KustomizeMap::place`] before any use).
    fn documents(&self) -> &[Document] {
        self.documents.as_deref().unwrap_or_default()
    }

    /// The files the map reads.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn staged_files(&self) -> &StagedFiles {
        &self.files
    }

    pub(crate) fn place(
        &mut self,
        rendered: &SourceFile,
        mut diagnostic: Diagnostic,
    ) -> (Arc<SourceFile>, Diagnostic) {
        diagnostic.fixes.clear();
        if self.documents.is_none() {
            self.documents = Some(yaml::parse_stream(&rendered.text));
        }
        let mut info = RenderOrigin {
            tool: RenderTool::Kustomize,
            input: self.input.clone(),
            placement: Placement::Exact,
            command: self.command,
        };
        let overlay = self.tree.kustomizations.first().map(|k| k.file.clone());
        let overlay_file = overlay
            .as_deref()
            .and_then(|file| self.text(file))
            .map(|text| Arc::clone(&text.file))
            .unwrap_or_else(|| {
                Arc::new(SourceFile::new(
                    shown_path(overlay.as_deref().unwrap_or(Path::new(""))),
                    "",
                ))
            });
        let Some(index) = document_at(self.documents(), diagnostic.span.start) else {
            info.placement = Placement::File;
            diagnostic.span = Span::empty(0);
            diagnostic.labels.clear();
            diagnostic.rendered = Some(info);
            return (overlay_file, diagnostic);
        };
        let primary = self.writers(index, diagnostic.span);
        let (file, span, overridden) = match primary {
            Some((mut writers, _)) if !writers.is_empty() => {
                let last = writers.pop().expect("not empty");
                (
                    Arc::clone(&last.file),
                    last.span,
                    writers.pop().filter(|_| last.patch),
                )
            }
            other => {
                // Not written by any file: a transformer's doing, or a field no file has.
                let origin = other.and_then(|(_, origin)| origin);
                match origin {
                    Some((file, span)) => {
                        info.placement = Placement::Object;
                        (file, span, None)
                    }
                    None => {
                        info.placement = Placement::File;
                        (overlay_file, Span::empty(0), None)
                    }
                }
            }
        };
        let mut labels = Vec::new();
        let mut overrides: Vec<Writer> = overridden.into_iter().collect();
        for label in std::mem::take(&mut diagnostic.labels) {
            match self.writers(index, label.span) {
                Some((mut writers, _)) if !writers.is_empty() => {
                    let last = writers.pop().expect("not empty");
                    if last.patch {
                        overrides.extend(writers.pop());
                    }
                    labels.push(Label {
                        span: last.span,
                        file: (last.file.path != file.path).then(|| Arc::clone(&last.file)),
                        message: if last.patch {
                            format!("{} (by this patch)", label.message)
                        } else {
                            label.message
                        },
                    });
                }
                _ => diagnostic.notes.push(format!(
                    "{} (in the built output; podcycle cannot place it in the overlay's files)",
                    label.message
                )),
            }
        }
        // The other side of each conflict: the value a patch replaced.
        for earlier in overrides {
            let value = earlier
                .value
                .as_deref()
                .map(|v| format!(" `{v}`"))
                .unwrap_or_default();
            labels.push(Label {
                span: earlier.span,
                file: (earlier.file.path != file.path).then(|| Arc::clone(&earlier.file)),
                message: format!("a patch overrides the value{value} set here"),
            });
        }
        diagnostic.notes.extend(self.unplaced_origin(index));
        diagnostic.span = span;
        diagnostic.labels = labels;
        diagnostic.rendered = Some(info);
        (file, diagnostic)
    }

    /// What to say of a finding whose object names an origin podcycle does not read: the
    /// file the output claims is not one Kustomize was given.
    fn unplaced_origin(&self, index: usize) -> Option<String> {
        let document = &self.documents()[index];
        let origin = annotations(document, document.root?).origin?;
        if self.files.find(BUILD_DIR, &origin).is_some() {
            return None;
        }
        Some(format!(
            "the build's metadata says the object came from `{}`, which is none of the files podcycle gave Kustomize, so podcycle did not read it",
            crate::render::printable(&truncated(&origin))
        ))
    }

    /// The kustomization a `configuredIn` path of the build's metadata names, when it is one
    /// of the tree's and staged.
    fn kustomization_at(&self, configured_in: &str) -> Option<Kustomization> {
        let key = self.files.find(BUILD_DIR, configured_in)?;
        self.tree
            .kustomizations
            .iter()
            .find(|k| self.files.key_of(&k.file).as_deref() == Some(key.as_str()))
            .cloned()
    }

    /// Every place that writes the field `span` marks in a rendered document, in the order
    /// Kustomize applied them (the base first), and the object's place in its base for when none
    /// does. Each place is the same part of the field as `span`: its key, or its value.
    fn writers(&mut self, index: usize, span: Span) -> Option<(Vec<Writer>, Option<Place>)> {
        let document = &self.documents()[index];
        let root = document.root?;
        let field = field_at(document, span);
        let annotations = annotations(document, root);
        let kind = string_at(document, root, &["kind"])?;
        let name = string_at(document, root, &["metadata", "name"]).unwrap_or_default();
        let origin_key = annotations
            .origin
            .as_deref()
            .and_then(|path| self.files.find(BUILD_DIR, path));
        let mut writers = Vec::new();
        let mut object_place = None;
        let origin = origin_key.and_then(|key| self.text_at(&key));
        if let Some(text) = origin
            && let Some((document_index, object)) = find_object(&text.documents, &kind, &name)
        {
            let source = &text.documents[document_index];
            let rendered_document = &self.documents()[index];
            let kind_span = yaml::lookup(source, object, &[PathSegment::Key("kind".into())]).key;
            object_place = Some((
                Arc::clone(&text.file),
                text.to_file(kind_span.unwrap_or(source.node(object).span)),
            ));
            if let Some((node, key)) =
                translate(rendered_document, root, &field.path, source, object)
            {
                writers.push(Writer {
                    file: Arc::clone(&text.file),
                    span: text.to_file(spot(source, node, key, field.part)),
                    value: source.scalar(node).map(|s| s.value.to_string()),
                    patch: false,
                });
            }
        }
        // Patches, in the order the transformations were applied. Kustomize lists a
        // kustomization's transformer once per patch it applied; its patches are read once, in
        // the order written.
        let mut read = Vec::new();
        for (configured_in, transformer) in annotations.transformations {
            if read.contains(&(configured_in.clone(), transformer.clone())) {
                continue;
            }
            read.push((configured_in.clone(), transformer.clone()));
            let Some(kustomization) = self.kustomization_at(&configured_in) else {
                continue;
            };
            for patch in kustomization
                .patches
                .iter()
                .filter(|p| p.list.transformer() == transformer)
            {
                if let Some(writer) =
                    self.patch_writer(index, &kustomization.file, patch, &kind, &name, &field)
                {
                    writers.push(writer);
                }
            }
        }
        // A patch that repeats the value before it (a container's `name`, which strategic merge
        // matches by) did not write it: the earlier place did.
        while let [.., earlier, last] = &writers[..]
            && last.value.is_some()
            && last.value == earlier.value
        {
            writers.pop();
        }
        Some((writers, object_place))
    }

    fn patch_writer(
        &mut self,
        index: usize,
        kustomization: &Path,
        patch: &Patch,
        kind: &str,
        name: &str,
        field: &Field,
    ) -> Option<Writer> {
        let path = field.path.as_slice();
        if patch.target_kind.as_deref().is_some_and(|k| k != kind) {
            return None;
        }
        if let Some(pattern) = &patch.target_name {
            let matches = regex_lite_full_match(pattern, name);
            if !matches {
                return None;
            }
        }
        let text = match &patch.source {
            PatchSource::File(file) => self.text(file)?,
            PatchSource::Inline { key, index } => self.inline_text(kustomization, key, *index)?,
        };
        let rendered = &self.documents()[index];
        let root = rendered.root?;
        for document in &text.documents {
            let Some(patch_root) = document.root else {
                continue;
            };
            if let Some(ops) = document.sequence(patch_root) {
                if patch.list == PatchList::StrategicMerge {
                    continue;
                }
                // A JSON 6902 patch: the last operation that sets the field or a parent of it.
                let mut found = None;
                for (at, &op) in ops.iter().enumerate() {
                    let Some(pointer) = string_at(document, op, &["path"]) else {
                        continue;
                    };
                    let operation = string_at(document, op, &["op"]).unwrap_or_default();
                    if !matches!(operation.as_str(), "add" | "replace" | "copy" | "move") {
                        continue;
                    }
                    let segments = pointer_segments(&pointer);
                    if !prefix_matches(&segments, path) {
                        continue;
                    }
                    let value = yaml::lookup(document, op, &[PathSegment::Key("value".into())]);
                    if is_append(&segments) {
                        let later = ops[at + 1..]
                            .iter()
                            .filter(|&&later| {
                                string_at(document, later, &["path"]).as_deref()
                                    == Some(pointer.as_str())
                            })
                            .count();
                        let added = value.complete.then_some((document, value.node));
                        if !appended_here(rendered, root, &path[..segments.len()], added, later) {
                            continue;
                        }
                    }
                    let rest = &path[segments.len().min(path.len())..];
                    let (place, written) = if value.complete {
                        let rendered_node =
                            node_at(rendered, root, &path[..segments.len().min(path.len())]);
                        match rendered_node
                            .and_then(|n| translate(rendered, n, rest, document, value.node))
                        {
                            // The operation writes the field itself: its key is in `path`.
                            Some((_, None)) if rest.is_empty() && field.part == Part::Key => (
                                yaml::lookup(document, op, &[PathSegment::Key("path".into())])
                                    .value,
                                None,
                            ),
                            Some((node, key)) => (
                                spot(document, node, key, field.part),
                                document.scalar(node).map(|s| s.value.to_string()),
                            ),
                            None => (value.key.unwrap_or(value.value), None),
                        }
                    } else {
                        (document.node(op).span, None)
                    };
                    found = Some(Writer {
                        file: Arc::clone(&text.file),
                        span: text.to_file(place),
                        value: written,
                        patch: true,
                    });
                }
                if found.is_some() {
                    return found;
                }
                continue;
            }
            // A strategic-merge patch: it must be about this object.
            let patch_kind = string_at(document, patch_root, &["kind"]);
            let patch_name = string_at(document, patch_root, &["metadata", "name"]);
            if patch_kind.as_deref().is_some_and(|k| k != kind) {
                continue;
            }
            if patch.target_name.is_none()
                && patch_name.as_deref().is_some_and(|n| !name.contains(n))
            {
                continue;
            }
            if let Some((node, key)) = translate(rendered, root, path, document, patch_root) {
                return Some(Writer {
                    file: Arc::clone(&text.file),
                    span: text.to_file(spot(document, node, key, field.part)),
                    value: document.scalar(node).map(|s| s.value.to_string()),
                    patch: true,
                });
            }
        }
        None
    }

    /// One of the user's files the tree names (a patch, a kustomization), when it was staged.
    fn text(&mut self, path: &Path) -> Option<Arc<Text>> {
        let key = self.files.key_of(path)?;
        self.text_at(&key)
    }

    /// The staged file at `key`, read and parsed once.
    fn text_at(&mut self, key: &str) -> Option<Arc<Text>> {
        if let Some(text) = self.texts.get(key) {
            return text.clone();
        }
        let text = self.files.load(key).map(|file| {
            let documents = yaml::parse_stream(&file.text);
            Arc::new(Text {
                file,
                documents,
                inline: None,
            })
        });
        self.texts.insert(key.to_owned(), text.clone());
        text
    }

    /// An inline patch, written as a block scalar in the kustomization.
    fn inline_text(
        &mut self,
        kustomization: &Path,
        key: &'static str,
        index: usize,
    ) -> Option<Arc<Text>> {
        let cache_key = (self.files.key_of(kustomization)?, key, index);
        if let Some(cached) = self.inline_texts.get(&cache_key) {
            return cached.clone();
        }
        let outer = self.text_at(&cache_key.0)?;
        let built = (|| {
            let document = outer.documents.first()?;
            let root = document.root?;
            let mut path = vec![PathSegment::Key(key.to_owned()), PathSegment::Index(index)];
            if key != "patchesStrategicMerge" {
                path.push(PathSegment::Key("patch".to_owned()));
            }
            let located = yaml::lookup(document, root, &path);
            if !located.complete {
                return None;
            }
            let scalar = document.scalar(located.node)?;
            if !matches!(
                scalar.style,
                yaml::ScalarStyle::Literal | yaml::ScalarStyle::Folded
            ) {
                return None;
            }
            // The content starts on the line after the key and its `|` indicator, at the
            // block's indentation.
            let indicator_line = outer
                .file
                .lines
                .line_of(located.key.unwrap_or(located.value).start as usize);
            let first_line = indicator_line + 1;
            let start = outer.file.lines.line_start(first_line);
            let line =
                &outer.file.text[start..outer.file.lines.content_end(&outer.file.text, first_line)];
            let indent = line.len() - line.trim_start_matches(' ').len();
            let inline = SourceFile::new(outer.file.path.clone(), scalar.value.to_string());
            let documents = yaml::parse_stream(&inline.text);
            Some(Arc::new(Text {
                file: Arc::clone(&outer.file),
                documents,
                inline: Some((inline, first_line, indent)),
            }))
        })();
        self.inline_texts.insert(cache_key, built.clone());
        built
    }
}

/// The build metadata Kustomize wrote on an object.
#[derive(Default)]
struct Annotations {
    origin: Option<String>,
    /// `(configuredIn, configuredBy.kind)`, in the order applied.
    transformations: Vec<(String, String)>,
}

fn annotations(document: &Document, root: NodeId) -> Annotations {
    let mut found = Annotations::default();
    let text = |key: &str| string_at(document, root, &["metadata", "annotations", key]);
    if let Some(origin) = text("config.kubernetes.io/origin") {
        found.origin = yaml_field(&origin, "path");
    }
    if let Some(list) = text("alpha.config.kubernetes.io/transformations") {
        for item in yaml::parse_stream(&list) {
            let Some(root) = item.root else { continue };
            for &entry in item.sequence(root).unwrap_or_default() {
                let configured_in = string_at(&item, entry, &["configuredIn"]);
                let kind = string_at(&item, entry, &["configuredBy", "kind"]);
                if let (Some(configured_in), Some(kind)) = (configured_in, kind) {
                    found.transformations.push((configured_in, kind));
                }
            }
        }
    }
    found
}

/// A path the output names, short enough for a note.
fn truncated(path: &str) -> String {
    const MOST: usize = 200;
    match path.char_indices().nth(MOST) {
        Some((at, _)) => format!("{}…", &path[..at]),
        None => path.to_owned(),
    }
}

/// A top-level string of a small YAML text (an annotation's value).
fn yaml_field(text: &str, key: &str) -> Option<String> {
    let documents = yaml::parse_stream(text);
    let document = documents.first()?;
    string_at(document, document.root?, &[key])
}

fn string_at(document: &Document, node: NodeId, keys: &[&str]) -> Option<String> {
    let path: Vec<PathSegment> = keys
        .iter()
        .map(|k| PathSegment::Key((*k).to_owned()))
        .collect();
    let located = yaml::lookup(document, node, &path);
    located
        .complete
        .then(|| document.scalar_str(located.node).map(str::to_owned))
        .flatten()
}

/// The object of `kind` in a file whose name the built name contains (prefixes and suffixes
/// are added by overlays); an exact name wins.
fn find_object(documents: &[Document], kind: &str, name: &str) -> Option<(usize, NodeId)> {
    let mut best: Option<(usize, NodeId, usize)> = None;
    for (index, document) in documents.iter().enumerate() {
        let Some(root) = document.root else { continue };
        if string_at(document, root, &["kind"]).as_deref() != Some(kind) {
            continue;
        }
        let own = string_at(document, root, &["metadata", "name"]).unwrap_or_default();
        if !name.contains(&own) {
            continue;
        }
        if best.is_none_or(|(_, _, length)| own.len() > length) {
            best = Some((index, root, own.len()));
        }
    }
    best.map(|(index, root, _)| (index, root))
}

/// Follows a path of the rendered object into another YAML tree that describes the same
/// object (a base, a patch), matching list items by merge key. Returns the node and its key.
fn translate(
    rendered: &Document,
    rendered_node: NodeId,
    path: &[PathSegment],
    source: &Document,
    source_node: NodeId,
) -> Option<(NodeId, Option<Span>)> {
    let mut rendered_at = rendered_node;
    let mut source_at = source_node;
    let mut key_span = None;
    for segment in path {
        match segment {
            PathSegment::Key(_) => {
                let next_rendered =
                    yaml::lookup(rendered, rendered_at, std::slice::from_ref(segment));
                let next_source = yaml::lookup(source, source_at, std::slice::from_ref(segment));
                if !next_rendered.complete || !next_source.complete {
                    return None;
                }
                rendered_at = next_rendered.node;
                source_at = next_source.node;
                key_span = next_source.key;
            }
            PathSegment::Index(index) => {
                let item = rendered.sequence(rendered_at)?.get(*index).copied()?;
                let items = source.sequence(source_at)?;
                let matched = match merge_key(rendered, item) {
                    Some((key, value)) => items.iter().copied().find(|&candidate| {
                        string_at(source, candidate, &[key]).as_deref() == Some(value.as_str())
                    }),
                    None => items.get(*index).copied(),
                }?;
                rendered_at = item;
                source_at = matched;
                key_span = None;
            }
        }
    }
    Some((source.resolve(source_at), key_span))
}

/// Where a field that [`translate`] found is written, at the part a finding marks: its key,
/// or its value (an item of a list has no key: the item).
fn spot(document: &Document, node: NodeId, key: Option<Span>, part: Part) -> Span {
    match (part, key) {
        (Part::Key, Some(key)) => key,
        _ => document.node(node).span,
    }
}

/// The merge key Kubernetes uses for a list item: `name`, `containerPort`, `mountPath`, `ip`.
fn merge_key(document: &Document, item: NodeId) -> Option<(&'static str, String)> {
    for key in [
        "name",
        "containerPort",
        "mountPath",
        "devicePath",
        "ip",
        "topologyKey",
    ] {
        if let Some(value) = string_at(document, item, &[key]) {
            return Some((key, value));
        }
    }
    None
}

fn node_at(document: &Document, root: NodeId, path: &[PathSegment]) -> Option<NodeId> {
    let located = yaml::lookup(document, root, path);
    located.complete.then_some(located.node)
}

/// `/spec/template/spec/containers/0` as path segments.
fn pointer_segments(pointer: &str) -> Vec<PathSegment> {
    pointer
        .split('/')
        .skip(1)
        .map(|part| {
            let part = part.replace("~1", "/").replace("~0", "~");
            match part.parse::<usize>() {
                Ok(index) => PathSegment::Index(index),
                Err(_) => PathSegment::Key(part),
            }
        })
        .collect()
}

/// Whether a JSON pointer's segments lead to `path` or one of its parents (`-` appends, so it
/// matches any index).
fn prefix_matches(pointer: &[PathSegment], path: &[PathSegment]) -> bool {
    pointer.len() <= path.len()
        && pointer.iter().zip(path).all(|(a, b)| match (a, b) {
            (PathSegment::Key(k), PathSegment::Index(_)) => k == "-",
            (a, b) => a == b,
        })
}

/// Whether a JSON pointer ends in `-`: an `add` that appends one item to a list.
fn is_append(pointer: &[PathSegment]) -> bool {
    pointer.last() == Some(&PathSegment::Key("-".into()))
}

/// Whether the rendered list item at `item` (a path ending in its index) is the one an
/// appending operation added, and not an item of the base or of another operation: the item
/// with the added value's `name` (containers, volumes, ports and env are matched by it), else,
/// for a value without one, the item `later` places from the end of the list, `later` being the
/// operations of the patch that append to the same list after it.
fn appended_here(
    rendered: &Document,
    root: NodeId,
    item: &[PathSegment],
    added: Option<(&Document, NodeId)>,
    later: usize,
) -> bool {
    let Some((list_path, [PathSegment::Index(index)])) = item.split_last_chunk::<1>() else {
        return false;
    };
    let added_name = added.and_then(|(document, value)| string_at(document, value, &["name"]));
    if let Some(added_name) = added_name {
        return node_at(rendered, root, item)
            .and_then(|node| string_at(rendered, node, &["name"]))
            .is_some_and(|name| name == added_name);
    }
    let length = node_at(rendered, root, list_path)
        .and_then(|list| rendered.sequence(list))
        .map_or(0, <[NodeId]>::len);
    length.checked_sub(later + 1) == Some(*index)
}

/// Kustomize matches `target.name` as a regular expression over the whole name; podcycle
/// reads the common forms: a literal, `.*`, and `prefix.*`/`.*suffix`.
fn regex_lite_full_match(pattern: &str, name: &str) -> bool {
    if !pattern.contains(['.', '*', '^', '$', '[', '(', '|', '+', '?']) {
        return pattern == name;
    }
    let pattern = pattern.trim_start_matches('^').trim_end_matches('$');
    match pattern.split_once(".*") {
        Some((head, tail))
            if !head.contains(['*', '[', '(', '|', '+', '?'])
                && !tail.contains(['*', '[', '(', '|', '+', '?']) =>
        {
            name.starts_with(head.replace("\\.", ".").as_str())
                && name.ends_with(tail.replace("\\.", ".").as_str())
        }
        // An expression podcycle does not read: assume it matches, the patch's own kind and
        // paths still decide.
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_and_names() {
        let segments = pointer_segments("/spec/containers/0/env/-");
        assert_eq!(segments[2], PathSegment::Index(0));
        let path = [
            PathSegment::Key("spec".into()),
            PathSegment::Key("containers".into()),
            PathSegment::Index(0),
            PathSegment::Key("env".into()),
            PathSegment::Index(3),
            PathSegment::Key("value".into()),
        ];
        assert!(prefix_matches(&segments, &path));
        assert!(!prefix_matches(
            &pointer_segments("/spec/containers/1"),
            &path
        ));
        assert!(regex_lite_full_match("web", "web"));
        assert!(!regex_lite_full_match("web", "prod-web"));
        assert!(regex_lite_full_match(".*-web", "prod-web"));
    }
}
