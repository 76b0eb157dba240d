//! The generated documentation is up to date, and the examples in it do what they say.

use std::fs;
use std::path::Path;

use podcycle::cli::render_for_tests;
use podcycle::docs;
use podcycle::rules::ALL_RULES;
use podcycle::settings::Settings;

fn check_or_update(path: &Path, expected: &str, stale: &mut Vec<String>) {
    let actual = fs::read_to_string(path).unwrap_or_default();
    if actual == expected {
        return;
    }
    if std::env::var_os("UPDATE_DOCS").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, expected).unwrap();
    } else {
        stale.push(path.display().to_string());
    }
}

#[test]
fn generated_rule_docs_are_up_to_date() {
    let mut stale = Vec::new();
    let dir = Path::new("docs/rules");
    check_or_update(&dir.join("README.md"), &docs::index_page(), &mut stale);
    for rule in ALL_RULES {
        check_or_update(
            &dir.join(format!("{}.md", rule.name)),
            &docs::rule_page(rule),
            &mut stale,
        );
    }
    for entry in fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let known =
            name == "README.md" || ALL_RULES.iter().any(|r| format!("{}.md", r.name) == name);
        if !known {
            stale.push(format!("docs/rules/{name} (no such rule)"));
        }
    }
    assert!(
        stale.is_empty(),
        "stale generated docs: {}\nrun `UPDATE_DOCS=1 cargo test --test docs` to regenerate them",
        stale.join(", ")
    );
}

#[test]
fn every_rule_documents_what_why_example_and_references() {
    for rule in ALL_RULES {
        let doc = rule.documentation();
        for section in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## References",
        ] {
            assert!(doc.contains(section), "{} lacks `{section}`", rule.name);
        }
        assert!(
            !rule.summary.ends_with('.')
                && rule.summary.chars().next().is_some_and(char::is_lowercase),
            "{}: the summary starts lowercase and has no final period",
            rule.name
        );
    }
}

#[test]
fn doc_examples_trigger_the_rule_and_fixes_do_not() {
    for rule in ALL_RULES {
        let examples = docs::yaml_examples(rule);
        assert!(
            examples.len() >= 2,
            "{}: needs a failing example and a fix",
            rule.name
        );
        let settings = Settings::only(rule.name).unwrap();
        for (index, example) in examples.iter().enumerate() {
            let (found, rendered) = render_for_tests("example.yaml", example, &settings);
            if index == 0 {
                assert!(
                    !found.is_empty(),
                    "{}: the first example does not trigger it",
                    rule.name
                );
            } else {
                assert!(
                    found.is_empty(),
                    "{}: fix #{index} still triggers it:\n{rendered}",
                    rule.name
                );
            }
        }
    }
}
