//! A minimal in-process client for protocol tests: the server runs on a thread, connected
//! through `lsp_server::Connection::memory()`.

use std::collections::VecDeque;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Exit, Initialized,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{Initialize, Shutdown};
use lsp_types::{
    ClientCapabilities, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, InitializeParams, InitializeResult, InitializedParams, Position,
    PublishDiagnosticsClientCapabilities, PublishDiagnosticsParams, TextDocumentClientCapabilities,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem, TextEdit, Uri,
    VersionedTextDocumentIdentifier,
};
use podcycle::lsp::{Ending, Trust, serve_with};

const TIMEOUT: Duration = Duration::from_secs(20);

pub struct Client {
    connection: Connection,
    server: Option<JoinHandle<Result<Ending, String>>>,
    next_id: i32,
    /// Notifications that arrived while waiting for something else.
    notifications: VecDeque<Notification>,
    /// The server's requests, each answered as it arrived, as an editor answers them.
    requests: VecDeque<Request>,
    pub initialized: InitializeResult,
}

impl Client {
    /// Starts a server and completes the handshake.
    pub fn start(capabilities: ClientCapabilities) -> Client {
        Client::start_with(InitializeParams {
            capabilities,
            ..InitializeParams::default()
        })
    }

    /// [`Client::start`] with the given `initialize` parameters (settings in
    /// `initializationOptions`, workspace folders).
    pub fn start_with(params: InitializeParams) -> Client {
        Client::start_trusting(params, Trust::Trusted)
    }

    /// [`Client::start_with`] for a server that trusts its workspace as `trust` says (`podcycle
    /// lsp --isolated` for [`Trust::Untrusted`]).
    pub fn start_trusting(params: InitializeParams, trust: Trust) -> Client {
        let (server_side, client_side) = Connection::memory();
        let server =
            std::thread::spawn(move || serve_with(&server_side, trust).map_err(|e| e.to_string()));
        let mut client = Client {
            connection: client_side,
            server: Some(server),
            next_id: 0,
            notifications: VecDeque::new(),
            requests: VecDeque::new(),
            initialized: InitializeResult::default(),
        };
        client.initialized = client.request::<Initialize>(params);
        client.notify::<Initialized>(InitializedParams {});
        client
    }

    pub fn request<R: lsp_types::request::Request>(&mut self, params: R::Params) -> R::Result {
        let response = self.request_raw(R::METHOD, serde_json::to_value(params).unwrap());
        let result = response.response_result.expect("a successful response");
        serde_json::from_value(result).unwrap()
    }

    pub fn request_raw(&mut self, method: &str, params: serde_json::Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.connection
            .sender
            .send(Request::new(id.clone(), method.to_owned(), params).into())
            .unwrap();
        loop {
            match self.receive() {
                Message::Response(response) if response.id == id => return response,
                Message::Response(other) => panic!("unexpected response {other:?}"),
                Message::Notification(notification) => self.notifications.push_back(notification),
                // The server registers file watchers; answer like an editor does.
                Message::Request(request) => self.answer(request),
            }
        }
    }

    /// Answers a request of the server (a registration of file watchers) as an editor does,
    /// and keeps it for [`Client::server_request`].
    fn answer(&mut self, request: Request) {
        self.connection
            .sender
            .send(Response::new_ok(request.id.clone(), ()).into())
            .unwrap();
        self.requests.push_back(request);
    }

    /// Waits for the server's request `method`, answered when it arrived; the notifications
    /// received meanwhile are kept for the next waits.
    pub fn server_request(&mut self, method: &str) -> Request {
        loop {
            if let Some(at) = self.requests.iter().position(|r| r.method == method) {
                return self.requests.remove(at).unwrap();
            }
            match self.receive() {
                Message::Notification(notification) => self.notifications.push_back(notification),
                Message::Request(request) => self.answer(request),
                Message::Response(response) => panic!("unexpected response {response:?}"),
            }
        }
    }

    /// Waits for a `window/logMessage` whose message holds `text`; the other notifications
    /// received meanwhile are kept, in order, for the next waits.
    pub fn logged(&mut self, text: &str) -> String {
        let deadline = Instant::now() + TIMEOUT;
        let mut index = 0;
        loop {
            assert!(Instant::now() < deadline, "nothing logged with `{text}`");
            if index == self.notifications.len() {
                match self.receive() {
                    Message::Notification(notification) => {
                        self.notifications.push_back(notification);
                    }
                    Message::Request(request) => {
                        self.answer(request);
                        continue;
                    }
                    Message::Response(response) => panic!("unexpected response {response:?}"),
                }
            }
            let notification = &self.notifications[index];
            let message = notification.params["message"].as_str().unwrap_or_default();
            if notification.method == "window/logMessage" && message.contains(text) {
                let message = message.to_owned();
                self.notifications.remove(index);
                return message;
            }
            index += 1;
        }
    }

    fn receive(&self) -> Message {
        self.connection
            .receiver
            .recv_timeout(TIMEOUT)
            .expect("the server answers in time")
    }

