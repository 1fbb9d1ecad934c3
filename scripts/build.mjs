#!/usr/bin/env node
/**
 * Builds dist/ (tsc -p tsconfig.build.json, incremental) unless it is already up to date, and
 * says which: `npm start` and the end-to-end tests of the built CLI call it, so an unchanged tree
 * costs a file-time check, not a compile. "Up to date" means dist/.stamp is newer than every file
 * under src/ and the tsconfig files; the stamp is written after a successful build.
 *
 * `--force` (npm run build, prepack) builds from scratch: dist/ and the incremental state are
 * removed first, so nothing of a deleted source file survives into the package.
 *
 * Usage: node scripts/build.mjs [--force]
 *        import { ensureBuilt } from "./scripts/build.mjs"
 */
import { spawnSync } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const stamp = join(root, "dist", ".stamp");

function newestMtime(dir) {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestMtime(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/** Whether dist/ is older than the sources. */
export function isStale() {
  if (!existsSync(stamp)) return true;
  const inputs = Math.max(newestMtime(join(root, "src")), ...["tsconfig.json", "tsconfig.build.json", "package.json"].map((f) => statSync(join(root, f)).mtimeMs));
  return inputs > statSync(stamp).mtimeMs;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Builds when stale (or forced); one build at a time across processes (a lock file). Returns whether it built. */
export function ensureBuilt({ force = false, log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  mkdirSync(join(root, ".cache"), { recursive: true });
  const lock = join(root, ".cache", "build.lock");
  let fd;
  for (let i = 0; ; i++) {
    try {
      fd = openSync(lock, "wx");
      break;
    } catch (err) {
      if (err.code !== "EEXIST") throw err;
      // A lock older than 10 minutes was left by a killed build.
      if (Date.now() - statSync(lock).mtimeMs > 600_000) unlinkSync(lock);
      else sleep(200);
    }
  }
  try {
    if (!force && !isStale()) {
      log("dist/ is up to date");
      return false;
    }
    if (force) {
      rmSync(join(root, "dist"), { recursive: true, force: true });
      rmSync(join(root, ".cache", "tsbuildinfo"), { recursive: true, force: true });
    }
    log("building dist/ (tsc -p tsconfig.build.json) …");
    const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json")], { stdio: "inherit", cwd: root });
    if (r.status !== 0) throw new Error(`tsc failed with exit code ${r.status}`);
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
    return true;
  } finally {
    closeSync(fd);
    unlinkSync(lock);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureBuilt({ force: process.argv.includes("--force") });
  } catch (err) {
    process.stderr.write(`${err.message}\n`);
    process.exit(1);
  }
}
