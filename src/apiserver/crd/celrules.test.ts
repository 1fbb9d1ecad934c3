/**
 * x-kubernetes-validations semantics and cost limits, as upstream's schema/cel validation_test.go
 * and apiextensions validation_test.go check them: rule typing from the schema, transition
 * rules, messages and reasons, field paths, list-type semantics, ratcheting, and the estimated
 * and runtime cost limits with their messages.
 */
import { describe, expect, it } from "vitest";
import type { Schema } from "./schema.js";
import { compileRule, compileRules, validateRuleDefinitions, validateRules, type ValidationRule } from "./celrules.js";
import { schemaDeclType } from "../cel/schema.js";

const root = (spec: Schema): Schema => ({ type: "object", properties: { spec } });
const withRules = (s: Schema, ...rules: ValidationRule[]): Schema => ({ ...s, "x-kubernetes-validations": rules });

function errorsOf(schema: Schema, obj: unknown, old?: unknown): string[] {
  const tree = compileRules(schema);
  if (!tree) return [];
  return validateRules(tree, obj, old).errors.map(String);
}

describe("rule evaluation", () => {
  const table: { name: string; schema: Schema; obj: unknown; old?: unknown; want: string[] }[] = [
    {
      name: "message, default message and the <nil> root",
      schema: withRules(root({ type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, "x-kubernetes-validations": [{ rule: "self.a > 1", message: "a must be > 1" }, { rule: "self.a > 2" }] }), {
        rule: "has(self.spec.b)",
      }),
      obj: { spec: { a: 1 } },
      want: [`<nil>: Invalid value: "object": failed rule: has(self.spec.b)`, `spec: Invalid value: "object": a must be > 1`, `spec: Invalid value: "object": failed rule: self.a > 2`],
    },
    {
      name: "messageExpression, with fallback when it is empty",
      schema: root(
        withRules({ type: "object", properties: { n: { type: "string" } } }, { rule: "self.n == 'x'", messageExpression: "'n is ' + self.n" }, { rule: "self.n == 'x'", message: "fallback", messageExpression: "''" }),
      ),
      obj: { spec: { n: "y" } },
      want: [`spec: Invalid value: "object": n is y`, `spec: Invalid value: "object": fallback`],
    },
    {
      name: "reason and fieldPath",
      schema: root(
        withRules(
          { type: "object", properties: { x: { type: "string" }, m: { type: "object", additionalProperties: { type: "string" } } } },
          { rule: "false", message: "f", reason: "FieldValueForbidden", fieldPath: ".x" },
          { rule: "false", message: "r", reason: "FieldValueRequired", fieldPath: ".m['k.1']" },
          { rule: "false", reason: "FieldValueDuplicate" },
        ),
      ),
      obj: { spec: { x: "a", m: {} } },
      want: [`spec.x: Forbidden: f`, `spec.m[k.1]: Required value: r`, `spec: Duplicate value: "object"`],
    },
    {
      name: "escaped property names",
      schema: root(
        withRules(
          { type: "object", properties: { "x-y": { type: "integer" }, namespace: { type: "integer" }, "a.b": { type: "integer" }, "c/d": { type: "integer" }, e__f: { type: "integer" } } },
          { rule: "self.x__dash__y + self.__namespace__ + self.a__dot__b + self.c__slash__d + self.e__underscores__f == 15", message: "sum" },
        ),
      ),
      obj: { spec: { "x-y": 1, namespace: 2, "a.b": 3, "c/d": 4, e__f: 6 } },
      want: [`spec: Invalid value: "object": sum`],
    },
    {
      name: "int-or-string is dyn; runtime overload errors are reported as upstream",
      schema: root({ type: "object", properties: { p: { "x-kubernetes-int-or-string": true, "x-kubernetes-validations": [{ rule: "self > 10" }] } } }),
      obj: { spec: { p: "50%" } },
      want: [`spec.p: Invalid value: "": 'no such overload': call arguments did not match a supported operator, function or macro signature for rule: self > 10`],
    },
    {
      name: "runtime errors name the rule",
      schema: root({ type: "object", properties: { m: { type: "object", additionalProperties: { type: "integer" }, "x-kubernetes-validations": [{ rule: "self['k'] == 1" }] } } }),
      obj: { spec: { m: { j: 1 } } },
      want: [`spec.m: Invalid value: "object": no such key: k evaluating rule: self['k'] == 1`],
    },
    {
      name: "list-type set: equality ignores order",
      schema: root(
        withRules({ type: "object", properties: { a: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" }, b: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "set" } } }, { rule: "self.a == self.b", message: "differ" }),
      ),
      obj: { spec: { a: ["x", "y"], b: ["y", "x"] } },
      want: [],
    },
    {
      name: "list-type set: + is a union",
      schema: root(withRules({ type: "object", properties: { a: { type: "array", items: { type: "integer" }, "x-kubernetes-list-type": "set" } } }, { rule: "(self.a + [2, 3]).size() == 3", message: "union" })),
      obj: { spec: { a: [1, 2] } },
      want: [],
    },
    {
      name: "list-type map: equality ignores order, + merges by key (same-typed lists)",
      schema: root({
        type: "object",
        properties: {
          a: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["k"],
            items: { type: "object", required: ["k"], properties: { k: { type: "string" }, v: { type: "integer" } } },
            "x-kubernetes-validations": [
              { rule: "self == oldSelf", message: "reordered lists are equal" },
              { rule: "(self + oldSelf).size() == 2", message: "merged by key" },
            ],
          },
        },
      }),
      obj: { spec: { a: [{ k: "x", v: 1 }, { k: "y", v: 2 }] } },
      old: { spec: { a: [{ k: "y", v: 2 }, { k: "x", v: 1 }] } },
      want: [],
    },
    {
      name: "objects from different places of the schema are different types",
      schema: root(
        withRules(
          { type: "object", properties: { a: { type: "object", properties: { n: { type: "integer" } } }, b: { type: "object", properties: { n: { type: "integer" } } } } },
          { rule: "self.a == self.b" },
        ),
      ),
      obj: { spec: { a: { n: 1 }, b: { n: 1 } } },
      want: [
        `spec: Invalid value: "object": rule compile error: compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(${"$"}{A}, ${"$"}{B})'`,
      ],
    },
    {
      name: "embedded resources expose apiVersion, kind and metadata.name",
      schema: root({
        type: "object",
        properties: {
          tmpl: {
            type: "object",
            "x-kubernetes-embedded-resource": true,
            "x-kubernetes-preserve-unknown-fields": true,
            "x-kubernetes-validations": [{ rule: "self.kind == 'Pod' && self.metadata.name.startsWith('p')", message: "pods only" }],
          },
        },
      }),
      obj: { spec: { tmpl: { apiVersion: "v1", kind: "Service", metadata: { name: "svc" } } } },
      want: [`spec.tmpl: Invalid value: "object": pods only`],
    },
    {
      name: "formats: date-time is a timestamp, duration a duration, byte bytes",
      schema: root(
        withRules(
          { type: "object", properties: { t: { type: "string", format: "date-time" }, d: { type: "string", format: "duration" }, b: { type: "string", format: "byte" } } },
          { rule: "self.t < timestamp('2000-01-01T00:00:00Z') && self.d > duration('1m') && self.b == b'hi'", message: "typed" },
        ),
      ),
      obj: { spec: { t: "1999-12-31T23:59:59Z", d: "90s", b: "aGk=" } },
      want: [],
    },
  ];
  for (const c of table) {
    it(c.name, () => {
      const got = errorsOf(c.schema, c.obj, c.old);
      if (c.name.startsWith("objects from different places")) {
        // The generated self type name changes with every compilation (selfType<N>), as upstream's.
        expect(got).toHaveLength(1);
        expect(got[0]).toMatch(/found no matching overload for '_==_' applied to '\(selfType\d+\.spec\.a, selfType\d+\.spec\.b\)'/);
      } else expect(got).toEqual(c.want);
    });
  }
});

describe("transition rules", () => {
  const schema = root({
    type: "object",
    properties: {
      fixed: { type: "string", "x-kubernetes-validations": [{ rule: "self == oldSelf", message: "fixed is immutable" }] },
      grow: { type: "integer", "x-kubernetes-validations": [{ rule: "!oldSelf.hasValue() || self >= oldSelf.value()", message: "may not shrink", optionalOldSelf: true }, { rule: "self > 0", message: "positive" }] },
      items: {
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", required: ["name"], properties: { name: { type: "string" }, v: { type: "integer" } }, "x-kubernetes-validations": [{ rule: "self.v >= oldSelf.v", message: "v may not decrease" }] },
      },
    },
  });

  it("are skipped on create, and where no old value correlates", () => {
    expect(errorsOf(schema, { spec: { fixed: "a", grow: 1, items: [{ name: "x", v: 1 }] } })).toEqual([]);
    expect(errorsOf(schema, { spec: { fixed: "a", items: [{ name: "new", v: 0 }] } }, { spec: { items: [{ name: "x", v: 5 }] } })).toEqual([]);
  });

  it("compare with the old value on update; map-list items correlate by key", () => {
    expect(errorsOf(schema, { spec: { fixed: "b", grow: 1, items: [{ name: "x", v: 0 }] } }, { spec: { fixed: "a", grow: 5, items: [{ name: "x", v: 5 }] } })).toEqual([
      `spec.fixed: Invalid value: "string": fixed is immutable`,
      `spec.grow: Invalid value: "integer": may not shrink`,
      `spec.items[0]: Invalid value: "object": v may not decrease`,
    ]);
  });

  it("ratchet: an unchanged invalid value is a warning, not an error", () => {
    const tree = compileRules(schema)!;
    const r = validateRules(tree, { spec: { fixed: "a", grow: -1 } }, { spec: { fixed: "a", grow: -1 } });
    expect(r.errors.map(String)).toEqual([]);
    expect(r.warnings).toEqual([`spec.grow: Invalid value: "integer": positive`]);
    const changed = validateRules(tree, { spec: { fixed: "a", grow: -2 } }, { spec: { fixed: "a", grow: -1 } });
    expect(changed.errors.map(String)).toEqual([`spec.grow: Invalid value: "integer": may not shrink`, `spec.grow: Invalid value: "integer": positive`]);
  });
});

describe("estimated cost", () => {
  it("prices a rule from the schema's maxItems and maxLength as cel-go does", () => {
    const list: Schema = { type: "array", maxItems: 10, items: { type: "string", maxLength: 5 } };
    const decl = schemaDeclType(list, false)!;
    expect(compileRule({ rule: "self.all(x, x == 'a')" }, decl, list).maxCost).toBe(52);
    expect(compileRule({ rule: "self.size() > 1" }, decl, list).maxCost).toBe(3);
    const str: Schema = { type: "string", maxLength: 10 };
    // matches: ceil((40 + 1) * 0.1) * ceil(3 * 0.25) + 1 (self) = 5 * 1 + 1
    expect(compileRule({ rule: "self.matches('^a')" }, schemaDeclType(str, false)!, str).maxCost).toBe(6);
  });

  const P = "spec.validation.openAPIV3Schema";
  it("refuses a rule whose estimate exceeds the per-rule budget", () => {
    const s = root({
      type: "object",
      properties: { l: { type: "array", items: { type: "string" }, "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x == y))" }] } },
    });
    const hint = "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    expect(validateRuleDefinitions(s, P, () => false).map(String)).toEqual([
      `${P}.properties[spec].properties[l].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${hint}`,
      // One rule that expensive also exceeds the budget of the whole schema.
      `${P}.properties[spec].properties[l].x-kubernetes-validations[0].rule: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `${P}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${hint}`,
    ]);
  });

  it("multiplies by the cardinality of enclosing lists", () => {
    const inner = (maxItems: number): Schema => ({
      type: "array",
      maxItems,
      items: { type: "object", properties: { s: { type: "string", maxLength: 1000 } }, "x-kubernetes-validations": [{ rule: "self.s.matches('^[a-z]+$')" }] },
    });
    expect(validateRuleDefinitions(root({ type: "object", properties: { l: inner(100) } }), P, () => false)).toEqual([]);
    const errs = validateRuleDefinitions(root({ type: "object", properties: { l: inner(100_000) } }), P, () => false).map(String);
    expect(errs[0]).toMatch(/x-kubernetes-validations\[0\]\.rule: Forbidden: estimated rule cost exceeds budget by factor of \d+\.\dx/);
  });

  it("refuses a schema whose rules together exceed the per-CRD budget", () => {
    const props: Record<string, Schema> = {};
    for (let i = 0; i < 30; i++) {
      props[`l${i}`] = { type: "array", maxItems: 5000, items: { type: "string", maxLength: 1000 }, "x-kubernetes-validations": [{ rule: "self.all(x, x.matches('^[a-z]+$'))" }] };
    }
    const errs = validateRuleDefinitions(root({ type: "object", properties: props }), P, () => false).map(String);
    // Every rule is within the per-rule budget; together they are not.
    expect(errs.some((e) => e.includes("estimated rule cost exceeds budget"))).toBe(false);
    expect(errs.filter((e) => e.includes("contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema")).length).toBe(4);
    expect(errs[errs.length - 1]).toMatch(
      new RegExp(`^${P.replace(/\./g, "\\.")}: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of `),
    );
  });

  it("reports compile errors with the rule and cel-go's issue text", () => {
    const s = root({ type: "object", properties: { n: { type: "integer" } }, "x-kubernetes-validations": [{ rule: "self.n == true" }, { rule: "self.n", message: "m" }] });
    expect(validateRuleDefinitions(s, P, () => false).map(String)).toEqual([
      `${P}.properties[spec].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.n == true", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:8: found no matching overload for '_==_' applied to '(int, bool)'\n | self.n == true\n | .......^`,
      `${P}.properties[spec].x-kubernetes-validations[1].rule: Invalid value: apiextensions.ValidationRule{Rule:"self.n", Message:"m", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: cel expression must evaluate to a bool`,
    ]);
  });

  it("refuses oldSelf where values cannot correlate, and optionalOldSelf without oldSelf", () => {
    const s = root({
      type: "object",
      properties: {
        l: { type: "array", maxItems: 10, items: { type: "string", maxLength: 10, "x-kubernetes-validations": [{ rule: "self == oldSelf" }] } },
        n: { type: "integer", "x-kubernetes-validations": [{ rule: "self > 0", optionalOldSelf: true }] },
      },
    });
    expect(validateRuleDefinitions(s, P, () => false).map(String)).toEqual([
      `${P}.properties[spec].properties[l].items.x-kubernetes-validations[0].rule: Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within ${P}.properties[spec].properties[l]`,
      `${P}.properties[spec].properties[n].x-kubernetes-validations[0].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule`,
    ]);
  });
});

describe("runtime cost", () => {
  const big: Schema = root({
    type: "object",
    properties: { l: { type: "array", maxItems: 2000, items: { type: "integer" }, "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x + y > -1))", message: "sum" }] } },
  });

  it("stops a rule at the per-call limit with upstream's message", () => {
    const l = Array.from({ length: 2000 }, (_, i) => i);
    expect(errorsOf(big, { spec: { l } })).toEqual([
      `spec.l: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: sum`,
    ]);
  });

  it("stops when the object's budget is spent", () => {
    const tree = compileRules(big)!;
    const r = validateRules(tree, { spec: { l: Array.from({ length: 50 }, (_, i) => i) } }, undefined, 100);
    expect(r.errors.map(String)).toEqual([`spec.l: Invalid value: "array": validation failed due to running out of cost budget, no further validation rules will be run`]);
    expect(r.remainingBudget).toBeLessThan(0);
  });
});
