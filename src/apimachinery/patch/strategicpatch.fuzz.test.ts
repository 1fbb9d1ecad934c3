/**
 * Fuzzing applyStrategicMergePatch: for 10,000+ random (original, patch) pairs, biased towards
 * the directives and merge-list fields of upstream's MergeItem schema and of a Deployment, it
 * returns a JSON object or throws a PatchError (never another exception, never an "internal
 * error", never slowly), deterministically, without touching its inputs. Plus a round-trip
 * property for createTwoWayMergePatch on well-formed documents.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { patchMetaForKind } from "./builtinpatchmeta.js";
import { PatchError } from "./errors.js";
import { applyStrategicMergePatch, createTwoWayMergePatch, type PatchMeta } from "./strategicpatch.js";
import { mergeItemMeta } from "../../../test/fixtures/patch-mergeitem.js";

// upstream's MergeItem test schema


const keys = fc.constantFrom(
  "name",
  "value",
  "other",
  "mergingList",
  "nonMergingList",
  "mergingIntList",
  "nonMergingIntList",
  "mergeItemPtr",
  "simpleMap",
  "replacingItem",
  "retainKeysMap",
  "retainKeysMergingList",
  "$patch",
  "$retainKeys",
  "$setElementOrder/mergingList",
  "$setElementOrder/mergingIntList",
  "$setElementOrder/retainKeysMergingList",
  "$deleteFromPrimitiveList/mergingIntList",
  "$deleteFromPrimitiveList/mergingList",
  "$deleteFromPrimitiveList/",
  "$setElementOrder",
  "$deleteFromPrimitiveListx",
  "__proto__",
);

const scalar = fc.oneof(
  fc.constantFrom("delete", "replace", "merge", "retainKeys", "a", "b", "name", "value"),
  fc.integer({ min: 0, max: 3 }),
  fc.boolean(),
  fc.constant(null),
  fc.double({ noNaN: true }),
);

const smpValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 5 },
    scalar,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.array(fc.record({ name: fc.integer({ min: 0, max: 3 }), value: tie("value") }, { requiredKeys: [] }), { maxLength: 4 }),
    fc.dictionary(keys, tie("value"), { maxKeys: 4 }),
  ),
})).value;

const smpDoc = fc.dictionary(keys, smpValue, { maxKeys: 6 });

const k8sKeys = fc.constantFrom(
  "metadata",
  "spec",
  "template",
  "containers",
  "env",
  "ports",
  "volumes",
  "finalizers",
  "ownerReferences",
  "name",
  "uid",
  "containerPort",
  "strategy",
  "$patch",
  "$retainKeys",
  "$setElementOrder/containers",
  "$deleteFromPrimitiveList/finalizers",
);
const k8sValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 6 },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(k8sKeys, tie("value"), { maxKeys: 4 }),
  ),
})).value;
const k8sDoc = fc.dictionary(k8sKeys, k8sValue, { maxKeys: 4 });

type Outcome = { ok: true; value: unknown } | { ok: false; message: string; code: number };

function run(original: unknown, patch: unknown, meta: PatchMeta): Outcome {
  const o = JSON.stringify(original);
  const p = JSON.stringify(patch);
  const start = performance.now();
  let outcome: Outcome;
  try {
    const value = applyStrategicMergePatch(original, patch, meta);
    expect(typeof value === "object" && value !== null && !Array.isArray(value)).toBe(true);
    outcome = { ok: true, value };
  } catch (err) {
    if (!(err instanceof PatchError)) throw new Error(`untyped exception: ${String(err)}`, { cause: err });
    expect(err.message.startsWith("internal error")).toBe(false);
    outcome = { ok: false, message: err.message, code: err.code };
  }
  expect(performance.now() - start).toBeLessThan(1000);
  expect(JSON.stringify(original)).toBe(o);
  expect(JSON.stringify(patch)).toBe(p);
  return outcome;
}

describe("applyStrategicMergePatch fuzz", () => {
  it("returns an object or throws PatchError for 7,000 MergeItem-shaped inputs, deterministically, without mutation", () => {
    let errors = 0;
    fc.assert(
      fc.property(smpDoc, smpDoc, (original, patch) => {
        const first = run(original, patch, mergeItemMeta);
        if (!first.ok) errors++;
        expect(run(original, patch, mergeItemMeta)).toEqual(first);
      }),
      { numRuns: 7000 },
    );
    // The generator must exercise both outcomes.
    expect(errors).toBeGreaterThan(100);
    expect(errors).toBeLessThan(6900);
  });

  it("returns an object or throws PatchError for 3,000 Deployment-shaped and arbitrary JSON inputs", () => {
    const deployment = patchMetaForKind("apps", "v1", "Deployment")!;
    fc.assert(
      fc.property(k8sDoc, k8sDoc, (original, patch) => {
        run(original, patch, deployment);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (original, patch) => {
        run(original, patch, mergeItemMeta);
      }),
      { numRuns: 1000 },
    );
  });

  it("survives deeply nested documents", () => {
    const nest = (depth: number): unknown => {
      let doc: unknown = { name: 1 };
      for (let i = 0; i < depth; i++) doc = { simpleMap: doc };
      return doc;
    };
    expect(applyStrategicMergePatch(nest(200), nest(200), mergeItemMeta)).toEqual(nest(200));
    // Deep enough to exhaust the stack: a PatchError (422), not a RangeError.
    const deep = nest(200_000);
    expect(() => applyStrategicMergePatch(deep, deep, mergeItemMeta)).toThrow(expect.objectContaining({ name: "PatchError", code: 422 }));
  });
});

// Well-formed documents: unique merge keys, no nulls, homogeneous lists.
const item = fc.record({ name: fc.integer({ min: 0, max: 6 }), value: fc.string({ maxLength: 2 }) }, { requiredKeys: ["name"] });
const wellFormed = fc.record(
  {
    name: fc.string({ maxLength: 3 }),
    value: fc.integer(),
    mergingList: fc.uniqueArray(item, { selector: (x) => x.name, maxLength: 5 }),
    mergingIntList: fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 5 }),
    nonMergingIntList: fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 4 }),
    simpleMap: fc.dictionary(fc.constantFrom("a", "b", "c"), fc.string({ maxLength: 2 })),
    retainKeysMap: fc.record({ name: fc.string({ maxLength: 2 }), value: fc.string({ maxLength: 2 }) }, { requiredKeys: [] }),
  },
  { requiredKeys: [] },
);

describe("createTwoWayMergePatch round trip (fast-check)", () => {
  it("applying the created patch to original yields modified", () => {
    fc.assert(
      fc.property(wellFormed, wellFormed, (original, modified) => {
        const patch = createTwoWayMergePatch(original, modified, mergeItemMeta);
        expect(applyStrategicMergePatch(original, patch, mergeItemMeta)).toEqual(modified);
      }),
      { numRuns: 2000 },
    );
  });
});
