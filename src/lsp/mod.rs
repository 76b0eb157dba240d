//! `podcycle lsp`: a language server over standard input and output.
//!
//! It publishes the diagnostics of `podcycle check` (the same [`crate::lint`] call) for the
//! YAML and JSON documents that hold Kubernetes workloads, with ranges in the encoding the
//! client negotiates (UTF-16 unless it offers UTF-8), offers the rules' certain fixes and a
//! suppression comment as code actions, and shows a rule's documentation on hover. It is
//! meant to run next to a general YAML server, so it does nothing else.
//!
//! - [`transport`]: the framing on standard input and output, with bounds;
//! - `server`: the message loop (synchronous, `lsp-server`), full document sync;
//! - `worker`: debounced linting on its own thread;
//! - `analysis`: which diagnostics a document gets, within the scope the workspace's index
//!   ([`crate::run::WorkspaceIndex`]) gives it;
//! - `indexing`: the index built in the background, and what changes it;
//! - [`convert`]: spans to positions, diagnostics to the protocol's;
//! - [`actions`], `hover`: code actions and hover;
//! - [`explain`]: `podcycle explain` for the pod under the cursor (`podcycle/explain`);
//! - `config`: configuration files being edited, and changes to them;
//! - `editor_settings`: the editor's settings, read as the command line's options for `check`.
//!
//! Which settings a document is linted with, and the chart or overlay a template or patch is
//! judged through, come from the run layer ([`crate::run::EditorPlan`]), as for `check`; the
//! editor's settings reach it through the [`crate::run::RunOptions`] the server holds.

pub mod actions;
pub(crate) mod analysis;
pub(crate) mod config;
pub mod convert;
pub(crate) mod editor_settings;
pub mod explain;
pub(crate) mod hover;
pub(crate) mod indexing;
pub(crate) mod server;
pub mod transport;
pub(crate) mod worker;

use std::io;

pub use analysis::{Workspace, analyse};

#[cfg(feature = "testing")]
pub use analysis::lsp_diagnostics;
pub use analysis::lsp_diagnostics_in;
pub use editor_settings::Trust;
pub use server::{Ending, serve, serve_indexing, serve_with};

/// Runs the server on standard input and output until the client exits. Returns the exit
/// code: 0 after `shutdown` and `exit`, 1 when the client exits or goes away without
/// `shutdown`, or sends what cannot be read as messages.
/// `isolated`: the workspace is not trusted ([`Trust::Untrusted`]).
pub(crate) fn run_stdio(isolated: bool) -> io::Result<u8> {
    let (connection, io_threads) = transport::stdio();
    let trust = if isolated {
        Trust::Untrusted
    } else {
        Trust::Trusted
    };
    let ending = serve_with(&connection, trust);
    // The writer thread ends when the last sender is gone, so the connection goes first.
    drop(connection);
    let joined = io_threads.join();
    match ending {
        Ok(Ending::Clean) => joined.map(|()| 0),
        Ok(Ending::Abrupt) => Ok(1),
        // The input could not be read further (the reader said why on stderr), so the session
        // ended before it began: as for a client that goes away.
        Err(_) if joined.is_err() => Ok(1),
        Err(error) => Err(io::Error::other(error.to_string())),
    }
}
