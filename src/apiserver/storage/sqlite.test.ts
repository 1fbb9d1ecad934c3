import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStorage } from "./memory.js";
import { SqliteStorage, DataDirInUseError, type SqliteStorageOptions } from "./sqlite.js";
import { CompactedError, KeyExistsError, KeyNotFoundError, RevisionMismatchError } from "./errors.js";
import type { Storage, StorageEvent, StorageWatch } from "./interface.js";
import type { MemoryStorageOptions } from "./memory.js";

const cm = (name: string, data: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "default" },
  data,
});

async function take(w: StorageWatch, n: number): Promise<StorageEvent[]> {
  const out: StorageEvent[] = [];
  const it = w[Symbol.asyncIterator]();
  while (out.length < n) {
    const r = await it.next();
    if (r.done) break;
    out.push(r.value);
  }
  return out;
}

const dirs: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "kubeloop-sqlite-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

type TestStore = Storage & { retainedEvents(): number; watcherCount(): number };

const backends: Array<[string, (opts?: MemoryStorageOptions) => TestStore]> = [
  ["MemoryStorage", (opts) => new MemoryStorage(opts)],
  ["SqliteStorage", (opts) => SqliteStorage.open(tempDir(), opts)],
  ["SqliteStorage (no group commit)", (opts) => SqliteStorage.open(tempDir(), { ...opts, groupCommit: false })],
];