    pub fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        self.connection
            .sender
            .send(Notification::new(N::METHOD.to_owned(), params).into())
            .unwrap();
    }

    pub fn open(&self, uri: &Uri, version: i32, text: &str) {
        self.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem::new(
                uri.clone(),
                "yaml".to_owned(),
                version,
                text.to_owned(),
            ),
        });
    }

    pub fn change(&self, uri: &Uri, version: i32, text: &str) {
        self.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
            text_document: VersionedTextDocumentIdentifier::new(uri.clone(), version),
            content_changes: vec![TextDocumentContentChangeEvent {
                range: None,
                range_length: None,
                text: text.to_owned(),
            }],
        });
    }

    pub fn close(&self, uri: &Uri) {
        self.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
            text_document: TextDocumentIdentifier::new(uri.clone()),
        });
    }

    /// Waits for the diagnostics of `uri` at `version` (`None`: as published on close),
    /// skipping older ones.
    pub fn diagnostics(&mut self, uri: &Uri, version: Option<i32>) -> PublishDiagnosticsParams {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            assert!(Instant::now() < deadline, "no diagnostics for {version:?}");
            let notification = self.notification(PublishDiagnostics::METHOD);
            let params: PublishDiagnosticsParams =
                serde_json::from_value(notification.params).unwrap();
            if &params.uri == uri && params.version == version {
                return params;
            }
        }
    }

    /// Waits until the diagnostics of `uri` at `version` are `settled`: while a directory's
    /// documents are linted again, one may be published more than once, each time with what
    /// was known then, and the others' in any order. The publications of other documents
    /// read meanwhile are kept, in order, for the next waits.
    pub fn diagnostics_until(
        &mut self,
        uri: &Uri,
        version: Option<i32>,
        settled: impl Fn(&PublishDiagnosticsParams) -> bool,
    ) -> PublishDiagnosticsParams {
        let deadline = Instant::now() + TIMEOUT;
        let mut others = VecDeque::new();
        let found = loop {
            assert!(
                Instant::now() < deadline,
                "diagnostics for {version:?} never settled"
            );
            let notification = self.notification(PublishDiagnostics::METHOD);
            let params: PublishDiagnosticsParams =
                serde_json::from_value(notification.params.clone()).unwrap();
            if &params.uri == uri && params.version == version {
                if settled(&params) {
                    break params;
                }
            } else {
                others.push_back(notification);
            }
        };
        while let Some(other) = others.pop_back() {
            self.notifications.push_front(other);
        }
        found
    }

    /// Waits for the next notification with `method`, skipping others.
    pub fn notification(&mut self, method: &str) -> Notification {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            assert!(Instant::now() < deadline, "no `{method}` notification");
            let notification = match self.notifications.pop_front() {
                Some(notification) => notification,
                None => match self.receive() {
                    Message::Notification(notification) => notification,
                    Message::Request(request) => {
                        self.answer(request);
                        continue;
                    }
                    Message::Response(response) => panic!("unexpected response {response:?}"),
                },
            };
            if notification.method == method {
                return notification;
            }
        }
    }

    /// `shutdown`, then `exit`; returns how the server saw the session end.
    pub fn shutdown(mut self) -> Ending {
        self.request::<Shutdown>(());
        self.notify::<Exit>(());
        self.join()
    }

    /// `exit` alone.
    pub fn exit(self) -> Ending {
        self.notify::<Exit>(());
        self.join()
    }

    fn join(mut self) -> Ending {
        let server = self.server.take().unwrap();
        server.join().unwrap().unwrap()
    }
}

/// What a client that offers publishDiagnostics' related information (or not) announces.
pub fn capabilities(related_information: bool) -> ClientCapabilities {
    ClientCapabilities {
        text_document: Some(TextDocumentClientCapabilities {
            publish_diagnostics: Some(PublishDiagnosticsClientCapabilities {
                related_information: Some(related_information),
                ..PublishDiagnosticsClientCapabilities::default()
            }),
            ..TextDocumentClientCapabilities::default()
        }),
        ..ClientCapabilities::default()
    }
}

pub fn uri(path: &str) -> Uri {
    format!("file://{path}").parse().unwrap()
}

/// The byte offset of a position counted in UTF-16 code units, written independently of the
/// server's conversion.
pub fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        line_start = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i + 1);
    }
    let mut units = 0;
    for (i, c) in text[line_start..].char_indices() {
        if units >= position.character as usize || c == '\n' {
            return line_start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// The position of byte `offset`, in UTF-16 code units.
pub fn position(text: &str, at: usize) -> Position {
    let before = &text[..at];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let character = text[line_start..at].encode_utf16().count();
    Position::new(line as u32, character as u32)
}

/// Applies text edits the way an editor does: all positions refer to the original text.
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut ranges: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(text, e.range.start),
                offset(text, e.range.end),
                e.new_text.as_str(),
            )
        })
        .collect();
    ranges.sort_by_key(|&(start, end, _)| (start, end));
    let mut out = text.to_owned();
    for &(start, end, new_text) in ranges.iter().rev() {
        out.replace_range(start..end, new_text);
    }
    out
}
