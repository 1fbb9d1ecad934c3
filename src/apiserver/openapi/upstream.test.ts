/**
 * The generated OpenAPI v2 definitions against kube-apiserver 1.36's own: a sample of upstream's
 * published swagger.json (testdata/README.md says where it comes from) must be reproduced
 * exactly — descriptions, formats, required lists, group-version-kinds and every
 * x-kubernetes-* extension.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { builtinDefinitions } from "./definitions.js";

const sample = JSON.parse(readFileSync(new URL("./testdata/upstream-swagger-1.36-sample.json", import.meta.url), "utf8")) as Record<string, unknown>;

describe("definitions match upstream's swagger.json (Kubernetes 1.36)", () => {
  const defs = builtinDefinitions();
  test("the sample is not empty", () => expect(Object.keys(sample).length).toBeGreaterThan(50));
  for (const [name, upstream] of Object.entries(sample)) {
    test(name, () => expect(defs[name]).toEqual(upstream));
  }
});
