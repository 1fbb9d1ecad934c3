import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { DelayingQueue, maxTimerMs } from "./delaying.js";
import type { CounterMetric, WorkqueueMetricsProvider } from "./metrics.js";
import { noopMetricsProvider } from "./metrics.js";

async function next<T>(q: DelayingQueue<T>): Promise<T> {
  const r = await q.get();
  if (r.shutdown) throw new Error("unexpected shutdown");
  q.done(r.item);
  return r.item;
}

function retryCountingProvider(): { provider: WorkqueueMetricsProvider; retries: () => number } {
  let n = 0;
  const counter: CounterMetric = { inc: () => void n++ };
  const provider: WorkqueueMetricsProvider = {
    ...noopMetricsProvider,
    newRetriesMetric: () => counter,
    onCollect: () => () => {},
  };
  return { provider, retries: () => n };
}

describe("DelayingQueue (upstream delaying_queue_test.go)", () => {
  it("TestSimpleQueue: adds after the delay, and only then", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("foo", 50);
    expect(q.waitingLen()).toBe(1);
    expect(q.len()).toBe(0);
    expect(clock.waiters()).toBe(1);

    clock.step(60);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    expect(clock.waiters()).toBe(0);
    expect(await next(q)).toBe("foo");

    clock.step(10_000); // past upstream's heartbeat
    expect(q.len()).toBe(0);
  });

  it("TestDeduping: the earlier deadline wins", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("foo", 50);
    q.addAfter("foo", 70);
    expect(q.waitingLen()).toBe(1);
    expect(q.len()).toBe(0);

    clock.step(60);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    expect(await next(q)).toBe("foo");

    clock.step(20); // past the later add: nothing more
    expect(q.len()).toBe(0);

    q.addAfter("foo", 50);
    q.addAfter("foo", 30);
    expect(q.waitingLen()).toBe(1);
    expect(clock.waiters()).toBe(1);
    expect(clock.nextDeadline()).toBe(clock.now() + 30);
    expect(q.len()).toBe(0);

    clock.step(40);
    expect(q.len()).toBe(1);
    expect(await next(q)).toBe("foo");
    clock.step(20);
    expect(q.len()).toBe(0);
  });

  it("TestAddTwoFireEarly: the sooner item fires first; later adds keep their place", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("foo", 1000);
    q.addAfter("bar", 50);
    expect(q.waitingLen()).toBe(2);
    expect(clock.waiters()).toBe(1); // one timer, for the earliest deadline
    expect(q.len()).toBe(0);

    clock.step(60);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(1);
    expect(await next(q)).toBe("bar");

    q.addAfter("baz", 2000);
    clock.step(1000);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(1);
    expect(await next(q)).toBe("foo");

    clock.step(2000);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
    expect(await next(q)).toBe("baz");
  });

  it("TestCopyShifting: items become ready in deadline order", async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("foo", 1000);
    q.addAfter("bar", 500);
    q.addAfter("baz", 250);
    expect(q.waitingLen()).toBe(3);
    expect(q.len()).toBe(0);

    clock.step(2000);
    expect(q.len()).toBe(3);
    expect(q.waitingLen()).toBe(0);
    expect([await next(q), await next(q), await next(q)]).toEqual(["baz", "bar", "foo"]);
  });
});

describe("DelayingQueue", () => {
  it("keeps one clock timer, moved when an earlier deadline arrives", () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 100);
    expect(clock.nextDeadline()).toBe(100);
    q.addAfter("b", 200);
    expect(clock.waiters()).toBe(1);
    expect(clock.nextDeadline()).toBe(100);
    q.addAfter("c", 10);
    expect(clock.waiters()).toBe(1);
    expect(clock.nextDeadline()).toBe(10);
    clock.step(10);
    expect(q.len()).toBe(1);
    expect(clock.waiters()).toBe(1);
    expect(clock.nextDeadline()).toBe(100);
  });

  it("adds at once for a delay of zero or less, and counts every addAfter as a retry", () => {
    const clock = new FakeClock(0);
    const m = retryCountingProvider();
    const q = new DelayingQueue<string>({ clock, name: "retries", metricsProvider: m.provider });
    q.addAfter("a", 0);
    q.addAfter("b", -5);
    q.addAfter("c", 5);
    expect(q.len()).toBe(2);
    expect(clock.waiters()).toBe(1);
    expect(m.retries()).toBe(3);
  });

  it("hands a waiting worker the item when its time comes", async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    const got = q.get();
    q.addAfter("x", 30);
    await clock.advance(30);
    expect(await got).toEqual({ item: "x", shutdown: false });
  });

  it("an item already queued is not queued twice when its delay expires", async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("x", 30);
    q.add("x");
    clock.step(30);
    expect(q.len()).toBe(1);
  });

  it("shutDown stops the timer and ignores later addAfter", () => {
    const clock = new FakeClock(0);
    const m = retryCountingProvider();
    const q = new DelayingQueue<string>({ clock, name: "sd", metricsProvider: m.provider });
    q.addAfter("a", 100);
    expect(clock.waiters()).toBe(1);
    q.shutDown();
    expect(clock.waiters()).toBe(0);
    q.addAfter("b", 10);
    expect(clock.waiters()).toBe(0);
    expect(m.retries()).toBe(1);
    clock.step(1000);
    expect(q.len()).toBe(0);
  });

  it("shutDownWithDrain stops the timer too", async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("a", 100);
    await q.shutDownWithDrain();
    expect(clock.waiters()).toBe(0);
  });

  it("never sets a timer beyond setTimeout's limit; re-arms until the deadline", () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    const day = 24 * 3600 * 1000;
    q.addAfter("far", 40 * day);
    expect(clock.nextDeadline()).toBe(maxTimerMs);
    clock.step(maxTimerMs);
    expect(q.len()).toBe(0);
    expect(clock.waiters()).toBe(1);
    expect(clock.nextDeadline()).toBe(40 * day);
    clock.step(40 * day - maxTimerMs);
    expect(q.len()).toBe(1);
  });

  it("an infinite delay means never, with no timer", () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<string>({ clock });
    q.addAfter("never", Infinity);
    expect(q.waitingLen()).toBe(1);
    expect(clock.waiters()).toBe(0);
    q.addAfter("soon", 5);
    expect(clock.nextDeadline()).toBe(5);
    clock.step(1_000_000);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(1);
    expect(clock.waiters()).toBe(0);
  });

  it("many random delays come out in deadline order", async () => {
    const clock = new FakeClock(0);
    const q = new DelayingQueue<number>({ clock });
    const delays = Array.from({ length: 500 }, (_, i) => ((i * 7919) % 997) + 1);
    delays.forEach((d, i) => q.addAfter(i, d));
    expect(clock.waiters()).toBe(1);
    clock.step(1000);
    const order: number[] = [];
    while (q.len() > 0) order.push(await next(q));
    const sorted = delays.map((d, i) => [d, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(order).toEqual(sorted.map(([, i]) => i));
  });
});
