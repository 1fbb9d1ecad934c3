import { describe, expect, it } from "vitest";
import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { nameIsDNSLabel, nameIsDNSSubdomain } from "../../apimachinery/validation.js";
import { semanticEqual } from "../../apimachinery/equality.js";
import { selectorMatches, validateLabelSelector, validateObjectMeta, validateObjectMetaUpdate } from "./meta.js";

const msgs = (errs: { toString(): string }[]) => errs.map((e) => e.toString());

describe("validateObjectMeta", () => {
  const cases: { name: string; meta: ObjectMeta; namespaced?: boolean; label?: boolean; want: string[] }[] = [
    { name: "valid", meta: { name: "web", namespace: "default" }, want: [] },
    { name: "generateName only is fine once a name was generated", meta: { name: "web-abcde", generateName: "web-", namespace: "ns" }, want: [] },
    {
      name: "name required",
      meta: { namespace: "default" },
      want: ["metadata.name: Required value: name or generateName is required"],
    },
    {
      name: "bad subdomain",
      meta: { name: "Web_1", namespace: "default" },
      want: [
        `metadata.name: Invalid value: "Web_1": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    },
    { name: "namespace required", meta: { name: "a" }, want: ["metadata.namespace: Required value"] },
    { name: "namespace forbidden on cluster-scoped", meta: { name: "a", namespace: "x" }, namespaced: false, want: ["metadata.namespace: Forbidden: not allowed on this type"] },
    { name: "label name", meta: { name: "a", namespace: "n", labels: { "bad key!": "v" } }, want: ['metadata.labels: Invalid value: "bad key!"'] },
    { name: "label value", meta: { name: "a", namespace: "n", labels: { k: "x".repeat(64) } }, want: ["metadata.labels: Invalid value: \"" + "x".repeat(64) + "\""] },
    {
      name: "annotations too large",
      meta: { name: "a", namespace: "n", annotations: { big: "x".repeat(256 * 1024) } },
      want: ["metadata.annotations: Too long"],
    },
    {
      name: "non-standard unqualified finalizer",
      meta: { name: "a", namespace: "n", finalizers: ["mine"] },
      want: ['metadata.finalizers[0]: Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified'],
    },
    { name: "standard finalizer", meta: { name: "a", namespace: "n", finalizers: ["foregroundDeletion", "example.com/x"] }, want: [] },
    { name: "negative generation", meta: { name: "a", namespace: "n", generation: -1 }, want: ["metadata.generation: Invalid value: -1: must be greater than or equal to 0"] },
    {
      name: "two controllers",
      meta: {
        name: "a",
        namespace: "n",
        ownerReferences: [
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "r1", uid: "1", controller: true },
          { apiVersion: "apps/v1", kind: "ReplicaSet", name: "r2", uid: "2", controller: true },
        ],
      },
      want: ['metadata.ownerReferences: Invalid value: [{"apiVersion"'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const errs = msgs(validateObjectMeta(c.meta, c.namespaced ?? true, c.label ? nameIsDNSLabel : nameIsDNSSubdomain));
      expect(errs.length).toBe(c.want.length);
      c.want.forEach((w, i) => expect(errs[i].startsWith(w), `${errs[i]} should start with ${w}`).toBe(true));
    });
  }
});

describe("validateObjectMetaUpdate", () => {
  const old: ObjectMeta = { name: "a", namespace: "n", uid: "u1", resourceVersion: "5", creationTimestamp: "2024-01-01T00:00:00Z", generation: 3 };
  const cases: { name: string; update: Partial<ObjectMeta>; oldPatch?: Partial<ObjectMeta>; want: string[] }[] = [
    { name: "unchanged", update: {}, want: [] },
    { name: "uid immutable", update: { uid: "u2" }, want: ['metadata.uid: Invalid value: "u2": field is immutable'] },
    { name: "name immutable", update: { name: "b" }, want: ['metadata.name: Invalid value: "b": field is immutable'] },
    { name: "resourceVersion required", update: { resourceVersion: undefined }, want: ['metadata.resourceVersion: Invalid value: "": must be specified for an update'] },
    { name: "generation decremented", update: { generation: 2 }, want: ["metadata.generation: Invalid value: 2: must not be decremented"] },
    {
      name: "no new finalizers while deleting",
      update: { finalizers: ["a.io/x"], deletionTimestamp: "2024-01-02T00:00:00Z" },
      oldPatch: { deletionTimestamp: "2024-01-02T00:00:00Z" },
      want: ['metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"a.io/x"}'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const o = { ...old, ...(c.oldPatch ?? {}) };
      const n = { ...o, ...c.update };
      expect(msgs(validateObjectMetaUpdate(n, o))).toEqual(c.want);
    });
  }
});

describe("label selectors", () => {
  it("validates operators and values", () => {
    const errs = msgs(
      validateLabelSelector(
        { matchExpressions: [{ key: "a", operator: "In" }, { key: "b", operator: "Exists", values: ["x"] }, { key: "c", operator: "Near" }] },
        "spec.selector",
      ),
    );
    expect(errs).toEqual([
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.selector.matchExpressions[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      'spec.selector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator',
    ]);
  });
  it("matches", () => {
    const sel = { matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] };
    expect(selectorMatches(sel, { app: "web" })).toBe(true);
    expect(selectorMatches(sel, { app: "web", tier: "db" })).toBe(false);
    expect(selectorMatches(sel, { app: "api" })).toBe(false);
  });
});

describe("helpers", () => {
  it("semanticEqual treats empty and absent alike", () => {
    expect(semanticEqual({ a: [], b: {} }, {})).toBe(true);
    expect(semanticEqual({ a: [1] }, {})).toBe(false);
    expect(semanticEqual({ a: { b: 1 } }, { a: { b: 2 } })).toBe(false);
  });
});
