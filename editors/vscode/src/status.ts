// The status bar item: the server's version and the number of problems podcycle reports in the
// open documents; a click shows the output channel.

import * as vscode from "vscode";

export type ServerState =
  | { kind: "starting" }
  | { kind: "running"; version: string }
  | { kind: "failed"; reason: string }
  | { kind: "stopped" };

export class Status implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly listener: vscode.Disposable;
  private state: ServerState = { kind: "starting" };

  constructor(showLogsCommand: string) {
    this.item = vscode.window.createStatusBarItem("podcycle.status", vscode.StatusBarAlignment.Right, 100);
    this.item.name = "podcycle";
    this.item.command = showLogsCommand;
    this.listener = vscode.languages.onDidChangeDiagnostics(() => this.render());
    this.render();
    this.item.show();
  }

  set(state: ServerState): void {
    this.state = state;
    this.render();
  }

  /** The problems podcycle reports, over every document that has some. */
  static problems(): { errors: number; warnings: number; others: number } {
    const counts = { errors: 0, warnings: 0, others: 0 };
    for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
      for (const diagnostic of diagnostics) {
        if (diagnostic.source !== "podcycle") {
          continue;
        }
        if (diagnostic.severity === vscode.DiagnosticSeverity.Error) {
          counts.errors += 1;
        } else if (diagnostic.severity === vscode.DiagnosticSeverity.Warning) {
          counts.warnings += 1;
        } else {
          counts.others += 1;
        }
      }
    }
    return counts;
  }

  private render(): void {
    const item = this.item;
    item.backgroundColor = undefined;
    switch (this.state.kind) {
      case "starting":
        item.text = "$(sync~spin) podcycle";
        item.tooltip = "podcycle: starting the language server";
        return;
      case "stopped":
        item.text = "$(circle-slash) podcycle";
        item.tooltip = "podcycle: the language server is stopped";
        return;
      case "failed":
        item.text = "$(error) podcycle";
        item.tooltip = `podcycle: ${this.state.reason}\nClick to show the logs.`;
        item.backgroundColor = new vscode.ThemeColor("statusBarItem.errorBackground");
        return;
      case "running": {
        const { errors, warnings, others } = Status.problems();
        const total = errors + warnings + others;
        item.text =
          total === 0
            ? `$(check) podcycle ${this.state.version}`
            : `$(error) ${errors} $(warning) ${warnings + others} podcycle ${this.state.version}`;
        item.tooltip =
          `podcycle ${this.state.version}: ` +
          (total === 0
            ? "no problems in the open documents"
            : `${plural(errors, "error")} and ${plural(warnings + others, "warning")} in the open documents`) +
          "\nClick to show the logs.";
        return;
      }
    }
  }

  dispose(): void {
    this.listener.dispose();
    this.item.dispose();
  }
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
