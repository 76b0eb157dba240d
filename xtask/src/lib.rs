//! Development commands for podcycle. `new_rule` creates every touch point of a new rule:
//! the rule's file under `src/rules/<category>/`, its module line, its line in the registry,
//! and its fixture folder under `rules/` with a failing and a passing fixture.

use std::fs;
use std::path::Path;

/// The categories a rule can belong to, in the registry's order.
pub const CATEGORIES: [&str; 5] = ["correctness", "suspicious", "advice", "pedantic", "nursery"];

/// What [`new_rule`] did.
#[derive(Debug)]
pub struct Created {
    /// The files written or changed, relative to the workspace root.
    pub written: Vec<String>,
    /// What is left for the author, to print.
    pub next_steps: String,
}

/// Creates the rule `name` in `category` under the workspace at `root`.
pub fn new_rule(root: &Path, name: &str, category: &str) -> Result<Created, String> {
    check_name(name)?;
    if !CATEGORIES.contains(&category) {
        return Err(format!(
            "unknown category `{category}`; expected one of {}",
            CATEGORIES.join(", ")
        ));
    }
    let module = name.replace('-', "_");
    let rules_dir = root.join("src/rules");
    let registry_path = rules_dir.join("registry.rs");
    let registry = read(&registry_path)?;
    if registry.contains(&format!("::{module}::RULE")) || root.join("rules").join(name).exists() {
        return Err(format!("a rule named `{name}` already exists"));
    }

    let mut written = Vec::new();
    let category_dir = rules_dir.join(category);
    let category_mod = category_dir.join("mod.rs");
    if !category_mod.exists() {
        create_category(root, category)?;
        written.push("src/rules/mod.rs".to_owned());
    }
    let module_list = read(&category_mod)?;
    write(&category_mod, &insert_module(&module_list, &module))?;
    written.push(format!("src/rules/{category}/mod.rs"));

    let rule_file = category_dir.join(format!("{module}.rs"));
    write(&rule_file, &rule_source(name, category))?;
    written.push(format!("src/rules/{category}/{module}.rs"));

    let registry = read(&registry_path)?;
    write(&registry_path, &register(&registry, category, &module)?)?;
    written.push("src/rules/registry.rs".to_owned());

    let fixtures = root.join("rules").join(name);
    fs::create_dir_all(&fixtures).map_err(|e| format!("{}: {e}", fixtures.display()))?;
    write(
        &fixtures.join("invalid.yaml"),
        &failing_fixture(name, category),
    )?;
    write(&fixtures.join("valid.yaml"), PASSING_FIXTURE)?;
    written.push(format!("rules/{name}/invalid.yaml"));
    written.push(format!("rules/{name}/valid.yaml"));

    let next_steps = format!(
        "
Next:
  1. write the check and the documentation in src/rules/{category}/{module}.rs;
  2. make rules/{name}/invalid.yaml trigger it where the markers say, and keep valid.yaml quiet:
       cargo test --test fixtures rules::{name}::
  3. write the rule's documentation page and review the fixture's snapshot:
       UPDATE_DOCS=1 cargo test --test it docs::
       cargo insta review"
    );
    Ok(Created {
        written,
        next_steps,
    })
}

/// Names are kebab-case words that describe the problem.
fn check_name(name: &str) -> Result<(), String> {
    let words_ok = !name.is_empty()
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
        && name.starts_with(|c: char| c.is_ascii_lowercase());
    if words_ok {
        Ok(())
    } else {
        Err(format!(
            "`{name}` is not a kebab-case rule name; write it like `prestop-exceeds-grace-period`"
        ))
    }
}

/// A category without a folder yet (nursery): its `mod.rs`, and the lines that make it part
/// of the catalog.
fn create_category(root: &Path, category: &str) -> Result<(), String> {
    let dir = root.join("src/rules").join(category);
    fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    write(&dir.join("mod.rs"), &format!("//! The {category} rules.\n"))?;
    let rules_mod = root.join("src/rules/mod.rs");
    let text = read(&rules_mod)?;
    write(
        &rules_mod,
        &insert_line_sorted(&text, "mod ", &format!("mod {category};")),
    )?;
    let registry_path = root.join("src/rules/registry.rs");
    let registry = read(&registry_path)?;
    let updated = registry.replacen("use super::{", &format!("use super::{{{category}, "), 1);
    write(&registry_path, &updated)
}

/// Adds `pub(crate) mod NAME;` among a category's modules, keeping them sorted: a rule is
/// private to the crate, reached through the registry.
pub fn insert_module(text: &str, module: &str) -> String {
    insert_line_sorted(
        text,
        "pub(crate) mod ",
        &format!("pub(crate) mod {module};"),
    )
}

