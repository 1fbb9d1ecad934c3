import { describe, expect, it } from "vitest";
import { FakeClock } from "../apimachinery/clock.js";
import { ControllerExpectations, EXPECTATIONS_TIMEOUT_MS, UIDTrackingControllerExpectations } from "./expectations.js";

describe("ControllerExpectations (upstream TestControllerExpectations)", () => {
  it("tracks adds and deletes, is satisfied when surpassed, and expires after the timeout", () => {
    const clock = new FakeClock();
    const e = new ControllerExpectations(clock);
    const adds = 10;
    const dels = 30;
    const rcKey = "default/foobar";

    e.setExpectations(rcKey, adds, dels);
    for (let i = 0; i < adds + 1; i++) e.creationObserved(rcKey);
    // There are still delete expectations.
    expect(e.satisfiedExpectations(rcKey)).toBe(false);
    for (let i = 0; i < dels + 1; i++) e.deletionObserved(rcKey);

    // Expectations have been surpassed.
    expect(e.getExpectations(rcKey)).toMatchObject({ add: -1, del: -1 });
    expect(e.satisfiedExpectations(rcKey)).toBe(true);

    // Next round of sync: old expectations are cleared.
    e.setExpectations(rcKey, 1, 2);
    expect(e.getExpectations(rcKey)).toEqual({ add: 1, del: 2, timestamp: clock.now() });

    // Not expired at exactly the timeout, expired just after it.
    clock.step(EXPECTATIONS_TIMEOUT_MS);
    expect(e.satisfiedExpectations(rcKey)).toBe(false);
    clock.step(1);
    expect(e.satisfiedExpectations(rcKey)).toBe(true);
  });

  it("is satisfied when no expectations were ever set, and after deleteExpectations", () => {
    const e = new ControllerExpectations(new FakeClock());
    expect(e.satisfiedExpectations("ns/x")).toBe(true);
    expect(e.getExpectations("ns/x")).toBeUndefined();
    e.expectCreations("ns/x", 2);
    expect(e.satisfiedExpectations("ns/x")).toBe(false);
    e.deleteExpectations("ns/x");
    expect(e.satisfiedExpectations("ns/x")).toBe(true);
    expect(e.getExpectations("ns/x")).toBeUndefined();
  });

  it("expectCreations / expectDeletions set one side to zero; raise and lower adjust without resetting the timestamp", () => {
    const clock = new FakeClock();
    const e = new ControllerExpectations(clock);
    e.expectCreations("k", 3);
    expect(e.getExpectations("k")).toMatchObject({ add: 3, del: 0 });
    e.expectDeletions("k", 2);
    expect(e.getExpectations("k")).toMatchObject({ add: 0, del: 2 });
    const t0 = clock.now();
    clock.step(1000);
    e.raiseExpectations("k", 2, 1);
    expect(e.getExpectations("k")).toEqual({ add: 2, del: 3, timestamp: t0 });
    e.lowerExpectations("k", 2, 3);
    expect(e.getExpectations("k")).toEqual({ add: 0, del: 0, timestamp: t0 });
    expect(e.satisfiedExpectations("k")).toBe(true);
    // Without expectations, raise/lower/observe do nothing.
    e.raiseExpectations("none", 1, 1);
    e.creationObserved("none");
    expect(e.getExpectations("none")).toBeUndefined();
  });

  it("hands out copies", () => {
    const e = new ControllerExpectations(new FakeClock());
    e.expectCreations("k", 1);
    const snap = e.getExpectations("k")!;
    snap.add = 0;
    expect(e.satisfiedExpectations("k")).toBe(false);
  });
});

describe("UIDTrackingControllerExpectations (upstream TestUIDExpectations)", () => {
  it("is satisfied only after each expected pod's deletion was observed, counted once", () => {
    const uidExp = new UIDTrackingControllerExpectations(new FakeClock());
    const rcToPods = new Map<string, string[]>();
    const rcKeys: string[] = [];
    for (let i = 0; i < 4; i++) {
      const rcKey = `default/rc-${i}`;
      const pods = Array.from({ length: 5 }, (_, j) => `default/pod${j}-rc-${i}`);
      rcKeys.push(rcKey);
      rcToPods.set(rcKey, pods);
      uidExp.expectDeletions(rcKey, pods);
    }
    // A fixed shuffle instead of upstream's random one.
    for (const rcKey of [rcKeys[2], rcKeys[0], rcKeys[3], rcKeys[1]]) {
      expect(uidExp.satisfiedExpectations(rcKey)).toBe(false);
      const pods = rcToPods.get(rcKey)!;
      for (const p of pods) uidExp.deletionObserved(rcKey, p);
      // Observing the same deletion again (e.g. a tombstone) does not count twice.
      uidExp.deletionObserved(rcKey, pods[0]);
      expect(uidExp.getExpectations(rcKey)).toMatchObject({ add: 0, del: 0 });
      expect(uidExp.satisfiedExpectations(rcKey)).toBe(true);
      uidExp.deleteExpectations(rcKey);
      expect(uidExp.getSet(rcKey)).toBeUndefined();
      expect(uidExp.getUIDs(rcKey)).toBeUndefined();
    }
  });

  it("ignores deletions of pods it did not expect", () => {
    const uidExp = new UIDTrackingControllerExpectations(new FakeClock());
    uidExp.expectDeletions("ns/rs", ["ns/a", "ns/b", "ns/a"]);
    expect(uidExp.getExpectations("ns/rs")).toMatchObject({ add: 0, del: 2 });
    uidExp.deletionObserved("ns/rs", "ns/other");
    expect(uidExp.getExpectations("ns/rs")).toMatchObject({ del: 2 });
    uidExp.deletionObserved("ns/rs", "ns/a");
    expect([...uidExp.getSet("ns/rs")!]).toEqual(["ns/b"]);
    expect(uidExp.satisfiedExpectations("ns/rs")).toBe(false);
  });

  it("still takes plain counts and creations", () => {
    const uidExp = new UIDTrackingControllerExpectations(new FakeClock());
    uidExp.expectCreations("k", 1);
    uidExp.creationObserved("k");
    expect(uidExp.satisfiedExpectations("k")).toBe(true);
    uidExp.expectDeletions("k", 1);
    uidExp.deletionObserved("k");
    expect(uidExp.satisfiedExpectations("k")).toBe(true);
  });
});
