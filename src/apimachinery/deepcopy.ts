/**
 * Deep copy and semantic equality for plain JSON data (what every Kubernetes object is).
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
 * Semantic deep equality: a property that is absent and one that is `undefined` are equal;
 * everything else compares structurally (arrays by order). NaN equals NaN.
 */
export function semanticEqual(a: unknown, b: unknown): boolean {
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
    for (let i = 0; i < x.length; i++) if (!semanticEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let count = 0;
  for (const k in x) {
    const xv = x[k];
    if (xv === undefined) continue;
    count++;
    if (!semanticEqual(xv, y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined) count--;
  return count === 0;
}

/** Deep-freezes plain JSON data in place and returns it (used by caches to hand out read-only objects). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const x of value) deepFreeze(x);
  else for (const k in value) deepFreeze((value as Record<string, unknown>)[k]);
  return value;
}
