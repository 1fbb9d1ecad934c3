import { describe, expect, it } from "vitest";
import { SchemaFormatError, enumInfo, kindInfo, parseValueType, typeInfo, typeKeys, type FieldInfo } from "./schema.js";

function field(type: string, name: string): FieldInfo {
  const f = typeInfo(type)?.fields.get(name);
  if (!f) throw new Error(`${type}.${name} not in the table`);
  return f;
}

describe("parseValueType", () => {
  const table: [string, unknown][] = [
    ["string", { kind: "scalar", scalar: "string" }],
    ["int64", { kind: "scalar", scalar: "int64" }],
    ["bytes", { kind: "scalar", scalar: "bytes" }],
    ["Quantity", { kind: "special", special: "Quantity" }],
    ["any", { kind: "any" }],
    ["[]string", { kind: "list", element: { kind: "scalar", scalar: "string" } }],
    ["map[]Quantity", { kind: "map", value: { kind: "special", special: "Quantity" } }],
    ["map[][]string", { kind: "map", value: { kind: "list", element: { kind: "scalar", scalar: "string" } } }],
    ["[]core/v1.Container", { kind: "list", element: { kind: "struct", type: "core/v1.Container" } }],
    ["apiextensions/v1.JSONSchemaProps", { kind: "struct", type: "apiextensions/v1.JSONSchemaProps" }],
  ];
  for (const [expr, want] of table) it(expr, () => expect(parseValueType(expr)).toEqual(want));

  it("shares parsed types and rejects unknown expressions", () => {
    expect(parseValueType("[]string")).toBe(parseValueType("[]string"));
    expect(() => parseValueType("float128")).toThrow(SchemaFormatError);
    expect(() => parseValueType("[]")).toThrow(SchemaFormatError);
  });
});

describe("decoding schema table", () => {
  it("flattens inline TypeMeta and keeps Go declaration order", () => {
    const d = kindInfo("apps", "v1", "Deployment")!;
    expect(d.key).toBe("apps/v1.Deployment");
    expect(d.definition).toBe("io.k8s.api.apps.v1.Deployment");
    expect([...d.fields.keys()]).toEqual(["kind", "apiVersion", "metadata", "spec", "status"]);
    expect(d.fields.get("spec")!.type).toEqual({ kind: "struct", type: "apps/v1.DeploymentSpec" });
  });

  const flags: [string, string, Partial<FieldInfo>][] = [
    // replicas *int32 `json:"replicas,omitempty"`
    ["apps/v1.DeploymentSpec", "replicas", { pointer: true, omitempty: true, required: false, type: { kind: "scalar", scalar: "int32" } }],
    // selector *metav1.LabelSelector `json:"selector"`: a pointer kube-openapi requires
    ["apps/v1.DeploymentSpec", "selector", { pointer: true, omitempty: false, required: true }],
    ["apps/v1.DeploymentSpec", "template", { pointer: false, omitempty: false, required: true }],
    ["core/v1.Container", "name", { required: true, omitempty: false }],
    ["meta/v1.ObjectMeta", "generation", { type: { kind: "scalar", scalar: "int64" }, omitempty: true }],
    ["meta/v1.ObjectMeta", "creationTimestamp", { type: { kind: "special", special: "Time" }, omitempty: true }],
    ["core/v1.ServicePort", "targetPort", { type: { kind: "special", special: "IntOrString" } }],
    ["core/v1.Secret", "data", { type: { kind: "map", value: { kind: "scalar", scalar: "bytes" } } }],
    ["core/v1.ResourceRequirements", "limits", { type: { kind: "map", value: { kind: "special", special: "Quantity" } } }],
    ["apps/v1.ControllerRevision", "data", { type: { kind: "special", special: "RawExtension" } }],
    ["apiextensions/v1.JSONSchemaProps", "default", { type: { kind: "special", special: "JSON" }, pointer: true }],
    ["apiextensions/v1.JSONSchemaProps", "maximum", { type: { kind: "scalar", scalar: "float64" } }],
    ["meta/v1.TableRow", "cells", { type: { kind: "list", element: { kind: "any" } }, required: true }],
    ["authentication/v1.UserInfo", "extra", { type: { kind: "map", value: { kind: "list", element: { kind: "scalar", scalar: "string" } } } }],
  ];
  for (const [type, name, want] of flags) {
    it(`${type}.${name}`, () => expect(field(type, name)).toMatchObject(want));
  }

  it("carries list types, map keys, map types and patch tags", () => {
    expect(field("core/v1.Container", "ports")).toMatchObject({ listType: "map", listMapKeys: ["containerPort", "protocol"], patchStrategy: "merge", patchMergeKey: "containerPort" });
    expect(field("core/v1.PodSpec", "volumes")).toMatchObject({ patchStrategy: "merge,retainKeys", patchMergeKey: "name", listType: "map" });
    expect(field("core/v1.PodSpec", "nodeSelector").mapType).toBe("atomic");
    expect(field("core/v1.PersistentVolumeSpec", "claimRef").mapType).toBe("granular");
    expect(field("meta/v1.ObjectMeta", "finalizers").listType).toBe("set");
    expect(typeInfo("meta/v1.LabelSelector")!.atomic).toBe(true);
    expect(typeInfo("meta/v1.ObjectMeta")!.atomic).toBe(false);
  });

  it("gives string enums their values, for fields and list items", () => {
    expect(field("core/v1.ContainerPort", "protocol").enum).toEqual({ key: "core/v1.Protocol", values: ["SCTP", "TCP", "UDP"], marked: true });
    expect(field("core/v1.Container", "imagePullPolicy").enum?.values).toEqual(["Always", "IfNotPresent", "Never"]);
    expect(field("core/v1.PersistentVolumeClaimSpec", "accessModes").enum?.values).toContain("ReadWriteOncePod");
    // Values of types that alias another package's enum (admissionregistration v1beta1 → v1).
    expect(enumInfo("admissionregistration/v1.ScopeType")?.values).toEqual(["*", "Cluster", "Namespaced"]);
    expect(field("core/v1.Container", "image").enum).toBeUndefined();
  });

  it("knows the kinds of kube-apiserver's scheme, and not others", () => {
    expect(kindInfo("", "v1", "Pod")?.key).toBe("core/v1.Pod");
    expect(kindInfo("", "v1", "Status")?.key).toBe("meta/v1.Status");
    expect(kindInfo("apps", "v1", "WatchEvent")?.key).toBe("meta/v1.WatchEvent");
    expect(kindInfo("apiregistration.k8s.io", "v1", "APIService")?.definition).toBe("io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService");
    expect(kindInfo("resource.k8s.io", "v1alpha3", "DeviceTaintRule")?.key).toBe("resource/v1alpha3.DeviceTaintRule");
    expect(kindInfo("example.com", "v1", "Widget")).toBeUndefined();
    expect(typeInfo("core/v1.Protocol")).toBeUndefined();
  });

  it("resolves every field's type to a known struct", () => {
    const missing: string[] = [];
    const visit = (where: string, t: ReturnType<typeof parseValueType>) => {
      if (t.kind === "list") visit(where, t.element);
      else if (t.kind === "map") visit(where, t.value);
      else if (t.kind === "struct" && typeInfo(t.type) === undefined) missing.push(`${where} → ${t.type}`);
    };
    for (const key of typeKeys()) for (const f of typeInfo(key)!.fields.values()) visit(`${key}.${f.name}`, f.type);
    expect(missing).toEqual([]);
    expect(typeKeys().length).toBeGreaterThan(1000);
  });
});
