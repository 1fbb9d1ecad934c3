/**
 * StorageCache: followed by the storage's synchronous commit notifications (a write is in the
 * cache when its promise resolves, and writes made while the cache lists are not lost), or, for
 * a storage without `subscribe`, by a watch (then `current()` says when it lags and `synced()`
 * waits).
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { StorageCache } from "./cache.js";
import type { Storage } from "./interface.js";
import { MemoryStorage } from "./memory.js";

const prefix = "/registry/core/namespaces/";
const ns = (name: string, labels: Record<string, string> = {}): KubeObject => ({ apiVersion: "v1", kind: "Namespace", metadata: { name, labels } });

/** The same storage without `subscribe`: what a backend that only has watches gives the cache. */
function watchOnly(s: MemoryStorage): Storage {
  return {
    currentRevision: () => s.currentRevision(),
    compactedRevision: () => s.compactedRevision(),
    get: (k) => s.get(k),
    list: (p, r) => s.list(p, r),
    create: (k, o) => s.create(k, o),
    update: (k, o, r) => s.update(k, o, r),
    delete: (k, r) => s.delete(k, r),
    watch: (p, r) => s.watch(p, r),
    compact: (r) => s.compact(r),
    close: () => s.close(),
  };
}

describe("StorageCache over subscribe", () => {
  it("reflects each write as soon as the write resolves, with no wait", async () => {
    const s = new MemoryStorage();
    await s.create(`${prefix}a`, ns("a"));
    const c = new StorageCache(s, [prefix]);
    await c.start();
    expect(c.current()).toBe(true);
    expect(c.list(prefix).map((o) => o.metadata?.name)).toEqual(["a"]);
    await s.create(`${prefix}b`, ns("b"));
    expect(c.current()).toBe(true);
    expect(c.get(`${prefix}b`)?.metadata?.name).toBe("b");
    const v = c.version(prefix);
    await s.update(`${prefix}b`, ns("b", { x: "y" }));
    expect(c.get(`${prefix}b`)?.metadata?.labels).toEqual({ x: "y" });
    expect(c.version(prefix)).toBeGreaterThan(v);
    await s.delete(`${prefix}a`);
    expect(c.get(`${prefix}a`)).toBeUndefined();
    expect(c.has(prefix)).toBe(true);
    await s.delete(`${prefix}b`);
    expect(c.has(prefix)).toBe(false);
    const after = c.version(prefix);
    // Writes elsewhere are counted as applied but change nothing here.
    await s.create("/registry/core/configmaps/ns/x", { metadata: { name: "x" } });
    expect(c.current()).toBe(true);
    expect(c.version(prefix)).toBe(after);
    await c.stop();
  });

  it("keeps writes committed while it lists (added, changed, deleted) and none twice", async () => {
    const s = new MemoryStorage();
    await s.create(`${prefix}gone`, ns("gone"));
    await s.create(`${prefix}kept`, ns("kept"));
    const c = new StorageCache(s, [prefix]);
    const started = c.start();
    // These commit after the cache subscribed and while its list is under way.
    await s.create(`${prefix}new`, ns("new"));
    await s.update(`${prefix}kept`, ns("kept", { v: "2" }));
    await s.delete(`${prefix}gone`);
    await started;
    expect(c.list(prefix).map((o) => [o.metadata?.name, o.metadata?.labels])).toEqual([
      ["kept", { v: "2" }],
      ["new", {}],
    ]);
    expect(c.current()).toBe(true);
    await c.stop();
  });

  it("answers has() for a sub-prefix (one namespace of a namespaced resource)", async () => {
    const s = new MemoryStorage();
    const quotas = "/registry/core/resourcequotas/";
    const c = new StorageCache(s, [quotas]);
    await c.start();
    await s.create(`${quotas}team-a/q`, { metadata: { name: "q", namespace: "team-a" } });
    expect(c.has(`${quotas}team-a/`)).toBe(true);
    expect(c.has(`${quotas}team-b/`)).toBe(false);
    // A namespace whose name extends another's is not under it.
    expect(c.has(`${quotas}team-/`)).toBe(false);
    await c.stop();
  });

  it("stops following storage once stopped", async () => {
    const s = new MemoryStorage();
    const c = new StorageCache(s, [prefix]);
    await c.start();
    await c.stop();
    await s.create(`${prefix}late`, ns("late"));
    expect(c.get(`${prefix}late`)).toBeUndefined();
  });
});

describe("StorageCache over a watch (no subscribe)", () => {
  it("says when it lags and catches up on synced()", async () => {
    const s = new MemoryStorage();
    const c = new StorageCache(watchOnly(s), [prefix]);
    await c.start();
    expect(c.current()).toBe(true);
    await s.create(`${prefix}a`, ns("a"));
    if (!c.current()) await c.synced();
    expect(c.current()).toBe(true);
    expect(c.get(`${prefix}a`)?.metadata?.name).toBe("a");
    await c.stop();
  });
});
