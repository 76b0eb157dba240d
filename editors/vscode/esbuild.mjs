// Bundles the extension into dist/extension.js (with vscode-languageclient, so the package
// carries no node_modules), and puts beside it what the explain panel loads: Mermaid's browser
// build and media/explain-view.js. `--production` minifies. `--tests` bundles the unit tests
// (test/*.test.ts, which need no VS Code) into out/ for `node --test`.
import * as esbuild from "esbuild";
import * as fs from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const production = process.argv.includes("--production");

if (process.argv.includes("--tests")) {
  const tests = fs.readdirSync("test").filter((name) => name.endsWith(".test.ts"));
  await esbuild.build({
    entryPoints: tests.map((name) => `test/${name}`),
    bundle: true,
    outdir: "out",
    format: "cjs",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  process.exit(0);
}

fs.mkdirSync("dist", { recursive: true });
await esbuild.build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  external: ["vscode"],
  format: "cjs",
  platform: "node",
  target: "node20",
  minify: production,
  sourcemap: !production,
  logLevel: "warning",
});
fs.copyFileSync(require.resolve("mermaid/dist/mermaid.min.js"), "dist/mermaid.min.js");
fs.copyFileSync("media/explain-view.js", "dist/explain-view.js");
