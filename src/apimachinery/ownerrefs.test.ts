import { describe, expect, it } from "vitest";
import type { TypedObject } from "./types.js";
import {
  AlreadyOwnedError,
  hasControllerReference,
  hasOwnerReference,
  InvalidOwnerError,
  removeOwnerReference,
  setControllerReference,
  setOwnerReference,
} from "./ownerrefs.js";

const owner = (name: string, ns = "default", uid = `uid-${name}`): TypedObject => ({ apiVersion: "apps/v1", kind: "ReplicaSet", metadata: { name, namespace: ns, uid } });
const obj = (ns = "default"): TypedObject => ({ apiVersion: "v1", kind: "Pod", metadata: { name: "p", namespace: ns } });

// controller-runtime controllerutil_test.go, restated.
describe("setControllerReference", () => {
  it("sets a controller reference with blockOwnerDeletion", () => {
    const o = setControllerReference(owner("rs"), obj());
    expect(o.metadata?.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "uid-rs", controller: true, blockOwnerDeletion: true }]);
    expect(hasControllerReference(o)).toBe(true);
  });
  it("replaces a reference to the same owner (same group, kind and name), keeps others", () => {
    const o = obj();
    o.metadata!.ownerReferences = [{ apiVersion: "apps/v1beta1", kind: "ReplicaSet", name: "rs", uid: "old" }, { apiVersion: "v1", kind: "ConfigMap", name: "c", uid: "u" }];
    setControllerReference(owner("rs"), o);
    expect(o.metadata?.ownerReferences?.map((r) => `${r.kind}/${r.name}/${r.uid}/${r.controller ?? false}`)).toEqual(["ReplicaSet/rs/uid-rs/true", "ConfigMap/c/u/false"]);
  });
  it("refuses when another owner controls it (AlreadyOwnedError)", () => {
    const o = setControllerReference(owner("rs"), obj());
    expect(() => setControllerReference(owner("other"), o)).toThrow(AlreadyOwnedError);
    expect(() => setControllerReference(owner("other"), o)).toThrow("Object default/p is already owned by another ReplicaSet controller rs");
  });
  it("refuses cross-namespace and namespaced-owner-of-cluster-scoped references", () => {
    expect(() => setControllerReference(owner("rs", "a"), obj("b"))).toThrow("cross-namespace owner references are disallowed, owner's namespace a, obj's namespace b");
    expect(() => setControllerReference(owner("rs", "a"), { metadata: { name: "n" } })).toThrow(
      "cluster-scoped resource must not have a namespace-scoped owner, owner's namespace a",
    );
    expect(() => setControllerReference(owner("rs", ""), obj("b"))).not.toThrow();
  });
  it("needs the owner's kind (from the object or given)", () => {
    expect(() => setControllerReference({ metadata: { name: "x", uid: "u", namespace: "default" } }, obj())).toThrow(InvalidOwnerError);
    const o = setControllerReference({ metadata: { name: "x", uid: "u", namespace: "default" } }, obj(), { gvk: { group: "", version: "v1", kind: "Thing" } });
    expect(o.metadata?.ownerReferences?.[0]).toMatchObject({ apiVersion: "v1", kind: "Thing" });
  });
});

describe("setOwnerReference, removeOwnerReference, hasOwnerReference", () => {
  it("adds a plain reference, finds and removes it", () => {
    const o = setOwnerReference(owner("rs"), obj());
    expect(o.metadata?.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "uid-rs" }]);
    expect(hasControllerReference(o)).toBe(false);
    expect(hasOwnerReference(o, owner("rs"))).toBe(true);
    expect(hasOwnerReference(o, owner("other"))).toBe(false);
    removeOwnerReference(owner("rs"), o);
    expect(o.metadata?.ownerReferences).toEqual([]);
    expect(() => removeOwnerReference(owner("rs"), o)).toThrow(/does not have any owner references/);
    setOwnerReference(owner("rs"), o);
    expect(() => removeOwnerReference(owner("x"), o)).toThrow(/does not have an owner reference for ReplicaSet x/);
  });
});
