import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { ObjectName } from "../apimachinery/objectname.js";
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  ItemFastSlowRateLimiter,
  MaxOfRateLimiter,
  WithMaxWaitRateLimiter,
  defaultControllerRateLimiter,
} from "./ratelimiters.js";
import type { RateLimiter } from "./ratelimiters.js";
import { TokenBucket } from "./tokenbucket.js";

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** Runs a table of steps: ["when", item, expected delay], ["requeues", item, expected count], ["forget", item]. */
function expectSequence<T>(limiter: RateLimiter<T>, steps: Array<["when" | "requeues" | "forget", T, number?]>): void {
  for (const [i, [op, item, want]] of steps.entries()) {
    if (op === "when") expect(limiter.when(item), `step ${i}: when(${String(item)})`).toBe(want);
    else if (op === "requeues") expect(limiter.numRequeues(item), `step ${i}: numRequeues(${String(item)})`).toBe(want);
    else limiter.forget(item);
  }
}

describe("rate limiters (upstream default_rate_limiters_test.go)", () => {
  it("TestItemExponentialFailureRateLimiter", () => {
    expectSequence(new ItemExponentialFailureRateLimiter<string>(1, 1 * second), [
      ["when", "one", 1],
      ["when", "one", 2],
      ["when", "one", 4],
      ["when", "one", 8],
      ["when", "one", 16],
      ["requeues", "one", 5],
      ["when", "two", 1],
      ["when", "two", 2],
      ["requeues", "two", 2],
      ["forget", "one"],
      ["requeues", "one", 0],
      ["when", "one", 1],
    ]);
  });

  it("TestItemExponentialFailureRateLimiterOverFlow", () => {
    let limiter = new ItemExponentialFailureRateLimiter<string>(1, 1000 * second);
    for (let i = 0; i < 5; i++) limiter.when("one");
    expect(limiter.when("one")).toBe(32);
    for (let i = 0; i < 1000; i++) limiter.when("overflow1");
    expect(limiter.when("overflow1")).toBe(1000 * second);

    limiter = new ItemExponentialFailureRateLimiter<string>(1 * minute, 1000 * hour);
    for (let i = 0; i < 2; i++) limiter.when("two");
    expect(limiter.when("two")).toBe(4 * minute);
    for (let i = 0; i < 1000; i++) limiter.when("overflow2");
    expect(limiter.when("overflow2")).toBe(1000 * hour);
    // Exponents past float range (2^1024 = Infinity) still cap at max.
    for (let i = 0; i < 2000; i++) limiter.when("overflow3");
    expect(limiter.when("overflow3")).toBe(1000 * hour);
  });

  it("TestItemFastSlowRateLimiter", () => {
    expectSequence(new ItemFastSlowRateLimiter<string>(5, 10 * second, 3), [
      ["when", "one", 5],
      ["when", "one", 5],
      ["when", "one", 5],
      ["when", "one", 10 * second],
      ["when", "one", 10 * second],
      ["requeues", "one", 5],
      ["when", "two", 5],
      ["when", "two", 5],
      ["requeues", "two", 2],
      ["forget", "one"],
      ["requeues", "one", 0],
      ["when", "one", 5],
    ]);
  });

  it("TestMaxOfRateLimiter", () => {
    const limiter = new MaxOfRateLimiter<string>(
      new ItemFastSlowRateLimiter(5, 3 * second, 3),
      new ItemExponentialFailureRateLimiter(1, 1 * second),
    );
    expectSequence(limiter, [
      ["when", "one", 5],
      ["when", "one", 5],
      ["when", "one", 5],
      ["when", "one", 3 * second],
      ["when", "one", 3 * second],
      ["requeues", "one", 5],
      ["when", "two", 5],
      ["when", "two", 5],
      ["requeues", "two", 2],
      ["forget", "one"],
      ["requeues", "one", 0],
      ["when", "one", 5],
    ]);
  });

  it("TestWithMaxWaitRateLimiter", () => {
    // upstream's StepRateLimiter: baseDelay for the first `threshold` calls, maxDelay after.
    let count = 0;
    const step: RateLimiter<number> = {
      when: () => (++count <= 100 ? 5 : 1000 * second),
      numRequeues: () => 0,
      forget: () => {},
    };
    const limiter = new WithMaxWaitRateLimiter(step, 500 * second);
    for (let i = 0; i < 100; i++) expect(limiter.when(i)).toBe(5);
    for (let i = 100; i < 200; i++) expect(limiter.when(i)).toBe(500 * second);
  });
});

