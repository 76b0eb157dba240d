//! Two halves of rendering, on arbitrary bytes.
//!
//! - Reports (the default): each output format on what the pipeline finds (the first byte picks
//!   the format), with the promises of the human formats checked: no control character but the
//!   line break reaches the output, and GitHub output is one workflow command per finding.
//! - The render layer's screens, when the input starts with a tag:
//!   - `K:` a kustomization: every string that holds `://` in a field Kustomize loads from (the
//!     fields below, written as the specification of `render::kustomize::loads`) is among the
//!     loads the screen sees, and a plugin configuration whose decoded annotation key is
//!     `config.kubernetes.io/function` is refused;
//!   - `H:` / `Z:` a renderer's standard error, as Helm's or Kustomize's: judged without panic,
//!     with temporary paths cleaned from every message and the place inside the file;
//!   - `S:` a directory to stage for a renderer, one entry a line (`f NAME TEXT` a file,
//!     `d NAME` a directory, `l NAME TARGET` a link), beside a secret outside it and inside a
//!     `.git` of its own: the copy holds no link, and no byte of the secret or of `.git`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use podcycle::render::failure::{self, Verdict};
use podcycle::render::process::Failure;
use podcycle::run::{FilePlan, lint_bytes};
use podcycle::report::{self, Format, Options};
use podcycle::settings::{Selector, Settings};
use podcycle::source::SourceFile;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    if let Some(text) = data.strip_prefix(b"K:") {
        kustomization(&String::from_utf8_lossy(text));
    } else if let Some(text) = data.strip_prefix(b"H:") {
        renderer_error(&String::from_utf8_lossy(text), true);
    } else if let Some(text) = data.strip_prefix(b"Z:") {
        renderer_error(&String::from_utf8_lossy(text), false);
    } else if let Some(text) = data.strip_prefix(b"S:") {
        stage(&String::from_utf8_lossy(text));
    } else {
        reports(data);
    }
});

/// Where Kustomize loads from, as JSON paths (`*`: any index): the specification the screen's
/// inventory is checked against.
const LOADED: [&str; 19] = [
    "resources/*",
    "bases/*",
    "components/*",
    "crds/*",
    "configurations/*",
    "generators/*",
    "transformers/*",
    "validators/*",
    "patchesStrategicMerge/*",
    "patches/*/path",
    "patchesJson6902/*/path",
    "replacements/*/path",
    "openapi/path",
    "configMapGenerator/*/files/*",
    "configMapGenerator/*/envs/*",
    "configMapGenerator/*/env",
    "secretGenerator/*/files/*",
    "secretGenerator/*/envs/*",
    "secretGenerator/*/env",
];

fn kustomization(text: &str) {
    let documents = podcycle::yaml::parse_stream(text);
    let Some(document) = documents.first() else {
        return;
    };
    let Some(root) = document.root else { return };
    let Ok(value) = podcycle::yaml::to_json(document, root) else {
        return;
    };
    let loads = podcycle::render::kustomize::loads(&value);
    for pattern in LOADED {
        let mut found = Vec::new();
        strings_at(&value, &pattern.split('/').collect::<Vec<_>>(), &mut found);
        for string in found {
            // Inline plugin configurations and patches are YAML, not paths.
            if string.contains("://") && !string.contains('\n') {
                assert!(
                    loads.iter().any(|load| load.value.contains("://")
                        && string.contains(load.value.as_str())),
                    "`{string}` at {pattern} escaped the screen: {loads:?}"
                );
            }
        }
    }
    // The plugin configurations, written inline or in a file, by decoded key.
    let configs = podcycle::render::kustomize::plugin_configs(text, "fuzz");
    let function = podcycle::yaml::parse_stream(text).iter().any(|document| {
        let Some(root) = document.root else {
            return false;
        };
        podcycle::yaml::to_json(document, root).is_ok_and(|value| {
            value
                .pointer("/metadata/annotations")
                .and_then(Value::as_object)
                .is_some_and(|annotations| {
                    annotations
                        .keys()
                        .any(|key| key.trim() == "config.kubernetes.io/function")
                })
        })
    });
    if function {
        assert!(!configs.refused.is_empty(), "a function was let through");
    }
    // What podcycle cannot read it cannot screen: such a configuration is refused, not skipped.
    let unreadable = podcycle::yaml::parse_stream(text).iter().any(|document| {
        !document.errors.is_empty()
            || document
                .root
                .is_some_and(|root| podcycle::yaml::to_json(document, root).is_err())
    });
    if unreadable {
        assert!(
            !configs.refused.is_empty(),
            "a configuration podcycle cannot read was let through"
        );
    }
}

/// The strings of `value` at `path`.
fn strings_at<'a>(value: &'a Value, path: &[&str], out: &mut Vec<&'a str>) {
    let Some((first, rest)) = path.split_first() else {
        if let Some(string) = value.as_str() {
            out.push(string);
        }
        return;
    };
    if *first == "*" {
        for item in value.as_array().into_iter().flatten() {
            strings_at(item, rest, out);
        }
    } else if let Some(next) = value.get(first) {
        strings_at(next, rest, out);
    }
}

/// What no copy may hold: the bytes of a file outside the directory, and of its `.git`.
const OUTSIDE: &str = "OUTSIDE_SECRET_5e1f";
const IN_GIT: &str = "GIT_SECRET_9c2d";