/// Inserts `line` among the lines that start with `prefix`, in sorted order; after the module
/// documentation when there are none.
fn insert_line_sorted(text: &str, prefix: &str, line: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    let same: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with(prefix))
        .map(|(i, _)| i)
        .collect();
    let at = match same.iter().find(|&&i| lines[i] > line) {
        Some(&i) => i,
        None => match same.last() {
            Some(&last) => last + 1,
            None => {
                let docs = lines.iter().take_while(|l| l.starts_with("//!")).count();
                lines.insert(docs, "");
                docs + 1
            }
        },
    };
    lines.insert(at, line);
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// Adds the rule to `ALL_RULES`, after the last rule of its category, or after the last rule
/// of the categories before it.
pub fn register(registry: &str, category: &str, module: &str) -> Result<String, String> {
    let entry = format!("    &{category}::{module}::RULE,");
    let lines: Vec<&str> = registry.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.contains("ALL_RULES"))
        .ok_or("src/rules/registry.rs has no ALL_RULES")?;
    let end = start
        + lines[start..]
            .iter()
            .position(|l| l.trim() == "];")
            .ok_or("ALL_RULES is not closed by `];`")?;
    let rank = |line: &str| {
        CATEGORIES
            .iter()
            .position(|c| line.trim_start().starts_with(&format!("&{c}::")))
    };
    let own = CATEGORIES
        .iter()
        .position(|c| *c == category)
        .expect("a known category");
    let after = (start + 1..end)
        .rfind(|&i| rank(lines[i]).is_some_and(|r| r <= own))
        .unwrap_or(start);
    let mut out: Vec<&str> = lines[..=after].to_vec();
    out.push(&entry);
    out.extend(&lines[after + 1..]);
    let mut text = out.join("\n");
    text.push('\n');
    Ok(text)
}

fn title_case(category: &str) -> String {
    let mut chars = category.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

fn rule_source(name: &str, category: &str) -> String {
    RULE_TEMPLATE
        .replace("RULE_NAME", name)
        .replace("RULE_CATEGORY", &title_case(category))
        .replace("RULE_ENFORCEMENT", default_enforcement(category))
}

/// The usual claim of a category's findings; the author changes it where the rule differs.
fn default_enforcement(category: &str) -> &'static str {
    match category {
        "correctness" => "ApiServer",
        "suspicious" => "Runtime",
        _ => "Advice",
    }
}

fn failing_fixture(name: &str, category: &str) -> String {
    let severity = match category {
        "correctness" => "error",
        "suspicious" => "warning",
        _ => "info",
    };
    FAILING_FIXTURE
        .replace("RULE_NAME", name)
        .replace("SEVERITY", severity)
}

const RULE_TEMPLATE: &str = r#"use crate::rules::{Findings, PodContext, declare_rule};

declare_rule! {
    /// ## What it does
    /// What the rule finds, in a sentence or two.
    ///
    /// ## Why is this bad?
    /// What Kubernetes does with such a manifest (rejects it, or what the kubelet then does),
    /// and what that costs.
    ///
    /// ## Example
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: example
    /// spec:
    ///   containers:
    ///   - name: app
    ///     image: example/app:1.0
    /// ```
    ///
    /// Fixed:
    /// ```yaml
    /// apiVersion: v1
    /// kind: Pod
    /// metadata:
    ///   name: example
    /// spec:
    ///   containers:
    ///   - name: app
    ///     image: example/app:1.0
    /// ```
    ///
    /// ## References
    /// - The Kubernetes source (kubernetes/kubernetes `pkg/...`, function) or documentation the
    ///   rule's claim rests on.
    pub(crate) static RULE = {
        name: "RULE_NAME",
        category: RULE_CATEGORY,
        // Who acts on a finding: Decoder (kubectl cannot read it), ApiServer (rejected),
        // Runtime (accepted; the kubelet then does what the message says) or Advice.
        enforcement: RULE_ENFORCEMENT,
        summary: "what the rule finds, lowercase and without a final period",
        check: crate::rules::Check::Pod(check),
    }
}

/// Reads the pod spec (`ctx.site`) and the lifecycle model (`ctx.life`) and reports by field
/// path: `findings.report(Target::key(container.path.key("field")), "message").help("…")`.
/// Order, probe timing, hook durations and grace periods come from the model, never
/// recomputed here.
fn check(ctx: &PodContext<'_>, findings: &mut Findings) {
    let _ = (ctx, findings);
}
"#;

const FAILING_FIXTURE: &str = "apiVersion: v1
kind: Pod
metadata:
  name: example
spec:
  containers:
  - name: app  # SEVERITY: [RULE_NAME]
    image: example/app:1.0
";

const PASSING_FIXTURE: &str = "# expect: no diagnostics
apiVersion: v1
kind: Pod
metadata:
  name: example
spec:
  containers:
  - name: app
    image: example/app:1.0
";

