/**
 * The API server of another commit, compiled at bench time, for figures that compare this
 * checkout with the code before a change (apiserver/vsbaseline).
 *
 * `buildBaseline(commit)` extracts the commit's `src/` and tsconfig files with `git archive`
 * into `<tmpdir>/kubeloop-bench-baseline-<sha>/`, links this checkout's node_modules (the
 * dependencies the server loads at run time have not changed in a way that matters to it) and
 * compiles it with this checkout's tsc as `npm run build` does (the commit's own
 * tsconfig.build.json, whose compiler options are dist-bench's; `--noCheck`, since its type-only dependency kubernetes-types is no longer
 * installed — type checking emits nothing). The result is kept and reused while the directory
 * exists (a `.built` marker is written last). The bench's apiserver role (servers.ts) loads it
 * with `dist: <dir>/dist`.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (dist-bench/bench/apiserver/ → three levels up). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

export interface Baseline {
  commit: string;
  /** The compiled src/ tree (pass as `dist` to the apiserver role). */
  dist: string;
  subject: string;
}

export function buildBaseline(rev: string, log: (m: string) => void = () => undefined): Baseline {
  const git = (...args: string[]) => execFileSync("git", ["-C", repoRoot, ...args], { encoding: "utf8" }).trim();
  const commit = git("rev-parse", "--verify", `${rev}^{commit}`);
  const subject = git("log", "-1", "--format=%h %s", commit);
  const dir = join(tmpdir(), `kubeloop-bench-baseline-${commit}`);
  const dist = join(dir, "dist");
  if (existsSync(join(dir, ".built"))) {
    // The cached build links the node_modules of the checkout that built it, which may be gone.
    linkNodeModules(dir);
    return { commit, dist, subject };
  }
  log(`building the baseline ${subject.slice(0, 80)} in ${dir}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync("sh", ["-c", `git -C "${repoRoot}" archive "${commit}" src tsconfig.json tsconfig.build.json package.json | tar -x -C "${dir}"`], { stdio: "inherit" });
  linkNodeModules(dir);
  const tsc = join(repoRoot, "node_modules", "typescript", "bin", "tsc");
  execFileSync(
    process.execPath,
    [tsc, "-p", "tsconfig.build.json", "--noCheck", "--declaration", "false"],
    { cwd: dir, stdio: "inherit" },
  );
  if (!existsSync(join(dist, "apiserver", "index.js"))) throw new Error(`baseline build of ${commit} produced no dist/apiserver/index.js`);
  writeFileSync(join(dir, ".built"), `${commit}\n`);
  return { commit, dist, subject };
}

/** Points `<dir>/node_modules` at this checkout's node_modules (the baseline resolves its packages there). */
function linkNodeModules(dir: string): void {
  const link = join(dir, "node_modules");
  rmSync(link, { force: true });
  symlinkSync(join(repoRoot, "node_modules"), link, "dir");
}
