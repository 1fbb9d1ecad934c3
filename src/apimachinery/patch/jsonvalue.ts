/**
 * Plain-JSON helpers shared by the patch implementations: kind classification mirroring the Go
 * types apimachinery's JSON decoder produces, prototype-safe copying, structural equality and Go
 * `fmt` renderings used to reproduce upstream error texts.
 */
import { deepEqual } from "../equality.js";

export type JsonObject = Record<string, unknown>;

/** The Go dynamic type a value decodes to with k8s.io/apimachinery/pkg/util/json. */
export type GoKind = "map" | "slice" | "string" | "bool" | "int64" | "float64" | "nil";

export function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function goKind(v: unknown): GoKind {
  if (v === null || v === undefined) return "nil";
  if (Array.isArray(v)) return "slice";
  switch (typeof v) {
    case "object":
      return "map";
    case "string":
      return "string";
    case "boolean":
      return "bool";
    case "number":
      return Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER ? "int64" : "float64";
    default:
      // Functions, symbols, bigints: not JSON. Classify as a scalar so they flow through unharmed.
      return "string";
  }
}

/** Go's reflect.Type string for a decoded JSON value (used in "expected a X, but received a Y"). */
export function goTypeName(v: unknown): string {
  switch (goKind(v)) {
    case "map":
      return "map[string]interface {}";
    case "slice":
      return "[]interface {}";
    case "nil":
      return "%!s(<nil>)";
    default:
      return goKind(v);
  }
}

/** Sets an own enumerable property, also for the key "__proto__" (which `o[k] = v` would not). */
export function setKey(o: JsonObject, k: string, v: unknown): void {
  if (k === "__proto__") Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  else o[k] = v;
}

export function hasKey(o: JsonObject, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, k);
}

/** Deep copy of plain JSON data; safe for "__proto__" keys; drops undefined-valued properties. */
export function cloneJson<T>(v: T): T {
  return cloneValue(v) as T;
}

function cloneValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = cloneValue(v[i]);
    return out;
  }
  const out: JsonObject = {};
  for (const k of Object.keys(v)) {
    const x = (v as JsonObject)[k];
    if (x !== undefined) setKey(out, k, cloneValue(x));
  }
  return out;
}

/** Structural equality (Go's reflect.DeepEqual on decoded JSON): apimachinery's deepEqual. */
export const jsonEqual = deepEqual;

/**
 * Go's interface `==` on decoded JSON values, used for merge-key matching. Scalars compare by
 * value; Go panics on maps and slices, we compare those structurally instead.
 */
export function goEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return (a ?? null) === (b ?? null);
  if (typeof a === "object" && typeof b === "object" && a !== null && b !== null) return jsonEqual(a, b);
  return false;
}

/** Go's `fmt.Sprintf("%v", v)` for a decoded JSON value: maps as map[k:v ...] with sorted keys. */
export function goFormat(v: unknown): string {
  if (v === null || v === undefined) return "<nil>";
  if (Array.isArray(v)) return "[" + v.map(goFormat).join(" ") + "]";
  switch (typeof v) {
    case "object": {
      const o = v as JsonObject;
      const keys = Object.keys(o).sort(compareStrings);
      return "map[" + keys.map((k) => `${k}:${goFormat(o[k])}`).join(" ") + "]";
    }
    case "number":
      return goFormatNumber(v);
    case "boolean":
      return v ? "true" : "false";
    default:
      return String(v);
  }
}

/** Go's `%s` verb: strings as is, other scalars as "%!s(type=value)". */
export function goFormatS(v: unknown): string {
  switch (goKind(v)) {
    case "string":
      return String(v);
    case "nil":
      return "%!s(<nil>)";
    case "map":
    case "slice":
      return goFormat(v);
    default:
      return `%!s(${goKind(v)}=${goFormat(v)})`;
  }
}

function goFormatNumber(n: number): string {
  if (goKind(n) === "int64") return String(n);
  if (!Number.isFinite(n)) return Number.isNaN(n) ? "NaN" : n > 0 ? "+Inf" : "-Inf";
  if (n === 0) return "0";
  // Go's %v for float64 is strconv's 'g' with the shortest precision, which switches to the
  // exponent form when the decimal exponent is < -4 or >= 6 (e.g. 1234567.5 → 1.2345675e+06).
  const exp = Math.floor(Math.log10(Math.abs(n)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = n.toExponential().split("e");
    const sign = e.startsWith("-") ? "-" : "+";
    const digits = e.replace(/^[+-]/, "");
    return `${mant}e${sign}${digits.length < 2 ? "0" + digits : digits}`;
  }
  return String(n);
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Returns a copy of `v` whose objects have their keys sorted (Go's json.Marshal order). */
export function sortKeysDeep<T>(v: T): T {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) return v.map(sortKeysDeep) as T;
  const o = v as JsonObject;
  const out: JsonObject = {};
  for (const k of Object.keys(o).sort(compareStrings)) setKey(out, k, sortKeysDeep(o[k]));
  return out as T;
}
