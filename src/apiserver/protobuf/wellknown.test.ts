import { describe, expect, it } from "vitest";
import { formatDuration, formatMicroTime, formatTime, parseDuration, parseRFC3339 } from "./wellknown.js";

describe("Go time.Duration strings", () => {
  // Cases from Go's time.Duration.String tests.
  const cases: [bigint, string][] = [
    [0n, "0s"],
    [1n, "1ns"],
    [1100n, "1.1µs"],
    [2_200_000n, "2.2ms"],
    [3_300_000_000n, "3.3s"],
    [4n * 60n * 1_000_000_000n + 5_000_000_000n, "4m5s"],
    [4n * 60n * 1_000_000_000n + 5_001_000_000n, "4m5.001s"],
    [5n * 3600n * 1_000_000_000n + 6n * 60n * 1_000_000_000n + 7_001_000_000n, "5h6m7.001s"],
    [8n * 60n * 1_000_000_000n + 1n, "8m0.000000001s"],
    [3600n * 1_000_000_000n, "1h0m0s"],
    [-1_000_000n, "-1ms"],
    [9223372036854775807n, "2562047h47m16.854775807s"],
  ];
  it.each(cases)("%s ns → %s", (nanos, text) => {
    expect(formatDuration(nanos)).toBe(text);
    expect(parseDuration(text)).toBe(nanos);
  });

  it("parses other spellings", () => {
    expect(parseDuration("1.5h")).toBe(5400n * 1_000_000_000n);
    expect(parseDuration("300us")).toBe(300_000n);
    expect(parseDuration("0")).toBe(0n);
    expect(() => parseDuration("")).toThrow(RangeError);
    expect(() => parseDuration("5")).toThrow(RangeError);
    expect(() => parseDuration("1x")).toThrow(RangeError);
  });
});

describe("metav1.Time and MicroTime strings", () => {
  it("formats UTC with second or microsecond precision", () => {
    expect(formatTime(0n)).toBe("1970-01-01T00:00:00Z");
    expect(formatTime(1704164645n)).toBe("2024-01-02T03:04:05Z");
    expect(formatTime(-1n)).toBe("1969-12-31T23:59:59Z");
    expect(formatMicroTime(1704164645n, 123456789)).toBe("2024-01-02T03:04:05.123456Z");
    expect(formatMicroTime(1704164645n, 0)).toBe("2024-01-02T03:04:05.000000Z");
  });

  it("parses RFC 3339 with zones and fractions", () => {
    expect(parseRFC3339("2024-01-02T03:04:05Z")).toEqual({ seconds: 1704164645n, nanos: 0 });
    expect(parseRFC3339("2024-01-02T04:04:05+01:00")).toEqual({ seconds: 1704164645n, nanos: 0 });
    expect(parseRFC3339("2024-01-02T03:04:05.5Z")).toEqual({ seconds: 1704164645n, nanos: 500_000_000 });
    expect(() => parseRFC3339("yesterday")).toThrow(RangeError);
  });
});
