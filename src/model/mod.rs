//! Kubernetes objects found in YAML documents, and the pod specs inside them.

pub mod amount;
pub mod custom;
pub(crate) mod patch;
pub mod path;
pub(crate) mod scope;
pub(crate) mod selector;
pub(crate) mod services;
pub(crate) mod tree;
mod workloads;

use serde::Serialize;

pub(crate) use podcycle_k8s::Controller;
pub use podcycle_k8s::WorkloadKind;
pub(crate) use podcycle_k8s::k8s_openapi::api::core::v1 as core;
pub(crate) use podcycle_k8s::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
pub(crate) use workloads::Origin;
pub use workloads::PodSite;

use crate::yaml::{Document, NodeId, lookup};
use path::{FieldPath, PathSegment};

/// Identifies an object in findings and reports.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ObjectRef {
    pub api_version: String,
    pub kind: String,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

impl ObjectRef {
    /// `Deployment/web`, the way kubectl names objects.
    pub(crate) fn display_name(&self) -> String {
        format!(
            "{}/{}",
            self.kind,
            self.name.as_deref().unwrap_or("<unnamed>")
        )
    }
}

/// A workload object in a document.
#[derive(Clone, Debug)]
pub struct ObjectSite {
    /// The object's mapping node.
    pub(crate) root: NodeId,
    /// Path from the document root to the object: empty, or `items[3]` inside a `List`.
    pub(crate) prefix: FieldPath,
    pub object: ObjectRef,
    pub(crate) kind: WorkloadKind,
}

/// The workload objects among `objects` of the document.
pub(crate) fn workloads_among(document: &Document, objects: &[AnyObject]) -> Vec<ObjectSite> {
    objects
        .iter()
        .filter_map(|object| {
            let kind = WorkloadKind::from_type(&object.api_version, &object.kind)?;
            Some(site(document, object, kind))
        })
        .collect()
}

/// The objects of custom kinds with pod templates among `objects` (`model::custom`), each with
/// its kind; the site's `kind` is the built-in kind whose rules its pods follow.
pub(crate) fn custom_workloads_among(
    document: &Document,
    objects: &[AnyObject],
    kinds: &custom::PodTemplateKinds,
) -> Vec<(ObjectSite, custom::PodTemplateKind)> {
    objects
        .iter()
        .filter(|object| WorkloadKind::from_type(&object.api_version, &object.kind).is_none())
        .filter_map(|object| {
            let kind = kinds.find(&object.api_version, &object.kind)?;
            Some((site(document, object, kind.like), kind))
        })
        .collect()
}

fn site(document: &Document, object: &AnyObject, kind: WorkloadKind) -> ObjectSite {
    ObjectSite {
        root: object.root,
        prefix: object.prefix.clone(),
        object: object_ref(document, object),
        kind,
    }
}

/// What identifies an object in findings: its type, and its name and namespace where they are
/// plain scalars.
pub(crate) fn object_ref(document: &Document, object: &AnyObject) -> ObjectRef {
    let metadata = |field: &str| {
        let located = lookup(
            document,
            object.root,
            &[
                PathSegment::Key("metadata".to_owned()),
                PathSegment::Key(field.to_owned()),
            ],
        );
        located
            .complete
            .then(|| document.scalar_str(located.node).map(str::to_owned))
            .flatten()
    };
    ObjectRef {
        api_version: object.api_version.clone(),
        kind: object.kind.clone(),
        name: metadata("name"),
        namespace: metadata("namespace"),
    }
}

/// A Kubernetes object of any kind: a mapping with `apiVersion` and `kind`.
#[derive(Clone, Debug)]
pub struct AnyObject {
    /// The object's mapping node.
    pub root: NodeId,
    /// Path from the document root to the object: empty, or `items[3]` inside a `List`.
    pub(crate) prefix: FieldPath,
    pub api_version: String,
    pub kind: String,
}

/// Every object of a document: the document itself, or the items of a `List`.
pub fn objects(document: &Document) -> Vec<AnyObject> {
    let mut found = Vec::new();
    for_each_object(document, |root, prefix, api_version, kind| {
        found.push(AnyObject {
            root,
            prefix,
            api_version,
            kind,
        });
    });
    found
}

/// Calls `visit` with the node, path, `apiVersion` and `kind` of every object in a document:
/// the document itself, or the items of a `List`.
fn for_each_object(document: &Document, mut visit: impl FnMut(NodeId, FieldPath, String, String)) {
    if let Some(root) = document.root {
        visit_objects(document, root, FieldPath::default(), 0, &mut visit);
    }
}

fn visit_objects(
    document: &Document,
    node: NodeId,
    prefix: FieldPath,
    depth: usize,
    visit: &mut impl FnMut(NodeId, FieldPath, String, String),
) {
    // `List` inside `List` is legal but never deep; the bound keeps hostile input cheap.
    const MAX_LIST_NESTING: usize = 8;
    let Some(api_version) = string_at(document, node, "apiVersion") else {
        return;
    };
    let Some(kind) = string_at(document, node, "kind") else {
        return;
    };
    if kind == "List" || (kind.ends_with("List") && api_version == "v1") {
        if depth >= MAX_LIST_NESTING {
            return;
        }
        let items = lookup(document, node, &[PathSegment::Key("items".to_owned())]);
        if let (true, Some(items)) = (items.complete, document.sequence(items.node)) {
            for (index, &item) in items.iter().enumerate() {
                visit_objects(
                    document,
                    item,
                    prefix.key("items").index(index),
                    depth + 1,
                    visit,
                );
            }
        }
        return;
    }
    visit(node, prefix, api_version, kind);
}

fn string_at(document: &Document, node: NodeId, key: &str) -> Option<String> {
    document.mapping(node)?;
    let located = lookup(document, node, &[PathSegment::Key(key.to_owned())]);
    if !located.complete {
        return None;
    }
    document.scalar_str(located.node).map(str::to_owned)
}
