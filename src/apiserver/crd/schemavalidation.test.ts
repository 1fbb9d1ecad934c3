import { describe, expect, it } from "vitest";
import { validateVersionSchema } from "./schemavalidation.js";
import type { Schema } from "./schema.js";

const P = "spec.versions[0].schema.openAPIV3Schema";
const check = (schema: Schema, statusEnabled = false) =>
  validateVersionSchema({ openAPIV3Schema: schema }, statusEnabled, "spec.versions[0].schema").map((e) => e.toString());
const root = (properties: Record<string, Schema>): Schema => ({ type: "object", properties });

// Paths and messages of apiextensions-apiserver's schema/validation.go and validation.go.
const cases: { name: string; schema: Schema; status?: boolean; want: string[] }[] = [
  {
    name: "a field without type",
    schema: root({ spec: { properties: { a: { type: "string" } } } }),
    want: [`${P}.properties[spec].type: Required value: must not be empty for specified object fields`],
  },
  {
    name: "array items without type",
    schema: root({ list: { type: "array", items: {} } }),
    want: [`${P}.properties[list].items.type: Required value: must not be empty for specified array items`],
  },
  { name: "array without items", schema: root({ list: { type: "array" } }), want: [`${P}.properties[list].items: Required value: must be specified`] },
  { name: "root type", schema: { type: "string" }, want: [`${P}.type: Invalid value: "string": must be object at the root`] },
  {
    name: "structure inside anyOf",
    schema: root({ a: { type: "string", anyOf: [{ type: "string", description: "x" }] } }),
    want: [`${P}.properties[a].anyOf[0].description: Forbidden: must be empty to be structural`, `${P}.properties[a].anyOf[0].type: Forbidden: must be empty to be structural`],
  },
  {
    name: "int-or-string patterns are structural",
    schema: root({
      a: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
      b: { "x-kubernetes-int-or-string": true, allOf: [{ anyOf: [{ type: "integer" }, { type: "string" }] }, { pattern: "^a" }] },
    }),
    want: [],
  },
  {
    name: "a value validation mentioning unspecified fields",
    schema: { type: "object", properties: { spec: { type: "object" } }, anyOf: [{ properties: { other: {} } }] },
    want: [`${P}.properties[other]: Required value: because it is defined in ${P}.anyOf[0].properties[other]`],
  },
  {
    name: "metadata beyond name and generateName",
    schema: root({ metadata: { type: "object", properties: { labels: { type: "object" } } } }),
    want: [`${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`],
  },
  { name: "metadata name restrictions", schema: root({ metadata: { type: "object", properties: { name: { type: "string", maxLength: 10 } } } }), want: [] },
  {
    name: "properties and additionalProperties",
    schema: root({ m: { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } } }),
    want: [`${P}.properties[m].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`],
  },
  { name: "additionalProperties at the root", schema: { type: "object", additionalProperties: { type: "string" } }, want: [`${P}.additionalProperties: Forbidden: must not be used at the root`] },
  {
    name: "uniqueItems",
    schema: root({ l: { type: "array", uniqueItems: true, items: { type: "string" } } }),
    want: [`${P}.properties[l].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`],
  },
  {
    name: "an invalid default",
    schema: root({ spec: { type: "object", properties: { n: { type: "integer", default: "x" } } } }),
    want: [`${P}.properties[spec].properties[n].default: Invalid value: "string":  in body must be of type integer: "string"`],
  },
  {
    name: "an unpruned default",
    schema: root({ spec: { type: "object", default: { a: 1, b: 2 }, properties: { a: { type: "integer" } } } }),
    want: [`${P}.properties[spec].default: Invalid value: {"a":1,"b":2}: must not have unknown fields`],
  },
  {
    name: "a default in metadata",
    schema: root({ metadata: { type: "object", default: {} } }),
    want: [`${P}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
  },
  {
    name: "list-type map without keys",
    schema: root({ l: { type: "array", "x-kubernetes-list-type": "map", items: { type: "object", properties: { name: { type: "string" } } } } }),
    want: [`${P}.properties[l].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`],
  },
  {
    name: "list-map keys neither required nor defaulted",
    schema: root({
      l: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", properties: { name: { type: "string" } } },
      },
    }),
    want: [
      `${P}.properties[l].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
    ],
  },
  {
    name: "an unknown list type",
    schema: root({ l: { type: "array", "x-kubernetes-list-type": "bag", items: { type: "string" } } }),
    want: [`${P}.properties[l].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`],
  },
  {
    name: "embedded resource without properties",
    schema: root({ t: { type: "object", "x-kubernetes-embedded-resource": true } }),
    want: [`${P}.properties[t].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`],
  },
  {
    name: "root fields with the status subresource",
    schema: { type: "object", properties: { spec: { type: "object" } }, enum: [{}] },
    status: true,
    want: [
      `${P}: Invalid value: {"type":"object","properties":{"spec":{"type":"object"}},"enum":[{}]}: only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled`,
    ],
  },
  {
    name: "a CEL rule that does not compile",
    schema: root({ spec: { type: "object", "x-kubernetes-validations": [{ rule: "self.a == 1" }] } }),
    want: [
      `${P}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.a == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'a'\n | self.a == 1\n | ....^`,
    ],
  },
  {
    name: "a CEL rule that compiles",
    schema: root({ spec: { type: "object", properties: { a: { type: "integer" } }, "x-kubernetes-validations": [{ rule: "self.a == 1" }] } }),
    want: [],
  },
  {
    name: "CEL rules are not compiled below schema errors",
    schema: root({ spec: { type: "object", properties: { a: { type: "integer", uniqueItems: true } }, "x-kubernetes-validations": [{ rule: "self.b == 1" }] } }),
    want: [`${P}.properties[spec].properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`],
  },
  {
    name: "a pattern Go cannot compile",
    schema: root({ s: { type: "string", pattern: "^(?=a)" } }),
    want: [`${P}.properties[s].pattern: Invalid value: "^(?=a)": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: \`(?=\``],
  },
];

describe("validateVersionSchema (structural schemas)", () => {
  for (const c of cases) {
    it(c.name, () => {
      expect(check(c.schema, c.status)).toEqual(c.want);
    });
  }
});
