/**
 * The strings extension (cel-go ext.Strings): charAt, indexOf, lastIndexOf, lowerAscii,
 * upperAscii, replace, split, substring, trim (version 0), format and strings.quote (1), join
 * (2), reverse (3). Kubernetes uses version 2. Indexes count code points, as Go's []rune.
 */
import { Library, memberOverload, overload } from "../decls.js";
import { formatDouble } from "../stdlib.js";
import { formatDuration, formatTimestamp } from "../time.js";
import { T } from "../types.js";
import { CelDuration, CelError, CelMap, CelTimestamp, CelTypeValue, CelUint, type Val } from "../values.js";

const str = (v: Val) => v as string;
const num = (v: Val) => Number(v as bigint);
const runes = (s: string) => [...s];

function charAt(s: string, i: number): string {
  const r = runes(s);
  if (i < 0 || i > r.length) throw new CelError(`index out of range: ${i}`);
  return i === r.length ? "" : r[i];
}

function indexOf(s: string, sub: string, off: number): bigint {
  if (sub === "") return BigInt(off);
  const r = runes(s);
  const sr = runes(sub);
  if (off < 0) throw new CelError(`index out of range: ${off}`);
  if (off >= r.length) return -1n;
  for (let i = off; i < r.length - (sr.length - 1); i++) {
    let ok = true;
    for (let j = 0; j < sr.length && ok; j++) ok = r[i + j] === sr[j];
    if (ok) return BigInt(i);
  }
  return -1n;
}

function lastIndexOf(s: string, sub: string, offset?: number): bigint {
  const r = runes(s);
  const sr = runes(sub);
  if (offset === undefined) {
    if (sub === "") return BigInt(r.length);
    if (s.length < sub.length) return -1n;
    offset = r.length - 1;
  }
  if (sub === "") return BigInt(offset);
  let off = offset;
  if (off < 0) throw new CelError(`index out of range: ${off}`);
  if (off >= r.length) return -1n;
  if (off > r.length - sr.length) off = r.length - sr.length;
  for (let i = off; i >= 0; i--) {
    let ok = true;
    for (let j = 0; j < sr.length && ok; j++) ok = r[i + j] === sr[j];
    if (ok) return BigInt(i);
  }
  return -1n;
}

const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
const asciiUpper = (s: string) => s.replace(/[a-z]/g, (c) => c.toUpperCase());

/** Go's strings.Replace with n (<0: all). */
function replaceN(s: string, old: string, repl: string, n: number): string {
  if (n === 0 || old === repl) return s;
  if (old === "") {
    const r = runes(s);
    let out = "";
    let count = 0;
    for (let i = 0; i <= r.length; i++) {
      if (n < 0 || count < n) {
        out += repl;
        count++;
      }
      if (i < r.length) out += r[i];
    }
    return out;
  }
  let out = "";
  let i = 0;
  let count = 0;
  for (;;) {
    const j = s.indexOf(old, i);
    if (j < 0 || (n >= 0 && count >= n)) break;
    out += s.slice(i, j) + repl;
    i = j + old.length;
    count++;
  }
  return out + s.slice(i);
}

/** Go's strings.SplitN (n<0: all). */
function splitN(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === "") {
    const r = runes(s);
    if (n < 0 || n >= r.length) return r;
    return [...r.slice(0, n - 1), r.slice(n - 1).join("")];
  }
  const out: string[] = [];
  let i = 0;
  while (n < 0 || out.length < n - 1) {
    const j = s.indexOf(sep, i);
    if (j < 0) break;
    out.push(s.slice(i, j));
    i = j + sep.length;
  }
  out.push(s.slice(i));
  return out;
}

function substring(s: string, start: number, end?: number): string {
  const r = runes(s);
  const l = r.length;
  if (end === undefined) {
    if (start < 0 || start > l) throw new CelError(`index out of range: ${start}`);
    return r.slice(start).join("");
  }
  if (start > end) throw new CelError(`invalid substring range. start: ${start}, end: ${end}`);
  if (start < 0 || start > l) throw new CelError(`index out of range: ${start}`);
  if (end < 0 || end > l) throw new CelError(`index out of range: ${end}`);
  return r.slice(start, end).join("");
}

/** Go's strings.TrimSpace (Unicode white space). */
const goSpace = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const trimRe = new RegExp(`^${goSpace}+|${goSpace}+$`, "g");
const trimSpace = (s: string) => s.replace(trimRe, "");

