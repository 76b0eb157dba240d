//! The settings an editor passes to the server — in `initializationOptions`, and again in
//! `workspace/didChangeConfiguration` when the user changes them — which are the command
//! line's options for `check`: `--config`, `--kube-version`, `--select`, `--ignore` and
//! `--no-render`.
//!
//! The object may come as it is or under a `podcycle` key (VS Code's section):
//!
//! ```json
//! { "configuration": "ci/.podcycle.yaml", "kubeVersion": "1.31",
//!   "select": ["correctness"], "ignore": ["container-restart-policy"], "render": true }
//! ```
//!
//! A value that cannot be used is left out, and said: as on the command line, never a
//! silent default.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::settings::{Selection, Selector};
use crate::versions::KubeVersion;

/// The editor's settings, read.
#[derive(Debug)]
pub struct EditorSettings {
    /// The configuration file of every document, in place of the nearest `.podcycle.yaml`
    /// (`--config`).
    pub configuration: Option<PathBuf>,
    /// `--kube-version`: over the configuration's `kube-version`.
    pub kube_version: Option<KubeVersion>,
    /// `--select` and `--ignore`: over the configuration's rule selection.
    pub selection: Selection,
    /// Whether Helm charts and Kustomize overlays are rendered (`--no-render` when not).
    pub render: bool,
}

impl Default for EditorSettings {
    fn default() -> EditorSettings {
        EditorSettings {
            configuration: None,
            kube_version: None,
            selection: Selection::default(),
            render: true,
        }
    }
}

impl EditorSettings {
    /// Reads the settings in `value`; a relative `configuration` is taken from `base` (the
    /// first workspace folder). Returns the problems of the values left out, one message each.
    pub fn read(value: &Value, base: Option<&Path>) -> (EditorSettings, Vec<String>) {
        let value = value.get("podcycle").unwrap_or(value);
        let mut settings = EditorSettings::default();
        let mut problems = Vec::new();
        if value.is_null() {
            return (settings, problems);
        }
        if !value.is_object() {
            problems.push(format!("the settings must be an object, not `{value}`"));
            return (settings, problems);
        }
        let mut problem = |key: &str, message: String| {
            problems.push(format!("setting `podcycle.{key}`: {message}"));
        };
        match value.get("configuration") {
            None | Some(Value::Null) => {}
            Some(Value::String(path)) if path.trim().is_empty() => {}
            Some(Value::String(path)) => {
                let path = Path::new(path);
                settings.configuration = Some(match base {
                    Some(base) if path.is_relative() => base.join(path),
                    _ => path.to_owned(),
                });
            }
            Some(other) => problem(
                "configuration",
                format!("expected the path of a configuration file, not `{other}`"),
            ),
        }
        match value.get("kubeVersion") {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) if text.trim().is_empty() => {}
            Some(Value::String(text)) => match text.parse() {
                Ok(version) => settings.kube_version = Some(version),
                Err(message) => problem("kubeVersion", message),
            },
            Some(other) => problem(
                "kubeVersion",
                format!("expected a version such as \"1.33\", not `{other}`"),
            ),
        }
        for (key, selectors) in [
            ("select", &mut settings.selection.select),
            ("ignore", &mut settings.selection.ignore),
        ] {
            match value.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::Array(names)) => {
                    for name in names {
                        match name.as_str().map(|name| Selector::parse(name.trim())) {
                            Some(Ok(selector)) => selectors.push(selector),
                            Some(Err(message)) => problem(key, message),
                            None => problem(
                                key,
                                format!("expected rule or category names, not `{name}`"),
                            ),
                        }
                    }
                }
                Some(other) => problem(
                    key,
                    format!("expected a list of rule or category names, not `{other}`"),
                ),
            }
        }
        match value.get("render") {
            None | Some(Value::Null) => {}
            Some(Value::Bool(render)) => settings.render = *render,
            Some(other) => problem("render", format!("expected true or false, not `{other}`")),
        }
        (settings, problems)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_each_setting() {
        let (settings, problems) = EditorSettings::read(
            &json!({"podcycle": {
                "configuration": "ci/.podcycle.yaml",
                "kubeVersion": "v1.30",
                "select": ["correctness"],
                "ignore": ["container-restart-policy"],
                "render": false,
            }}),
            Some(Path::new("/work")),
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            settings.configuration,
            Some(PathBuf::from("/work/ci/.podcycle.yaml"))
        );
        assert_eq!(
            settings.kube_version.map(|v| v.to_string()),
            Some("1.30".into())
        );
        assert_eq!(settings.selection.select.len(), 1);
        assert_eq!(settings.selection.ignore.len(), 1);
        assert!(!settings.render);
    }

    #[test]
    fn empty_values_mean_unset() {
        let (settings, problems) = EditorSettings::read(
            &json!({"configuration": "", "kubeVersion": " ", "select": [], "render": null}),
            None,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert!(settings.configuration.is_none() && settings.kube_version.is_none());
        assert!(settings.render);
        assert!(EditorSettings::read(&Value::Null, None).1.is_empty());
    }

    #[test]
    fn values_that_cannot_be_used_are_said_and_left_out() {
        let (settings, problems) = EditorSettings::read(
            &json!({
                "kubeVersion": "2.1",
                "select": ["correctness", "init-container-nope", 3],
                "ignore": "all",
                "render": "yes",
                "configuration": 7,
            }),
            None,
        );
        assert_eq!(settings.selection.select.len(), 1);
        assert!(settings.kube_version.is_none() && settings.render);
        let all = problems.join("\n");
        for expected in [
            "`podcycle.kubeVersion`: invalid Kubernetes version `2.1`",
            "`podcycle.select`: unknown rule or category `init-container-nope`",
            "`podcycle.select`: expected rule or category names, not `3`",
            "`podcycle.ignore`: expected a list",
            "`podcycle.render`: expected true or false",
            "`podcycle.configuration`: expected the path",
        ] {
            assert!(all.contains(expected), "{expected} in {all}");
        }
    }
}
