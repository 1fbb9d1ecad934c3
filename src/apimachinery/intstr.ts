/**
 * Int-or-string values (k8s.io/apimachinery/pkg/util/intstr): fields such as maxSurge,
 * maxUnavailable and minAvailable hold either an integer or a percentage string like "25%".
 * On the wire they are a JSON number or a JSON string, which is exactly the `IntOrString` type.
 */
import { goQuote } from "./labels.js";
import type { IntOrString } from "./types.js";


/** An int-or-string that cannot be interpreted. `message` is upstream's text. */
export class IntOrStringError extends Error {
  override readonly name = "IntOrStringError";
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Go's strconv.Atoi (64-bit): optional sign, decimal digits, int64 range. Returns the number or
 * the error text upstream would wrap ("strconv.Atoi: parsing \"x\": invalid syntax").
 */
export function atoi(s: string): number | string {
  if (!/^[+-]?[0-9]+$/.test(s)) return `strconv.Atoi: parsing ${goQuote(s)}: invalid syntax`;
  const v = BigInt(s);
  if (v < INT64_MIN || v > INT64_MAX) return `strconv.Atoi: parsing ${goQuote(s)}: value out of range`;
  return Number(v);
}

/** An int-or-string holding an integer (intstr.FromInt32). Throws for a non-int32. */
export function intOrStringFromInt(n: number): IntOrString {
  if (!Number.isInteger(n) || n < INT32_MIN || n > INT32_MAX) {
    throw new IntOrStringError(`value: ${n} overflows int32`);
  }
  return n;
}

/** An int-or-string holding a string (intstr.FromString). */
export function intOrStringFromString(s: string): IntOrString {
  return s;
}

/** "5" → 5, anything else stays a string (intstr.Parse). Integers beyond int32 stay strings. */
export function parseIntOrString(s: string): IntOrString {
  const v = atoi(s);
  return typeof v === "number" && v >= INT32_MIN && v <= INT32_MAX ? v : s;
}

/** The string form: the string itself, or the integer in decimal (IntOrString.String). */
export function intOrStringToString(v: IntOrString): string {
  return typeof v === "string" ? v : String(v);
}

/** The integer, or the string parsed as one, 0 if it is not (IntOrString.IntValue). */
export function intOrStringIntValue(v: IntOrString): number {
  if (typeof v === "number") return v;
  const n = atoi(v);
  return typeof n === "number" ? n : 0;
}

/** `v`, or `def` when v is undefined/null (intstr.ValueOrDefault). */
export function valueOrDefault(v: IntOrString | undefined | null, def: IntOrString): IntOrString {
  return v === undefined || v === null ? def : v;
}

function checkNumber(v: number): void {
  if (!Number.isInteger(v) || v < INT32_MIN || v > INT32_MAX) {
    throw new IntOrStringError(`invalid value for IntOrString: invalid value ${v}: not an int32`);
  }
}

function scale(value: number, total: number, roundUp: boolean): number {
  const x = (value * total) / 100;
  return roundUp ? Math.ceil(x) : Math.floor(x);
}

/**
 * GetScaledValueFromIntOrPercent: an integer is returned as is; "N%" is N percent of `total`,
 * rounded up or down. A string without a trailing "%" (even "90") is an error, as is undefined.
 * Throws IntOrStringError with upstream's messages, e.g.
 * "invalid value for IntOrString: invalid type: string is not a percentage".
 */
export function getScaledValueFromIntOrPercent(
  intOrPercent: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  if (intOrPercent === undefined || intOrPercent === null) throw new IntOrStringError("nil value for IntOrString");
  if (typeof intOrPercent === "number") {
    checkNumber(intOrPercent);
    return intOrPercent;
  }
  if (!intOrPercent.endsWith("%")) {
    throw new IntOrStringError("invalid value for IntOrString: invalid type: string is not a percentage");
  }
  const v = atoi(intOrPercent.slice(0, -1));
  if (typeof v === "string") {
    throw new IntOrStringError(`invalid value for IntOrString: invalid value ${goQuote(intOrPercent)}: ${v}`);
  }
  return scale(v, total, roundUp);
}

/**
 * The deprecated GetValueFromIntOrPercent: every "%" is removed and the rest is read as a
 * percentage, so a bare "90" means 90%. Kept for callers that need the legacy reading; use
 * getScaledValueFromIntOrPercent otherwise.
 */
export function getValueFromIntOrPercent(
  intOrPercent: IntOrString | undefined | null,
  total: number,
  roundUp: boolean,
): number {
  if (intOrPercent === undefined || intOrPercent === null) throw new IntOrStringError("nil value for IntOrString");
  if (typeof intOrPercent === "number") {
    checkNumber(intOrPercent);
    return intOrPercent;
  }
  const v = atoi(intOrPercent.replaceAll("%", ""));
  if (typeof v === "string") {
    throw new IntOrStringError(`invalid value for IntOrString: invalid value ${goQuote(intOrPercent)}: ${v}`);
  }
  return scale(v, total, roundUp);
}
