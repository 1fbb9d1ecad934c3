import type { ObjectMeta } from "../../apimachinery/api/meta/v1.js";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ResourceDescriptor } from "../../apimachinery/resource.js";
import { defineCustomResource, InvalidCustomResourceError, type CustomResourceObject } from "./customresource.js";
import { InvalidSchemaError, k, type JSONSchemaProps, type TypeOf } from "./schema.js";

describe("k: schema builders", () => {
  const cases: { name: string; field: { schema: Readonly<JSONSchemaProps> }; want: JSONSchemaProps }[] = [
    { name: "string with bounds", field: k.string({ minLength: 1, maxLength: 5, pattern: "^a" }), want: { type: "string", minLength: 1, maxLength: 5, pattern: "^a" } },
    { name: "enum with default", field: k.enum(["A", "B"], { default: "A" }), want: { type: "string", enum: ["A", "B"], default: "A" } },
    { name: "date-time", field: k.dateTime(), want: { type: "string", format: "date-time" } },
    { name: "int32 bounds", field: k.integer({ format: "int32", minimum: 0, maximum: 9, default: 3 }), want: { type: "integer", format: "int32", minimum: 0, maximum: 9, default: 3 } },
    { name: "number exclusive", field: k.number({ minimum: 0, exclusiveMinimum: true }), want: { type: "number", minimum: 0, exclusiveMinimum: true } },
    { name: "boolean default", field: k.boolean({ default: false }), want: { type: "boolean", default: false } },
    {
      name: "int-or-string",
      field: k.intOrString({ default: "25%" }),
      want: { anyOf: [{ type: "integer" }, { type: "string" }], "x-kubernetes-int-or-string": true, default: "25%" },
    },
    { name: "preserve-unknown", field: k.preserveUnknown(), want: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    {
      name: "embedded resource",
      field: k.embedded(),
      want: { type: "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true },
    },
    { name: "map", field: k.map(k.string(), { mapType: "atomic" }), want: { type: "object", additionalProperties: { type: "string" }, "x-kubernetes-map-type": "atomic" } },
    {
      name: "object: required are the non-optional properties",
      field: k.object({ a: k.string(), b: k.integer().optional() }, { description: "d" }),
      want: { description: "d", type: "object", required: ["a"], properties: { a: { type: "string" }, b: { type: "integer" } } },
    },
    { name: "object with only optional properties has no required", field: k.object({ a: k.string().optional() }), want: { type: "object", properties: { a: { type: "string" } } } },
    {
      name: "list-type map keyed by a required field",
      field: k.array(k.object({ name: k.string(), port: k.integer().optional() }), { listType: "map", mapKeys: ["name"], maxItems: 8 }),
      want: {
        type: "array",
        maxItems: 8,
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", required: ["name"], properties: { name: { type: "string" }, port: { type: "integer" } } },
      },
    },
    { name: "set", field: k.array(k.string(), { listType: "set" }), want: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } } },
    {
      name: "CEL rules, as strings and objects",
      field: k.integer().validate("self >= 0", { rule: "self % 2 == 0", message: "must be even", reason: "FieldValueInvalid" }),
      want: { type: "integer", "x-kubernetes-validations": [{ rule: "self >= 0" }, { rule: "self % 2 == 0", message: "must be even", reason: "FieldValueInvalid" }] },
    },
    { name: "CEL rules as an option", field: k.string({ validations: ["self != 'x'"] }), want: { type: "string", "x-kubernetes-validations": [{ rule: "self != 'x'" }] } },
    { name: "nullable", field: k.string().nullable(), want: { type: "string", nullable: true } },
    { name: "describe puts the description first", field: k.integer({ minimum: 1 }).describe("n"), want: { description: "n", type: "integer", minimum: 1 } },
    { name: "default()", field: k.string().default("x"), want: { type: "string", default: "x" } },
  ];
  it.each(cases)("$name", ({ field, want }) => {
    expect(field.schema).toEqual(want);
  });

  it("Fields are immutable: modifiers return new Fields, schemas are frozen", () => {
    const s = k.string();
    const d = s.describe("x");
    expect(s.schema).toEqual({ type: "string" });
    expect(d.schema.description).toBe("x");
    expect(Object.isFrozen(s.schema)).toBe(true);
    expect(s.optional().isOptional).toBe(true);
    expect(s.isOptional).toBe(false);
  });

  const bad: [string, () => unknown, string][] = [
    ["empty enum", () => k.enum([]), "at least one value"],
    ["enum default not a value", () => k.enum(["A"], { default: "B" as "A" }), 'default "B" is not one of'],
    ["fractional integer default", () => k.integer({ default: 1.5 }), "not an integer"],
    ["minimum above maximum", () => k.integer({ minimum: 2, maximum: 1 }), "above maximum"],
    ["map list without keys", () => k.array(k.object({ a: k.string() }), { listType: "map" }), "needs mapKeys"],
    ["map key not a property", () => k.array(k.object({ a: k.string() }), { listType: "map", mapKeys: ["b" as "a"] }), 'map key "b" is not a property'],
    ["optional map key without default", () => k.array(k.object({ a: k.string().optional() }), { listType: "map", mapKeys: ["a"] }), "must be required or have a default"],
    ["map key not scalar", () => k.array(k.object({ a: k.object({}) }), { listType: "map", mapKeys: ["a"] }), "must be a scalar"],
    ["set of objects", () => k.array(k.object({ a: k.string() }), { listType: "set" }), "needs scalar items"],
    ["mapKeys without map", () => k.array(k.object({ a: k.string() }), { mapKeys: ["a"] }), 'mapKeys need listType "map"'],
  ];
  it.each(bad)("rejects %s", (_name, make, message) => {
    expect(make).toThrow(InvalidSchemaError);
    expect(make).toThrow(message);
  });

  it("infers the TS type", () => {
    const _f = k.object({
      name: k.string(),
      size: k.integer().optional(),
      mode: k.enum(["a", "b"]),
      port: k.intOrString().optional(),
      tags: k.array(k.string()).optional(),
      labels: k.map(k.string()).optional(),
      note: k.string().nullable().optional(),
    });
    expectTypeOf<TypeOf<typeof _f>>().toEqualTypeOf<{
      name: string;
      mode: "a" | "b";
      size?: number;
      port?: number | string;
      tags?: string[];
      labels?: Record<string, string>;
      note?: string | null;
    }>();
  });
});

