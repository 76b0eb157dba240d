use super::*;
use crate::rules::find_rule;

fn problems(text: &str) -> Vec<(String, String, Option<String>)> {
    let file = SourceFile::new(".podcycle.yaml", text);
    match parse(&file) {
        Ok(_) => Vec::new(),
        Err(problems) => problems
            .into_iter()
            .map(|p| (text[p.span.range()].to_owned(), p.message, p.help))
            .collect(),
    }
}

fn config(text: &str) -> Config {
    parse(&SourceFile::new(".podcycle.yaml", text)).unwrap_or_else(|p| panic!("{p:?}"))
}

fn problem(text: &str) -> (String, String, Option<String>) {
    let mut found = problems(text);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

#[test]
fn empty_files_and_the_starter_are_valid() {
    assert!(problems("").is_empty());
    assert!(problems("# nothing yet\n").is_empty());
    assert!(problems(STARTER).is_empty());
    assert!(STARTER.starts_with(&format!("# yaml-language-server: $schema={SCHEMA_URL}\n")));
}

/// `podcycle init` shows every key of the configuration, and each example is valid: the
/// starter with its examples uncommented reads without problems.
#[test]
fn the_starter_shows_every_key_with_a_valid_example() {
    let schema: serde_json::Value = serde_json::from_str(&json_schema()).unwrap();
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert!(keys.len() >= 12, "{keys:?}");
    // The examples: commented lines that start with a key, or are indented under one.
    let examples: Vec<&str> = STARTER
        .lines()
        .filter_map(|line| line.strip_prefix("# "))
        .filter(|rest| {
            rest.starts_with("  ") || keys.iter().any(|key| rest.starts_with(&format!("{key}:")))
        })
        .collect();
    for key in &keys {
        assert!(
            examples
                .iter()
                .any(|line| line.starts_with(&format!("{key}:"))),
            "`podcycle init` does not show `{key}`"
        );
    }
    let uncommented = examples.join("\n") + "\n";
    assert_eq!(problems(&uncommented), [], "{uncommented}");
}

/// Every problem of a file is reported at once, each at its place: values of the wrong type and
/// unknown keys (which stop serde) as well as unknown names (which the checks after it find).
#[test]
fn every_problem_is_reported_at_once() {
    let text = "ignroe: [advice]\nfail-on: [warning]\nselect: [nope]\nhelm:\n  charts:\n    - path: web\n      releas: web\n    - path: api\n      values: api.yaml\nexclude: ['[']\n";
    let found = problems(text);
    let at: Vec<(usize, &str)> = found
        .iter()
        .map(|(written, message, _)| {
            let offset = text.find(written.as_str()).unwrap();
            (text[..offset].matches('\n').count() + 1, message.as_str())
        })
        .collect();
    let lines: Vec<usize> = at.iter().map(|(line, _)| *line).collect();
    assert_eq!(lines, [1, 2, 3, 7, 9, 10], "{found:#?}");
    assert!(at[0].1.contains("unknown key `ignroe`"), "{at:?}");
    assert!(at[3].1.contains("unknown key `releas`"), "{at:?}");
    // A list where a string goes is not a number to quote.
    assert_eq!(found[1].2, None, "{found:#?}");
}

#[test]
fn unknown_keys_are_located_with_a_suggestion() {
    assert_eq!(
        problem("select: [advice]\nignroe: [advice]\n"),
        (
            "ignroe".to_owned(),
            "unknown key `ignroe`".to_owned(),
            Some("did you mean `ignore`?".to_owned())
        )
    );
    let (at, message, help) = problem("sidecars:\n  - names: [x]\n    image: [y]\n");
    assert_eq!(at, "image");
    assert_eq!(message, "unknown key `image` in a `sidecars` entry");
    assert_eq!(help.as_deref(), Some("did you mean `images`?"));
}

#[test]
fn wrong_types_are_located() {
    let (at, message, _) = problem("select: advice\n");
    assert_eq!(at, "advice");
    assert_eq!(
        message,
        "`select`: invalid type: string \"advice\", expected a list"
    );
    let (at, _, help) = problem("kube-version: 1.30\n");
    assert_eq!(at, "1.30");
    assert!(help.unwrap().starts_with("quote the value"));
    // The help names what was written, not an example.
    let (_, _, help) = problem("kube-version: 1.29\n");
    let help = help.unwrap();
    assert!(
        help.contains("`\"1.29\"`") && !help.contains("1.30"),
        "{help}"
    );
}

#[test]
fn names_and_globs_are_checked_where_they_are_written() {
    let found = problems(
        "select: [advice, corectness]\n\
         severity:\n  init-container-probes: error\n  duplicate-key: errror\n\
         fail-on: warn\n\
         exclude: [\"a/{b\"]\n\
         per-path-ignores:\n  \"tests/**\": [pedantik]\n\
         sidecars:\n  - description: nothing\n  - names: [\"[\"]\n\
         kube-version: \"1.x\"\n",
    );
    let found: Vec<(&str, &str)> = found
        .iter()
        .map(|(at, message, _)| (at.as_str(), message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("corectness", "unknown rule or category `corectness`"),
            (
                "init-container-probes",
                "unknown rule `init-container-probes`"
            ),
            ("errror", "unknown severity `errror`"),
            ("warn", "unknown fail level `warn`"),
            (
                "\"a/{b\"",
                "invalid glob `a/{b`: unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"
            ),
            ("pedantik", "unknown rule or category `pedantik`"),
            (
                "description: nothing",
                "a sidecar entry needs `names`, `images` or both"
            ),
            (
                "\"[\"",
                "invalid glob `[`: unclosed character class; missing ']'"
            ),
            (
                "\"1.x\"",
                "invalid Kubernetes version `1.x`; write it as 1.MINOR or 1.MINOR.PATCH, for example 1.33 or 1.33.2"
            ),
        ]
    );
}

#[test]
fn documents_and_syntax_are_checked() {
    let (_, message, _) = problem("select: [a\n");
    assert!(!message.is_empty());
    assert_eq!(
        problem("select: []\n---\nignore: []\n").1,
        "the configuration must be a single YAML document"
    );
    assert_eq!(
        problem("select: []\nselect: []\n").1,
        "duplicate key `select`"
    );
    assert_eq!(
        problem("- select\n").1,
        "the configuration must be a mapping of keys to values"
    );
}

#[test]
fn settings_follow_the_file_and_the_command_line() {
    let config = config(
        "ignore: [advice]\n\
         severity: {poststart-blocks-sidecar: error}\n\
         per-path-ignores: {\"tests/**\": [duplicate-key], \"*.json\": [correctness]}\n\
         exclude: [vendor, \"generated/*.yaml\"]\n\
         sidecars: [{names: [\"*-agent\"]}]\n\
         fail-on: error\n",
    );
    let settings = config.settings(&Selection::default());
    assert!(settings.enabled("poststart-delays-containers").is_none());
    let rule = find_rule("poststart-blocks-sidecar").unwrap();
    assert_eq!(settings.severity(rule), Severity::Error);
    assert_eq!(config.fail_on, Some(FailOn::Error));
    let cli = Selection {
        extend_select: vec![Selector::parse("advice").unwrap()],
        ..Selection::default()
    };
    assert!(
        config
            .settings(&cli)
            .enabled("poststart-delays-containers")
            .is_some()
    );

    let ignored = |path: &str| config.ignored_for(Path::new(path)).len();
    assert_eq!(ignored("tests/a/b.yaml"), 1);
    assert_eq!(ignored("deploy/tests.yaml"), 0);
    assert_eq!(ignored("deploy/app.json"), 1);
    assert!(config.excludes(Path::new("vendor/x.yaml")));
    assert!(config.excludes(Path::new("deploy/vendor/x/y.yaml")));
    assert!(config.excludes(Path::new("generated/a.yaml")));
    assert!(!config.excludes(Path::new("generated/sub/a.yml")));
    assert!(!config.excludes(Path::new("deploy/app.yaml")));
    let container = crate::model::core::Container {
        name: "log-agent".to_owned(),
        ..Default::default()
    };
    assert_eq!(
        settings.sidecars().recognise(&container),
        Some("configured sidecar")
    );
}

#[test]
fn the_rollout_budget_is_a_positive_number_of_seconds() {
    let settings = config("rollout-budget-seconds: 900\n").settings(&Selection::default());
    assert_eq!(settings.rollout_budget_seconds, 900);
    let default = config("").settings(&Selection::default());
    assert_eq!(
        default.rollout_budget_seconds,
        crate::settings::DEFAULT_ROLLOUT_BUDGET_SECONDS
    );
    let (at, message, _) = problem("rollout-budget-seconds: 0\n");
    assert_eq!(at, "0");
    assert_eq!(
        message,
        "`rollout-budget-seconds` is 0; it must be at least 1"
    );
}

#[test]
fn platforms_are_names_from_the_table() {
    let settings =
        config("platforms: [gke-spot, cluster-autoscaler]\n").settings(&Selection::default());
    let names: Vec<&str> = settings.platforms.iter().map(|p| p.name).collect();
    assert_eq!(names, ["gke-spot", "cluster-autoscaler"]);
    let (at, message, help) = problem("platforms: [gke-spot, gke-spto]\n");
    assert_eq!(at, "gke-spto");
    assert_eq!(message, "unknown platform `gke-spto`");
    assert!(help.unwrap().contains("aws-spot"));
}
