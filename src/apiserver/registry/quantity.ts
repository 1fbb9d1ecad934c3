/**
 * Resource quantities ("500m", "1Gi", "1e3"), parsed exactly into nano-units (a bigint) so that
 * requests, limits and QoS classes compare the way resource.Quantity.Cmp does. Values finer than
 * a nano-unit round up, as upstream's internal representation does.
 */

const binary: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const decimalExp: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const quantityRegexp = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** Nano-units of a quantity, or undefined when the string is not a quantity. */
export function parseQuantity(s: string): bigint | undefined {
  const m = quantityRegexp.exec(s);
  if (!m) return undefined;
  const negative = m[1] === "-";
  const [intPart, fracPart = ""] = m[2].split(".");
  let digits = BigInt((intPart || "0") + fracPart);
  let exp10 = -fracPart.length + 9; // nano-units
  let mult = 1n;
  const suffix = m[3] ?? "";
  if (suffix in binary) mult = binary[suffix];
  else if (suffix in decimalExp) exp10 += decimalExp[suffix];
  else exp10 += Number(suffix.slice(1));
  digits *= mult;
  let value: bigint;
  if (exp10 >= 0) value = digits * 10n ** BigInt(exp10);
  else {
    const d = 10n ** BigInt(-exp10);
    value = digits / d + (digits % d === 0n ? 0n : 1n);
  }
  return negative ? -value : value;
}

/** Compares two quantity strings: -1, 0 or 1 (invalid strings compare as zero). */
export function compareQuantities(a: string, b: string): number {
  const x = parseQuantity(a) ?? 0n;
  const y = parseQuantity(b) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}
