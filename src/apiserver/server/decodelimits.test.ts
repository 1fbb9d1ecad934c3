import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { parseJSON, parseYAML } from "./body.js";
import { checkJSONDepth, checkValueBounds, jsonNestingDepth, maxNestingDepth, NestingTooDeepError, parseYAMLBounded, yamlNesting } from "./decodelimits.js";

const nestedArrays = (n: number) => "[".repeat(n) + "]".repeat(n);
const nestedObjects = (n: number) => '{"a":'.repeat(n) + "1" + "}".repeat(n);

describe("jsonNestingDepth", () => {
  it.each([
    ["1", 0],
    ["{}", 1],
    ["[[],[[]]]", 3],
    ['{"a":"[[[[{{{{"}', 1],
    ['{"a":"\\"[[["}', 1],
    ['{"a\\\\":[1]}', 2],
    ['["\\\\\\"[["]', 1],
    [nestedArrays(7), 7],
    [nestedObjects(12), 12],
  ])("%s → %i", (text, depth) => {
    expect(jsonNestingDepth(text)).toBe(depth);
    expect(jsonNestingDepth(Buffer.from(text))).toBe(depth);
  });

  it("stops counting past the limit", () => {
    expect(jsonNestingDepth(nestedArrays(100_000), 10)).toBe(11);
  });

  it("accepts the limit and refuses one more", () => {
    expect(() => checkJSONDepth(nestedArrays(maxNestingDepth))).not.toThrow();
    expect(() => checkJSONDepth(nestedArrays(maxNestingDepth + 1))).toThrow(NestingTooDeepError);
  });
});

describe("parseJSON", () => {
  it("answers 400 for documents nested past the limit, before parsing them", () => {
    const err = (() => {
      try {
        parseJSON(Buffer.from(`{"data":${nestedArrays(100_000)}}`));
      } catch (e) {
        return e;
      }
    })() as StatusError;
    expect(err).toBeInstanceOf(StatusError);
    expect(err.status).toMatchObject({ code: 400, reason: "BadRequest", message: `couldn't get version/kind; json parse error: exceeded max depth of ${maxNestingDepth}` });
  });
});

describe("YAML", () => {
  it.each([
    ["a: 1", 1],
    ["a: [1, [2, [3]]]", 4],
    ["- - - - x", 4],
    ["a:\n  b:\n    c: [1]", 4],
    ["? [a, [b]]\n: 1", 3],
    ["a: '[[[['\nb: \"{{{\"", 1],
    ["a:\n- x\n- [y]\nb: 1", 3],
    ["a:\n  - b:\n    - c\n", 4],
    ["a: |\n  [[[[\n    {{{{\nb: 2", 1],
    ["x: >\n  - - - -\n", 1],
    ["- a\n- b\n---\n- - c", 2],
    ["k: \"multi\n  [[ line\"\nj: 1", 1],
    ["# [[[[\na: 1 # {{{{", 1],
  ])("%j nests %i deep (bounded from above, by one at most)", (text, depth) => {
    const bound = yamlNesting(text).depth;
    expect(bound).toBeGreaterThanOrEqual(depth);
    expect(bound).toBeLessThanOrEqual(depth + 1);
  });

  it("bounds the nesting of realistic documents from above", () => {
    const doc = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "metadata:",
      "  name: web",
      "  labels: {app: web}",
      "spec:",
      "  template:",
      "    spec:",
      "      containers:",
      "      - name: c",
      "        args: [--a, --b]",
      "        env:",
      "        - name: X",
      "          valueFrom:",
      "            configMapKeyRef: {name: cm, key: k}",
    ].join("\n");
    // spec.template.spec.containers[0].env[0].valueFrom.configMapKeyRef: 9 levels.
    expect(yamlNesting(doc).depth).toBeGreaterThanOrEqual(9);
    expect(yamlNesting(doc).depth).toBeLessThanOrEqual(12);
  });

  it.each([
    ["flow sequences", `a: ${nestedArrays(100_000)}`],
    ["flow mappings", `a: ${"{a: ".repeat(50_000)}1${"}".repeat(50_000)}`],
    ["compact block sequences", `a:\n  ${"- ".repeat(100_000)}x`],
    ["block mappings", Array.from({ length: maxNestingDepth + 5 }, (_, i) => `${" ".repeat(i)}a:`).join("\n") + " 1"],
  ])("refuses deep %s with a 400 before composing them", (_, text) => {
    expect(() => parseYAMLBounded(text)).toThrow(NestingTooDeepError);
    expect(() => parseYAML(text)).toThrow(/^error converting YAML to JSON: yaml: exceeded max depth of 500$/);
  });

  it("refuses documents whose aliases nest past the limit", () => {
    const half = maxNestingDepth - 10;
    const text = `a: &x ${nestedArrays(half)}\nb: ${"[".repeat(half)}*x${"]".repeat(half)}`;
    expect(yamlNesting(text).depth).toBeLessThanOrEqual(maxNestingDepth);
    expect(() => parseYAMLBounded(text)).toThrow(NestingTooDeepError);
  });

  it("refuses alias bombs", () => {
    const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
    for (let i = 1; i < 12; i++) lines.push(`a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(", ")}]`);
    expect(() => parseYAML(lines.join("\n"))).toThrow(StatusError);
  });

  it("gives every alias its own copy of the value", () => {
    const v = parseYAMLBounded("a: &x {k: [1]}\nb: *x") as { a: { k: number[] }; b: { k: number[] } };
    expect(v).toEqual({ a: { k: [1] }, b: { k: [1] } });
    expect(v.a).not.toBe(v.b);
    expect(v.a.k).not.toBe(v.b.k);
  });
});

describe("checkValueBounds", () => {
  it("walks without recursion and stops at the depth limit", () => {
    let deep: unknown[] = [];
    const root = deep;
    for (let i = 0; i < 50_000; i++) {
      const next: unknown[] = [];
      deep.push(next);
      deep = next;
    }
    expect(() => checkValueBounds(root)).toThrow(NestingTooDeepError);
  });

  it("counts shared values every time they appear and so ends on cycles", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => checkValueBounds(cyclic, 10_000_000, 1000)).toThrow(StatusError);
    expect(() => checkValueBounds({ a: [1, 2, { b: "c" }] })).not.toThrow();
  });
});
