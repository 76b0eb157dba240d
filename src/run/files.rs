//! Reading manifests — files found by discovery, or standard input — and linting each with its
//! plan; bytes that are not UTF-8 are linted all the same. [`CheckedFile`] keeps what a file was
//! linted with, so that `--fix` and `--add-ignore` lint it again the same way.

use std::io;
use std::path::{Path, PathBuf};

use super::options::FilePlan;
use crate::diagnostics::Diagnostic;
use crate::escape::escape_controls;
use crate::lint::{FileRead, Linted, Visit, invalid_utf8, lint_file, read_file};
use crate::model::scope::Scope;
use crate::report::FileReport;
use crate::safe_fs::{self, FileKind, Reader};
use crate::source::SourceFile;

/// A file of the run that was not read: its name as reports show it, escaped for the terminal
/// when displayed, and why.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", escape_controls(name))]
pub(crate) struct UnreadFile {
    pub(crate) name: String,
    #[source]
    pub(crate) source: safe_fs::ReadError,
}

/// Reads a file through the run's `reader`, named for reports the way the user wrote it
/// (without a leading `./`).
pub(crate) fn read_path(reader: &Reader, path: &Path) -> Result<(String, Vec<u8>), UnreadFile> {
    read_unless_kept(reader, path, None)
}

/// A file's contents as [`read_path`] reads them, or `kept`, its text that discovery kept from
/// reading it to tell what it is ([`crate::discovery::kept`]).
pub(crate) fn read_unless_kept(
    reader: &Reader,
    path: &Path,
    kept: Option<Vec<u8>>,
) -> Result<(String, Vec<u8>), UnreadFile> {
    let display = path.display().to_string();
    let display = display
        .strip_prefix("./")
        .map(str::to_owned)
        .unwrap_or(display);
    let bytes = match kept {
        Some(bytes) => Ok(bytes),
        None => reader.read(path, FileKind::Manifest),
    };
    match bytes {
        Ok(bytes) => Ok((display, bytes)),
        Err(source) => Err(UnreadFile {
            name: display,
            source,
        }),
    }
}

/// Why a file that was linted is not edited (`--fix`, `--add-ignore`).
#[derive(Debug, thiserror::Error)]
pub(crate) enum NotEdited {
    #[error("{name}: edits are written in YAML and not made to JSON files")]
    Json { name: String },
    #[error("{name}: {source}")]
    Unread {
        name: String,
        #[source]
        source: safe_fs::ReadError,
    },
    #[error("{name}: the file changed while it was checked; not edited")]
    Changed { name: String },
    #[error("{name}: the file is not valid UTF-8; not edited")]
    NotUtf8 { name: String },
}

/// Reads standard input, up to the size podcycle reads of a manifest.
pub(crate) fn read_stdin() -> io::Result<Vec<u8>> {
    safe_fs::read_stdin(FileKind::Manifest).map_err(|error| match error {
        safe_fs::ReadError::Other(error) => error,
        error => io::Error::other(format!("standard input: {error}")),
    })
}

/// Lints file contents with `plan`, showing `visit` every workload object and document end
/// ([`lint_file`]): the one way a file is linted as it is — by `check`, `explain`, the editor,
/// `--fix` and `--add-ignore`, standard input and the tests. The bytes are read as UTF-8; where
/// they are not, that is reported at the first bad byte and the rest is linted with replacement
/// characters, so that the other documents still get checked. The budgets and autoscalers are
/// matched within the plan's scope (`None`: the file is its own). Unless the plan keeps the
/// text, the report keeps only the lines it shows: reports are written once every file is
/// linted. A directory judged together is linted in the same steps split in two phases
/// (`ReadFile`).
pub fn lint_bytes(
    name: String,
    bytes: Vec<u8>,
    plan: &FilePlan,
    visit: &mut dyn FnMut(Visit<'_, '_>),
) -> FileReport {
    let decoded = Decoded::new(name, bytes);
    let linted = decoded.lint(plan, visit);
    decoded.report(linted, plan)
}

/// What linting a walked file found: its report, or that it is a template for another tool
/// (a placeholder where it fails to parse), which is counted, not reported.
#[derive(Debug)]
pub(crate) enum Walked {
    Report(FileReport),
    Template,
}

/// Lints a walked file with `plan`, as [`lint_bytes`] does, and tells from the lint's own parse
/// whether a file that holds a placeholder is a template ([`FilePlan::unless_template`]):
/// discovery left that for this parse, so that the file is parsed once.
pub(crate) fn lint_walked(name: String, bytes: Vec<u8>, plan: &FilePlan) -> Walked {
    let decoded = Decoded::new(name, bytes);
    let linted = decoded.lint(plan, &mut |_| {});
    if decoded.is_template(linted.first_syntax_error, plan) {
        Walked::Template
    } else {
        Walked::Report(decoded.report(linted, plan))
    }
}

/// File contents as text, the first step of linting them: invalid UTF-8 replaced, with the
/// offset of the first bad byte.
struct Decoded {
    file: SourceFile,
    valid_up_to: Option<usize>,
}

impl Decoded {
    fn new(name: String, bytes: Vec<u8>) -> Decoded {
        let (text, valid_up_to) = text_of(bytes);
        Decoded {
            file: SourceFile::new(name, text),
            valid_up_to,
        }
    }

    /// Lints the text with `plan`, within the plan's scope ([`lint_file`]).
    fn lint(&self, plan: &FilePlan, visit: &mut dyn FnMut(Visit<'_, '_>)) -> Linted {
        lint_file(
            &self.file,
            &plan.settings,
            plan.role,
            plan.scope.as_deref().into(),
            visit,
        )
    }

