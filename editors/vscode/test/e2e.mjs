// The extension in a real VS Code: code-server (VS Code in a browser) with the packaged .vsix
// installed, driven through Chromium by playwright-core as a person would use it. It opens a
// workspace with a bad manifest, a Helm chart and a Kustomize overlay, and checks: the
// findings in the Problems panel for all three, the status bar item, hover, a quick fix
// applied (the file on disk changes), "podcycle: Explain this pod" drawing its panel, and the
// workspace's index logged and a configuration written on disk applied through the watch the
// server registered.
// Then it kills code-server's whole process tree (extension hosts outlive the browser).
//
// Usage: node test/e2e.mjs --code-server BIN --vsix FILE --chromium BIN --repo DIR
//        [--screenshots DIR]
// Helm and Kustomize are taken from PATH; `podcycle` must not be on it, so that the test
// proves the bundled program runs. Prints one line per check, then `N passed, N failed`.

import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";

const { values: args } = parseArgs({
  options: {
    "code-server": { type: "string" },
    vsix: { type: "string" },
    chromium: { type: "string", default: "/usr/bin/chromium" },
    repo: { type: "string" },
    screenshots: { type: "string" },
  },
});
for (const required of ["code-server", "vsix", "repo"]) {
  if (!args[required]) {
    console.error(`e2e: --${required} is required`);
    process.exit(2);
  }
}

const STEP_TIMEOUT = 60_000;
const work = fs.mkdtempSync(path.join(os.tmpdir(), "podcycle-vscode-"));
const results = [];
let server;
let browser;

function log(message) {
  console.log(`vscode e2e: ${message}`);
}

/** Runs one check; a failure is recorded with a screenshot, and the run goes on. */
async function check(name, page, body) {
  const started = Date.now();
  try {
    await body();
    results.push({ name, ok: true });
    log(`ok   ${name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    results.push({ name, ok: false });
    log(`FAIL ${name}: ${error.stack ?? error}`);
    if (page) {
      const shot = path.join(work, `failed-${results.length}.png`);
      await page.screenshot({ path: shot }).catch(() => {});
      log(`     screenshot: ${shot}`);
    }
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}

/** The process ids below `root`, read from /proc. */
function descendants(root) {
  const children = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(entry));
    } catch {
      // The process ended meanwhile.
    }
  }
  const found = [];
  const pending = [root];
  while (pending.length > 0) {
    for (const child of children.get(pending.pop()) ?? []) {
      found.push(child);
      pending.push(child);
    }
  }
  return found;
}

/** Kills code-server, its process group and every process below it. */
function killTree(child) {
  if (!child || child.exitCode !== null) return;
  const tree = descendants(child.pid);
  for (const pid of [child.pid, ...tree]) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is gone.
  }
}

function copyTree(from, to) {
  fs.cpSync(from, to, { recursive: true });
}

/** The workspace: a bad manifest, a chart and an overlay, copied from the repository. */
function workspace() {
  const dir = path.join(work, "workspace");
  fs.mkdirSync(path.join(dir, "manifests"), { recursive: true });
  fs.copyFileSync(path.join(args.repo, "testdata/lsp/web.yaml"), path.join(dir, "manifests/web.yaml"));
  copyTree(path.join(args.repo, "testdata/render/web"), path.join(dir, "chart"));
  copyTree(path.join(args.repo, "editors/vscode/test/workspace/overlay"), path.join(dir, "overlay"));
  return dir;
}

async function startCodeServer(folder) {
  const userData = path.join(work, "user-data");
  const extensions = path.join(work, "extensions");
  const env = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(work, "config"),
    XDG_DATA_HOME: path.join(work, "data"),
    // The server would take the extension host's PATH from a login shell, whose profile
    // resets it and loses the renderers of the test's PATH; as when launched from VS Code's
    // own command line, it keeps this environment instead.
    VSCODE_CLI: "1",
  };
  const common = ["--user-data-dir", userData, "--extensions-dir", extensions];
  const install = spawnSync(args["code-server"], [...common, "--install-extension", args.vsix], {
    env,
    encoding: "utf8",
    timeout: 120_000,
  });
  if (install.status !== 0) {
    throw new Error(`code-server --install-extension failed:\n${install.stdout}\n${install.stderr}`);
  }
  log(`installed ${path.basename(args.vsix)}`);
  fs.mkdirSync(path.join(userData, "User"), { recursive: true });
  fs.writeFileSync(
    path.join(userData, "User/settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.enableExperiments": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "update.mode": "none",
        "files.autoSave": "off",
        "editor.hover.delay": 200,
        "window.commandCenter": false,
        "chat.disableAIFeatures": true,
        "workbench.colorTheme": "Default Light Modern",
        "workbench.secondarySideBar.defaultVisibility": "hidden",
      },
      null,
      2,
    ),
  );
  const port = await freePort();
  const child = spawn(
    args["code-server"],
    [
      ...common,
      "--auth",
      "none",
      "--bind-addr",
      `127.0.0.1:${port}`,
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--ignore-last-opened",
      folder,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const logFile = fs.createWriteStream(path.join(work, "code-server.log"));
  child.stdout.pipe(logFile);
  child.stderr.pipe(logFile);
  const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(folder)}`;
  const deadline = Date.now() + STEP_TIMEOUT;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`code-server exited with ${child.exitCode}; see ${path.join(work, "code-server.log")}`);
    }
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error("code-server did not listen within a minute");
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { child, url };
}

