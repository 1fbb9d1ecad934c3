/**
 * The CEL standard library (cel-spec langdef "Functions", cel-go checker/decls and
 * interpreter/functions): operators, size, conversions, string predicates, timestamp and
 * duration accessors, with cel-go's overload ids. The logical operators, the conditional and
 * @not_strictly_false are declared here but evaluated by the interpreter (they absorb errors).
 * Cross-type numeric comparisons (cel.CrossTypeNumericComparisons) are always declared.
 */
import { A, B, K, Library, memberOverload, overload, V, type Impl } from "./decls.js";
import { regexFor } from "./regex.js";
import { calendarFields, formatDuration, formatTimestamp, parseDuration, parseTimestamp, type CalendarFields } from "./time.js";
import { T, type CelType } from "./types.js";
import {
  CelDuration,
  CelError,
  CelMap,
  CelTimestamp,
  CelTypeValue,
  CelUint,
  celCompare,
  celEquals,
  checkDuration,
  checkInt,
  checkTimestamp,
  checkUint,
  codePointLength,
  concatLists,
  INT64_MAX,
  INT64_MIN,
  LiteralMap,
  runtimeType,
  UINT64_MAX,
  type Val,
} from "./values.js";

const int = (v: Val) => v as bigint;
const uint = (v: Val) => (v as CelUint).v;
const dbl = (v: Val) => v as number;
const str = (v: Val) => v as string;

