/**
 * resource.Quantity ("500m", "1Gi", "1e3", "0.5"): parsed exactly into nano-units (a bigint), so
 * that requests, limits, capacities and semantic equality compare amounts the way Quantity.Cmp
 * does — "1" equals "1000m" and "1e3" equals "1k". Amounts finer than a nano-unit round up, as
 * upstream's internal representation does.
 *
 * Syntax (apimachinery's): an optional sign, digits with an optional decimal point, then at most
 * one suffix — binary (Ki Mi Gi Ti Pi Ei), decimal (n u m "" k M G T P E) or an exponent (e/E and
 * a signed integer); "." alone is zero, as upstream parses it. JSON numbers are accepted too (a
 * Quantity unmarshals from `1` as from "1"). Amounts beyond math.MaxInt64 units are capped there.
 */

/** apimachinery's ErrFormatWrong. */
export class InvalidQuantityError extends Error {
  constructor(readonly value: string) {
    super(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(value)}`);
    this.name = "InvalidQuantityError";
  }
}

const binary: Record<string, bigint> = {
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};
const decimalExp: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const quantityRegexp = /^([+-]?)([0-9]+\.?[0-9]*|\.[0-9]*)(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$/;

/** The largest amount a Quantity holds (math.MaxInt64 units), in nano-units: larger ones are capped. */
export const MAX_QUANTITY_NANOS = 9223372036854775807n * 1_000_000_000n;

/** Nano-units of a quantity, or undefined when it is not one. */
export function parseQuantity(q: string | number): bigint | undefined {
  const s = typeof q === "number" ? (Number.isFinite(q) ? String(q) : "") : q;
  const m = quantityRegexp.exec(s);
  if (!m) return undefined;
  const negative = m[1] === "-";
  const [intPart, fracPart = ""] = m[2].split(".");
  let digits = BigInt((intPart || "0") + fracPart);
  let exp10 = -fracPart.length + 9; // nano-units
  const suffix = m[3] ?? "";
  if (suffix in binary) digits *= binary[suffix];
  else if (suffix in decimalExp) exp10 += decimalExp[suffix];
  else exp10 += Number(suffix.slice(1));
  let value: bigint;
  if (exp10 >= 0) value = digits * 10n ** BigInt(exp10);
  else {
    const d = 10n ** BigInt(-exp10);
    value = digits / d + (digits % d === 0n ? 0n : 1n);
  }
  if (value > MAX_QUANTITY_NANOS) value = MAX_QUANTITY_NANOS;
  return negative && value !== 0n ? -value : value;
}

/** Nano-units of a quantity; throws InvalidQuantityError when it is not one. */
export function mustParseQuantity(q: string | number): bigint {
  const v = parseQuantity(q);
  if (v === undefined) throw new InvalidQuantityError(String(q));
  return v;
}

/** Compares two quantities: -1, 0 or 1 (invalid ones compare as zero, as the API server's checks do). */
export function compareQuantities(a: string | number, b: string | number): number {
  const x = parseQuantity(a) ?? 0n;
  const y = parseQuantity(b) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether two valid quantities are the same amount ("1" and "1000m"); false if either is invalid. */
export function quantitiesEqual(a: string | number, b: string | number): boolean {
  const x = parseQuantity(a);
  return x !== undefined && x === parseQuantity(b);
}

/**
 * The amount in base units as a float (0.5 for "500m", 1073741824 for "1Gi"): for sums and
 * capacity checks where float64 precision is plenty. Throws InvalidQuantityError.
 */
export function quantityValue(q: string | number): number {
  return Number(mustParseQuantity(q)) / 1e9;
}
