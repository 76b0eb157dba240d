// The extension's settings, and what the language server is told of them. The server reads
// them as the command line's options for `podcycle check` (src/lsp/editor_settings.rs):
// `configuration` as `--config`, `kubeVersion` as `--kube-version`, `select` and `ignore` as
// `--select` and `--ignore`, `render: false` as `--no-render`, `platforms` as `--platform`.

import * as path from "node:path";
import * as vscode from "vscode";

export const SECTION = "podcycle";

/** What the server takes, in `initializationOptions` and `workspace/didChangeConfiguration`. */
export interface ServerSettings {
  configuration: string;
  kubeVersion: string;
  select: string[];
  ignore: string[];
  render: boolean;
  platforms: string[];
}

/** The `podcycle.path` setting. */
export function programSetting(): string {
  return vscode.workspace.getConfiguration(SECTION).get<string>("path", "");
}

export function serverSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return {
    configuration: absolute(config.get<string>("configuration", "")),
    kubeVersion: config.get<string>("kubeVersion", ""),
    select: config.get<string[]>("select", []),
    ignore: config.get<string[]>("ignore", []),
    render: config.get<boolean>("render", true),
    platforms: config.get<string[]>("platforms", []),
  };
}

/**
 * A configuration path as written in the settings, made absolute: `~` is the home directory,
 * `${workspaceFolder}` and relative paths are the first workspace folder's.
 */
function absolute(written: string): string {
  const trimmed = written.trim();
  if (trimmed === "") {
    return "";
  }
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  let expanded = trimmed.replace(/^~(?=$|[\\/])/, process.env.HOME ?? process.env.USERPROFILE ?? "~");
  if (folder !== undefined) {
    expanded = expanded.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (path.isAbsolute(expanded) || folder === undefined) {
    return expanded;
  }
  return path.join(folder, expanded);
}
