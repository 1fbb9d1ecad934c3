/**
 * Logging for controllers and the manager: pino, JSON lines by default, a compact readable form
 * on a terminal. Structured keys used across the runtime: `controller`, `object` ("ns/name"),
 * `reconcileID`, `err`.
 */
import { pino, stdSerializers } from "pino";
import type { DestinationStream, Level, Logger as PinoLogger } from "pino";

/** One log call: a message, or structured fields and a message (pino's argument order). */
export interface LogFn {
  (msg: string): void;
  (fields: object, msg?: string): void;
}

/**
 * The one logger interface everything in kubeloop takes: pino's calling convention, so a pino
 * logger (what `createLogger` returns) is one, and so is any adapter with these six members.
 * Structured keys used across the runtime: `controller`, `object` ("ns/name"), `reconcileID`,
 * `err` (an Error: pino keeps its message, stack and cause).
 */
export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger that adds `bindings` to every line. */
  child(bindings: Record<string, unknown>): Logger;
}

export interface LoggerOptions {
  /** A pino level name ("trace" … "fatal", "silent") or a klog-style verbosity number ("0" … "10"). */
  level?: string;
  /** The `name` field of every line. */
  name?: string;
  /** Human-readable lines instead of JSON. Default: whether `destination` (stdout) is a TTY. */
  pretty?: boolean;
  /** Where lines go; default process.stdout. */
  destination?: { write(line: string): unknown; isTTY?: boolean };
  /** Colors in pretty mode; default: whether the destination is a TTY. */
  colors?: boolean;
}

const LEVEL_NAMES: readonly string[] = ["trace", "debug", "info", "warn", "error", "fatal", "silent"];

export class InvalidLogLevelError extends Error {
  constructor(value: string) {
    super(`invalid log level "${value}": want one of ${LEVEL_NAMES.join(", ")} or a verbosity number 0-10`);
    this.name = "InvalidLogLevelError";
  }
}

/**
 * Parses a --log-level / -v flag value. Level names pass through; klog verbosities map as
 * Kubernetes components use them: 0–1 info, 2–4 debug (V(2) is "useful steady state", V(4)
 * "debug"), 5 and above trace.
 */
export function parseLogLevel(value: string): Level | "silent" {
  const v = value.trim().toLowerCase();
  if (LEVEL_NAMES.includes(v)) return v as Level | "silent";
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (n <= 1) return "info";
    if (n <= 4) return "debug";
    return "trace";
  }
  throw new InvalidLogLevelError(value);
}

const PINO_LEVEL_LABELS: Record<number, string> = { 10: "TRACE", 20: "DEBUG", 30: "INFO", 40: "WARN", 50: "ERROR", 60: "FATAL" };
const LEVEL_COLORS: Record<number, string> = { 10: "90", 20: "36", 30: "32", 40: "33", 50: "31", 60: "35" };

function formatValue(v: unknown): string {
  if (typeof v === "string") return /[\s"=]/.test(v) || v === "" ? JSON.stringify(v) : v;
  if (v !== null && typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/**
 * Formats one pino JSON line as `HH:MM:SS.mmm LEVEL [name] message key=value …`, with an error's
 * stack on the following lines. Exported for tests and for callers with their own streams.
 */
export function formatPrettyLine(line: string, colors = false): string {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith("\n") ? line : `${line}\n`;
  }
  const { level, time, msg, name, pid: _pid, hostname: _hostname, err, ...rest } = rec;
  const lvl = typeof level === "number" ? level : 30;
  const label = (PINO_LEVEL_LABELS[lvl] ?? String(level)).padEnd(5);
  const ts = typeof time === "number" ? new Date(time).toISOString().slice(11, 23) : "";
  const paint = (code: string, s: string) => (colors ? `\u001b[${code}m${s}\u001b[0m` : s);
  const parts = [paint("90", ts), paint(LEVEL_COLORS[lvl] ?? "0", label)];
  if (typeof name === "string" && name) parts.push(paint("90", `[${name}]`));
  if (typeof msg === "string" && msg) parts.push(msg);
  for (const [k, v] of Object.entries(rest)) {
    if (v === undefined) continue;
    parts.push(`${paint("90", `${k}=`)}${formatValue(v)}`);
  }
  let out = parts.join(" ");
  if (err && typeof err === "object") {
    const e = err as { message?: unknown; stack?: unknown };
    out += ` ${paint("90", "err=")}${formatValue(e.message ?? err)}`;
    if (typeof e.stack === "string") out += `\n${paint("90", e.stack.split("\n").slice(1).join("\n"))}`;
  }
  return `${out}\n`;
}

/** A pino destination that rewrites each JSON line into the readable form. */
export function prettyDestination(target: { write(line: string): unknown }, colors = false): DestinationStream {
  return {
    write(chunk: string) {
      for (const line of chunk.split("\n")) if (line !== "") target.write(formatPrettyLine(line, colors));
    },
  };
}

/** A pino logger: JSON by default, readable on a terminal (or when `pretty` is set). */
export function createLogger(opts: LoggerOptions = {}): PinoLogger {
  const dest = opts.destination ?? process.stdout;
  const tty = Boolean((dest as { isTTY?: boolean }).isTTY);
  const pretty = opts.pretty ?? tty;
  const level = opts.level === undefined ? "info" : parseLogLevel(opts.level);
  const options = {
    level,
    ...(opts.name ? { name: opts.name } : {}),
    // Errors under `err` keep their message, stack and cause (pino's standard serializer).
    serializers: { err: stdSerializers.err },
  };
  const stream: DestinationStream = pretty ? prettyDestination(dest, opts.colors ?? tty) : { write: (s: string) => dest.write(s) };
  return pino(options, stream);
}

/** A logger that drops everything (level "silent"). */
export function silentLogger(): PinoLogger {
  return pino({ level: "silent" });
}

/** One captured log line, parsed. */
export interface LogRecord {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

/**
 * A logger that keeps every line in memory (for tests): `records` holds them parsed, in order.
 * Synchronous: a line is in `records` as soon as the log call returns.
 */
export function captureLogger(level = "trace"): { logger: PinoLogger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = pino(
    { level: parseLogLevel(level), serializers: { err: stdSerializers.err } },
    {
      write(chunk: string) {
        for (const line of chunk.split("\n")) if (line !== "") records.push(JSON.parse(line) as LogRecord);
      },
    },
  );
  return { logger, records };
}

let defaultLoggerInstance: Logger | undefined;

/**
 * The logger used when none is given: created on first use, level from KUBELOOP_LOG_LEVEL
 * (default "info").
 */
export function defaultLogger(): Logger {
  defaultLoggerInstance ??= createLogger({ level: process.env.KUBELOOP_LOG_LEVEL ?? "info", name: "kubeloop" });
  return defaultLoggerInstance;
}
