import { describe, expect, it } from "vitest";
import { PatchError } from "./errors.js";
import { applyStrategicMergePatch, createTwoWayMergePatch, type PatchMeta } from "./strategicpatch.js";

const items: PatchMeta = { fields: {} };
const meta: PatchMeta = {
  fields: {
    list: { patchStrategy: "merge", patchMergeKey: "name", items },
    ints: { patchStrategy: "merge" },
    plain: {},
    rk: { patchStrategy: "retainKeys" },
    noKey: { patchStrategy: "merge" },
    bad: { patchStrategy: "a,b" },
    replaced: { patchStrategy: "replace" },
  },
};

function errorOf(f: () => unknown): PatchError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(PatchError);
    return e as PatchError;
  }
  throw new Error("expected a PatchError");
}

// [name, original, patch, code, exact upstream message]
const errorCases: [string, unknown, unknown, number, string][] = [
  ["$patch: merge in a list", { list: [{ name: "a" }] }, { list: [{ name: "a", $patch: "merge" }] }, 500, "merging lists cannot yet be specified in the patch"],
  ["$patch: merge in a map", { a: 1 }, { $patch: "merge", a: 2 }, 500, "unknown patch type: merge in map: map[$patch:merge a:2]"],
  ["unknown $patch value in a map", { m: { a: 1 } }, { m: { $patch: "frob" } }, 500, "unknown patch type: frob in map: map[$patch:frob]"],
  ["non-string $patch in a list element", { list: [{ name: "a" }] }, { list: [{ name: "a", $patch: 5 }] }, 500, "unknown patch type: %!s(int64=5) in map: map[$patch:5 name:a]"],
  ["list element missing its merge key", { list: [{ name: "a", value: "x" }] }, { list: [{ value: "b" }] }, 500, "map: map[value:b] does not contain declared merge key: name"],
  ["delete directive without merge key", { list: [{ name: "a" }] }, { list: [{ $patch: "delete" }] }, 500, "map: map[$patch:delete] does not contain declared merge key: name"],
  ["lists of lists", { ints: [[1]] }, { ints: [[2]] }, 422, "lists of lists are not supported"],
  ["mixed element types", { ints: [1, 2] }, { ints: ["a"] }, 500, "list element types are not identical: [[1 2] [a]]"],
  ["maps and scalars in a merging list", { list: [{ name: "a" }] }, { list: [1] }, 500, "list element types are not identical: [[map[name:a]] [1]]"],
  ["$retainKeys not a list", { rk: { a: 1 } }, { rk: { $retainKeys: "a" } }, 400, "invalid patch format of retainKeys"],
  ["patch key missing from $retainKeys", { rk: { a: 1 } }, { rk: { $retainKeys: ["a"], b: 2 } }, 400, "invalid patch format of retainKeys"],
  ["malformed $deleteFromPrimitiveList key", { ints: [1] }, { $deleteFromPrimitiveListints: [1] }, 400, "invalid patch format of primitive list"],
  ["malformed $setElementOrder key", { ints: [1] }, { $setElementOrderints: [1] }, 400, "invalid patch format of setElementOrder list"],
  ["$setElementOrder not a list", { ints: [1] }, { "$setElementOrder/ints": "x" }, 500, "expected a []interface {}, but received a string"],
  ["$setElementOrder for a non-list field", { ints: "x" }, { "$setElementOrder/ints": [1] }, 500, "expected a []interface {}, but received a string"],
  ["$setElementOrder on empty lists", { ints: [] }, { "$setElementOrder/ints": [] }, 500, "no elements in any of the given slices"],
  ["original is not an object", [1, 2], {}, 400, "invalid JSON document"],
  ["patch is not an object", {}, "x", 400, "invalid JSON document"],
  ["merging list of maps without a merge key", { noKey: [{ a: 1 }] }, { noKey: [{ a: 2 }] }, 500, "cannot merge lists without merge key for noKey"],
  ["unexpected patch strategy", { bad: { a: 1 } }, { bad: { a: 2 } }, 500, "unexpected patch strategy: [a b]"],
  [
    "$setElementOrder disagreeing with the patch list",
    { list: [{ name: "1" }, { name: "2" }] },
    { "$setElementOrder/list": [{ name: "1" }], list: [{ name: "2" }] },
    500,
    "The order in patch list:\n[map[name:2]]\n doesn't match $setElementOrder list:\n[map[name:1]]\n",
  ],
];

