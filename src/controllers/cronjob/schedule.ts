/**
 * Cron schedules as kube-controller-manager parses them (robfig/cron's ParseStandard): five fields
 * — minute, hour, day of month, month, day of week — with `*`, `?`, lists, ranges, steps
 * (`a/n` meaning `a-max/n`), month and weekday names, the descriptors @yearly/@annually,
 * @monthly, @weekly, @daily/@midnight, @hourly and `@every <duration>`, and a `TZ=<zone>` or
 * `CRON_TZ=<zone>` prefix. Day of month and day of week combine with OR when both are
 * restricted, with AND when either is `*`/`?`. Times are computed in the schedule's IANA time zone
 * with Intl (UTC when none is given); an activation in a DST gap is skipped, one in a repeated hour
 * runs once, at its first instant (robfig/cron runs it in both).
 */

export class CronParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CronParseError";
  }
}

interface Bounds {
  min: number;
  max: number;
  names?: Readonly<Record<string, number>>;
}

const MONTHS = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: readonly Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS },
  { min: 0, max: 6, names: DAYS },
];

interface Field {
  values: Set<number>;
  star: boolean;
}

function parseValue(s: string, b: Bounds): number {
  const named = b.names?.[s.toLowerCase()];
  if (named !== undefined) return named;
  if (!/^[0-9]+$/.test(s)) throw new CronParseError(`failed to parse int from ${s}`);
  return Number(s);
}

function parseField(expr: string, b: Bounds): Field {
  const values = new Set<number>();
  let star = false;
  for (const part of expr.split(",")) {
    const [range, stepText, ...extra] = part.split("/");
    if (extra.length > 0) throw new CronParseError(`too many slashes: ${part}`);
    let start: number;
    let end: number;
    let partStar = false;
    if (range === "*" || range === "?") {
      start = b.min;
      end = b.max;
      partStar = true;
    } else {
      const lh = range.split("-");
      if (lh.length > 2) throw new CronParseError(`too many hyphens: ${part}`);
      start = parseValue(lh[0], b);
      end = lh.length === 2 ? parseValue(lh[1], b) : start;
      if (lh.length === 1 && stepText !== undefined) end = b.max;
    }
    let step = 1;
    if (stepText !== undefined) {
      step = parseValue(stepText, { min: 0, max: 0 });
      if (step === 0) throw new CronParseError(`step of range should be a positive number: ${part}`);
      if (step > 1) partStar = false;
    }
    if (start < b.min) throw new CronParseError(`beginning of range (${start}) below minimum (${b.min}): ${part}`);
    if (end > b.max) throw new CronParseError(`end of range (${end}) above maximum (${b.max}): ${part}`);
    if (start > end) throw new CronParseError(`beginning of range (${start}) beyond end of range (${end}): ${part}`);
    for (let v = start; v <= end; v += step) values.add(v);
    star ||= partStar;
  }
  return { values, star };
}

/** A Go duration ("1h30m", "90s", "1.5h"), in milliseconds. */
export function parseGoDuration(s: string): number {
  const re = /([0-9]+(?:\.[0-9]+)?)(ns|us|µs|ms|s|m|h)/g;
  const unit: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    if (m.index !== consumed) break;
    total += Number(m[1]) * unit[m[2]];
    consumed = re.lastIndex;
  }
  if (s.length === 0 || consumed !== s.length) throw new CronParseError(`failed to parse duration ${s}: time: invalid duration "${s}"`);
  return total;
}

const DESCRIPTORS: Readonly<Record<string, string>> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

/** Checks an IANA time zone name; throws a RangeError for an unknown one. */
export function validateTimeZone(tz: string): void {
  new Intl.DateTimeFormat("en-US", { timeZone: tz });
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone: tz, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    formatters.set(tz, f);
  }
  return f;
}

