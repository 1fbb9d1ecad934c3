/**
 * Go's time.Parse for the two layouts the API uses — RFC 3339 (metav1.Time) and RFC 3339 with
 * exactly six fractional digits (metav1.MicroTime) — with Go's error texts, and the forms their
 * MarshalJSON writes: `t.UTC().Format(layout)` (seconds, resp. microseconds, truncated; "Z").
 *
 * Go walks the layout chunk by chunk ("2006", "-", "01", ...); a mismatch names the rest of the
 * value and the layout chunk: `parsing time "x" as "2006-01-02T15:04:05Z07:00": cannot parse "x" as "2006"`.
 */

export const RFC3339 = "2006-01-02T15:04:05Z07:00";
export const RFC3339Micro = "2006-01-02T15:04:05.000000Z07:00";

export class TimeParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TimeParseError";
  }
}

/** An instant: whole seconds since the Unix epoch and nanoseconds. */
export interface Instant {
  readonly seconds: number;
  readonly nanos: number;
}

/** Go's quote() of time's error messages: ASCII printable as is, `"` and `\` escaped, other bytes as \xNN. */
function quote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x20 || c >= 0x80) {
      for (const b of Buffer.from(ch, "utf8")) out += `\\x${b.toString(16).padStart(2, "0")}`;
    } else {
      if (ch === '"' || ch === "\\") out += "\\";
      out += ch;
    }
  }
  return out + '"';
}

type Std = "year" | "month" | "day" | "hour" | "minute" | "second" | "frac6" | "tz";
const chunksRFC3339: ReadonlyArray<readonly [string, Std, string]> = [
  ["", "year", "2006"],
  ["-", "month", "01"],
  ["-", "day", "02"],
  ["T", "hour", "15"],
  [":", "minute", "04"],
  [":", "second", "05"],
  ["", "tz", "Z07:00"],
];
const chunksMicro: ReadonlyArray<readonly [string, Std, string]> = [...chunksRFC3339.slice(0, 6), ["", "frac6", ".000000"], ["", "tz", "Z07:00"]];

class Bad extends Error {}
const bad = new Bad();

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

