//! A YAML document as the tree the typed decoder reads (`podcycle_k8s::Tree`), so that an
//! object goes from the parsed document to k8s-openapi's types with no JSON in between.

use std::borrow::Cow;

use podcycle_k8s::{Tree, TreeValue};

use crate::yaml::{self, ConversionError, Document, Kind, NodeId, Resolved};

/// The subtree of an object that converts to JSON within the YAML layer's limits (alias
/// expansion, depth); only such a subtree is handed to the decoder, which recurses per level.
#[derive(Clone, Copy)]
pub(crate) struct ObjectTree<'d> {
    document: &'d Document,
    root: NodeId,
}

impl<'d> ObjectTree<'d> {
    pub(crate) fn new(document: &'d Document, root: NodeId) -> Result<Self, ConversionError> {
        yaml::check_convertible(document, root)?;
        Ok(ObjectTree { document, root })
    }

    /// The root, as the decoder names nodes.
    pub(crate) fn root_index(&self) -> u32 {
        self.root.0
    }

    fn node(&self, index: u32) -> Option<NodeId> {
        ((index as usize) < self.document.node_count()).then_some(NodeId(index))
    }
}

impl Tree for ObjectTree<'_> {
    fn value(&self, index: u32) -> TreeValue<'_> {
        let Some(id) = self.node(index) else {
            return TreeValue::Null;
        };
        match self.document.kind(self.document.resolve(id)) {
            Kind::Scalar(scalar) => match yaml::json_scalar(&scalar) {
                Resolved::Null => TreeValue::Null,
                Resolved::Bool(b) => TreeValue::Bool(b),
                Resolved::Int(i) => TreeValue::Int(i),
                Resolved::UInt(u) => TreeValue::UInt(u),
                Resolved::Float(f) => TreeValue::Float(f),
                Resolved::Str(s) => TreeValue::Str(Cow::Borrowed(s)),
            },
            Kind::Sequence(items) => TreeValue::Seq(items.len()),
            Kind::Mapping(_) => TreeValue::Map,
            // `resolve` follows every alias.
            Kind::Alias(_) => TreeValue::Null,
        }
    }

    fn item(&self, index: u32, item: usize) -> Option<u32> {
        let items = self.document.sequence(self.node(index)?)?;
        items.get(item).map(|id| id.0)
    }

    fn entries(&self, index: u32) -> Vec<(Cow<'_, str>, u32)> {
        let Some(id) = self.node(index) else {
            return Vec::new();
        };
        yaml::json_entries(self.document, id)
            .into_iter()
            .map(|(key, value)| (key, value.0))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podcycle_k8s::{JsonTree, WorkloadKind, decode, decode_json};

    /// Decoding from the tree and from the JSON the tree converts to agree, merge keys,
    /// duplicate keys, YAML 1.1 scalars and all.
    #[test]
    fn decodes_as_the_json_it_converts_to() {
        let text = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {app: web}}
x-defaults: &probe {periodSeconds: 10, timeoutSeconds: 1.0}
spec:
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      terminationGracePeriodSeconds: 30
      terminationGracePeriodSeconds: 45
      containers:
      - name: app
        tty: yes
        livenessProbe:
          <<: *probe
          periodSeconds: 20
          exec: {command: [sleep, '5']}
        imagePulPolicy: Always
";
        let documents = yaml::parse_stream(text);
        let document = &documents[0];
        let root = document.root.unwrap();
        let tree = ObjectTree::new(document, root).unwrap();
        let from_tree = decode(WorkloadKind::Deployment, &tree, tree.root_index());
        let json = yaml::to_json(document, root).unwrap();
        let from_json = decode_json(WorkloadKind::Deployment, &json);
        assert!(from_tree.error.is_none(), "{:?}", from_tree.error);
        let (a, b) = (
            from_tree.workload.clone().unwrap(),
            from_json.workload.clone().unwrap(),
        );
        assert_eq!(a.pod_spec, b.pod_spec);
        assert_eq!(a.pod_labels, b.pod_labels);
        let spec = a.pod_spec.unwrap();
        assert_eq!(spec.termination_grace_period_seconds, Some(45));
        let probe = spec.containers[0].liveness_probe.as_ref().unwrap();
        assert_eq!(
            (probe.period_seconds, probe.timeout_seconds),
            (Some(20), Some(1))
        );
        assert_eq!(spec.containers[0].tty, Some(true));
        let unknown = |d: &podcycle_k8s::Decoded| {
            d.unknown_fields
                .iter()
                .map(|u| podcycle_k8s::DisplayPath(&u.path).to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(unknown(&from_tree), unknown(&from_json));
        assert_eq!(
            unknown(&from_tree),
            // In key order, as the API machinery meets them.
            [
                "spec.template.spec.containers[0].imagePulPolicy",
                "x-defaults"
            ]
        );
        // The JSON tree numbers the same values its own way and agrees too.
        let again = decode(WorkloadKind::Deployment, &JsonTree::new(&json), 0);
        assert_eq!(unknown(&again), unknown(&from_json));
    }

    #[test]
    fn a_type_error_has_the_same_path_and_message_either_way() {
        let text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: a\n    ports: [{containerPort: .inf}]\n  - {name: b, readinessProbe: {periodSeconds: ten}}\n";
        let documents = yaml::parse_stream(text);
        let document = &documents[0];
        let root = document.root.unwrap();
        let tree = ObjectTree::new(document, root).unwrap();
        let from_tree = decode(WorkloadKind::Pod, &tree, tree.root_index());
        let from_json = decode_json(WorkloadKind::Pod, &yaml::to_json(document, root).unwrap());
        let (a, b) = (from_tree.error.unwrap(), from_json.error.unwrap());
        assert_eq!(a.path, b.path);
        assert_eq!(a.message, b.message);
        assert_eq!(
            podcycle_k8s::DisplayPath(&a.path).to_string(),
            "spec.containers[0].ports[0].containerPort"
        );
    }

    #[test]
    fn an_alias_bomb_is_not_handed_to_the_decoder() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..8 {
            let prev = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}, *a{prev}]\n"
            ));
        }
        let documents = yaml::parse_stream(&text);
        let document = &documents[0];
        assert!(ObjectTree::new(document, document.root.unwrap()).is_err());
    }
}
