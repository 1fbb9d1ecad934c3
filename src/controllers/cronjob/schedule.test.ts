import { describe, expect, it } from "vitest";
import { parseGoDuration, parseSchedule } from "./schedule.js";

const T = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

describe("parseSchedule → next (robfig/cron ParseStandard)", () => {
  const cases: Array<[spec: string, after: string, next: string[]]> = [
    ["* * * * *", "2026-01-01T00:00:00Z", ["2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"]],
    ["*/15 * * * *", "2026-01-01T00:07:30Z", ["2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z"]],
    ["5/20 * * * *", "2026-01-01T00:00:00Z", ["2026-01-01T00:05:00Z", "2026-01-01T00:25:00Z", "2026-01-01T00:45:00Z", "2026-01-01T01:05:00Z"]],
    ["0 9-17/4 * * *", "2026-01-01T00:00:00Z", ["2026-01-01T09:00:00Z", "2026-01-01T13:00:00Z", "2026-01-01T17:00:00Z", "2026-01-02T09:00:00Z"]],
    ["30 2 * * MON-FRI", "2026-01-02T03:00:00Z", ["2026-01-05T02:30:00Z"]],
    ["0 0 1,15 * *", "2026-01-10T00:00:00Z", ["2026-01-15T00:00:00Z", "2026-02-01T00:00:00Z"]],
    // Day of month OR day of week when both are restricted.
    ["0 0 13 * 5", "2026-02-01T00:00:00Z", ["2026-02-06T00:00:00Z", "2026-02-13T00:00:00Z", "2026-02-20T00:00:00Z"]],
    // AND when one of them is *.
    ["0 0 * * 0", "2026-01-01T00:00:00Z", ["2026-01-04T00:00:00Z"]],
    ["0 0 ? * 0", "2026-01-01T00:00:00Z", ["2026-01-04T00:00:00Z"]],
    ["0 0 29 2 *", "2026-01-01T00:00:00Z", ["2028-02-29T00:00:00Z"]],
    ["0 12 * jan,JUL *", "2026-02-01T00:00:00Z", ["2026-07-01T12:00:00Z"]],
    ["@hourly", "2026-01-01T00:59:59Z", ["2026-01-01T01:00:00Z"]],
    ["@daily", "2026-01-01T00:00:00Z", ["2026-01-02T00:00:00Z"]],
    ["@weekly", "2026-01-01T00:00:00Z", ["2026-01-04T00:00:00Z"]],
    ["@monthly", "2026-01-01T00:00:00Z", ["2026-02-01T00:00:00Z"]],
    ["@yearly", "2026-01-01T00:00:00Z", ["2027-01-01T00:00:00Z"]],
    ["@every 90m", "2026-01-01T00:00:00Z", ["2026-01-01T01:30:00Z", "2026-01-01T03:00:00Z"]],
    // Time zones: wall-clock 09:00 in Tokyo is 00:00 UTC; New York across the March DST change.
    ["TZ=Asia/Tokyo 0 9 * * *", "2026-01-01T00:00:00Z", ["2026-01-02T00:00:00Z"]],
    ["CRON_TZ=America/New_York 0 9 * * *", "2026-03-07T00:00:00Z", ["2026-03-07T14:00:00Z", "2026-03-08T13:00:00Z"]],
    // 02:30 does not exist on 2026-03-08 in New York: that day's run is skipped, as robfig/cron does.
    ["TZ=America/New_York 30 2 * * *", "2026-03-07T12:00:00Z", ["2026-03-09T06:30:00Z"]],
    // 01:30 happens twice on 2026-11-01: it runs once, at the first.
    ["TZ=America/New_York 30 1 * * *", "2026-10-31T12:00:00Z", ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]],
  ];
  for (const [spec, after, want] of cases) {
    it(`${spec} after ${after}`, () => {
      const s = parseSchedule(spec);
      const got: string[] = [];
      let t = T(after);
      for (let i = 0; i < want.length; i++) {
        t = s.next(t);
        got.push(iso(t));
      }
      expect(got).toEqual(want);
    });
  }

  const errors: Array<[spec: string, message: RegExp]> = [
    ["", /empty spec string/],
    ["* * * *", /expected exactly 5 fields, found 4/],
    ["60 * * * *", /end of range \(60\) above maximum \(59\)/],
    ["* * 0 * *", /beginning of range \(0\) below minimum \(1\)/],
    ["5-1 * * * *", /beginning of range \(5\) beyond end of range \(1\)/],
    ["*/0 * * * *", /step of range should be a positive number/],
    ["x * * * *", /failed to parse int from x/],
    ["@fortnightly", /unrecognized descriptor/],
    ["TZ=Mars/Olympus 0 0 * * *", /provided bad location Mars\/Olympus/],
    ["* * * * 7", /above maximum \(6\)/],
  ];
  for (const [spec, message] of errors) {
    it(`rejects ${JSON.stringify(spec)}`, () => {
      expect(() => parseSchedule(spec)).toThrow(message);
    });
  }

  it("parses Go durations", () => {
    expect(parseGoDuration("1h30m")).toBe(5_400_000);
    expect(parseGoDuration("1.5s")).toBe(1500);
    expect(() => parseGoDuration("5 minutes")).toThrow(/invalid duration/);
  });
});
