/**
 * Equality of API data: `semanticEqual`, apimachinery's equality.Semantic.DeepEqual restated for
 * JSON, and `deepEqual`, plain structural equality.
 *
 * semanticEqual's rules (Semantic is reflect.DeepEqual on Go structs with apimachinery's
 * equality functions, and its forked DeepEqual treats empty and nil slices and maps alike):
 * - absent, undefined, null, `[]` and `{}` are all the same empty value (a nil or empty slice
 *   or map; a zero struct). Go tells a nil pointer from a pointer to an empty struct; JSON
 *   cannot tell either from an empty map, so `{}` equals absent here — the one departure;
 * - arrays compare element by element, in order; objects key by key;
 * - resource.Quantity values compare by amount ("1" equals "1000m", Quantity.Cmp), and
 *   metav1.Time / MicroTime values by instant ("…T00:00:00Z" equals "…T01:00:00+01:00"). JSON
 *   carries both as strings, so the rule applies by field name (semantickeys.ts, generated from
 *   the 1.36 schema): a string under a Quantity field, each string of an object under a
 *   ResourceList field (`requests`, `limits`, `capacity`, …), a string under a Time field
 *   (`lastTransitionTime`, `creationTimestamp`, …). A pair that does not parse compares as
 *   strings;
 * - other scalars compare with ===; a string never equals a number (Go's types never mix).
 *
 * deepEqual: arrays by order, objects by own keys, scalars with ===; an absent property equals
 * an `undefined` one, and nothing else is loosened (`[]` is not absent).
 */
import { quantityNanos } from "./quantity.js";
import { QUANTITY_FIELDS, QUANTITY_MAP_FIELDS, TIME_FIELDS } from "./semantickeys.js";

const hasOwn = Object.prototype.hasOwnProperty;

function isEmpty(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v !== "object") return false;
  if (Array.isArray(v)) return v.length === 0;
  for (const k in v) if (hasOwn.call(v, k) && !isEmpty((v as Record<string, unknown>)[k])) return false;
  return true;
}

/** apimachinery's equality.Semantic.DeepEqual on JSON data (rules above). */
export function semanticEqual(a: unknown, b: unknown): boolean {
  return equalValue(a, b, "", false);
}

/** `field` is the key `a` and `b` sit under; `inQuantityMap`: they are values of a ResourceList. */
function equalValue(a: unknown, b: unknown, field: string, inQuantityMap: boolean): boolean {
  if (a === b) return true;
  const ta = typeof a;
  if (ta !== "object" || typeof b !== "object" || a === null || b === null) {
    if (isEmpty(a) && isEmpty(b)) return true;
    if ((ta === "string" || ta === "number") && (typeof b === "string" || typeof b === "number")) {
      if (inQuantityMap || QUANTITY_FIELDS.has(field)) return quantityPairEqual(a as string | number, b as string | number);
      if (ta === "string" && typeof b === "string" && TIME_FIELDS.has(field)) return timesEqual(a as string, b);
    }
    return false;
  }
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return isEmpty(a) && isEmpty(b);
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!equalValue(x[i], y[i], "", false)) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const quantities = QUANTITY_MAP_FIELDS.has(field);
  for (const k in x) {
    if (!hasOwn.call(x, k)) continue;
    if (!equalValue(x[k], hasOwn.call(y, k) ? y[k] : undefined, k, quantities)) return false;
  }
  for (const k in y) {
    if (hasOwn.call(y, k) && !hasOwn.call(x, k) && !isEmpty(y[k])) return false;
  }
  return true;
}

/** Two scalars where Quantities stand: equal amounts, or (when either does not parse) equal values. */
function quantityPairEqual(a: string | number, b: string | number): boolean {
  const x = quantityNanos(a);
  const y = x === undefined ? undefined : quantityNanos(b);
  if (x === undefined || y === undefined) return a === b;
  return x === y;
}

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** An RFC 3339 time as [seconds since the epoch, nanoseconds], or undefined. */
function parseInstant(s: string): [number, number] | undefined {
  const m = rfc3339.exec(s);
  if (!m) return undefined;
  const secs = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) / 1000;
  if (Number.isNaN(secs)) return undefined;
  let offset = 0;
  const z = m[8];
  if (z !== "Z" && z !== "z") offset = (z[0] === "-" ? -1 : 1) * (Number(z.slice(1, 3)) * 3600 + Number(z.slice(4, 6)) * 60);
  const nanos = m[7] ? Number(m[7].padEnd(9, "0")) : 0;
  return [secs - offset, nanos];
}

/** metav1.Time equality: the same instant (a.UTC() == b.UTC()); unparsable pairs compare as strings. */
function timesEqual(a: string, b: string): boolean {
  const x = parseInstant(a);
  const y = x === undefined ? undefined : parseInstant(b);
  if (x === undefined || y === undefined) return a === b;
  return x[0] === y[0] && x[1] === y[1];
}

/** Plain structural equality (rules above). */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return false;
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!deepEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const k in x) {
    if (!hasOwn.call(x, k)) continue;
    const xv = x[k];
    if (xv === undefined) continue;
    count++;
    if (!hasOwn.call(y, k) || !deepEqual(xv, y[k])) return false;
  }
  for (const k in y) if (hasOwn.call(y, k) && y[k] !== undefined) count--;
  return count === 0;
}
