/**
 * `npm run docs` (TypeDoc over every package.json "exports" entry, warnings as errors) succeeds,
 * and the reference has a page for each public entry point. The output goes to a temporary
 * directory, not dist-docs/.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";

const root = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports: Record<string, unknown> };
let out: string | undefined;

afterAll(async () => {
  if (out) await rm(out, { recursive: true, force: true });
});

function run(cmd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (c: Buffer) => (output += c.toString()));
    child.stderr.on("data", (c: Buffer) => (output += c.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

it("npm run docs builds the API reference of every entry point with no warning", { timeout: 900_000 }, async () => {
  out = await mkdtemp(join(tmpdir(), "kubeloop-typedoc-"));
  const { code, output } = await run("npm", ["run", "docs", "--", "--out", out]);
  expect(output).not.toMatch(/\[(warning|error)\]/);
  expect(code, output).toBe(0);
  expect(existsSync(join(out, "index.html"))).toBe(true);
  // One module page per entry point: "." is `index`, "./controllers/job" is `controllers/job`.
  const modules = (await readdir(join(out, "modules"))).map((f) => f.replace(/\.html$/, ""));
  const expected = Object.entries(pkg.exports)
    .filter(([, v]) => typeof v === "object" && v !== null && "types" in v)
    .map(([k]) => (k === "." ? "index" : k.slice(2).replaceAll("/", "_")));
  expect(modules.sort()).toEqual(expect.arrayContaining(expected.sort()));
});
