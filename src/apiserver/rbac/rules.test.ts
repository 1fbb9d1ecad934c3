/**
 * Covers and compaction (escalation checks), restating component-helpers'
 * auth/rbac/validation/policy_comparator_test.go and pkg/registry/rbac/validation tests.
 */
import type { PolicyRule } from "../../apimachinery/api/rbac/v1.js";
import { describe, expect, it } from "vitest";
import { compactRules, compactString, covers } from "./rules.js";

const r = (verbs: string[], apiGroups: string[], resources: string[], resourceNames?: string[]): PolicyRule => ({ verbs, apiGroups, resources, ...(resourceNames ? { resourceNames } : {}) });
const u = (verbs: string[], nonResourceURLs: string[]): PolicyRule => ({ verbs, nonResourceURLs });

describe("covers (policy_comparator_test.go)", () => {
  const cases: { name: string; owner: PolicyRule[]; servant: PolicyRule[]; covered: boolean; missing?: PolicyRule[] }[] = [
    { name: "single-rule, exact match", owner: [r(["get"], ["v1"], ["builds"])], servant: [r(["get"], ["v1"], ["builds"])], covered: true },
    {
      name: "single-rule, resource name match",
      owner: [r(["get"], ["v1"], ["builds"], ["foo"])],
      servant: [r(["get"], ["v1"], ["builds"], ["foo"])],
      covered: true,
    },
    {
      name: "single-rule, resource name: owner restricted, servant not",
      owner: [r(["get"], ["v1"], ["builds"], ["foo"])],
      servant: [r(["get"], ["v1"], ["builds"])],
      covered: false,
      missing: [r(["get"], ["v1"], ["builds"])],
    },
    { name: "single-rule, owner unrestricted names covers names", owner: [r(["get"], ["v1"], ["builds"])], servant: [r(["get"], ["v1"], ["builds"], ["foo"])], covered: true },
    {
      name: "multi-rule, exact match",
      owner: [r(["get"], ["v1"], ["builds"]), r(["list"], ["v1"], ["builds"]), r(["update"], ["v1"], ["builds"])],
      servant: [r(["get", "list"], ["v1"], ["builds"])],
      covered: true,
    },
    {
      name: "multi-rule, missing verb",
      owner: [r(["get"], ["v1"], ["builds"]), r(["update"], ["v1"], ["builds"])],
      servant: [r(["get", "list", "update"], ["v1"], ["builds"])],
      covered: false,
      missing: [r(["list"], ["v1"], ["builds"])],
    },
    { name: "star verb covers", owner: [r(["*"], ["v1"], ["builds"])], servant: [r(["get", "delete"], ["v1"], ["builds"])], covered: true },
    { name: "star group covers", owner: [r(["get"], ["*"], ["builds"])], servant: [r(["get"], ["v1", "apps"], ["builds"])], covered: true },
    { name: "star resource covers", owner: [r(["get"], ["v1"], ["*"])], servant: [r(["get"], ["v1"], ["builds", "pods/log"])], covered: true },
    { name: "star subresource covers the subresource", owner: [r(["get"], ["v1"], ["*/scale"])], servant: [r(["get"], ["v1"], ["deployments/scale"])], covered: true },
    {
      name: "star subresource does not cover the resource",
      owner: [r(["get"], ["v1"], ["*/scale"])],
      servant: [r(["get"], ["v1"], ["deployments"])],
      covered: false,
      missing: [r(["get"], ["v1"], ["deployments"])],
    },
    { name: "resource does not cover its subresource", owner: [r(["get"], ["v1"], ["pods"])], servant: [r(["get"], ["v1"], ["pods/log"])], covered: false, missing: [r(["get"], ["v1"], ["pods/log"])] },
    { name: "nonResourceURL exact", owner: [u(["get"], ["/api"])], servant: [u(["get"], ["/api"])], covered: true },
    { name: "nonResourceURL prefix star", owner: [u(["get"], ["/api/*"])], servant: [u(["get"], ["/api/v1", "/api/v1/foo"])], covered: true },
    { name: "nonResourceURL prefix does not cover the bare path", owner: [u(["get"], ["/api/*"])], servant: [u(["get"], ["/api"])], covered: false, missing: [u(["get"], ["/api"])] },
    { name: "nonResourceURL star", owner: [u(["*"], ["*"])], servant: [u(["get", "post"], ["/foo", "/bar/*"])], covered: true },
    { name: "resource rule does not cover nonResourceURLs", owner: [r(["*"], ["*"], ["*"])], servant: [u(["get"], ["/healthz"])], covered: false, missing: [u(["get"], ["/healthz"])] },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const got = covers(tc.owner, tc.servant);
      expect(got.covered).toBe(tc.covered);
      if (tc.missing) expect(got.missing).toEqual(tc.missing);
    });
  }
});

describe("compactRules and compactString (escalation messages)", () => {
  it("merges atomic rules that differ only by verb", () => {
    const got = compactRules([r(["get"], ["apps"], ["deployments"]), r(["list"], ["apps"], ["deployments"]), r(["get"], [""], ["pods"], ["p1"]), u(["get"], ["/x"])]);
    expect(got.map(compactString).sort()).toEqual([
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["p1"], Verbs:["get"]}',
      '{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}',
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
    ]);
  });
});
