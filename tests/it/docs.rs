//! The generated documentation is up to date, and the examples in it do what they say.

use std::fs;
use std::path::Path;

use podcycle::cli::render_for_tests;
use podcycle::docs;
use podcycle::rules::ALL_RULES;
use podcycle::settings::Settings;

use crate::common;

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
        "stale generated docs: {}\nrun `UPDATE_DOCS=1 cargo test --test it docs::` to regenerate them",
        stale.join(", ")
    );
}

#[test]
fn the_platforms_page_is_up_to_date() {
    let mut stale = Vec::new();
    check_or_update(
        Path::new("docs/platforms.md"),
        &docs::platforms_page(),
        &mut stale,
    );
    assert!(
        stale.is_empty(),
        "stale generated docs: {}\nrun `UPDATE_DOCS=1 cargo test --test it docs::` to regenerate them",
        stale.join(", ")
    );
}

/// Every number in the platforms table carries a citation: a row with seconds has a source
/// link and the date it was read (read from the page as Markdown, not from the code).
#[test]
fn every_platform_number_carries_a_citation() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    let text = docs::platforms_page();
    let mut rows: Vec<(Vec<String>, usize)> = Vec::new();
    let mut in_first_table = false;
    let mut tables = 0;
    let mut cell: Option<String> = None;
    for event in Parser::new_ext(&text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(_)) => {
                tables += 1;
                in_first_table = tables == 1;
            }
            Event::End(TagEnd::Table) => in_first_table = false,
            Event::Start(Tag::TableRow) if in_first_table => rows.push((Vec::new(), 0)),
            Event::Start(Tag::TableCell) if in_first_table => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) if in_first_table => {
                if let (Some(row), Some(cell)) = (rows.last_mut(), cell.take()) {
                    row.0.push(cell);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) if in_first_table && cell.is_some() => {
                assert!(dest_url.starts_with("https://"), "{dest_url}");
                if let Some(row) = rows.last_mut() {
                    row.1 += 1;
                }
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some(cell) = &mut cell {
                    cell.push_str(&text);
                }
            }
            _ => {}
        }
    }
    assert!(rows.len() >= 9, "{rows:?}");
    for (cells, links) in &rows {
        let seconds = &cells[3];
        assert!(seconds.parse::<i64>().is_ok_and(|s| s > 0), "{cells:?}");
        assert!(*links >= 1, "a number without a source: {cells:?}");
        assert!(
            cells[5].contains("(read 20"),
            "a source without its date: {cells:?}"
        );
    }
}

/// The rules index is a table as GitHub renders it (a GitHub-flavoured Markdown table, read by a
/// Markdown parser, not compared with what generated it): one row per rule, each cell filled.
#[test]
fn the_rules_index_is_a_table_with_a_row_per_rule() {
    use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

    let text = fs::read_to_string("docs/rules/README.md").unwrap();
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut cell: Option<String> = None;
    for event in Parser::new_ext(&text, Options::ENABLE_TABLES) {
        match event {
            Event::Start(Tag::Table(_)) => tables.push(Vec::new()),
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                tables.last_mut().unwrap().push(Vec::new());
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let row = tables.last_mut().unwrap().last_mut().unwrap();
                row.push(cell.take().unwrap());
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some(cell) = &mut cell {
                    cell.push_str(&text);
                }
            }
            _ => {}
        }
    }
    // The index is the first table; the measured severities follow it in a table of their own.
    let index = tables
        .first()
        .unwrap_or_else(|| panic!("docs/rules/README.md has no table"));
    let (header, rows) = index.split_first().unwrap();
    assert_eq!(
        header,
        &[
            "Rule",
            "Category",
            "Default severity",
            "Enforced by",
            "Fix",
            "Finds"
        ]
    );
    let names: Vec<&str> = rows.iter().map(|row| row[0].as_str()).collect();
    let expected: Vec<&str> = ALL_RULES.iter().map(|rule| rule.name).collect();
    assert_eq!(names, expected, "a row per rule, in the registry's order");
    for (row, rule) in rows.iter().zip(ALL_RULES) {
        assert_eq!(row.len(), header.len(), "{row:?}");
        assert_eq!(row[1], rule.category.as_str());
        assert!(
            row[2].starts_with(&rule.default_severity.to_string()),
            "{row:?}"
        );
        assert_eq!(row[5], rule.summary);
    }
}

/// The README states the `--kube-version` default the code has.
#[test]
fn the_readme_states_the_default_kube_version() {
    let readme = fs::read_to_string("README.md").unwrap();
    let stated = format!(
        "else the newest version modelled, {}",
        podcycle::versions::NEWEST_MODELLED
    );
    assert!(readme.contains(&stated), "README.md should say `{stated}`");
}