describe("defineCustomResource", () => {
  const widgets = defineCustomResource({
    group: "example.com",
    scope: "Namespaced",
    names: { kind: "Widget", plural: "widgets", shortNames: ["wd"], categories: ["all"] },
    labels: { team: "a" },
    versions: {
      v1: {
        storage: true,
        description: "A widget.",
        spec: k.object({ replicas: k.integer({ format: "int32", default: 1 }).optional(), size: k.string() }),
        status: k.object({ replicas: k.integer().optional(), selector: k.string().optional() }).optional(),
        validations: [{ rule: "self.metadata.name.size() < 20", message: "short names only" }],
        subresources: { status: true, scale: { specReplicasPath: ".spec.replicas", statusReplicasPath: ".status.replicas", labelSelectorPath: ".status.selector" } },
        printerColumns: [{ name: "Size", type: "string", jsonPath: ".spec.size" }],
        selectableFields: [".spec.size"],
      },
      v1beta1: { served: true, spec: k.object({ size: k.string().optional() }).optional(), deprecated: true, deprecationWarning: "use v1" },
    },
  });
  // Multi-version: exactly one storage version is required.
  const single = defineCustomResource({ group: "example.com", scope: "Cluster", names: { kind: "Gadget", plural: "gadgets" }, versions: { v1: { spec: k.object({ a: k.string() }) } } });

  it("gives the manifest", () => {
    expect(() => widgets.manifest()).not.toThrow();
    const m = widgets.manifest();
    expect(m.metadata).toEqual({ name: "widgets.example.com", labels: { team: "a" } });
    expect(m.spec.names).toEqual({ plural: "widgets", singular: "widget", kind: "Widget", listKind: "WidgetList", shortNames: ["wd"], categories: ["all"] });
    const [v1, v1beta1] = m.spec.versions;
    expect(v1).toMatchObject({ name: "v1", served: true, storage: true, subresources: { status: {}, scale: { specReplicasPath: ".spec.replicas" } }, selectableFields: [{ jsonPath: ".spec.size" }] });
    expect(v1beta1).toMatchObject({ name: "v1beta1", served: true, storage: false, deprecated: true, deprecationWarning: "use v1" });
    const root = v1.schema.openAPIV3Schema;
    expect(root).toMatchObject({ description: "A widget.", type: "object", required: ["spec"], "x-kubernetes-validations": [{ rule: "self.metadata.name.size() < 20", message: "short names only" }] });
    expect(Object.keys(root.properties ?? {})).toEqual(["apiVersion", "kind", "metadata", "spec", "status"]);
    expect(v1beta1.schema.openAPIV3Schema.required).toBeUndefined();
    expect(m.spec.versions).toHaveLength(2);
    expect(widgets.manifest()).not.toBe(m);
  });

  it("gives typed descriptors", () => {
    expect(widgets.resource).toEqual({ group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true });
    expect(widgets.version("v1beta1").version).toBe("v1beta1");
    expect(single.resource.namespaced).toBe(false);
    expect(single.storageVersion).toBe("v1");
    type Gadget = CustomResourceObject<typeof single>;
    expectTypeOf<Gadget["spec"]>().toEqualTypeOf<{ a: string }>();
    // The storage version types the main descriptor; version(name) types another.
    expectTypeOf<CustomResourceObject<typeof widgets>["spec"]>().toEqualTypeOf<{ size: string; replicas?: number }>();
    expectTypeOf<ReturnType<typeof widgets.version<"v1beta1">>>().toEqualTypeOf<ResourceDescriptor<{ apiVersion?: string; kind?: string; metadata?: ObjectMeta } & { spec?: { size?: string } } & object>>();
  });

  const crd = (over: Record<string, unknown>) => () =>
    defineCustomResource({ group: "example.com", scope: "Namespaced", names: { kind: "Thing", plural: "things" }, versions: { v1: { spec: k.object({ n: k.integer() }) } }, ...over } as never);
  const bad: [string, () => unknown, string][] = [
    ["group without a dot", crd({ group: "example" }), "DNS subdomain with at least one dot"],
    ["lower-case kind", crd({ names: { kind: "thing", plural: "things" } }), "UpperCamelCase"],
    ["upper-case plural", crd({ names: { kind: "Thing", plural: "Things" } }), "lower-case DNS label"],
    ["no versions", crd({ versions: {} }), "at least one version"],
    ["two storage versions", crd({ versions: { v1: { storage: true, spec: k.object({}) }, v2: { storage: true, spec: k.object({}) } } }), "exactly one version must have storage"],
    ["printer column on an undeclared path", crd({ versions: { v1: { spec: k.object({}), printerColumns: [{ name: "X", type: "string", jsonPath: ".spec.nope" }] } } }), "does not declare"],
    [
      "scale path not an integer",
      crd({ versions: { v1: { spec: k.object({ r: k.string() }), status: k.object({ r: k.integer() }), subresources: { scale: { specReplicasPath: ".spec.r", statusReplicasPath: ".status.r" } } } } }),
      "must name an integer under .spec",
    ],
    ["status subresource without status", crd({ versions: { v1: { spec: k.object({}), subresources: { status: true } } } }), "needs a status schema"],
    ["bad version name", crd({ versions: { V1: { spec: k.object({}) } } }), 'version "V1"'],
  ];
  it.each(bad)("rejects %s", (_name, make, message) => {
    expect(make).toThrow(InvalidCustomResourceError);
    expect(make).toThrow(message);
  });
});
