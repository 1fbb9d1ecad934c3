/**
 * resource.Quantity as apimachinery parses and prints it: ParseQuantity's grammar, rounding and
 * errors, and the canonical form MarshalJSON writes ("1000m" → "1", "0.5Gi" → "512Mi",
 * "1000" → "1k"), including the inputs upstream keeps verbatim because they already are in a
 * canonical-looking form ("1.500", "+1", "1e3").
 *
 * A quantity is held exactly: value = unscaled × 10^scale (bigint, no precision limit), rounded
 * up (away from zero) to nano-units as upstream does, binary quantities capped at 2^63-1.
 */

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI";

export interface Quantity {
  readonly unscaled: bigint;
  /** Decimal exponent: value = unscaled × 10^scale. */
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The input string when upstream caches it as the serialised form (it is then printed as is). */
  readonly cached?: string;
}

/** ParseQuantity's errors, with upstream's texts. */
export class QuantityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "QuantityError";
  }
}

const splitREString = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
export const quantityFormatError = `quantities must match the regular expression '${splitREString}'`;
export const quantityNumericError = "unable to parse numeric part of quantity";
export const quantitySuffixError = "unable to parse quantity's suffix";

const maxInt64Factors = 18;
const nanoScale = -9;
const maxInt64 = (1n << 63n) - 1n;

interface Suffix {
  base: 10 | 2;
  exponent: number;
  format: QuantityFormat;
}

const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const suffixChars = "eEinumkKMGTP";

function interpretSuffix(s: string): Suffix | undefined {
  if (Object.hasOwn(decimalSuffixes, s)) return { base: 10, exponent: decimalSuffixes[s], format: "DecimalSI" };
  if (Object.hasOwn(binarySuffixes, s)) return { base: 2, exponent: binarySuffixes[s], format: "BinarySI" };
  if (s.length > 1 && (s[0] === "e" || s[0] === "E")) {
    // strconv.ParseInt(s[1:], 10, 64): an optional sign and decimal digits.
    const rest = s.slice(1);
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined;
    const n = BigInt(rest);
    if (n > maxInt64 || n < -(1n << 63n)) return undefined;
    // int32(parsed): Go truncates to 32 bits.
    return { base: 10, exponent: Number(BigInt.asIntN(32, n)), format: "DecimalExponent" };
  }
  return undefined;
}

interface Parts {
  positive: boolean;
  value: string;
  num: string;
  denom: string;
  suffix: string;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";

/** parseQuantityString: sign, numerator (leading zeros stripped), denominator, suffix. */
function splitQuantity(str: string): Parts {
  let positive = true;
  let pos = 0;
  const end = str.length;
  if (pos < end) {
    if (str[0] === "-") {
      positive = false;
      pos++;
    } else if (str[0] === "+") pos++;
  }
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: "0", num: "0", denom: "", suffix: "" };
    if (str[i] === "0") pos++;
    else break;
  }
  let num = "";
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value: str, num: str.slice(pos), denom: "", suffix: "" };
    if (!isDigit(str[i])) {
      num = str.slice(pos, i);
      pos = i;
      break;
    }
  }
  if (num.length === 0) num = "0";
  let denom = "";
  if (pos < end && str[pos] === ".") {
    pos++;
    for (let i = pos; ; i++) {
      if (i >= end) return { positive, value: str, num, denom: str.slice(pos), suffix: "" };
      if (!isDigit(str[i])) {
        denom = str.slice(pos, i);
        pos = i;
        break;
      }
    }
  }
  const value = str.slice(0, pos);
  const suffixStart = pos;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!suffixChars.includes(str[i])) {
      pos = i;
      break;
    }
  }
  if (pos < end && (str[pos] === "-" || str[pos] === "+")) pos++;
  for (let i = pos; ; i++) {
    if (i >= end) return { positive, value, num, denom, suffix: str.slice(suffixStart) };
    if (!isDigit(str[i])) break;
  }
  throw new QuantityError(quantityFormatError);
}

/** Rounds value = u × 10^s up (away from zero) to scale ≥ -9. */
function roundUpToNano(u: bigint, s: number): [bigint, number] {
  if (s >= nanoScale || u === 0n) return [u, s];
  const d = 10n ** BigInt(nanoScale - s);
  const neg = u < 0n;
  const a = neg ? -u : u;
  let q = a / d;
  if (q * d !== a) q += 1n;
  return [neg ? -q : q, nanoScale];
}

