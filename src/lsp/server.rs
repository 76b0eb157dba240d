//! The message loop: the initialize handshake (after which the server asks to watch files and
//! builds the workspace's index), document synchronisation (full text), code
//! actions, hover, and the shutdown sequence. Linting for diagnostics runs on the worker
//! thread; code actions and hover lint the current text on this thread (cached per version).

use std::cell::OnceCell;
use std::collections::HashMap;
use std::error::Error;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::thread;

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeConfiguration, DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument,
    DidOpenTextDocument, DidSaveTextDocument, Exit, Notification as _, PublishDiagnostics,
    ShowMessage,
};
use lsp_types::request::{CodeActionRequest, HoverRequest, RegisterCapability, Request as _};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    DidChangeConfigurationParams, DidChangeTextDocumentParams, DidChangeWatchedFilesParams,
    DidChangeWatchedFilesRegistrationOptions, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DidSaveTextDocumentParams, FileSystemWatcher, GlobPattern,
    HoverParams, HoverProviderCapability, InitializeParams, InitializeResult, MessageType,
    PublishDiagnosticsParams, Registration, RegistrationParams, ServerCapabilities, ServerInfo,
    ShowMessageParams, TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Uri,
};

use super::actions::{code_actions, requested};
use super::analysis::{Workspace, analyse_in_workspace};
use super::config::{
    CONFIG_FILES_GLOB, changes_config, config_diagnostics, display_name, file_path, is_config_file,
};
use super::convert::{ClientInfo, Text};
use super::editor_settings::{Trust, run_options};
use super::explain::{self, ExplainParams, ExplainResult, explain_at};
use super::hover::hover;
use super::indexing::{self, MANIFEST_FILES_GLOB, changed_manifests, workspace_roots};
use super::worker::{self, Job, LintJob};
use crate::config::Config;
use crate::diagnostics::Diagnostic;
use crate::run::{
    ConfigChoice, Configs, EditorPlan, FilePlan, IndexLimits, RunOptions, WorkspaceIndex,
};
use crate::source::{LineIndex, Span};

pub(crate) type ServerError = Box<dyn Error + Send + Sync>;

/// How the session ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown`, then `exit`: the process exits with 0.
    Clean,
    /// `exit` without `shutdown`, or the client went away: exit code 1, as the protocol says.
    Abrupt,
}

/// Serves one client on `connection` until it exits, trusting its workspace. Returns after the
/// worker has stopped, so the caller can drop the connection and join its I/O threads.
pub fn serve(connection: &Connection) -> Result<Ending, ServerError> {
    serve_with(connection, Trust::Trusted)
}

/// [`serve`], trusting the workspace as `trust` says.
pub fn serve_with(connection: &Connection, trust: Trust) -> Result<Ending, ServerError> {
    serve_indexing(connection, trust, IndexLimits::default())
}

/// [`serve_with`], with the workspace's index built within `limits`.
pub fn serve_indexing(
    connection: &Connection,
    trust: Trust,
    limits: IndexLimits,
) -> Result<Ending, ServerError> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params)?;
    let client = ClientInfo::new(&params.capabilities);
    let result = InitializeResult {
        capabilities: capabilities(client),
        server_info: Some(ServerInfo {
            name: "podcycle".to_owned(),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result)?)?;

    let (jobs, received) = mpsc::channel();
    let sender = connection.sender.clone();
    let index = Arc::new(WorkspaceIndex::new(limits));
    let worker_index = Arc::clone(&index);
    let worker = thread::Builder::new()
        .name("podcycle-lint".to_owned())
        .spawn(move || {
            worker::run(&received, client, &worker_index, &|message| {
                let _ = sender.send(message);
            });
        })?;
    let mut server = Server {
        connection,
        client,
        watch_config: params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|w| w.dynamic_registration)
            .unwrap_or(false),
        options: Arc::new(run_options(&serde_json::Value::Null, None, trust).0),
        trust,
        configs: Configs::nearest(),
        documents: HashMap::new(),
        jobs,
        shutting_down: false,
        shown_config_errors: HashMap::new(),
        workspace_folder: workspace_folder(&params),
        index,
        roots: workspace_roots(&params),
        stop_indexing: Arc::new(AtomicBool::new(false)),
        indexer: None,
    };
    if let Some(settings) = &params.initialization_options {
        server.editor_settings(settings);
    }
    // `initialize_finish` has read the client's `initialized`: what it starts starts now,
    // with the options the editor's settings give.
    server.register_watch();
    server.start_index();
    let ending = server.run();
    server.stop_indexing.store(true, Ordering::Relaxed);
    let indexer = server.indexer.take();
    drop(server);
    if let Some(indexer) = indexer {
        indexer
            .join()
            .map_err(|_| "the workspace index stopped unexpectedly")?;
    }
    worker
        .join()
        .map_err(|_| "the lint worker stopped unexpectedly")?;
    ending
}

