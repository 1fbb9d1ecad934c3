import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  IntOrStringError,
  atoi,
  getScaledValueFromIntOrPercent,
  getValueFromIntOrPercent,
  intOrStringFromInt,
  intOrStringFromString,
  intOrStringIntValue,
  intOrStringToString,
  parseIntOrString,
  valueOrDefault,
} from "./intstr.js";
import type { IntOrString } from "./types.js";

type Case = { input: IntOrString | undefined; total?: number; roundUp?: boolean; err?: string; want?: number };

// Upstream: util/intstr/intstr_test.go TestGetIntFromIntOrPercent / TestGetValueFromIntOrPercent
describe("getScaledValueFromIntOrPercent", () => {
  const cases: Case[] = [
    { input: 123, want: 123 },
    { input: "90%", total: 100, roundUp: true, want: 90 },
    { input: "90%", total: 95, roundUp: true, want: 86 },
    { input: "90%", total: 95, roundUp: false, want: 85 },
    { input: "25%", total: 3, roundUp: true, want: 1 },
    { input: "25%", total: 3, roundUp: false, want: 0 },
    { input: "0%", total: 10, roundUp: true, want: 0 },
    { input: "200%", total: 10, roundUp: false, want: 20 },
    { input: "-10%", total: 10, roundUp: false, want: -1 },
    { input: "+10%", total: 10, roundUp: false, want: 1 },
    { input: "007%", total: 100, roundUp: false, want: 7 },
    { input: "%", err: 'invalid value for IntOrString: invalid value "%": strconv.Atoi: parsing "": invalid syntax' },
    { input: "90#", err: "invalid value for IntOrString: invalid type: string is not a percentage" },
    { input: "#%", err: 'invalid value for IntOrString: invalid value "#%": strconv.Atoi: parsing "#": invalid syntax' },
    { input: "90", err: "invalid value for IntOrString: invalid type: string is not a percentage" },
    { input: "90%%", err: 'invalid value for IntOrString: invalid value "90%%": strconv.Atoi: parsing "90%": invalid syntax' },
    { input: " 9%", err: "invalid syntax" },
    { input: "1_0%", err: "invalid syntax" },
    { input: "99999999999999999999%", err: 'strconv.Atoi: parsing "99999999999999999999": value out of range' },
    { input: undefined, err: "nil value for IntOrString" },
    { input: 1.5, err: "invalid value for IntOrString" },
    { input: 2 ** 31, err: "invalid value for IntOrString" },
  ];
  it.each(cases)("%j", (c) => {
    const run = () => getScaledValueFromIntOrPercent(c.input, c.total ?? 0, c.roundUp ?? false);
    if (c.err !== undefined) {
      expect(run).toThrow(IntOrStringError);
      expect(run).toThrow(c.err);
    } else expect(run()).toBe(c.want);
  });
  it("accepts int32 bounds", () => {
    expect(getScaledValueFromIntOrPercent(2 ** 31 - 1, 0, false)).toBe(2 ** 31 - 1);
    expect(getScaledValueFromIntOrPercent(-(2 ** 31), 0, false)).toBe(-(2 ** 31));
  });
});

describe("getValueFromIntOrPercent (deprecated reading)", () => {
  const cases: Case[] = [
    { input: 123, want: 123 },
    { input: "90%", total: 100, roundUp: true, want: 90 },
    { input: "90%", total: 95, roundUp: true, want: 86 },
    { input: "90%", total: 95, roundUp: false, want: 85 },
    { input: "90", total: 95, roundUp: false, want: 85 },
    { input: "9%0%", total: 100, roundUp: false, want: 90 },
    { input: "%", err: 'invalid value "%"' },
    { input: "90#", err: 'invalid value for IntOrString: invalid value "90#": strconv.Atoi: parsing "90#": invalid syntax' },
    { input: "#%", err: "invalid syntax" },
    { input: null as unknown as undefined, err: "nil value for IntOrString" },
  ];
  it.each(cases)("%j", (c) => {
    const run = () => getValueFromIntOrPercent(c.input, c.total ?? 0, c.roundUp ?? false);
    if (c.err !== undefined) expect(run).toThrow(c.err);
    else expect(run()).toBe(c.want);
  });
});

describe("constructors and conversions (TestFromInt, TestFromString, Parse, IntValue)", () => {
  it("fromInt / fromString", () => {
    expect(intOrStringFromInt(93)).toBe(93);
    expect(intOrStringFromString("76")).toBe("76");
    expect(() => intOrStringFromInt(2 ** 31)).toThrow("value: 2147483648 overflows int32");
    expect(() => intOrStringFromInt(0.5)).toThrow(IntOrStringError);
  });
  it("parse", () => {
    expect(parseIntOrString("5")).toBe(5);
    expect(parseIntOrString("-5")).toBe(-5);
    expect(parseIntOrString("5%")).toBe("5%");
    expect(parseIntOrString("abc")).toBe("abc");
    expect(parseIntOrString("99999999999")).toBe("99999999999");
  });
  it("string and int values", () => {
    expect(intOrStringToString(5)).toBe("5");
    expect(intOrStringToString("5%")).toBe("5%");
    expect(intOrStringIntValue("12")).toBe(12);
    expect(intOrStringIntValue("12%")).toBe(0);
    expect(intOrStringIntValue(7)).toBe(7);
  });
  it("valueOrDefault", () => {
    expect(valueOrDefault(undefined, "25%")).toBe("25%");
    expect(valueOrDefault(null, 1)).toBe(1);
    expect(valueOrDefault(0, 1)).toBe(0);
  });
  it("atoi", () => {
    expect(atoi("42")).toBe(42);
    expect(atoi("-0")).toBe(0);
    expect(atoi("9223372036854775807")).toBe(Number(2n ** 63n - 1n));
    expect(atoi("9223372036854775808")).toBe('strconv.Atoi: parsing "9223372036854775808": value out of range');
    expect(atoi("")).toBe('strconv.Atoi: parsing "": invalid syntax');
  });
});

describe("properties", () => {
  it("percent scaling rounds the way upstream does, and never throws for N%", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 100000 }), (pct, total) => {
        const up = getScaledValueFromIntOrPercent(`${pct}%`, total, true);
        const down = getScaledValueFromIntOrPercent(`${pct}%`, total, false);
        expect(down).toBeLessThanOrEqual(up);
        expect(up - down).toBeLessThanOrEqual(1);
        // Exact integer arithmetic for the same result.
        const num = pct * total;
        expect(down).toBe(Math.floor(num / 100));
        expect(up).toBe(num % 100 === 0 ? num / 100 : Math.floor(num / 100) + 1);
      }),
      { numRuns: 2000 },
    );
  });
  it("fuzz: any string yields a number or an IntOrStringError (10,000 runs)", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 12 }), fc.stringMatching(/^[-+]?[0-9%#]{0,8}%?$/)), fc.boolean(), (s, up) => {
        for (const fn of [getScaledValueFromIntOrPercent, getValueFromIntOrPercent]) {
          try {
            expect(Number.isFinite(fn(s, 100, up))).toBe(true);
          } catch (err) {
            if (!(err instanceof IntOrStringError)) throw err;
          }
        }
      }),
      { numRuns: 10_000 },
    );
  });
});