export function quote(s: string): string {
  let out = '"';
  for (const c of s) {
    switch (c) {
      case "\x07":
        out += "\\a";
        break;
      case "\b":
        out += "\\b";
        break;
      case "\f":
        out += "\\f";
        break;
      case "\n":
        out += "\\n";
        break;
      case "\r":
        out += "\\r";
        break;
      case "\t":
        out += "\\t";
        break;
      case "\v":
        out += "\\v";
        break;
      case "\\":
        out += "\\\\";
        break;
      case '"':
        out += '\\"';
        break;
      default:
        out += c.length === 1 && c >= "\ud800" && c <= "\udfff" ? "\ufffd" : c;
    }
  }
  return `${out}"`;
}

/** `%s` of a value: strings as they are, lists and maps in CEL literal form. */
function formatString(v: Val): string {
  if (typeof v === "string") return v;
  if (typeof v === "bigint") return v.toString();
  if (v instanceof CelUint) return v.v.toString();
  if (typeof v === "number") return Number.isFinite(v) ? formatDouble(v) : String(v);
  if (typeof v === "boolean") return String(v);
  if (v === null) return "null";
  if (v instanceof Uint8Array) return new TextDecoder().decode(v);
  if (Array.isArray(v)) return `[${v.map((x) => formatString(x)).join(", ")}]`;
  if (v instanceof CelMap) {
    const entries = v.keys().map((k) => [formatString(k), formatString(v.get(k)!)] as const);
    entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return `{${entries.map(([k, x]) => `${k}: ${x}`).join(", ")}}`;
  }
  if (v instanceof CelTimestamp) return formatTimestamp(v);
  if (v instanceof CelDuration) return formatDuration(v);
  if (v instanceof CelTypeValue) return v.name;
  throw new CelError(`no formatting function for ${typeof v}`);
}

function fixed(v: Val, precision: number, exp: boolean): string {
  let f: number;
  if (typeof v === "number") f = v;
  else if (typeof v === "bigint") f = Number(v);
  else if (v instanceof CelUint) f = Number(v.v);
  else if (typeof v === "string" && /^(NaN|[+-]?Infinity)$/.test(v)) f = Number(v);
  else throw new CelError(`could not convert argument to float64`);
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "Infinity" : "-Infinity";
  if (!exp) {
    // Go rounds exact halves to even; toFixed rounds them away from zero.
    const scaled = Math.abs(f) * 10 ** precision;
    if (Number.isFinite(scaled) && scaled < 2 ** 52 && scaled - Math.floor(scaled) === 0.5 && Math.floor(scaled) % 2 === 0) {
      return (Math.sign(f) * (Math.floor(scaled) / 10 ** precision)).toFixed(precision);
    }
    return f.toFixed(precision);
  }
  const [m, e] = f.toExponential(precision).split("e");
  const en = Number(e);
  return `${m}e${en < 0 ? "-" : "+"}${String(Math.abs(en)).padStart(2, "0")}`;
}

function integerOf(v: Val, clause: string): bigint {
  if (typeof v === "bigint") return v;
  if (v instanceof CelUint) return v.v;
  throw new CelError(`error during formatting: ${clause} clause can only be used on integers, was given ${typeof v === "number" ? "double" : typeof v}`);
}

/** The format() of ext.Strings version 1–3. */
export function formatStr(fmt: string, args: readonly Val[]): string {
  let out = "";
  let argi = 0;
  const next = (): Val => {
    if (argi >= args.length) throw new CelError(`index ${argi} out of range`);
    return args[argi++];
  };
  for (let i = 0; i < fmt.length; i++) {
    const c = fmt[i];
    if (c !== "%") {
      out += c;
      continue;
    }
    i++;
    if (fmt[i] === "%") {
      out += "%";
      continue;
    }
    let precision: number | undefined;
    if (fmt[i] === ".") {
      const m = /^\.(\d*)/.exec(fmt.slice(i))!;
      precision = m[1] === "" ? 0 : Number(m[1]);
      i += m[0].length;
    }
    const clause = fmt[i];
    const v = next();
    switch (clause) {
      case "s":
        out += formatString(v);
        break;
      case "d":
        if (typeof v === "number") {
          if (!Number.isFinite(v)) {
            out += String(v);
            break;
          }
          if (!Number.isInteger(v)) throw new CelError(`error during formatting: decimal clause can only be used on integers, was given double`);
          out += String(v);
        } else out += integerOf(v, "decimal").toString();
        break;
      case "f":
        out += fixed(v, precision ?? 6, false);
        break;
      case "e":
        out += fixed(v, precision ?? 6, true);
        break;
      case "b":
        if (typeof v === "boolean") out += v ? "1" : "0";
        else out += integerOf(v, "binary").toString(2);
        break;
      case "o":
        out += integerOf(v, "octal").toString(8);
        break;
      case "x":
      case "X": {
        let h: string;
        if (typeof v === "string") h = Buffer.from(v, "utf8").toString("hex");
        else if (v instanceof Uint8Array) h = Buffer.from(v).toString("hex");
        else {
          const n = integerOf(v, "hex");
          h = n < 0n ? `-${(-n).toString(16)}` : n.toString(16);
        }
        out += clause === "X" ? h.toUpperCase() : h;
        break;
      }
      default:
        throw new CelError(`could not parse formatting clause: unrecognized formatting clause "${clause ?? ""}"`);
    }
  }
  return out;
}

