import { describe, expect, it } from "vitest";
/** The nano-unit helpers over ParseQuantity (quantityNanos, compareQuantities, quantitiesEqual, quantityValue). */
import { compareQuantities, QuantityError, MAX_QUANTITY_NANOS, mustQuantityNanos, quantityNanos, quantitiesEqual, quantityValue } from "./quantity.js";

const n = (units: number | bigint, exp10 = 0): bigint => {
  // units × 10^exp10, in nano-units
  const e = exp10 + 9;
  return e >= 0 ? BigInt(units) * 10n ** BigInt(e) : BigInt(units) / 10n ** BigInt(-e);
};

// apimachinery resource/quantity_test.go TestQuantityParse, restated: input → amount.
const parsed: Array<[string, bigint]> = [
  ["0", 0n],
  ["0n", 0n],
  ["0Ki", 0n],
  ["0Ti", 0n],
  ["1", n(1)],
  ["1Ki", n(1024)],
  ["8Ki", n(8 * 1024)],
  ["7Mi", n(7 * 1024 * 1024)],
  ["6Gi", n(6 * 1024 ** 3)],
  ["5Ti", n(5 * 1024 ** 4)],
  ["4Pi", n(4n * 1024n ** 5n)],
  ["3Ei", n(3n * 1024n ** 6n)],
  ["5n", 5n],
  ["4u", n(4, -6)],
  ["3m", n(3, -3)],
  ["8k", n(8, 3)],
  ["50k", n(5, 4)],
  ["7M", n(7, 6)],
  ["2P", n(2, 15)],
  ["1E", n(1, 18)],
  ["1E-3", n(1, -3)],
  ["1e3", n(1, 3)],
  ["1E18", n(1, 18)],
  ["100.035k", n(100035)],
  ["0.001", n(1, -3)],
  ["0.0005k", n(5, -1)],
  ["0.5e-2", n(5, -3)],
  ["10.035M", n(10035, 3)],
  ["1.3E+6", n(13, 5)],
  ["7.123456M", n(7123456)],
  ["1.01E", n(101, 16)],
  // things that round up to a nano-unit
  ["3.001n", 4n],
  ["1.1E-9", 2n],
  ["0.0000000001", 1n],
  ["0.5e-9", 1n],
  ["0.00000012345", 124n],
  // saturation
  ["9Ei", MAX_QUANTITY_NANOS],
  ["9223372036854775807Ki", MAX_QUANTITY_NANOS],
  // fractional binary
  ["100.035Ki", n(10243584, -2)],
  ["0.5Mi", n(0.5 * 1024 * 1024)],
  // "things written by trolls"
  ["0.000000000001Ki", 2n],
  [".001", n(1, -3)],
  [".0001k", n(100, -3)],
  ["1.", n(1)],
  ["1.G", n(1, 9)],
  [".", 0n],
  ["-1.025Ti", -(n(1025n * 1024n ** 4n) / 1000n)],
  ["+5", n(5)],
];

// TestQuantityParse's invalid inputs (ParseQuantity returns ErrFormatWrong or ErrSuffix).
const invalid = ["", "1.1.M", "1+1.0M", "0.1mi", "0.1am", "aoeu", ".5i", "1i", "-3.01i", "-3.01e-", "1e", " 1", "1 ", "1Kib"];

describe("quantityNanos (apimachinery TestQuantityParse)", () => {
  it.each(parsed)("%s", (input, want) => expect(quantityNanos(input)).toBe(want));
  it.each(invalid)("rejects %j", (input) => {
    expect(quantityNanos(input)).toBeUndefined();
    expect(() => mustQuantityNanos(input)).toThrow(QuantityError);
  });
  it("accepts JSON numbers", () => {
    expect(quantityNanos(2)).toBe(n(2));
    expect(quantityNanos(0.5)).toBe(n(5, -1));
    expect(quantityNanos(Number.NaN)).toBeUndefined();
  });
  it("reports upstream's format error", () => {
    expect(() => mustQuantityNanos("aoeu")).toThrow(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  });
});

describe("compareQuantities (TestQuantityCmp) and equality", () => {
  it.each([
    ["0", "0", 0],
    ["100m", "50m", 1],
    ["50m", "100m", -1],
    ["10000T", "100Gi", 1],
    ["1", "1000m", 0],
    ["1Ki", "1024", 0],
  ] as const)("%s vs %s", (a, b, want) => expect(compareQuantities(a, b)).toBe(want));
  it("equal amounts in other notations", () => {
    expect(quantitiesEqual("1e3", "1k")).toBe(true);
    expect(quantitiesEqual("1", 1)).toBe(true);
    expect(quantitiesEqual("1", "2")).toBe(false);
    expect(quantitiesEqual("x", "x")).toBe(false);
  });
  it("quantityValue gives base units as a float", () => {
    expect(quantityValue("500m")).toBe(0.5);
    expect(quantityValue("1Gi")).toBe(1073741824);
    expect(() => quantityValue("nope")).toThrow(QuantityError);
  });
});
