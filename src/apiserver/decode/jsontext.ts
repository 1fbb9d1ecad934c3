/**
 * JSON text as Go's decoder sees it, for what JSON.parse hides:
 *
 * - scanJson: one cheap pass over the text counting object keys (to detect duplicate keys by
 *   comparing with the parsed tree) and spotting number literals JSON.parse would not keep
 *   exactly (a fraction or exponent, which Go refuses for integer fields; more than 15 digits).
 * - parseJsonExact: a parser that keeps such literals as JsonNumber and, on request, keeps
 *   objects as ordered entry lists with their duplicate keys (JsonEntries).
 * - goSyntaxError: encoding/json's scanner message for malformed text
 *   ("invalid character 'x' looking for beginning of value", "unexpected end of JSON input").
 */

/** A number literal kept as written. */
export class JsonNumber {
  constructor(readonly text: string) {}
  toJSON(): number {
    return Number(this.text);
  }
}

/** An object as written: its entries in order, duplicates included. */
export class JsonEntries {
  constructor(readonly entries: Array<[string, unknown]>) {}
}

export interface JsonScan {
  /** Number of object keys in the text. */
  keys: number;
  /** Some number literal has a fraction or exponent, or more than 15 digits. */
  inexactNumbers: boolean;
}

/** Counts keys and spots inexact number literals; the text must be valid JSON. */
export function scanJson(text: string): JsonScan {
  let keys = 0;
  let inexact = false;
  const n = text.length;
  let digits = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++digits > 15) inexact = true;
      continue;
    }
    digits = 0;
    if (c === 34) {
      // Jump to the closing quote (one preceded by an even number of backslashes).
      let j = text.indexOf('"', i + 1);
      for (;;) {
        if (j === -1) return { keys, inexactNumbers: inexact };
        let b = 0;
        for (let k = j - 1; text.charCodeAt(k) === 92; k--) b++;
        if ((b & 1) === 0) break;
        j = text.indexOf('"', j + 1);
      }
      i = j;
    } else if (c === 58) keys++;
    else if (c === 46 || c === 69) inexact = true;
    else if (c === 101) {
      // 'e' outside strings: an exponent, or the end of true / false.
      const p = text.charCodeAt(i - 1);
      if (p !== 117 && p !== 115) inexact = true;
    } else if (c === 116) i += 3;
    else if (c === 102) i += 4;
    else if (c === 110) i += 3;
  }
  return { keys, inexactNumbers: inexact };
}

/** Keys of every object in a parsed tree (JsonNumber leaves are not objects). */
export function countKeys(v: unknown): number {
  if (typeof v !== "object" || v === null || v instanceof JsonNumber) return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) n += countKeys(x);
    return n;
  }
  for (const k in v) {
    n++;
    n += countKeys((v as Record<string, unknown>)[k]);
  }
  return n;
}

export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonSyntaxError";
  }
}