describe("applyStrategicMergePatch errors (upstream texts)", () => {
  for (const [name, original, patch, code, message] of errorCases) {
    it(name, () => {
      const err = errorOf(() => applyStrategicMergePatch(original, patch, meta));
      expect(err.message).toBe(message);
      expect(err.code).toBe(code);
      expect(err.patchType).toBe("strategic");
    });
  }
});

// [name, original, patch, result]
const applyCases: [string, unknown, unknown, unknown][] = [
  ["null original counts as {}", null, { a: 1 }, { a: 1 }],
  ["null patch is a no-op", { a: 1 }, null, { a: 1 }],
  ["null deletes a key; unmatched nulls vanish", { a: 1, b: 2 }, { a: null, c: null }, { b: 2 }],
  ["nulls inside a new map are dropped", {}, { m: { a: 1, b: null, n: { c: null } } }, { m: { a: 1, n: {} } }],
  ["maps merge recursively", { m: { a: 1, n: { b: 2 } } }, { m: { n: { c: 3 } } }, { m: { a: 1, n: { b: 2, c: 3 } } }],
  ["type change replaces", { m: { a: 1 } }, { m: [1] }, { m: [1] }],
  ["lists without strategy are replaced", { plain: [1, 2] }, { plain: [3] }, { plain: [3] }],
  ["replace strategy on a map", { replaced: { a: 1, b: 2 } }, { replaced: { c: 3 } }, { replaced: { c: 3 } }],
  ["$patch: replace on a map keeps the patch verbatim", { m: { a: 1 } }, { m: { $patch: "replace", b: 2 } }, { m: { b: 2 } }],
  ["$patch: delete on a map empties it", { m: { a: 1 } }, { m: { $patch: "delete" } }, { m: {} }],
  ["$patch: replace at the root", { a: 1, b: 2 }, { $patch: "replace", c: 3 }, { c: 3 }],
  ["$patch: delete at the root", { a: 1 }, { $patch: "delete" }, {}],
  ["$patch: replace in a list", { list: [{ name: "a" }, { name: "b" }] }, { list: [{ $patch: "replace" }, { name: "c" }] }, { list: [{ name: "c" }] }],
  ["$patch: delete in a list removes one element", { list: [{ name: "a" }, { name: "a", x: 1 }] }, { list: [{ name: "a", $patch: "delete" }] }, { list: [{ name: "a", x: 1 }] }],
  ["primitive merge list is a set union", { ints: [1, 2] }, { ints: [2, 3, 3] }, { ints: [1, 2, 3] }],
  ["$deleteFromPrimitiveList removes every occurrence", { ints: [1, 2, 1, 3] }, { "$deleteFromPrimitiveList/ints": [1] }, { ints: [2, 3] }],
  ["$deleteFromPrimitiveList on a missing list is ignored", {}, { "$deleteFromPrimitiveList/ints": [1] }, {}],
  ["$retainKeys clears unlisted keys", { rk: { a: 1, b: 2, c: 3 } }, { rk: { $retainKeys: ["a", "c"], c: 4 } }, { rk: { a: 1, c: 4 } }],
  ["new list element keeps its nulls (upstream quirk)", { list: [] }, { list: [{ name: "a", v: null }] }, { list: [{ name: "a", v: null }] }],
  ["merging list element merges recursively", { list: [{ name: "a", m: { x: 1 } }] }, { list: [{ name: "a", m: { y: 2 } }] }, { list: [{ name: "a", m: { x: 1, y: 2 } }] }],
  ["unknown fields merge like maps without metadata", { x: { y: [1] } }, { x: { y: [2] } }, { x: { y: [2] } }],
  ["__proto__ is an ordinary key", {}, JSON.parse('{"__proto__": {"polluted": 1}}'), JSON.parse('{"__proto__": {"polluted": 1}}')],
];