/** Parses a quantity string as resource.ParseQuantity does; throws QuantityError with upstream's text. */
export function parseQuantity(str: string): Quantity {
  if (str.length === 0) throw new QuantityError(quantityFormatError);
  if (str === "0") return { unscaled: 0n, scale: 0, format: "DecimalSI", cached: str };
  const { positive, value, num, denom, suffix } = splitQuantity(str);
  const suf = interpretSuffix(suffix);
  if (!suf) throw new QuantityError(quantitySuffixError);
  let { format } = suf;
  const { base, exponent } = suf;

  // The int64 fast path decides whether upstream caches the input string.
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === "BinarySI") {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc(Math.fround(Math.fround(exponent) * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = maxInt64Factors - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= nanoScale) {
      const shifted = num + denom;
      const v = BigInt(shifted);
      if (v > maxInt64) throw new QuantityError(quantityNumericError);
      const product = v * mantissa;
      if (product <= maxInt64) {
        const result = positive ? product : -product;
        let canonical: boolean;
        if (format === "BinarySI") canonical = exponent % 10 === 0 && (v & 7n) !== 0n;
        else canonical = scale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0";
        return canonical ? { unscaled: result, scale, format, cached: str } : { unscaled: result, scale, format };
      }
    }
  }

  // inf.Dec path: exact decimal, then the suffix, rounding and caps.
  const m = /^[+-]?([0-9]*)(?:\.([0-9]*))?$/.exec(value);
  if (!m || (m[1] === "" && (m[2] ?? "") === "")) throw new QuantityError(quantityNumericError);
  const frac = m[2] ?? "";
  let u = BigInt((m[1] || "0") + frac);
  let s = -frac.length;
  if (base === 10) s += exponent;
  else u *= 1n << BigInt(exponent);
  if (!positive) u = -u;
  [u, s] = roundUpToNano(u, s);
  let abs = u < 0n ? -u : u;
  if (format === "BinarySI" && compareScaled(abs, s, maxInt64, 0) > 0) {
    abs = maxInt64;
    s = 0;
    u = u < 0n ? -abs : abs;
  }
  if (format === "BinarySI" && compareScaled(abs, s, 1n, 0) < 0 && abs !== 0n) format = "DecimalSI";
  return { unscaled: u, scale: s, format };
}

