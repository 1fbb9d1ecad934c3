#!/usr/bin/env node
// @ts-check
/**
 * The API generator: reads the Kubernetes 1.36 API definitions into one model
 * (scripts/apigen/model.mjs) and writes every artifact derived from them.
 *
 * Usage:
 *   node scripts/apigen/generate.mjs [--check] [--only NAME[,NAME...]] [--k8s-api DIR]
 *
 *   --check    writes nothing; exits 1 listing every committed artifact that differs from what
 *              would be generated (CI runs this through test/apigen/generate.test.ts).
 *   --only     limits the run to some artifacts (names below).
 *   --k8s-api  the k8s-api-1.36 folder (default: $K8S_API_DIR, else ../shared/k8s-api-1.36 or
 *              ../../shared/k8s-api-1.36 from the repository root, else /work/shared/k8s-api-1.36).
 *
 * Artifacts:
 *   types     src/apimachinery/api/<group>/<version>.ts ...   TypeScript wire types
 *   catalog   src/apimachinery/api/catalog.ts                  resources of every group version
 *   schema    src/apiserver/generated/schema.json              decoding schema table
 *   openapi   src/apiserver/openapi/definitions.json           OpenAPI v2 definitions
 *   patchmeta src/apimachinery/patch/builtinpatchtable.json    strategic merge patch metadata
 *   ssa       src/apiserver/ssa/builtinschema.json             structured-merge-diff schema
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Model } from "./model.mjs";
import { ARTIFACTS } from "./artifacts.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..", "..");

/** @param {string[]} argv */
function parseArgs(argv) {
  const opts = { check: false, only: /** @type {string[] | undefined} */ (undefined), k8sApi: /** @type {string | undefined} */ (undefined) };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--check") opts.check = true;
    else if (a === "--only") opts.only = (argv[++i] ?? "").split(",").filter(Boolean);
    else if (a === "--k8s-api") opts.k8sApi = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return opts;
}

/** The k8s-api-1.36 input folder. */
export function findK8sApiDir(explicit) {
  const candidates = [explicit, process.env.K8S_API_DIR, join(root, "..", "shared", "k8s-api-1.36"), join(root, "..", "..", "shared", "k8s-api-1.36"), "/work/shared/k8s-api-1.36"];
  for (const c of candidates) if (c && existsSync(join(c, "api", "core", "v1", "types.go"))) return c;
  return undefined;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const k8sApiDir = findK8sApiDir(opts.k8sApi);
  if (!k8sApiDir) {
    console.error("apigen: the Kubernetes API definitions (k8s-api-1.36) were not found; pass --k8s-api DIR or set K8S_API_DIR");
    process.exit(2);
  }
  const t0 = process.hrtime.bigint();
  const model = new Model({ k8sApiDir, inputDir: join(here, "input") });
  const t1 = process.hrtime.bigint();
  const selected = ARTIFACTS.filter((a) => !opts.only || opts.only.includes(a.name));
  if (opts.only) for (const n of opts.only) if (!ARTIFACTS.some((a) => a.name === n)) throw new Error(`unknown artifact ${n}`);
  /** @type {string[]} */
  const stale = [];
  let bytes = 0;
  let files = 0;
  for (const artifact of selected) {
    /** @type {Map<string, string>} */
    const outputs = artifact.generate(model, { root, k8sApiDir });
    // Files the artifact owns that it no longer generates are stale too (removed types).
    const owned = artifact.owns ? artifact.owns(root) : [];
    for (const rel of owned) {
      if (!outputs.has(rel)) {
        if (opts.check) stale.push(`${rel} (should not exist)`);
        else rmSync(join(root, rel));
      }
    }
    for (const [rel, text] of outputs) {
      files++;
      bytes += Buffer.byteLength(text);
      const abs = join(root, rel);
      const current = existsSync(abs) ? readFileSync(abs, "utf8") : undefined;
      if (current === text) continue;
      if (opts.check) stale.push(rel);
      else {
        mkdirSync(dirname(abs), { recursive: true });
        writeFileSync(abs, text);
      }
    }
  }
  const t2 = process.hrtime.bigint();
  const ms = (a, b) => Number((b - a) / 1000000n);
  const summary = `${selected.map((a) => a.name).join(", ")}: ${files} files, ${bytes} bytes; model ${ms(t0, t1)} ms, emit ${ms(t1, t2)} ms`;
  if (opts.check) {
    if (stale.length > 0) {
      console.error(`apigen: ${stale.length} generated file(s) are out of date; run node scripts/apigen/generate.mjs\n  ${stale.join("\n  ")}`);
      process.exit(1);
    }
    console.log(`apigen: up to date (${summary})`);
  } else {
    console.log(`apigen: wrote ${summary}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
