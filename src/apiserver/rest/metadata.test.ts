import { describe, expect, it } from "vitest";
import { formatTime } from "./metadata.js";

describe("formatTime", () => {
  it("is RFC 3339 at second precision, whatever order the instants come in", () => {
    const reference = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
    const base = Date.parse("2026-11-29T12:20:09.123Z");
    for (const ms of [base, base + 1, base + 876, base + 877, base + 877, base - 124, base - 123, base + 60_000, base, 0, -1, base]) {
      expect(formatTime(ms)).toBe(reference(ms));
    }
    expect(formatTime(base)).toBe("2026-11-29T12:20:09Z");
    expect(() => formatTime(Number.NaN)).toThrow(RangeError);
  });
});