/** Go's quoteChar: the offending character in scanner messages. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const code = c.codePointAt(0)!;
  let s: string;
  if (c === "\\") s = "\\\\";
  else if (code === 7) s = "\\a";
  else if (code === 8) s = "\\b";
  else if (code === 12) s = "\\f";
  else if (code === 10) s = "\\n";
  else if (code === 13) s = "\\r";
  else if (code === 9) s = "\\t";
  else if (code === 11) s = "\\v";
  else if (code < 0x20 || code === 0x7f) s = `\\x${code.toString(16).padStart(2, "0")}`;
  else s = c;
  return `'${s}'`;
}

class Parser {
  i = 0;
  constructor(
    readonly s: string,
    readonly entries: boolean,
  ) {}

  fail(context: string): never {
    if (this.i >= this.s.length) throw new JsonSyntaxError("unexpected end of JSON input");
    const c = String.fromCodePoint(this.s.codePointAt(this.i)!);
    throw new JsonSyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  }

  ws(): void {
    const s = this.s;
    while (this.i < s.length) {
      const c = s.charCodeAt(this.i);
      if (c === 32 || c === 9 || c === 10 || c === 13) this.i++;
      else break;
    }
  }

  value(): unknown {
    this.ws();
    const s = this.s;
    const c = s[this.i];
    switch (c) {
      case "{":
        return this.object();
      case "[":
        return this.array();
      case '"':
        return this.string();
      case "t":
        return this.literal("true", true);
      case "f":
        return this.literal("false", false);
      case "n":
        return this.literal("null", null);
      default:
        if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
        return this.fail("looking for beginning of value");
    }
  }

  literal(word: string, v: unknown): unknown {
    for (let k = 0; k < word.length; k++) {
      if (this.s[this.i] !== word[k]) {
        if (k === 0) this.fail("looking for beginning of value");
        this.fail(`in literal ${word} (expecting ${quoteChar(word[k])})`);
      }
      this.i++;
    }
    return v;
  }

  number(): unknown {
    const s = this.s;
    const start = this.i;
    if (s[this.i] === "-") this.i++;
    if (s[this.i] === "0") this.i++;
    else if (s[this.i] >= "1" && s[this.i] <= "9") while (s[this.i] >= "0" && s[this.i] <= "9") this.i++;
    else this.fail("in numeric literal");
    let exact = this.i - start <= 15;
    if (s[this.i] === ".") {
      exact = false;
      this.i++;
      if (!(s[this.i] >= "0" && s[this.i] <= "9")) this.fail("after decimal point in numeric literal");
      while (s[this.i] >= "0" && s[this.i] <= "9") this.i++;
    }
    if (s[this.i] === "e" || s[this.i] === "E") {
      exact = false;
      this.i++;
      if (s[this.i] === "+" || s[this.i] === "-") this.i++;
      if (!(s[this.i] >= "0" && s[this.i] <= "9")) this.fail("in exponent of numeric literal");
      while (s[this.i] >= "0" && s[this.i] <= "9") this.i++;
    }
    const text = s.slice(start, this.i);
    return exact ? Number(text) : new JsonNumber(text);
  }

  string(): string {
    const s = this.s;
    this.i++; // opening quote
    let out = "";
    let run = this.i;
    for (;;) {
      if (this.i >= s.length) this.fail("in string literal");
      const c = s.charCodeAt(this.i);
      if (c === 34) {
        out += s.slice(run, this.i);
        this.i++;
        return out;
      }
      if (c < 0x20) this.fail("in string literal");
      if (c === 92) {
        out += s.slice(run, this.i);
        this.i++;
        const e = s[this.i];
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        if (e !== undefined && Object.hasOwn(simple, e)) {
          out += simple[e];
          this.i++;
        } else if (e === "u") {
          this.i++;
          for (let k = 0; k < 4; k++) {
            if (!/[0-9a-fA-F]/.test(s[this.i + k] ?? "")) {
              this.i += k;
              this.fail("in \\u hexadecimal character escape");
            }
          }
          out += String.fromCharCode(parseInt(s.slice(this.i, this.i + 4), 16));
          this.i += 4;
        } else this.fail("in string escape code");
        run = this.i;
        continue;
      }
      this.i++;
    }
  }

  array(): unknown[] {
    this.i++;
    const out: unknown[] = [];
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.ws();
      const c = this.s[this.i];
      if (c === ",") {
        this.i++;
        continue;
      }
      if (c === "]") {
        this.i++;
        return out;
      }
      this.fail("after array element");
    }
  }

  object(): unknown {
    this.i++;
    const list: Array<[string, unknown]> = [];
    const obj: Record<string, unknown> = {};
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return this.entries ? new JsonEntries(list) : obj;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail("looking for beginning of object key string");
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ":") this.fail("after object key");
      this.i++;
      const v = this.value();
      if (this.entries) list.push([key, v]);
      else obj[key] = v;
      this.ws();
      const c = this.s[this.i];
      if (c === ",") {
        this.i++;
        continue;
      }
      if (c === "}") {
        this.i++;
        return this.entries ? new JsonEntries(list) : obj;
      }
      this.fail("after object key:value pair");
    }
  }
}

/**
 * Parses JSON keeping inexact number literals as JsonNumber; with `entries`, objects become
 * JsonEntries (order and duplicates kept). Throws JsonSyntaxError with Go's scanner message.
 */
export function parseJsonExact(text: string, entries = false): unknown {
  const p = new Parser(text, entries);
  const v = p.value();
  p.ws();
  if (p.i < text.length) p.fail("after top-level value");
  return v;
}

/** Go's syntax error message for text JSON.parse rejected. */
export function goSyntaxError(text: string): string {
  try {
    parseJsonExact(text);
  } catch (err) {
    if (err instanceof JsonSyntaxError) return err.message;
    throw err;
  }
  return "invalid JSON";
}

/** Replaces JsonNumber leaves by numbers (for untyped values: interface{}, RawExtension, JSON). */
export function plainJson(v: unknown): unknown {
  if (v instanceof JsonNumber) return Number(v.text);
  if (typeof v !== "object" || v === null) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      if (typeof x === "object" && x !== null) v[i] = plainJson(x);
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === "object" && x !== null) o[k] = plainJson(x);
  }
  return v;
}