function getnum(s: string, fixed: boolean): [number, string] {
  if (!isDigit(s, 0)) throw bad;
  if (!isDigit(s, 1)) {
    if (fixed) throw bad;
    return [s.charCodeAt(0) - 48, s.slice(1)];
  }
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

/** time's atoi: optional sign, then only digits. */
function atoi(s: string): number {
  let neg = false;
  if (s.length > 0 && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (!/^[0-9]*$/.test(s)) throw bad;
  // leadingInt of an empty string is 0.
  const x = s === "" ? 0 : Number(s);
  return neg ? -x : x;
}

/** parseNanoseconds: value[0] is the separator, then nbytes-1 digits. */
function parseNanos(value: string, nbytes: number): { ns: number; range?: string } {
  if (value[0] !== "." && value[0] !== ",") throw bad;
  if (nbytes > 10) nbytes = 10;
  const ns = atoi(value.slice(1, nbytes));
  if (ns < 0) return { ns, range: "fractional second" };
  return { ns: ns * 10 ** (10 - nbytes) };
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
const daysBefore = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365];
function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return daysBefore[month] - daysBefore[month - 1];
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

function parseError(layout: string, value: string, layoutElem: string, valueElem: string, message = ""): TimeParseError {
  if (message === "") return new TimeParseError(`parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`);
  return new TimeParseError(`parsing time ${quote(value)}${message}`);
}

/** time.Parse(layout, value) for RFC3339 / RFC3339Micro; throws TimeParseError with Go's text. */
export function parseGoTime(layout: typeof RFC3339 | typeof RFC3339Micro, avalue: string): Instant {
  const chunks = layout === RFC3339 ? chunksRFC3339 : chunksMicro;
  let value = avalue;
  let year = 0;
  let month = -1;
  let day = -1;
  let hour = 0;
  let min = 0;
  let sec = 0;
  let nsec = 0;
  let zoneOffset = 0;
  for (let ci = 0; ; ci++) {
    const chunk = ci < chunks.length ? chunks[ci] : (["", undefined, ""] as const);
    const [prefix, std, stdstr] = chunk;
    // skip(value, prefix): the layout's literal text must match.
    for (let i = 0; i < prefix.length; i++) {
      if (value.length === 0 || value[0] !== prefix[i]) throw parseError(layout, avalue, prefix, value);
      value = value.slice(1);
    }
    if (std === undefined) {
      if (value.length !== 0) throw parseError(layout, avalue, "", value, `: extra text: ${quote(value)}`);
      break;
    }
    const hold = value;
    let range = "";
    try {
      switch (std) {
        case "year": {
          if (value.length < 4 || !isDigit(value, 0)) throw bad;
          const p = value.slice(0, 4);
          value = value.slice(4);
          year = atoi(p);
          break;
        }
        case "month":
          [month, value] = getnum(value, true);
          if (month <= 0 || month > 12) range = "month";
          break;
        case "day":
          [day, value] = getnum(value, true);
          break;
        case "hour":
          try {
            [hour, value] = getnum(value, false);
          } catch (e) {
            hour = 0;
            throw e;
          }
          if (hour < 0 || hour >= 24) range = "hour";
          break;
        case "minute":
          [min, value] = getnum(value, true);
          if (min < 0 || min >= 60) range = "minute";
          break;
        case "second": {
          [sec, value] = getnum(value, true);
          if (sec < 0 || sec >= 60) {
            range = "second";
            break;
          }
          if (value.length >= 2 && (value[0] === "." || value[0] === ",") && isDigit(value, 1)) {
            // A fractional second the layout does not spell: accepted unless the layout has one next.
            if (ci + 1 < chunks.length && chunks[ci + 1][1] === "frac6") break;
            let n = 2;
            while (n < value.length && isDigit(value, n)) n++;
            const r = parseNanos(value, n);
            nsec = r.ns;
            range = r.range ?? "";
            value = value.slice(n);
          }
          break;
        }
        case "frac6": {
          const ndigit = 7;
          if (value.length < ndigit) throw bad;
          const r = parseNanos(value, ndigit);
          nsec = r.ns;
          range = r.range ?? "";
          value = value.slice(ndigit);
          break;
        }
        case "tz": {
          if (value.length >= 1 && value[0] === "Z") {
            value = value.slice(1);
            zoneOffset = 0;
            break;
          }
          if (value.length < 6 || value[3] !== ":") throw bad;
          const sign = value[0];
          const hh = value.slice(1, 3);
          const mm = value.slice(4, 6);
          value = value.slice(6);
          const [hr] = getnum(hh, true);
          const [mi] = getnum(mm, true);
          if (hr > 24) range = "time zone offset hour";
          if (mi > 60) range = "time zone offset minute";
          zoneOffset = (hr * 60 + mi) * 60;
          if (sign === "-") zoneOffset = -zoneOffset;
          else if (sign !== "+") throw bad;
          break;
        }
      }
    } catch (e) {
      if (!(e instanceof Bad)) throw e;
      if (range !== "") throw parseError(layout, avalue, stdstr, value, `: ${range} out of range`);
      throw parseError(layout, avalue, stdstr, hold);
    }
    if (range !== "") throw parseError(layout, avalue, stdstr, value, `: ${range} out of range`);
  }
  if (month < 0) month = 1;
  if (day < 0) day = 1;
  if (day < 1 || day > daysIn(month, year)) throw parseError(layout, avalue, "", value, ": day out of range");
  const seconds = daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - zoneOffset;
  return { seconds, nanos: nsec };
}

/** Seconds of 0001-01-01T00:00:00Z: Go's zero Time, which MarshalJSON writes as null. */
const zeroSeconds = -62135596800;

export function isZeroInstant(t: Instant): boolean {
  return t.seconds === zeroSeconds && t.nanos === 0;
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

function formatDate(t: Instant): string {
  const days = Math.floor(t.seconds / 86400);
  const rem = t.seconds - days * 86400;
  const [y, m, d] = civilFromDays(days);
  const year = y < 0 ? `-${pad(-y, 3)}` : pad(y, 4);
  return `${year}-${pad(m, 2)}-${pad(d, 2)}T${pad(Math.floor(rem / 3600), 2)}:${pad(Math.floor((rem % 3600) / 60), 2)}:${pad(rem % 60, 2)}`;
}

/** t.UTC().Format(time.RFC3339): whole seconds. */
export function formatRFC3339(t: Instant): string {
  return `${formatDate(t)}Z`;
}

/** t.UTC().Format(RFC3339Micro): six fractional digits, truncated. */
export function formatRFC3339Micro(t: Instant): string {
  return `${formatDate(t)}.${pad(Math.floor(t.nanos / 1000), 6)}Z`;
}
