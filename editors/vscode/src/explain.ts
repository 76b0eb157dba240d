// "podcycle: Explain this pod": asks the server for `podcycle explain` of the object under the
// cursor (the `podcycle/explain` request, computed by the same code as the command) and shows
// it in a panel beside the editor: the Mermaid Gantt charts drawn by Mermaid, which the
// extension bundles, and the text timeline with its notes and findings.

import * as crypto from "node:crypto";
import * as vscode from "vscode";
import { LanguageClient } from "vscode-languageclient/node";

/** The server's answer (src/lsp/explain.rs). */
export interface ExplainResult {
  pods: number;
  text: string;
  mermaid: string;
  message?: string | null;
}

export const EXPLAIN_REQUEST = "podcycle/explain";

let panel: vscode.WebviewPanel | undefined;

export async function explainAtCursor(
  client: LanguageClient | undefined,
  extensionUri: vscode.Uri,
): Promise<ExplainResult | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor === undefined) {
    void vscode.window.showInformationMessage("podcycle: open a manifest and put the cursor in a pod to explain it.");
    return undefined;
  }
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage("podcycle: the language server is not running; see the output channel.");
    return undefined;
  }
  const document = editor.document;
  const result = await client.sendRequest<ExplainResult>(EXPLAIN_REQUEST, {
    textDocument: client.code2ProtocolConverter.asTextDocumentIdentifier(document),
    position: client.code2ProtocolConverter.asPosition(editor.selection.active),
  });
  if (result.pods === 0) {
    void vscode.window.showInformationMessage(`podcycle: ${result.message ?? "no pod to explain here"}`);
    return result;
  }
  show(result, extensionUri, document);
  return result;
}

function show(result: ExplainResult, extensionUri: vscode.Uri, document: vscode.TextDocument): void {
  const title = `Explain ${firstObject(result.text) ?? vscode.workspace.asRelativePath(document.uri)}`;
  if (panel === undefined) {
    panel = vscode.window.createWebviewPanel(
      "podcycle.explain",
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(extensionUri, "dist")],
      },
    );
    panel.onDidDispose(() => {
      panel = undefined;
    });
  } else {
    panel.reveal(vscode.ViewColumn.Beside, true);
  }
  panel.title = title;
  panel.webview.html = html(panel.webview, extensionUri, result);
}

/** `Deployment/web` from the text timeline's first line (`Deployment/web (web.yaml:3) ...`). */
function firstObject(text: string): string | undefined {
  return /^(\S+\/\S+)/.exec(text)?.[1];
}

/** The Mermaid charts of `explain --format mermaid`. */
export function mermaidCharts(markdown: string): string[] {
  return [...markdown.matchAll(/```mermaid\r?\n([\s\S]*?)```/g)].map((match) => match[1]);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function html(webview: vscode.Webview, extensionUri: vscode.Uri, result: ExplainResult): string {
  const nonce = crypto.randomBytes(16).toString("base64");
  const script = (name: string) =>
    webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, "dist", name)).toString();
  const charts = mermaidCharts(result.mermaid)
    .map((chart) => `<pre class="mermaid">${escape(chart)}</pre>`)
    .join("\n");
  const message = result.message ? `<p class="message">${escape(result.message)}</p>` : "";
  // Mermaid draws SVG with inline styles; nothing else may load or run.
  const policy = [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${webview.cspSource} 'unsafe-inline'`,
    `img-src ${webview.cspSource} data:`,
    `font-src ${webview.cspSource}`,
  ].join("; ");
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 0 1em; }
  pre.timeline { font-family: var(--vscode-editor-font-family); font-size: var(--vscode-editor-font-size); white-space: pre; overflow-x: auto; }
  pre.mermaid { background: transparent; }
  .message { font-style: italic; }
  #diagram-error { color: var(--vscode-errorForeground); }
</style>
</head>
<body>
${message}
<section id="charts">${charts}</section>
<p id="diagram-error" hidden></p>
<h2>Timeline</h2>
<pre class="timeline" id="timeline">${escape(result.text)}</pre>
<script nonce="${nonce}" src="${script("mermaid.min.js")}"></script>
<script nonce="${nonce}" src="${script("explain-view.js")}"></script>
</body>
</html>`;
}