fn capabilities(client: ClientInfo) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(client.encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                // A saved values file, helper or base re-renders its chart or overlays.
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            resolve_provider: Some(false),
            ..CodeActionOptions::default()
        })),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        ..ServerCapabilities::default()
    }
}

/// The first workspace folder, which relative paths in the editor's settings start from.
#[allow(deprecated)] // `root_uri`: clients that predate workspace folders send only that
fn workspace_folder(params: &InitializeParams) -> Option<std::path::PathBuf> {
    let folders = params.workspace_folders.iter().flatten().map(|f| &f.uri);
    folders.chain(params.root_uri.as_ref()).find_map(file_path)
}

struct OpenDocument {
    version: i32,
    text: Arc<String>,
    lines: OnceCell<LineIndex>,
    /// What this version is linted with as it is written; `None` when the configuration
    /// excludes it or it is a configuration file.
    plan: Option<FilePlan>,
    /// The configuration over it.
    config: Option<Arc<Config>>,
    /// The diagnostics of this version, for code actions and hover.
    diagnostics: OnceCell<Vec<Diagnostic>>,
}

impl OpenDocument {
    fn new(version: i32, text: String) -> OpenDocument {
        OpenDocument {
            version,
            text: Arc::new(text),
            lines: OnceCell::new(),
            plan: None,
            config: None,
            diagnostics: OnceCell::new(),
        }
    }
}

struct Server<'c> {
    connection: &'c Connection,
    client: ClientInfo,
    watch_config: bool,
    /// What the server's runs do: what `check` does without flags.
    options: Arc<RunOptions>,
    /// Whether the workspace is trusted; set when the server starts, never by a setting.
    trust: Trust,
    /// The configurations of the documents, each read once until a configuration changes.
    configs: Configs,
    documents: HashMap<Uri, OpenDocument>,
    jobs: Sender<Job>,
    shutting_down: bool,
    /// The configuration errors shown to the user, by file, so that typing in a manifest does
    /// not repeat them; forgotten when a configuration file changes.
    shown_config_errors: HashMap<String, String>,
    workspace_folder: Option<std::path::PathBuf>,
    /// The manifests of the workspace, by directory, with the open documents' texts.
    index: Arc<WorkspaceIndex>,
    /// The workspace's folders, which the index is built for.
    roots: Vec<std::path::PathBuf>,
    stop_indexing: Arc<AtomicBool>,
    indexer: Option<thread::JoinHandle<()>>,
}

