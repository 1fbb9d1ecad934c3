/**
 * Defensive reads of request objects. Bodies are decoded against the kind's schema before the
 * registry sees them, but a strategy must not fail on a shape it does not expect (a string where
 * a list belongs): these readers answer "absent" for the wrong type instead of throwing, so
 * validation reports what is missing rather than the server failing.
 */

/** The value as a plain object (not an array), or undefined. */
export function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** The value as a list (an empty one for anything that is not an array). */
export function listOf<T = unknown>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** The value as a string, or undefined. */
export function stringOf(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The value as a finite number, or undefined. */
export function numberOf(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** The value as a map of strings (labels, selectors, annotations), or undefined. */
export function stringMapOf(v: unknown): Record<string, string> | undefined {
  const r = asRecord(v);
  if (!r) return undefined;
  for (const k in r) if (typeof r[k] !== "string") return undefined;
  return r as Record<string, string>;
}

/** Whether a value is set (neither undefined nor null), as a Go pointer is non-nil. */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * The object at `obj[key]`, created when absent (for defaulting). Returns undefined, leaving
 * the value alone, when something that is not an object is there: defaulting skips it and
 * validation reports it.
 */
export function ensureRecord(obj: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const cur = obj[key];
  if (cur === undefined || cur === null) {
    const fresh: Record<string, unknown> = {};
    obj[key] = fresh;
    return fresh;
  }
  return asRecord(cur);
}
