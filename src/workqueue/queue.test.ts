import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { ObjectName } from "../apimachinery/objectname.js";
import { StampedFifo } from "./fifo.js";
import { Queue } from "./queue.js";
import type { GetResult } from "./queue.js";

/** Observes whether a promise has settled, without awaiting it. */
function track<T>(p: Promise<T>): { settled: () => boolean; value: () => T | undefined } {
  let settled = false;
  let value: T | undefined;
  p.then(
    (v) => {
      settled = true;
      value = v;
    },
    () => {
      settled = true;
    },
  );
  return { settled: () => settled, value: () => value };
}

async function getItem<T>(q: Queue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error("unexpected shutdown");
  return r.item;
}

/** A small deterministic PRNG (mulberry32), so the concurrency tests replay identically. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const shutDowns: Array<[string, (q: Queue<unknown>) => unknown]> = [
  ["shutDown", (q) => q.shutDown()],
  ["shutDownWithDrain", (q) => q.shutDownWithDrain()],
];

describe("Queue (upstream queue_test.go)", () => {
  it.each(shutDowns)("TestBasic: 50 producers, 10 consumers, then %s", async (_name, shut) => {
    const clock = new FakeClock(0);
    const q = new Queue<unknown>({ clock });
    let producersLeft = 50;
    for (let i = 0; i < 50; i++) {
      void (async () => {
        for (let j = 0; j < 50; j++) {
          q.add(i);
          await clock.sleep(1);
        }
        producersLeft--;
      })();
    }
    let consumersLeft = 10;
    const errors: string[] = [];
    let processed = 0;
    for (let c = 0; c < 10; c++) {
      void (async () => {
        for (;;) {
          const r = await q.get();
          if (r.item === "added after shutdown!") errors.push("got an item added after shutdown");
          if (r.shutdown) break;
          await clock.sleep(3);
          processed++;
          q.done(r.item);
        }
        consumersLeft--;
      })();
    }
    while (producersLeft > 0) await clock.advance(1);
    const shutting = shut(q);
    q.add("added after shutdown!");
    while (consumersLeft > 0) await clock.advance(1);
    await shutting;
    expect(errors).toEqual([]);
    expect(q.len()).toBe(0);
    expect(processed).toBeGreaterThanOrEqual(50);
  });

  it.each(shutDowns)("TestAddWhileProcessing: every item re-added once while processing, then %s", async (_n, shut) => {
    const q = new Queue<number>();
    for (let i = 0; i < 50; i++) q.add(i);
    const perItem = new Map<number, number>();
    let consumersLeft = 10;
    for (let c = 0; c < 10; c++) {
      void (async () => {
        const counters = new Map<number, number>();
        for (;;) {
          const r = await q.get();
          if (r.shutdown) break;
          const n = (counters.get(r.item) ?? 0) + 1;
          counters.set(r.item, n);
          perItem.set(r.item, (perItem.get(r.item) ?? 0) + 1);
          if (n < 2) q.add(r.item);
          await Promise.resolve();
          q.done(r.item);
        }
        consumersLeft--;
      })();
    }
    // Let the consumers run before shutting down, as the producers finished first upstream.
    await flushMicrotasks();
    await shut(q as Queue<unknown>);
    while (consumersLeft > 0) await flushMicrotasks();
    expect(q.len()).toBe(0);
    for (let i = 0; i < 50; i++) expect(perItem.get(i)).toBeGreaterThanOrEqual(2);
  });

  it("TestLen: a duplicate add does not grow the queue", () => {
    const q = new Queue<string>();
    q.add("foo");
    expect(q.len()).toBe(1);
    q.add("bar");
    expect(q.len()).toBe(2);
    q.add("foo");
    expect(q.len()).toBe(2);
  });

  it("TestReinsert: an item added while processing comes back after done", async () => {
    const q = new Queue<string>();
    q.add("foo");
    const i = await getItem(q);
    expect(i).toBe("foo");
    q.add(i);
    expect(q.len()).toBe(0); // dirty, but not queued while processing
    q.done(i);
    expect(q.len()).toBe(1);
    expect(await getItem(q)).toBe("foo");
    q.done("foo");
    expect(q.len()).toBe(0);
  });

  it("TestQueueDrainageUsingShutDownWithDrain: waits for in-flight items", async () => {
    const q = new Queue<string>();
    q.add("foo");
    q.add("bar");
    const first = await getItem(q);
    const second = await getItem(q);
    const drained = track(q.shutDownWithDrain());
    expect((await q.get()).shutdown).toBe(true);
    await flushMicrotasks();
    expect(drained.settled()).toBe(false);
    q.done(first);
    await flushMicrotasks();
    expect(drained.settled()).toBe(false);
    q.done(second);
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
  });

  it("TestNoQueueDrainageUsingShutDown: shutDown does not wait for in-flight items", async () => {
    const q = new Queue<string>();
    q.add("foo");
    q.add("bar");
    await q.get();
    await q.get();
    q.shutDown();
    expect(q.shuttingDown()).toBe(true);
    expect((await q.get()).shutdown).toBe(true);
  });

  it("TestForceQueueShutdownUsingShutDown: shutDown ends a pending drain", async () => {
    const q = new Queue<string>();
    q.add("foo");
    q.add("bar");
    await q.get();
    await q.get();
    const drained = track(q.shutDownWithDrain());
    expect((await q.get()).shutdown).toBe(true);
    await flushMicrotasks();
    expect(drained.settled()).toBe(false);
    q.shutDown();
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
  });

  it("TestQueueDrainageUsingShutDownWithDrainWithDirtyItem: a dirty item is still handed out", async () => {
    const q = new Queue<string>();
    q.add("foo");
    const gotten = await getItem(q);
    q.add("foo");
    const drained = track(q.shutDownWithDrain());
    expect((await q.get()).shutdown).toBe(true);
    q.done(gotten);
    // The drain waits for the processing set only: it ends here, though "foo" is queued again.
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
    const again = await q.get();
    expect(again).toEqual({ item: "foo", shutdown: false });
    q.done("foo");
    expect((await q.get()).shutdown).toBe(true);
    await flushMicrotasks();
    expect(drained.settled()).toBe(true);
  });
});

describe("Queue", () => {
  it("hands items out in FIFO order", async () => {
    const q = new Queue<string>();
    for (const s of ["a", "b", "c", "b", "a", "d"]) q.add(s);
    const got: string[] = [];
    while (q.len() > 0) got.push(await getItem(q));
    expect(got).toEqual(["a", "b", "c", "d"]);
  });

  it("wakes waiting workers in the order they called get()", async () => {
    const q = new Queue<string>();
    const w1 = q.get();
    const w2 = q.get();
    const t2 = track(w2);
    q.add("x");
    expect(await w1).toEqual({ item: "x", shutdown: false });
    await flushMicrotasks();
    expect(t2.settled()).toBe(false);
    q.add("x"); // processing: marked dirty, not handed out
    await flushMicrotasks();
    expect(t2.settled()).toBe(false);
    q.add("y");
    expect(await w2).toEqual({ item: "y", shutdown: false });
    q.done("x"); // the dirty x is requeued
    expect(q.len()).toBe(1);
  });

  it("releases waiting workers on shutdown and ignores later adds", async () => {
    const q = new Queue<string>();
    const waiting = [q.get(), q.get()];
    q.shutDown();
    expect(await Promise.all(waiting)).toEqual([
      { item: undefined, shutdown: true },
      { item: undefined, shutdown: true },
    ]);
    q.add("late");
    expect(q.len()).toBe(0);
    expect(await q.get()).toEqual({ item: undefined, shutdown: true });
  });

  it("hands out the items still queued after shutDown, then reports shutdown", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.add("b");
    q.shutDown();
    expect(await q.get()).toEqual({ item: "a", shutdown: false });
    expect(await q.get()).toEqual({ item: "b", shutdown: false });
    expect((await q.get()).shutdown).toBe(true);
  });

  it("shutDownWithDrain resolves at once when nothing is being processed", async () => {
    const q = new Queue<string>();
    q.add("a");
    await q.shutDownWithDrain();
    expect(q.shuttingDown()).toBe(true);
    expect(q.len()).toBe(1);
  });

  it("compares ObjectName keys by value", async () => {
    const q = new Queue<ObjectName>();
    q.add(new ObjectName("ns", "a"));
    q.add(new ObjectName("ns", "a"));
    q.add(new ObjectName("", "a"));
    expect(q.len()).toBe(2);
    const got = await getItem(q);
    expect(got.toString()).toBe("ns/a");
    q.add(new ObjectName("ns", "a")); // equal name while processing: dirty
    expect(q.len()).toBe(1);
    q.done(new ObjectName("ns", "a")); // done with an equal, distinct instance
    expect(q.len()).toBe(2);
  });

  it("compares plain objects by reference unless given keyOf", () => {
    const byRef = new Queue<{ id: number }>();
    byRef.add({ id: 1 });
    byRef.add({ id: 1 });
    expect(byRef.len()).toBe(2);
    const byId = new Queue<{ id: number }>({ keyOf: (o) => o.id });
    byId.add({ id: 1 });
    byId.add({ id: 1 });
    expect(byId.len()).toBe(1);
  });

  it("done for an item not being processed changes nothing", async () => {
    const q = new Queue<string>();
    q.add("a");
    q.done("a");
    expect(q.len()).toBe(1);
    expect(await getItem(q)).toBe("a");
    q.done("a");
    q.done("a");
    expect(q.len()).toBe(0);
  });

  it("get rejects when its signal aborts, and the item goes to the next worker", async () => {
    const q = new Queue<string>();
    const ac = new AbortController();
    const aborted = q.get(ac.signal);
    const next = q.get();
    ac.abort();
    await expect(aborted).rejects.toMatchObject({ name: "AbortError" });
    q.add("a");
    expect(await next).toEqual({ item: "a", shutdown: false });
    await expect(q.get(AbortSignal.abort())).rejects.toBeDefined();
  });

  it("many aborted gets do not get in the way of live workers", async () => {
    const q = new Queue<string>();
    const live1 = q.get();
    const aborted: Array<Promise<unknown>> = [];
    for (let i = 0; i < 100; i++) {
      const ac = new AbortController();
      aborted.push(q.get(ac.signal).catch((e: unknown) => e));
      ac.abort();
    }
    const live2 = q.get();
    for (const e of await Promise.all(aborted)) expect(e).toMatchObject({ name: "AbortError" });
    q.add("a");
    q.add("b");
    expect(await live1).toEqual({ item: "a", shutdown: false });
    expect(await live2).toEqual({ item: "b", shutdown: false });
    q.add("c");
    expect(q.len()).toBe(1);
  });
});

describe("Queue with concurrent async workers", () => {
  it.each([1, 2, 3])("never hands an item to two workers and never loses a re-add (seed %i)", async (seed) => {
    const random = rng(seed);
    const clock = new FakeClock(0);
    const q = new Queue<string>({ clock });
    const keys = Array.from({ length: 20 }, (_, i) => `ns/item-${i}`);
    let event = 0;
    const lastAdd = new Map<string, number>();
    const lastStart = new Map<string, number>();
    const inFlight = new Set<string>();
    const violations: string[] = [];
    let maxConcurrent = 0;

    const workers = Array.from({ length: 8 }, async (_, w) => {
      for (;;) {
        const r = await q.get();
        if (r.shutdown) return;
        if (inFlight.has(r.item)) violations.push(`worker ${w} got ${r.item} while in flight`);
        inFlight.add(r.item);
        maxConcurrent = Math.max(maxConcurrent, inFlight.size);
        lastStart.set(r.item, ++event);
        await clock.sleep(1 + Math.floor(random() * 20));
        // A worker sometimes re-adds what it is processing (the dirty-while-processing path).
        // Adds after shutdown are ignored by design, so only accepted ones are recorded.
        if (random() < 0.2 && !q.shuttingDown()) {
          q.add(r.item);
          lastAdd.set(r.item, ++event);
        }
        inFlight.delete(r.item);
        q.done(r.item);
      }
    });

    for (let tick = 0; tick < 400; tick++) {
      const adds = Math.floor(random() * 4);
      for (let a = 0; a < adds; a++) {
        const k = keys[Math.floor(random() * keys.length)];
        q.add(k);
        lastAdd.set(k, ++event);
      }
      await clock.advance(1);
    }
    const drained = q.shutDownWithDrain();
    for (let i = 0; i < 200 && (inFlight.size > 0 || q.len() > 0); i++) await clock.advance(5);
    expect(inFlight.size + q.len()).toBe(0);
    await drained;
    await Promise.all(workers);

    expect(violations).toEqual([]);
    expect(maxConcurrent).toBeGreaterThan(1);
    // Every add was followed by a processing start of that item: nothing was lost.
    for (const [k, added] of lastAdd) expect(lastStart.get(k) ?? 0, k).toBeGreaterThan(added);
  });

  it("matches a reference model of dirty/processing/queue for any operation sequence", async () => {
    type Op = { kind: "add"; key: number } | { kind: "get" } | { kind: "done"; slot: number };
    const op = fc.oneof(
      fc.record({ kind: fc.constant("add" as const), key: fc.integer({ min: 0, max: 5 }) }),
      fc.record({ kind: fc.constant("get" as const) }),
      fc.record({ kind: fc.constant("done" as const), slot: fc.nat(10) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops: Op[]) => {
        const q = new Queue<number>();
        // The model: client-go's three collections, naively.
        const queue: number[] = [];
        const dirty = new Set<number>();
        const processing: number[] = [];
        for (const o of ops) {
          if (o.kind === "add") {
            q.add(o.key);
            if (!dirty.has(o.key)) {
              dirty.add(o.key);
              if (!processing.includes(o.key)) queue.push(o.key);
            }
          } else if (o.kind === "get") {
            if (queue.length === 0) continue; // would block
            const r: GetResult<number> = await q.get();
            const expected = queue.shift()!;
            dirty.delete(expected);
            processing.push(expected);
            expect(r).toEqual({ item: expected, shutdown: false });
          } else {
            if (processing.length === 0) continue;
            const item = processing.splice(o.slot % processing.length, 1)[0];
            q.done(item);
            if (dirty.has(item)) queue.push(item);
          }
          expect(q.len()).toBe(queue.length);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("StampedFifo", () => {
  it("keeps each element's stamp through growth and wrap-around", () => {
    const f = new StampedFifo<string>(4);
    const out: Array<[string | undefined, number]> = [];
    for (let i = 0; i < 3; i++) f.push(`a${i}`, i);
    out.push([f.shift(), f.shiftedStamp], [f.shift(), f.shiftedStamp]); // head moves: the next pushes wrap
    for (let i = 3; i < 12; i++) f.push(`a${i}`, i * 10); // grows twice
    expect(f.length).toBe(10);
    while (f.length > 0) out.push([f.shift(), f.shiftedStamp]);
    expect(out).toEqual([
      ["a0", 0],
      ["a1", 1],
      ["a2", 2],
      ...Array.from({ length: 9 }, (_, k) => [`a${k + 3}`, (k + 3) * 10]),
    ]);
    expect(f.shift()).toBeUndefined();
  });
});