// The storage contract, run against every backend (the same cases as memory.test.ts).
describe.each(backends)("storage conformance: %s", (_name, make) => {
  it("assigns one global increasing revision per write and stamps resourceVersion", async () => {
    const s = make();
    expect(s.currentRevision()).toBe(1);
    const a = await s.create("/r/cm/default/a", cm("a"));
    const b = await s.create("/r/cm/default/b", cm("b"));
    expect([a.rev, b.rev]).toEqual([2, 3]);
    expect(a.object.metadata?.resourceVersion).toBe("2");
    const a2 = await s.update("/r/cm/default/a", cm("a", { x: "1" }));
    expect(a2.rev).toBe(4);
    const d = await s.delete("/r/cm/default/b");
    expect(d.rev).toBe(5);
    expect(d.object.metadata?.resourceVersion).toBe("5");
    expect(await s.get("/r/cm/default/b")).toBeUndefined();
    expect(Object.isFrozen(a2.object)).toBe(true);
    await s.close();
  });

  it("rejects duplicate creates, missing updates and stale compare-and-swap", async () => {
    const s = make();
    await s.create("/k/a", cm("a"));
    await expect(s.create("/k/a", cm("a"))).rejects.toBeInstanceOf(KeyExistsError);
    await expect(s.update("/k/zz", cm("zz"))).rejects.toBeInstanceOf(KeyNotFoundError);
    await expect(s.update("/k/a", cm("a", { v: "2" }), 1)).rejects.toBeInstanceOf(RevisionMismatchError);
    await expect(s.delete("/k/a", 99)).rejects.toBeInstanceOf(RevisionMismatchError);
    await s.close();
  });

  it("validates concurrent writes of one turn against each other", async () => {
    const s = make();
    const [a, dup, upd, stale, same] = await Promise.allSettled([
      s.create("/k/a", cm("a")),
      s.create("/k/a", cm("a")),
      s.update("/k/a", cm("a", { v: "1" }), 2),
      s.update("/k/a", cm("a", { v: "2" }), 2),
      s.update("/k/a", cm("a", { v: "1" })),
    ]);
    expect(a).toMatchObject({ status: "fulfilled", value: { rev: 2 } });
    expect(dup).toMatchObject({ status: "rejected", reason: expect.any(KeyExistsError) });
    expect(upd).toMatchObject({ status: "fulfilled", value: { rev: 3 } });
    expect(stale).toMatchObject({ status: "rejected", reason: expect.any(RevisionMismatchError) });
    expect(same).toMatchObject({ status: "fulfilled", value: { rev: 3 } });
    expect(s.currentRevision()).toBe(3);
    await s.close();
  });

  it("does not consume a revision for a no-op update", async () => {
    const s = make();
    const a = await s.create("/k/a", cm("a", { x: "1" }));
    const same = await s.update("/k/a", { ...cm("a", { x: "1" }), metadata: { name: "a", namespace: "default", resourceVersion: "77" } });
    expect(same.rev).toBe(a.rev);
    expect(s.currentRevision()).toBe(a.rev);
    await s.close();
  });

  it("lists in key order at the current or an exact past revision, with pagination", async () => {
    const s = make();
    await s.create("/k/c", cm("c"));
    await s.create("/k/a", cm("a"));
    const mid = s.currentRevision();
    await s.create("/k/b", cm("b"));
    await s.delete("/k/c");
    await s.create("/other/x", cm("x"));
    const now = await s.list("/k/");
    expect(now.items.map((i) => i.object.metadata?.name)).toEqual(["a", "b"]);
    const past = await s.list("/k/", { revision: mid });
    expect(past.items.map((i) => i.object.metadata?.name)).toEqual(["a", "c"]);
    const p1 = await s.list("/k/", { revision: mid, limit: 1 });
    expect(p1.remainingItemCount).toBe(1);
    const p2 = await s.list("/k/", { revision: mid, limit: 1, startKey: p1.nextKey });
    expect(p2.items.map((i) => i.object.metadata?.name)).toEqual(["c"]);
    expect(p2.nextKey).toBeUndefined();
    await s.close();
  });

  it("bounds history: compacts old events and refuses reads and watches below the floor", async () => {
    const s = make({ historySize: 5 });
    for (let i = 0; i < 20; i++) await s.update("/k/a", cm("a", { i: String(i) })).catch(() => s.create("/k/a", cm("a")));
    expect(s.retainedEvents()).toBeLessThanOrEqual(5);
    const floor = s.compactedRevision();
    expect(floor).toBe(s.currentRevision() - 5);
    expect(() => s.watch("/k/", { fromRevision: floor - 1 })).toThrow(CompactedError);
    await expect(s.list("/k/", { revision: floor - 1 })).rejects.toBeInstanceOf(CompactedError);
    expect((await s.list("/k/", { revision: floor })).items).toHaveLength(1);
    await s.delete("/k/a");
    s.compact(s.currentRevision());
    expect((await s.list("/k/")).items).toHaveLength(0);
    await s.close();
  });

  it("watches from a revision: replays retained events in order, then live ones, filtered by prefix", async () => {
    const s = make();
    await s.create("/k/a", cm("a"));
    const from = s.currentRevision();
    await s.update("/k/a", cm("a", { x: "1" }));
    await s.create("/other/z", cm("z"));
    await s.create("/k/b", cm("b"));
    const w = s.watch("/k/", { fromRevision: from });
    const replay = await take(w, 2);
    expect(replay.map((e) => [e.type, e.object.metadata?.name])).toEqual([
      ["MODIFIED", "a"],
      ["ADDED", "b"],
    ]);
    expect(replay[0].prevObject?.data).toEqual({});
    const live = take(w, 1);
    await s.delete("/k/b");
    const [del] = await live;
    expect(del.type).toBe("DELETED");
    expect(del.object.metadata?.resourceVersion).toBe(String(s.currentRevision()));
    w.close();
    expect(s.watcherCount()).toBe(0);
    await s.close();
  });

  it("closes a watcher that falls too far behind", async () => {
    const s = make({ historySize: 1000, maxWatchLag: 3 });
    const slow = s.watch("/k/", { fromRevision: s.currentRevision() });
    for (let i = 0; i < 4; i++) await s.create(`/k/${i}`, cm(String(i)));
    expect(slow.endReason).toBe("too-slow");
    await s.close();
  });

  it("ends watches on abort and on close", async () => {
    const s = make();
    const ac = new AbortController();
    const w = s.watch("/k/", { fromRevision: 1, signal: ac.signal });
    const pending = w[Symbol.asyncIterator]().next();
    ac.abort();
    expect((await pending).done).toBe(true);
    const w2 = s.watch("/k/", { fromRevision: 1 });
    await s.close();
    expect(w2.endReason).toBe("store-stopped");
  });
});

