// Which `podcycle` program runs the language server: the `podcycle.path` setting, else the
// program bundled in this extension for the platform, else `podcycle` on PATH. Each candidate
// must answer `--version`; the output channel says which one was taken and why the others
// were not.

import { execFile } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import which from "which";

export interface Binary {
  /** The program's path. */
  path: string;
  /** Where it comes from, for the output channel. */
  source: "podcycle.path" | "bundled" | "PATH";
  /** What `podcycle --version` printed: `podcycle 0.1.0`. */
  version: string;
}

export interface Candidate {
  source: Binary["source"];
  path: string | undefined;
  /** Why there is no path, when there is none. */
  missing?: string;
}

const VERSION_TIMEOUT_MS = 10_000;

/** The name of the program on this platform. */
export function executableName(): string {
  return process.platform === "win32" ? "podcycle.exe" : "podcycle";
}

/** The candidates in the order they are tried. */
export async function candidates(
  setting: string,
  extensionPath: string,
): Promise<Candidate[]> {
  const bundled = path.join(extensionPath, "bundled", executableName());
  const onPath = await which("podcycle", { nothrow: true });
  return [
    setting.trim() === ""
      ? { source: "podcycle.path", path: undefined, missing: "not set" }
      : { source: "podcycle.path", path: setting.trim() },
    fs.existsSync(bundled)
      ? { source: "bundled", path: bundled }
      : {
          source: "bundled",
          path: undefined,
          missing: "this package has no program for this platform",
        },
    onPath
      ? { source: "PATH", path: onPath }
      : { source: "PATH", path: undefined, missing: "no `podcycle` on PATH" },
  ];
}

/** `podcycle --version`, or why it did not answer. */
export function version(program: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      ["--version"],
      { timeout: VERSION_TIMEOUT_MS, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          const detail = stderr.trim() || error.message;
          reject(new Error(detail));
        } else if (!stdout.startsWith("podcycle ")) {
          reject(new Error(`\`--version\` printed ${JSON.stringify(stdout.trim())}, not podcycle's version`));
        } else {
          resolve(stdout.trim());
        }
      },
    );
  });
}

/**
 * The first candidate that answers `--version`, with a line for each candidate tried; or
 * `undefined` and those lines when none does.
 */
export async function resolveBinary(
  setting: string,
  extensionPath: string,
): Promise<{ binary: Binary | undefined; tried: string[] }> {
  const tried: string[] = [];
  for (const candidate of await candidates(setting, extensionPath)) {
    if (candidate.path === undefined) {
      tried.push(`${candidate.source}: ${candidate.missing ?? "none"}`);
      continue;
    }
    try {
      const answer = await version(candidate.path);
      tried.push(`${candidate.source}: ${candidate.path} (${answer})`);
      return {
        binary: { path: candidate.path, source: candidate.source, version: answer },
        tried,
      };
    } catch (error) {
      tried.push(`${candidate.source}: ${candidate.path} does not run: ${(error as Error).message}`);
    }
  }
  return { binary: undefined, tried };
}
