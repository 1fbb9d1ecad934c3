/**
 * metav1.Time and metav1.MicroTime on the wire, from and to milliseconds since the epoch — the one
 * place every layer formats API timestamps.
 */

/** metav1.Time: RFC 3339 in whole seconds, UTC ("2026-01-01T00:00:00Z"). */
export function formatTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** metav1.MicroTime: RFC 3339 with microseconds, UTC ("2026-01-01T00:00:00.123000Z"), as Leases and events.k8s.io carry. */
export function formatMicroTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Milliseconds since the epoch of a Time or MicroTime string; undefined when absent or unparsable. */
export function parseTime(s: string | undefined): number | undefined {
  if (!s) return undefined;
  const t = Date.parse(s);
  return Number.isNaN(t) ? undefined : t;
}
