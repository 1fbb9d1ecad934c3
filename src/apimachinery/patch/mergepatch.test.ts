import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyMergePatch, createMergePatch } from "./mergepatch.js";

// RFC 7386 Appendix A.
const rfcExamples: [unknown, unknown, unknown][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe("applyMergePatch (RFC 7386 appendix A)", () => {
  rfcExamples.forEach(([original, patch, result], i) => {
    it(`example ${i + 1}: ${JSON.stringify(patch)}`, () => {
      expect(applyMergePatch(original, patch)).toEqual(result);
    });
  });

  it("labels and annotations the way kubectl label/annotate sends them", () => {
    const obj = { metadata: { name: "x", labels: { a: "1", b: "2" }, annotations: { keep: "y" } }, spec: { replicas: 1 } };
    const patch = { metadata: { labels: { a: null, c: "3" } } };
    expect(applyMergePatch(obj, patch)).toEqual({ metadata: { name: "x", labels: { b: "2", c: "3" }, annotations: { keep: "y" } }, spec: { replicas: 1 } });
  });

  it("never mutates its inputs nor shares structure with them", () => {
    const original = { a: { b: [1, 2] }, c: "x" };
    const patch = { a: { d: { e: 1 } }, f: [{ g: 1 }] };
    const o = JSON.stringify(original);
    const p = JSON.stringify(patch);
    const out = applyMergePatch(original, patch) as { a: { b: number[]; d: { e: number } }; f: { g: number }[] };
    expect(JSON.stringify(original)).toBe(o);
    expect(JSON.stringify(patch)).toBe(p);
    out.a.b.push(3);
    out.a.d.e = 2;
    out.f[0].g = 2;
    expect(JSON.stringify(original)).toBe(o);
    expect(JSON.stringify(patch)).toBe(p);
  });

  it("treats __proto__ as an ordinary key", () => {
    const patch = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    const out = applyMergePatch({}, patch) as Record<string, unknown>;
    expect(Object.prototype.hasOwnProperty.call(out, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe("createMergePatch", () => {
  const table: [string, unknown, unknown, unknown][] = [
    ["no change", { a: 1, b: { c: 2 } }, { a: 1, b: { c: 2 } }, {}],
    ["add and change", { a: 1 }, { a: 2, b: 3 }, { a: 2, b: 3 }],
    ["delete", { a: 1, b: 2 }, { a: 1 }, { b: null }],
    ["nested", { a: { b: 1, c: 2 } }, { a: { b: 1, c: 3, d: 4 } }, { a: { c: 3, d: 4 } }],
    ["nested delete", { a: { b: 1, c: 2 } }, { a: { b: 1 } }, { a: { c: null } }],
    ["arrays are replaced", { a: [1, 2] }, { a: [1, 2, 3] }, { a: [1, 2, 3] }],
    ["object to scalar", { a: { b: 1 } }, { a: 1 }, { a: 1 }],
    ["non-object modified", { a: 1 }, [1], [1]],
  ];
  for (const [name, original, modified, patch] of table) {
    it(name, () => {
      expect(createMergePatch(original, modified)).toEqual(patch);
      expect(applyMergePatch(original, createMergePatch(original, modified))).toEqual(modified);
    });
  }
});

/** JSON values without nulls (merge patch cannot express "set to null"). */
const jsonNoNull: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 4 }),
    fc.integer(),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 3 }), tie("value"), { maxKeys: 4 }),
  ),
})).value;

const objectNoNull = fc.dictionary(fc.string({ maxLength: 3 }), jsonNoNull, { maxKeys: 5 });

describe("merge patch laws (fast-check)", () => {
  it("applyMergePatch(a, createMergePatch(a, b)) equals b for JSON without nulls", () => {
    fc.assert(
      fc.property(objectNoNull, objectNoNull, (a, b) => {
        expect(applyMergePatch(a, createMergePatch(a, b))).toEqual(b);
      }),
      { numRuns: 2000 },
    );
  });

  it("the round trip holds for any JSON values without nulls (non-objects replace)", () => {
    fc.assert(
      fc.property(jsonNoNull, jsonNoNull, (a, b) => {
        expect(applyMergePatch(a, createMergePatch(a, b))).toEqual(b);
      }),
      { numRuns: 1000 },
    );
  });

  it("applying the same patch twice is idempotent", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, p) => {
        const once = applyMergePatch(a, p);
        expect(applyMergePatch(once, p)).toEqual(once);
      }),
      { numRuns: 2000 },
    );
  });

  it("createMergePatch(a, a) is empty", () => {
    fc.assert(
      fc.property(objectNoNull, (a) => {
        expect(createMergePatch(a, a)).toEqual({});
      }),
      { numRuns: 500 },
    );
  });

  it("never mutates inputs", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, p) => {
        const sa = JSON.stringify(a);
        const sp = JSON.stringify(p);
        applyMergePatch(a, p);
        createMergePatch(a, p);
        expect(JSON.stringify(a)).toBe(sa);
        expect(JSON.stringify(p)).toBe(sp);
      }),
      { numRuns: 1000 },
    );
  });
});