/** Opens a file of the workspace by its relative path, through Quick Open. */
async function openFile(page, relative) {
  await page.keyboard.press("Control+P");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await input.fill(relative);
  await page
    .locator(".quick-input-list .monaco-list-row", { hasText: path.basename(relative) })
    .first()
    .waitFor({ timeout: STEP_TIMEOUT });
  await page.keyboard.press("Enter");
  await page
    .locator(".tabs-container .tab.active", { hasText: path.basename(relative) })
    .waitFor({ timeout: STEP_TIMEOUT });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: STEP_TIMEOUT });
}

/** Runs a command from the Command Palette by its title. */
async function runCommand(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await input.fill(`>${title}`);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first().waitFor({ timeout: STEP_TIMEOUT });
  await page.keyboard.press("Enter");
}

/** Moves the cursor to a 1-based line and column. */
async function goTo(page, line, column) {
  await page.keyboard.press("Control+G");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ state: "visible", timeout: STEP_TIMEOUT });
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press("Enter");
}

/** The rows of the Problems panel, as text. */
async function problemRows(page) {
  return page.locator(".markers-panel .monaco-list-row").allInnerTexts();
}

/**
 * Waits for a problem containing `needle` under `file` in the Problems panel. The panel's list
 * only renders the rows in view, so its filter is set to the file's name first.
 */
