import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deepCopy, deepFreeze } from "./deepcopy.js";
import { deepEqual } from "./equality.js";
import { gvkOf, groupResourceString, groupVersionString, parseGroupVersion } from "./gvk.js";
import { ObjectName, metaNamespaceKey } from "./objectname.js";
import { getControllerOf, isControlledBy, newControllerRef } from "./ownerrefs.js";

describe("ObjectName", () => {
  const cases = [
    { key: "ns/name", ns: "ns", name: "name" },
    { key: "name", ns: "", name: "name" },
  ];
  for (const c of cases) {
    it(`round-trips ${c.key}`, () => {
      const n = ObjectName.parse(c.key);
      expect(n.namespace).toBe(c.ns);
      expect(n.name).toBe(c.name);
      expect(n.toString()).toBe(c.key);
      expect(n.equals(new ObjectName(c.ns, c.name))).toBe(true);
    });
  }
  for (const bad of ["a/b/c", "", "ns/"]) {
    it(`rejects ${JSON.stringify(bad)}`, () => expect(() => ObjectName.parse(bad)).toThrow());
  }
  it("keys objects like MetaNamespaceKeyFunc", () => {
    expect(metaNamespaceKey({ metadata: { namespace: "a", name: "b" } })).toBe("a/b");
    expect(metaNamespaceKey({ metadata: { name: "node1" } })).toBe("node1");
  });
});

describe("GVK helpers", () => {
  it("parses and prints group versions", () => {
    expect(parseGroupVersion("apps/v1")).toEqual({ group: "apps", version: "v1" });
    expect(parseGroupVersion("v1")).toEqual({ group: "", version: "v1" });
    expect(() => parseGroupVersion("a/b/c")).toThrow();
    expect(groupVersionString({ group: "", version: "v1" })).toBe("v1");
    expect(gvkOf({ apiVersion: "apps/v1", kind: "Deployment" })).toEqual({ group: "apps", version: "v1", kind: "Deployment" });
    expect(groupResourceString({ group: "apps", resource: "deployments" })).toBe("deployments.apps");
  });
});

describe("owner references", () => {
  const owner = { metadata: { name: "web", uid: "u1" } };
  const gvk = { group: "apps", version: "v1", kind: "Deployment" };
  it("newControllerRef sets controller and blockOwnerDeletion", () => {
    expect(newControllerRef(owner, gvk)).toEqual({
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "web",
      uid: "u1",
      blockOwnerDeletion: true,
      controller: true,
    });
  });
  it("getControllerOf finds the controller ref only", () => {
    const obj = {
      metadata: {
        ownerReferences: [
          { apiVersion: "v1", kind: "X", name: "x", uid: "ux" },
          { apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: "u1", controller: true },
        ],
      },
    };
    expect(getControllerOf(obj)?.uid).toBe("u1");
    expect(getControllerOf({ metadata: {} })).toBeUndefined();
    expect(isControlledBy(obj, owner)).toBe(true);
    expect(isControlledBy(obj, { metadata: { name: "web", uid: "other" } })).toBe(false);
    // the returned ref is a copy
    getControllerOf(obj)!.name = "changed";
    expect(obj.metadata.ownerReferences[1].name).toBe("web");
  });
});

const jsonValue = fc.jsonValue() as fc.Arbitrary<unknown>;

describe("deepCopy and deepEqual", () => {
  it("copies are equal and share no objects", () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        const c = deepCopy(v);
        expect(deepEqual(c, v)).toBe(true);
        expect(c).toEqual(v);
        if (typeof v === "object" && v !== null) expect(c).not.toBe(v);
      }),
      { numRuns: 500 },
    );
  });

  it("a mutation of the copy does not reach the original", () => {
    const orig = { a: { b: [1, { c: 2 }] } };
    const c = deepCopy(orig);
    (c.a.b[1] as { c: number }).c = 3;
    expect((orig.a.b[1] as { c: number }).c).toBe(2);
  });

  const eq: Array<[unknown, unknown, boolean]> = [
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [{ a: 1 }, { a: 1, b: null }, false],
    [[1, 2], [2, 1], false],
    [{ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }, true],
    [[], {}, false],
    [NaN, NaN, true],
    ["1", 1, false],
    [{ a: {} }, { a: { x: undefined } }, true],
  ];
  eq.forEach(([a, b, want], i) => it(`deepEqual case ${i}`, () => expect(deepEqual(a, b)).toBe(want)));

  it("drops undefined properties like a JSON round trip", () => {
    expect(deepCopy({ a: undefined, b: 1 })).toEqual({ b: 1 });
    expect(Object.keys(deepCopy({ a: undefined, b: 1 }))).toEqual(["b"]);
  });

  it("deepFreeze freezes nested objects", () => {
    const o = deepFreeze({ a: { b: [1] } });
    expect(Object.isFrozen(o.a.b)).toBe(true);
    expect(() => {
      (o.a as { b: number[] }).b = [];
    }).toThrow();
  });
});

describe("deepCopy of hostile keys", () => {
  it("keeps an own __proto__ key as data and does not change the prototype", () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as Record<string, unknown>;
    const c = deepCopy(parsed);
    expect(Object.getPrototypeOf(c)).toBe(Object.prototype);
    expect(Object.keys(c)).toEqual(["__proto__", "a"]);
    expect((c as { polluted?: boolean }).polluted).toBeUndefined();
  });
});
