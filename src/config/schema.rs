//! The JSON schema of the configuration file, generated from [`ConfigFile`]
//! and committed as `docs/schema/podcycle.schema.json` (a test fails when it is stale), so that
//! editors with yaml-language-server complete and check the file. Rule names, categories and
//! severities are listed from the registry.

use schemars::{Schema, SchemaGenerator, json_schema};
use serde_json::{Value, json};

use super::{ConfigFile, SCHEMA_URL};
use crate::rules::{ALL_RULES, Category, REDIRECTS, Redirect};
use crate::settings::FailOn;

/// The schema, as committed: pretty JSON ending with a newline.
pub fn json_schema() -> String {
    let mut schema = schemars::schema_for!(ConfigFile);
    schema.insert("$id".to_owned(), SCHEMA_URL.into());
    let mut schema = schema.to_value();
    drop_null_defaults(&mut schema);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// Every key is optional, and `#[serde(default)]` makes schemars say `"default": null` for
/// each, which contradicts the key's type; an absent key says the same.
fn drop_null_defaults(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("default").is_some_and(Value::is_null) {
                map.remove("default");
            }
            map.values_mut().for_each(drop_null_defaults);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_defaults),
        _ => {}
    }
}

/// A rule name, a category or `all`, each with what it means.
fn selector() -> Value {
    let mut choices = vec![json!({"const": "all", "description": "every rule"})];
    choices.extend(Category::ALL.iter().map(|category| {
        json!({
            "const": category.as_str(),
            "description": format!("every `{category}` rule"),
        })
    }));
    choices.extend(rule_choices());
    json!({"oneOf": choices})
}

fn rule_choices() -> impl Iterator<Item = Value> {
    let rules = ALL_RULES
        .iter()
        .map(|rule| json!({"const": rule.name, "description": rule.summary}));
    let former = REDIRECTS.iter().map(|redirect| {
        json!({"const": redirect.from, "description": renamed(redirect), "deprecated": true})
    });
    rules.chain(former)
}

/// What a former rule name stands for now.
fn renamed(redirect: &Redirect) -> String {
    let names: Vec<String> = redirect
        .to
        .iter()
        .map(|r| format!("`{}`", r.name))
        .collect();
    format!("former name of {}", names.join(", "))
}

pub(super) fn selectors(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"type": "array", "items": selector()})
}

pub(super) fn severities(_: &mut SchemaGenerator) -> Schema {
    let severity = json!({"enum": ["error", "warning", "info"]});
    let properties: serde_json::Map<String, Value> = ALL_RULES
        .iter()
        .map(|rule| {
            let mut entry = severity.clone();
            entry["description"] =
                format!("{} (default: {})", rule.summary, rule.default_severity).into();
            (rule.name.to_owned(), entry)
        })
        .chain(REDIRECTS.iter().map(|redirect| {
            let mut entry = severity.clone();
            entry["description"] = renamed(redirect).into();
            entry["deprecated"] = true.into();
            (redirect.from.to_owned(), entry)
        }))
        .collect();
    json_schema!({
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
    })
}

pub(super) fn fail_on(_: &mut SchemaGenerator) -> Schema {
    json_schema!({"enum": FailOn::NAMES})
}

pub(super) fn per_path_ignores(generator: &mut SchemaGenerator) -> Schema {
    json_schema!({
        "type": "object",
        "additionalProperties": selectors(generator),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_lists_every_key_and_rule() {
        let schema: Value = serde_json::from_str(&json_schema()).unwrap();
        let keys: Vec<&str> = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        for key in [
            "kube-version",
            "select",
            "severity",
            "per-path-ignores",
            "sidecars",
        ] {
            assert!(keys.contains(&key), "{key} missing from {keys:?}");
        }
        assert_eq!(schema["additionalProperties"], false);
        let text = json_schema();
        for rule in ALL_RULES {
            assert!(
                text.contains(&format!("\"{}\"", rule.name)),
                "{}",
                rule.name
            );
        }
    }
}
