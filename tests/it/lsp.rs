//! `podcycle lsp` over the protocol, in process: the handshake, diagnostics on open, change
//! and close with UTF-16 ranges, code actions whose edits give the expected YAML, hover,
//! shutdown and exit; and every prefix of a manifest through the lint path the server uses.

use lsp_types::request::{CodeActionRequest, HoverRequest};
use lsp_types::{
    ClientCapabilities, CodeActionContext, CodeActionOrCommand, CodeActionParams,
    DiagnosticSeverity, GeneralClientCapabilities, HoverContents, HoverParams, NumberOrString,
    PartialResultParams, Position, PositionEncodingKind, Range, TextDocumentIdentifier,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind,
    WorkDoneProgressParams,
};
use podcycle::diagnostics::Diagnostic;
use podcycle::lint::FileRole;
use podcycle::lsp::convert::{self, ClientInfo, Encoding, Text};
use podcycle::lsp::{Ending, actions, lsp_diagnostics};
use podcycle::run::FilePlan;
use podcycle::settings::Settings;
use podcycle::source::{LineIndex, Span};

use crate::lsp_client::{Client, apply, capabilities, offset, position, uri};

/// What the server shows for `text` as `path`, a file on its own linted with `settings` as
/// `role`.
fn analyse(path: &str, text: &str, settings: &Settings, role: FileRole) -> Vec<Diagnostic> {
    podcycle::lsp::analyse(path, text, &FilePlan::new(settings.clone(), role))
}

const WEB: &str = include_str!("../../testdata/lsp/web.yaml");

/// The range of the first occurrence of `needle` after `after`, in UTF-16 positions.
/// The published diagnostic of a rule.
fn with_code<'d>(
    diagnostics: &'d [lsp_types::Diagnostic],
    rule: &str,
) -> &'d lsp_types::Diagnostic {
    diagnostics
        .iter()
        .find(|d| d.code == Some(NumberOrString::String(rule.to_owned())))
        .unwrap_or_else(|| panic!("no `{rule}` diagnostic in {diagnostics:?}"))
}

fn range_of(text: &str, after: &str, needle: &str) -> Range {
    let from = text.find(after).unwrap();
    let start = from + text[from..].find(needle).unwrap();
    Range::new(position(text, start), position(text, start + needle.len()))
}

/// The test manifest with the pod's grace period set.
fn with_grace_period(seconds: u32) -> String {
    WEB.replace(
        "    spec:\n      initContainers:",
        &format!(
            "    spec:\n      terminationGracePeriodSeconds: {seconds}\n      initContainers:"
        ),
    )
}

/// A client that opened `text` as `web.yaml`, and the diagnostics it received for it.
fn opened(
    related_information: bool,
    text: &str,
) -> (Client, lsp_types::Uri, lsp_types::PublishDiagnosticsParams) {
    let mut client = Client::start(capabilities(related_information));
    let web = uri("/work/deploy/web.yaml");
    client.open(&web, 1, text);
    let published = client.diagnostics(&web, Some(1));
    (client, web, published)
}

