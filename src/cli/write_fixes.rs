//! `check --fix` and `check --diff`: the fixes of every file's findings, applied pass after
//! pass ([`crate::fix_file`]), written back or shown as a unified diff.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::Path;

use rayon::prelude::*;

use super::eprint_line;
use super::files::replace_file;
use crate::escape::escape_controls;
use crate::fix::{Applicability, edits_file};
use crate::fix_file::fix_text;
use crate::report::plural;
use crate::run::{CheckedFile, NotEdited};
use crate::safe_fs::describe_io_error;

/// What fixing did, over all files.
#[derive(Debug)]
pub(crate) struct FixRun {
    /// Fixed findings per rule.
    pub(crate) by_rule: BTreeMap<&'static str, usize>,
    /// Files changed (or, with `--diff`, that would be).
    pub(crate) files: usize,
    /// A file could not be fixed or written (already reported on stderr).
    pub(crate) failed: bool,
    /// The fixes applied: safe ones, or unsafe ones too (`--unsafe-fixes`).
    pub(crate) allowed: Applicability,
    /// Findings with a fix that is not applied because their file is JSON.
    pub(crate) in_json: usize,
    /// Findings that only an unsafe fix resolves, when unsafe fixes are not applied.
    pub(crate) unsafe_only: usize,
    /// Findings of rendered charts and overlays, which are never fixed.
    pub(crate) rendered: usize,
}

impl FixRun {
    pub(crate) fn findings(&self) -> usize {
        self.by_rule.values().sum()
    }

    /// The option that applies the fixes counted.
    fn option(&self) -> &'static str {
        match self.allowed {
            Applicability::Safe => "`--fix`",
            Applicability::Unsafe => "`--fix --unsafe-fixes`",
        }
    }

    /// Why fixes of findings were not applied, as clauses for the closing lines.
    fn not_applied(&self) -> Vec<String> {
        let mut reasons = Vec::new();
        if self.unsafe_only > 0 {
            let them = if self.unsafe_only == 1 { "it" } else { "them" };
            reasons.push(format!(
                "{} only an unsafe fix: add `--unsafe-fixes` to apply {them}",
                findings_have(self.unsafe_only)
            ));
        }
        if self.in_json > 0 {
            reasons.push(self.json_clause());
        }
        if self.rendered > 0 {
            reasons.push(self.rendered_clause());
        }
        reasons
    }

    /// Why the findings of charts and overlays are not fixed.
    fn rendered_clause(&self) -> String {
        format!(
            "{} of Helm charts and Kustomize overlays not fixed: they are found in the rendered output, and fixes are written only to files linted as they are",
            plural(self.rendered, "finding")
        )
    }

    fn json_clause(&self) -> String {
        format!(
            "{} in JSON files not fixed: fixes are written as YAML, and JSON files are not edited",
            plural(self.in_json, "finding")
        )
    }

    /// `--diff`'s closing line: what `--fix` would fix, and what it would not and why.
    pub(crate) fn diff_line(&self) -> String {
        let mut line = if self.files == 0 {
            "no fixes to apply".to_owned()
        } else {
            format!(
                "{} would fix {} in {}",
                self.option(),
                plural(self.findings(), "finding"),
                plural(self.files, "file")
            )
        };
        for reason in self.not_applied() {
            line.push_str("; ");
            line.push_str(&reason);
        }
        line
    }

    /// `--fix`'s closing line. Findings with unsafe fixes left are counted by the report's
    /// own last line, which names `--unsafe-fixes`.
    pub(crate) fn fixed_line(&self) -> String {
        let mut line = format!(
            "Fixed {} in {}",
            plural(self.findings(), "finding"),
            plural(self.files, "file")
        );
        if self.in_json > 0 {
            line.push_str("; ");
            line.push_str(&self.json_clause());
        }
        if self.rendered > 0 {
            line.push_str("; ");
            line.push_str(&self.rendered_clause());
        }
        line.push('.');
        line
    }
}

/// `1 finding has`, `2 findings have`.
fn findings_have(n: usize) -> String {
    if n == 1 {
        "1 finding has".to_owned()
    } else {
        format!("{n} findings have")
    }
}

/// Fixes each file that has fixable findings. With `diff`, prints what would change to `out`
/// and touches nothing; else writes the files and lints them again, so that the report shows
/// what is left.
pub(crate) fn fix_files(
    checked: &mut [CheckedFile],
    allowed: Applicability,
    diff: bool,
    out: &mut dyn Write,
) -> io::Result<FixRun> {
    let mut run = FixRun {
        by_rule: BTreeMap::new(),
        files: 0,
        failed: false,
        allowed,
        in_json: 0,
        unsafe_only: 0,
        rendered: 0,
    };
    for entry in checked.iter_mut() {
        let diagnostics = &mut entry.report.diagnostics;
        run.rendered += diagnostics.iter().filter(|d| d.rendered.is_some()).count();
        if !edits_file(&entry.report.file.path) {
            // Said once in the closing line; the report does not call them fixable.
            run.in_json += diagnostics.iter().filter(|d| !d.fixes.is_empty()).count();
            diagnostics.iter_mut().for_each(|d| d.fixes.clear());
        } else if allowed == Applicability::Safe {
            run.unsafe_only += diagnostics
                .iter()
                .filter(|d| {
                    !d.fixes.is_empty() && d.fixes.iter().all(|f| f.applicability > allowed)
                })
                .count();
        }
    }
    let results: Vec<Option<Result<(String, crate::fix_file::Fixed), NotEdited>>> = checked
        .par_iter()
        .map(|entry| fix_one(entry, allowed))
        .collect();
    for (entry, result) in checked.iter_mut().zip(results) {
        let Some(result) = result else { continue };
        let (original, fixed) = match result {
            Ok(done) => done,
            Err(not_edited) => {
                eprint_line(format_args!("podcycle: error: {not_edited}"))?;
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
) -> Option<Result<(String, crate::fix_file::Fixed), NotEdited>> {
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
        Err(not_edited) => return Some(Err(not_edited)),
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
