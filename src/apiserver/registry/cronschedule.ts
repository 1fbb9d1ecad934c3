/**
 * CronJob schedules as upstream validates them: robfig/cron v3's standard parser (five fields —
 * minute, hour, day of month, month, day of week — with ranges, steps, lists, `*` and `?`, month
 * and weekday names, or a descriptor: @yearly, @annually, @monthly, @weekly, @daily, @midnight,
 * @hourly, @every <Go duration>; an optional leading TZ=/CRON_TZ= zone), with its error texts,
 * and time zone names as Go's time.LoadLocation accepts them.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const minutes: Bounds = { min: 0, max: 59 };
const hours: Bounds = { min: 0, max: 23 };
const dom: Bounds = { min: 1, max: 31 };
const months: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const dow: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

class CronError extends Error {}

/** strconv.Atoi's acceptance: an optional sign and decimal digits, within int64. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

function mustParseInt(expr: string): number {
  let num: number;
  try {
    num = atoi(expr);
  } catch (err) {
    throw new CronError(`failed to parse int from ${expr}: ${(err as Error).message}`);
  }
  if (num < 0) throw new CronError(`negative number (${num}) not allowed: ${expr}`);
  return num;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  if (named !== undefined) return named;
  return mustParseInt(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split("/");
  const lowAndHigh = rangeAndStep[0].split("-");
  const singleDigit = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === "*" || lowAndHigh[0] === "?") {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0], r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1], r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]);
    if (singleDigit) end = r.max;
  } else throw new CronError(`too many slashes: ${expr}`);
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

function checkField(field: string, r: Bounds): void {
  for (const expr of field.split(",").filter((e) => e !== "")) checkRange(expr, r);
}

const durationUnits: Record<string, number> = { ns: 1, us: 1e3, "µs": 1e3, "μs": 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** Go's time.ParseDuration acceptance and error texts. */
export function parseGoDuration(s: string): number {
  const orig = s;
  const quoted = JSON.stringify(orig);
  let neg = false;
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-";
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") throw new CronError(`time: invalid duration ${quoted}`);
  let total = 0;
  while (s !== "") {
    const m = /^([0-9]*)(\.[0-9]*)?/.exec(s)!;
    if (m[0] === "" || m[0] === ".") throw new CronError(`time: invalid duration ${quoted}`);
    s = s.slice(m[0].length);
    const u = /^[^0-9.]*/.exec(s)![0];
    if (u === "") throw new CronError(`time: missing unit in duration ${quoted}`);
    const unit = durationUnits[u];
    if (unit === undefined) throw new CronError(`time: unknown unit ${JSON.stringify(u)} in duration ${quoted}`);
    s = s.slice(u.length);
    total += Number(m[0]) * unit;
  }
  // int64 nanoseconds (2^63 - 1).
  if (total > 2 ** 63 - 1) throw new CronError(`time: invalid duration ${quoted}`);
  return neg ? -total : total;
}

/** Zones time.LoadLocation would find (an embedded tz database; case-sensitive). */
export function loadLocationError(name: string): string | undefined {
  if (name === "" || name === "UTC" || name === "Local") return undefined;
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
    // Intl ignores case; the tz database does not. A canonical name must match as written.
    if (resolved.toLowerCase() === name.toLowerCase() && resolved !== name) return `unknown time zone ${name}`;
    return undefined;
  } catch {
    return `unknown time zone ${name}`;
  }
}

/**
 * Parses a schedule as cron.ParseStandard; returns the error text, or undefined when the schedule
 * is valid.
 */
export function cronScheduleError(spec: string): string | undefined {
  try {
    parseStandard(spec);
    return undefined;
  } catch (err) {
    if (err instanceof CronError) return err.message;
    throw err;
  }
}

function parseStandard(input: string): void {
  let spec = input;
  if (spec.length === 0) throw new CronError("empty spec string");
  if (spec.startsWith("TZ=") || spec.startsWith("CRON_TZ=")) {
    const i = spec.indexOf(" ");
    const eq = spec.indexOf("=");
    // Go slices spec[eq+1:i]; without a space that panics upstream, and fails here.
    const zone = i < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, i);
    const err = loadLocationError(zone);
    if (err) throw new CronError(`provided bad location ${zone}: ${err}`);
    spec = i < 0 ? "" : spec.slice(i).trim();
  }
  if (spec.startsWith("@")) {
    parseDescriptor(spec);
    return;
  }
  const fields = spec.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]`);
  checkField(fields[0], minutes);
  checkField(fields[1], hours);
  checkField(fields[2], dom);
  checkField(fields[3], months);
  checkField(fields[4], dow);
}

function parseDescriptor(d: string): void {
  if (["@yearly", "@annually", "@monthly", "@weekly", "@daily", "@midnight", "@hourly"].includes(d)) return;
  const every = "@every ";
  if (d.startsWith(every)) {
    try {
      parseGoDuration(d.slice(every.length));
    } catch (err) {
      throw new CronError(`failed to parse duration ${d}: ${(err as Error).message}`);
    }
    return;
  }
  throw new CronError(`unrecognized descriptor: ${d}`);
}
