/**
 * The JSONPath subset printer columns use (client-go util/jsonpath on `{<jsonPath>}`): field
 * access (`.spec.replicas`, `['a.b']`, `["x"]`), array indices and slices (`[0]`, `[-1]`,
 * `[1:3]`), wildcards (`[*]`, `.*`), recursive descent (`..name`) and filters
 * (`[?(@.type=="Ready")]`, with ==, !=, <, <=, >, >= against string, number, boolean or
 * path operands, and bare `[?(@.x)]` for existence). Missing keys yield no result, as with
 * AllowMissingKeys(true).
 */
import { isObject } from "./schema.js";

type Step =
  | { kind: "field"; name: string }
  | { kind: "wildcard" }
  | { kind: "recursive" }
  | { kind: "index"; index: number }
  | { kind: "slice"; start?: number; end?: number; step?: number }
  | { kind: "filter"; left: Operand; op?: string; right?: Operand };

type Operand = { kind: "path"; steps: Step[] } | { kind: "literal"; value: unknown };

export class JSONPathError extends Error {}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  private peek(n = 0): string {
    return this.s[this.i + n] ?? "";
  }

  private eof(): boolean {
    return this.i >= this.s.length;
  }

  private skipSpaces(): void {
    while (this.peek() === " ") this.i++;
  }

  private ident(): string {
    const start = this.i;
    while (!this.eof() && /[^.[\]()=!<>\s]/.test(this.peek())) this.i++;
    return this.s.slice(start, this.i);
  }

  private quoted(): string {
    const q = this.peek();
    this.i++;
    let out = "";
    while (!this.eof() && this.peek() !== q) {
      if (this.peek() === "\\") this.i++;
      out += this.peek();
      this.i++;
    }
    if (this.peek() !== q) throw new JSONPathError(`unterminated string in ${this.s}`);
    this.i++;
    return out;
  }

  private number(): number | undefined {
    const m = /^-?\d+(\.\d+)?/.exec(this.s.slice(this.i));
    if (!m) return undefined;
    this.i += m[0].length;
    return Number(m[0]);
  }

  steps(stopAt: string): Step[] {
    const out: Step[] = [];
    while (!this.eof() && !stopAt.includes(this.peek())) {
      const c = this.peek();
      if (c === "." && this.peek(1) === ".") {
        this.i += 2;
        out.push({ kind: "recursive" });
        if (this.peek() === "*") {
          this.i++;
          out.push({ kind: "wildcard" });
        } else if (this.peek() !== "[") out.push({ kind: "field", name: this.ident() });
      } else if (c === ".") {
        this.i++;
        if (this.peek() === "*") {
          this.i++;
          out.push({ kind: "wildcard" });
        } else {
          const name = this.ident();
          if (name !== "") out.push({ kind: "field", name });
        }
      } else if (c === "[") {
        this.i++;
        this.skipSpaces();
        out.push(this.bracket());
        this.skipSpaces();
        if (this.peek() !== "]") throw new JSONPathError(`unclosed [ in ${this.s}`);
        this.i++;
      } else if (c === "@" || c === "$") {
        this.i++;
      } else {
        const name = this.ident();
        if (name === "") throw new JSONPathError(`unexpected ${JSON.stringify(c)} in ${this.s}`);
        out.push({ kind: "field", name });
      }
    }
    return out;
  }

  private bracket(): Step {
    const c = this.peek();
    if (c === "'" || c === '"') return { kind: "field", name: this.quoted() };
    if (c === "*") {
      this.i++;
      return { kind: "wildcard" };
    }
    if (c === "?") {
      this.i++;
      if (this.peek() !== "(") throw new JSONPathError(`expected ( after ? in ${this.s}`);
      this.i++;
      this.skipSpaces();
      const left = this.operand();
      this.skipSpaces();
      let op: string | undefined;
      let right: Operand | undefined;
      const m = /^(==|!=|<=|>=|<|>)/.exec(this.s.slice(this.i));
      if (m) {
        op = m[1];
        this.i += m[1].length;
        this.skipSpaces();
        right = this.operand();
        this.skipSpaces();
      }
      if (this.peek() !== ")") throw new JSONPathError(`unclosed filter in ${this.s}`);
      this.i++;
      return { kind: "filter", left, op, right };
    }
    const parts: (number | undefined)[] = [];
    let colons = 0;
    for (;;) {
      this.skipSpaces();
      parts[colons] = this.number();
      this.skipSpaces();
      if (this.peek() === ":") {
        colons++;
        this.i++;
        continue;
      }
      break;
    }
    if (colons === 0) {
      if (parts[0] === undefined) throw new JSONPathError(`invalid array index in ${this.s}`);
      return { kind: "index", index: parts[0] };
    }
    return { kind: "slice", start: parts[0], end: parts[1], step: parts[2] };
  }

  private operand(): Operand {
    const c = this.peek();
    if (c === "@" || c === "$") return { kind: "path", steps: this.steps(")=!<> ") };
    if (c === "'" || c === '"') return { kind: "literal", value: this.quoted() };
    const n = this.number();
    if (n !== undefined) return { kind: "literal", value: n };
    const word = this.ident();
    if (word === "true" || word === "false") return { kind: "literal", value: word === "true" };
    if (word === "nil" || word === "null") return { kind: "literal", value: null };
    throw new JSONPathError(`unrecognized filter operand ${JSON.stringify(word)} in ${this.s}`);
  }
}

