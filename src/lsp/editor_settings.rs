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
//! silent default. In a workspace that is not trusted ([`Trust::Untrusted`]) nothing is
//! rendered, and the settings that would change what runs — `configuration` and `render`,
//! which the workspace's own settings file may set — are left out, and said.

use std::path::Path;

use serde_json::Value;

use crate::run::{ConfigChoice, RunOptions};
use crate::settings::Selector;

/// The settings the server reads, with their JSON type: the one list the VS Code extension's
/// `package.json` (as `podcycle.KEY`) and `settings.ts` (`ServerSettings`) are checked against.
pub(crate) const SETTINGS: [(&str, SettingType); 6] = [
    ("configuration", SettingType::String),
    ("kubeVersion", SettingType::String),
    ("select", SettingType::Strings),
    ("ignore", SettingType::Strings),
    ("render", SettingType::Boolean),
    ("platforms", SettingType::Strings),
];

/// What a setting holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SettingType {
    String,
    Strings,
    Boolean,
}

/// Whether the server may trust the workspace it serves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trust {
    /// It may: rendering and every editor setting as the user sets them.
    #[default]
    Trusted,
    /// It may not (`podcycle lsp --isolated`, the editor in an untrusted workspace): nothing is
    /// rendered, and no editor setting changes what runs (`configuration`, `render`).
    Untrusted,
}

/// Reads the editor's settings in `value` into the options of the server's runs (a run with
/// no flags, and these); a relative `configuration` is taken from `base` (the first workspace
/// folder). Returns the problems of the values left out, one message each.
pub(crate) fn run_options(
    value: &Value,
    base: Option<&Path>,
    trust: Trust,
) -> (RunOptions, Vec<String>) {
    let (mut settings, mut problems) = trusted_run_options(value, base);
    if trust == Trust::Untrusted {
        for (key, changed) in [
            ("configuration", settings.config != ConfigChoice::Nearest),
            ("render", asks_to_render(value)),
        ] {
            if changed {
                problems.push(format!(
                    "setting `podcycle.{key}`: not used in a workspace that is not trusted"
                ));
            }
        }
        settings.config = ConfigChoice::Nearest;
        settings.rendering.disabled = true;
        settings.rendering.untrusted = true;
    }
    (settings, problems)
}

/// Whether the editor's settings turn rendering on.
fn asks_to_render(value: &Value) -> bool {
    let value = value.get("podcycle").unwrap_or(value);
    value.get("render") == Some(&Value::Bool(true))
}

