import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { ItemExponentialFailureRateLimiter } from "./ratelimiters.js";
import type { RateLimiter } from "./ratelimiters.js";
import { RateLimitingQueue } from "./ratelimiting.js";

/** Wraps a limiter and records the delays it hands out. */
function recording<T>(inner: RateLimiter<T>): { limiter: RateLimiter<T>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    limiter: {
      when: (item) => {
        const d = inner.when(item);
        delays.push(d);
        return d;
      },
      forget: (item) => inner.forget(item),
      numRequeues: (item) => inner.numRequeues(item),
    },
  };
}

describe("RateLimitingQueue (upstream rate_limiting_queue_test.go)", () => {
  it("TestRateLimitingQueue: addRateLimited waits as the limiter says; forget resets", () => {
    const clock = new FakeClock(0);
    const { limiter, delays } = recording(new ItemExponentialFailureRateLimiter<string>(1, 1000));
    const q = new RateLimitingQueue<string>(limiter, { clock });

    q.addRateLimited("one");
    expect(delays.at(-1)).toBe(1);
    expect(clock.nextDeadline()).toBe(1);
    q.addRateLimited("one");
    expect(delays.at(-1)).toBe(2);
    expect(q.numRequeues("one")).toBe(2);
    expect(clock.nextDeadline()).toBe(1); // the earlier deadline wins

    q.addRateLimited("two");
    expect(delays.at(-1)).toBe(1);
    q.addRateLimited("two");
    expect(delays.at(-1)).toBe(2);

    q.forget("one");
    expect(q.numRequeues("one")).toBe(0);
    q.addRateLimited("one");
    expect(delays.at(-1)).toBe(1);

    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(2);
  });

  it("a failing item is retried with growing delays until forgotten", async () => {
    const clock = new FakeClock(0);
    const q = new RateLimitingQueue<string>(new ItemExponentialFailureRateLimiter<string>(10, 1000), { clock });
    const attempts: number[] = [];
    q.add("job");
    const worker = (async () => {
      for (;;) {
        const r = await q.get();
        if (r.shutdown) return;
        attempts.push(clock.now());
        if (attempts.length < 4) q.addRateLimited(r.item);
        else q.forget(r.item);
        q.done(r.item);
      }
    })();
    await clock.advance(1000);
    q.shutDown();
    await worker;
    expect(attempts).toEqual([0, 10, 30, 70]);
    expect(q.numRequeues("job")).toBe(0);
  });
});
