//! `check --fix` and `check --diff`: the fixes of every file's findings, applied pass after
//! pass ([`crate::fix_file`]), written back or shown as a unified diff.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use super::eprint_line;
use super::files::replace_file;
use crate::escape::escape_controls;
use crate::fix::Applicability;
use crate::fix_file::fix_text;
use crate::run::CheckedFile;
use crate::safe_fs::describe_io_error;

/// What fixing did, over all files.
#[derive(Debug, Default)]
pub struct FixRun {
    /// Fixed findings per rule.
    pub by_rule: BTreeMap<&'static str, usize>,
    /// Files changed (or, with `--diff`, that would be).
    pub files: usize,
    /// A file could not be fixed or written (already reported on stderr).
    pub failed: bool,
}

impl FixRun {
    pub fn findings(&self) -> usize {
        self.by_rule.values().sum()
    }
}

/// Fixes each file that has fixable findings. With `diff`, prints what would change to `out`
/// and touches nothing; else writes the files and lints them again, so that the report shows
/// what is left.
pub fn fix_files(
    checked: &mut [CheckedFile],
    allowed: Applicability,
    diff: bool,
    out: &mut dyn Write,
) -> io::Result<FixRun> {
    let results: Vec<Option<Result<(String, crate::fix_file::Fixed), String>>> = checked
        .par_iter()
        .map(|entry| fix_one(entry, allowed))
        .collect();
    let mut run = FixRun::default();
    for (entry, result) in checked.iter_mut().zip(results) {
        let Some(result) = result else { continue };
        let (original, fixed) = match result {
            Ok(done) => done,
            Err(message) => {
                eprint_line(format_args!("podcycle: error: {message}"))?;
                run.failed = true;
                continue;
            }
        };
        let name = entry.report.file.path.clone();
        if fixed.undone {
            eprint_line(format_args!(
                "podcycle: error: {name}: a fix made the file unreadable YAML, so it was not applied; please report this"
            ))?;
            run.failed = true;
        }
        if fixed.text == original {
            continue;
        }
        if diff {
            write_diff(out, &name, &original, &fixed.text)?;
        } else {
            let path = entry.path.as_deref().unwrap_or(Path::new(&name));
            if let Err(error) = replace_file(path, &fixed.text) {
                eprint_line(format_args!(
                    "podcycle: error: cannot write {name}: {}",
                    describe_io_error(&error)
                ))?;
                run.failed = true;
                continue;
            }
            entry.relint(fixed.text.clone());
        }
        run.files += 1;
        for (rule, count) in &fixed.by_rule {
            *run.by_rule.entry(rule).or_default() += count;
        }
    }
    Ok(run)
}

/// Fixes one file's text; `None` when it has nothing to fix. The file is read again: its
/// text must be what was linted (valid UTF-8, not changed since), and JSON files are left
/// alone, since the edits are written in YAML.
fn fix_one(
    entry: &CheckedFile,
    allowed: Applicability,
) -> Option<Result<(String, crate::fix_file::Fixed), String>> {
    let report = &entry.report;
    let fixable = report
        .diagnostics
        .iter()
        .any(|d| d.fixes.iter().any(|f| f.applicability <= allowed));
    if !fixable {
        return None;
    }
    let original = match entry.text_on_disk() {
        Ok(text) => text,
        Err(message) => return Some(Err(message)),
    };
    let fixed = fix_text(&original, allowed, &mut |text| entry.lint(text).diagnostics);
    Some(Ok((original, fixed)))
}

/// A unified diff of one file, with `a/` and `b/` prefixes as git writes them. The lines come
/// from the repository: control characters other than tabs are escaped, like in every human
/// format (see [`crate::escape`]); a YAML file has none that need it. Each line keeps its own
/// ending: the `\r` of a CRLF file is part of its lines, and `git apply` refuses a diff of a
/// CRLF file whose lines lost it.
fn write_diff(out: &mut dyn Write, name: &str, old: &str, new: &str) -> io::Result<()> {
    let diff = similar::TextDiff::from_lines(old, new);
    let name = name.replace('\\', "/");
    let name = name.trim_start_matches('/');
    let text = diff
        .unified_diff()
        .context_radius(3)
        .header(&format!("a/{name}"), &format!("b/{name}"))
        .to_string();
    for line in text.split_inclusive('\n') {
        let line = line.strip_suffix('\n').unwrap_or(line);
        let (content, ending) = match line.strip_suffix('\r') {
            Some(content) => (content, "\r\n"),
            None => (line, "\n"),
        };
        let escaped: Vec<_> = content.split('\t').map(escape_controls).collect();
        write!(out, "{}{ending}", escaped.join("\t"))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_keeps_each_lines_ending() {
        let mut out = Vec::new();
        write_diff(
            &mut out,
            "a.yaml",
            "a: 1\r\nb: 2\r\n",
            "a: 1\r\nc: 3\r\nb: 2\r\n",
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("+c: 3\r\n"), "{text:?}");
        assert!(text.contains(" a: 1\r\n"), "{text:?}");
        assert!(text.starts_with("--- a/a.yaml\n+++ b/a.yaml\n"), "{text:?}");
        // A lone control character is still escaped.
        let mut out = Vec::new();
        write_diff(&mut out, "a.yaml", "a: 1\n", "a: \u{1b}[2J\n").unwrap();
        assert!(String::from_utf8(out).unwrap().contains("+a: \\u{1b}[2J\n"));
    }
}
