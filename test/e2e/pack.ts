/**
 * The npm package as a user gets it, for the tests that install it: `npm pack` on a clean checkout
 * (the files git tracks, nothing built — prepack builds dist/ — with node_modules linked, as
 * `npm ci` would make it), the tarball written into `work`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { root } from "./pod.js";

export interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: Array<{ path: string; size: number }>;
}

/** Runs npm quietly (no update notifier); returns its stdout, throws with its stderr on failure. */
export function npm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], env: { ...env, npm_config_update_notifier: "false" } });
}

/** Packs kubeloop from a clean copy of the checkout into `work`; `tarball` is the file's path. */
export function packKubeloop(work: string): PackResult & { tarball: string } {
  const clone = join(work, "clone");
  const tracked = execFileSync("git", ["ls-files", "-z"], { cwd: root, encoding: "utf8" }).split("\0").filter(Boolean);
  for (const f of tracked) {
    mkdirSync(dirname(join(clone, f)), { recursive: true });
    cpSync(join(root, f), join(clone, f));
  }
  symlinkSync(join(root, "node_modules"), join(clone, "node_modules"));
  const pack = (JSON.parse(npm(["pack", "--json", "--pack-destination", work], clone)) as PackResult[])[0];
  return { ...pack, tarball: join(work, pack.filename) };
}
