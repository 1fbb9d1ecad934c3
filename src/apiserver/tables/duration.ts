/**
 * Ages as kubectl shows them: apimachinery's duration.HumanDuration ("5s", "3m10s", "2d1h",
 * "2y1d"), about 2–3 significant figures of a duration.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** HumanDuration of `ms` milliseconds. Up to 2 s in the future reads "0s" (clock skew); more is "<invalid>". */
export function humanDuration(ms: number): string {
  // Go converts durations to whole units by truncation toward zero.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/**
 * The age of an RFC 3339 timestamp at `now` (ms since the epoch), or "<unknown>" when the
 * timestamp is absent or unparsable (Go's zero time).
 */
export function translateTimestampSince(timestamp: string | null | undefined, now: number): string {
  if (!timestamp) return "<unknown>";
  const t = Date.parse(timestamp);
  if (Number.isNaN(t)) return "<unknown>";
  return humanDuration(now - t);
}