fn stage(text: &str) {
    let scratch = tempfile::tempdir().unwrap();
    let outside = scratch.path().join("outside");
    let dir = scratch.path().join("repo");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&outside, OUTSIDE).unwrap();
    // The boundary is the directory (its own `.podcycle.yaml`), which is outside git: every
    // file counts. A repository below it has a `.git` with a secret.
    std::fs::write(dir.join(".podcycle.yaml"), "").unwrap();
    std::fs::create_dir_all(dir.join("sub/.git")).unwrap();
    std::fs::write(dir.join("sub/.git/config"), IN_GIT).unwrap();
    for line in text.lines().take(32) {
        let mut words = line.splitn(3, ' ');
        let (Some(kind), Some(name)) = (words.next(), words.next()) else {
            continue;
        };
        // Names stay inside the directory: this fuzzes what is in it, not where it is written.
        if name.is_empty()
            || name.starts_with('/')
            || name.split('/').any(|part| part == ".." || part == ".git")
        {
            continue;
        }
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        let rest = words.next().unwrap_or_default();
        let _ = match kind {
            "f" => std::fs::write(&path, rest),
            "d" => std::fs::create_dir_all(&path),
            "l" => std::os::unix::fs::symlink(rest, &path),
            _ => Ok(()),
        };
    }
    let Ok(listed) = podcycle::render::stage::stage_and_list(&dir) else {
        return;
    };
    for (path, bytes) in listed {
        assert!(
            !path.components().any(|c| c.as_os_str() == ".git"),
            "{} is in a .git directory",
            path.display()
        );
        if let Some(bytes) = bytes {
            let text = String::from_utf8_lossy(&bytes);
            assert!(!text.contains(OUTSIDE), "{} holds the secret outside", path.display());
            assert!(!text.contains(IN_GIT), "{} holds .git's bytes", path.display());
        }
    }
}

fn renderer_error(stderr: &str, helm: bool) {
    const TEMPORARY: &str = "/tmp/podcycle-chart-fuzz";
    let names = vec![(TEMPORARY.to_owned(), "web".to_owned())];
    let clean = |text: &str| podcycle::render::clean_paths(text, &names);
    let failure = Failure::Exited {
        stderr: stderr.to_owned(),
    };
    let verdict = if helm {
        failure::helm(&failure, std::path::Path::new("/nonexistent/web"), &clean)
    } else {
        let overlay = podcycle::render::kustomize::Kustomization {
            dir: "/nonexistent/app".into(),
            file: "/nonexistent/app/kustomization.yaml".into(),
            component: false,
            bases: Vec::new(),
            components: Vec::new(),
            plugin_dirs: Vec::new(),
            patches: Vec::new(),
            replacements: false,
            loads: Vec::new(),
            remote: Vec::new(),
            plugins: Vec::new(),
            unknown_builtins: Vec::new(),
            transforming_keys: Vec::new(),
        };
        podcycle::render::kustomize::refusal::judge(&failure, &[overlay], &clean)
    };
    let (message, error, line, column) = match &verdict {
        Verdict::Refused(refusal) => (
            refusal.message.as_str(),
            refusal.error.as_str(),
            refusal.line,
            refusal.column,
        ),
        Verdict::NotRendered(reason) => (reason.as_str(), "", None, None),
    };
    // A renderer that ran and refused is a finding whatever its message says.
    assert!(
        matches!(verdict, Verdict::Refused(_)),
        "an exit judged by its words: {verdict:?}"
    );
    for text in [message, error] {
        assert!(!text.contains(TEMPORARY), "a temporary path in {text:?}");
    }
    // Wherever the renderer says it is, the finding is inside the file.
    let file = SourceFile::new("t.yaml", stderr);
    let span = failure::refusal_span(&file, line.or(Some(2)), column.or(Some(7)), 0);
    assert!(span.start <= span.end && span.end as usize <= file.text.len());
    assert!(file.text.is_char_boundary(span.start as usize));
    assert!(file.text.is_char_boundary(span.end as usize));
}

fn reports(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let format = Format::ALL[usize::from(pick) % Format::ALL.len()];
    let color = pick >= 128;
    // A file name from the input too: names reach the output as much as contents do.
    let (name, bytes) = match rest.iter().position(|&b| b == 0) {
        Some(at) if at < 64 => (
            String::from_utf8_lossy(&rest[..at]).into_owned(),
            &rest[at + 1..],
        ),
        _ => ("fuzz.yaml".to_owned(), rest),
    };
    let settings = Settings::from_selectors(&[Selector::parse("all").unwrap()], &[], &[]);
    let plan = FilePlan::new(settings, podcycle::lint::FileRole::Manifest);
    let report = lint_bytes(name, bytes.to_vec(), &plan, &mut |_| {});
    let mut out = Vec::new();
    let options = Options {
        color,
        source_root: Some("file:///src/".to_owned()),
        ..Options::default()
    };
    report::write(&mut out, format, std::slice::from_ref(&report), &options).unwrap();
    let out = String::from_utf8(out).expect("reports are UTF-8");
    match format {
        Format::Json | Format::Sarif | Format::Gitlab => {
            serde_json::from_str::<serde_json::Value>(&out).expect("valid JSON");
        }
        Format::Github => {
            for line in out.lines() {
                assert!(line.starts_with("::"), "not a workflow command: {line:?}");
            }
            assert_eq!(out.lines().count(), report.diagnostics.len());
        }
        Format::Full | Format::Concise | Format::Junit => {
            let allowed = |c: char| {
                c == '\n' || (color && c == '\u{1b}') || (format == Format::Junit && c == '\t')
            };
            assert!(
                !out.chars()
                    .any(|c| podcycle::escape::is_unsafe(c) && !allowed(c)),
                "a control character reached the {format:?} output: {out:?}"
            );
        }
    }
}
