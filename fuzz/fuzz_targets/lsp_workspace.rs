//! The language server over a small workspace of its own: the input writes a few manifests in
//! two directories of a temporary directory, starts a server on it (whose index is built in the
//! background), and sends opens, changes, saves, closes, files changed or deleted on disk with
//! or without word of it, code actions and hover, with pauses for the linting to run. The
//! server must answer every request, publish within its pauses and end cleanly.
//!
//! The input is cut at NUL bytes: the first piece's first byte says whether the client watches
//! files, the next four are the files' first texts, and each later piece is an action — its
//! first byte the kind, its second the file, the rest a text.
#![no_main]

use std::path::{Path, PathBuf};
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use podcycle::lsp::{Ending, Trust, serve_indexing};
use podcycle::run::IndexLimits;
use serde_json::{Value, json};

const FILES: [&str; 4] = ["a/deploy.yaml", "a/pdb.yaml", "a/hpa.yaml", "b/web.yaml"];
/// The most actions and pauses of one input, so that an input runs in well under a second.
const MAX_ACTIONS: usize = 24;
const MAX_PAUSES: usize = 2;
/// A publication takes a pause in typing (50 ms) and a lint; this is a hang.
const PUBLISH_TIMEOUT: Duration = Duration::from_secs(10);

struct Session {
    client: Connection,
    root: PathBuf,
    next_id: i32,
    requests: Vec<RequestId>,
    versions: [i32; 4],
    texts: [Option<String>; 4],
    /// A document was opened or changed since the last publication: one is due.
    due: bool,
}

impl Session {
    fn uri(&self, file: usize) -> String {
        format!("file://{}", self.root.join(FILES[file]).display())
    }

    fn notify(&self, method: &str, params: Value) {
        self.client
            .sender
            .send(Notification::new(method.to_owned(), params).into())
            .unwrap();
    }

    fn request(&mut self, method: &str, params: Value) {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.requests.push(id.clone());
        self.client
            .sender
            .send(Request::new(id, method.to_owned(), params).into())
            .unwrap();
    }

    fn watched(&self, file: usize, typ: u8) {
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": self.uri(file), "type": typ}]}),
        );
    }

    /// Waits for a publication, answering the server's requests; a response to one of ours is
    /// taken off the list.
    fn pause(&mut self) {
        loop {
            let message = self
                .client
                .receiver
                .recv_timeout(PUBLISH_TIMEOUT)
                .expect("the server publishes diagnostics after a pause");
            if self.handle(message) {
                return;
            }
        }
    }

    /// Whether `message` is a publication.
    fn handle(&mut self, message: Message) -> bool {
        match message {
            Message::Response(response) => {
                self.requests.retain(|id| *id != response.id);
                false
            }
            Message::Request(request) => {
                let _ = self
                    .client
                    .sender
                    .send(Response::new_ok(request.id, ()).into());
                false
            }
            Message::Notification(notification) => {
                let published = notification.method == "textDocument/publishDiagnostics";
                if published {
                    self.due = false;
                }
                published
            }
        }
    }

    fn act(&mut self, kind: u8, file: usize, text: String, pauses: &mut usize) {
        let path = self.root.join(FILES[file]);
        let uri = self.uri(file);
        match kind % 10 {
            0 => {
                self.versions[file] += 1;
                self.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": "yaml",
                        "version": self.versions[file], "text": text}}),
                );
                self.texts[file] = Some(text);
                self.due = true;
            }
            1 => {
                self.versions[file] += 1;
                self.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": self.versions[file]},
                        "contentChanges": [{"text": text}]}),
                );
                if self.texts[file].is_some() {
                    self.texts[file] = Some(text);
                    self.due = true;
                }
            }
            2 => {
                if let Some(open) = &self.texts[file] {
                    let _ = std::fs::write(&path, open);
                }
                self.notify(
                    "textDocument/didSave",
                    json!({"textDocument": {"uri": uri}}),
                );
            }
            3 => {
                self.notify(
                    "textDocument/didClose",
                    json!({"textDocument": {"uri": uri}}),
                );
                self.texts[file] = None;
            }
            4 => {
                let _ = std::fs::write(&path, text);
                self.watched(file, 2);
            }
            5 => {
                // Changed on disk without word of it: the index looks when it next lints.
                let _ = std::fs::write(&path, text);
            }
            6 => {
                let _ = std::fs::remove_file(&path);
                self.watched(file, 3);
            }
            7 => {
                self.request(
                    "textDocument/codeAction",
                    json!({"textDocument": {"uri": uri},
                        "range": {"start": {"line": 0, "character": 0},
                                  "end": {"line": 99, "character": 0}},
                        "context": {"diagnostics": []}}),
                );
            }
            8 => {
                self.request(
                    "textDocument/hover",
                    json!({"textDocument": {"uri": uri},
                        "position": {"line": text.len() % 8, "character": 2}}),
                );
            }
            _ => {
                if *pauses < MAX_PAUSES && self.due {
                    *pauses += 1;
                    self.pause();
                }
            }
        }
    }
}

