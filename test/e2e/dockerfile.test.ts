/**
 * deploy/Dockerfile, checked as far as this machine can without a container engine (no image is
 * built here): the base image is a supported Node.js LTS — the same major CI runs the unit tests
 * on (scripts/test-lts.mjs) — every COPY source exists and survives .dockerignore, the entrypoint
 * is what the build produces, and the user is the numeric uid deploy/deployment.yaml runs as.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { describe, expect, it } from "vitest";
import { LTS_NODE_VERSION } from "../../scripts/test-lts.mjs";
import { imageOf, root } from "./pod.js";

const dockerfile = readFileSync(join(root, "deploy/Dockerfile"), "utf8");
const ignore = readFileSync(join(root, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l !== "" && !l.startsWith("#"));

/** Whether .dockerignore drops `path` from the build context (its patterns here are plain names and *.ext). */
function ignored(path: string): boolean {
  const first = path.split("/")[0];
  return ignore.some((p) => p === first || p === path || (p.startsWith("*.") && path.endsWith(p.slice(1))));
}

describe("deploy/Dockerfile", () => {
  it("builds on a supported Node.js LTS, the one CI tests on", () => {
    const froms = [...dockerfile.matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(froms.length).toBeGreaterThan(0);
    const ltsMajor = LTS_NODE_VERSION.split(".")[0];
    for (const f of froms) {
      const m = /^node:(\d+)(-[a-z0-9-]+)?$/.exec(f);
      expect(m, f).not.toBeNull();
      expect(m![1], `${f}: the LTS major of scripts/test-lts.mjs`).toBe(ltsMajor);
      // Even majors become LTS; 20 reached end of life in April 2026.
      expect(Number(m![1]) % 2, f).toBe(0);
      expect(Number(m![1]), f).toBeGreaterThan(20);
    }
  });

  it("copies only files that exist and that .dockerignore keeps in the context", () => {
    const copies = [...dockerfile.matchAll(/^COPY (?!--from)(.+) (\S+)$/gm)].flatMap((m) => m[1].split(/\s+/));
    expect(copies.length).toBeGreaterThan(0);
    for (const src of copies) {
      expect(existsSync(join(root, src)), `${src} exists`).toBe(true);
      expect(ignored(src), `${src} is not in .dockerignore`).toBe(false);
    }
  });

  it("keeps the build context small: .dockerignore drops what the image never needs", () => {
    for (const p of [".git", "node_modules", "dist", ".cache", "test", "bench"]) expect(ignored(p), p).toBe(true);
  });

  it("runs what the build produces, as the uid the Deployment asks for", () => {
    const { entrypoint, env } = imageOf(dockerfile);
    expect(entrypoint).toEqual(["node", "dist/cli/main.js"]);
    expect(existsSync(join(root, "src/cli/main.ts"))).toBe(true);
    const build = JSON.parse(readFileSync(join(root, "tsconfig.build.json"), "utf8")) as { compilerOptions: { rootDir: string; outDir: string } };
    expect([build.compilerOptions.rootDir, build.compilerOptions.outDir]).toEqual(["src", "dist"]);
    expect(env.NODE_ENV).toBe("production");
    const user = /^USER (\d+):(\d+)$/m.exec(dockerfile);
    expect(user).not.toBeNull();
    const pod = (parse(readFileSync(join(root, "deploy/deployment.yaml"), "utf8")) as { spec: { template: { spec: { securityContext: { runAsUser: number; runAsGroup: number } } } } }).spec.template.spec.securityContext;
    expect([Number(user![1]), Number(user![2])]).toEqual([pod.runAsUser, pod.runAsGroup]);
  });

  it("needs no compiler: no native dependency is installed for production", () => {
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies)).not.toContain("better-sqlite3");
    expect(dockerfile).not.toMatch(/apt-get|g\+\+|python3/);
  });
});
