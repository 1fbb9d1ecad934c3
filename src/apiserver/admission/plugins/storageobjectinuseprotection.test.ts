/** Cases restated from upstream storageobjectinuseprotection admission_test.go (TestAdmit). */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../../apimachinery/types.js";
import { newAttributes } from "../attributes.js";
import type { AdmissionOperation } from "../interfaces.js";
import { pvcProtectionFinalizer, pvProtectionFinalizer, storageObjectInUseProtectionPlugin } from "./storageobjectinuseprotection.js";

const kinds: Record<string, string> = { persistentvolumeclaims: "PersistentVolumeClaim", persistentvolumes: "PersistentVolume", pods: "Pod" };
const obj = (resource: string, finalizers?: string[]): KubeObject => ({
  apiVersion: "v1",
  kind: kinds[resource],
  metadata: { name: "o", ...(resource === "persistentvolumes" ? {} : { namespace: "ns" }), ...(finalizers ? { finalizers } : {}) },
});

describe("StorageObjectInUseProtection (TestAdmit)", () => {
  it.each([
    { name: "create -> add PVC finalizer", resource: "persistentvolumeclaims", object: obj("persistentvolumeclaims"), want: [pvcProtectionFinalizer] },
    { name: "finalizer already exists -> no new finalizer", resource: "persistentvolumeclaims", object: obj("persistentvolumeclaims", [pvcProtectionFinalizer]), want: [pvcProtectionFinalizer] },
    { name: "other finalizers are kept", resource: "persistentvolumeclaims", object: obj("persistentvolumeclaims", ["example.com/x"]), want: ["example.com/x", pvcProtectionFinalizer] },
    { name: "create -> add PV finalizer", resource: "persistentvolumes", object: obj("persistentvolumes"), want: [pvProtectionFinalizer] },
    { name: "PV finalizer already exists -> no new finalizer", resource: "persistentvolumes", object: obj("persistentvolumes", [pvProtectionFinalizer]), want: [pvProtectionFinalizer] },
    { name: "a status subresource write is left alone", resource: "persistentvolumeclaims", subresource: "status", object: obj("persistentvolumeclaims"), want: undefined },
    { name: "an update is left alone", resource: "persistentvolumeclaims", operation: "UPDATE" as AdmissionOperation, object: obj("persistentvolumeclaims"), want: undefined },
    { name: "another resource is left alone", resource: "pods", object: obj("pods"), want: undefined },
  ])("$name", async (t) => {
    const p = storageObjectInUseProtectionPlugin();
    const a = newAttributes({
      operation: t.operation ?? "CREATE",
      kind: { group: "", version: "v1", kind: kinds[t.resource] },
      resource: { group: "", version: "v1", resource: t.resource },
      namespace: t.object.metadata?.namespace ?? "",
      name: "o",
      object: t.object,
      subresource: t.subresource,
    });
    if (p.handles(a.operation)) await p.admit?.(a, new AbortController().signal);
    expect(t.object.metadata?.finalizers).toEqual(t.want);
  });
});
