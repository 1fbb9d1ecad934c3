/**
 * kubeloop's CEL against the cel-spec conformance suite (the committed subset, see
 * test/cel/conformance/README.md). Cases needing protobuf messages are out of scope; every
 * other case must pass except the ones listed in known-failures.txt, so a regression fails
 * here and a fix must shorten that list.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { conformanceDir, loadConformance, runConformance } from "./conformance.js";
import { kubeloopAdapter } from "./kubeloop-adapter.js";

const known = new Set(
  readFileSync(join(conformanceDir, "known-failures.txt"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#")),
);

describe("cel-spec conformance", () => {
  const cases = loadConformance().filter((c) => !c.needsProto && c.expect.kind !== "other");
  const report = runConformance(kubeloopAdapter, cases);

  it("loads the suite", () => {
    expect(cases.length).toBeGreaterThan(1000);
  });

  it("passes every case not listed as a known failure", () => {
    const unexpected = report.failed.filter((n) => !known.has(n));
    expect(unexpected).toEqual([]);
  });

  it("lists no case as a known failure that now passes", () => {
    const failed = new Set(report.failed);
    expect([...known].filter((n) => !failed.has(n))).toEqual([]);
  });
});
