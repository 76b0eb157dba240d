//! The layer table in `docs/architecture.md` is the rule for imports between podcycle's
//! top-level modules: a module uses only modules in lower layers. This test reads the table and
//! every `crate::` path in `src/` (outside unit-test modules), so the picture cannot drift from
//! the code.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The layer of each module, from the table's rows (`| 3 | `fix` `lifecycle` | … |`).
fn layers(doc: &str) -> BTreeMap<String, u32> {
    let mut layers = BTreeMap::new();
    let section = doc
        .split("## Layers")
        .nth(1)
        .expect("docs/architecture.md has a `## Layers` section");
    for row in section.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let Ok(layer) = cells[1].parse::<u32>() else {
            continue; // the header and the separator
        };
        for module in cells[2].split('`').skip(1).step_by(2) {
            let previous = layers.insert(module.to_owned(), layer);
            assert!(previous.is_none(), "`{module}` is listed twice");
        }
    }
    layers
}

fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
}

/// The code of a file without its unit tests (which may use anything) and without comments.
fn code(text: &str) -> String {
    let end = text
        .find("#[cfg(test)]\nmod tests")
        .or_else(|| text.find("#[cfg(all(test"))
        .unwrap_or(text.len());
    text[..end]
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules named by `crate::` paths: `crate::lint::X`, and each first name of a
/// group, `crate::{lint::X, model::{a, b}, yaml}`.
fn used_modules(code: &str) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for (start, _) in code.match_indices("crate::") {
        let rest = &code[start + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut expecting_name = true;
            let mut name = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => expecting_name = true,
                    c if expecting_name && (c.is_alphanumeric() || c == '_') => name.push(c),
                    _ if expecting_name && !name.is_empty() => {
                        used.insert(std::mem::take(&mut name));
                        expecting_name = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                used.insert(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                used.insert(name);
            }
        }
    }
    used
}

#[test]
fn reads_imports_and_groups() {
    let source = "use crate::{lint::X, model::{a, b}, yaml};\nfn f() { crate::fix::apply(); }";
    let used: Vec<String> = used_modules(source).into_iter().collect();
    assert_eq!(used, ["fix", "lint", "model", "yaml"]);
    assert_eq!(
        code("a // crate::b\n#[cfg(test)]\nmod tests { crate::c }"),
        "a "
    );
}

#[test]
fn imports_point_down_the_layer_table() {
    let doc = fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let layers = layers(&doc);
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut problems = Vec::new();
    let mut seen = BTreeSet::new();
    for file in files {
        let relative = file.strip_prefix(root().join("src")).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_str().unwrap().trim_end_matches(".rs").to_owned();
        if module == "main" || module == "lib" {
            continue;
        }
        seen.insert(module.clone());
        let Some(&layer) = layers.get(&module) else {
            problems.push(format!("`{module}` is not in the layer table"));
            continue;
        };
        let text = fs::read_to_string(&file).unwrap();
        for used in used_modules(&code(&text)) {
            if used == module {
                continue;
            }
            match layers.get(&used) {
                Some(&below) if below < layer => {}
                Some(&other) => problems.push(format!(
                    "src/{} (layer {layer}) uses `{used}` (layer {other})",
                    relative.display()
                )),
                None => problems.push(format!(
                    "src/{} uses `{used}`, which is not in the layer table",
                    relative.display()
                )),
            }
        }
    }
    for listed in layers.keys() {
        if !seen.contains(listed) {
            problems.push(format!("`{listed}` is in the layer table but not in src/"));
        }
    }
    assert!(
        problems.is_empty(),
        "docs/architecture.md's layers and the imports disagree:\n{}",
        problems.join("\n")
    );
}
