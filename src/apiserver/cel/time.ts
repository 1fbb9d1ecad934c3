/**
 * Timestamps and durations as CEL (and Go's time package) read and print them: RFC 3339
 * timestamps with nanoseconds, Go duration strings ("1h30m", "1.5s", "-2ms"), time zones given
 * as IANA names or "+HH:MM" offsets, and the calendar fields the timestamp accessors return.
 */
import { CelError, checkDuration, checkTimestamp, CelDuration, CelTimestamp } from "./values.js";

const NS = 1_000_000_000n;

const rfc3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function daysFromCivil(y: number, m: number, d: number): number {
  // Howard Hinnant's days_from_civil: days since 1970-01-01 of a proleptic Gregorian date.
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): { y: number; m: number; d: number } {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return { y: m <= 2 ? y + 1 : y, m, d };
}

/** Parses an RFC 3339 timestamp; throws CelError when it is not one or out of range. */
export function parseTimestamp(s: string): CelTimestamp {
  const m = rfc3339.exec(s);
  if (!m) throw new CelError(`String "${s}" is not a valid timestamp`);
  const [y, mo, d, h, mi, se] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59) throw new CelError(`String "${s}" is not a valid timestamp`);
  const days = daysFromCivil(y, mo, d);
  if (civilFromDays(days).d !== d) throw new CelError(`String "${s}" is not a valid timestamp`);
  let secs = BigInt(days) * 86400n + BigInt(h * 3600 + mi * 60 + se);
  const frac = m[7] ? BigInt(m[7].slice(1).padEnd(9, "0")) : 0n;
  const zone = m[8];
  if (zone !== "Z" && zone !== "z") {
    const sign = zone[0] === "-" ? -1n : 1n;
    const off = BigInt(Number(zone.slice(1, 3)) * 3600 + Number(zone.slice(4, 6)) * 60);
    secs -= sign * off;
  }
  return checkTimestamp(secs * NS + frac);
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, "0");
}

/** RFC 3339 with nanoseconds, trailing zeros trimmed, in UTC (Go's time.RFC3339Nano). */
export function formatTimestamp(t: CelTimestamp): string {
  let secs = t.ns / NS;
  let nanos = t.ns % NS;
  if (nanos < 0n) {
    nanos += NS;
    secs -= 1n;
  }
  const days = Number(secs >= 0n ? secs / 86400n : (secs - 86399n) / 86400n);
  const rem = Number(secs - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  let out = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(Math.floor(rem / 3600), 2)}:${pad(Math.floor((rem % 3600) / 60), 2)}:${pad(rem % 60, 2)}`;
  if (nanos !== 0n) out += `.${nanos.toString().padStart(9, "0").replace(/0+$/, "")}`;
  return `${out}Z`;
}

const unitNs: Record<string, bigint> = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: 1_000_000n, s: NS, m: 60n * NS, h: 3600n * NS };

/** Go's time.ParseDuration. */
export function parseDuration(s: string): CelDuration {
  const bad = () => new CelError(`invalid duration: "${s}"`);
  let rest = s;
  let neg = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    neg = rest[0] === "-";
    rest = rest.slice(1);
  }
  if (rest === "0") return new CelDuration(0n);
  if (rest === "") throw bad();
  let total = 0n;
  const re = /^([0-9]*)(?:\.([0-9]*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== "") {
    const m = re.exec(rest);
    if (!m || (m[1] === "" && (m[2] === undefined || m[2] === ""))) throw bad();
    const unit = unitNs[m[3]];
    const whole = BigInt(m[1] || "0") * unit;
    let frac = 0n;
    if (m[2]) {
      const digits = BigInt(m[2]);
      const scale = 10n ** BigInt(m[2].length);
      frac = (digits * unit) / scale;
    }
    total += whole + frac;
    if (total > 1n << 63n) throw bad();
    rest = rest.slice(m[0].length);
  }
  return checkDuration(neg ? -total : total);
}

/** The duration as CEL prints it: seconds with a fraction, "s" suffix ("1.5s", "3600s"). */
export function formatDuration(d: CelDuration): string {
  const neg = d.ns < 0n;
  const abs = neg ? -d.ns : d.ns;
  const secs = abs / NS;
  const nanos = abs % NS;
  let out = secs.toString();
  if (nanos !== 0n) out += `.${nanos.toString().padStart(9, "0").replace(/0+$/, "")}`;
  return `${neg ? "-" : ""}${out}s`;
}

export interface CalendarFields {
  year: number;
  month: number; // 0-based
  day: number; // 1-based
  hours: number;
  minutes: number;
  seconds: number;
  millis: number;
  dayOfWeek: number; // 0 = Sunday
  dayOfYear: number; // 0-based
}

const offsetRe = /^([+-]?)(\d{2}):(\d{2})$/;

/** The offset in seconds of a time zone at an instant: IANA name or [+-]HH:MM. */
function zoneOffsetSeconds(tz: string, epochSeconds: number): number {
  const m = offsetRe.exec(tz);
  if (m) return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60);
  if (tz === "UTC" || tz === "") return 0;
  let fmt: Intl.DateTimeFormat;
  try {
    fmt = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    throw new CelError(`unknown time zone ${tz}`);
  }
  // Intl works on milliseconds within ±8.64e15; clamp to that range for the offset lookup.
  const ms = Math.max(-8.64e15, Math.min(8.64e15, epochSeconds * 1000));
  const parts = Object.fromEntries(fmt.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return Math.round((local - Math.floor(ms / 1000) * 1000) / 1000);
}

export function calendarFields(t: CelTimestamp, tz?: string): CalendarFields {
  let secs = t.ns / NS;
  let nanos = t.ns % NS;
  if (nanos < 0n) {
    nanos += NS;
    secs -= 1n;
  }
  if (tz !== undefined) secs += BigInt(zoneOffsetSeconds(tz, Number(secs)));
  const days = Number(secs >= 0n ? secs / 86400n : (secs - 86399n) / 86400n);
  const rem = Number(secs - BigInt(days) * 86400n);
  const { y, m, d } = civilFromDays(days);
  return {
    year: y,
    month: m - 1,
    day: d,
    hours: Math.floor(rem / 3600),
    minutes: Math.floor((rem % 3600) / 60),
    seconds: rem % 60,
    millis: Number(nanos / 1_000_000n),
    dayOfWeek: (((days + 4) % 7) + 7) % 7,
    dayOfYear: days - daysFromCivil(y, 1, 1),
  };
}