/// The shell completions and man pages in `assets/` are generated from the command-line
/// definition; a new option must show up in them.
#[test]
fn completions_and_man_pages_are_up_to_date() {
    use clap::CommandFactory;
    use clap_complete::Shell;

    let mut stale = Vec::new();
    let dir = Path::new("assets/completions");
    for (shell, file) in [
        (Shell::Bash, "podcycle.bash"),
        (Shell::Zsh, "_podcycle"),
        (Shell::Fish, "podcycle.fish"),
        (Shell::PowerShell, "_podcycle.ps1"),
        (Shell::Elvish, "podcycle.elv"),
    ] {
        let mut script = Vec::new();
        podcycle::cli::write_completions(shell, &mut script).unwrap();
        check_or_update(
            &dir.join(file),
            &String::from_utf8(script).unwrap(),
            &mut stale,
        );
    }
    let command = podcycle::cli::Cli::command();
    let man = Path::new("assets/man");
    let render = |command: clap::Command| {
        let mut page = Vec::new();
        clap_mangen::Man::new(command).render(&mut page).unwrap();
        String::from_utf8(page).unwrap()
    };
    check_or_update(
        &man.join("podcycle.1"),
        &render(command.clone()),
        &mut stale,
    );
    let mut pages = vec!["podcycle.1".to_owned()];
    for subcommand in command.get_subcommands() {
        // clap names commands with `'static` strings; the test runs once.
        let name: &'static str =
            Box::leak(format!("podcycle-{}", subcommand.get_name()).into_boxed_str());
        let page = subcommand.clone().name(name).display_name(name);
        pages.push(format!("{name}.1"));
        check_or_update(&man.join(format!("{name}.1")), &render(page), &mut stale);
    }
    for entry in fs::read_dir(man).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if !pages.contains(&name) {
            stale.push(format!("assets/man/{name} (no such command)"));
        }
    }
    assert!(
        stale.is_empty(),
        "stale completions or man pages: {}\nrun `UPDATE_DOCS=1 cargo test --test it docs::` to regenerate them",
        stale.join(", ")
    );
}

#[test]
fn the_known_sidecars_in_the_docs_are_the_code_s() {
    let path = Path::new("docs/configuration.md");
    let current = fs::read_to_string(path).unwrap();
    let mut stale = Vec::new();
    check_or_update(path, &docs::with_known_sidecars(&current), &mut stale);
    assert!(
        stale.is_empty(),
        "stale list of known sidecars in {}\nrun `UPDATE_DOCS=1 cargo test --test it docs::` to regenerate it",
        stale.join(", ")
    );
}

