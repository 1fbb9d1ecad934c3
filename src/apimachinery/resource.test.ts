import type { Deployment } from "./api/apps/v1.js";
import { describe, expect, expectTypeOf, it } from "vitest";
import { defineResource, fullResource, InvalidResourceDefinitionError, metadataOnly, toPartialObjectMetadata, type ObjectOf, type PartialObjectMetadata } from "./resource.js";

describe("defineResource", () => {
  it("makes a frozen descriptor of exactly five fields carrying the object type", () => {
    const d = defineResource<Deployment>({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true });
    expect(d).toEqual({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true });
    expect(Object.isFrozen(d)).toBe(true);
    expectTypeOf<ObjectOf<typeof d>>().toEqualTypeOf<Deployment>();
  });
  it.each([
    [{ group: "x", version: "", resource: "r", kind: "K", namespaced: true }, "resource version must not be empty"],
    [{ group: "x", version: "v1", resource: "", kind: "K", namespaced: true }, "resource resource must not be empty"],
    [{ group: "x", version: "v1", resource: "r", kind: "", namespaced: true }, "resource kind must not be empty"],
    [{ group: "x", version: "v1", resource: "pods/status", kind: "K", namespaced: true }, 'resource "pods/status" must not contain "/"'],
  ])("refuses %j", (def, message) => {
    expect(() => defineResource(def)).toThrow(InvalidResourceDefinitionError);
    expect(() => defineResource(def)).toThrow(message);
  });
});

describe("metadataOnly", () => {
  it("is a view of the same resource reading PartialObjectMetadata", () => {
    const d = defineResource<Deployment>({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true });
    const m = metadataOnly(d);
    expect(m).toEqual({ ...d, metadataOnly: true });
    expectTypeOf<ObjectOf<typeof m>>().toEqualTypeOf<PartialObjectMetadata>();
    expect(metadataOnly(m)).toEqual(m);
    expect(fullResource(m)).toEqual(d);
    expect(toPartialObjectMetadata({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "x" } })).toEqual({
      apiVersion: "meta.k8s.io/v1",
      kind: "PartialObjectMetadata",
      metadata: { name: "x" },
    });
  });
});