    /// Whether the file is a template for another tool, from where its parse failed: only
    /// asked of a walked file that holds a placeholder.
    fn is_template(&self, first_syntax_error: Option<usize>, plan: &FilePlan) -> bool {
        plan.unless_template
            && first_syntax_error.is_some_and(|error| {
                crate::discovery::classify::template_at(&self.file.text, error).is_some()
            })
    }

    /// The last step: what the lint found, with the diagnostic for bytes that are not UTF-8
    /// at the first bad one, reported with `plan`.
    fn report(self, mut linted: Linted, plan: &FilePlan) -> FileReport {
        let Decoded { file, valid_up_to } = self;
        if let Some(valid_up_to) = valid_up_to {
            linted
                .diagnostics
                .extend(invalid_utf8(&plan.settings, &file.text, valid_up_to));
            crate::diagnostics::sort(&mut linted.diagnostics);
        }
        let mut report = FileReport {
            file,
            diagnostics: linted.diagnostics,
            objects: linted.objects,
            fail_at: plan.fail_at,
        };
        if !plan.keep_text {
            report.compact();
        }
        report
    }
}

/// A file of a directory judged together, read in the first phase ([`read_file`]): the steps
/// of [`lint_bytes`], the lint split at the point where the directory's scope is joined.
pub(crate) struct ReadFile {
    decoded: Decoded,
    read: FileRead,
    /// A template for another tool ([`lint_walked`]): its objects are no part of the scope.
    template: bool,
}

impl ReadFile {
    /// Reads file contents with `plan`: the documents the directory's scope cannot change are
    /// linted now, the others wait for it.
    pub(crate) fn new(name: String, bytes: Vec<u8>, plan: &FilePlan) -> ReadFile {
        let decoded = Decoded::new(name, bytes);
        let read = read_file(&decoded.file, &plan.settings, plan.role);
        let template = decoded.is_template(read.first_syntax_error(), plan);
        ReadFile {
            decoded,
            read,
            template,
        }
    }

    /// The file's part of its directory's scope: none for a template.
    pub(crate) fn take_part(&mut self) -> Scope {
        let part = self.read.take_part();
        if self.template {
            Scope::default()
        } else {
            part
        }
    }

    /// The second phase: the waiting documents linted within `scope`, showing `visit` every
    /// workload object and document end in file order, as [`lint_bytes`] does, and reported
    /// with `plan`.
    pub(crate) fn finish(
        self,
        plan: &FilePlan,
        scope: &Scope,
        visit: &mut dyn FnMut(Visit<'_, '_>),
    ) -> Walked {
        let ReadFile {
            decoded,
            read,
            template,
        } = self;
        if template {
            return Walked::Template;
        }
        let linted = read.finish(&decoded.file, &plan.settings, plan.role, scope, visit);
        Walked::Report(decoded.report(linted, plan))
    }
}

/// The text of file contents: invalid UTF-8 replaced, with the offset of the first bad byte.
pub(super) fn text_of(bytes: Vec<u8>) -> (String, Option<usize>) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(error) => {
            let valid_up_to = error.utf8_error().valid_up_to();
            (
                String::from_utf8_lossy(error.as_bytes()).into_owned(),
                Some(valid_up_to),
            )
        }
    }
}

/// A checked file: its report, what it was linted with, and where it is.
#[derive(Debug)]
pub(crate) struct CheckedFile {
    pub(crate) report: FileReport,
    /// `None` for a file only rendered output reports findings in (a Helm template): it was
    /// not linted as it is, and is not edited.
    pub(crate) plan: Option<FilePlan>,
    /// The file on disk; `None` for standard input.
    pub(crate) path: Option<PathBuf>,
}

impl CheckedFile {
    /// Lints `text` as this file, the way it was linted as it is (not what rendering found
    /// in it): the findings `--fix` and `--add-ignore` work on.
    pub(crate) fn lint(&self, text: &str) -> FileReport {
        match &self.plan {
            Some(plan) => lint_bytes(
                self.report.file.path.clone(),
                text.as_bytes().to_vec(),
                plan,
                &mut |_| {},
            ),
            None => FileReport {
                file: SourceFile::new(self.report.file.path.clone(), text),
                diagnostics: Vec::new(),
                objects: Vec::new(),
                fail_at: self.report.fail_at,
            },
        }
    }

    /// Lints the file again after it changed to `text`. Findings rendering placed in it are
    /// kept as they were: the chart or overlay is not rendered again.
    pub(crate) fn relint(&mut self, text: String) {
        let rendered: Vec<Diagnostic> = self
            .report
            .diagnostics
            .drain(..)
            .filter(|d| d.rendered.is_some())
            .collect();
        let mut report = self.lint(&text);
        if let Some(path) = &self.path {
            report.file.set_os_path(path);
        }
        report.diagnostics.extend(rendered);
        crate::diagnostics::sort(&mut report.diagnostics);
        self.report = report;
    }

    /// The text of the file about to be edited, read again: it must be what was linted (valid
    /// UTF-8, not changed since), and not JSON, since edits are written in YAML (a comment, a
    /// block mapping). Standard input is what was read.
    pub(crate) fn text_on_disk(&self) -> Result<String, NotEdited> {
        let report = &self.report;
        let name = || report.file.path.clone();
        if !crate::fix::edits_file(&report.file.path) {
            return Err(NotEdited::Json { name: name() });
        }
        let Some(path) = &self.path else {
            return Ok(report.file.text.clone());
        };
        let bytes =
            safe_fs::read_file(path, FileKind::Manifest).map_err(|source| NotEdited::Unread {
                name: name(),
                source,
            })?;
        match String::from_utf8(bytes) {
            Ok(text) if text == report.file.text => Ok(text),
            Ok(_) => Err(NotEdited::Changed { name: name() }),
            Err(_) => Err(NotEdited::NotUtf8 { name: name() }),
        }
    }
}