/** Go's strconv.FormatFloat(f, 'g', -1, 64) as cel-go prints doubles. */
export function formatDouble(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mant, expStr] = f.toExponential().split("e");
  const exp = Number(expStr);
  if (exp < -4 || exp >= 21) {
    const abs = Math.abs(exp);
    return `${mant}e${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
  }
  return String(f);
}

function divInt(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new CelError("division by zero");
  if (a === INT64_MIN && b === -1n) throw new CelError("integer overflow");
  return a / b;
}

function modInt(a: bigint, b: bigint): bigint {
  if (b === 0n) throw new CelError("modulus by zero");
  if (a === INT64_MIN && b === -1n) throw new CelError("integer overflow");
  return a % b;
}

function bytesConcat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function doubleToInt(d: number): bigint {
  if (!Number.isFinite(d) || d <= -(2 ** 63) || d >= 2 ** 63) throw new CelError("range error converting double to int");
  return BigInt(Math.trunc(d));
}

function doubleToUint(d: number): CelUint {
  if (!Number.isFinite(d) || d < 0 || d >= 2 ** 64) throw new CelError("range error converting double to uint");
  return new CelUint(BigInt(Math.trunc(d)));
}

/** cel-go's message for a string that does not convert. */
const conversionError = (to: string) => new CelError(`type conversion error from 'string' to '${to}'`);

function parseIntStrict(s: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(s)) throw conversionError("int");
  const v = BigInt(s);
  if (v < INT64_MIN || v > INT64_MAX) throw conversionError("int");
  return v;
}

function parseUintStrict(s: string): CelUint {
  if (!/^\+?[0-9]+$/.test(s)) throw conversionError("uint");
  const v = BigInt(s);
  if (v > UINT64_MAX) throw conversionError("uint");
  return new CelUint(v);
}

function parseDoubleStrict(s: string): number {
  const t = s.toLowerCase();
  if (/^[+-]?(inf|infinity)$/.test(t)) return t.startsWith("-") ? -Infinity : Infinity;
  if (/^[+-]?nan$/.test(t)) return NaN;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) throw conversionError("double");
  return Number(s);
}

const trueStrings = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const falseStrings = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** An index into a list: int, or uint/double with an integral value (dyn indexes). */
export function listIndex(list: readonly Val[], idx: Val): Val {
  let i: bigint;
  if (typeof idx === "bigint") i = idx;
  else if (idx instanceof CelUint) i = idx.v;
  else if (typeof idx === "number" && Number.isInteger(idx)) i = BigInt(idx);
  else if (typeof idx === "number") throw new CelError("unsupported index value");
  else throw new CelError("no such overload");
  if (i < 0n || i >= BigInt(list.length)) throw new CelError(`index '${i}' out of range in list size '${list.length}'`);
  return list[Number(i)];
}

export function mapIndex(m: CelMap, key: Val): Val {
  const v = m.get(key);
  if (v === undefined) throw new CelError(`no such key: ${keyText(key)}`);
  return v;
}

function keyText(k: Val): string {
  if (typeof k === "string") return k;
  if (k instanceof CelUint) return `${k.v}`;
  return String(k);
}

function inList(x: Val, l: readonly Val[]): boolean {
  for (const y of l) if (celEquals(x, y)) return true;
  return false;
}

function cmpOverloads(lib: Library, fn: string, base: string, test: (c: number) => boolean): void {
  const impl: Impl = ([a, b]) => {
    const c = celCompare(a, b);
    return c === undefined ? false : test(c);
  };
  const same: [string, CelType][] = [
    ["bool", T.bool],
    ["int64", T.int],
    ["uint64", T.uint],
    ["double", T.double],
    ["string", T.string],
    ["bytes", T.bytes],
    ["timestamp", T.timestamp],
    ["duration", T.duration],
  ];
  for (const [n, t] of same) lib.add(fn, overload(`${base}_${n}`, [t, t], T.bool, impl));
  const cross: [string, CelType, string, CelType][] = [
    ["int64", T.int, "double", T.double],
    ["int64", T.int, "uint64", T.uint],
    ["uint64", T.uint, "double", T.double],
    ["uint64", T.uint, "int64", T.int],
    ["double", T.double, "int64", T.int],
    ["double", T.double, "uint64", T.uint],
  ];
  for (const [n1, t1, n2, t2] of cross) lib.add(fn, overload(`${base}_${n1}_${n2}`, [t1, t2], T.bool, impl));
}

function timeAccessors(lib: Library): void {
  const fields: [string, string, (f: CalendarFields) => number][] = [
    ["getFullYear", "timestamp_to_year", (f) => f.year],
    ["getMonth", "timestamp_to_month", (f) => f.month],
    ["getDayOfYear", "timestamp_to_day_of_year", (f) => f.dayOfYear],
    ["getDayOfMonth", "timestamp_to_day_of_month", (f) => f.day - 1],
    ["getDate", "timestamp_to_day_of_month_1_based", (f) => f.day],
    ["getDayOfWeek", "timestamp_to_day_of_week", (f) => f.dayOfWeek],
    ["getHours", "timestamp_to_hours", (f) => f.hours],
    ["getMinutes", "timestamp_to_minutes", (f) => f.minutes],
    ["getSeconds", "timestamp_to_seconds", (f) => f.seconds],
    ["getMilliseconds", "timestamp_to_milliseconds", (f) => f.millis],
  ];
  for (const [name, id, get] of fields) {
    const tzId = id === "timestamp_to_seconds" ? "timestamp_to_seconds_tz" : `${id}_with_tz`;
    lib.add(
      name,
      memberOverload(id, [T.timestamp], T.int, ([t]) => BigInt(get(calendarFields(t as CelTimestamp)))),
      memberOverload(tzId, [T.timestamp, T.string], T.int, ([t, tz]) => BigInt(get(calendarFields(t as CelTimestamp, str(tz))))),
    );
  }
  const NS = 1_000_000_000n;
  const dur: [string, string, bigint][] = [
    ["getHours", "duration_to_hours", 3600n * NS],
    ["getMinutes", "duration_to_minutes", 60n * NS],
    ["getSeconds", "duration_to_seconds", NS],
    ["getMilliseconds", "duration_to_milliseconds", 1_000_000n],
  ];
  for (const [name, id, unit] of dur) {
    lib.add(
      name,
      memberOverload(id, [T.duration], T.int, ([d]) => {
        const ns = (d as CelDuration).ns;
        return name === "getMilliseconds" ? (ns % NS) / unit : ns / unit;
      }),
    );
  }
}

/** The standard library, built once. */
export function standardLibrary(): Library {
  const lib = new Library();
  for (const [n, t] of [
    ["int", T.int],
    ["uint", T.uint],
    ["double", T.double],
    ["bool", T.bool],
    ["string", T.string],
    ["bytes", T.bytes],
    ["null_type", T.null],
    ["list", T.list(T.dyn)],
    ["map", T.map(T.dyn, T.dyn)],
    ["type", T.type()],
    ["google.protobuf.Timestamp", T.timestamp],
    ["google.protobuf.Duration", T.duration],
  ] as const) {
    lib.typeName(n, t);
  }

  // Special forms (evaluated by the interpreter).
  lib.add("_?_:_", overload("conditional", [T.bool, A, A], A));
  lib.add("_&&_", overload("logical_and", [T.bool, T.bool], T.bool));
  lib.add("_||_", overload("logical_or", [T.bool, T.bool], T.bool));
  lib.add("@not_strictly_false", overload("not_strictly_false", [T.bool], T.bool));
  lib.add("!_", overload("logical_not", [T.bool], T.bool, ([b]) => !(b as boolean)));

  lib.add(
    "-_",
    overload("negate_int64", [T.int], T.int, ([a]) => checkInt(-int(a))),
    overload("negate_double", [T.double], T.double, ([a]) => -dbl(a)),
  );
  lib.add("_==_", overload("equals", [A, A], T.bool, ([a, b]) => celEquals(a, b)));
  lib.add("_!=_", overload("not_equals", [A, A], T.bool, ([a, b]) => !celEquals(a, b)));
  cmpOverloads(lib, "_<_", "less", (c) => c < 0);
  cmpOverloads(lib, "_<=_", "less_equals", (c) => c <= 0);
  cmpOverloads(lib, "_>_", "greater", (c) => c > 0);
  cmpOverloads(lib, "_>=_", "greater_equals", (c) => c >= 0);

  lib.add(
    "_+_",
    overload("add_int64", [T.int, T.int], T.int, ([a, b]) => checkInt(int(a) + int(b))),
    overload("add_uint64", [T.uint, T.uint], T.uint, ([a, b]) => checkUint(uint(a) + uint(b))),
    overload("add_double", [T.double, T.double], T.double, ([a, b]) => dbl(a) + dbl(b)),
    overload("add_string", [T.string, T.string], T.string, ([a, b]) => str(a) + str(b)),
    overload("add_bytes", [T.bytes, T.bytes], T.bytes, ([a, b]) => bytesConcat(a as Uint8Array, b as Uint8Array)),
    overload("add_list", [T.list(A), T.list(A)], T.list(A), ([a, b]) => concatLists(a as Val[], b as Val[])),
    overload("add_timestamp_duration", [T.timestamp, T.duration], T.timestamp, ([a, b]) => checkTimestamp((a as CelTimestamp).ns + (b as CelDuration).ns)),
    overload("add_duration_timestamp", [T.duration, T.timestamp], T.timestamp, ([a, b]) => checkTimestamp((a as CelDuration).ns + (b as CelTimestamp).ns)),
    overload("add_duration_duration", [T.duration, T.duration], T.duration, ([a, b]) => checkDuration((a as CelDuration).ns + (b as CelDuration).ns)),
  );
  lib.add(
    "_-_",
    overload("subtract_int64", [T.int, T.int], T.int, ([a, b]) => checkInt(int(a) - int(b))),
    overload("subtract_uint64", [T.uint, T.uint], T.uint, ([a, b]) => checkUint(uint(a) - uint(b))),
    overload("subtract_double", [T.double, T.double], T.double, ([a, b]) => dbl(a) - dbl(b)),
    overload("subtract_timestamp_timestamp", [T.timestamp, T.timestamp], T.duration, ([a, b]) => checkDuration((a as CelTimestamp).ns - (b as CelTimestamp).ns)),
    overload("subtract_timestamp_duration", [T.timestamp, T.duration], T.timestamp, ([a, b]) => checkTimestamp((a as CelTimestamp).ns - (b as CelDuration).ns)),
    overload("subtract_duration_duration", [T.duration, T.duration], T.duration, ([a, b]) => checkDuration((a as CelDuration).ns - (b as CelDuration).ns)),
  );
  lib.add(
    "_*_",
    overload("multiply_int64", [T.int, T.int], T.int, ([a, b]) => checkInt(int(a) * int(b))),
    overload("multiply_uint64", [T.uint, T.uint], T.uint, ([a, b]) => checkUint(uint(a) * uint(b))),
    overload("multiply_double", [T.double, T.double], T.double, ([a, b]) => dbl(a) * dbl(b)),
  );
  lib.add(
    "_/_",
    overload("divide_int64", [T.int, T.int], T.int, ([a, b]) => divInt(int(a), int(b))),
    overload("divide_uint64", [T.uint, T.uint], T.uint, ([a, b]) => {
      if (uint(b) === 0n) throw new CelError("division by zero");
      return new CelUint(uint(a) / uint(b));
    }),
    overload("divide_double", [T.double, T.double], T.double, ([a, b]) => dbl(a) / dbl(b)),
  );
  lib.add(
    "_%_",
    overload("modulo_int64", [T.int, T.int], T.int, ([a, b]) => modInt(int(a), int(b))),
    overload("modulo_uint64", [T.uint, T.uint], T.uint, ([a, b]) => {
      if (uint(b) === 0n) throw new CelError("modulus by zero");
      return new CelUint(uint(a) % uint(b));
    }),
  );
  lib.add(
    "_[_]",
    overload("index_list", [T.list(A), T.int], A, ([l, i]) => listIndex(l as Val[], i)),
    overload("index_map", [T.map(K, V), K], V, ([m, k]) => mapIndex(m as CelMap, k)),
    overload("optional_list_index_int", [T.optional(T.list(V)), T.int], T.optional(V)),
    overload("optional_map_index_value", [T.optional(T.map(K, V)), K], T.optional(V)),
  );
  lib.add(
    "@in",
    overload("in_list", [A, T.list(A)], T.bool, ([x, l]) => inList(x, l as Val[])),
    overload("in_map", [A, T.map(A, B)], T.bool, ([x, m]) => (m as CelMap).has(x)),
  );
  const size = {
    string: ([s]: readonly Val[]) => BigInt(codePointLength(str(s))),
    bytes: ([b]: readonly Val[]) => BigInt((b as Uint8Array).length),
    list: ([l]: readonly Val[]) => BigInt((l as Val[]).length),
    map: ([m]: readonly Val[]) => BigInt((m as CelMap).size),
  };
  lib.add(
    "size",
    overload("size_string", [T.string], T.int, size.string),
    overload("size_bytes", [T.bytes], T.int, size.bytes),
    overload("size_list", [T.list(A)], T.int, size.list),
    overload("size_map", [T.map(K, V)], T.int, size.map),
    memberOverload("string_size", [T.string], T.int, size.string),
    memberOverload("bytes_size", [T.bytes], T.int, size.bytes),
    memberOverload("list_size", [T.list(A)], T.int, size.list),
    memberOverload("map_size", [T.map(K, V)], T.int, size.map),
  );

  // Conversions.
  lib.add(
    "int",
    overload("int64_to_int64", [T.int], T.int, ([a]) => a),
    overload("uint64_to_int64", [T.uint], T.int, ([a]) => {
      if (uint(a) > INT64_MAX) throw new CelError("range error converting uint to int");
      return uint(a);
    }),
    overload("double_to_int64", [T.double], T.int, ([a]) => doubleToInt(dbl(a))),
    overload("string_to_int64", [T.string], T.int, ([a]) => parseIntStrict(str(a))),
    overload("timestamp_to_int64", [T.timestamp], T.int, ([a]) => {
      const ns = (a as CelTimestamp).ns;
      return ns >= 0n ? ns / 1_000_000_000n : (ns - 999_999_999n) / 1_000_000_000n;
    }),
  );
  lib.add(
    "uint",
    overload("uint64_to_uint64", [T.uint], T.uint, ([a]) => a),
    overload("int64_to_uint64", [T.int], T.uint, ([a]) => {
      if (int(a) < 0n) throw new CelError("range error converting int to uint");
      return new CelUint(int(a));
    }),
    overload("double_to_uint64", [T.double], T.uint, ([a]) => doubleToUint(dbl(a))),
    overload("string_to_uint64", [T.string], T.uint, ([a]) => parseUintStrict(str(a))),
  );
  lib.add(
    "double",
    overload("double_to_double", [T.double], T.double, ([a]) => a),
    overload("int64_to_double", [T.int], T.double, ([a]) => Number(int(a))),
    overload("uint64_to_double", [T.uint], T.double, ([a]) => Number(uint(a))),
    overload("string_to_double", [T.string], T.double, ([a]) => parseDoubleStrict(str(a))),
  );
  lib.add(
    "bool",
    overload("bool_to_bool", [T.bool], T.bool, ([a]) => a),
    overload("string_to_bool", [T.string], T.bool, ([a]) => {
      if (trueStrings.has(str(a))) return true;
      if (falseStrings.has(str(a))) return false;
      throw conversionError("bool");
    }),
  );
  lib.add(
    "string",
    overload("string_to_string", [T.string], T.string, ([a]) => a),
    overload("bool_to_string", [T.bool], T.string, ([a]) => String(a)),
    overload("int64_to_string", [T.int], T.string, ([a]) => String(a)),
    overload("uint64_to_string", [T.uint], T.string, ([a]) => String(uint(a))),
    overload("double_to_string", [T.double], T.string, ([a]) => formatDouble(dbl(a))),
    overload("bytes_to_string", [T.bytes], T.string, ([a]) => {
      try {
        return utf8.decode(a as Uint8Array);
      } catch {
        throw new CelError("invalid UTF-8 in bytes, cannot convert to string");
      }
    }),
    overload("timestamp_to_string", [T.timestamp], T.string, ([a]) => formatTimestamp(a as CelTimestamp)),
    overload("duration_to_string", [T.duration], T.string, ([a]) => formatDuration(a as CelDuration)),
  );
  lib.add(
    "bytes",
    overload("bytes_to_bytes", [T.bytes], T.bytes, ([a]) => a),
    overload("string_to_bytes", [T.string], T.bytes, ([a]) => new TextEncoder().encode(str(a))),
  );
  lib.add(
    "timestamp",
    overload("timestamp_to_timestamp", [T.timestamp], T.timestamp, ([a]) => a),
    overload("string_to_timestamp", [T.string], T.timestamp, ([a]) => {
      let t: CelTimestamp;
      try {
        t = parseTimestamp(str(a));
      } catch {
        throw conversionError("google.protobuf.Timestamp");
      }
      return t;
    }),
    overload("int64_to_timestamp", [T.int], T.timestamp, ([a]) => checkTimestamp(int(a) * 1_000_000_000n)),
  );
  lib.add(
    "duration",
    overload("duration_to_duration", [T.duration], T.duration, ([a]) => a),
    overload("string_to_duration", [T.string], T.duration, ([a]) => {
      try {
        return parseDuration(str(a));
      } catch {
        throw conversionError("google.protobuf.Duration");
      }
    }),
  );
  lib.add("dyn", overload("to_dyn", [A], T.dyn, ([a]) => a));
  lib.add("type", overload("type", [A], T.type(A), ([a]) => new CelTypeValue(runtimeType(a))));

  // String predicates.
  const contains: Impl = ([s, sub]) => str(s).includes(str(sub));
  const startsWith: Impl = ([s, p]) => str(s).startsWith(str(p));
  const endsWith: Impl = ([s, p]) => str(s).endsWith(str(p));
  const matches: Impl = ([s, re]) => regexFor(str(re)).test(str(s));
  lib.add("contains", memberOverload("contains_string", [T.string, T.string], T.bool, contains));
  lib.add("startsWith", memberOverload("starts_with_string", [T.string, T.string], T.bool, startsWith));
  lib.add("endsWith", memberOverload("ends_with_string", [T.string, T.string], T.bool, endsWith));
  lib.add("matches", overload("matches", [T.string, T.string], T.bool, matches), memberOverload("matches_string", [T.string, T.string], T.bool, matches));

  timeAccessors(lib);

  // Map insertion used by the transformMap macros.
  lib.add(
    "cel.@mapInsert",
    overload("@mapInsert_map_key_value", [T.map(K, V), K, V], T.map(K, V), ([m, k, v]) => {
      if ((m as CelMap).has(k)) throw new CelError(`insert failed: key ${keyText(k)} already exists`);
      return toLiteralMap(m as CelMap).with(k, v);
    }),
    overload("@mapInsert_map_map", [T.map(K, V), T.map(K, V)], T.map(K, V), ([m, other]) => {
      let out = toLiteralMap(m as CelMap);
      for (const k of (other as CelMap).keys()) {
        if (out.has(k)) throw new CelError(`insert failed: key ${keyText(k)} already exists`);
        out = out.with(k, (other as CelMap).get(k)!);
      }
      return out;
    }),
  );
  return lib;
}

function toLiteralMap(m: CelMap): LiteralMap {
  if (m instanceof LiteralMap) return m;
  const out = new LiteralMap();
  for (const k of m.keys()) out.set(k, m.get(k)!);
  return out;
}
