//! Linting off the message loop. Changes arrive faster than they are worth linting while the
//! user types, so the worker waits for a short pause, keeps only the newest text of each
//! document, and publishes diagnostics tagged with the version they belong to. When what a
//! directory holds for its scope changes — a budget, an autoscaler or a workload typed, saved,
//! closed or changed on disk — the open documents of that directory are linted again, with
//! the last text and plan each was linted with.

use std::collections::{HashMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification};
use lsp_types::notification::{LogMessage, Notification as _, PublishDiagnostics};
use lsp_types::{LogMessageParams, MessageType, PublishDiagnosticsParams, Uri};

use super::analysis::{Workspace, analyse_in_workspace};
use super::convert::ClientInfo;
use crate::run::{DirectoryContext, EditorPlan, EditorRender, RunOptions, WorkspaceIndex};

/// Lint once the changes have paused this long.
pub(crate) const QUIET: Duration = Duration::from_millis(50);
/// But never hold a change back longer than this while they keep coming.
pub(crate) const MAX_DELAY: Duration = Duration::from_millis(300);

/// A document's text to lint.
#[derive(Clone)]
pub(crate) struct LintJob {
    pub(crate) uri: Uri,
    pub(crate) version: Option<i32>,
    pub(crate) text: Arc<String>,
    /// How the document is judged.
    pub(crate) plan: EditorPlan,
    pub(crate) options: Arc<RunOptions>,
}

/// The charts and overlays a saved file belongs to, to render and publish in the files their
/// findings are placed in.
pub(crate) struct OwnersJob {
    pub(crate) jobs: Vec<crate::run::RenderJob>,
    pub(crate) options: Arc<RunOptions>,
    /// The documents open in the editor: they publish their own diagnostics (linted again by
    /// the server), so they are left alone here.
    pub(crate) open: Vec<Uri>,
}

pub(crate) enum Job {
    Lint(Box<LintJob>),
    /// A file was saved: render what it belongs to.
    Owners(OwnersJob),
    /// The document was closed: drop what is pending for it and clear its diagnostics.
    Close(Uri),
    /// Files of these directories changed (closed, or changed on disk): the open documents
    /// there are linted again if what the directory holds for its scope changed.
    Touched(Vec<PathBuf>),
}

/// The open documents as last linted, and the generation of its directory's index each was
/// linted at.
///
/// Kept per document, not per directory: the server hands the index each open text as it
/// arrives, so a lint already under way may read another document's new text, and move the
/// directory to a new generation, before that document's own lint. Per directory, the new
/// generation was then no news to the document's lint, and the documents linted at the old
/// one stayed as they were.
#[derive(Default)]
struct Linted {
    jobs: HashMap<Uri, LintJob>,
    generations: HashMap<Uri, u64>,
}

impl Linted {
    /// The open documents of `directory` last linted at another generation than
    /// `generation`, as last linted.
    fn behind(&self, directory: &PathBuf, generation: u64) -> Vec<LintJob> {
        let mut jobs = self.open_in(directory);
        jobs.retain(|job| self.generations.get(&job.uri) != Some(&generation));
        jobs
    }

    /// The open documents of `directory`, as last linted.
    fn open_in(&self, directory: &PathBuf) -> Vec<LintJob> {
        let mut jobs: Vec<LintJob> = self
            .jobs
            .values()
            .filter(|job| directory_of(&job.uri).as_ref() == Some(directory))
            .cloned()
            .collect();
        jobs.sort_by(|a, b| a.uri.as_str().cmp(b.uri.as_str()));
        jobs
    }

    /// Forgets a closed document.
    fn remove(&mut self, uri: &Uri) {
        self.jobs.remove(uri);
        self.generations.remove(uri);
    }
}

fn directory_of(uri: &Uri) -> Option<PathBuf> {
    super::config::file_path(uri).and_then(|path| path.parent().map(PathBuf::from))
}

