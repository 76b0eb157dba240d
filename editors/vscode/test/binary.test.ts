// Which program the extension runs (src/binary.ts), with real programs in a temporary
// directory: the setting first, then the bundled program, then PATH; one that does not answer
// `--version` as podcycle is passed over, and said.

import { strict as assert } from "node:assert";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { afterEach, beforeEach, test } from "node:test";
import { resolveBinary } from "../src/binary";

let dir: string;
let savedPath: string | undefined;

/** A program that prints `output` and exits with `code`. */
function program(file: string, output: string, code = 0): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\necho '${output}'\nexit ${code}\n`, { mode: 0o755 });
  return file;
}

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "podcycle-binary-"));
  savedPath = process.env.PATH;
  process.env.PATH = path.join(dir, "path");
});

afterEach(() => {
  process.env.PATH = savedPath;
  fs.rmSync(dir, { recursive: true, force: true });
});

void test("the setting comes first", async () => {
  const set = program(path.join(dir, "set/podcycle"), "podcycle 9.9.9");
  program(path.join(dir, "extension/bundled/podcycle"), "podcycle 1.0.0");
  const { binary, tried } = await resolveBinary(set, path.join(dir, "extension"));
  assert.deepEqual(binary, { path: set, source: "podcycle.path", version: "podcycle 9.9.9" });
  assert.equal(tried.length, 1);
});

void test("then the bundled program, then PATH", async () => {
  const bundled = program(path.join(dir, "extension/bundled/podcycle"), "podcycle 1.0.0");
  const onPath = program(path.join(dir, "path/podcycle"), "podcycle 2.0.0");
  assert.equal((await resolveBinary("", path.join(dir, "extension"))).binary?.path, bundled);
  const { binary, tried } = await resolveBinary("", path.join(dir, "elsewhere"));
  assert.deepEqual(binary, { path: onPath, source: "PATH", version: "podcycle 2.0.0" });
  assert.deepEqual(tried.slice(0, 2), [
    "podcycle.path: not set",
    "bundled: this package has no program for this platform",
  ]);
});

void test("a program that does not run is passed over, and said", async () => {
  const broken = program(path.join(dir, "set/podcycle"), "oops", 3);
  const other = program(path.join(dir, "other/podcycle"), "other 1.0");
  const onPath = program(path.join(dir, "path/podcycle"), "podcycle 2.0.0");
  const { binary, tried } = await resolveBinary(broken, path.join(dir, "extension"));
  assert.equal(binary?.path, onPath);
  assert.match(tried[0], /^podcycle\.path: .* does not run: /);
  const fromOther = await resolveBinary(other, path.join(dir, "extension"));
  assert.match(fromOther.tried[0], /printed "other 1\.0", not podcycle's version/);
});

void test("none: no program, and a line for each place looked", async () => {
  const { binary, tried } = await resolveBinary(path.join(dir, "missing"), path.join(dir, "extension"));
  assert.equal(binary, undefined);
  assert.equal(tried.length, 3);
  assert.match(tried[0], /^podcycle\.path: .*missing does not run: /);
  assert.equal(tried[2], "PATH: no `podcycle` on PATH");
});