#[test]
fn handshake_offers_full_sync_quick_fixes_hover_and_utf16() {
    let client = Client::start(capabilities(false));
    let capabilities = &client.initialized.capabilities;
    assert_eq!(
        capabilities.position_encoding,
        Some(PositionEncodingKind::UTF16)
    );
    let Some(TextDocumentSyncCapability::Options(sync)) = &capabilities.text_document_sync else {
        panic!("{:?}", capabilities.text_document_sync);
    };
    assert_eq!(sync.change, Some(TextDocumentSyncKind::FULL));
    assert_eq!(sync.open_close, Some(true));
    assert!(capabilities.code_action_provider.is_some());
    assert!(capabilities.hover_provider.is_some());
    assert_eq!(
        client.initialized.server_info.as_ref().unwrap().name,
        "podcycle"
    );
    assert_eq!(client.shutdown(), Ending::Clean);

    // UTF-8 only when the client lists it.
    let utf8 = ClientCapabilities {
        general: Some(GeneralClientCapabilities {
            position_encodings: Some(vec![
                PositionEncodingKind::UTF8,
                PositionEncodingKind::UTF16,
            ]),
            ..GeneralClientCapabilities::default()
        }),
        ..ClientCapabilities::default()
    };
    let client = Client::start(utf8);
    assert_eq!(
        client.initialized.capabilities.position_encoding,
        Some(PositionEncodingKind::UTF8)
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

#[test]
fn diagnostics_on_open_change_and_close() {
    let (mut client, web, published) = opened(true, WEB);
    let found: Vec<(String, Range)> = published
        .diagnostics
        .iter()
        .map(|d| {
            let Some(NumberOrString::String(code)) = &d.code else {
                panic!("{d:?}");
            };
            (code.clone(), d.range)
        })
        .collect();
    assert_eq!(
        found,
        [
            (
                "init-container-never-exits".to_owned(),
                range_of(WEB, "name: envoy", "image")
            ),
            (
                "init-container-probe".to_owned(),
                range_of(WEB, "name: envoy", "startupProbe")
            ),
            (
                "prestop-exceeds-grace-period".to_owned(),
                range_of(WEB, "name: web", "preStop")
            ),
            (
                "container-restart-policy".to_owned(),
                range_of(WEB, "name: greeter", "always")
            ),
        ]
    );
    // Non-ASCII text before the finding on its line: 100 characters, 101 UTF-16 units (𝄞 is
    // two), 105 bytes.
    assert_eq!(found[3].1.start, Position::new(26, 101));

    let first = with_code(&published.diagnostics, "init-container-probe");
    assert_eq!(first.source.as_deref(), Some("podcycle"));
    assert_eq!(first.severity, Some(DiagnosticSeverity::ERROR));
    assert_eq!(
        first.code_description.as_ref().unwrap().href.as_str(),
        "https://github.com/podcycle/podcycle/blob/main/docs/rules/init-container-probe.md"
    );
    assert!(
        first.message.starts_with(
            "startupProbe is not allowed on init container `envoy`\nhelp: remove the probe"
        ),
        "{}",
        first.message
    );
    assert!(first.message.contains("\nnote: the API server rejects"));

    // A change that sets the grace period: the preStop finding goes, and the next one shows
    // the grace period as related information.
    let changed = with_grace_period(40);
    client.change(&web, 2, &changed);
    let published = client.diagnostics(&web, Some(2));
    let prestop = published
        .diagnostics
        .iter()
        .find(|d| {
            d.code
                == Some(NumberOrString::String(
                    "prestop-exceeds-grace-period".into(),
                ))
        })
        .unwrap();
    let related = prestop.related_information.as_ref().unwrap();
    assert_eq!(related[0].message, "grace period of 40s set here");
    assert_eq!(
        related[0].location.range,
        range_of(&changed, "terminationGracePeriodSeconds", "40")
    );
    let fixed = changed.replace(
        "value: \"Grüße 𝄞\"}], restartPolicy: always}",
        "value: \"Grüße 𝄞\"}]}",
    );
    client.change(&web, 3, &fixed.replace("\"45\"", "\"10\""));
    let published = client.diagnostics(&web, Some(3));
    let codes: Vec<_> = published
        .diagnostics
        .iter()
        .map(|d| d.code.clone())
        .collect();
    assert_eq!(
        codes,
        [
            Some(NumberOrString::String("init-container-never-exits".into())),
            Some(NumberOrString::String("init-container-probe".into()))
        ]
    );

    client.close(&web);
    assert!(client.diagnostics(&web, None).diagnostics.is_empty());
    assert_eq!(client.shutdown(), Ending::Clean);
}

#[test]
fn labels_go_into_the_message_without_related_information() {
    let (client, _, published) = opened(false, &with_grace_period(40));
    let prestop = with_code(&published.diagnostics, "prestop-exceeds-grace-period");
    assert!(prestop.related_information.is_none());
    assert!(
        prestop
            .message
            .ends_with("\nline 15: grace period of 40s set here"),
        "{}",
        prestop.message
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

#[test]
fn yaml_that_is_not_kubernetes_gets_no_diagnostics_and_objects_do() {
    let mut client = Client::start(capabilities(false));
    let workflow = uri("/work/.github/workflows/ci.yaml");
    client.open(&workflow, 1, "on: [push\njobs:\n  build: {a: 1, a: 2}\n");
    assert!(
        client
            .diagnostics(&workflow, Some(1))
            .diagnostics
            .is_empty()
    );
    let service = uri("/work/deploy/service.yaml");
    client.open(
        &service,
        1,
        "apiVersion: v1\nkind: Service\nmetadata: {name: a, name: b}\n",
    );
    // A Service is a Kubernetes object: what `check` says of it, the editor shows.
    let published = client.diagnostics(&service, Some(1)).diagnostics;
    assert_eq!(
        published.iter().map(|d| d.code.clone()).collect::<Vec<_>>(),
        [Some(NumberOrString::String("duplicate-key".to_owned()))]
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

fn code_actions(
    client: &mut Client,
    uri: &lsp_types::Uri,
    range: Range,
) -> Vec<lsp_types::CodeAction> {
    code_actions_with(client, uri, range, Vec::new())
}

fn code_actions_with(
    client: &mut Client,
    uri: &lsp_types::Uri,
    range: Range,
    listed: Vec<lsp_types::Diagnostic>,
) -> Vec<lsp_types::CodeAction> {
    let params = CodeActionParams {
        text_document: TextDocumentIdentifier::new(uri.clone()),
        range,
        context: CodeActionContext {
            diagnostics: listed,
            ..CodeActionContext::default()
        },
        work_done_progress_params: WorkDoneProgressParams::default(),
        partial_result_params: PartialResultParams::default(),
    };
    client
        .request::<CodeActionRequest>(params)
        .unwrap_or_default()
        .into_iter()
        .map(|action| match action {
            CodeActionOrCommand::CodeAction(action) => action,
            CodeActionOrCommand::Command(command) => panic!("{command:?}"),
        })
        .collect()
}

/// Applies the action titled `title` to `before`, as an editor does, and checks that the
/// result is `before` with each `from` replaced by its `to`. Returns the result.
fn check_action(
    actions: &[lsp_types::CodeAction],
    title: &str,
    uri: &lsp_types::Uri,
    before: &str,
    replacements: &[(&str, &str)],
) -> String {
    let action = actions
        .iter()
        .find(|a| a.title == title)
        .unwrap_or_else(|| {
            panic!(
                "no `{title}` in {:?}",
                actions.iter().map(|a| &a.title).collect::<Vec<_>>()
            )
        });
    let edits = &action.edit.as_ref().unwrap().changes.as_ref().unwrap()[uri];
    let after = apply(before, edits);
    let mut expected = before.to_owned();
    for (from, to) in replacements {
        assert!(expected.contains(from), "{from:?}");
        expected = expected.replacen(from, to, 1);
    }
    assert_eq!(after, expected, "{title}");
    after
}

fn rules_left(text: &str) -> Vec<&'static str> {
    analyse("web.yaml", text, &Settings::default(), FileRole::Manifest)
        .iter()
        .map(|d| d.rule)
        .collect()
}

#[test]
fn only_files_with_kubernetes_objects_get_diagnostics() {
    // A syntax error in a file that is not a manifest is left to other tools.
    assert!(rules_left("jobs:\n  build: [\n").is_empty());
    assert!(rules_left("a: 1\na: 2\n").is_empty());
    // A Kubernetes object that is not a workload is judged as `check` judges it.
    assert_eq!(
        rules_left("apiVersion: v1\nkind: Service\nmetadata: {a: 1, a: 2}\n"),
        ["duplicate-key"]
    );
    // A manifest cut short by a syntax error still gets it.
    assert_eq!(
        rules_left("apiVersion: apps/v1\nkind: Deployment\nspec:\n  template: [\n"),
        ["yaml-syntax"]
    );
    assert_eq!(
        rules_left("{\"apiVersion\": \"v1\",\n \"kind\": \"Pod\",\n \"spec\": [\n"),
        ["yaml-syntax"]
    );
    // A file with a Kubernetes object in it is a manifest: every document of it is reported,
    // as `check` reports it.
    let stream = "a: [\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a, name: b}\n";
    assert_eq!(rules_left(stream), ["yaml-syntax", "duplicate-key"]);
}

#[test]
fn code_actions_give_the_expected_yaml() {
    let (mut client, web, _) = opened(false, WEB);

    // The init container with a probe is Envoy, which keeps running: make it a sidecar.
    let cursor = range_of(WEB, "name: envoy", "startupProbe");
    let actions = code_actions(&mut client, &web, Range::new(cursor.start, cursor.start));
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Make `envoy` a native sidecar (`restartPolicy: Always`)",
            "Ignore `init-container-probe` here (`# podcycle: ignore`)"
        ]
    );
    assert_eq!(actions[0].is_preferred, Some(true));
    assert_eq!(
        actions[0].diagnostics.as_ref().unwrap()[0].code,
        Some(NumberOrString::String("init-container-probe".into()))
    );
    let envoy = "      - name: envoy\n";
    let sidecar = envoy.to_owned() + "        restartPolicy: Always\n";
    let fixed = check_action(&actions, titles[0], &web, WEB, &[(envoy, &sidecar)]);
    assert!(!rules_left(&fixed).contains(&"init-container-probe"));
    let probe = "        startupProbe:";
    let comment =
        "        # podcycle: ignore[init-container-probe] TODO: reason\n".to_owned() + probe;
    check_action(&actions, titles[1], &web, WEB, &[(probe, &comment)]);

    // The preStop sleep: raise the grace period, or also switch to the sleep action.
    let cursor = range_of(WEB, "name: web", "preStop");
    let actions = code_actions(&mut client, &web, cursor);
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Raise terminationGracePeriodSeconds to 75",
            "Use the `sleep` action for the preStop delay and raise terminationGracePeriodSeconds to 75",
            "Ignore `prestop-exceeds-grace-period` here (`# podcycle: ignore`)",
        ]
    );
    let spec = "    spec:\n      initContainers:";
    let raised = "    spec:\n      terminationGracePeriodSeconds: 75\n      initContainers:";
    let fixed = check_action(&actions, titles[0], &web, WEB, &[(spec, raised)]);
    assert!(!rules_left(&fixed).contains(&"prestop-exceeds-grace-period"));
    let exec = "            exec:\n              command: [\"sleep\", \"45\"]";
    let sleep = "            sleep:\n              seconds: 45";
    let both = check_action(
        &actions,
        titles[1],
        &web,
        WEB,
        &[(spec, raised), (exec, sleep)],
    );
    assert!(!rules_left(&both).contains(&"prestop-exceeds-grace-period"));

    // No certain fix for a misspelt restart policy: only the comment, indented like the line.
    let cursor = range_of(WEB, "name: greeter", "always");
    let actions = code_actions(&mut client, &web, cursor);
    assert_eq!(actions.len(), 1);
    let greeter = "      - {name: greeter";
    let comment =
        "      # podcycle: ignore[container-restart-policy] TODO: reason\n".to_owned() + greeter;
    check_action(
        &actions,
        &actions[0].title,
        &web,
        WEB,
        &[(greeter, &comment)],
    );

    // Nowhere near a finding: nothing.
    let top = Range::new(Position::new(1, 0), Position::new(1, 3));
    assert!(code_actions(&mut client, &web, top).is_empty());
    assert_eq!(client.shutdown(), Ending::Clean);
}

#[test]
fn code_actions_cover_the_diagnostics_the_client_lists() {
    // Neovim asks with the cursor's position and the diagnostics of its line.
    let (mut client, web, published) = opened(false, WEB);
    let probe = with_code(&published.diagnostics, "init-container-probe").clone();
    let line_start = Position::new(probe.range.start.line, 0);
    let cursor = Range::new(line_start, line_start);
    assert!(code_actions(&mut client, &web, cursor).is_empty());
    let actions = code_actions_with(&mut client, &web, cursor, vec![probe]);
    assert_eq!(
        actions[0].title,
        "Make `envoy` a native sidecar (`restartPolicy: Always`)"
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

#[test]
fn fixes_need_the_version_to_have_the_feature() {
    // On 1.28 native sidecars are off and the sleep action does not exist: only the grace
    // period fix is certain. Settings carry the version the code actions judge by.
    let settings = Settings::default().with_kube_version("1.28".parse().unwrap());
    let found = analyse("web.yaml", WEB, &settings, FileRole::Manifest);
    let titles: Vec<&str> = found
        .iter()
        .flat_map(|d| d.fixes.iter().map(|f| f.title.as_str()))
        .collect();
    assert_eq!(titles, ["Raise terminationGracePeriodSeconds to 75"]);
}

#[test]
fn hover_on_a_finding_shows_the_rule() {
    let (mut client, web, _) = opened(false, WEB);
    let hover_at = |client: &mut Client, position: Position| {
        client.request::<HoverRequest>(HoverParams {
            text_document_position_params: TextDocumentPositionParams::new(
                TextDocumentIdentifier::new(web.clone()),
                position,
            ),
            work_done_progress_params: WorkDoneProgressParams::default(),
        })
    };
    let range = range_of(WEB, "name: web", "preStop");
    let hover = hover_at(&mut client, range.start).unwrap();
    assert_eq!(hover.range, Some(range));
    let HoverContents::Markup(content) = hover.contents else {
        panic!("{:?}", hover.contents);
    };
    assert!(
        content
            .value
            .starts_with("**prestop-exceeds-grace-period** (correctness warning, runtime)")
    );
    assert!(content.value.contains("## Why is this bad?"));
    assert!(
        content
            .value
            .contains("docs/rules/prestop-exceeds-grace-period.md")
    );
    assert!(hover_at(&mut client, Position::new(2, 0)).is_none());
    assert_eq!(client.shutdown(), Ending::Clean);
}

#[test]
fn exit_without_shutdown_is_an_abrupt_end() {
    let client = Client::start(capabilities(false));
    assert_eq!(client.exit(), Ending::Abrupt);
}

#[test]
fn unknown_requests_get_an_error_and_the_server_goes_on() {
    let mut client = Client::start(capabilities(false));
    let response = client.request_raw("textDocument/completion", serde_json::json!({}));
    assert_eq!(
        response.response_result.unwrap_err().code,
        lsp_server::ErrorCode::MethodNotFound as i32
    );
    let response = client.request_raw("textDocument/hover", serde_json::json!({"x": 1}));
    assert_eq!(
        response.response_result.unwrap_err().code,
        lsp_server::ErrorCode::InvalidParams as i32
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// Typing a manifest passes through every prefix of it. Each one goes through the server's
/// lint path — analysis, conversion in both encodings, and the code actions of every finding —
/// and every range must lie inside the text.
#[test]
fn every_prefix_of_a_manifest_is_handled() {
    let settings = Settings::default();
    let web = uri("/work/deploy/web.yaml");
    let fixtures = [
        WEB,
        include_str!("../../rules/prestop-exceeds-grace-period/invalid.yaml"),
        include_str!("../../testdata/cli/bad.yaml"),
    ];
    let clients = [
        ClientInfo {
            encoding: Encoding::Utf16,
            related_information: true,
        },
        ClientInfo {
            encoding: Encoding::Utf8,
            related_information: false,
        },
    ];
    for fixture in fixtures {
        let mut prefixes = 0;
        for (end, _) in fixture.char_indices().chain([(fixture.len(), ' ')]) {
            let prefix = &fixture[..end];
            let found = analyse("web.yaml", prefix, &settings, FileRole::Manifest);
            let index = LineIndex::new(prefix);
            let lines = prefix.split('\n').count() as u32;
            for client in clients {
                let text = Text {
                    text: prefix,
                    lines: &index,
                    encoding: client.encoding,
                };
                for diagnostic in &found {
                    let published = convert::diagnostic(diagnostic, &web, &text, client);
                    for position in [published.range.start, published.range.end] {
                        assert!(position.line < lines, "{position:?} outside {prefix:?}");
                    }
                }
            }
            let text = Text {
                text: prefix,
                lines: &index,
                encoding: Encoding::Utf16,
            };
            let all = actions::requested(&text, &found, Span::new(0, end), &[]);
            assert_eq!(all.len(), found.len());
            actions::code_actions(&web, &text, &all, clients[0]);
            prefixes += 1;
        }
        assert_eq!(prefixes, fixture.chars().count() + 1);
        // The server's own entry point, on the whole text.
        let published = lsp_diagnostics(&web, fixture, &settings, FileRole::Manifest, clients[0]);
        assert!(!published.is_empty());
    }
}

/// A fix is offered only where it is certain: every fix offered on a rule fixture can be
/// written as text edits, and once applied it removes the finding it was offered for and
/// brings no new warning or error. (Advice may follow from the fix's purpose: a new native
/// sidecar is told about startup probes.)
#[test]
fn fixes_resolve_their_findings_and_add_none() {
    let settings = Settings::default();
    let mut applied_fixes = 0;
    let mut fixtures: Vec<std::path::PathBuf> = std::fs::read_dir("rules")
        .unwrap()
        .map(|dir| dir.unwrap().path())
        .filter(|dir| dir.is_dir())
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .collect();
    fixtures.push("testdata/lsp/web.yaml".into());
    for path in fixtures {
        let text = std::fs::read_to_string(&path).unwrap();
        let before = analyse("f.yaml", &text, &settings, FileRole::Manifest);
        let documents = podcycle::yaml::parse_stream(&text);
        for diagnostic in &before {
            for fix in &diagnostic.fixes {
                let edits =
                    podcycle::fix::text_edits(&text, &documents, fix).unwrap_or_else(|| {
                        panic!(
                            "{}: the fix `{}` of {} cannot be rendered as text edits",
                            path.display(),
                            fix.title,
                            diagnostic.rule
                        )
                    });
                let fixed = podcycle::fix::apply(&text, &edits);
                let after = analyse("f.yaml", &fixed, &settings, FileRole::Manifest);
                let key = |d: &podcycle::diagnostics::Diagnostic| {
                    (d.rule, d.field.clone(), d.object.clone())
                };
                assert!(
                    !after.iter().any(|d| key(d) == key(diagnostic)),
                    "{}: `{}` left {} in\n{fixed}",
                    path.display(),
                    fix.title,
                    diagnostic.rule
                );
                let old: Vec<_> = before.iter().map(key).collect();
                let new: Vec<_> = after
                    .iter()
                    .filter(|d| d.severity > podcycle::diagnostics::Severity::Info)
                    .map(key)
                    .filter(|k| !old.contains(k))
                    .collect();
                assert!(
                    new.is_empty(),
                    "{}: `{}` brought {new:?}",
                    path.display(),
                    fix.title
                );
                applied_fixes += 1;
            }
        }
    }
    // Guards the walk itself: the fixtures offer fixes, so none applied means none were seen.
    assert!(applied_fixes > 0, "no fix was applied to any fixture");
}

/// The nearest `.podcycle.yaml` applies to a document, as it does for `check`: its `ignore`,
/// `per-path-ignores` and `exclude`.
#[test]
fn the_nearest_configuration_applies() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join(".podcycle.yaml"),
        "ignore: [init-container-never-exits]\nper-path-ignores:\n  'legacy/**': [init-container-probe]\nexclude: ['vendor/**']\n",
    )
    .unwrap();
    let codes = |relative: &str| {
        let mut client = Client::start(capabilities(true));
        let document = uri(&root.join(relative).display().to_string());
        client.open(&document, 1, WEB);
        let codes = codes_of(&mut client, &document, 1);
        assert_eq!(client.shutdown(), Ending::Clean);
        codes
    };
    assert_eq!(
        codes("deploy/web.yaml"),
        [
            "init-container-probe",
            "prestop-exceeds-grace-period",
            "container-restart-policy"
        ]
    );
    assert_eq!(
        codes("legacy/web.yaml"),
        ["prestop-exceeds-grace-period", "container-restart-policy"]
    );
    assert!(codes("vendor/web.yaml").is_empty());
}

/// The watchers the server asked the client for in its `client/registerCapability`.
fn registered_watchers(registration: &lsp_server::Request) -> Vec<String> {
    let params: lsp_types::RegistrationParams =
        serde_json::from_value(registration.params.clone()).unwrap();
    let mut globs = Vec::new();
    for registration in params.registrations {
        assert_eq!(registration.method, "workspace/didChangeWatchedFiles");
        let options: lsp_types::DidChangeWatchedFilesRegistrationOptions =
            serde_json::from_value(registration.register_options.unwrap()).unwrap();
        for watcher in options.watchers {
            match watcher.glob_pattern {
                lsp_types::GlobPattern::String(glob) => globs.push(glob),
                lsp_types::GlobPattern::Relative(relative) => globs.push(relative.pattern),
            }
        }
    }
    globs
}

/// Where the editor watches files, the server asks it to, and builds the workspace's index
/// once the handshake is done; each configuration is read once, and read again when the
/// editor, as asked, says it changed on disk: then the open documents are linted again with it.
#[test]
fn a_watched_configuration_is_read_once_and_again_when_it_changes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let config = root.join(".podcycle.yaml");
    std::fs::write(&config, "ignore: [init-container-probe]\n").unwrap();
    crate::common::write(&root, "web.yaml", WEB);
    let mut client = workspace_client(&root, true);
    // As VS Code and Neovim do: the client answers the registration, and only then reports
    // changed files, those it was asked to watch.
    let registration = client.server_request("client/registerCapability");
    assert_eq!(
        registered_watchers(&registration),
        ["**/.podcycle.{yaml,yml}", "**/*.{yaml,yml,json}"]
    );
    let indexed = client.logged("podcycle: indexed");
    assert!(
        indexed.starts_with(&format!(
            "podcycle: indexed 1 manifests in 1 directories of {} in ",
            root.display()
        )),
        "{indexed}"
    );
    let document = uri(root.join("web.yaml").to_str().unwrap());
    let probe = |published: &lsp_types::PublishDiagnosticsParams| {
        published
            .diagnostics
            .iter()
            .any(|d| d.code == Some(NumberOrString::String("init-container-probe".to_owned())))
    };
    client.open(&document, 1, WEB);
    assert!(!probe(&client.diagnostics(&document, Some(1))));

    std::fs::write(&config, "ignore: []\n").unwrap();
    // Not told yet: the configuration read once still applies.
    client.change(&document, 2, WEB);
    assert!(!probe(&client.diagnostics(&document, Some(2))));
    client.notify::<lsp_types::notification::DidChangeWatchedFiles>(
        lsp_types::DidChangeWatchedFilesParams {
            changes: vec![lsp_types::FileEvent {
                uri: uri(config.to_str().unwrap()),
                typ: lsp_types::FileChangeType::CHANGED,
            }],
        },
    );
    assert!(probe(&client.diagnostics(&document, Some(2))));
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// An invalid configuration is not a silent fallback to the defaults: the user is told once
/// (`window/showMessage`), and the configuration file, when open, shows its problems.
#[test]
fn an_invalid_configuration_is_shown() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let config_text = "ignore: [init-container-nope]\nfail-on: sometimes\n";
    std::fs::write(root.join(".podcycle.yaml"), config_text).unwrap();
    let mut client = Client::start(capabilities(true));
    let document = uri(&root.join("deploy/web.yaml").display().to_string());
    client.open(&document, 1, WEB);
    let shown = client.notification("window/showMessage");
    let message = shown.params["message"].as_str().unwrap().to_owned();
    assert!(message.contains("invalid configuration"), "{message}");
    assert!(message.contains(".podcycle.yaml:1:10"), "{message}");
    assert!(message.contains("and 1 more problem"), "{message}");
    assert_eq!(shown.params["type"], 1, "an error");
    // The defaults apply meanwhile.
    let published = client.diagnostics(&document, Some(1));
    with_code(&published.diagnostics, "init-container-probe");

    // Typing on does not repeat the message.
    client.change(&document, 2, WEB);
    client.diagnostics(&document, Some(2));

    let config = uri(&root.join(".podcycle.yaml").display().to_string());
    client.open(&config, 1, config_text);
    let problems = client.diagnostics(&config, Some(1)).diagnostics;
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].message.contains("init-container-nope"));
    assert_eq!(problems[0].range.start, Position::new(0, 9));
    assert_eq!(problems[0].severity, Some(DiagnosticSeverity::ERROR));
    // Fixed in the editor: the problems go.
    client.change(&config, 2, "ignore: [init-container-probe]\n");
    assert!(client.diagnostics(&config, Some(2)).diagnostics.is_empty());
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// The "ignore" quick fix writes a placeholder reason; `unused-suppression` reports it until a
/// real reason replaces it, while the suppression already silences the finding.
#[test]
fn the_ignore_placeholder_is_reported_until_replaced() {
    let ignored = WEB.replace(
        "        startupProbe:",
        &format!(
            "        # podcycle: ignore[init-container-probe] {}\n        startupProbe:",
            podcycle::suppression::REASON_PLACEHOLDER
        ),
    );
    assert_ne!(ignored, WEB);
    let found = analyse(
        "web.yaml",
        &ignored,
        &Settings::default(),
        FileRole::Manifest,
    );
    assert!(!found.iter().any(|d| d.rule == "init-container-probe"));
    let placeholder: Vec<_> = found
        .iter()
        .filter(|d| d.rule == "unused-suppression")
        .collect();
    assert_eq!(placeholder.len(), 1, "{found:?}");
    assert!(placeholder[0].message.contains("placeholder"));
    let reasoned = ignored.replace(
        podcycle::suppression::REASON_PLACEHOLDER,
        "the migration image has no probe endpoint",
    );
    let found = analyse(
        "web.yaml",
        &reasoned,
        &Settings::default(),
        FileRole::Manifest,
    );
    assert!(
        !found.iter().any(|d| d.rule == "unused-suppression"),
        "{found:?}"
    );
}

/// A configuration that is a FIFO and a kustomization linked to `/dev/zero` beside the document:
/// reading either would hang or exhaust the server on every change. Neither is read, and the
/// document still gets its diagnostics.
#[cfg(unix)]
#[test]
fn special_files_beside_a_document_do_not_hang_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("deploy")).unwrap();
    let fifo = root.join("deploy/.podcycle.yaml");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    std::os::unix::fs::symlink("/dev/zero", root.join("deploy/kustomization.yaml")).unwrap();
    let mut client = Client::start(capabilities(true));
    let document = uri(&root.join("deploy/web.yaml").display().to_string());
    client.open(&document, 1, WEB);
    let shown = client.notification("window/showMessage");
    let message = shown.params["message"].as_str().unwrap().to_owned();
    assert!(message.contains("a named pipe (FIFO)"), "{message}");
    let published = client.diagnostics(&document, Some(1));
    with_code(&published.diagnostics, "init-container-probe");
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// The codes of the diagnostics published for `uri` at `version`.
fn codes_of(client: &mut Client, uri: &lsp_types::Uri, version: i32) -> Vec<String> {
    client
        .diagnostics(uri, Some(version))
        .diagnostics
        .iter()
        .filter_map(|d| match &d.code {
            Some(NumberOrString::String(code)) => Some(code.clone()),
            _ => None,
        })
        .collect()
}