describe("SqliteStorage persistence", () => {
  const open = (dir: string, opts: SqliteStorageOptions = {}) => SqliteStorage.open(dir, opts);

  it("keeps objects and revisions across a restart; revisions continue", async () => {
    const dir = tempDir();
    const s = open(dir);
    await s.create("/k/a", cm("a", { v: "1" }));
    await s.create("/k/b", cm("b"));
    await s.update("/k/a", cm("a", { v: "2" }));
    await s.delete("/k/b");
    const rev = s.currentRevision();
    await s.close();

    const r = open(dir);
    expect(r.currentRevision()).toBe(rev);
    const a = await r.get("/k/a");
    expect(a?.object.data).toEqual({ v: "2" });
    expect(a?.rev).toBe(4);
    expect(Object.isFrozen(a?.object)).toBe(true);
    expect(await r.get("/k/b")).toBeUndefined();
    const c = await r.create("/k/c", cm("c"));
    expect(c.rev).toBe(rev + 1);
    // History survives too: an Exact read at an old revision.
    expect((await r.list("/k/", { revision: 3 })).items.map((i) => i.object.metadata?.name)).toEqual(["a", "b"]);
    await r.close();
  });

  it("resumes a watch across a restart from a retained revision, replaying from the log", async () => {
    const dir = tempDir();
    const s = open(dir);
    await s.create("/k/a", cm("a"));
    const seen = s.currentRevision();
    await s.update("/k/a", cm("a", { v: "1" }));
    await s.create("/k/b", cm("b"));
    await s.delete("/k/a");
    await s.close();

    const r = open(dir);
    const w = r.watch("/k/", { fromRevision: seen });
    const events = await take(w, 3);
    expect(events.map((e) => [e.type, e.key, e.rev])).toEqual([
      ["MODIFIED", "/k/a", 3],
      ["ADDED", "/k/b", 4],
      ["DELETED", "/k/a", 5],
    ]);
    expect(events[2].object.metadata?.resourceVersion).toBe("5");
    expect(events[2].object.data).toEqual({ v: "1" });
    const live = take(w, 1);
    await r.create("/k/c", cm("c"));
    expect((await live)[0]).toMatchObject({ type: "ADDED", key: "/k/c", rev: 6 });
    w.close();
    await r.close();
  });

  it("compacts the log on disk, never reuses a revision, and refuses compacted watches after a restart", async () => {
    const dir = tempDir();
    const s = open(dir, { historySize: 10, compactEvery: 5 });
    for (let i = 0; i < 30; i++) await s.create(`/k/${i % 7}-${i}`, cm(String(i)));
    for (let i = 0; i < 30; i++) await s.update("/k/0-0", cm("0", { i: String(i) }));
    for (let i = 1; i < 30; i++) await s.delete(`/k/${i % 7}-${i}`);
    const rev = s.currentRevision();
    expect(s.diskCompactedRevision()).toBeGreaterThan(rev - 20);
    // At most historySize + compactEvery retained revisions, plus one base row per key live at the floor.
    expect(s.diskRows()).toBeLessThanOrEqual(2 * (10 + 5) + 1);
    expect(s.diskRows()).toBeLessThan(89 / 2);
    s.compact(rev);
    expect(s.diskRows()).toBe(1);
    await s.close();

    const r = open(dir, { historySize: 10 });
    expect(r.currentRevision()).toBe(rev);
    expect(r.compactedRevision()).toBe(rev);
    expect(() => r.watch("/k/", { fromRevision: rev - 1 })).toThrow(CompactedError);
    expect((await r.list("/k/")).items.map((i) => i.key)).toEqual(["/k/0-0"]);
    expect((await r.create("/k/new", cm("new"))).rev).toBe(rev + 1);
    await r.close();
  });

  it("restores the retained window exactly: reads at every retained revision match", async () => {
    const dir = tempDir();
    const s = open(dir, { historySize: 50, compactEvery: 1 });
    const names = ["a", "b", "c", "d"];
    for (let i = 0; i < 120; i++) {
      const key = `/k/${names[i % 4]}`;
      const cur = await s.get(key);
      if (!cur) await s.create(key, cm(names[i % 4], { i: String(i) }));
      else if (i % 5 === 0) await s.delete(key);
      else await s.update(key, cm(names[i % 4], { i: String(i) }));
    }
    const snapshot = async (st: SqliteStorage) => {
      const out: string[] = [];
      for (let rev = st.compactedRevision(); rev <= st.currentRevision(); rev++) {
        const l = await st.list("/k/", { revision: rev });
        out.push(`${rev}:${l.items.map((x) => `${x.key}@${x.rev}=${(x.object.data as Record<string, string> | undefined)?.i}`).join(",")}`);
      }
      return out;
    };
    const before = await snapshot(s);
    await s.close();
    const r = open(dir, { historySize: 50 });
    expect(await snapshot(r)).toEqual(before);
    await r.close();
  });

  it("refuses a data directory held by another open store", async () => {
    const dir = tempDir();
    const s = open(dir);
    expect(() => open(dir)).toThrow(DataDirInUseError);
    await s.close();
    const again = open(dir);
    await again.close();
  });

  it("commits the writes of one turn in one transaction and acknowledges after the commit", async () => {
    const dir = tempDir();
    const s = open(dir);
    const w = s.watch("/k/", { fromRevision: s.currentRevision() });
    const writes = Array.from({ length: 50 }, (_, i) => s.create(`/k/${i}`, cm(String(i))));
    // Nothing is visible before the commit.
    expect(s.currentRevision()).toBe(1);
    expect(await s.get("/k/0")).toBeUndefined();
    const results = await Promise.all(writes);
    expect(results.map((r) => r.rev)).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(s.currentRevision()).toBe(51);
    expect((await take(w, 50)).map((e) => e.rev)).toEqual(results.map((r) => r.rev));
    w.close();
    await s.close();
  });
});

