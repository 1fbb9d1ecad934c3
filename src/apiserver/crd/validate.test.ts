import { describe, expect, it } from "vitest";
import { validateValue } from "./validate.js";
import { goFloat, type Schema } from "./schema.js";

const obj = (spec: Schema): Schema => ({ type: "object", properties: { spec: { type: "object", ...spec } } });
const msgs = (value: unknown, schema: Schema, old?: unknown) => validateValue(value, schema, old === undefined ? {} : { old }).map((e) => e.toString());

// Messages are kube-openapi's (validate/*.go, errors/schema.go) as mapped by
// apiextensions-apiserver's kubeOpenAPIResultToFieldErrors.
const cases: { name: string; schema: Schema; spec: unknown; want: string[] }[] = [
  {
    name: "type mismatch",
    schema: obj({ properties: { replicas: { type: "integer" } } }),
    spec: { replicas: "3" },
    want: ['spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"'],
  },
  {
    name: "float for integer",
    schema: obj({ properties: { replicas: { type: "integer" } } }),
    spec: { replicas: 1.5 },
    want: ['spec.replicas: Invalid value: "number": spec.replicas in body must be of type integer: "number"'],
  },
  { name: "integer for number", schema: obj({ properties: { f: { type: "number" } } }), spec: { f: 2 }, want: [] },
  {
    name: "null for a non-nullable field",
    schema: obj({ properties: { s: { type: "string" } } }),
    spec: { s: null },
    want: ['spec.s: Invalid value: "null": spec.s in body must be of type string: "null"'],
  },
  { name: "null for a nullable field", schema: obj({ properties: { s: { type: "string", nullable: true } } }), spec: { s: null }, want: [] },
  { name: "required", schema: obj({ required: ["name"], properties: { name: { type: "string" } } }), spec: {}, want: ["spec.name: Required value"] },
  {
    name: "enum of strings",
    schema: obj({ properties: { color: { type: "string", enum: ["red", "blue"] } } }),
    spec: { color: "pink" },
    want: ['spec.color: Unsupported value: "pink": supported values: "red", "blue"'],
  },
  {
    name: "enum of numbers",
    schema: obj({ properties: { n: { type: "integer", enum: [1, 2] } } }),
    spec: { n: 3 },
    want: ['spec.n: Unsupported value: 3: supported values: "1", "2"'],
  },
  {
    name: "minimum",
    schema: obj({ properties: { r: { type: "integer", minimum: 0 } } }),
    spec: { r: -1 },
    want: ["spec.r: Invalid value: -1: spec.r in body should be greater than or equal to 0"],
  },
  {
    name: "exclusiveMinimum",
    schema: obj({ properties: { r: { type: "integer", minimum: 0, exclusiveMinimum: true } } }),
    spec: { r: 0 },
    want: ["spec.r: Invalid value: 0: spec.r in body should be greater than 0"],
  },
  {
    name: "maximum",
    schema: obj({ properties: { size: { type: "integer", maximum: 10 } } }),
    spec: { size: 20 },
    want: ["spec.size: Invalid value: 20: spec.size in body should be less than or equal to 10"],
  },
  {
    name: "exclusiveMaximum with a float bound",
    schema: obj({ properties: { f: { type: "number", maximum: 0.5, exclusiveMaximum: true } } }),
    spec: { f: 0.75 },
    want: ["spec.f: Invalid value: 0.75: spec.f in body should be less than 0.5"],
  },
  {
    name: "multipleOf",
    schema: obj({ properties: { n: { type: "integer", multipleOf: 5 } } }),
    spec: { n: 7 },
    want: ["spec.n: Invalid value: 7: spec.n in body should be a multiple of 5"],
  },
  {
    name: "pattern",
    schema: obj({ properties: { name: { type: "string", pattern: "^[a-z]+$" } } }),
    spec: { name: "ABC" },
    want: ["spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'"],
  },
  {
    name: "minLength",
    schema: obj({ properties: { name: { type: "string", minLength: 2 } } }),
    spec: { name: "a" },
    want: ['spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long'],
  },
  {
    name: "maxLength counts characters",
    schema: obj({ properties: { name: { type: "string", maxLength: 3 } } }),
    spec: { name: "abcd" },
    want: ["spec.name: Too long: may not be more than 3 bytes"],
  },
  { name: "maxLength and multi-byte characters", schema: obj({ properties: { name: { type: "string", maxLength: 3 } } }), spec: { name: "äöü" }, want: [] },
  {
    name: "minItems",
    schema: obj({ properties: { list: { type: "array", minItems: 2, items: { type: "string" } } } }),
    spec: { list: ["a"] },
    want: ["spec.list: Invalid value: 1: spec.list in body should have at least 2 items"],
  },
  {
    name: "maxItems",
    schema: obj({ properties: { list: { type: "array", maxItems: 2, items: { type: "string" } } } }),
    spec: { list: ["a", "b", "c"] },
    want: ["spec.list: Too many: 3: must have at most 2 items"],
  },
  {
    name: "uniqueItems",
    schema: obj({ properties: { list: { type: "array", uniqueItems: true, items: { type: "string" } } } }),
    spec: { list: ["a", "a"] },
    want: ['spec.list: Invalid value: "": spec.list in body shouldn\'t contain duplicates'],
  },
  {
    name: "minProperties",
    schema: obj({ properties: { m: { type: "object", minProperties: 2, additionalProperties: { type: "string" } } } }),
    spec: { m: { a: "x" } },
    want: ["spec.m: Invalid value: 1: spec.m in body should have at least 2 properties"],
  },
  {
    name: "maxProperties",
    schema: obj({ properties: { m: { type: "object", maxProperties: 1, additionalProperties: { type: "string" } } } }),
    spec: { m: { a: "x", b: "y" } },
    want: ["spec.m: Too many: 2: must have at most 1 item"],
  },
  {
    name: "additionalProperties values",
    schema: obj({ properties: { labels: { type: "object", additionalProperties: { type: "string" } } } }),
    spec: { labels: { a: 1 } },
    want: ['spec.labels.a: Invalid value: "integer": spec.labels.a in body must be of type string: "integer"'],
  },
  {
    name: "item paths",
    schema: obj({ properties: { list: { type: "array", items: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } } }),
    spec: { list: [{ name: "a" }, {}] },
    want: ["spec.list[1].name: Required value"],
  },
  {
    name: "date-time format",
    schema: obj({ properties: { when: { type: "string", format: "date-time" } } }),
    spec: { when: "yesterday" },
    want: ['spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"'],
  },
  { name: "valid date-time", schema: obj({ properties: { when: { type: "string", format: "date-time" } } }), spec: { when: "2024-02-29T10:00:00.5+01:00" }, want: [] },
  {
    name: "date format",
    schema: obj({ properties: { d: { type: "string", format: "date" } } }),
    spec: { d: "2023-02-29" },
    want: ['spec.d: Invalid value: "2023-02-29": spec.d in body must be of type date: "2023-02-29"'],
  },
  // kube-apiserver strips int32/int64 (and other unknown) formats from CRD schemas.
  { name: "int32 is not checked", schema: obj({ properties: { n: { type: "integer", format: "int32" } } }), spec: { n: 2 ** 40 }, want: [] },
  {
    name: "int-or-string",
    schema: obj({ properties: { port: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] } } }),
    spec: { port: true },
    want: [
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      ': Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
    ],
  },
  { name: "int-or-string with a string", schema: obj({ properties: { port: { "x-kubernetes-int-or-string": true } } }), spec: { port: "http" }, want: [] },
  {
    name: "oneOf",
    schema: obj({ properties: { v: { type: "integer", oneOf: [{ minimum: 5 }, { maximum: 1 }] } } }),
    spec: { v: 3 },
    want: [
      ': Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found none valid',
      "spec.v: Invalid value: 3: spec.v in body should be greater than or equal to 5",
    ],
  },
  {
    name: "not",
    schema: obj({ properties: { v: { type: "string", not: { enum: ["x"] } } } }),
    spec: { v: "x" },
    want: [': Invalid value: "": "spec.v" must not validate the schema (not)'],
  },
];