describe("applyStrategicMergePatch semantics", () => {
  for (const [name, original, patch, result] of applyCases) {
    it(name, () => {
      const out = applyStrategicMergePatch(original, patch, meta);
      expect(out).toEqual(result);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it("never mutates inputs nor shares structure with them", () => {
    const original = { list: [{ name: "a", m: { x: 1 } }, { name: "b" }], ints: [3, 1], rk: { a: 1, b: 2 }, m: { k: [1] } };
    const patch = {
      "$setElementOrder/list": [{ name: "b" }, { name: "a" }, { name: "c" }],
      list: [{ name: "a", m: { y: 2 } }, { name: "c", n: { z: [1] } }],
      "$deleteFromPrimitiveList/ints": [1],
      rk: { $retainKeys: ["a"] },
      m: { $patch: "replace", k: [2] },
    };
    const o = JSON.stringify(original);
    const p = JSON.stringify(patch);
    const out = applyStrategicMergePatch(original, patch, meta) as Record<string, unknown>;
    expect(JSON.stringify(original)).toBe(o);
    expect(JSON.stringify(patch)).toBe(p);
    expect(out).toEqual({
      list: [{ name: "b" }, { name: "a", m: { x: 1, y: 2 } }, { name: "c", n: { z: [1] } }],
      ints: [3],
      rk: { a: 1 },
      m: { k: [2] },
    });
    // Mutating the result must not reach the inputs.
    const list = out.list as { m?: Record<string, unknown>; n?: { z: number[] } }[];
    list[1].m!.y = 99;
    list[2].n!.z.push(5);
    ((out.m as Record<string, number[]>).k as number[]).push(7);
    expect(JSON.stringify(original)).toBe(o);
    expect(JSON.stringify(patch)).toBe(p);
  });
});

describe("createTwoWayMergePatch", () => {
  it("emits parallel lists and sorted keys like kubectl", () => {
    const original = { ints: [1, 2, 3], list: [{ name: "a" }, { name: "b", v: 1 }], other: "x" };
    const modified = { ints: [3, 1, 4], list: [{ name: "b", v: 2 }, { name: "c" }], extra: true };
    const patch = createTwoWayMergePatch(original, modified, meta);
    expect(JSON.stringify(patch)).toBe(
      JSON.stringify({
        "$deleteFromPrimitiveList/ints": [2],
        "$setElementOrder/ints": [3, 1, 4],
        "$setElementOrder/list": [{ name: "b" }, { name: "c" }],
        extra: true,
        ints: [4],
        list: [{ name: "b", v: 2 }, { name: "c" }, { $patch: "delete", name: "a" }],
        other: null,
      }),
    );
    expect(applyStrategicMergePatch(original, patch, meta)).toEqual(modified);
  });

  it("errors with upstream's text when a merging list element lacks its key", () => {
    const err = errorOf(() => createTwoWayMergePatch({ list: [{ name: "a" }] }, { list: [{ v: 1 }] }, meta));
    expect(err.message).toBe("map: map[v:1] does not contain declared merge key: name");
  });

  it("does not mutate its inputs", () => {
    const original = { ints: [3, 2, 1], list: [{ name: "b" }, { name: "a" }] };
    const modified = { ints: [1], list: [{ name: "a", x: 1 }] };
    const o = JSON.stringify(original);
    const m = JSON.stringify(modified);
    createTwoWayMergePatch(original, modified, meta);
    expect(JSON.stringify(original)).toBe(o);
    expect(JSON.stringify(modified)).toBe(m);
  });
});
