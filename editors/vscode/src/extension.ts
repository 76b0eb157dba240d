// podcycle for VS Code: runs `podcycle lsp` for YAML, JSON and Helm template documents and shows
// its findings, quick fixes and rule documentation; "podcycle: Explain this pod" shows the
// pod's lifecycle timeline beside the editor. Everything is computed by the server; this
// extension only finds the program, passes the settings and shows what it answers.

import * as vscode from "vscode";
import {
  DocumentSelector,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  State,
} from "vscode-languageclient/node";
import { Binary, resolveBinary } from "./binary";
import { explainAtCursor } from "./explain";
import { programSetting, SECTION, serverSettings } from "./settings";
import { Status } from "./status";

/** The languages podcycle serves; files under a chart's `templates/` are served whatever theirs. */
export const LANGUAGES = ["yaml", "json", "helm"];

const DOCUMENT_SELECTOR: DocumentSelector = [
  ...LANGUAGES.flatMap((language) => [
    { scheme: "file", language },
    { scheme: "untitled", language },
  ]),
  { scheme: "file", pattern: "**/templates/**" },
];

const INSTALL_HELP =
  "Set `podcycle.path`, install the package of this extension built for your platform (it bundles podcycle), " +
  "or put `podcycle` on PATH (`pipx install podcycle`, `cargo install podcycle`).";

let client: LanguageClient | undefined;
let status: Status | undefined;
let output: vscode.LogOutputChannel;
let starting: Promise<void> = Promise.resolve();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("podcycle", { log: true });
  status = new Status("podcycle.showLogs");
  context.subscriptions.push(output, status);
  void vscode.commands.executeCommand("setContext", "podcycle.languages", LANGUAGES);

  context.subscriptions.push(
    vscode.commands.registerCommand("podcycle.showLogs", () => output.show(true)),
    vscode.commands.registerCommand("podcycle.restart", () => restart(context)),
    vscode.commands.registerCommand("podcycle.explain", async () => {
      await starting;
      try {
        return await explainAtCursor(client, context.extensionUri);
      } catch (error) {
        output.error(`explain: ${(error as Error).message}`);
        void vscode.window.showErrorMessage(`podcycle: explain failed: ${(error as Error).message}`);
        return undefined;
      }
    }),
    // Trust granted: start again without `--isolated`, so that charts and overlays render.
    vscode.workspace.onDidGrantWorkspaceTrust(async () => {
      output.info("The workspace is trusted now: restarting the server to render charts and overlays");
      await restart(context);
    }),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) {
        return;
      }
      if (event.affectsConfiguration(`${SECTION}.path`)) {
        output.info("podcycle.path changed: restarting the server");
        await restart(context);
      } else if (client?.isRunning()) {
        await client.sendNotification("workspace/didChangeConfiguration", {
          settings: { [SECTION]: serverSettings() },
        });
      }
    }),
  );
  starting = start(context);
  await starting;
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function restart(context: vscode.ExtensionContext): Promise<void> {
  await starting;
  await stop();
  starting = start(context);
  await starting;
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running !== undefined) {
    try {
      await running.stop();
    } catch (error) {
      output.warn(`stopping the server: ${(error as Error).message}`);
    }
    await running.dispose();
  }
  status?.set({ kind: "stopped" });
}

async function start(context: vscode.ExtensionContext): Promise<void> {
  status?.set({ kind: "starting" });
  const setting = programSetting();
  const { binary, tried } = await resolveBinary(setting, context.extensionPath);
  output.info("Looking for podcycle: the podcycle.path setting, the bundled program, then PATH");
  for (const line of tried) {
    output.info(`  ${line}`);
  }
  if (binary === undefined) {
    const reason = "no podcycle program that runs";
    output.error(`${reason}. ${INSTALL_HELP}`);
    status?.set({ kind: "failed", reason });
    void vscode.window
      .showErrorMessage(`podcycle: ${reason}. ${INSTALL_HELP}`, "Show logs", "Open settings")
      .then((choice) => {
        if (choice === "Show logs") {
          output.show(true);
        } else if (choice === "Open settings") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "podcycle.path");
        }
      });
    return;
  }
  if (setting.trim() !== "" && binary.source !== "podcycle.path") {
    void vscode.window.showWarningMessage(
      `podcycle: podcycle.path (${setting}) does not run; using ${binary.path} (${binary.source}) instead. See the logs.`,
    );
  }
  output.info(`Using ${binary.path} (${binary.source}): ${binary.version}`);
  await launch(binary);
}

/**
 * The server's arguments. In a workspace the user has not trusted the server renders nothing
 * (a Helm chart is a program) and takes no setting that changes what runs: `lsp --isolated`.
 */
export function serverArguments(trusted: boolean): string[] {
  return trusted ? ["lsp"] : ["lsp", "--isolated"];
}

async function launch(binary: Binary): Promise<void> {
  const trusted = vscode.workspace.isTrusted;
  if (!trusted) {
    output.info("The workspace is not trusted: charts and overlays are not rendered (podcycle lsp --isolated)");
  }
  // No `transport`: with one, the client would add `--stdio` to the arguments.
  const serverOptions: ServerOptions = { command: binary.path, args: serverArguments(trusted) };
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: serverSettings(),
  };
  const started = new LanguageClient("podcycle", "podcycle", serverOptions, clientOptions);
  started.onDidChangeState((change) => {
    if (change.newState === State.Running) {
      const version = started.initializeResult?.serverInfo?.version ?? binary.version;
      status?.set({ kind: "running", version });
    } else if (change.newState === State.Stopped && client === started) {
      status?.set({ kind: "failed", reason: "the language server stopped; see the logs" });
    }
  });
  client = started;
  try {
    await started.start();
  } catch (error) {
    const reason = `${binary.path} lsp did not start: ${(error as Error).message}`;
    output.error(reason);
    status?.set({ kind: "failed", reason });
    void vscode.window.showErrorMessage(`podcycle: ${reason}`);
  }
}
