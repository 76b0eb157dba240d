//! `check --add-ignore REASON`: a `# podcycle: ignore[rule] REASON` comment above every line
//! where a current finding starts ([`crate::ignore_comment`]). Each file is linted again with the
//! comments in: they must silence exactly the findings they were written for. A comment that
//! does not (the line is inside a block scalar, where `#` is text) is left out.

use std::collections::BTreeMap;
use std::io;

use super::eprint_line;
use super::files::replace_file;
use crate::diagnostics::Diagnostic;
use crate::fingerprint::Identity;
use crate::fix::{TextEdit, apply};
use crate::ignore_comment::{NOT_SUPPRESSIBLE, ignore_line};
use crate::run::CheckedFile;
use crate::safe_fs::describe_io_error;
use crate::source::{LineIndex, SourceFile};

#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) comments: usize,
    pub(crate) files: usize,
    /// Findings still reported: not suppressible, or the comment would not silence them.
    pub(crate) left: usize,
    /// A file could not be read or written (reported on stderr).
    pub(crate) failed: bool,
}

pub(crate) fn add_ignores(checked: &mut [CheckedFile], reason: &str) -> io::Result<Outcome> {
    let mut outcome = Outcome::default();
    for entry in checked.iter_mut() {
        if entry.report.diagnostics.is_empty() {
            continue;
        }
        let name = entry.report.file.path.clone();
        let text = match entry.text_on_disk() {
            Ok(text) => text,
            Err(not_edited) => {
                eprint_line(format_args!("podcycle: error: {not_edited}"))?;
                outcome.failed = true;
                outcome.left += entry.report.diagnostics.len();
                continue;
            }
        };
        let (new_text, comments, left) = comment_file(entry, &text, reason);
        outcome.left += left;
        if comments == 0 {
            continue;
        }
        if let Some(path) = &entry.path
            && let Err(error) = replace_file(path, &new_text)
        {
            eprint_line(format_args!(
                "podcycle: error: cannot write {name}: {}",
                describe_io_error(&error)
            ))?;
            outcome.failed = true;
            continue;
        }
        outcome.comments += comments;
        outcome.files += 1;
    }
    Ok(outcome)
}

/// One line's comment and the findings it is for.
struct LineComment<'a> {
    edit: TextEdit,
    targets: Vec<&'a Diagnostic>,
}

/// The file's text with the comments that work, how many, and how many findings are left.
fn comment_file(entry: &CheckedFile, text: &str, reason: &str) -> (String, usize, usize) {
    let targets = &entry.report.diagnostics;
    let lines = LineIndex::new(text);
    let mut by_line: BTreeMap<usize, Vec<&Diagnostic>> = BTreeMap::new();
    let mut left = 0;
    for diagnostic in targets {
        // A finding that rendering placed here is silenced by an annotation on the object,
        // not by a comment: Helm and Kustomize drop comments.
        if NOT_SUPPRESSIBLE.contains(&diagnostic.rule) || diagnostic.rendered.is_some() {
            left += 1;
        } else {
            by_line
                .entry(lines.line_of(diagnostic.span.start as usize))
                .or_default()
                .push(diagnostic);
        }
    }
    let mut comments = Vec::new();
    for (line, group) in by_line {
        let mut rules: Vec<&str> = Vec::new();
        for diagnostic in &group {
            if !rules.contains(&diagnostic.rule) {
                rules.push(diagnostic.rule);
            }
        }
        match ignore_line(text, &lines, line, &rules, reason) {
            Some(edit) => comments.push(LineComment {
                edit,
                targets: group,
            }),
            // A comment above names them already, and still they are reported.
            None => left += group.len(),
        }
    }
    let before = identities(&entry.report.file, &entry.lint(text).diagnostics);
    let works = |chosen: &[&LineComment<'_>]| -> Option<String> {
        let edits: Vec<TextEdit> = chosen.iter().map(|c| c.edit.clone()).collect();
        let new_text = apply(text, &edits);
        let mut expected = before.clone();
        for target in chosen.iter().flat_map(|c| &c.targets) {
            let identity = Identity::of(&entry.report.file.path, &entry.report.file, target);
            if let Some(count) = expected.get_mut(&identity) {
                *count = count.saturating_sub(1);
            }
        }
        expected.retain(|_, count| *count > 0);
        let file = SourceFile::new(entry.report.file.path.clone(), new_text.clone());
        let after = identities(&file, &entry.lint(&new_text).diagnostics);
        (after == expected).then_some(new_text)
    };
    let all: Vec<&LineComment<'_>> = comments.iter().collect();
    if let Some(new_text) = works(&all) {
        return (new_text, comments.len(), left);
    }
    // Some comment does not do its job: keep those that do, one at a time.
    let mut kept: Vec<&LineComment<'_>> = Vec::new();
    let mut result = text.to_owned();
    for comment in &comments {
        kept.push(comment);
        match works(&kept) {
            Some(new_text) => result = new_text,
            None => {
                kept.pop();
                left += comment.targets.len();
            }
        }
    }
    (result, kept.len(), left)
}

/// How many findings of each identity a file has. Findings outside objects are identified by
/// the text of their line, which a comment above does not change.
fn identities(file: &SourceFile, diagnostics: &[Diagnostic]) -> BTreeMap<Identity, usize> {
    let mut counts = BTreeMap::new();
    for diagnostic in diagnostics {
        *counts
            .entry(Identity::of(&file.path, file, diagnostic))
            .or_default() += 1;
    }
    counts
}
