//! Linting off the message loop. Changes arrive faster than they are worth linting while the
//! user types, so the worker waits for a short pause, keeps only the newest text of each
//! document, and publishes diagnostics tagged with the version they belong to.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use lsp_server::{Message, Notification};
use lsp_types::notification::{LogMessage, Notification as _, PublishDiagnostics};
use lsp_types::{LogMessageParams, MessageType, PublishDiagnosticsParams, Uri};

use super::analysis::lsp_diagnostics;
use super::convert::ClientInfo;
use crate::run::{EditorPlan, EditorRender, RunOptions};

/// Lint once the changes have paused this long.
pub(crate) const QUIET: Duration = Duration::from_millis(50);
/// But never hold a change back longer than this while they keep coming.
pub(crate) const MAX_DELAY: Duration = Duration::from_millis(300);

/// A document's text to lint.
pub(crate) struct LintJob {
    pub uri: Uri,
    pub version: Option<i32>,
    pub text: Arc<String>,
    /// How the document is judged.
    pub plan: EditorPlan,
    pub options: Arc<RunOptions>,
}

/// The charts and overlays a saved file belongs to, to render and publish in the files their
/// findings are placed in.
pub struct OwnersJob {
    pub jobs: Vec<crate::run::RenderJob>,
    pub options: Arc<RunOptions>,
    /// The documents open in the editor: they publish their own diagnostics (linted again by
    /// the server), so they are left alone here.
    pub open: Vec<Uri>,
}

pub(crate) enum Job {
    Lint(LintJob),
    /// A file was saved: render what it belongs to.
    Owners(OwnersJob),
    /// The document was closed: drop what is pending for it and clear its diagnostics.
    Close(Uri),
}

/// Runs until the sending side of `jobs` is dropped.
pub(crate) fn run(jobs: &Receiver<Job>, client: ClientInfo, send: &impl Fn(Message)) {
    let mut pending: Vec<LintJob> = Vec::new();
    // The files each chart or overlay published diagnostics in, so that a later render that
    // finds nothing there clears them.
    let mut published: HashMap<String, Vec<Uri>> = HashMap::new();
    let mut first = Instant::now();
    let mut last = Instant::now();
    loop {
        let received = if pending.is_empty() {
            jobs.recv().map_err(|_| RecvTimeoutError::Disconnected)
        } else {
            let deadline = (last + QUIET).min(first + MAX_DELAY);
            jobs.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        };
        match received {
            Ok(Job::Lint(job)) => {
                let now = Instant::now();
                if pending.is_empty() {
                    first = now;
                }
                last = now;
                match pending.iter_mut().find(|p| p.uri == job.uri) {
                    Some(slot) => *slot = job,
                    None => pending.push(job),
                }
            }
            Ok(Job::Owners(job)) => publish_owners(&job, &mut published, client, send),
            Ok(Job::Close(uri)) => {
                pending.retain(|p| p.uri != uri);
                send(publish(uri, None, Vec::new()));
            }
            Err(RecvTimeoutError::Timeout) => {
                for job in pending.drain(..) {
                    lint(job, client, send);
                }
            }
            Err(RecvTimeoutError::Disconnected) => return,
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

fn lint(job: LintJob, client: ClientInfo, send: &impl Fn(Message)) {
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
        lint_or_render(&uri, &text, &plan, &options, client)
    }));
    match computed {
        Ok((diagnostics, notice)) => {
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
    client: ClientInfo,
) -> (Vec<lsp_types::Diagnostic>, Option<String>) {
    // Excluded by the configuration: nothing to show, as with `check`.
    let Some(file) = &plan.file else {
        return (Vec::new(), None);
    };
    let rendered =
        super::config::file_path(uri).and_then(|path| plan.rendered_findings(options, &path, text));
    match rendered {
        None => (
            lsp_diagnostics(uri, text, &file.settings, file.role, client),
            None,
        ),
        Some(EditorRender::Findings(found)) => (converted(uri, text, &found, client), None),
        Some(EditorRender::Unavailable(reason)) => {
            (Vec::new(), Some(format!("podcycle: {reason}")))
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
