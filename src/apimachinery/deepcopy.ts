import { deepEqual } from "./equality.js";

/**
 * Deep copy and freezing for plain JSON data (what every Kubernetes object is).
 *
 * `deepCopy` handles objects, arrays and primitives only — no Maps, Dates or cycles — which makes
 * it several times faster than `structuredClone` (see bench/apimachinery). `undefined`-valued
 * properties are dropped, as a JSON round trip would.
 */

export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function copyValue(v: unknown): unknown {
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = copyValue(v[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x === undefined) continue;
    // An own "__proto__" key (possible in parsed JSON) must stay a plain property.
    if (k === "__proto__") Object.defineProperty(out, k, { value: copyValue(x), enumerable: true, writable: true, configurable: true });
    else out[k] = copyValue(x);
  }
  return out;
}

/**
 * The old name of `deepEqual` (equality.ts), kept for the API server's storage and field manager
 * until they import `deepEqual`; not exported from the package entry. Semantic equality of API
 * data — apimachinery's rules — is `semanticEqual` in equality.ts.
 * @deprecated use deepEqual (structural) or equality.ts semanticEqual (apimachinery's rules).
 */
export const semanticEqual = deepEqual;

/** Deep-freezes plain JSON data in place and returns it (used by caches to hand out read-only objects). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const x of value) deepFreeze(x);
  else for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  return value;
}