describe("per-item identity", () => {
  it("counts equal ObjectNames as one item", () => {
    const limiter = new ItemExponentialFailureRateLimiter<ObjectName>(1, second);
    limiter.when(new ObjectName("ns", "a"));
    limiter.when(new ObjectName("ns", "a"));
    expect(limiter.numRequeues(new ObjectName("ns", "a"))).toBe(2);
    limiter.forget(new ObjectName("ns", "a"));
    expect(limiter.numRequeues(new ObjectName("ns", "a"))).toBe(0);
  });
});

describe("BucketRateLimiter / TokenBucket", () => {
  it("allows the burst at once, then spaces reservations at 1/qps", () => {
    const clock = new FakeClock(0);
    const limiter = new BucketRateLimiter<string>(10, 100, clock);
    for (let i = 0; i < 100; i++) expect(limiter.when(`i${i}`)).toBe(0);
    expect(limiter.when("a")).toBe(100);
    expect(limiter.when("b")).toBe(200);
    expect(limiter.when("c")).toBe(300);
    expect(limiter.numRequeues("a")).toBe(0);
  });

  it("refills from the clock, capped at the burst", () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(10, 5, clock);
    for (let i = 0; i < 5; i++) expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBe(100); // in debt by one token
    clock.step(100); // repays it
    expect(bucket.available()).toBe(0);
    clock.step(250);
    expect(bucket.available()).toBe(2.5);
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBe(50); // half a token short
    clock.step(60 * second);
    expect(bucket.available()).toBe(5);
  });

  it("reservations made in debt wait their turn, like x/time/rate's Reserve().Delay()", () => {
    const clock = new FakeClock(0);
    const bucket = new TokenBucket(2, 1, clock);
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBe(500);
    clock.step(200);
    expect(bucket.reserve()).toBe(800);
  });

  it("qps Infinity never waits; burst 0 or an empty never-refilling bucket never allows", () => {
    const clock = new FakeClock(0);
    const inf = new TokenBucket(Infinity, 0, clock);
    for (let i = 0; i < 1000; i++) expect(inf.reserve()).toBe(0);
    expect(new TokenBucket(10, 0, clock).reserve()).toBe(Infinity);
    const never = new TokenBucket(0, 2, clock);
    expect(never.reserve()).toBe(0);
    expect(never.reserve()).toBe(0);
    expect(never.reserve()).toBe(Infinity);
    clock.step(hour);
    expect(never.reserve()).toBe(Infinity);
    expect(() => new TokenBucket(-1, 1, clock)).toThrow(RangeError);
  });
});

describe("defaultControllerRateLimiter", () => {
  it("is the max of 5 ms·2^n (capped at 1000 s) and a 10 qps / 100 burst bucket", () => {
    const clock = new FakeClock(0);
    const limiter = defaultControllerRateLimiter<string>(clock);
    // The bucket allows 100 at once: the per-item exponential decides.
    for (let i = 0; i < 100; i++) expect(limiter.when(`item-${i}`)).toBe(5);
    expect(limiter.when("item-0")).toBe(100); // bucket: 1 token short = 100 ms > 10 ms
    clock.step(10 * second); // bucket full again
    for (let i = 0; i < 10; i++) limiter.when("hot");
    expect(limiter.when("hot")).toBe(5 * 2 ** 10);
    for (let i = 0; i < 30; i++) limiter.when("hot");
    expect(limiter.when("hot")).toBe(1000 * second);
    expect(limiter.numRequeues("hot")).toBe(42);
    limiter.forget("hot");
    expect(limiter.numRequeues("hot")).toBe(0);
  });
});