fn read(path: &Path) -> Result<String, String> {
    fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const REGISTRY: &str = "use super::Rule;
use super::{advice, correctness, pedantic, suspicious};

pub static ALL_RULES: &[&Rule] = &[
    &correctness::a::RULE,
    &correctness::b::RULE,
    &suspicious::c::RULE,
    &pedantic::d::RULE,
];
";

    #[test]
    fn registers_after_its_category() {
        let text = register(REGISTRY, "correctness", "new_one").unwrap();
        assert!(text.contains("    &correctness::b::RULE,\n    &correctness::new_one::RULE,\n    &suspicious::c::RULE,"), "{text}");
        let text = register(REGISTRY, "advice", "x").unwrap();
        assert!(
            text.contains(
                "    &suspicious::c::RULE,\n    &advice::x::RULE,\n    &pedantic::d::RULE,"
            ),
            "{text}"
        );
        let text = register(REGISTRY, "nursery", "y").unwrap();
        assert!(
            text.contains("    &pedantic::d::RULE,\n    &nursery::y::RULE,\n];"),
            "{text}"
        );
    }

    #[test]
    fn modules_stay_sorted() {
        let text = "//! Docs.\n\npub(crate) mod alpha;\npub(crate) mod gamma;\n";
        assert_eq!(
            insert_module(text, "beta"),
            "//! Docs.\n\npub(crate) mod alpha;\npub(crate) mod beta;\npub(crate) mod gamma;\n"
        );
        assert_eq!(
            insert_module(text, "zeta"),
            "//! Docs.\n\npub(crate) mod alpha;\npub(crate) mod gamma;\npub(crate) mod zeta;\n"
        );
        assert_eq!(
            insert_module("//! Docs.\n", "a"),
            "//! Docs.\n\npub(crate) mod a;\n"
        );
    }

    #[test]
    fn names_are_kebab_case() {
        assert!(check_name("prestop-exceeds-grace-period").is_ok());
        for bad in [
            "",
            "Upper",
            "snake_case",
            "-lead",
            "trail-",
            "double--dash",
            "1st",
        ] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    /// The template names every field `declare_rule!` requires, so a new required field in
    /// the macro is not forgotten here.
    #[test]
    fn the_template_has_every_required_field_of_declare_rule() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let rules = fs::read_to_string(workspace.join("src/rules/mod.rs")).unwrap();
        let body = &rules[rules.find("macro_rules! declare_rule").unwrap()..];
        let pattern = &body[..body.find("=>").unwrap()];
        let required: Vec<&str> = pattern
            .lines()
            .map(str::trim)
            .filter(|line| !line.starts_with("$(") && line.contains(": $"))
            .filter_map(|line| line.split(':').next())
            .filter(|key| !key.starts_with('$'))
            .collect();
        assert!(required.contains(&"name"), "{required:?}");
        let source = rule_source("x", "advice");
        for key in required {
            assert!(
                source.contains(&format!("        {key}: ")),
                "the template lacks `{key}`"
            );
        }
    }

    /// Every touch point, on a copy of the workspace's real files.
    #[test]
    fn creates_every_touch_point_in_a_copy_of_the_workspace() {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for category in ["correctness", "suspicious", "advice", "pedantic"] {
            let from = workspace.join("src/rules").join(category).join("mod.rs");
            let to = root.join("src/rules").join(category).join("mod.rs");
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(from, to).unwrap();
        }
        for file in ["mod.rs", "registry.rs"] {
            fs::copy(
                workspace.join("src/rules").join(file),
                root.join("src/rules").join(file),
            )
            .unwrap();
        }
        fs::create_dir_all(root.join("rules")).unwrap();

        let created = new_rule(root, "probe-on-wrong-port", "suspicious").unwrap();
        assert_eq!(created.written.len(), 5, "{:?}", created.written);
        let rule =
            fs::read_to_string(root.join("src/rules/suspicious/probe_on_wrong_port.rs")).unwrap();
        assert!(rule.contains("name: \"probe-on-wrong-port\""));
        assert!(rule.contains("category: Suspicious,"));
        assert!(rule.contains("enforcement: Runtime,"));
        let modules = fs::read_to_string(root.join("src/rules/suspicious/mod.rs")).unwrap();
        assert!(modules.contains("pub(crate) mod probe_on_wrong_port;\n"));
        let registry = fs::read_to_string(root.join("src/rules/registry.rs")).unwrap();
        assert!(registry.contains("    &suspicious::probe_on_wrong_port::RULE,\n"));
        let failing =
            fs::read_to_string(root.join("rules/probe-on-wrong-port/invalid.yaml")).unwrap();
        assert!(failing.contains("# warning: [probe-on-wrong-port]"));
        assert!(
            fs::read_to_string(root.join("rules/probe-on-wrong-port/valid.yaml"))
                .unwrap()
                .starts_with("# expect: no diagnostics\n")
        );
        let again = new_rule(root, "probe-on-wrong-port", "suspicious").unwrap_err();
        assert!(again.contains("already exists"), "{again}");

        new_rule(root, "experimental-check", "nursery").unwrap();
        let rules_mod = fs::read_to_string(root.join("src/rules/mod.rs")).unwrap();
        assert!(rules_mod.contains("mod nursery;\n"), "{rules_mod}");
        let registry = fs::read_to_string(root.join("src/rules/registry.rs")).unwrap();
        assert!(registry.contains("use super::{nursery, "), "{registry}");
        assert!(registry.contains("    &nursery::experimental_check::RULE,\n];"));
    }
}
