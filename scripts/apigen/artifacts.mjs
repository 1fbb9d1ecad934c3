// @ts-check
/**
 * The artifacts the API generator writes. Each entry generates a map of repository-relative
 * path → file content from the model; `owns` lists the files of a generated folder so files
 * for types that disappeared upstream are removed (and reported stale by --check).
 *
 * @typedef {{ root: string, k8sApiDir: string }} Context
 * @typedef {{ name: string, generate: (model: import("./model.mjs").Model, ctx: Context) => Map<string, string>, owns?: (root: string) => string[] }} Artifact
 */
import { existsSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";

/** Files under `dir` (absolute) matching `pred`, relative to `root`. */
export function listFiles(root, dir, pred) {
  if (!existsSync(dir)) return [];
  /** @type {string[]} */
  const out = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (pred(p)) out.push(relative(root, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** @type {Artifact[]} */
export const ARTIFACTS = [];