/// Runs until the sending side of `jobs` is dropped.
pub(crate) fn run(
    jobs: &Receiver<Job>,
    client: ClientInfo,
    index: &WorkspaceIndex,
    send: &impl Fn(Message),
) {
    let mut pending: Vec<LintJob> = Vec::new();
    let mut touched: Vec<PathBuf> = Vec::new();
    let mut linted = Linted::default();
    // The files each chart or overlay published diagnostics in, so that a later render that
    // finds nothing there clears them.
    let mut published: HashMap<String, Vec<Uri>> = HashMap::new();
    let mut first = Instant::now();
    let mut last = Instant::now();
    loop {
        let received = if pending.is_empty() && touched.is_empty() {
            jobs.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            let deadline = (last + QUIET).min(first + MAX_DELAY);
            jobs.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        };
        let mut arrived = || {
            let now = Instant::now();
            if pending.is_empty() && touched.is_empty() {
                first = now;
            }
            last = now;
        };
        match received {
            Ok(Job::Lint(job)) => {
                arrived();
                match pending.iter_mut().find(|p| p.uri == job.uri) {
                    Some(slot) => *slot = *job,
                    None => pending.push(*job),
                }
            }
            Ok(Job::Touched(directories)) => {
                arrived();
                touched.extend(directories);
            }
            Ok(Job::Owners(job)) => publish_owners(&job, &mut published, client, send),
            Ok(Job::Close(uri)) => {
                pending.retain(|p| p.uri != uri);
                linted.remove(&uri);
                send(publish(uri, None, Vec::new()));
            }
            Err(RecvTimeoutError::Timeout) => {
                let batch = std::mem::take(&mut pending);
                let directories = std::mem::take(&mut touched);
                lint_batch(batch, directories, &mut linted, index, client, send);
            }
            Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// Lints the documents of `batch`, then every other open document whose directory's index
/// changed since it was linted: those of `touched`, and those beside the documents linted.
fn lint_batch(
    batch: Vec<LintJob>,
    mut touched: Vec<PathBuf>,
    linted: &mut Linted,
    index: &WorkspaceIndex,
    client: ClientInfo,
    send: &impl Fn(Message),
) {
    let mut queue: VecDeque<LintJob> = batch.into();
    touched.sort();
    touched.dedup();
    for directory in touched {
        let open = linted.open_in(&directory);
        let Some(job) = open.first() else {
            // Nothing open there to lint again; the index reads it when it is next asked.
            continue;
        };
        let Some(file) = &job.plan.file else {
            continue;
        };
        let context = DirectoryContext {
            options: &job.options,
            config: job.plan.config.clone(),
            kinds: file.settings.pod_templates(),
        };
        let refreshed = catch_unwind(AssertUnwindSafe(|| index.refresh(&directory, &context)));
        if let Ok(generation) = refreshed {
            enqueue(&mut queue, linted.behind(&directory, generation));
        }
    }
    while let Some(job) = queue.pop_front() {
        let uri = job.uri.clone();
        linted.jobs.insert(uri.clone(), job.clone());
        if let Some((directory, generation)) = lint(job, client, index, send) {
            linted.generations.insert(uri, generation);
            // Generations only grow, and only when what a directory holds for its scope
            // changes: each document is linted again at most once for each change.
            enqueue(&mut queue, linted.behind(&directory, generation));
        }
    }
}

/// Adds `jobs` to `queue`, each document once.
fn enqueue(queue: &mut VecDeque<LintJob>, jobs: Vec<LintJob>) {
    for job in jobs {
        if !queue.iter().any(|queued| queued.uri == job.uri) {
            queue.push_back(job);
        }
    }
}

/// Renders the owners of a saved file and publishes their findings in every file that is not
/// open; clears what an earlier render of the same owner published and this one did not.
fn publish_owners(
    job: &OwnersJob,
    published: &mut HashMap<String, Vec<Uri>>,
    client: ClientInfo,
    send: &impl Fn(Message),
) {
    let computed = catch_unwind(AssertUnwindSafe(|| {
        crate::run::owners_findings(&job.options, &job.jobs)
    }));
    let Ok((reports, unavailable)) = computed else {
        return;
    };
    for message in unavailable {
        send(Message::Notification(Notification::new(
            LogMessage::METHOD.to_owned(),
            LogMessageParams {
                typ: MessageType::WARNING,
                message: format!("podcycle: {message}"),
            },
        )));
    }
    let mut now: Vec<Uri> = Vec::new();
    for report in &reports {
        let Some(uri) = super::convert::file_uri(&report.file.path) else {
            continue;
        };
        if job.open.contains(&uri) {
            continue;
        }
        send(publish(
            uri.clone(),
            None,
            converted(&uri, &report.file.text, &report.diagnostics, client),
        ));
        now.push(uri);
    }
    for owner in &job.jobs {
        let before = published
            .insert(owner.input.display(), now.clone())
            .unwrap_or_default();
        for uri in before {
            if !now.contains(&uri) && !job.open.contains(&uri) {
                send(publish(uri, None, Vec::new()));
            }
        }
    }
}

/// Lints and publishes one document; returns its directory and the generation of the
/// directory's index it was linted at.
fn lint(
    job: LintJob,
    client: ClientInfo,
    index: &WorkspaceIndex,
    send: &impl Fn(Message),
) -> Option<(PathBuf, u64)> {
    let LintJob {
        uri,
        version,
        text,
        plan,
        options,
    } = job;
    // A bug in a rule must not take the editor's diagnostics down with it: report it, keep
    // serving, and leave the last published diagnostics in place.
    let computed = catch_unwind(AssertUnwindSafe(|| {
        lint_or_render(&uri, &text, &plan, &options, index, client)
    }));
    match computed {
        Ok((diagnostics, notice, generation)) => {
            if let Some(message) = notice {
                // What could not be rendered is said, never passed off as a clean file.
                send(Message::Notification(Notification::new(
                    LogMessage::METHOD.to_owned(),
                    LogMessageParams {
                        typ: MessageType::WARNING,
                        message,
                    },
                )));
            }
            send(publish(uri, version, diagnostics));
            generation
        }
        Err(_) => {
            let message = format!(
                "podcycle could not lint {} (version {version:?}); please report this with the file",
                uri.as_str()
            );
            send(Message::Notification(Notification::new(
                LogMessage::METHOD.to_owned(),
                LogMessageParams {
                    typ: MessageType::ERROR,
                    message,
                },
            )));
            None
        }
    }
}

/// The diagnostics of a document: a Helm template's or a patch's through the rendered chart or
/// overlay (with a notice when it cannot be rendered), any other file's as `check` lints it.
fn lint_or_render(
    uri: &Uri,
    text: &str,
    plan: &EditorPlan,
    options: &RunOptions,
    index: &WorkspaceIndex,
    client: ClientInfo,
) -> (
    Vec<lsp_types::Diagnostic>,
    Option<String>,
    Option<(PathBuf, u64)>,
) {
    // Excluded by the configuration: nothing to show, as with `check`.
    let Some(file) = &plan.file else {
        return (Vec::new(), None, None);
    };
    let path = super::config::file_path(uri);
    let rendered = path
        .as_ref()
        .and_then(|path| plan.rendered_findings(options, path, text));
    match rendered {
        None => {
            let workspace = Workspace {
                index,
                options,
                config: plan.config.as_ref(),
            };
            let (mut found, generation) = analyse_in_workspace(&workspace, uri, text, file);
            // A kustomization or a `Chart.yaml` also shows what rendering what it stands for
            // placed in it, as `check` reports both.
            let marked = path
                .as_ref()
                .and_then(|path| plan.marked_findings(options, path, text));
            let notice = match marked {
                None => None,
                Some(EditorRender::Findings(rendered)) => {
                    for diagnostic in rendered {
                        if !found.iter().any(|d| d.same_finding(&diagnostic)) {
                            found.push(diagnostic);
                        }
                    }
                    crate::diagnostics::sort(&mut found);
                    None
                }
                Some(EditorRender::Unavailable(reason)) => Some(format!("podcycle: {reason}")),
            };
            (converted(uri, text, &found, client), notice, generation)
        }
        Some(EditorRender::Findings(found)) => (converted(uri, text, &found, client), None, None),
        Some(EditorRender::Unavailable(reason)) => {
            (Vec::new(), Some(format!("podcycle: {reason}")), None)
        }
    }
}

fn converted(
    uri: &Uri,
    text: &str,
    found: &[crate::diagnostics::Diagnostic],
    client: ClientInfo,
) -> Vec<lsp_types::Diagnostic> {
    let lines = crate::source::LineIndex::new(text);
    let text = super::convert::Text {
        text,
        lines: &lines,
        encoding: client.encoding,
    };
    found
        .iter()
        .map(|diagnostic| super::convert::diagnostic(diagnostic, uri, &text, client))
        .collect()
}

fn publish(uri: Uri, version: Option<i32>, diagnostics: Vec<lsp_types::Diagnostic>) -> Message {
    Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_owned(),
        PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        },
    ))
}