fn write(root: &Path, file: usize, text: &[u8]) {
    let path = root.join(FILES[file]);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fuzz_target!(|data: &[u8]| {
    let mut pieces = data.split(|&b| b == 0);
    let header = pieces.next().unwrap_or_default();
    let watch = header.first().is_some_and(|b| b & 1 == 1);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for file in 0..FILES.len() {
        write(&root, file, pieces.next().unwrap_or_default());
    }

    let (server, client) = Connection::memory();
    // Untrusted: manifests only, no chart or overlay rendered. Limits low enough that a large
    // input meets them.
    let limits = IndexLimits {
        entries: 64,
        files: 8,
        time: Duration::from_secs(2),
    };
    let handle = std::thread::spawn(move || {
        serve_indexing(&server, Trust::Untrusted, limits).map_err(|e| e.to_string())
    });
    let capabilities = if watch {
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}})
    } else {
        json!({})
    };
    let root_uri = format!("file://{}", root.display());
    let initialize = json!({"capabilities": capabilities,
        "workspaceFolders": [{"uri": root_uri, "name": "fuzz"}]});
    client
        .sender
        .send(Request::new(RequestId::from(0), "initialize".to_owned(), initialize).into())
        .unwrap();
    let _ = client.receiver.recv();
    client
        .sender
        .send(Notification::new("initialized".to_owned(), json!({})).into())
        .unwrap();
    let mut session = Session {
        client,
        root,
        next_id: 0,
        requests: Vec::new(),
        versions: [0; 4],
        texts: [None, None, None, None],
        due: false,
    };
    let mut pauses = 0;
    for piece in pieces.take(MAX_ACTIONS) {
        let kind = piece.first().copied().unwrap_or(0);
        let file = usize::from(piece.get(1).copied().unwrap_or(0)) % FILES.len();
        let text = String::from_utf8_lossy(piece.get(2..).unwrap_or_default()).into_owned();
        session.act(kind, file, text, &mut pauses);
    }
    session
        .client
        .sender
        .send(Request::new(RequestId::from(-1), "shutdown".to_owned(), Value::Null).into())
        .unwrap();
    // Every request is answered before the shutdown is.
    loop {
        let message = session
            .client
            .receiver
            .recv_timeout(PUBLISH_TIMEOUT)
            .expect("the server answers");
        if matches!(&message, Message::Response(r) if r.id == RequestId::from(-1)) {
            break;
        }
        session.handle(message);
    }
    assert!(
        session.requests.is_empty(),
        "unanswered: {:?}",
        session.requests
    );
    session
        .client
        .sender
        .send(Notification::new("exit".to_owned(), Value::Null).into())
        .unwrap();
    assert_eq!(handle.join().unwrap(), Ok(Ending::Clean));
});