function compareScaled(a: bigint, as: number, b: bigint, bs: number): number {
  const s = Math.min(as, bs);
  const x = a * 10n ** BigInt(as - s);
  const y = b * 10n ** BigInt(bs - s);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The value as an integer when it has no fractional part. */
function integerValue(q: Quantity): bigint | undefined {
  if (q.scale >= 0) return q.unscaled * 10n ** BigInt(q.scale);
  const d = 10n ** BigInt(-q.scale);
  return q.unscaled % d === 0n ? q.unscaled / d : undefined;
}

function removeFactors(v: bigint, base: bigint): [bigint, number] {
  let times = 0;
  if (v === 0n) return [v, 0];
  while (v % base === 0n) {
    v /= base;
    times++;
  }
  return [v, times];
}

/** Floor modulo-3 adjustment of Go's AsCanonicalBytes (exponents move down to a multiple of 3). */
function canonicalDecimal(q: Quantity): [string, number] {
  const [base, times] = removeFactors(q.unscaled, 10n);
  let amount = base;
  let exponent = q.scale + times;
  while (exponent % 3 !== 0) {
    amount *= 10n;
    exponent--;
  }
  return [amount.toString(), exponent];
}

const decimalSuffixByExponent = new Map(Object.entries(decimalSuffixes).map(([k, v]) => [v, k]));
const binarySuffixByExponent = new Map(Object.entries(binarySuffixes).map(([k, v]) => [v, k]));

/** Quantity.String() / MarshalJSON: the cached input or the canonical form. */
export function formatQuantity(q: Quantity): string {
  if (q.cached !== undefined) return q.cached;
  if (q.unscaled === 0n) return "0";
  let format = q.format;
  let whole: bigint | undefined;
  if (format === "BinarySI") {
    if (compareScaled(q.unscaled, q.scale, -1024n, 0) > 0 && compareScaled(q.unscaled, q.scale, 1024n, 0) < 0) format = "DecimalSI";
    else {
      whole = integerValue(q);
      if (whole === undefined) format = "DecimalSI";
    }
  }
  if (format === "BinarySI") {
    const [amount, times] = removeFactors(whole!, 1024n);
    // Exponents beyond Ei have no suffix upstream either (the value is capped before that).
    return amount.toString() + (binarySuffixByExponent.get(times * 10) ?? "");
  }
  const [number, exponent] = canonicalDecimal(q);
  if (format === "DecimalExponent") return exponent === 0 ? number : `${number}e${exponent}`;
  return number + (decimalSuffixByExponent.get(exponent) ?? "");
}

/** The serialised form upstream stores for a quantity string (throws QuantityError). */
export function canonicalQuantity(str: string): string {
  return formatQuantity(parseQuantity(str.trim()));
}

/** Compares two quantities: -1, 0 or 1. */
export function compareQuantity(a: Quantity, b: Quantity): number {
  return compareScaled(a.unscaled, a.scale, b.unscaled, b.scale);
}

// ---- Amounts in nano-units, for arithmetic and comparisons outside the decoder ----

/** The largest amount a Quantity holds (math.MaxInt64 units), in nano-units: larger ones are capped. */
export const MAX_QUANTITY_NANOS = 9223372036854775807n * 1_000_000_000n;

/**
 * Nano-units of a quantity (ParseQuantity's grammar; a JSON number reads as its decimal text, as
 * a Quantity unmarshals from `1` as from "1"), or undefined when it is not one. Amounts finer than
 * a nano-unit round up, as upstream's; amounts beyond MaxInt64 units are capped there.
 */
export function quantityNanos(q: string | number): bigint | undefined {
  const s = typeof q === "number" ? (Number.isFinite(q) ? String(q) : "") : q;
  let parsed: Quantity;
  try {
    parsed = parseQuantity(s);
  } catch (err) {
    if (err instanceof QuantityError) return undefined;
    throw err;
  }
  const exp = parsed.scale + 9;
  let v: bigint;
  if (exp >= 0) v = parsed.unscaled * 10n ** BigInt(exp);
  else {
    const d = 10n ** BigInt(-exp);
    const neg = parsed.unscaled < 0n;
    const a = neg ? -parsed.unscaled : parsed.unscaled;
    v = a / d + (a % d === 0n ? 0n : 1n);
    if (neg) v = -v;
  }
  if (v > MAX_QUANTITY_NANOS) return MAX_QUANTITY_NANOS;
  if (v < -MAX_QUANTITY_NANOS) return -MAX_QUANTITY_NANOS;
  return v;
}

/** Nano-units of a quantity; throws QuantityError (upstream's text) when it is not one. */
export function mustQuantityNanos(q: string | number): bigint {
  const v = quantityNanos(q);
  if (v === undefined) parseQuantity(typeof q === "number" ? String(q) : q);
  if (v === undefined) throw new QuantityError(quantityFormatError);
  return v;
}

/** Compares two quantities given as strings: -1, 0 or 1 (invalid ones compare as zero, as the API server's checks do). */
export function compareQuantities(a: string | number, b: string | number): number {
  const x = quantityNanos(a) ?? 0n;
  const y = quantityNanos(b) ?? 0n;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Whether two valid quantities are the same amount ("1" and "1000m"); false if either is invalid. */
export function quantitiesEqual(a: string | number, b: string | number): boolean {
  const x = quantityNanos(a);
  return x !== undefined && x === quantityNanos(b);
}

/**
 * The amount in base units as a float (0.5 for "500m", 1073741824 for "1Gi"): for sums and
 * capacity checks where float64 precision is plenty. Throws QuantityError.
 */
export function quantityValue(q: string | number): number {
  return Number(mustQuantityNanos(q)) / 1e9;
}

/**
 * Milli-units of a quantity, rounded up (upstream Quantity.MilliValue: "250m" → 250, "1" → 1000,
 * "1n" → 1); undefined when it is not a quantity. Exact for amounts up to 2^53 milli-units.
 */
export function quantityMilliValue(q: string | number): number | undefined {
  const nanos = quantityNanos(q);
  if (nanos === undefined) return undefined;
  const whole = nanos / 1_000_000n;
  return Number(nanos % 1_000_000n > 0n ? whole + 1n : whole);
}