#[test]
fn the_committed_config_schema_is_up_to_date() {
    let mut stale = Vec::new();
    check_or_update(
        Path::new("docs/schema/podcycle.schema.json"),
        &podcycle::config::json_schema(),
        &mut stale,
    );
    assert!(
        stale.is_empty(),
        "stale generated schema: {}\nrun `UPDATE_DOCS=1 cargo test --test it docs::` to regenerate it",
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
    // A rule of the render layer documents a template: `render::the_render_error_examples_…`
    // renders its examples with Helm.
    for rule in ALL_RULES
        .iter()
        .filter(|rule| !matches!(rule.check, podcycle::rules::Check::Render))
    {
        let examples = docs::yaml_examples(rule);
        assert!(
            examples.len() >= 2,
            "{}: needs a failing example and a fix",
            rule.name
        );
        let settings = Settings::only(rule.name).unwrap();
        for (index, example) in examples.iter().enumerate() {
            let settings = common::with_header_options(example, settings.clone());
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

/// The ```yaml blocks of a Markdown page.
fn yaml_blocks(page: &str) -> Vec<String> {
    docs::yaml_blocks(&fs::read_to_string(page).unwrap())
}

#[test]
fn suppression_examples_silence_what_they_say() {
    let blocks = yaml_blocks("docs/suppressions.md");
    assert!(blocks.len() >= 3);
    let settings = Settings::default();
    for block in blocks {
        let (found, rendered) = render_for_tests("example.yaml", &block, &settings);
        assert!(found.is_empty(), "{block}\n{rendered}");
        let unsuppressed = block
            .replace("podcycle:", "note:")
            .replace("podcycle.io/ignore", "example.com/note");
        let (found, _) = render_for_tests("example.yaml", &unsuppressed, &settings);
        assert!(
            !found.is_empty(),
            "the example suppresses nothing:\n{block}"
        );
    }
}

#[test]
fn configuration_examples_are_valid() {
    let blocks = yaml_blocks("docs/configuration.md");
    assert!(blocks.len() >= 3);
    for block in blocks {
        let file = podcycle::source::SourceFile::new(".podcycle.yaml", block.as_str());
        if let Err(problems) = podcycle::config::parse(&file) {
            panic!("{block}\n{problems:?}");
        }
    }
}

#[test]
fn integration_examples_are_valid_yaml() {
    let mut blocks = yaml_blocks("docs/integrations.md");
    blocks.extend(yaml_blocks("docs/ci.md"));
    assert!(blocks.len() >= 5);
    for block in blocks {
        for document in podcycle::yaml::parse_stream(&block) {
            assert!(document.errors.is_empty(), "{block}\n{:?}", document.errors);
            assert!(document.duplicate_keys.is_empty(), "{block}");
        }
    }
}

/// The code blocks a Markdown page marks with `<!-- recommended-ci -->`.
fn recommended_blocks(page: &str) -> Vec<String> {
    let text = fs::read_to_string(page).unwrap();
    text.split("<!-- recommended-ci -->\n```")
        .skip(1)
        .map(|block| {
            let body = &block[block.find('\n').unwrap() + 1..];
            body[..body.find("\n```").unwrap() + 1].to_owned()
        })
        .collect()
}

/// The lines of `text`, without their indentation.
fn trimmed_lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim).collect()
}

/// The CI recipe is one: the lines the GitHub Action runs (`action/podcycle.sh`) are the ones
/// the GitLab job and the plain shell recipe of docs/ci.md run, in the same order.
#[test]
fn the_ci_recipe_is_the_same_everywhere() {
    let script = fs::read_to_string("action/podcycle.sh").unwrap();
    let recipe = &script[script.find("# recipe: begin\n").unwrap() + 16..];
    let recipe = trimmed_lines(recipe[..recipe.find("# recipe: end").unwrap()].trim_end());
    for option in [
        "--isolated",
        "--fail-on-unrendered",
        "--config",
        "--baseline",
    ] {
        assert!(recipe.iter().any(|line| line.contains(option)), "{option}");
    }
    let blocks = recommended_blocks("docs/ci.md");
    let with_recipe: Vec<&String> = blocks
        .iter()
        .filter(|block| block.contains("--fail-on-unrendered"))
        .collect();
    assert_eq!(
        with_recipe.len(),
        2,
        "the GitLab job and the plain shell recipe"
    );
    for block in with_recipe {
        let lines = trimmed_lines(block);
        assert!(
            lines.windows(recipe.len()).any(|window| window == recipe),
            "docs/ci.md does not run the lines of action/podcycle.sh:\n{block}"
        );
    }
}

/// The pre-commit snippets of docs/ci.md use the hooks `.pre-commit-hooks.yaml` defines, and
/// the `repo: local` one runs the same command on the same files.
#[test]
fn the_pre_commit_snippets_are_the_repository_s_hooks() {
    let hooks = fs::read_to_string(".pre-commit-hooks.yaml").unwrap();
    let blocks = recommended_blocks("docs/ci.md");
    let main = blocks
        .iter()
        .find(|b| b.contains("repo: https://github.com/podcycle/podcycle\n"))
        .expect("a snippet with the main repository's hooks");
    for id in ["podcycle", "podcycle-system"] {
        assert!(hooks.contains(&format!("- id: {id}\n")), "{id}");
        assert!(main.contains(&format!("id: {id} ")), "{main}");
    }
    let local = blocks
        .iter()
        .find(|b| b.contains("repo: local"))
        .expect("a `repo: local` snippet");
    let system = &hooks[hooks.find("- id: podcycle-system\n").unwrap()..];
    for key in ["entry:", "language:", "types_or:", "require_serial:"] {
        let line = |text: &str| {
            text.lines()
                .map(str::trim)
                .find(|l| l.starts_with(key))
                .map(str::to_owned)
        };
        assert_eq!(line(local), line(system), "{key}");
    }
}

/// Every CI snippet — a workflow, a job, a pre-commit configuration — is in docs/ci.md; the
/// other pages link to it, so no second, different recipe can appear.
#[test]
fn ci_snippets_live_in_one_page() {
    let mut pages = vec![std::path::PathBuf::from("README.md")];
    for entry in fs::read_dir("docs").unwrap() {
        pages.push(entry.unwrap().path());
    }
    for page in pages {
        if page.extension().is_none_or(|e| e != "md") || page.ends_with("docs/ci.md") {
            continue;
        }
        let text = fs::read_to_string(&page).unwrap();
        for block in docs::yaml_blocks(&text) {
            for marker in ["runs-on:", "script:", "repos:", "uses: podcycle/"] {
                assert!(
                    !block.contains(marker),
                    "{}: a CI snippet belongs in docs/ci.md:\n{block}",
                    page.display()
                );
            }
        }
        assert!(
            !text.contains("git show \"origin/"),
            "{}: the CI recipe belongs in docs/ci.md",
            page.display()
        );
    }
}
