import { describe, expect, it } from "vitest";
import { InFlightLimiter, inFlightKindOf } from "./inflight.js";

describe("InFlightLimiter", () => {
  it("has upstream's defaults: 400 read-only, 200 mutating", () => {
    expect(new InFlightLimiter().limits).toEqual({ readOnly: 400, mutating: 200 });
    expect(new InFlightLimiter({ readOnly: undefined, mutating: 3 }).limits).toEqual({ readOnly: 400, mutating: 3 });
  });

  it("refuses a seat once its pool is full, independently of the other pool", () => {
    const l = new InFlightLimiter({ readOnly: 2, mutating: 1 });
    const r1 = l.tryAcquire("readOnly");
    const r2 = l.tryAcquire("readOnly");
    expect(r1 && r2).toBeTruthy();
    expect(l.tryAcquire("readOnly")).toBeUndefined();
    const m1 = l.tryAcquire("mutating");
    expect(m1).toBeDefined();
    expect(l.tryAcquire("mutating")).toBeUndefined();
    expect(l.inFlight("readOnly")).toBe(2);
    r1!();
    r1!(); // a second release does nothing
    expect(l.inFlight("readOnly")).toBe(1);
    expect(l.tryAcquire("readOnly")).toBeDefined();
    m1!();
    expect(l.inFlight("mutating")).toBe(0);
  });

  it.each([
    ["GET", "readOnly"],
    ["HEAD", "readOnly"],
    ["POST", "mutating"],
    ["PUT", "mutating"],
    ["PATCH", "mutating"],
    ["DELETE", "mutating"],
  ])("%s is %s", (method, kind) => {
    expect(inFlightKindOf(method)).toBe(kind);
  });
});
