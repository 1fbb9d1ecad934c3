import { describe, expect, it } from "vitest";
import type { KubeObject } from "../apimachinery/types.js";
import { DeltaFIFO, FIFOClosedError, type Delta } from "./deltafifo.js";
import {
  CacheIndexer,
  CONTROLLER_UID_INDEX,
  controllerUIDIndexFunc,
  DeletedFinalStateUnknown,
  freezeForCache,
  IndexerError,
  metaNamespaceIndexFunc,
  NAMESPACE_INDEX,
} from "./store.js";

function obj(ns: string, name: string, rv = "1", extra: Partial<KubeObject> = {}): KubeObject {
  return { metadata: { namespace: ns, name, resourceVersion: rv }, ...extra };
}

describe("CacheIndexer", () => {
  it("stores, indexes and unindexes objects", () => {
    const idx = new CacheIndexer<KubeObject>(undefined, { [NAMESPACE_INDEX]: metaNamespaceIndexFunc, [CONTROLLER_UID_INDEX]: controllerUIDIndexFunc });
    idx.add(obj("a", "x"));
    idx.add(obj("a", "y", "1", { metadata: { namespace: "a", name: "y", ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "u1", controller: true }] } }));
    idx.add(obj("b", "z"));
    expect(idx.listKeys().sort()).toEqual(["a/x", "a/y", "b/z"]);
    expect(idx.byIndex(NAMESPACE_INDEX, "a").map((o) => o.metadata?.name).sort()).toEqual(["x", "y"]);
    expect(idx.byIndex(CONTROLLER_UID_INDEX, "u1").map((o) => o.metadata?.name)).toEqual(["y"]);
    expect(idx.index(NAMESPACE_INDEX, obj("b", "whatever")).map((o) => o.metadata?.name)).toEqual(["z"]);
    idx.delete(obj("a", "y"));
    expect(idx.byIndex(CONTROLLER_UID_INDEX, "u1")).toEqual([]);
    expect(idx.listIndexFuncValues(CONTROLLER_UID_INDEX)).toEqual([]);
    expect(() => idx.byIndex("nope", "x")).toThrow(IndexerError);
  });

  it("re-indexes on update when the indexed value changes", () => {
    const idx = new CacheIndexer<KubeObject>(undefined, { byApp: (o) => [String(o.metadata?.labels?.app ?? "")] });
    idx.add({ metadata: { namespace: "n", name: "p", labels: { app: "one" } } });
    idx.update({ metadata: { namespace: "n", name: "p", labels: { app: "two" } } });
    expect(idx.byIndex("byApp", "one")).toEqual([]);
    expect(idx.byIndex("byApp", "two")).toHaveLength(1);
    expect(idx.listIndexFuncValues("byApp")).toEqual(["two"]);
  });

  it("replace swaps content and indices", () => {
    const idx = new CacheIndexer<KubeObject>(undefined, { [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
    idx.add(obj("a", "x"));
    idx.replace([obj("b", "y")], "5");
    expect(idx.listKeys()).toEqual(["b/y"]);
    expect(idx.byIndex(NAMESPACE_INDEX, "a")).toEqual([]);
  });

  it("hands out frozen objects that cannot be mutated", () => {
    const idx = new CacheIndexer<KubeObject>();
    idx.add(obj("a", "x"));
    const got = idx.getByKey("a/x")!;
    expect(Object.isFrozen(got.metadata)).toBe(true);
    expect(() => {
      got.metadata!.name = "changed";
    }).toThrow(TypeError);
  });

  it("freezeForCache freezes every level, shares empty objects, leaves frozen subtrees as they are", () => {
    const frozenSub = Object.freeze({ kept: { inner: 1 } });
    const o = JSON.parse(
      '{"a":{"b":[{"c":{}},[1,2,{"d":"e"}],{}],"f":{}},"g":[],"__proto__":{"h":{}},"n":null,"s":"x"}',
    ) as Record<string, unknown>;
    o.frozen = frozenSub;
    expect(freezeForCache(o)).toBe(o);
    const walk = (v: unknown, path: string): void => {
      if (typeof v !== "object" || v === null || v === frozenSub) return;
      expect(Object.isFrozen(v), path).toBe(true);
      for (const [k, c] of Object.entries(v)) walk(c, `${path}.${k}`);
    };
    walk(o, "o");
    const a = o.a as { b: [{ c: object }, unknown[], object]; f: object };
    // Every empty plain object is one shared frozen object; arrays are never swapped.
    expect(a.b[0].c).toBe(a.f);
    expect(a.b[2]).toBe(a.f);
    expect(o.g).toEqual([]);
    expect(Object.isFrozen(o.g)).toBe(true);
    // A "__proto__" data key stays a data key; its value is frozen in place.
    expect(Object.getPrototypeOf(o)).toBe(Object.prototype);
    const proto = Object.getOwnPropertyDescriptor(o, "__proto__")!.value as { h: object };
    expect(Object.isFrozen(proto)).toBe(true);
    expect(proto.h).toBe(a.f);
    // An already frozen subtree is taken as deep-frozen: not walked into.
    expect(o.frozen).toBe(frozenSub);
    expect(Object.isFrozen(frozenSub.kept)).toBe(false);
    // Primitives and frozen objects come back as they are.
    expect(freezeForCache(3)).toBe(3);
    expect(freezeForCache(frozenSub)).toBe(frozenSub);
  });

  it("addIndexers indexes existing objects and refuses duplicates", () => {
    const idx = new CacheIndexer<KubeObject>();
    idx.add(obj("a", "x"));
    idx.addIndexers({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
    expect(idx.byIndex(NAMESPACE_INDEX, "a")).toHaveLength(1);
    expect(() => idx.addIndexers({ [NAMESPACE_INDEX]: metaNamespaceIndexFunc })).toThrow(IndexerError);
  });
});

async function popAll(f: DeltaFIFO<KubeObject>): Promise<Array<[string, string[]]>> {
  const out: Array<[string, string[]]> = [];
  while (f.length > 0) {
    await f.pop((deltas: Delta<KubeObject>[]) => {
      const o = deltas[0].object;
      const key = o instanceof DeletedFinalStateUnknown ? o.key : `${o.metadata?.namespace}/${o.metadata?.name}`;
      out.push([key, deltas.map((d) => d.type + (d.object instanceof DeletedFinalStateUnknown ? "(tombstone)" : ""))]);
    });
  }
  return out;
}

describe("DeltaFIFO (upstream's delta_fifo_test cases)", () => {
  it("accumulates deltas per key in first-arrival order", async () => {
    const f = new DeltaFIFO<KubeObject>();
    f.add(obj("n", "a"));
    f.add(obj("n", "b"));
    f.update(obj("n", "a", "2"));
    f.delete(obj("n", "b"));
    expect(await popAll(f)).toEqual([
      ["n/a", ["Added", "Updated"]],
      ["n/b", ["Added", "Deleted"]],
    ]);
  });

  it("collapses consecutive deletes, keeping the non-tombstone", async () => {
    const f = new DeltaFIFO<KubeObject>();
    f.add(obj("n", "a"));
    f.delete(obj("n", "a"));
    f.delete(new DeletedFinalStateUnknown("n/a", obj("n", "a")));
    const got: Delta<KubeObject>[][] = [];
    await f.pop((d) => {
      got.push(d);
    });
    expect(got[0].map((d) => d.type)).toEqual(["Added", "Deleted"]);
    expect(got[0][1].object instanceof DeletedFinalStateUnknown).toBe(false);
  });

  it("ignores a delete of an object that is neither pending nor known", async () => {
    const known = new CacheIndexer<KubeObject>();
    const f = new DeltaFIFO<KubeObject>({ knownObjects: known });
    f.delete(obj("n", "ghost"));
    expect(f.length).toBe(0);
    known.add(obj("n", "real"));
    f.delete(obj("n", "real"));
    expect(f.length).toBe(1);
  });

  it("replace emits Replaced for listed objects and tombstones for known ones missing", async () => {
    const known = new CacheIndexer<KubeObject>();
    known.add(obj("n", "stays"));
    known.add(obj("n", "gone"));
    const f = new DeltaFIFO<KubeObject>({ knownObjects: known, emitDeltaTypeReplaced: true });
    f.replace([obj("n", "stays", "2"), obj("n", "new")], "10");
    expect(await popAll(f)).toEqual([
      ["n/stays", ["Replaced"]],
      ["n/new", ["Replaced"]],
      ["n/gone", ["Deleted(tombstone)"]],
    ]);
  });

  it("replace without knownObjects tombstones pending items missing from the list; Sync when Replaced is off", async () => {
    const f = new DeltaFIFO<KubeObject>();
    f.add(obj("n", "a"));
    f.replace([obj("n", "b")], "3");
    expect(await popAll(f)).toEqual([
      ["n/a", ["Added", "Deleted(tombstone)"]],
      ["n/b", ["Sync"]],
    ]);
  });

  it("hasSynced after the initial list has been popped", async () => {
    const f = new DeltaFIFO<KubeObject>({ knownObjects: new CacheIndexer<KubeObject>() });
    expect(f.hasSynced()).toBe(false);
    f.replace([obj("n", "a"), obj("n", "b")], "1");
    expect(f.hasSynced()).toBe(false);
    const initial: boolean[] = [];
    await f.pop((_d, i) => {
      initial.push(i);
    });
    expect(f.hasSynced()).toBe(false);
    f.add(obj("n", "c"));
    await f.pop((_d, i) => {
      initial.push(i);
    });
    expect(f.hasSynced()).toBe(true);
    await f.pop((_d, i) => {
      initial.push(i);
    });
    expect(initial).toEqual([true, true, false]);
  });

  it("an empty initial list is synced at once", () => {
    const f = new DeltaFIFO<KubeObject>();
    f.replace([], "1");
    expect(f.hasSynced()).toBe(true);
  });

  it("resync queues Sync for known objects without pending deltas", async () => {
    const known = new CacheIndexer<KubeObject>();
    known.add(obj("n", "a"));
    known.add(obj("n", "b"));
    const f = new DeltaFIFO<KubeObject>({ knownObjects: known });
    f.update(obj("n", "a", "2"));
    f.resync();
    expect(await popAll(f)).toEqual([
      ["n/a", ["Updated"]],
      ["n/b", ["Sync"]],
    ]);
  });

  it("popAll hands out every pending key in pop order, including keys queued meanwhile, past a failing one", async () => {
    const f = new DeltaFIFO<KubeObject>();
    f.add(obj("n", "a"));
    f.add(obj("n", "b"));
    f.update(obj("n", "a", "2"));
    f.add(obj("n", "c"));
    f.delete(obj("n", "c"));
    f.delete(new DeletedFinalStateUnknown("n/c", obj("n", "c")));
    const got: Array<[string, string[], boolean]> = [];
    const errors: unknown[] = [];
    const n = await f.popAll(
      (deltas, initial) => {
        const name = String((deltas[0].object as KubeObject).metadata?.name);
        got.push([name, deltas.map((d) => d.type + (d.object instanceof DeletedFinalStateUnknown ? "(tombstone)" : "")), initial]);
        if (name === "a") f.add(obj("n", "d"));
        if (name === "b") throw new Error("handler failed");
      },
      (err) => errors.push(err),
    );
    expect(n).toBe(4);
    expect(got).toEqual([
      ["a", ["Added", "Updated"], false],
      ["b", ["Added"], false],
      ["c", ["Added", "Deleted"], false],
      ["d", ["Added"], false],
    ]);
    expect(errors).toHaveLength(1);
    expect(f.length).toBe(0);
    // The initial list is counted down as it is handed out.
    const g = new DeltaFIFO<KubeObject>({ emitDeltaTypeReplaced: true });
    g.replace([obj("n", "x"), obj("n", "y")], "5");
    const initial: boolean[] = [];
    expect(g.hasSynced()).toBe(false);
    await g.popAll((_d, isInitial) => initial.push(isInitial));
    expect(initial).toEqual([true, true]);
    expect(g.hasSynced()).toBe(true);
    const q = g.popAll(() => {});
    g.close();
    await expect(q).rejects.toBeInstanceOf(FIFOClosedError);
  });

  it("pop waits for an item and rejects once closed", async () => {
    const f = new DeltaFIFO<KubeObject>();
    const got: string[] = [];
    const p = f.pop((d) => {
      got.push(String((d[0].object as KubeObject).metadata?.name));
    });
    f.add(obj("n", "late"));
    await p;
    expect(got).toEqual(["late"]);
    const q = f.pop(() => {});
    f.close();
    await expect(q).rejects.toBeInstanceOf(FIFOClosedError);
    expect(() => f.add(obj("n", "x"))).toThrow(FIFOClosedError);
  });
});