/// The editor's settings are the command line's options: `select` and `ignore` over the
/// configuration, `kubeVersion` over its `kube-version`, from `initializationOptions` and
/// again from `workspace/didChangeConfiguration`, which re-lints the open documents.
#[test]
fn editor_settings_apply_like_command_line_options() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join(".podcycle.yaml"),
        "ignore: [container-restart-policy]\n",
    )
    .unwrap();
    let document = uri(&root.join("web.yaml").display().to_string());
    let mut client = Client::start_with(lsp_types::InitializeParams {
        capabilities: capabilities(true),
        initialization_options: Some(serde_json::json!({
            "ignore": ["init-container-probe"],
        })),
        ..lsp_types::InitializeParams::default()
    });
    client.open(&document, 1, WEB);
    assert_eq!(
        codes_of(&mut client, &document, 1),
        ["init-container-never-exits", "prestop-exceeds-grace-period"],
        "the configuration's `ignore` and the editor's both apply"
    );

    // VS Code sends its section under its name.
    client.notify::<lsp_types::notification::DidChangeConfiguration>(
        lsp_types::DidChangeConfigurationParams {
            settings: serde_json::json!({"podcycle": {"select": ["init-container-probe"]}}),
        },
    );
    assert_eq!(
        codes_of(&mut client, &document, 1),
        ["init-container-probe"]
    );

    // The sidecar fix needs native sidecars: offered for the newest version, not on 1.28
    // when the editor says so (the configuration names no version).
    let sidecar_fix = |client: &mut Client| {
        let published = client.diagnostics(&document, Some(1));
        let range = with_code(&published.diagnostics, "init-container-probe").range;
        code_actions(client, &document, range)
            .iter()
            .any(|a| a.title == "Make `envoy` a native sidecar (`restartPolicy: Always`)")
    };
    client.notify::<lsp_types::notification::DidChangeConfiguration>(
        lsp_types::DidChangeConfigurationParams {
            settings: serde_json::json!({"podcycle": {}}),
        },
    );
    assert!(sidecar_fix(&mut client));
    client.notify::<lsp_types::notification::DidChangeConfiguration>(
        lsp_types::DidChangeConfigurationParams {
            settings: serde_json::json!({"podcycle": {"kubeVersion": "1.28"}}),
        },
    );
    assert!(!sidecar_fix(&mut client));
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// A setting that cannot be used is said, and the others still apply.
#[test]
fn editor_settings_that_cannot_be_used_are_shown() {
    let mut client = Client::start_with(lsp_types::InitializeParams {
        capabilities: capabilities(true),
        initialization_options: Some(serde_json::json!({
            "ignore": ["init-container-nope", "init-container-probe"],
        })),
        ..lsp_types::InitializeParams::default()
    });
    let shown = client.notification("window/showMessage");
    let message = shown.params["message"].as_str().unwrap();
    assert!(
        message.contains("`podcycle.ignore`: unknown rule or category `init-container-nope`"),
        "{message}"
    );
    assert_eq!(shown.params["type"], 1, "an error");
    let web = uri("/work/deploy/web.yaml");
    client.open(&web, 1, WEB);
    assert!(
        !codes_of(&mut client, &web, 1).contains(&"init-container-probe".to_owned()),
        "the usable name still applies"
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// `configuration` names the configuration of every document (`--config`), in place of the
/// nearest one; relative to the first workspace folder.
#[test]
fn the_configuration_setting_replaces_the_nearest_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("ci")).unwrap();
    std::fs::write(
        root.join(".podcycle.yaml"),
        "ignore: [init-container-probe]\n",
    )
    .unwrap();
    std::fs::write(
        root.join("ci/strict.yaml"),
        "ignore: [prestop-exceeds-grace-period]\n",
    )
    .unwrap();
    let folder = uri(&root.display().to_string());
    #[allow(deprecated)] // root_uri: the simplest way to name the folder
    let mut client = Client::start_with(lsp_types::InitializeParams {
        capabilities: capabilities(true),
        root_uri: Some(folder),
        initialization_options: Some(serde_json::json!({"configuration": "ci/strict.yaml"})),
        ..lsp_types::InitializeParams::default()
    });
    let document = uri(&root.join("web.yaml").display().to_string());
    client.open(&document, 1, WEB);
    assert_eq!(
        codes_of(&mut client, &document, 1),
        [
            "init-container-never-exits",
            "init-container-probe",
            "container-restart-policy"
        ]
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// A client with rendering off that opened the test manifest as a Helm chart's template.
fn template_opened_without_rendering() -> (tempfile::TempDir, Client, lsp_types::Uri) {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    let template = chart.join("templates/web.yaml");
    std::fs::write(&template, WEB).unwrap();
    let client = Client::start_with(lsp_types::InitializeParams {
        capabilities: capabilities(true),
        initialization_options: Some(serde_json::json!({"render": false})),
        ..lsp_types::InitializeParams::default()
    });
    let document = uri(&template.display().to_string());
    client.open(&document, 1, WEB);
    (dir, client, document)
}

/// The answer to `podcycle/explain` at byte `at` of `text`.
fn explain_at(
    client: &mut Client,
    document: &lsp_types::Uri,
    text: &str,
    at: usize,
) -> podcycle::lsp::explain::ExplainResult {
    let params = podcycle::lsp::explain::ExplainParams {
        text_document: TextDocumentIdentifier::new(document.clone()),
        position: position(text, at),
    };
    let response = client.request_raw(
        podcycle::lsp::explain::METHOD,
        serde_json::to_value(params).unwrap(),
    );
    serde_json::from_value(response.response_result.expect("an answer")).unwrap()
}

/// With rendering off, a Helm template gets no findings, and the log says why.
#[test]
fn rendering_off_is_said_for_a_template() {
    let (_dir, mut client, document) = template_opened_without_rendering();
    let logged = client.notification("window/logMessage");
    let message = logged.params["message"].as_str().unwrap();
    assert!(message.contains("not rendered: --no-render"), "{message}");
    assert!(
        client
            .diagnostics(&document, Some(1))
            .diagnostics
            .is_empty()
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// `podcycle/explain` at a position gives what `podcycle explain --object` prints for the
/// object there, in text and Mermaid; elsewhere, why nothing is explained.
#[test]
fn explain_at_the_cursor_is_the_explain_command() {
    let dir = tempfile::tempdir().unwrap();
    let text = include_str!("../../testdata/explain/workloads.yaml");
    let path = dir.path().join("workloads.yaml");
    std::fs::write(&path, text).unwrap();
    let document = uri(&path.display().to_string());
    let mut client = Client::start(capabilities(true));
    client.open(&document, 1, text);
    let mut explain = |at: usize| explain_at(&mut client, &document, text, at);
    let command = |format: &str| {
        let output = crate::common::run(&[
            "explain",
            "--no-config",
            "--format",
            format,
            "--object",
            "StatefulSet/statefulset",
            path.to_str().unwrap(),
        ]);
        assert!(output.status.success(), "{output:?}");
        String::from_utf8(output.stdout).unwrap()
    };

    // The cursor on a container's image, inside the StatefulSet.
    let in_statefulset = text.find("kind: StatefulSet").unwrap();
    let at = in_statefulset + text[in_statefulset..].find("image:").unwrap();
    let result = explain(at);
    assert_eq!(result.pods, 1);
    assert_eq!(result.text, command("text"));
    assert_eq!(result.mermaid, command("mermaid"));
    assert!(
        result.text.contains("StatefulSet/statefulset"),
        "{}",
        result.text
    );
    assert_eq!(result.message, None);

    // On the document separator before it: the document there is the one that starts, or
    // ends; either way one pod, never the whole file.
    let separator = text[..in_statefulset].rfind("---").unwrap();
    assert_eq!(explain(separator + 1).pods, 1);
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// With no pod at the cursor, the answer says why, as the command does.
#[test]
fn explain_says_why_nothing_is_explained() {
    use podcycle::lsp::explain::METHOD;

    let text = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: app\nspec:\n  containers:\n    - name: app\n      image: app\n";
    let document = uri("/work/deploy/mixed.yaml");
    let mut client = Client::start(capabilities(true));
    client.open(&document, 1, text);
    let mut explain = |at: usize| explain_at(&mut client, &document, text, at);
    let service = explain(text.find("name: web").unwrap());
    assert_eq!(service.pods, 0);
    assert_eq!(
        service.message.as_deref(),
        Some("no workload object at line 4; put the cursor in one of `Pod/app`")
    );
    assert!(service.text.is_empty() && service.mermaid.is_empty());
    let pod = explain(text.find("image: app").unwrap());
    assert_eq!(pod.pods, 1);
    assert!(pod.text.contains("Pod/app"), "{}", pod.text);

    let closed = client.request_raw(
        METHOD,
        serde_json::json!({
            "textDocument": {"uri": "file:///work/deploy/closed.yaml"},
            "position": {"line": 0, "character": 0},
        }),
    );
    assert!(closed.response_result.is_err(), "{closed:?}");
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// A Helm template is explained through its rendered chart; where the chart is not rendered,
/// the answer says so, as `explain` does.
#[test]
fn explain_on_a_template_goes_through_the_chart() {
    let (_dir, mut client, document) = template_opened_without_rendering();
    let result = explain_at(
        &mut client,
        &document,
        WEB,
        WEB.find("image: nginx").unwrap(),
    );
    assert_eq!(result.pods, 0);
    let message = result.message.unwrap();
    assert!(
        message.contains("Helm chart") && message.contains("not rendered: --no-render"),
        "{message}"
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// Opening a chart's template made the server render it, so a hostile chart ran in a workspace
/// the user had not trusted. Started as `podcycle lsp --isolated`, the server renders nothing —
/// even when the workspace's settings and configuration ask it to, with a release that would be
/// a flag of Helm's — and says why.
#[test]
fn an_untrusted_workspace_renders_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("chart");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: web\nversion: 0.1.0\n",
    )
    .unwrap();
    let template = chart.join("templates/web.yaml");
    std::fs::write(&template, WEB).unwrap();
    let mut client = Client::start_trusting(
        lsp_types::InitializeParams {
            capabilities: capabilities(true),
            initialization_options: Some(serde_json::json!({"render": true})),
            ..lsp_types::InitializeParams::default()
        },
        podcycle::lsp::Trust::Untrusted,
    );
    let shown = client.notification("window/showMessage");
    let message = shown.params["message"].as_str().unwrap();
    assert!(
        message.contains("`podcycle.render`: not used in a workspace that is not trusted"),
        "{message}"
    );
    let document = uri(&template.display().to_string());
    client.open(&document, 1, WEB);
    let logged = client.notification("window/logMessage");
    let message = logged.params["message"].as_str().unwrap();
    assert!(
        message.contains("not rendered: the workspace is not trusted"),
        "{message}"
    );
    assert!(
        client
            .diagnostics(&document, Some(1))
            .diagnostics
            .is_empty()
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// `(file name, rule, line, column, severity)` of each finding, 1-based, sorted.
type Found = Vec<(String, String, u64, u64, String)>;

/// What `check --format json .` reports in `root`, by file name relative to it.
fn checked(root: &std::path::Path) -> Found {
    let output = crate::common::podcycle()
        .current_dir(root)
        .args(["check", "--no-render", "--format", "json", "."])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    let mut found: Found = json
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_owned(),
                d["rule"].as_str().unwrap().to_owned(),
                d["line"].as_u64().unwrap(),
                d["column"].as_u64().unwrap(),
                d["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    found
}

/// The published diagnostics of `name`, whose text is `text`, as [`checked`] lists findings.
fn found_in(name: &str, text: &str, diagnostics: &[lsp_types::Diagnostic]) -> Found {
    let mut found: Found = diagnostics
        .iter()
        .filter_map(|diagnostic| {
            let Some(NumberOrString::String(rule)) = &diagnostic.code else {
                return None;
            };
            let start = offset(text, diagnostic.range.start);
            let line_start = text[..start].rfind('\n').map_or(0, |at| at + 1);
            Some((
                name.to_owned(),
                rule.clone(),
                u64::from(diagnostic.range.start.line) + 1,
                text[line_start..start].chars().count() as u64 + 1,
                match diagnostic.severity {
                    Some(DiagnosticSeverity::ERROR) => "error",
                    Some(DiagnosticSeverity::WARNING) => "warning",
                    Some(DiagnosticSeverity::INFORMATION | DiagnosticSeverity::HINT) => "info",
                    _ => "other",
                }
                .to_owned(),
            ))
        })
        .collect();
    found.sort();
    found
}

#[test]
fn the_editor_reports_what_check_reports() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mut files: Vec<String> = Vec::new();
    // Every rule fixture, each alone in its directory.
    for rule in std::fs::read_dir("rules").unwrap() {
        let rule = rule.unwrap().path();
        for fixture in std::fs::read_dir(&rule).into_iter().flatten() {
            let fixture = fixture.unwrap().path();
            if fixture.extension().and_then(|e| e.to_str()) != Some("yaml") {
                continue;
            }
            let name = format!(
                "{}/{}/fixture.yaml",
                rule.file_name().unwrap().to_str().unwrap(),
                fixture.file_stem().unwrap().to_str().unwrap()
            );
            crate::common::write(&root, &name, &std::fs::read_to_string(&fixture).unwrap());
            files.push(name);
        }
    }
    // A workload, its budget and its autoscaler in three files of one directory, and a file
    // holding a Deployment and a bad budget.
    let multi = [
        (
            "multi/deploy.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n",
        ),
        (
            "multi/pdb.yaml",
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 100%\n  selector: {matchLabels: {app: web}}\n",
        ),
        (
            "multi/hpa.yaml",
            "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 6\n  maxReplicas: 4\n",
        ),
        (
            "both/web.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec: {containers: [{name: api, image: nginx}]}\n---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: api}\nspec:\n  maxUnavailable: 0\n  selector: {matchLabels: {app: api}}\n",
        ),
    ];
    for (name, text) in multi {
        crate::common::write(&root, name, text);
        files.push(name.to_owned());
    }
    let expected = checked(&root);
    for (file, rule) in [
        ("multi/pdb.yaml", "disruption-budget-blocks-eviction"),
        ("multi/hpa.yaml", "invalid-autoscaler"),
        ("both/web.yaml", "disruption-budget-blocks-eviction"),
    ] {
        assert!(
            expected.iter().any(|f| f.0 == file && f.1 == rule),
            "check reports {rule} in {file}: {expected:?}"
        );
    }

    let mut client = Client::start(capabilities(true));
    let mut published: Found = Vec::new();
    for name in &files {
        let path = root.join(name);
        let text = std::fs::read_to_string(&path).unwrap();
        let document = uri(path.to_str().unwrap());
        client.open(&document, 1, &text);
        let diagnostics = client.diagnostics(&document, Some(1)).diagnostics;
        published.extend(found_in(name, &text, &diagnostics));
        client.close(&document);
    }
    assert_eq!(client.shutdown(), Ending::Clean);
    published.sort();
    let missing: Vec<_> = expected.iter().filter(|f| !published.contains(f)).collect();
    let extra: Vec<_> = published.iter().filter(|f| !expected.contains(f)).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "check only: {missing:#?}\neditor only: {extra:#?}"
    );
}

#[test]
fn the_largest_counts_are_judged_in_the_editor() {
    // A wave per replica made the server allocate without bound on this file and die.
    let text = include_str!("../../testdata/scale/largest-counts.yaml");
    let mut client = Client::start(capabilities(false));
    let counts = uri("/work/deploy/counts.yaml");
    client.open(&counts, 1, text);
    let published = client.diagnostics(&counts, Some(1));
    assert!(
        published.diagnostics.iter().any(|d| d.code
            == Some(NumberOrString::String(
                "job-deadline-cuts-retries".to_owned()
            ))),
        "{:?}",
        published.diagnostics
    );
    assert_eq!(client.shutdown(), Ending::Clean);
}

const DEPLOY: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: web, image: nginx}]}\n";
const PDB: &str = "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: web}\nspec:\n  minAvailable: 100%\n  selector: {matchLabels: {app: web}}\n";
const HPA: &str = "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n  minReplicas: 6\n  maxReplicas: 4\n";

/// What `check` on `root` reports in `file`, named relative to `root`.
fn checked_in(root: &std::path::Path, file: &str) -> Found {
    checked(root).into_iter().filter(|f| f.0 == file).collect()
}

fn rules_of(found: &Found) -> Vec<&str> {
    found.iter().map(|f| f.1.as_str()).collect()
}

/// A client of a workspace at `root` that can watch files, or not.
fn workspace_client(root: &std::path::Path, watch: bool) -> Client {
    let mut capabilities = capabilities(true);
    if watch {
        capabilities.workspace = Some(lsp_types::WorkspaceClientCapabilities {
            did_change_watched_files: Some(lsp_types::DidChangeWatchedFilesClientCapabilities {
                dynamic_registration: Some(true),
                relative_pattern_support: None,
            }),
            ..lsp_types::WorkspaceClientCapabilities::default()
        });
    }
    Client::start_with(lsp_types::InitializeParams {
        capabilities,
        workspace_folders: Some(vec![lsp_types::WorkspaceFolder {
            uri: uri(root.to_str().unwrap()),
            name: "workspace".to_owned(),
        }]),
        ..lsp_types::InitializeParams::default()
    })
}

/// The budget, the autoscaler and the workload of one directory, in three files, judged in
/// the editor as `check` on the directory judges them: with the texts open in the editor in
/// place of the saved ones, and again when one of them changes — typed in another document or
/// changed on disk.
#[test]
fn the_editor_judges_a_directory_as_check_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::common::write(&root, "deploy.yaml", DEPLOY);
    crate::common::write(&root, "pdb.yaml", PDB);
    crate::common::write(&root, "hpa.yaml", HPA);
    let mut client = workspace_client(&root, true);
    let deploy = uri(root.join("deploy.yaml").to_str().unwrap());
    let pdb = uri(root.join("pdb.yaml").to_str().unwrap());
    let hpa_path = root.join("hpa.yaml");

    // deploy.yaml alone open: what check reports for it, from the autoscaler on disk.
    client.open(&deploy, 1, DEPLOY);
    let published = found_in(
        "deploy.yaml",
        DEPLOY,
        &client.diagnostics(&deploy, Some(1)).diagnostics,
    );
    let expected = checked_in(&root, "deploy.yaml");
    assert_eq!(rules_of(&expected), ["replicas-with-autoscaler"]);
    assert_eq!(published, expected);
    client.open(&pdb, 1, PDB);
    let published = found_in(
        "pdb.yaml",
        PDB,
        &client.diagnostics(&pdb, Some(1)).diagnostics,
    );
    let expected = checked_in(&root, "pdb.yaml");
    assert_eq!(rules_of(&expected), ["disruption-budget-blocks-eviction"]);
    assert_eq!(published, expected);

    // The budget edited, unsaved, so that it allows evictions: its finding goes.
    let fine = PDB.replace("minAvailable: 100%", "maxUnavailable: 1");
    client.change(&pdb, 2, &fine);
    assert_eq!(client.diagnostics(&pdb, Some(2)).diagnostics, []);
    client.change(&pdb, 3, PDB);
    let published = client.diagnostics(&pdb, Some(3)).diagnostics;
    assert_eq!(
        rules_of(&found_in("pdb.yaml", PDB, &published)),
        ["disruption-budget-blocks-eviction"]
    );

    // The workload's labels edited, unsaved, in the other document: the budget, unchanged, is
    // published again, judged with that text: it selects nothing now.
    let relabelled = DEPLOY.replace("app: web", "app: api");
    let rules_in_pdb = |rule: &'static str| {
        move |p: &lsp_types::PublishDiagnosticsParams| {
            rules_of(&found_in("pdb.yaml", PDB, &p.diagnostics)) == [rule]
        }
    };
    client.change(&deploy, 2, &relabelled);
    client.diagnostics_until(
        &pdb,
        Some(3),
        rules_in_pdb("disruption-budget-selects-nothing"),
    );
    client.diagnostics(&deploy, Some(2));
    client.change(&deploy, 3, DEPLOY);
    client.diagnostics_until(
        &pdb,
        Some(3),
        rules_in_pdb("disruption-budget-blocks-eviction"),
    );
    client.diagnostics(&deploy, Some(3));

    // The autoscaler changed on disk, and the editor told: both open documents are published
    // again, as check now reports them.
    std::fs::write(&hpa_path, HPA.replace("name: web}", "name: other}")).unwrap();
    client.notify::<lsp_types::notification::DidChangeWatchedFiles>(
        lsp_types::DidChangeWatchedFilesParams {
            changes: vec![lsp_types::FileEvent {
                uri: uri(hpa_path.to_str().unwrap()),
                typ: lsp_types::FileChangeType::CHANGED,
            }],
        },
    );
    let expected = checked_in(&root, "deploy.yaml");
    assert_eq!(expected, []);
    client.diagnostics_until(&deploy, Some(3), |p| {
        found_in("deploy.yaml", DEPLOY, &p.diagnostics) == expected
    });
    let expected = checked_in(&root, "pdb.yaml");
    assert_eq!(rules_of(&expected), ["disruption-budget-blocks-eviction"]);
    client.diagnostics_until(&pdb, Some(3), |p| {
        found_in("pdb.yaml", PDB, &p.diagnostics) == expected
    });

    // Closed with unsaved changes, the budget counts as saved again.
    client.change(&pdb, 4, &fine);
    assert_eq!(client.diagnostics(&pdb, Some(4)).diagnostics, []);
    client.close(&pdb);
    client.diagnostics(&pdb, None);
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// Without word of changed files, a directory's files are looked at again at each lint: a
/// file changed on disk counts from the next change of an open document.
#[test]
fn without_watched_files_the_directory_is_looked_at_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    crate::common::write(&root, "deploy.yaml", DEPLOY);
    crate::common::write(&root, "hpa.yaml", HPA);
    let mut client = workspace_client(&root, false);
    let deploy = uri(root.join("deploy.yaml").to_str().unwrap());
    client.open(&deploy, 1, DEPLOY);
    let published = found_in(
        "deploy.yaml",
        DEPLOY,
        &client.diagnostics(&deploy, Some(1)).diagnostics,
    );
    assert_eq!(rules_of(&published), ["replicas-with-autoscaler"]);
    std::fs::remove_file(root.join("hpa.yaml")).unwrap();
    client.change(&deploy, 2, DEPLOY);
    assert_eq!(client.diagnostics(&deploy, Some(2)).diagnostics, []);
    assert_eq!(checked_in(&root, "deploy.yaml"), []);
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// Two files of one directory that hold the same object are alternatives, each its own
/// scope, in the editor as in `check`.
#[test]
fn alternatives_are_judged_apart_as_check_judges_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let production = format!("{DEPLOY}---\n{}", PDB.replace("100%", "1"));
    let staging = DEPLOY.replace("replicas: 3", "replicas: 1");
    crate::common::write(&root, "production.yaml", &production);
    crate::common::write(&root, "staging.yaml", &staging);
    let mut client = workspace_client(&root, true);
    for (name, text) in [("production.yaml", &production), ("staging.yaml", &staging)] {
        let document = uri(root.join(name).to_str().unwrap());
        client.open(&document, 1, text);
        let published = found_in(
            name,
            text,
            &client.diagnostics(&document, Some(1)).diagnostics,
        );
        assert_eq!(published, checked_in(&root, name), "{name}");
    }
    // Judged together, the budget of production.yaml would select both Deployments.
    let together = format!(
        "{production}---\n{}",
        staging.replace("name: web}", "name: web-staging}")
    );
    crate::common::write(&root, "production.yaml", &together);
    let expected = checked_in(&root, "production.yaml");
    let document = uri(root.join("production.yaml").to_str().unwrap());
    client.change(&document, 2, &together);
    let published = found_in(
        "production.yaml",
        &together,
        &client.diagnostics(&document, Some(2)).diagnostics,
    );
    assert_eq!(published, expected);
    assert_eq!(client.shutdown(), Ending::Clean);
}

/// A manifest whose `kind:` is indented under `apiVersion:` does not parse, and kubectl refuses
/// it: `check` reports its `yaml-syntax` error, and so does the editor, at the same place.
#[test]
fn a_kind_indented_under_the_api_version_is_reported_as_check_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let text = "apiVersion: v1\n  kind: Pod\nmetadata:\n  name: web\n";
    crate::common::write(&root, "pod.yaml", text);
    let expected = checked_in(&root, "pod.yaml");
    assert_eq!(rules_of(&expected), ["yaml-syntax"]);
    let mut client = workspace_client(&root, false);
    let document = uri(root.join("pod.yaml").to_str().unwrap());
    client.open(&document, 1, text);
    let published = client.diagnostics(&document, Some(1)).diagnostics;
    assert_eq!(found_in("pod.yaml", text, &published), expected);
    assert_eq!(client.shutdown(), Ending::Clean);
}
