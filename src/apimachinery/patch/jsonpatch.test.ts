import { describe, expect, it } from "vitest";
import { PatchError } from "./errors.js";
import { applyJsonPatch, createJsonPatch } from "./jsonpatch.js";

// RFC 6902 appendix A (success cases).
const rfcExamples: [string, unknown, unknown[], unknown][] = [
  ["A.1 adding an object member", { foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }], { baz: "qux", foo: "bar" }],
  ["A.2 adding an array element", { foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }], { foo: ["bar", "qux", "baz"] }],
  ["A.3 removing an object member", { baz: "qux", foo: "bar" }, [{ op: "remove", path: "/baz" }], { foo: "bar" }],
  ["A.4 removing an array element", { foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }], { foo: ["bar", "baz"] }],
  ["A.5 replacing a value", { baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }], { baz: "boo", foo: "bar" }],
  [
    "A.6 moving a value",
    { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
    [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
    { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
  ],
  ["A.7 moving an array element", { foo: ["all", "grass", "cows", "eat"] }, [{ op: "move", from: "/foo/1", path: "/foo/3" }], { foo: ["all", "cows", "eat", "grass"] }],
  [
    "A.8 testing a value: success",
    { baz: "qux", foo: ["a", 2, "c"] },
    [
      { op: "test", path: "/baz", value: "qux" },
      { op: "test", path: "/foo/1", value: 2 },
    ],
    { baz: "qux", foo: ["a", 2, "c"] },
  ],
  ["A.10 adding a nested member object", { foo: "bar" }, [{ op: "add", path: "/child", value: { grandchild: {} } }], { foo: "bar", child: { grandchild: {} } }],
  ["A.11 ignoring unrecognized elements", { foo: "bar" }, [{ op: "add", path: "/baz", value: "qux", xyz: 123 }], { foo: "bar", baz: "qux" }],
  ["A.14 ~ escape ordering", { "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: 10 }], { "/": 9, "~1": 10 }],
  ["A.16 adding an array value", { foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: ["abc", "def"] }], { foo: ["bar", ["abc", "def"]] }],
  ["copy", { a: { b: 1 } }, [{ op: "copy", from: "/a", path: "/c" }], { a: { b: 1 }, c: { b: 1 } }],
  ["replace the whole document", { a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }], { b: 2 }],
  [
    "kubectl patch --type=json on a Deployment",
    { spec: { replicas: 1, template: { spec: { containers: [{ name: "c", image: "nginx:1" }] } } } },
    [
      { op: "replace", path: "/spec/replicas", value: 3 },
      { op: "replace", path: "/spec/template/spec/containers/0/image", value: "nginx:2" },
    ],
    { spec: { replicas: 3, template: { spec: { containers: [{ name: "c", image: "nginx:2" }] } } } },
  ],
];

describe("applyJsonPatch (RFC 6902 appendix A)", () => {
  for (const [name, doc, ops, expected] of rfcExamples) {
    it(name, () => {
      expect(applyJsonPatch(doc, ops)).toEqual(expected);
    });
  }
});

// Failures: [name, doc, ops, code, message fragment]
const failures: [string, unknown, unknown, number, string][] = [
  ["A.9 testing a value: error", { baz: "qux" }, [{ op: "test", path: "/baz", value: "bar" }], 422, "testing value /baz failed: test failed"],
  ["A.12 adding to a nonexistent target", { foo: "bar" }, [{ op: "add", path: "/baz/bat", value: "qux" }], 422, 'add operation does not apply: doc is missing path: "/baz/bat"'],
  ["A.15 comparing strings and numbers", { "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: "10" }], 422, "test failed"],
  ["remove of a missing key", { a: 1 }, [{ op: "remove", path: "/b" }], 422, "Unable to remove nonexistent key: b: missing value"],
  ["replace of a missing key", { a: 1 }, [{ op: "replace", path: "/b", value: 1 }], 422, "replace operation does not apply: doc is missing key: /b"],
  ["move from a missing path", { a: 1 }, [{ op: "move", from: "/x", path: "/b" }], 422, "doc is missing from path: /x"],
  ["array index out of range", { a: [1] }, [{ op: "add", path: "/a/5", value: 1 }], 422, "index out of range"],
  ["unknown op", { a: 1 }, [{ op: "frobnicate", path: "/a" }], 422, "Unexpected kind: frobnicate"],
  ["missing path", { a: 1 }, [{ op: "add", value: 1 }], 422, 'missing the "path" field'],
  ["missing value", { a: 1 }, [{ op: "add", path: "/b" }], 422, 'missing the "value" field'],
  ["missing from", { a: 1 }, [{ op: "copy", path: "/b" }], 422, 'missing the "from" field'],
  ["operation not an object", { a: 1 }, [42], 422, "operation 0 is not an object"],
  ["body is an object", { a: 1 }, { op: "add", path: "/b", value: 1 }, 400, "json: cannot unmarshal object into Go value of type jsonpatch.Patch"],
  ["prototype pollution", {}, [{ op: "add", path: "/__proto__/polluted", value: true }], 422, "failed"],
  ["second operation fails after the first applied", { a: 1 }, [{ op: "add", path: "/b", value: 2 }, { op: "test", path: "/a", value: 2 }], 422, "testing value /a failed"],
];

describe("applyJsonPatch failures", () => {
  for (const [name, doc, ops, code, message] of failures) {
    it(name, () => {
      let err: unknown;
      try {
        applyJsonPatch(doc, ops);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(PatchError);
      const pe = err as PatchError;
      expect(pe.code).toBe(code);
      expect(pe.patchType).toBe("json");
      expect(pe.message).toContain(message);
    });
  }

  it("rejects more operations than allowed with 413", () => {
    const ops = Array.from({ length: 3 }, (_, i) => ({ op: "add", path: `/k${i}`, value: i }));
    expect(() => applyJsonPatch({}, ops, { maxOperations: 2 })).toThrow(expect.objectContaining({ code: 413 }));
    expect(() => applyJsonPatch({}, ops, { maxOperations: 2 })).toThrow("The allowed maximum operations in a JSON patch is 2, got 3");
  });

  it("caps the accumulated size of copies (evanphx/json-patch's AccumulatedCopySizeLimit)", () => {
    // upstream's table: each copy of `"AAA…"` (49 A's plus quotes) adds 51 bytes.
    const doc = { foo: ["A", "A".repeat(49)] };
    const copy = { op: "copy", path: "/foo/-", from: "/foo/1" };
    expect(applyJsonPatch(doc, [copy, copy], { maxCopyBytes: 102 })).toEqual({ foo: ["A", "A".repeat(49), "A".repeat(49), "A".repeat(49)] });
    expect(() => applyJsonPatch(doc, [copy, copy], { maxCopyBytes: 101 })).toThrow(
      "Unable to complete the copy, the accumulated size increase of copy is 102, exceeding the limit 101",
    );
    // A value copied into itself doubles the document each time: stopped by the default 3 MiB.
    const doubling = Array.from({ length: 60 }, (_, i) => ({ op: "copy", from: "/a", path: `/a/x${i}` }));
    const err = (() => {
      try {
        applyJsonPatch({ a: { v: "x".repeat(100) } }, doubling);
      } catch (e) {
        return e as PatchError;
      }
    })();
    expect(err).toBeInstanceOf(PatchError);
    expect(err!.code).toBe(422);
    expect(err!.operationIndex).toBeLessThan(20);
  });

  it("reports the index of the failing operation", () => {
    try {
      applyJsonPatch({ a: 1 }, [{ op: "add", path: "/b", value: 2 }, { op: "remove", path: "/zz" }]);
      expect.unreachable();
    } catch (e) {
      expect((e as PatchError).operationIndex).toBe(1);
    }
  });
});

describe("applyJsonPatch purity", () => {
  it("never mutates the document or the operations, and shares no structure with them", () => {
    const doc = { a: { b: [1, 2] } };
    const value = { deep: { x: 1 } };
    const ops = [
      { op: "add", path: "/a/b/-", value: 3 },
      { op: "add", path: "/v", value },
      { op: "remove", path: "/a/b/0" },
    ];
    const d = JSON.stringify(doc);
    const o = JSON.stringify(ops);
    const out = applyJsonPatch(doc, ops) as { v: { deep: { x: number } } };
    expect(out).toEqual({ a: { b: [2, 3] }, v: { deep: { x: 1 } } });
    expect(JSON.stringify(doc)).toBe(d);
    expect(JSON.stringify(ops)).toBe(o);
    out.v.deep.x = 2;
    expect(value.deep.x).toBe(1);
  });

  it("leaves the input untouched when a later operation fails", () => {
    const doc = { a: 1 };
    expect(() => applyJsonPatch(doc, [{ op: "add", path: "/b", value: 2 }, { op: "test", path: "/a", value: 5 }])).toThrow(PatchError);
    expect(doc).toEqual({ a: 1 });
  });
});

describe("createJsonPatch", () => {
  const cases: { name: string; a: unknown; b: unknown }[] = [
    { name: "nothing changed", a: { x: 1 }, b: { x: 1 } },
    { name: "added, replaced, removed fields", a: { x: 1, y: { z: "a" }, gone: true }, b: { x: 2, y: { z: "a", w: [1] }, added: null } },
    { name: "arrays grow and shrink", a: { l: [1, 2, 3], m: ["a"] }, b: { l: [1, 3], m: ["a", "b", "c"] } },
    { name: "keys that need escaping", a: { "a/b": 1, "c~d": 2 }, b: { "a/b": 2 } },
    { name: "a type change", a: { v: { o: 1 } }, b: { v: [1] } },
  ];
  for (const c of cases) {
    it(`${c.name}: applying the patch gives the modified document`, () => {
      const ops = createJsonPatch(c.a, c.b);
      expect(applyJsonPatch(c.a, ops)).toEqual(c.b);
      if (JSON.stringify(c.a) === JSON.stringify(c.b)) expect(ops).toEqual([]);
    });
  }
});
