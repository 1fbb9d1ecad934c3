/**
 * The npm package as a user gets it: `npm pack` on a clean checkout (the tracked files only, no
 * dist/), installed from the tarball into a scratch project (dependencies from the npm cache or
 * registry), every `exports` entry imported as ESM and type-checked with moduleResolution
 * nodenext, and the `kubeloop` bin run — `--version`, then `up` until its demo converges.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { npm, packKubeloop, type PackResult } from "./pack.js";
import { root } from "./pod.js";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { name: string; version: string; exports: Record<string, unknown> };
const entries = Object.keys(pkg.exports).filter((e) => e !== "./package.json");
const specifier = (e: string) => (e === "." ? pkg.name : `${pkg.name}/${e.slice(2)}`);
const work = mkdtempSync(join(tmpdir(), "kubeloop-pack-"));
const scratch = join(work, "scratch");
let pack: PackResult;

beforeAll(() => {
  const packed = packKubeloop(work);
  pack = packed;
  mkdirSync(scratch);
  writeFileSync(join(scratch, "package.json"), JSON.stringify({ name: "scratch", version: "1.0.0", private: true, type: "module" }));
  npm(["install", "--no-audit", "--no-fund", "--prefer-offline", "--omit=dev", packed.tarball], scratch);
}, 300_000);

describe("the npm package", () => {
  it("is built on pack: it ships dist/ for every exports entry and the bin", () => {
    const paths = new Set(pack.files.map((f) => f.path));
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (entry === "./package.json") continue;
      const t = target as { types: string; default: string };
      expect(paths.has(t.default.slice(2)), `${entry} → ${t.default}`).toBe(true);
      expect(paths.has(t.types.slice(2)), `${entry} → ${t.types}`).toBe(true);
    }
    expect(paths.has("dist/cli/main.js")).toBe(true);
    expect(paths.has("deploy/crds/applications.kubeloop.dev.yaml")).toBe(true);
    expect(paths.has("examples/application.yaml")).toBe(true);
  });

  it("ships no source maps and no test code", () => {
    const offenders = pack.files.map((f) => f.path).filter((p) => p.endsWith(".map") || /\.test\.|crashchild|deployment\/fixture|\.stamp$|tsbuildinfo/.test(p));
    expect(offenders).toEqual([]);
  });

  it("ships no JavaScript that nothing imports (everything in dist/ is reachable from an entry or the bin, or is a type-only module or a barrel)", () => {
    const dist = join(scratch, "node_modules", pkg.name);
    const js = pack.files.map((f) => f.path).filter((p) => p.startsWith("dist/") && p.endsWith(".js"));
    const seen = new Set<string>();
    const queue = [...entries.map((e) => ((pkg.exports[e] as { default: string }).default.slice(2))), "dist/cli/main.js"];
    while (queue.length > 0) {
      const f = queue.pop()!;
      if (seen.has(f)) continue;
      seen.add(f);
      const text = readFileSync(join(dist, f), "utf8");
      for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.{1,2}\/[^"']+)["']/g)) {
        queue.push(join(dirname(f), m[1]));
      }
    }
    const typeOnly = (f: string) => readFileSync(join(dist, f), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "").trim() === "export {};";
    expect(js.filter((f) => !seen.has(f) && !typeOnly(f) && !f.endsWith("/index.js"))).toEqual([]);
  });

  it("imports every exports entry as ESM", () => {
    for (const e of entries) {
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", `const m = await import(${JSON.stringify(specifier(e))}); if (Object.keys(m).length === 0) throw new Error("no exports");`], {
        cwd: scratch,
        encoding: "utf8",
      });
      expect(r.stderr, specifier(e)).toBe("");
      expect(r.status, specifier(e)).toBe(0);
    }
  });

  it("type-checks every exports entry with moduleResolution nodenext", () => {
    const lines = entries.map((e, i) => `import * as m${i} from ${JSON.stringify(specifier(e))};\nexport const n${i}: number = Object.keys(m${i}).length;`);
    lines.push(`import { KubeClient, type GetConfigOptions } from "kubeloop";\nexport const opts: GetConfigOptions = { kubeconfig: "x" };\nexport const make = () => KubeClient.fromConfig(opts);`);
    writeFileSync(join(scratch, "check.ts"), `${lines.join("\n")}\n`);
    writeFileSync(
      join(scratch, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", target: "es2022", strict: true, noEmit: true, skipLibCheck: false, types: ["node"], typeRoots: [join(root, "node_modules/@types")] },
        files: ["check.ts"],
      }),
    );
    const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", join(scratch, "tsconfig.json")], { cwd: scratch, encoding: "utf8" });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  }, 120_000);

  it("runs the bin: --version, and `kubeloop up` converges its demo", async () => {
    const bin = join(scratch, "node_modules", ".bin", "kubeloop");
    expect(execFileSync(bin, ["--version"], { cwd: scratch, encoding: "utf8" }).trim()).toBe(pkg.version);
    const child = spawn(bin, ["up", "--port", "0", "--heartbeat-interval", "0", "--kubeconfig-update-default=false"], { cwd: scratch, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
    try {
      const deadline = Date.now() + 60_000;
      while (!out.includes("The demo converged.") && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain("The demo converged.");
    } finally {
      child.kill("SIGINT");
    }
    expect(await exited, out).toBe(0);
  }, 90_000);
});
