import { describe, expect, it } from "vitest";
import { FakeClock, flushMicrotasks } from "../apimachinery/clock.js";
import { rateLimiterFor, TokenBucketRateLimiter, unlimitedRateLimiter } from "./ratelimit.js";

describe("TokenBucketRateLimiter", () => {
  it("starts full: burst requests pass at once, then one per 1/qps", async () => {
    const clock = new FakeClock();
    const rl = new TokenBucketRateLimiter(5, 10, clock);
    for (let i = 0; i < 10; i++) expect(rl.tryAccept()).toBe(true);
    expect(rl.tryAccept()).toBe(false);
    expect(rl.delay()).toBeCloseTo(200);
    clock.step(199);
    expect(rl.tryAccept()).toBe(false);
    clock.step(1);
    expect(rl.tryAccept()).toBe(true);
  });

  it("queues waiters in arrival order at the refill rate", async () => {
    const clock = new FakeClock();
    const rl = new TokenBucketRateLimiter(2, 1, clock);
    const done: number[] = [];
    const waits = [0, 1, 2].map((i) => rl.wait().then(() => done.push(i)));
    await flushMicrotasks();
    expect(done).toEqual([0]);
    await clock.advance(499);
    expect(done).toEqual([0]);
    await clock.advance(1);
    expect(done).toEqual([0, 1]);
    await clock.advance(500);
    expect(done).toEqual([0, 1, 2]);
    await Promise.all(waits);
  });

  it("refills at most to burst", () => {
    const clock = new FakeClock();
    const rl = new TokenBucketRateLimiter(5, 3, clock);
    for (let i = 0; i < 3; i++) rl.tryAccept();
    clock.step(3_600_000);
    let n = 0;
    while (rl.tryAccept()) n++;
    expect(n).toBe(3);
  });

  it("a cancelled wait rejects with the signal's reason and returns its token", async () => {
    const clock = new FakeClock();
    const rl = new TokenBucketRateLimiter(1, 1, clock);
    await rl.wait();
    const ac = new AbortController();
    const p = rl.wait(ac.signal);
    ac.abort(new Error("stop"));
    await expect(p).rejects.toThrow("stop");
    // The cancelled reservation was given back: the next caller waits one period, not two.
    expect(rl.delay()).toBeCloseTo(1000);
  });

  it("rateLimiterFor: client-go defaults 5/10, negative QPS disables, custom wins", () => {
    const clock = new FakeClock();
    const d = rateLimiterFor({}, clock) as TokenBucketRateLimiter;
    expect([d.qps, d.burst]).toEqual([5, 10]);
    const c = rateLimiterFor({ qps: 50, burst: 100 }, clock) as TokenBucketRateLimiter;
    expect([c.qps, c.burst]).toEqual([50, 100]);
    expect(rateLimiterFor({ qps: -1 }, clock)).toBe(unlimitedRateLimiter);
    const mine = new TokenBucketRateLimiter(1, 1, clock);
    expect(rateLimiterFor({ rateLimiter: mine }, clock)).toBe(mine);
  });
});
