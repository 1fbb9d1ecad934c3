/**
 * resource.Quantity parsing and its serialised form, restated from apimachinery's
 * pkg/api/resource/quantity_test.go (TestQuantityParse, TestQuantityString,
 * TestQuantityParseEmit, TestJSONWhitespace) at v0.36.3.
 */
import { describe, expect, it } from "vitest";
import { canonicalQuantity, compareQuantity, formatQuantity, parseQuantity, QuantityError, quantityFormatError, quantitySuffixError } from "./quantity.js";

/** value = unscaled × 10^scale, as decQuantity(unscaled, scale, format) builds it. */
function sameValue(input: string, unscaled: bigint, scale: number): boolean {
  return compareQuantity(parseQuantity(input), { unscaled, scale, format: "DecimalSI" }) === 0;
}

describe("parseQuantity (TestQuantityParse)", () => {
  const table: [string, bigint, number, string][] = [
    ["0", 0n, 0, "DecimalSI"],
    ["0n", 0n, 0, "DecimalSI"],
    ["0Ki", 0n, 0, "BinarySI"],
    ["1", 1n, 0, "DecimalSI"],
    ["1Ki", 1024n, 0, "BinarySI"],
    ["7Mi", 7n * 1024n * 1024n, 0, "BinarySI"],
    ["3Ei", 3n * 1024n ** 6n, 0, "BinarySI"],
    ["100Ti", 100n * 1024n ** 4n, 0, "BinarySI"],
    ["5n", 5n, -9, "DecimalSI"],
    ["50k", 5n, 4, "DecimalSI"],
    ["1E", 1n, 18, "DecimalSI"],
    ["1E-3", 1n, -3, "DecimalExponent"],
    ["1e3", 1n, 3, "DecimalExponent"],
    ["1e14", 1n, 14, "DecimalExponent"],
    ["100.035k", 100035n, 0, "DecimalSI"],
    ["0.0005k", 5n, -1, "DecimalSI"],
    ["0.50000", 5n, -1, "DecimalSI"],
    ["0.5e-2", 5n, -3, "DecimalExponent"],
    ["1.3E+6", 13n, 5, "DecimalExponent"],
    ["6.987654321G", 6987654321n, 0, "DecimalSI"],
    ["1.01E", 101n, 16, "DecimalSI"],
    // Rounded up to nano-units.
    ["3.001n", 4n, -9, "DecimalSI"],
    ["1.1E-9", 2n, -9, "DecimalExponent"],
    ["0.0000000005", 1n, -9, "DecimalSI"],
    ["0.00000012354", 124n, -9, "DecimalSI"],
    // Binary quantities are capped at 2^63-1.
    ["9Ei", (1n << 63n) - 1n, 0, "BinarySI"],
    ["9223372036854775807Ki", (1n << 63n) - 1n, 0, "BinarySI"],
    ["12E", 12n, 18, "DecimalSI"],
    ["100.035Ki", 10243584n, -2, "BinarySI"],
    ["0.05Gi", 536870912n, -1, "BinarySI"],
    // Below one, binary becomes decimal.
    ["0.000000000001Ki", 2n, -9, "DecimalSI"],
    [".001", 1n, -3, "DecimalSI"],
    ["1.", 1n, 0, "DecimalSI"],
    ["1.G", 1n, 9, "DecimalSI"],
  ];
  for (const [input, unscaled, scale, format] of table) {
    it(input, () => {
      expect(sameValue(input, unscaled, scale)).toBe(true);
      expect(sameValue(`-${input}`, -unscaled, scale)).toBe(true);
      expect(sameValue(`+${input}`, unscaled, scale)).toBe(true);
      if (unscaled !== 0n) expect(parseQuantity(input).format).toBe(format);
    });
  }

  const invalid: [string, string][] = [
    ["", quantityFormatError],
    ["1.1.M", quantityFormatError],
    ["1+1.0M", quantityFormatError],
    ["0.1mi", quantitySuffixError],
    ["0.1am", quantityFormatError],
    ["aoeu", quantityFormatError],
    [".5i", quantitySuffixError],
    ["-3.01e-", quantitySuffixError],
    [" 1", quantityFormatError],
    ["1 ", quantityFormatError],
    ["1K", quantitySuffixError],
  ];
  for (const [input, message] of invalid) {
    it(`rejects ${JSON.stringify(input)}`, () => {
      expect(() => parseQuantity(input)).toThrow(QuantityError);
      expect(() => parseQuantity(input)).toThrow(message);
    });
  }
});

describe("formatQuantity (TestQuantityString, TestQuantityParseEmit)", () => {
  // [canonical form, an alternate spelling of the same value (or "")]
  const table: [string, string][] = [
    ["1Gi", "1024Mi"],
    ["300Mi", "307200Ki"],
    ["6Ki", ""],
    ["1001Gi", "1025024Mi"],
    ["1Ti", "1024Gi"],
    ["5", "5000m"],
    ["500m", "0.5"],
    ["1G", "1000M"],
    ["1G", "0.001T"],
    ["1m", "1000u"],
    ["80m", ""],
    ["1080m", "1.08"],
    ["1080m", "1080000000n"],
    ["300M", ""],
    ["1T", ""],
    ["1234567M", ""],
    ["3k", ""],
    ["1025", ""],
    ["0", "00"],
    ["1e9", ".001e12"],
    ["1e-3", "0.001e0"],
    ["1e-9", "1000e-12"],
    ["80e-3", ""],
    ["300e6", ""],
    ["1n", ""],
    ["1080n", ""],
    ["1u", ""],
    ["1080u", ""],
  ];
  for (const [canonical, alternate] of table) {
    it(`${canonical}${alternate ? ` ← ${alternate}` : ""}`, () => {
      // The canonical form is kept as written (upstream caches it on parse).
      expect(parseQuantity(canonical).cached).toBe(canonical);
      expect(formatQuantity(parseQuantity(canonical))).toBe(canonical);
      if (canonical !== "0") expect(canonicalQuantity(`-${canonical}`)).toBe(`-${canonical}`);
      if (alternate) {
        expect(parseQuantity(alternate).cached).toBeUndefined();
        expect(canonicalQuantity(alternate)).toBe(canonical);
      }
    });
  }

  const emit: [string, string][] = [
    ["1024Mi", "1Gi"],
    ["1000M", "1G"],
    [".001Ki", "1024m"],
    [".000001Ki", "1024u"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
    // Forms kubectl users write, as a 1.36 server stores them.
    ["1000m", "1"],
    ["0.5Gi", "512Mi"],
    ["1.5Gi", "1536Mi"],
    ["1000", "1k"],
    ["0.1", "100m"],
    ["1.500", "1.500"],
    ["+1", "+1"],
    ["01", "01"],
    ["1e3", "1e3"],
    ["1.5e3", "1500"],
  ];
  for (const [input, want] of emit) {
    it(`${input} → ${want}`, () => {
      expect(canonicalQuantity(input)).toBe(want);
      if (want !== "0" && !input.startsWith("+")) expect(canonicalQuantity(`-${input}`)).toBe(want.startsWith("+") ? want : `-${want.replace(/^\+/, "")}`);
    });
  }

  it("trims surrounding space as UnmarshalJSON does (TestJSONWhitespace)", () => {
    expect(canonicalQuantity(" 1")).toBe("1");
    expect(canonicalQuantity("1 ")).toBe("1");
    expect(canonicalQuantity(" -1")).toBe("-1");
  });
});
