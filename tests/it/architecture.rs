//! The rules for imports, checked on every `use` and path in `src/` (outside unit-test modules),
//! so that the picture cannot drift from the code:
//! - the layer table in `docs/architecture.md` orders podcycle's top-level modules: a module
//!   uses only modules in lower layers, never one in its own row or above;
//! - no file imports one that imports it back, directly or around a circle of files. A module
//!   file (`mod.rs`, or `x.rs` beside `x/`) declares its submodules and may call into them; its
//!   uses of its own submodules are the tree itself, not imports, so they are not counted.

use std::collections::{BTreeMap, BTreeSet, HashMap};
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

/// The code of a file without its unit tests (which may use anything), its comments and the
/// text of its string literals.
fn code(text: &str) -> String {
    let end = text
        .find("#[cfg(test)]\nmod tests")
        .or_else(|| text.find("#[cfg(all(test"))
        .unwrap_or(text.len());
    without_comments_and_strings(&text[..end])
}

/// Comments and the insides of string and character literals blanked out, so that a path in a
/// message or a doc comment is not read as an import.
fn without_comments_and_strings(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r'
            && matches!(next, Some('"' | '#'))
            && !chars[..i]
                .last()
                .is_some_and(|p| p.is_alphanumeric() || *p == '_')
        {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            while j < chars.len() {
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('a', '\n', '\''), not a lifetime ('a).
            let end = if next == Some('\\') {
                chars[i + 3..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map(|p| i + 4 + p)
            } else if chars.get(i + 2) == Some(&'\'') {
                Some(i + 3)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.push_str("' '");
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
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
        "a \n"
    );
    assert_eq!(
        code("f(\"crate::x\", r#\"use y;\"#, '\\'', 'a'); /* crate::z */ fn g<'a>()"),
        "f(\"\", \"\", ' ', ' ');  fn g<'a>()"
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

/// A module's path in the crate: `["cli", "check"]` for `src/cli/check.rs`.
type ModulePath = Vec<String>;

/// The module path of a file in `src/` (`lib.rs` is the crate root).
fn module_path(relative: &Path) -> ModulePath {
    let mut parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

/// A `use` tree flattened: each imported path, with the name it is imported as.
fn use_paths(tree: &str) -> Vec<(Vec<String>, String)> {
    fn expand(prefix: &[String], tree: &str, out: &mut Vec<(Vec<String>, String)>) {
        let tree = tree.trim();
        // Split off a trailing `{…}` group: `a::b::{c, d::e}`.
        if let Some(open) = tree.find('{') {
            let close = tree.rfind('}').unwrap_or(tree.len());
            let mut path = prefix.to_vec();
            path.extend(segments(tree[..open].trim_end_matches("::")));
            let inner = &tree[open + 1..close];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        expand(&path, &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            expand(&path, &inner[start..], out);
            return;
        }
        if tree.is_empty() {
            return;
        }
        let (path, alias) = match tree.split_once(" as ") {
            Some((path, alias)) => (path.trim(), Some(alias.trim())),
            None => (tree, None),
        };
        let mut full = prefix.to_vec();
        let mut written = segments(path);
        if written.last().is_some_and(|s| s == "self") {
            written.pop();
        }
        full.extend(written);
        if full.last().is_some_and(|s| s == "*") {
            full.pop();
            out.push((full, "*".to_owned()));
            return;
        }
        let name = alias
            .map(str::to_owned)
            .or_else(|| full.last().cloned())
            .unwrap_or_default();
        out.push((full, name));
    }
    fn segments(path: &str) -> Vec<String> {
        path.split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect()
    }
    let mut out = Vec::new();
    expand(&[], tree, &mut out);
    out
}

/// What one file's code says about modules: the `use` trees (whether re-exported), and the
/// paths written inline (`crate::a::b(…)`, `super::c::D`).
struct FileUses {
    uses: Vec<(Vec<String>, String, bool)>,
    inline: Vec<Vec<String>>,
}

fn file_uses(code: &str) -> FileUses {
    let mut uses = Vec::new();
    let mut rest = code;
    // `use` statements, `pub use` and `pub(crate) use` among them.
    while let Some(at) = find_use(rest) {
        let statement = &rest[at..];
        let end = statement.find(';').unwrap_or(statement.len());
        let before = rest[..at].trim_end();
        let public = before.ends_with("pub") || before.ends_with(')') && before.contains("pub(");
        let tree = statement["use ".len()..end].trim();
        for (path, name) in use_paths(tree) {
            uses.push((path, name, public));
        }
        rest = &statement[end..];
    }
    let mut inline = Vec::new();
    for start in ["crate::", "super::", "self::"] {
        for (at, _) in code.match_indices(start) {
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            let path: String = code[at..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            inline.push(
                path.split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect(),
            );
        }
    }
    FileUses { uses, inline }
}

/// The next `use` keyword that starts a statement: first on its line, or after `pub`.
fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = code[from..].find("use ") {
        let at = from + found;
        let line = code[..at].rsplit('\n').next().unwrap_or("").trim();
        let starts =
            line.is_empty() || line == "pub" || (line.starts_with("pub(") && line.ends_with(')'));
        let before = code[..at].chars().next_back();
        if starts && before.is_none_or(|c| c.is_whitespace() || c == ')') {
            return Some(at);
        }
        from = at + 4;
    }
    None
}

/// The files of a crate, by module path, and what each uses.
struct Crate {
    files: BTreeMap<ModulePath, String>,
    uses: HashMap<ModulePath, FileUses>,
}

impl Crate {
    /// `sources`: each file's path relative to `src/`, and its code.
    fn new(sources: &BTreeMap<String, String>) -> Crate {
        let mut files = BTreeMap::new();
        let mut uses = HashMap::new();
        for (relative, text) in sources {
            if relative == "main.rs" {
                continue;
            }
            let module = module_path(Path::new(relative));
            files.insert(module.clone(), relative.clone());
            uses.insert(module, file_uses(&code(text)));
        }
        Crate { files, uses }
    }

    /// The module a path written in `from` names, with the segments after it; `None` for a
    /// path outside the crate.
    fn resolve(&self, from: &ModulePath, path: &[String], depth: usize) -> Option<ModulePath> {
        let (mut module, rest): (ModulePath, &[String]) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.clone(), &path[1..]),
            Some("super") => {
                let mut module = from.clone();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    module.pop();
                    rest = &rest[1..];
                }
                (module, rest)
            }
            Some(first) => {
                let mut child = from.clone();
                child.push(first.to_owned());
                if !self.files.contains_key(&child) {
                    return None; // another crate, or a name this file imported
                }
                (from.clone(), path)
            }
            None => return None,
        };
        let mut rest = rest;
        while let Some(next) = rest.first() {
            let mut deeper = module.clone();
            deeper.push(next.clone());
            if !self.files.contains_key(&deeper) {
                break;
            }
            module = deeper;
            rest = &rest[1..];
        }
        // An item the module re-exports from another file: the file that defines it.
        if let (Some(name), true) = (rest.first(), depth < 8) {
            let reexport = self.uses.get(&module).and_then(|uses| {
                uses.uses
                    .iter()
                    .find(|(_, local, public)| *public && local == name)
            });
            if let Some((source, _, _)) = reexport
                && let Some(defined) = self.resolve(&module, source, depth + 1)
            {
                return Some(defined);
            }
        }
        Some(module)
    }

    /// Which files each file imports, by relative path. A module's uses of its own
    /// submodules are left out: they are the module tree, not imports.
    fn imports(&self) -> BTreeMap<String, BTreeSet<String>> {
        let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (module, file) in &self.files {
            let uses = &self.uses[module];
            let paths = uses
                .uses
                .iter()
                .map(|(path, _, _)| path.as_slice())
                .chain(uses.inline.iter().map(Vec::as_slice));
            let targets = graph.entry(file.clone()).or_default();
            for path in paths {
                let Some(target) = self.resolve(module, path, 0) else {
                    continue;
                };
                if target.starts_with(module) {
                    continue; // itself, or one of its submodules
                }
                targets.insert(self.files[&target].clone());
            }
        }
        graph
    }
}

/// The circles of a graph: each set of two or more nodes that reach each other (Tarjan).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Search<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: HashMap<&'g str, usize>,
        low: HashMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<Vec<String>>,
    }
    impl<'g> Search<'g> {
        fn visit(&mut self, node: &'g str) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph.get(node).into_iter().flatten() {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    component.push(member.to_owned());
                    if member == node {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.found.push(component);
                }
            }
        }
    }
    let mut search = Search {
        graph,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for node in graph.keys() {
        if !search.index.contains_key(node.as_str()) {
            search.visit(node);
        }
    }
    search.found
}

fn sources(dir: &Path) -> BTreeMap<String, String> {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    files
        .into_iter()
        .map(|file| {
            let relative = file
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (relative, fs::read_to_string(&file).unwrap())
        })
        .collect()
}

#[test]
fn finds_circles_between_files() {
    let sources: BTreeMap<String, String> = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod r;\n"),
        (
            "a.rs",
            "use crate::b::{self, X};\nfn f() { super::r::Thing::new(); }",
        ),
        ("b.rs", "pub struct X;\nfn g() { crate::a::f(); }"),
        // A module calls into its submodule, which uses the module's items: not a circle.
        (
            "r/mod.rs",
            "mod inner;\npub use inner::Thing;\nfn h() { inner::go(); }\npub struct Shared;",
        ),
        ("r/inner.rs", "use super::Shared;\npub struct Thing;"),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text.to_owned()))
    .collect();
    let graph = Crate::new(&sources).imports();
    // Through the re-export, `a.rs` uses the file that defines `Thing`.
    assert_eq!(
        graph["a.rs"],
        BTreeSet::from(["b.rs".to_owned(), "r/inner.rs".to_owned()])
    );
    assert_eq!(graph["r/inner.rs"], BTreeSet::from(["r/mod.rs".to_owned()]));
    assert!(graph["r/mod.rs"].is_empty());
    assert_eq!(circles(&graph), [["a.rs", "b.rs"]]);
}

#[test]
fn no_file_imports_one_that_imports_it_back() {
    let graph = Crate::new(&sources(&root().join("src"))).imports();
    assert!(
        graph.values().map(BTreeSet::len).sum::<usize>() > 100,
        "the import graph looks empty: {graph:?}"
    );
    let problems: Vec<String> = circles(&graph)
        .into_iter()
        .map(|circle| {
            let ties: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|to| circle.contains(to))
                        .map(move |to| format!("src/{from} -> src/{to}"))
                })
                .collect();
            format!("a circle of {} files: {}", circle.len(), ties.join(", "))
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
