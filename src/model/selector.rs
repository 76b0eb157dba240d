//! Label selectors as Kubernetes reads them (apimachinery `pkg/apis/meta/v1/helpers.go`,
//! `LabelSelectorAsSelector`, and `pkg/labels/selector.go`, `Requirement.Matches`): a missing
//! selector selects nothing, an empty one everything; `matchLabels` and every expression of
//! `matchExpressions` must all hold.

use std::collections::BTreeMap;

use podcycle_k8s::k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

/// What a selector selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Selects {
    /// `selector` is missing: `labels.Nothing()`.
    Nothing,
    /// `selector: {}`: `labels.Everything()`.
    Everything,
    /// Pods whose labels satisfy every requirement.
    Matching,
    /// An operator Kubernetes does not know, or values an operator does not take:
    /// `LabelSelectorAsSelector` fails, and the object selects no pod (`GetPodPodDisruptionBudgets`,
    /// the eviction API's `getPodDisruptionBudgets`: "an invalid selector does not match").
    Invalid,
}

/// How `selector` selects, before any labels are looked at.
pub(crate) fn selects(selector: Option<&LabelSelector>) -> Selects {
    let Some(selector) = selector else {
        return Selects::Nothing;
    };
    let labels = selector.match_labels.as_ref().map_or(0, BTreeMap::len);
    let expressions = selector.match_expressions.as_deref().unwrap_or_default();
    if labels + expressions.len() == 0 {
        return Selects::Everything;
    }
    // `labels.NewRequirement`: `In` and `NotIn` need values, `Exists` and `DoesNotExist` take
    // none; no other operator exists.
    let valid = expressions.iter().all(|e| {
        let values = e.values.as_deref().unwrap_or_default();
        match e.operator.as_str() {
            "In" | "NotIn" => !values.is_empty(),
            "Exists" | "DoesNotExist" => values.is_empty(),
            _ => false,
        }
    });
    if valid {
        Selects::Matching
    } else {
        Selects::Invalid
    }
}

/// Whether `selector` selects a pod with `labels`.
pub(crate) fn matches(selector: Option<&LabelSelector>, labels: &BTreeMap<String, String>) -> bool {
    match selects(selector) {
        Selects::Nothing | Selects::Invalid => false,
        Selects::Everything => true,
        Selects::Matching => {
            let Some(selector) = selector else {
                return false;
            };
            let equal = selector
                .match_labels
                .iter()
                .flatten()
                .all(|(key, value)| labels.get(key) == Some(value));
            equal
                && selector.match_expressions.iter().flatten().all(|e| {
                    let values = e.values.as_deref().unwrap_or_default();
                    let value = labels.get(&e.key);
                    match e.operator.as_str() {
                        "In" => value.is_some_and(|v| values.contains(v)),
                        "NotIn" => value.is_none_or(|v| !values.contains(v)),
                        "Exists" => value.is_some(),
                        "DoesNotExist" => value.is_none(),
                        _ => false,
                    }
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use podcycle_k8s::k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn expression(key: &str, operator: &str, values: &[&str]) -> LabelSelectorRequirement {
        LabelSelectorRequirement {
            key: key.to_owned(),
            operator: operator.to_owned(),
            values: (!values.is_empty()).then(|| values.iter().map(|v| (*v).to_owned()).collect()),
        }
    }

    #[test]
    fn missing_selects_nothing_and_empty_everything() {
        let pod = labels(&[("app", "web")]);
        assert!(!matches(None, &pod));
        assert!(matches(Some(&LabelSelector::default()), &pod));
    }

    #[test]
    fn labels_and_expressions_must_all_hold() {
        let selector = LabelSelector {
            match_labels: Some(labels(&[("app", "web")])),
            match_expressions: Some(vec![
                expression("tier", "In", &["front", "edge"]),
                expression("canary", "DoesNotExist", &[]),
                expression("zone", "NotIn", &["b"]),
            ]),
        };
        assert!(matches(
            Some(&selector),
            &labels(&[("app", "web"), ("tier", "edge"), ("zone", "a")])
        ));
        assert!(matches(
            Some(&selector),
            &labels(&[("app", "web"), ("tier", "front")])
        ));
        assert!(!matches(
            Some(&selector),
            &labels(&[("app", "web"), ("tier", "back")])
        ));
        assert!(!matches(
            Some(&selector),
            &labels(&[("app", "web"), ("tier", "front"), ("canary", "1")])
        ));
        assert!(!matches(
            Some(&selector),
            &labels(&[("app", "api"), ("tier", "front")])
        ));
    }

    #[test]
    fn an_invalid_selector_selects_nothing() {
        let selector = LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![expression("app", "In", &[])]),
        };
        assert_eq!(selects(Some(&selector)), Selects::Invalid);
        assert!(!matches(Some(&selector), &labels(&[("app", "web")])));
        let unknown = LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![expression("app", "Equals", &["web"])]),
        };
        assert!(!matches(Some(&unknown), &labels(&[("app", "web")])));
    }
}