/** The wall-clock time of `instant` in `tz`, as the milliseconds of that wall time read as UTC. */
export function wallTime(instant: number, tz: string): number {
  const parts: Record<string, number> = {};
  for (const p of formatter(tz).formatToParts(new Date(instant))) if (p.type !== "literal") parts[p.type] = Number(p.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour === 24 ? 0 : parts.hour, parts.minute, parts.second) + (instant % 1000 + 1000) % 1000;
}

/** The instant whose wall time in `tz` is `wall` (the later one across a DST gap). */
export function instantOf(wall: number, tz: string): number {
  let guess = wall - (wallTime(wall, tz) - wall);
  guess = wall - (wallTime(guess, tz) - guess);
  return guess;
}

/** A parsed schedule: next(t) is the first activation strictly after t (ms). */
export interface Schedule {
  next(afterMs: number): number;
}

export class CronSchedule implements Schedule {
  constructor(
    private readonly fields: readonly Field[],
    readonly timeZone: string,
  ) {}

  private dayMatches(wall: Date): boolean {
    const dom = this.fields[2];
    const dow = this.fields[4];
    const domMatch = dom.values.has(wall.getUTCDate());
    const dowMatch = dow.values.has(wall.getUTCDay());
    if (dom.star || dow.star) return domMatch && dowMatch;
    return domMatch || dowMatch;
  }

  next(afterMs: number): number {
    const [minute, hour, , month] = this.fields;
    // The first whole minute after `afterMs`, in wall time.
    let w = Math.floor(wallTime(afterMs, this.timeZone) / 60_000) * 60_000 + 60_000;
    const limit = w + 5 * 366 * 86_400_000;
    while (w < limit) {
      const d = new Date(w);
      if (!month.values.has(d.getUTCMonth() + 1)) {
        w = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
        continue;
      }
      if (!this.dayMatches(d)) {
        w = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1);
        continue;
      }
      if (!hour.values.has(d.getUTCHours())) {
        w = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), d.getUTCHours() + 1);
        continue;
      }
      if (!minute.values.has(d.getUTCMinutes())) {
        w += 60_000;
        continue;
      }
      const t = instantOf(w, this.timeZone);
      // A wall time in a DST gap does not exist: that activation is skipped, as robfig/cron does.
      if (t > afterMs && wallTime(t, this.timeZone) - (t % 1000) === w) return t;
      w += 60_000;
    }
    // Nothing within five years (e.g. "0 0 30 2 *"): as robfig, the zero time.
    return 0;
  }
}

/** @every <duration>: activations every duration (at least 1 s, whole seconds), from the given time. */
export class ConstantDelaySchedule implements Schedule {
  readonly delayMs: number;
  constructor(delayMs: number) {
    this.delayMs = delayMs < 1000 ? 1000 : Math.floor(delayMs / 1000) * 1000;
  }

  next(afterMs: number): number {
    return Math.floor(afterMs / 1000) * 1000 + this.delayMs;
  }
}

/** Parses a schedule (ParseStandard). Throws CronParseError (or RangeError for an unknown TZ=). */
export function parseSchedule(spec: string): Schedule {
  let s = spec.trim();
  let tz = "UTC";
  const m = /^(?:CRON_TZ|TZ)=(\S+)\s+(.*)$/.exec(s);
  if (m) {
    tz = m[1];
    try {
      validateTimeZone(tz);
    } catch {
      throw new CronParseError(`provided bad location ${tz}: unknown time zone ${tz}`);
    }
    s = m[2].trim();
  }
  if (s.length === 0) throw new CronParseError("empty spec string");
  if (s.startsWith("@")) {
    if (s.startsWith("@every ")) return new ConstantDelaySchedule(parseGoDuration(s.slice("@every ".length).trim()));
    const d = DESCRIPTORS[s];
    if (!d) throw new CronParseError(`unrecognized descriptor: ${s}`);
    s = d;
  }
  const parts = s.split(/\s+/);
  if (parts.length !== 5) throw new CronParseError(`expected exactly 5 fields, found ${parts.length}: ${s}`);
  return new CronSchedule(
    parts.map((p, i) => parseField(p, FIELDS[i])),
    tz,
  );
}
