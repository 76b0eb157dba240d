//! The workspace's index ([`crate::run::WorkspaceIndex`]) in the server: built on its own
//! thread when the session starts, for the workspace's folders, and told what the client
//! reports of changed files. The server says in its log how far the build went, and why it
//! stopped short when it did.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread::{self, JoinHandle};
use std::time::Instant;

use lsp_server::{Message, Notification};
use lsp_types::notification::{LogMessage, Notification as _};
use lsp_types::{FileEvent, InitializeParams, LogMessageParams, MessageType};

use super::config::file_path;
use crate::run::{Configs, RunOptions, WorkspaceIndex};

/// The glob of the manifests whose changes on disk the client is asked to report.
pub(crate) const MANIFEST_FILES_GLOB: &str = "**/*.{yaml,yml,json}";

/// The directories of the workspace: its folders, or the root of a client that predates them.
#[allow(deprecated)] // `root_uri`, `root_path`: clients that predate workspace folders send them
pub(crate) fn workspace_roots(params: &InitializeParams) -> Vec<PathBuf> {
    let folders: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|folder| file_path(&folder.uri))
        .collect();
    if !folders.is_empty() {
        return folders;
    }
    params.root_uri.iter().filter_map(file_path).collect()
}

/// Builds the index of `roots` on a thread of its own, which stops early when `stop` is set,
/// and logs what it did through `send`.
pub(crate) fn start(
    index: Arc<WorkspaceIndex>,
    roots: Vec<PathBuf>,
    options: Arc<RunOptions>,
    stop: Arc<AtomicBool>,
    send: impl Fn(Message) + Send + 'static,
) -> Option<JoinHandle<()>> {
    if roots.is_empty() {
        return None;
    }
    thread::Builder::new()
        .name("podcycle-index".to_owned())
        .spawn(move || {
            let started = Instant::now();
            let mut configs = Configs::new(&options.config).unwrap_or_else(|_| Configs::nearest());
            let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                index.build(&roots, &options, &mut configs, &stop)
            }));
            let shown: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
            let (typ, message) = match built {
                Ok(built) => match built.stopped_short {
                    None => (
                        MessageType::LOG,
                        format!(
                            "podcycle: indexed {} manifests in {} directories of {} in {} ms",
                            built.files,
                            built.directories,
                            shown.join(", "),
                            started.elapsed().as_millis()
                        ),
                    ),
                    Some(why) => (
                        MessageType::WARNING,
                        format!(
                            "podcycle: the index of {} stopped short: {why}; it holds {} manifests in {} directories, and the manifests of any other directory are read when a file of it is opened",
                            shown.join(", "),
                            built.files,
                            built.directories
                        ),
                    ),
                },
                Err(_) => (
                    MessageType::ERROR,
                    format!(
                        "podcycle could not index {}; the manifests of a directory are read when a file of it is opened; please report this",
                        shown.join(", ")
                    ),
                ),
            };
            send(Message::Notification(Notification::new(
                LogMessage::METHOD.to_owned(),
                LogMessageParams { typ, message },
            )));
        })
        .ok()
}

/// Tells the index which manifests changed on disk; returns their directories.
pub(crate) fn changed_manifests(index: &WorkspaceIndex, changes: &[FileEvent]) -> Vec<PathBuf> {
    let mut directories: Vec<PathBuf> = changes
        .iter()
        .filter_map(|change| file_path(&change.uri))
        .filter(|path| crate::discovery::has_manifest_extension(path))
        .filter_map(|path| index.changed_on_disk(&path))
        .collect();
    directories.sort();
    directories.dedup();
    directories
}