fn trusted_run_options(value: &Value, base: Option<&Path>) -> (RunOptions, Vec<String>) {
    let value = value.get("podcycle").unwrap_or(value);
    let mut settings = RunOptions::default();
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
    // A misspelt key is said, not ignored.
    let known: Vec<&str> = SETTINGS.iter().map(|(key, _)| *key).collect();
    for key in value
        .as_object()
        .into_iter()
        .flat_map(|object| object.keys())
    {
        if !known.contains(&key.as_str()) {
            problem(key, format!("the server reads only {}", known.join(", ")));
        }
    }
    match value.get("configuration") {
        None | Some(Value::Null) => {}
        Some(Value::String(path)) if path.trim().is_empty() => {}
        Some(Value::String(path)) => {
            let path = Path::new(path);
            settings.config = ConfigChoice::File(match base {
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
            Err(bad) => problem("kubeVersion", bad.to_string()),
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
                        Some(Err(unknown)) => problem(key, unknown.to_string()),
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
        Some(Value::Bool(render)) => settings.rendering.disabled = !render,
        Some(other) => problem("render", format!("expected true or false, not `{other}`")),
    }
    // `--platform`: an empty list leaves the configuration's `platforms` in effect.
    match value.get("platforms") {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) if names.is_empty() => {}
        Some(Value::Array(names)) => {
            let mut platforms = Vec::new();
            for name in names {
                match name
                    .as_str()
                    .map(|n| crate::lifecycle::platforms::platform(n.trim()))
                {
                    Some(Some(platform)) => platforms.push(platform),
                    Some(None) => problem(
                        "platforms",
                        format!(
                            "unknown platform `{}`; the platforms are {}",
                            name.as_str().unwrap_or_default(),
                            crate::lifecycle::platforms::names()
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ),
                    None => problem(
                        "platforms",
                        format!("expected platform names, not `{name}`"),
                    ),
                }
            }
            settings.platforms = Some(platforms);
        }
        Some(other) => problem(
            "platforms",
            format!("expected a list of platform names, not `{other}`"),
        ),
    }
    (settings, problems)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use serde_json::json;

    use super::*;

    #[test]
    fn platforms_are_read_by_name() {
        let (options, problems) = run_options(
            &json!({"platforms": ["gke-spot", "aws-spott"]}),
            None,
            Trust::Trusted,
        );
        let names: Vec<&str> = options.platforms.unwrap().iter().map(|p| p.name).collect();
        assert_eq!(names, ["gke-spot"]);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].contains("unknown platform `aws-spott`"),
            "{problems:?}"
        );
    }

    /// The server reads every setting of [`SETTINGS`]: a value of the wrong type is said.
    #[test]
    fn reads_the_settings_listed() {
        for (key, kind) in SETTINGS {
            let wrong = match kind {
                SettingType::Boolean => json!("yes"),
                SettingType::String | SettingType::Strings => json!(7),
            };
            let (_, problems) = run_options(&json!({ key: wrong }), None, Trust::Trusted);
            assert_eq!(problems.len(), 1, "{key}: {problems:?}");
            assert!(problems[0].starts_with(&format!("setting `podcycle.{key}`")));
        }
        let (_, problems) = run_options(&json!({"kubeversion": "1.30"}), None, Trust::Trusted);
        assert_eq!(
            problems,
            [
                "setting `podcycle.kubeversion`: the server reads only configuration, kubeVersion, select, ignore, render, platforms"
            ]
        );
    }

    /// VS Code's `package.json` contributes `podcycle.KEY` for each setting the server reads, of
    /// its type, and the extension's `ServerSettings` passes each of them, read with the same
    /// default; the extension's own (`path`, `trace.server`) are the only others.
    #[test]
    fn the_vs_code_extension_passes_the_settings_the_server_reads() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("package.json")).unwrap())
                .unwrap();
        let properties = manifest["contributes"]["configuration"]["properties"]
            .as_object()
            .unwrap();
        let mut contributed: Vec<&str> = properties
            .keys()
            .map(|key| key.strip_prefix("podcycle.").unwrap())
            .collect();
        contributed.sort_unstable();
        let mut expected: Vec<&str> = SETTINGS.iter().map(|(key, _)| *key).collect();
        expected.extend(["path", "trace.server"]);
        expected.sort_unstable();
        assert_eq!(contributed, expected);

        let source = std::fs::read_to_string(root.join("src/settings.ts")).unwrap();
        let interface = &source[source.find("export interface ServerSettings {").unwrap()..];
        let interface = &interface[..interface.find('}').unwrap()];
        let fields: Vec<(&str, &str)> = interface
            .lines()
            .skip(1)
            .filter_map(|line| line.trim().strip_suffix(';')?.split_once(": "))
            .collect();
        let read = &source[source.find("export function serverSettings()").unwrap()..];
        for (key, kind) in SETTINGS {
            let property = &properties[&format!("podcycle.{key}")];
            let (json_type, ts_type, default) = match kind {
                SettingType::String => ("string", "string", "\"\""),
                SettingType::Strings => ("array", "string[]", "[]"),
                SettingType::Boolean => ("boolean", "boolean", "true"),
            };
            assert_eq!(property["type"], json_type, "{key}");
            assert_eq!(property["default"].to_string(), default, "{key}");
            assert!(fields.contains(&(key, ts_type)), "{key}: {fields:?}");
            assert!(
                read.contains(&format!("{key}: "))
                    && read.contains(&format!("(\"{key}\", {default})")),
                "settings.ts does not read `{key}` with the default {default}"
            );
        }
        assert_eq!(fields.len(), SETTINGS.len(), "{fields:?}");
    }

    #[test]
    fn reads_each_setting() {
        let (settings, problems) = run_options(
            &json!({"podcycle": {
                "configuration": "ci/.podcycle.yaml",
                "kubeVersion": "v1.30",
                "select": ["correctness"],
                "ignore": ["container-restart-policy"],
                "render": false,
            }}),
            Some(Path::new("/work")),
            Trust::Trusted,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            settings.config,
            ConfigChoice::File(PathBuf::from("/work/ci/.podcycle.yaml"))
        );
        assert_eq!(
            settings.kube_version.map(|v| v.to_string()),
            Some("1.30".into())
        );
        assert_eq!(settings.selection.select.len(), 1);
        assert_eq!(settings.selection.ignore.len(), 1);
        assert!(settings.rendering.disabled);
    }

    #[test]
    fn empty_values_mean_unset() {
        let (settings, problems) = run_options(
            &json!({"configuration": "", "kubeVersion": " ", "select": [], "render": null}),
            None,
            Trust::Trusted,
        );
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(settings.config, ConfigChoice::Nearest);
        assert!(settings.kube_version.is_none());
        assert!(!settings.rendering.disabled);
        assert!(run_options(&Value::Null, None, Trust::Trusted).1.is_empty());
    }

    #[test]
    fn values_that_cannot_be_used_are_said_and_left_out() {
        let (settings, problems) = run_options(
            &json!({
                "kubeVersion": "2.1",
                "select": ["correctness", "init-container-nope", 3],
                "ignore": "all",
                "render": "yes",
                "configuration": 7,
            }),
            None,
            Trust::Trusted,
        );
        assert_eq!(settings.selection.select.len(), 1);
        assert!(settings.kube_version.is_none() && !settings.rendering.disabled);
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

    /// In a workspace that is not trusted, nothing renders and the settings that would change
    /// what runs are left out, and said.
    #[test]
    fn an_untrusted_workspace_renders_nothing_whatever_its_settings() {
        let (settings, problems) = run_options(
            &json!({"podcycle": {
                "configuration": "/elsewhere/.podcycle.yaml",
                "render": true,
                "select": ["correctness"],
            }}),
            Some(Path::new("/work")),
            Trust::Untrusted,
        );
        assert!(settings.rendering.disabled && settings.rendering.untrusted);
        assert_eq!(settings.config, ConfigChoice::Nearest);
        assert_eq!(
            settings.selection.select.len(),
            1,
            "lint settings still apply"
        );
        let all = problems.join("\n");
        assert!(
            all.contains("`podcycle.configuration`: not used in a workspace that is not trusted"),
            "{all}"
        );
        assert!(all.contains("`podcycle.render`: not used"), "{all}");
        let (settings, problems) = run_options(&Value::Null, None, Trust::Untrusted);
        assert!(settings.rendering.disabled && problems.is_empty());
    }
}