impl Server<'_> {
    fn run(&mut self) -> Result<Ending, ServerError> {
        while let Ok(message) = self.connection.receiver.recv() {
            match message {
                Message::Request(request) => self.request(request)?,
                Message::Notification(notification) if notification.method == Exit::METHOD => {
                    return Ok(if self.shutting_down {
                        Ending::Clean
                    } else {
                        Ending::Abrupt
                    });
                }
                Message::Notification(notification) => self.notification(notification),
                // The only requests the server sends are registrations; their answers need no
                // action.
                Message::Response(_) => {}
            }
        }
        Ok(Ending::Abrupt)
    }

    fn send(&self, message: impl Into<Message>) -> Result<(), ServerError> {
        self.connection.sender.send(message.into())?;
        Ok(())
    }

    fn request(&mut self, request: Request) -> Result<(), ServerError> {
        if self.shutting_down {
            return self.send(Response::new_err(
                request.id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".to_owned(),
            ));
        }
        let id = request.id.clone();
        let method = request.method.clone();
        // As on the worker, a bug in a rule or a fix answers this request with an error and
        // leaves the session running.
        let answered = catch_unwind(AssertUnwindSafe(|| self.answer(request)));
        let response = answered.unwrap_or_else(|_| {
            Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("podcycle failed to answer `{method}`; please report this with the file"),
            )
        });
        self.send(response)
    }

    fn answer(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let method = request.method.clone();
        match method.as_str() {
            "shutdown" => {
                self.shutting_down = true;
                Response::new_ok(id, ())
            }
            CodeActionRequest::METHOD => match request.extract(CodeActionRequest::METHOD) {
                Ok((id, params)) => Response::new_ok(id, self.code_action(&params)),
                Err(error) => invalid_params(id, &error),
            },
            HoverRequest::METHOD => match request.extract(HoverRequest::METHOD) {
                Ok((id, params)) => Response::new_ok(id, self.hover(&params)),
                Err(error) => invalid_params(id, &error),
            },
            explain::METHOD => match request.extract(explain::METHOD) {
                Ok((id, params)) => match self.explain(&params) {
                    Some(result) => Response::new_ok(id, result),
                    None => Response::new_err(
                        id,
                        ErrorCode::InvalidParams as i32,
                        "the document is not open".to_owned(),
                    ),
                },
                Err(error) => invalid_params(id, &error),
            },
            method => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("podcycle does not handle `{method}`"),
            ),
        }
    }

    /// Notifications have no answer; one that cannot be read is skipped.
    fn notification(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(params) = notification.extract(DidOpenTextDocument::METHOD) {
                    self.did_open(params);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(params) = notification.extract(DidChangeTextDocument::METHOD) {
                    self.did_change(params);
                }
            }
            DidSaveTextDocument::METHOD => {
                if let Ok(params) =
                    notification.extract::<DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD)
                {
                    self.did_save(&params.text_document.uri);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(params) = notification.extract(DidCloseTextDocument::METHOD) {
                    self.did_close(params);
                }
            }
            DidChangeWatchedFiles::METHOD => {
                if let Ok(params) = notification.extract(DidChangeWatchedFiles::METHOD) {
                    self.did_change_watched_files(&params);
                }
            }
            DidChangeConfiguration::METHOD => {
                if let Ok(params) = notification
                    .extract::<DidChangeConfigurationParams>(DidChangeConfiguration::METHOD)
                {
                    self.editor_settings(&params.settings);
                    self.lint_all();
                }
            }
            _ => {}
        }
    }

    /// Asks the client to report changes of configuration files and manifests, when it can
    /// watch files.
    fn register_watch(&self) {
        self.index.set_watched(self.watch_config);
        if !self.watch_config {
            return;
        }
        let watcher = |glob: &str| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob.to_owned()),
            kind: None,
        };
        let options = DidChangeWatchedFilesRegistrationOptions {
            watchers: vec![watcher(CONFIG_FILES_GLOB), watcher(MANIFEST_FILES_GLOB)],
        };
        let params = RegistrationParams {
            registrations: vec![Registration {
                id: "podcycle-config-files".to_owned(),
                method: DidChangeWatchedFiles::METHOD.to_owned(),
                register_options: serde_json::to_value(options).ok(),
            }],
        };
        let request = Request::new(
            RequestId::from("podcycle/register-config-watch".to_owned()),
            RegisterCapability::METHOD.to_owned(),
            params,
        );
        let _ = self.send(request);
    }

    /// Builds the workspace's index in the background, once.
    fn start_index(&mut self) {
        if self.indexer.is_some() {
            return;
        }
        let sender = self.connection.sender.clone();
        self.indexer = indexing::start(
            Arc::clone(&self.index),
            self.roots.clone(),
            Arc::clone(&self.options),
            Arc::clone(&self.stop_indexing),
            move |message| {
                let _ = sender.send(message);
            },
        );
    }

    fn did_open(&mut self, params: DidOpenTextDocumentParams) {
        let document = params.text_document;
        let open = OpenDocument::new(document.version, document.text);
        if let Some(path) = file_path(&document.uri) {
            self.index.open(&path, Arc::clone(&open.text));
        }
        self.documents.insert(document.uri.clone(), open);
        self.lint(&document.uri);
    }

    fn did_change(&mut self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let Some(open) = self.documents.get(&uri) else {
            return;
        };
        let mut text = String::clone(&open.text);
        for change in params.content_changes {
            match change.range {
                None => text = change.text,
                // Full sync is what the server asks for; a range is honoured all the same.
                Some(range) => {
                    let lines = LineIndex::new(&text);
                    let converter = Text {
                        text: &text,
                        lines: &lines,
                        encoding: self.client.encoding,
                    };
                    let start = converter.offset(range.start);
                    let end = converter.offset(range.end).max(start);
                    text.replace_range(start..end, &change.text);
                }
            }
        }
        let open = OpenDocument::new(params.text_document.version, text);
        if let Some(path) = file_path(&uri) {
            self.index.open(&path, Arc::clone(&open.text));
        }
        self.documents.insert(uri.clone(), open);
        self.lint(&uri);
    }

    /// What the renderers read changed on disk: the open documents judged through a chart or
    /// overlay are linted again, and the charts and overlays the saved file belongs to are
    /// rendered and their findings published in the files they are placed in.
    fn did_save(&mut self, uri: &Uri) {
        let uris: Vec<Uri> = self.documents.keys().cloned().collect();
        for open in &uris {
            self.lint(open);
        }
        let Some(path) = file_path(uri) else {
            return;
        };
        let jobs = crate::run::owners_of_saved(&self.options, &mut self.configs, &path);
        if jobs.is_empty() {
            return;
        }
        let open = uris
            .iter()
            .filter(|u| self.documents.contains_key(*u))
            .cloned()
            .collect();
        let _ = self.jobs.send(Job::Owners(worker::OwnersJob {
            jobs,
            options: Arc::clone(&self.options),
            open,
        }));
    }

    fn did_close(&mut self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        self.documents.remove(&uri);
        let path = file_path(&uri);
        let _ = self.jobs.send(Job::Close(uri));
        // The file as saved counts again for its directory: the open documents there are
        // linted again if that changes their scope.
        if let Some(path) = path {
            self.index.close(&path);
            if let Some(directory) = path.parent() {
                let _ = self.jobs.send(Job::Touched(vec![directory.to_owned()]));
            }
        }
    }

    fn did_change_watched_files(&mut self, params: &DidChangeWatchedFilesParams) {
        let directories = changed_manifests(&self.index, &params.changes);
        if !directories.is_empty() {
            let _ = self.jobs.send(Job::Touched(directories));
        }
        if changes_config(&params.changes) {
            self.lint_all();
        }
    }

    /// Lints every open document again, with the configurations read afresh.
    fn lint_all(&mut self) {
        self.shown_config_errors.clear();
        self.reread_configs();
        let uris: Vec<Uri> = self.documents.keys().cloned().collect();
        for uri in uris {
            if let Some(open) = self.documents.get_mut(&uri) {
                open.diagnostics = OnceCell::new();
            }
            self.lint(&uri);
        }
    }

    /// Takes the editor's settings (`initializationOptions`, `workspace/didChangeConfiguration`)
    /// as the options of the server's runs, and says what cannot be used in them.
    fn editor_settings(&mut self, settings: &serde_json::Value) {
        let (options, problems) =
            run_options(settings, self.workspace_folder.as_deref(), self.trust);
        self.options = Arc::new(options);
        self.reread_configs();
        for problem in problems {
            let _ = self.send(Notification::new(
                ShowMessage::METHOD.to_owned(),
                ShowMessageParams {
                    typ: MessageType::ERROR,
                    message: format!("podcycle: {problem}; it is left out"),
                },
            ));
        }
    }

    /// Forgets the configurations read, so that the next lint reads them again; the one the
    /// editor's settings name for every document is read now. When it cannot be used, the user
    /// is told, and the defaults apply until it is fixed.
    fn reread_configs(&mut self) {
        self.configs = match Configs::new(&self.options.config) {
            Ok(configs) => configs,
            Err(error) => {
                self.show_config_error(&error);
                Configs::new(&ConfigChoice::Nothing).unwrap_or_else(|_| Configs::nearest())
            }
        };
    }

    fn lint(&mut self, uri: &Uri) {
        let Some(open) = self.documents.get(uri) else {
            return;
        };
        if is_config_file(uri) {
            // A configuration file gets its own problems, from the text being edited; the
            // documents under it are read with it afresh.
            let params = PublishDiagnosticsParams {
                uri: uri.clone(),
                diagnostics: config_diagnostics(uri, &open.text, self.client),
                version: Some(open.version),
            };
            self.reread_configs();
            let _ = self.send(Notification::new(
                PublishDiagnostics::METHOD.to_owned(),
                params,
            ));
            return;
        }
        let version = open.version;
        let text = Arc::clone(&open.text);
        if !self.watch_config {
            // Without word of changed files, a configuration is read afresh for each lint, so
            // that an edit to it applies at the next change.
            self.reread_configs();
        }
        let path = file_path(uri);
        let plan = EditorPlan::new(&self.options, &mut self.configs, path.as_deref());
        if let Some(error) = &plan.config_error {
            self.show_config_error(error);
        }
        if let Some(open) = self.documents.get_mut(uri) {
            open.plan = plan.file.clone();
            open.config = plan.config.clone();
        }
        let _ = self.jobs.send(Job::Lint(Box::new(LintJob {
            uri: uri.clone(),
            version: Some(version),
            text,
            plan,
            options: Arc::clone(&self.options),
        })));
    }

    /// Tells the user that a configuration file cannot be used and the defaults apply, once
    /// per problem: `podcycle check` would stop with this error.
    fn show_config_error(&mut self, error: &crate::config::ConfigError) {
        let summary = error.summary();
        if self.shown_config_errors.get(error.path()) == Some(&summary) {
            return;
        }
        self.shown_config_errors
            .insert(error.path().to_owned(), summary.clone());
        let _ = self.send(Notification::new(
            ShowMessage::METHOD.to_owned(),
            ShowMessageParams {
                typ: MessageType::ERROR,
                message: format!("podcycle: {summary}; the defaults apply until it is fixed"),
            },
        ));
    }

    /// The document's text, line index and diagnostics (linted now if not yet for this
    /// version).
    fn analysed(&self, uri: &Uri) -> Option<(Text<'_>, &[Diagnostic])> {
        let open = self.documents.get(uri)?;
        let lines = open.lines.get_or_init(|| LineIndex::new(&open.text));
        let diagnostics = open.diagnostics.get_or_init(|| {
            // A document the configuration excludes gets no findings, as with `check`.
            open.plan.as_ref().map_or_else(Vec::new, |plan| {
                let workspace = Workspace {
                    index: &self.index,
                    options: &self.options,
                    config: open.config.as_ref(),
                };
                analyse_in_workspace(&workspace, uri, &open.text, plan).0
            })
        });
        let text = Text {
            text: &open.text,
            lines,
            encoding: self.client.encoding,
        };
        Some((text, diagnostics))
    }

    fn code_action(&self, params: &CodeActionParams) -> Option<lsp_types::CodeActionResponse> {
        let wanted = params.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|kind| CodeActionKind::QUICKFIX.as_str().starts_with(kind.as_str()))
        });
        if !wanted {
            return None;
        }
        let uri = &params.text_document.uri;
        let (text, diagnostics) = self.analysed(uri)?;
        let range = Span::new(
            text.offset(params.range.start),
            text.offset(params.range.end),
        );
        let selected = requested(&text, diagnostics, range, &params.context.diagnostics);
        Some(code_actions(uri, &text, &selected, self.client))
    }

    /// `None` when the document is not open.
    fn explain(&mut self, params: &ExplainParams) -> Option<ExplainResult> {
        let uri = &params.text_document.uri;
        let path = file_path(uri);
        let plan = EditorPlan::new(&self.options, &mut self.configs, path.as_deref());
        let open = self.documents.get(uri)?;
        let lines = open.lines.get_or_init(|| LineIndex::new(&open.text));
        let text = Text {
            text: &open.text,
            lines,
            encoding: self.client.encoding,
        };
        Some(explain_at(
            &plan,
            &self.options,
            path.as_deref(),
            &display_name(uri),
            &open.text,
            text.offset(params.position),
        ))
    }

    fn hover(&self, params: &HoverParams) -> Option<lsp_types::Hover> {
        let position = &params.text_document_position_params;
        let (text, diagnostics) = self.analysed(&position.text_document.uri)?;
        hover(&text, diagnostics, text.offset(position.position))
    }
}

fn invalid_params(id: RequestId, error: &lsp_server::ExtractError<Request>) -> Response {
    Response::new_err(
        id,
        ErrorCode::InvalidParams as i32,
        format!("invalid parameters: {error}"),
    )
}