async function waitForProblem(page, file, needle) {
  const filter = page.getByPlaceholder(/^Filter \(e\.g\. text/);
  await filter.fill(file);
  const deadline = Date.now() + STEP_TIMEOUT;
  let rows = [];
  while (Date.now() < deadline) {
    rows = await problemRows(page);
    const fileRow = rows.findIndex((row) => row.includes(file));
    if (fileRow >= 0 && rows.slice(fileRow).some((row) => row.includes(needle))) {
      // The Output view shares the filter.
      await filter.fill("");
      return rows;
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no problem with ${JSON.stringify(needle)} under ${file} in the Problems panel; rows: ${JSON.stringify(rows)}`);
}

async function main() {
  const folder = workspace();
  const manifest = path.join(folder, "manifests/web.yaml");
  const started = await startCodeServer(folder);
  server = started.child;
  log(`code-server on ${started.url}`);
  const context = await chromium.launchPersistentContext(path.join(work, "chromium"), {
    executablePath: args.chromium,
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  browser = context;
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(started.url);
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT });
  await page.locator(".explorer-folders-view, .explorer-viewlet").first().waitFor({ timeout: STEP_TIMEOUT });

  await openFile(page, "manifests/web.yaml");
  await page.keyboard.press("Control+Shift+M");

  await check("diagnostics of a manifest in the Problems panel", page, async () => {
    const rows = await waitForProblem(page, "web.yaml", "startupProbe is not allowed on init container");
    const wanted = ["init-container-probe", "prestop-exceeds-grace-period", "container-restart-policy", "podcycle"];
    for (const needle of wanted) {
      if (!rows.some((row) => row.includes(needle))) {
        throw new Error(`no ${needle} in ${JSON.stringify(rows)}`);
      }
    }
    if (args.screenshots) {
      await page.screenshot({ path: path.join(args.screenshots, "vscode-problems.png") });
    }
  });

  await check("the status bar shows the version and the problems", page, async () => {
    const item = page.locator(".statusbar-item", { hasText: "podcycle 0.1.0" });
    await item.waitFor({ timeout: STEP_TIMEOUT });
    const text = await item.innerText();
    if (!/\b2\b.*\b2\b/s.test(text)) {
      throw new Error(`expected 2 errors and 2 warnings in ${JSON.stringify(text)}`);
    }
  });

  await check("the output channel says which program runs", page, async () => {
    // The channel's text as VS Code writes it to disk: the Output view filters its lines with
    // the filter the Problems panel shares, and renders only those in view.
    await runCommand(page, "podcycle: Show logs");
    const used = logLines().filter((line) => line.includes("] Using "));
    if (used.length !== 1 || !used[0].includes("(bundled): podcycle 0.1.0")) {
      throw new Error(`the bundled program is not the one used: ${JSON.stringify(used)}`);
    }
    for (const tried of ["podcycle.path: not set", "bundled: "]) {
      if (!logLines().some((line) => line.includes(tried))) {
        throw new Error(`the log does not say ${JSON.stringify(tried)}`);
      }
    }
    await page.keyboard.press("Control+Shift+M");
  });

  await check("hover shows the rule's documentation", page, async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await goTo(page, 18, 12);
    await page.keyboard.press("Control+K");
    await page.keyboard.press("Control+I");
    // The server's hover (the rule's documentation) comes below the problem's own.
    const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "Rule documentation" });
    await hover.first().waitFor({ timeout: STEP_TIMEOUT });
    const text = await hover.first().innerText();
    if (!text.includes("init-container-probe") || !text.includes("correctness error")) {
      throw new Error(`the hover is not the rule's documentation: ${text}`);
    }
    if (args.screenshots) {
      await page.screenshot({ path: path.join(args.screenshots, "vscode-hover.png") });
    }
    await page.keyboard.press("Escape");
  });

  await check("a quick fix changes the file on disk", page, async () => {
    const before = fs.readFileSync(manifest, "utf8");
    await goTo(page, 18, 12);
    await page.keyboard.press("Control+.");
    const title = "Make `envoy` a native sidecar (`restartPolicy: Always`)";
    const action = page.locator(".action-widget .monaco-list-row", { hasText: title });
    await action.first().waitFor({ timeout: STEP_TIMEOUT });
    await action.first().click();
    await page.keyboard.press("Control+S");
    const deadline = Date.now() + STEP_TIMEOUT;
    let after = before;
    while (Date.now() < deadline && after === before) {
      await page.waitForTimeout(250);
      after = fs.readFileSync(manifest, "utf8");
    }
    if (!after.includes("restartPolicy: Always") || after === before) {
      throw new Error(`the file did not get the fix:\n${after}`);
    }
    // The fixed finding goes from the Problems panel.
    const gone = Date.now() + STEP_TIMEOUT;
    while ((await problemRows(page)).some((row) => row.includes("startupProbe is not allowed"))) {
      if (Date.now() > gone) throw new Error("the fixed finding stayed in the Problems panel");
      await page.waitForTimeout(250);
    }
  });

  await check("Explain this pod opens the timeline beside the editor", page, async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await goTo(page, 20, 9);
    await runCommand(page, "podcycle: Explain this pod");
    await page.locator(".tab", { hasText: "Explain Deployment/web" }).waitFor({ timeout: STEP_TIMEOUT });
    const frame = await explainFrame(page, "Deployment/web");
    const timeline = await frame.locator("#timeline").innerText();
    for (const needle of ["Deployment/web", "envoy"]) {
      if (!timeline.includes(needle)) throw new Error(`no ${needle} in the timeline:\n${timeline}`);
    }
    await frame.locator("body[data-charts=drawn]").waitFor({ timeout: STEP_TIMEOUT });
    const charts = await frame.locator("#charts svg").count();
    if (charts < 1) throw new Error("Mermaid drew no chart");
    if (args.screenshots) {
      await page.screenshot({ path: path.join(args.screenshots, "vscode-explain.png") });
    }
  });

  await check("diagnostics of a Helm template", page, async () => {
    await openFile(page, "chart/templates/deployment.yaml");
    await page.keyboard.press("Control+Shift+M");
    await waitForProblem(page, "deployment.yaml", "longer than `terminationGracePeriodSeconds` (20s)");
    if (args.screenshots) {
      await page.screenshot({ path: path.join(args.screenshots, "vscode-helm.png") });
    }
  });

  await check("Explain this pod on a Helm template explains the rendered chart", page, async () => {
    await page.locator(".monaco-editor .view-lines").first().click();
    await goTo(page, 16, 7);
    await runCommand(page, "podcycle: Explain this pod");
    const frame = await explainFrame(page, "templates/deployment.yaml");
    const timeline = await frame.locator("#timeline").innerText();
    if (!/Deployment\/\S+-web/.test(timeline)) {
      throw new Error(`the rendered Deployment is not in the timeline:\n${timeline}`);
    }
  });

  await check("diagnostics of a Kustomize patch", page, async () => {
    await openFile(page, "overlay/prod/drain-patch.yaml");
    await waitForProblem(page, "drain-patch.yaml", "longer than `terminationGracePeriodSeconds` (30s)");
  });

  await check("Restart server starts a new server, which lints again", page, async () => {
    await runCommand(page, "podcycle: Restart server");
    const deadline = Date.now() + STEP_TIMEOUT;
    while (starts() < 2) {
      if (Date.now() > deadline) throw new Error(`the log shows ${starts()} server starts`);
      await page.waitForTimeout(250);
    }
    await page.locator(".statusbar-item", { hasText: "podcycle 0.1.0" }).waitFor({ timeout: STEP_TIMEOUT });
    await waitForProblem(page, "drain-patch.yaml", "longer than `terminationGracePeriodSeconds` (30s)");
  });

  await check("the server indexes the workspace and watches its configuration", page, async () => {
    const indexed = () => logLines().some((line) => line.includes(`podcycle: indexed`) && line.includes(folder));
    const deadline = Date.now() + STEP_TIMEOUT;
    while (!indexed()) {
      if (Date.now() > deadline) throw new Error(`the log does not say the workspace was indexed`);
      await page.waitForTimeout(250);
    }
    // Written outside the editor: only the watch the server registered tells it.
    fs.writeFileSync(path.join(folder, ".podcycle.yaml"), "ignore: [prestop-exceeds-grace-period]\n");
    const filter = page.getByPlaceholder(/^Filter \(e\.g\. text/);
    await filter.fill("drain-patch.yaml");
    const gone = Date.now() + STEP_TIMEOUT;
    while ((await problemRows(page)).some((row) => row.includes("terminationGracePeriodSeconds` (30s)"))) {
      if (Date.now() > gone) throw new Error("the configuration changed on disk did not apply");
      await page.waitForTimeout(250);
    }
    await filter.fill("");
  });
}