/** Parses a printer-column path (with or without surrounding braces). */
export function parseJSONPath(path: string): Step[] {
  let s = path.trim();
  if (s.startsWith("{") && s.endsWith("}")) s = s.slice(1, -1).trim();
  return new Parser(s).steps("");
}

function children(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (isObject(v)) return Object.keys(v).sort().map((k) => v[k]);
  return [];
}

function descendants(v: unknown, out: unknown[]): void {
  out.push(v);
  for (const c of children(v)) descendants(c, out);
}

function compare(a: unknown, op: string, b: unknown): boolean {
  switch (op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
  }
  if (typeof a === "number" && typeof b === "number") {
    if (op === "<") return a < b;
    if (op === "<=") return a <= b;
    if (op === ">") return a > b;
    if (op === ">=") return a >= b;
  }
  if (typeof a === "string" && typeof b === "string") {
    if (op === "<") return a < b;
    if (op === "<=") return a <= b;
    if (op === ">") return a > b;
    if (op === ">=") return a >= b;
  }
  return false;
}

function operandValues(o: Operand, item: unknown): unknown[] {
  return o.kind === "literal" ? [o.value] : evaluate(o.steps, [item]);
}

function evaluate(steps: Step[], start: unknown[]): unknown[] {
  let cur = start;
  for (const step of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      switch (step.kind) {
        case "field":
          if (isObject(v) && Object.prototype.hasOwnProperty.call(v, step.name)) next.push(v[step.name]);
          break;
        case "wildcard":
          next.push(...children(v));
          break;
        case "recursive":
          descendants(v, next);
          break;
        case "index":
          if (Array.isArray(v)) {
            const i = step.index < 0 ? v.length + step.index : step.index;
            if (i >= 0 && i < v.length) next.push(v[i]);
          }
          break;
        case "slice":
          if (Array.isArray(v)) {
            const len = v.length;
            const norm = (x: number | undefined, dflt: number) => (x === undefined ? dflt : x < 0 ? Math.max(0, len + x) : Math.min(x, len));
            const st = step.step ?? 1;
            if (st > 0) for (let i = norm(step.start, 0); i < norm(step.end, len); i += st) next.push(v[i]);
          }
          break;
        case "filter":
          for (const item of children(v)) {
            const lefts = operandValues(step.left, item);
            if (!step.op) {
              if (lefts.length > 0) next.push(item);
              continue;
            }
            const rights = operandValues(step.right!, item);
            if (lefts.some((l) => rights.some((r) => compare(l, step.op!, r)))) next.push(item);
          }
          break;
      }
    }
    cur = next;
  }
  return cur;
}

/** Every value `path` selects in `obj` (in document order). */
export function findResults(obj: unknown, path: string | Step[]): unknown[] {
  const steps = typeof path === "string" ? parseJSONPath(path) : path;
  return evaluate(steps, [obj]);
}
