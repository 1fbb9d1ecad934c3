import { setImmediate as nextTurn } from "node:timers/promises";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AbortError, FakeClock, RealClock, turnClock } from "./clock.js";

describe("FakeClock", () => {
  it("fires due timers in deadline order, with now() at each deadline", () => {
    const c = new FakeClock(1000);
    const fired: Array<[string, number]> = [];
    c.setTimer(30, () => fired.push(["c", c.now()]));
    c.setTimer(10, () => fired.push(["a", c.now()]));
    c.setTimer(20, () => fired.push(["b", c.now()]));
    c.setTimer(20, () => fired.push(["b2", c.now()]));
    expect(c.waiters()).toBe(4);
    c.step(25);
    expect(fired).toEqual([
      ["a", 1010],
      ["b", 1020],
      ["b2", 1020],
    ]);
    expect(c.now()).toBe(1025);
    expect(c.waiters()).toBe(1);
    expect(c.nextDeadline()).toBe(1030);
  });

  it("fires timers scheduled by a firing timer within the same step", () => {
    const c = new FakeClock(0);
    const fired: number[] = [];
    c.setTimer(10, () => {
      fired.push(c.now());
      c.setTimer(10, () => fired.push(c.now()));
    });
    c.step(25);
    expect(fired).toEqual([10, 20]);
  });

  it("cancel prevents firing and reports whether it was pending", () => {
    const c = new FakeClock(0);
    let n = 0;
    const t = c.setTimer(5, () => n++);
    expect(t.cancel()).toBe(true);
    expect(t.cancel()).toBe(false);
    c.step(10);
    expect(n).toBe(0);
    expect(c.hasWaiters()).toBe(false);
  });

  it("setTime moves forward firing timers and backward firing none", () => {
    const c = new FakeClock(100);
    let n = 0;
    c.setTimer(50, () => n++);
    c.setTime(50);
    expect(n).toBe(0);
    c.setTime(new Date(200));
    expect(n).toBe(1);
    expect(c.now()).toBe(200);
  });

  it("sleep resolves when time advances and rejects on abort", async () => {
    const c = new FakeClock(0);
    let done = false;
    const p = c.sleep(100).then(() => (done = true));
    await c.advance(99);
    expect(done).toBe(false);
    await c.advance(1);
    await p;
    expect(done).toBe(true);

    const ac = new AbortController();
    const q = c.sleep(100, ac.signal);
    ac.abort();
    await expect(q).rejects.toBeInstanceOf(Error);
    expect(c.waiters()).toBe(0);

    const pre = new AbortController();
    pre.abort(new AbortError("gone"));
    await expect(c.sleep(1, pre.signal)).rejects.toThrow("gone");
  });

  it("advance lets async continuations schedule further timers", async () => {
    const c = new FakeClock(0);
    const seen: number[] = [];
    const loop = async () => {
      for (let i = 0; i < 3; i++) {
        await c.sleep(10);
        seen.push(c.now());
      }
    };
    const p = loop();
    await c.advance(30);
    await p;
    expect(seen).toEqual([10, 20, 30]);
  });
});

describe("RealClock", () => {
  it("sleep(0) resolves and now() is wall time", async () => {
    const c = new RealClock();
    const before = Date.now();
    await c.sleep(0);
    expect(c.now()).toBeGreaterThanOrEqual(before);
  });
});

describe("sleep on a shared signal", () => {
  it("many sleeps on one signal add one abort listener, and all reject when it aborts", async () => {
    const clock = new FakeClock();
    const ac = new AbortController();
    let listeners = 0;
    const add = ac.signal.addEventListener.bind(ac.signal);
    ac.signal.addEventListener = ((...args: Parameters<AbortSignal["addEventListener"]>) => {
      listeners++;
      add(...args);
    }) as AbortSignal["addEventListener"];
    const sleeps = Array.from({ length: 50 }, (_, i) => clock.sleep(1000 + i, ac.signal).then(() => "woke", () => "aborted"));
    expect(listeners).toBe(1);
    clock.step(1000); // the first one wakes and stops waiting on the signal
    ac.abort();
    const out = await Promise.all(sleeps);
    expect(out.filter((o) => o === "woke")).toHaveLength(1);
    expect(out.filter((o) => o === "aborted")).toHaveLength(49);
  });
});

describe("turnClock", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("reads Date.now() once per event-loop turn", async () => {
    await nextTurn(); // start from a fresh turn
    let t = 1000;
    const now = vi.spyOn(Date, "now").mockImplementation(() => t);
    expect(turnClock.now()).toBe(1000);
    t = 1500;
    expect(turnClock.now()).toBe(1000); // same turn: the cached reading
    await Promise.resolve(); // a microtask is still the same turn
    expect(turnClock.now()).toBe(1000);
    expect(now).toHaveBeenCalledTimes(1);
    await nextTurn();
    expect(turnClock.now()).toBe(1500);
    expect(now).toHaveBeenCalledTimes(2);
  });
});
