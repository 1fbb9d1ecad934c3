/**
 * The committed artifacts derived from the Kubernetes API definitions are what the generator
 * produces now: a stale artifact (an edited generated file, or a generator change without
 * regeneration) fails here. Needs the k8s-api-1.36 input folder (see scripts/apigen/generate.mjs
 * --k8s-api); where it is absent the check cannot run and is skipped.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const candidates = [process.env.K8S_API_DIR, join(process.cwd(), "..", "shared", "k8s-api-1.36"), join(process.cwd(), "..", "..", "shared", "k8s-api-1.36"), "/work/shared/k8s-api-1.36"];
const k8sApi = candidates.find((c) => c !== undefined && existsSync(join(c, "api", "core", "v1", "types.go")));

describe("scripts/apigen/generate.mjs --check", () => {
  it.skipIf(k8sApi === undefined)("finds every generated artifact up to date", () => {
    let out = "";
    try {
      out = execFileSync(process.execPath, ["scripts/apigen/generate.mjs", "--check", "--k8s-api", k8sApi!], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      const err = e as { stderr?: string; stdout?: string };
      throw new Error(`generated artifacts are stale:\n${err.stderr ?? ""}${err.stdout ?? ""}`);
    }
    expect(out).toMatch(/^apigen: up to date/);
  }, 120_000);
});
