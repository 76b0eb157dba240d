//! The Services of a file, for rules about the pods they send traffic to. A Service selects a
//! pod when every label of its `spec.selector` is on the pod template with the same value
//! (core/v1 `ServiceSpec.Selector`); a Service without a selector, or of type
//! `ExternalName`, has no endpoints from pods.

use std::collections::BTreeMap;

use serde_json::Value;

use super::for_each_object;
use crate::yaml::{self, Document};

/// A Service that selects pods by label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Service {
    pub(crate) name: Option<String>,
    pub(crate) namespace: Option<String>,
    pub(crate) selector: BTreeMap<String, String>,
    pub(crate) ports: Vec<ServicePort>,
}

/// A port of a Service.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ServicePort {
    pub(crate) port: Option<i64>,
    /// The container port traffic goes to; `targetPort` defaults to `port`.
    pub(crate) target: Option<TargetPort>,
}

/// A Service's `targetPort`: a number, or the name of a container port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TargetPort {
    Number(i64),
    Name(String),
}

/// The Services with a selector in a document (or its `List`).
pub(crate) fn services_in(document: &Document) -> Vec<Service> {
    let mut found = Vec::new();
    for_each_object(document, |node, _, api_version, kind| {
        if api_version != "v1" || kind != "Service" {
            return;
        }
        if let Some(service) = yaml::to_json(document, node)
            .ok()
            .and_then(|value| service_of(&value))
        {
            found.push(service);
        }
    });
    found
}

fn service_of(value: &Value) -> Option<Service> {
    let spec = value.get("spec")?;
    if spec.get("type").and_then(Value::as_str) == Some("ExternalName") {
        return None;
    }
    let selector: BTreeMap<String, String> = spec
        .get("selector")?
        .as_object()?
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
        .collect();
    if selector.is_empty() {
        return None;
    }
    let metadata = |field: &str| {
        value
            .get("metadata")
            .and_then(|m| m.get(field))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let ports = spec
        .get("ports")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|port| {
            let number = port.get("port").and_then(Value::as_i64);
            let target = match port.get("targetPort") {
                Some(Value::Number(n)) => n.as_i64().map(TargetPort::Number),
                Some(Value::String(s)) => Some(match s.parse() {
                    Ok(n) => TargetPort::Number(n),
                    Err(_) => TargetPort::Name(s.clone()),
                }),
                _ => number.map(TargetPort::Number),
            };
            ServicePort {
                port: number,
                target,
            }
        })
        .collect();
    Some(Service {
        name: metadata("name"),
        namespace: metadata("namespace"),
        selector,
        ports,
    })
}

impl Service {
    /// Whether the Service sends traffic to pods with these labels in this namespace. A
    /// namespace left out on either side is taken to be the same one.
    pub(crate) fn selects(
        &self,
        namespace: Option<&str>,
        labels: &BTreeMap<String, String>,
    ) -> bool {
        if let (Some(own), Some(theirs)) = (self.namespace.as_deref(), namespace)
            && own != theirs
        {
            return false;
        }
        self.selector
            .iter()
            .all(|(key, value)| labels.get(key) == Some(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_by_every_selector_label_and_namespace() {
        let doc = yaml::parse_stream(
            "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: web}\n  spec:\n    selector: {app: web}\n    ports: [{port: 80, targetPort: http}, {port: 9090}]\n- apiVersion: v1\n  kind: Service\n  metadata: {name: ext}\n  spec: {type: ExternalName, externalName: example.com, selector: {app: web}}\n",
        );
        let services = services_in(&doc[0]);
        assert_eq!(services.len(), 1);
        let web = &services[0];
        assert_eq!(
            web.ports
                .iter()
                .map(|p| p.target.clone())
                .collect::<Vec<_>>(),
            [
                Some(TargetPort::Name("http".to_owned())),
                Some(TargetPort::Number(9090))
            ]
        );
        let labels = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let front = labels(&[("app", "web"), ("tier", "front")]);
        assert!(web.selects(None, &front));
        assert!(web.selects(Some("shop"), &front));
        assert!(!web.selects(None, &labels(&[("app", "api")])));
        let in_other_namespace = Service {
            namespace: Some("a".to_owned()),
            ..web.clone()
        };
        assert!(!in_other_namespace.selects(Some("b"), &front));
    }
}
