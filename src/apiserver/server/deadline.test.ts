import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { deadlineExceeded, parseGoDuration, requestTimeoutMs } from "./deadline.js";

// Go's time.ParseDuration test table (time_test.go parseDurationTests), in milliseconds.
describe("parseGoDuration", () => {
  it.each([
    ["0", 0],
    ["5s", 5000],
    ["30s", 30_000],
    ["1478s", 1_478_000],
    ["-5s", -5000],
    ["+5s", 5000],
    ["-0", 0],
    ["+0", 0],
    ["5.0s", 5000],
    ["5.6s", 5600],
    ["5.s", 5000],
    [".5s", 500],
    ["1.0s", 1000],
    ["1.00s", 1000],
    ["1.004s", 1004],
    ["100.00100s", 100_001],
    ["10ns", 10e-6],
    ["11us", 11e-3],
    ["12µs", 12e-3],
    ["12μs", 12e-3],
    ["13ms", 13],
    ["14s", 14_000],
    ["15m", 900_000],
    ["16h", 57_600_000],
    ["3h30m", 12_600_000],
    ["10.5s4m", 250_500],
    ["-2m3.4s", -123_400],
    ["1h2m3s4ms5us6ns", 3_723_004.005006],
  ])("%s = %f ms", (s, ms) => {
    expect(parseGoDuration(s)).toBeCloseTo(ms, 6);
  });

  it.each([
    ["", 'time: invalid duration ""'],
    ["3", 'time: missing unit in duration "3"'],
    ["-", 'time: invalid duration "-"'],
    ["s", 'time: invalid duration "s"'],
    [".", 'time: invalid duration "."'],
    ["-.", 'time: invalid duration "-."'],
    [".s", 'time: invalid duration ".s"'],
    ["+.s", 'time: invalid duration "+.s"'],
    ["1d", 'time: unknown unit "d" in duration "1d"'],
    ["abc", 'time: invalid duration "abc"'],
  ])("%j fails with %s", (s, message) => {
    expect(() => parseGoDuration(s)).toThrow(message);
  });
});

describe("requestTimeoutMs (WithRequestDeadline)", () => {
  const q = (s: string) => new URLSearchParams(s);
  it.each([
    ["", 60_000],
    ["timeout=", 60_000],
    ["timeout=10s", 10_000],
    ["timeout=0s", 60_000],
    ["timeout=-5s", 60_000],
    ["timeout=2m", 60_000],
    ["timeout=1500ms", 1500],
  ])("%s → %i ms", (query, ms) => {
    expect(requestTimeoutMs(q(query), 60_000)).toBe(ms);
  });

  it("answers a malformed timeout with upstream's 400", () => {
    try {
      requestTimeoutMs(q("timeout=invalid"));
      expect.unreachable();
    } catch (err) {
      expect((err as StatusError).status).toMatchObject({
        code: 400,
        reason: "BadRequest",
        message: 'invalid timeout specified in the request URL - time: invalid duration "invalid"',
      });
    }
  });

  it("times out with upstream's 504", () => {
    expect(deadlineExceeded().status).toMatchObject({
      code: 504,
      reason: "Timeout",
      message: "Timeout: request did not complete within requested timeout - context deadline exceeded",
    });
  });
});
