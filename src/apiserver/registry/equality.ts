/**
 * Semantic equality as apimachinery's equality.Semantic.DeepEqual sees JSON objects: a field that
 * is absent, null, an empty list or an empty map are all "unset" and equal to each other (Go's
 * nil and empty slices/maps compare equal there, and omitempty fields vanish on the wire). An
 * object whose fields are all unset counts as unset too (JSON cannot tell a pointer to an empty
 * struct from an empty map).
 */

function isUnset(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") {
    for (const k in v as Record<string, unknown>) if (!isUnset((v as Record<string, unknown>)[k])) return false;
    return true;
  }
  return false;
}

export function semanticDeepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const ua = isUnset(a);
  const ub = isUnset(b);
  if (ua || ub) return ua && ub;
  if (typeof a !== "object" || typeof b !== "object") return false;
  const aa = Array.isArray(a);
  if (aa !== Array.isArray(b)) return false;
  if (aa) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!semanticDeepEqual(x[i], y[i])) return false;
    return true;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k in x) if (!semanticDeepEqual(x[k], y[k])) return false;
  for (const k in y) if (!(k in x) && !isUnset(y[k])) return false;
  return true;
}