/** The frame of the explain panel, once its timeline holds `needle`. */
async function explainFrame(page, needle) {
  const deadline = Date.now() + STEP_TIMEOUT;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      const timeline = frame.locator("#timeline");
      if ((await timeline.count().catch(() => 0)) > 0 && (await timeline.innerText().catch(() => "")).includes(needle)) {
        return frame;
      }
    }
    await page.waitForTimeout(250);
  }
  throw new Error(`no explain panel with ${JSON.stringify(needle)}`);
}

/** The lines of the extension's output channel, as VS Code writes them to disk. */
function logLines() {
  const logs = path.join(work, "user-data", "logs");
  const lines = [];
  for (const file of fs.readdirSync(logs, { recursive: true })) {
    if (String(file).endsWith(path.join("podcycle.podcycle", "podcycle.log"))) {
      lines.push(...fs.readFileSync(path.join(logs, String(file)), "utf8").split("\n"));
    }
  }
  return lines;
}

/** How many times the output channel says a server started. */
function starts() {
  return logLines().filter((line) => line.includes("] Using ")).length;
}

let exitCode = 0;
const guard = setTimeout(() => {
  log("FAIL the test did not finish within 10 minutes");
  killTree(server);
  process.exit(1);
}, 600_000);
try {
  await main();
} catch (error) {
  results.push({ name: "setup", ok: false });
  log(`FAIL setup: ${error.stack ?? error}`);
  const serverLog = path.join(work, "code-server.log");
  if (fs.existsSync(serverLog)) log(`code-server's log:\n${fs.readFileSync(serverLog, "utf8").slice(-4000)}`);
} finally {
  await browser?.close().catch(() => {});
  killTree(server);
  clearTimeout(guard);
}
const passed = results.filter((r) => r.ok).length;
const failed = results.length - passed;
if (failed > 0) {
  exitCode = 1;
  log(`kept ${work} for the failures' screenshots`);
} else {
  fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);