/**
 * The crash child bundled into one ES module (esbuild, a second or so even on a loaded machine),
 * written inside the repository's node_modules/.cache so its package imports resolve there.
 */
async function bundleCrashChild(): Promise<string> {
  const outfile = fileURLToPath(new URL(`../../../node_modules/.cache/kubeloop-test/sqlite-crashchild-${process.pid}.mjs`, import.meta.url));
  await build({
    entryPoints: [fileURLToPath(new URL("./sqlite.crashchild.ts", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "silent",
  });
  return outfile;
}

describe("SqliteStorage crash safety", () => {
  it.each(["full", "process"])(
    "loses no acknowledged write when the server process is killed with SIGKILL (durability %s)",
    async (durability) => {
      const dir = tempDir();
      const dataDir = join(dir, "data");
      const bundle = await bundleCrashChild();
      const child = spawn(process.execPath, [bundle, dataDir, "16", durability], { stdio: ["ignore", "pipe", "pipe"] });
      const acked = new Map<string, { create?: number; update?: number }>();
      let buf = "";
      let stderr = "";
      let acks = 0;
      let killed = false;
      const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      await new Promise<void>((resolve, reject) => {
        // Generous: a loaded machine starts the child slowly.
        const timer = setTimeout(() => reject(new Error(`child made no progress: ${stderr}`)), 90_000);
        child.on("exit", () => {
          clearTimeout(timer);
          if (!killed) reject(new Error(`child exited early: ${stderr}`));
        });
        child.stdout.on("data", (d: Buffer) => {
          buf += d.toString();
          let nl: number;
          while ((nl = buf.indexOf("\n")) >= 0) {
            const line = buf.slice(0, nl);
            buf = buf.slice(nl + 1);
            const [tag, op, name, rv] = line.split(" ");
            if (tag !== "ack") continue;
            const e = acked.get(name) ?? {};
            e[op as "create" | "update"] = Number(rv);
            acked.set(name, e);
            // Kill mid-stream, after a good number of acknowledged writes.
            if (++acks === 1500 && !killed) {
              killed = true;
              child.kill("SIGKILL");
              clearTimeout(timer);
              resolve();
            }
          }
        });
      });
      await exited;
      rmSync(bundle, { force: true });
      expect(acks).toBeGreaterThanOrEqual(1500);

      const s = SqliteStorage.open(dataDir);
      try {
        let maxAcked = 0;
        for (const [name, e] of acked) {
          const got = await s.get(`/registry/core/configmaps/default/${name}`);
          expect(got, name).toBeDefined();
          if (e.update !== undefined) {
            expect(got!.rev, name).toBe(e.update);
            expect(got!.object.data, name).toEqual({ v: "1" });
          } else {
            expect(got!.rev, name).toBeGreaterThanOrEqual(e.create!);
          }
          maxAcked = Math.max(maxAcked, e.update ?? e.create ?? 0);
        }
        expect(s.currentRevision()).toBeGreaterThanOrEqual(maxAcked);
      } finally {
        await s.close();
      }
    },
    150_000,
  );
});
