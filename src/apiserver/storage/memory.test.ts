import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { MemoryStorage, minRetainedEvents } from "./memory.js";
import { CompactedError, KeyExistsError, KeyNotFoundError, RevisionMismatchError } from "./errors.js";
import type { StorageEvent, StorageWatch } from "./interface.js";

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

describe("MemoryStorage", () => {
  it("assigns one global increasing revision per write and stamps resourceVersion", async () => {
    const s = new MemoryStorage();
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
  });

  it("rejects duplicate creates, missing updates and stale compare-and-swap", async () => {
    const s = new MemoryStorage();
    await s.create("/k/a", cm("a"));
    await expect(s.create("/k/a", cm("a"))).rejects.toBeInstanceOf(KeyExistsError);
    await expect(s.update("/k/zz", cm("zz"))).rejects.toBeInstanceOf(KeyNotFoundError);
    await expect(s.update("/k/a", cm("a", { v: "2" }), 1)).rejects.toBeInstanceOf(RevisionMismatchError);
    await expect(s.delete("/k/a", 99)).rejects.toBeInstanceOf(RevisionMismatchError);
  });

  it("does not consume a revision for a no-op update", async () => {
    const s = new MemoryStorage();
    const a = await s.create("/k/a", cm("a", { x: "1" }));
    const same = await s.update("/k/a", { ...cm("a", { x: "1" }), metadata: { name: "a", namespace: "default", resourceVersion: "77" } });
    expect(same.rev).toBe(a.rev);
    expect(s.currentRevision()).toBe(a.rev);
  });

  it("lists in key order at the current or an exact past revision, with pagination", async () => {
    const s = new MemoryStorage();
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
    expect(past.revision).toBe(mid);
    const p1 = await s.list("/k/", { revision: mid, limit: 1 });
    expect(p1.items.map((i) => i.object.metadata?.name)).toEqual(["a"]);
    expect(p1.remainingItemCount).toBe(1);
    const p2 = await s.list("/k/", { revision: mid, limit: 1, startKey: p1.nextKey });
    expect(p2.items.map((i) => i.object.metadata?.name)).toEqual(["c"]);
    expect(p2.nextKey).toBeUndefined();
    const filtered = await s.list("/k/", { limit: 1, predicate: (o) => o.metadata?.name !== "a" });
    expect(filtered.items.map((i) => i.object.metadata?.name)).toEqual(["b"]);
    expect(filtered.remainingItemCount).toBeUndefined();
  });

  it("bounds history: compacts old events and refuses reads and watches below the floor", async () => {
    const s = new MemoryStorage({ historySize: 5 });
    for (let i = 0; i < 20; i++) await s.update("/k/a", cm("a", { i: String(i) })).catch(() => s.create("/k/a", cm("a")));
    expect(s.retainedEvents()).toBeLessThanOrEqual(5);
    const floor = s.compactedRevision();
    expect(floor).toBe(s.currentRevision() - 5);
    expect(() => s.watch("/k/", { fromRevision: floor - 1 })).toThrow(CompactedError);
    await expect(s.list("/k/", { revision: floor - 1 })).rejects.toBeInstanceOf(CompactedError);
    const atFloor = await s.list("/k/", { revision: floor });
    expect(atFloor.items).toHaveLength(1);
    // Deleted keys vanish from history once their tombstone is compacted.
    await s.delete("/k/a");
    s.compact(s.currentRevision());
    expect((await s.list("/k/")).items).toHaveLength(0);
    expect(await s.list("/k/", { revision: s.currentRevision() })).toMatchObject({ items: [] });
  });


  it("reads every retained revision of a hot key right while compaction trims its versions in batches", async () => {
    const s = new MemoryStorage({ historySize: 10 });
    await s.create("/k/hot", cm("hot", { i: "0" }));
    await s.create("/k/other", cm("other"));
    // Far more writes than the trim batch (64), so unreadable versions pile up and are dropped.
    for (let i = 1; i <= 300; i++) {
      await s.update("/k/hot", cm("hot", { i: String(i) }));
      const floor = s.compactedRevision();
      // The hot key exists from revision 2 on.
      for (let rev = Math.max(floor, 2); rev <= s.currentRevision(); rev++) {
        const hot = (await s.list("/k/hot", { revision: rev })).items;
        expect(hot).toHaveLength(1);
        // Revision r of the hot key is its (r - 3)th update: creates took revisions 2 and 3.
        expect(hot[0].object).toMatchObject({ data: { i: String(Math.max(0, rev - 3)) } });
      }
      expect((await s.list("/k/other", { revision: Math.max(floor, 3) })).items).toHaveLength(1);
    }
    // A deleted key goes away entirely once its tombstone is below the floor.
    await s.delete("/k/hot");
    for (let i = 0; i < 20; i++) await s.update("/k/other", cm("other", { i: String(i) }));
    expect((await s.list("/k/")).items.map((i) => i.key)).toEqual(["/k/other"]);
    await expect(s.create("/k/hot", cm("hot"))).resolves.toMatchObject({ key: "/k/hot" });
    expect((await s.list("/k/")).items.map((i) => i.key)).toEqual(["/k/hot", "/k/other"]);
  });
  it("watches from a revision: replays retained events in order, then live ones, filtered by prefix", async () => {
    const s = new MemoryStorage();
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
  });

  it("closes a watcher that falls too far behind and keeps memory bounded", async () => {
    const s = new MemoryStorage({ historySize: 1000, maxWatchLag: 3 });
    const slow = s.watch("/k/", { fromRevision: s.currentRevision() });
    const other = s.watch("/elsewhere/", { fromRevision: s.currentRevision() });
    for (let i = 0; i < 4; i++) await s.create(`/k/${i}`, cm(String(i)));
    expect(slow.endReason).toBe("too-slow");
    expect(other.endReason).toBeUndefined();
    expect(s.watcherCount()).toBe(1);
    const r = await slow[Symbol.asyncIterator]().next();
    expect(r.done).toBe(true);
    other.close();
  });

  it("closes a lagging watcher whose unread events are compacted away", async () => {
    const s = new MemoryStorage({ historySize: 2, maxWatchLag: 100 });
    const w = s.watch("/k/", { fromRevision: s.currentRevision() });
    for (let i = 0; i < 3; i++) await s.create(`/k/${i}`, cm(String(i)));
    expect(w.endReason).toBe("too-slow");
  });

  it("serialises an event once per format and shares the bytes across watchers", async () => {
    const s = new MemoryStorage();
    const w1 = s.watch("/k/", { fromRevision: s.currentRevision() });
    const w2 = s.watch("/k/", { fromRevision: s.currentRevision() });
    await s.create("/k/a", cm("a"));
    const [[e1], [e2]] = await Promise.all([take(w1, 1), take(w2, 1)]);
    expect(e1).toBe(e2);
    let builds = 0;
    const build = () => {
      builds++;
      return Buffer.from(JSON.stringify({ type: e1.type, object: e1.object }));
    };
    const b1 = e1.encoded("json", build);
    const b2 = e2.encoded("json", build);
    expect(b1).toBe(b2);
    expect(builds).toBe(1);
    w1.close();
    w2.close();
  });

  it("ends watches on abort and on close", async () => {
    const s = new MemoryStorage();
    const ac = new AbortController();
    const w = s.watch("/k/", { fromRevision: 1, signal: ac.signal });
    const pending = w[Symbol.asyncIterator]().next();
    ac.abort();
    expect((await pending).done).toBe(true);
    expect(w.endReason).toBe("aborted");
    const w2 = s.watch("/k/", { fromRevision: 1 });
    await s.close();
    expect(w2.endReason).toBe("store-stopped");
  });

  describe("history window (bounded by time as well as count)", () => {
    it("compacts events older than the window once writes stop, keeping the newest ones", async () => {
      const clock = new FakeClock();
      const s = new MemoryStorage({ clock, historyWindowMs: 10_000, historySize: 100_000 });
      for (let i = 0; i < 500; i++) await s.create(`/r/cm/default/c${i}`, cm(`c${i}`));
      for (let i = 0; i < 500; i++) await s.delete(`/r/cm/default/c${i}`);
      expect(s.retainedEvents()).toBe(1000);
      clock.step(9_000);
      expect(s.retainedEvents()).toBe(1000);
      clock.step(2_000);
      // No write since: the timer expired them; the newest minRetainedEvents stay.
      expect(s.retainedEvents()).toBe(minRetainedEvents);
      expect(s.compactedRevision()).toBe(s.currentRevision() - minRetainedEvents);
      // Keys whose versions are all compacted tombstones are gone.
      expect((await s.list("/r/cm/")).items).toHaveLength(0);
      await s.close();
    });

    it("expires on writes under a steady stream, and watchers resuming from before the window get compacted", async () => {
      const clock = new FakeClock();
      const s = new MemoryStorage({ clock, historyWindowMs: 1000 });
      const first = await s.create("/r/cm/default/x", cm("x", { n: "0" }));
      for (let i = 1; i <= 300; i++) {
        clock.step(10);
        await s.update("/r/cm/default/x", cm("x", { n: String(i) }));
      }
      // 3 s of writes, 10 ms apart: about the last second's events remain (≥ the minimum).
      expect(s.retainedEvents()).toBeGreaterThanOrEqual(minRetainedEvents);
      expect(s.retainedEvents()).toBeLessThanOrEqual(101);
      expect(() => s.watch("/r/cm/", { fromRevision: first.rev })).toThrow(CompactedError);
      await s.close();
    });

    it("historyWindowMs 0 bounds history by count only", async () => {
      const clock = new FakeClock();
      const s = new MemoryStorage({ clock, historyWindowMs: 0 });
      for (let i = 0; i < 300; i++) await s.create(`/r/cm/default/c${i}`, cm(`c${i}`));
      clock.step(3_600_000);
      await s.create("/r/cm/default/last", cm("last"));
      expect(s.retainedEvents()).toBe(301);
      await s.close();
    });
  });

  it("subscribe: listeners see every write synchronously, in order, until unsubscribed", async () => {
    const s = new MemoryStorage();
    const seen: string[] = [];
    const stop = s.subscribe((ev) => seen.push(`${ev.type} ${ev.key} ${ev.rev}`));
    const a = await s.create("/r/cm/default/a", cm("a"));
    expect(seen).toEqual([`ADDED /r/cm/default/a ${a.rev}`]);
    await s.update("/r/cm/default/a", cm("a", { k: "v" }));
    await s.update("/r/cm/default/a", cm("a", { k: "v" })); // no-op: no event
    await s.delete("/r/cm/default/a");
    stop();
    await s.create("/r/cm/default/b", cm("b"));
    expect(seen).toEqual([`ADDED /r/cm/default/a ${a.rev}`, `MODIFIED /r/cm/default/a ${a.rev + 1}`, `DELETED /r/cm/default/a ${a.rev + 2}`]);
  });

  it("pages with the remaining counts of a full scan, also when writes happen between pages", async () => {
    const s = new MemoryStorage({ historySize: 100_000 });
    for (let i = 0; i < 2000; i++) await s.create(`/r/cm/default/c${String(i).padStart(5, "0")}`, cm(`c${i}`));
    const rev = s.currentRevision();
    let start: string | undefined;
    let seen = 0;
    for (let page = 0; ; page++) {
      const r = await s.list("/r/cm/", { revision: rev, startKey: start, limit: 300 });
      seen += r.items.length;
      // Writes after the list's revision change nothing of it.
      await s.create(`/r/cm/default/late${page}`, cm(`late${page}`));
      await s.delete(`/r/cm/default/c${String(page * 7).padStart(5, "0")}`);
      if (!r.nextKey) {
        expect(r.remainingItemCount).toBeUndefined();
        break;
      }
      expect(r.remainingItemCount).toBe(2000 - seen);
      // A fresh store scan from the same key agrees.
      const scanned = await s.list("/r/cm/", { revision: rev, startKey: r.items[r.items.length - 1].key + "\x01", limit: 1 });
      expect((scanned.remainingItemCount ?? 0) + scanned.items.length).toBe(2000 - seen);
      start = r.nextKey;
    }
    expect(seen).toBe(2000);
  });
});
