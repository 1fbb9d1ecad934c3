import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { SortedKeys } from "./sortedkeys.js";

/** The reference: a plain sorted array with the same operations. */
class Reference {
  keys: string[] = [];
  insert(k: string): boolean {
    if (this.keys.includes(k)) return false;
    this.keys.push(k);
    this.keys.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return true;
  }
  delete(k: string): boolean {
    const i = this.keys.indexOf(k);
    if (i < 0) return false;
    this.keys.splice(i, 1);
    return true;
  }
  from(start: string): string[] {
    return this.keys.filter((k) => k >= start);
  }
}

describe("SortedKeys", () => {
  it("iterates in order from any start key", () => {
    const s = new SortedKeys(2);
    for (const k of ["/b/2", "/a/1", "/c/1", "/b/1", "/a/2"]) expect(s.insert(k)).toBe(true);
    expect(s.insert("/b/1")).toBe(false);
    expect([...s]).toEqual(["/a/1", "/a/2", "/b/1", "/b/2", "/c/1"]);
    expect([...s.from("/b/")]).toEqual(["/b/1", "/b/2", "/c/1"]);
    expect([...s.from("/b/1\x00")]).toEqual(["/b/2", "/c/1"]);
    expect([...s.from("/d")]).toEqual([]);
    expect(s.size).toBe(5);
    expect(s.delete("/b/1")).toBe(true);
    expect(s.delete("/b/1")).toBe(false);
    expect(s.has("/b/2")).toBe(true);
    expect(s.has("/b/1")).toBe(false);
    expect([...s]).toEqual(["/a/1", "/a/2", "/b/2", "/c/1"]);
  });

  it("behaves as a sorted array under any sequence of inserts and deletes", () => {
    const op = fc.record({ insert: fc.boolean(), key: fc.string({ maxLength: 4, unit: fc.constantFrom("a", "b", "c", "/", "\x00") }) });
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 2, max: 5 }), fc.string({ maxLength: 3 }), (ops, chunkSize, start) => {
        const s = new SortedKeys(chunkSize);
        const ref = new Reference();
        for (const o of ops) {
          if (o.insert) expect(s.insert(o.key)).toBe(ref.insert(o.key));
          else expect(s.delete(o.key)).toBe(ref.delete(o.key));
          expect(s.size).toBe(ref.keys.length);
        }
        expect([...s]).toEqual(ref.keys);
        expect([...s.from(start)]).toEqual(ref.from(start));
        for (const k of ref.keys) expect(s.has(k)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
