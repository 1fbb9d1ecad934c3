/**
 * JSON forms of the apimachinery types that have hand-written codecs: metav1.Time (RFC 3339, second
 * precision, UTC), metav1.MicroTime (RFC 3339 with exactly six fractional digits), metav1.Duration
 * (Go's time.Duration String form, e.g. "1h0m0s", "1.5s", "300ms").
 */

const NS_PER_SECOND = 1_000_000_000n;

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

function utcParts(seconds: bigint): string {
  const d = new Date(Number(seconds) * 1000);
  if (Number.isNaN(d.getTime())) throw new RangeError(`time ${seconds}s out of range`);
  const year = d.getUTCFullYear();
  return (
    `${year < 0 ? "-" : ""}${pad(Math.abs(year), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}` +
    `T${pad(d.getUTCHours(), 2)}:${pad(d.getUTCMinutes(), 2)}:${pad(d.getUTCSeconds(), 2)}`
  );
}

/** metav1.Time JSON: "2006-01-02T15:04:05Z" (sub-second parts are not carried by Time). */
export function formatTime(seconds: bigint): string {
  return `${utcParts(seconds)}Z`;
}

/** metav1.MicroTime JSON: "2006-01-02T15:04:05.000000Z" (nanoseconds truncated to micros). */
export function formatMicroTime(seconds: bigint, nanos: number): string {
  return `${utcParts(seconds)}.${pad(Math.floor(nanos / 1000), 6)}Z`;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** Parses RFC 3339 into Unix seconds and nanoseconds; throws on anything else. */
export function parseRFC3339(text: string): { seconds: bigint; nanos: number } {
  const m = RFC3339.exec(text);
  if (!m) throw new RangeError(`not an RFC 3339 time: ${JSON.stringify(text)}`);
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  let ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  if (zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    ms -= sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  }
  return { seconds: BigInt(ms / 1000), nanos: frac ? Number(frac.padEnd(9, "0")) : 0 };
}

/** Integer part and trimmed fractional part of `value / unit` (unit a power of ten). */
function decimal(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const rest = value % unit;
  if (rest === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(rest).padStart(digits, "0").replace(/0+$/, "")}`;
}

/** Go's time.Duration.String for a nanosecond count. */
export function formatDuration(nanos: bigint): string {
  if (nanos === 0n) return "0s";
  const neg = nanos < 0n;
  const u = neg ? -nanos : nanos;
  let s: string;
  if (u < 1000n) s = `${u}ns`;
  else if (u < 1_000_000n) s = `${decimal(u, 1000n)}µs`;
  else if (u < NS_PER_SECOND) s = `${decimal(u, 1_000_000n)}ms`;
  else {
    const totalSeconds = u / NS_PER_SECOND;
    const h = totalSeconds / 3600n;
    const m = (totalSeconds / 60n) % 60n;
    const secNanos = (totalSeconds % 60n) * NS_PER_SECOND + (u % NS_PER_SECOND);
    s = `${h > 0n ? `${h}h` : ""}${h > 0n || m > 0n ? `${m}m` : ""}${decimal(secNanos, NS_PER_SECOND)}s`;
  }
  return neg ? `-${s}` : s;
}

const UNIT_NANOS: Readonly<Record<string, bigint>> = {
  ns: 1n,
  us: 1000n,
  "µs": 1000n,
  "μs": 1000n,
  ms: 1_000_000n,
  s: NS_PER_SECOND,
  m: 60n * NS_PER_SECOND,
  h: 3600n * NS_PER_SECOND,
};

/** Go's time.ParseDuration, returning nanoseconds. */
export function parseDuration(text: string): bigint {
  let rest = text;
  let neg = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    neg = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return 0n;
  if (rest === "") throw new RangeError(`invalid duration ${JSON.stringify(text)}`);
  let total = 0n;
  const re = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const m = re.exec(rest);
    if (!m || (m[1] === "" && (m[2] ?? "") === "")) throw new RangeError(`invalid duration ${JSON.stringify(text)}`);
    const unit = UNIT_NANOS[m[3]];
    total += BigInt(m[1] || "0") * unit;
    if (m[2]) total += (BigInt(m[2]) * unit) / 10n ** BigInt(m[2].length);
    rest = rest.slice(m[0].length);
  }
  return neg ? -total : total;
}