export function stringsLibrary(version = 2): Library {
  const lib = new Library();
  lib.add("charAt", memberOverload("string_char_at_int", [T.string, T.int], T.string, ([s, i]) => charAt(str(s), num(i))));
  lib.add(
    "indexOf",
    memberOverload("string_index_of_string", [T.string, T.string], T.int, ([s, sub]) => indexOf(str(s), str(sub), 0)),
    memberOverload("string_index_of_string_int", [T.string, T.string, T.int], T.int, ([s, sub, o]) => indexOf(str(s), str(sub), num(o))),
  );
  lib.add(
    "lastIndexOf",
    memberOverload("string_last_index_of_string", [T.string, T.string], T.int, ([s, sub]) => lastIndexOf(str(s), str(sub))),
    memberOverload("string_last_index_of_string_int", [T.string, T.string, T.int], T.int, ([s, sub, o]) => lastIndexOf(str(s), str(sub), num(o))),
  );
  lib.add("lowerAscii", memberOverload("string_lower_ascii", [T.string], T.string, ([s]) => asciiLower(str(s))));
  lib.add("upperAscii", memberOverload("string_upper_ascii", [T.string], T.string, ([s]) => asciiUpper(str(s))));
  lib.add(
    "replace",
    memberOverload("string_replace_string_string", [T.string, T.string, T.string], T.string, ([s, o, r]) => replaceN(str(s), str(o), str(r), -1)),
    memberOverload("string_replace_string_string_int", [T.string, T.string, T.string, T.int], T.string, ([s, o, r, n]) => replaceN(str(s), str(o), str(r), num(n))),
  );
  lib.add(
    "split",
    memberOverload("string_split_string", [T.string, T.string], T.list(T.string), ([s, sep]) => splitN(str(s), str(sep), -1)),
    memberOverload("string_split_string_int", [T.string, T.string, T.int], T.list(T.string), ([s, sep, n]) => splitN(str(s), str(sep), num(n))),
  );
  lib.add(
    "substring",
    memberOverload("string_substring_int", [T.string, T.int], T.string, ([s, a]) => substring(str(s), num(a))),
    memberOverload("string_substring_int_int", [T.string, T.int, T.int], T.string, ([s, a, b]) => substring(str(s), num(a), num(b))),
  );
  lib.add("trim", memberOverload("string_trim", [T.string], T.string, ([s]) => trimSpace(str(s))));
  if (version >= 1) {
    lib.add("format", memberOverload("string_format", [T.string, T.list(T.dyn)], T.string, ([s, l]) => formatStr(str(s), l as Val[])));
    lib.add("strings.quote", overload("strings_quote", [T.string], T.string, ([s]) => quote(str(s))));
  }
  const join = (l: Val, sep: string) => {
    const items = l as Val[];
    for (const x of items) if (typeof x !== "string") throw new CelError(`join: invalid input: ${String(x)}`);
    return (items as string[]).join(sep);
  };
  lib.add(
    "join",
    memberOverload("list_join", [T.list(T.string)], T.string, ([l]) => join(l, "")),
    memberOverload("list_join_string", [T.list(T.string), T.string], T.string, ([l, d]) => join(l, str(d))),
  );
  if (version >= 3) lib.add("reverse", memberOverload("string_reverse", [T.string], T.string, ([s]) => runes(str(s)).reverse().join("")));
  return lib;
}
