import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { checkObjectMetaTypes, FieldTypeError, requireObjectMetaTypes } from "./metatypes.js";

const cm = (metadata: unknown, extra: Record<string, unknown> = {}) => ({ apiVersion: "v1", kind: "ConfigMap", metadata, ...extra });

describe("checkObjectMetaTypes", () => {
  // What encoding/json says decoding these into a ConfigMap (metav1.ObjectMeta) upstream.
  it.each([
    ["metadata string", cm("x"), "json: cannot unmarshal string into Go struct field ConfigMap.metadata of type v1.ObjectMeta"],
    ["metadata array", cm([]), "json: cannot unmarshal array into Go struct field ConfigMap.metadata of type v1.ObjectMeta"],
    ["name number", cm({ name: 5 }), "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"],
    ["uid object", cm({ uid: {} }), "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.uid of type types.UID"],
    ["finalizers string", cm({ finalizers: "x" }), "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string"],
    ["finalizer number", cm({ finalizers: [1] }), "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string"],
    ["labels array", cm({ labels: ["a"] }), "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string"],
    ["label value number", cm({ labels: { a: 1 } }), "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"],
    ["annotation value object", cm({ annotations: { a: {} } }), "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.annotations of type string"],
    ["generation string", cm({ generation: "1" }), "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.generation of type int64"],
    ["generation fraction", cm({ generation: 1.5 }), "json: cannot unmarshal number 1.5 into Go struct field ObjectMeta.metadata.generation of type int64"],
    ["grace bool", cm({ deletionGracePeriodSeconds: true }), "json: cannot unmarshal bool into Go struct field ObjectMeta.metadata.deletionGracePeriodSeconds of type int64"],
    ["creationTimestamp number", cm({ creationTimestamp: 5 }), "json: cannot unmarshal number into Go value of type string"],
    ["creationTimestamp text", cm({ creationTimestamp: "yesterday" }), 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ["ownerReferences object", cm({ ownerReferences: {} }), "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference"],
    ["ownerReference string", cm({ ownerReferences: ["x"] }), "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.ownerReferences of type v1.OwnerReference"],
    ["ownerReference controller string", cm({ ownerReferences: [{ controller: "yes" }] }), "json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool"],
    ["managedFields string", cm({ managedFields: "x" }), "json: cannot unmarshal string into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry"],
    ["managedFields manager number", cm({ managedFields: [{ manager: 1 }] }), "json: cannot unmarshal number into Go struct field ManagedFieldsEntry.metadata.managedFields.manager of type string"],
    ["kind number", { kind: 1, metadata: {} }, "json: cannot unmarshal number into Go struct field .kind of type string"],
  ])("%s", (_, obj, message) => {
    expect(() => checkObjectMetaTypes(obj as Record<string, unknown>, "ConfigMap")).toThrow(new FieldTypeError(message));
  });

  it("reads null as Go's zero value", () => {
    const obj = cm(
      {
        name: "a",
        namespace: null,
        labels: { x: null },
        annotations: null,
        finalizers: [null, "f/x"],
        ownerReferences: [null, { name: "o", controller: null }],
        managedFields: null,
        deletionTimestamp: null,
      },
      { kind: null },
    );
    checkObjectMetaTypes(obj as Record<string, unknown>, "ConfigMap");
    expect(obj).toEqual({ apiVersion: "v1", metadata: { name: "a", labels: { x: "" }, finalizers: ["", "f/x"], ownerReferences: [{}, { name: "o" }] } });
    const nullMeta: Record<string, unknown> = { metadata: null };
    checkObjectMetaTypes(nullMeta, "ConfigMap");
    expect(nullMeta).toEqual({});
  });

  it("accepts well-typed metadata unchanged", () => {
    const meta = {
      name: "a",
      generateName: "a-",
      namespace: "ns",
      uid: "u",
      resourceVersion: "5",
      generation: 3,
      creationTimestamp: "2024-01-02T03:04:05Z",
      deletionTimestamp: "2024-01-02T03:04:05.123+01:00",
      deletionGracePeriodSeconds: 30,
      labels: { a: "b" },
      annotations: { c: "d" },
      finalizers: ["example.com/f"],
      ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "p", uid: "u", controller: true, blockOwnerDeletion: false }],
      managedFields: [{ manager: "m", operation: "Update", apiVersion: "v1", time: "2024-01-02T03:04:05Z", fieldsType: "FieldsV1", fieldsV1: { "f:data": {} } }],
    };
    const obj = cm(structuredClone(meta));
    checkObjectMetaTypes(obj as Record<string, unknown>, "ConfigMap");
    expect(obj.metadata).toEqual(meta);
  });

  it("answers upstream's 400 for a body", () => {
    try {
      requireObjectMetaTypes(cm({ finalizers: "x" }) as KubeObject, "ConfigMap", "v1");
      expect.unreachable();
    } catch (err) {
      expect((err as StatusError).status).toMatchObject({
        code: 400,
        reason: "BadRequest",
        message:
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string',
      });
    }
  });
});