describe("validateValue (kube-openapi messages)", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(msgs({ apiVersion: "x/v1", kind: "X", metadata: { name: "a" }, spec: c.spec }, c.schema)).toEqual(c.want);
    });
  }

  it("prefixes errors with the field path of the validated value", () => {
    const errs = validateValue("a", { type: "integer" }, { fieldPath: "spec.versions[0].schema.openAPIV3Schema.properties[x].default" });
    expect(errs.map((e) => e.toString())).toEqual([
      'spec.versions[0].schema.openAPIV3Schema.properties[x].default: Invalid value: "string":  in body must be of type integer: "string"',
    ]);
  });

  it("ratchets unchanged invalid values on update", () => {
    const schema = obj({ properties: { size: { type: "integer", maximum: 10 }, name: { type: "string", maxLength: 3 } } });
    const old = { spec: { size: 20, name: "ok" } };
    expect(msgs({ spec: { size: 20, name: "ab" } }, schema, old)).toEqual([]);
    expect(msgs({ spec: { size: 21, name: "ab" } }, schema, old)).toEqual(["spec.size: Invalid value: 21: spec.size in body should be less than or equal to 10"]);
  });

  it("correlates list-type map items by key when ratcheting", () => {
    const schema = obj({
      properties: {
        ports: {
          type: "array",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: { type: "object", properties: { name: { type: "string" }, port: { type: "integer", maximum: 100 } } },
        },
      },
    });
    const old = { spec: { ports: [{ name: "a", port: 500 }] } };
    expect(msgs({ spec: { ports: [{ name: "b", port: 1 }, { name: "a", port: 500 }] } }, schema, old)).toEqual([]);
    expect(msgs({ spec: { ports: [{ name: "b", port: 500 }] } }, schema, old)).toEqual([
      "spec.ports[0].port: Invalid value: 500: spec.ports[0].port in body should be less than or equal to 100",
    ]);
  });

  it("formats floats as Go's %v", () => {
    expect([goFloat(0.5), goFloat(1e21), goFloat(0.00001), goFloat(123456), goFloat(-2.5e-7)]).toEqual(["0.5", "1e+21", "1e-05", "123456", "-2.5e-07"]);
  });
});
