/**
 * The CEL parser: a hand-written recursive-descent parser for the grammar of cel-spec
 * (doc/langdef.md, and cel-go's CEL.g4) with cel-go's macro expansion and its limits
 * (recursion depth, expression size). Syntax errors read "Syntax error: ..." at the offending
 * token, as cel-go's; the expected-token lists of ANTLR are reproduced for the common case
 * of a missing operand.
 */
import { ACCUMULATOR, type Expr, type MapEntry, type StructField } from "./ast.js";
import { CompileError, Source, type Issue } from "./source.js";
import { CelUint, INT64_MAX, INT64_MIN, UINT64_MAX, type Val } from "./values.js";

type TokKind = "ident" | "escident" | "int" | "uint" | "float" | "string" | "bytes" | "op" | "eof" | "kw";

interface Token {
  kind: TokKind;
  text: string;
  offset: number;
  value?: Val;
  error?: string;
}

const reservedIdents = new Set([
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);
const keywords = new Set(["true", "false", "null", "in"]);

const ops = ["||", "&&", "==", "!=", "<=", ">=", "<", ">", "!", "+", "-", "*", "/", "%", "?", ":", ".", ",", "(", ")", "[", "]", "{", "}"];

const EXPR_START = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";

export interface ParseOptions {
  /** Maximum nesting of expressions (cel-go's default recursion limit is 250). */
  maxDepth?: number;
  /** Whether the two-variable comprehension macros (ext.TwoVarComprehensions) are enabled. */
  twoVarComprehensions?: boolean;
  /** Whether the optional syntax (`.?`, `[?`, `?` entries) and macros are enabled. */
  optionalSyntax?: boolean;
}

class SyntaxErr extends Error {
  constructor(
    readonly offset: number,
    msg: string,
  ) {
    super(msg);
  }
}

function unescape(body: string, raw: boolean, isBytes: boolean, offset: number): string | Uint8Array {
  if (raw) return isBytes ? new TextEncoder().encode(body) : body;
  const bytes: number[] = [];
  let str = "";
  const pushCode = (cp: number) => {
    if (isBytes) for (const b of new TextEncoder().encode(String.fromCodePoint(cp))) bytes.push(b);
    else str += String.fromCodePoint(cp);
  };
  const chars = [...body];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c !== "\\") {
      pushCode(c.codePointAt(0)!);
      continue;
    }
    const n = chars[++i];
    const simple: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, "?": 63, '"': 34, "'": 39, "`": 96 };
    if (n !== undefined && n in simple) {
      pushCode(simple[n]);
      continue;
    }
    const hex = (len: number): number => {
      const h = chars.slice(i + 1, i + 1 + len).join("");
      if (h.length !== len || !/^[0-9a-fA-F]+$/.test(h)) throw new SyntaxErr(offset, "Syntax error: invalid escape sequence");
      i += len;
      return parseInt(h, 16);
    };
    if (n === "x" || n === "X") {
      const v = hex(2);
      if (isBytes) bytes.push(v);
      else pushCode(v);
      continue;
    }
    if (n === "u" || n === "U") {
      if (isBytes) throw new SyntaxErr(offset, "Syntax error: invalid escape sequence");
      const v = hex(n === "u" ? 4 : 8);
      if ((v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff) throw new SyntaxErr(offset, "Syntax error: invalid unicode code point");
      pushCode(v);
      continue;
    }
    if (n !== undefined && /[0-3]/.test(n)) {
      const o = chars.slice(i, i + 3).join("");
      if (!/^[0-3][0-7][0-7]$/.test(o)) throw new SyntaxErr(offset, "Syntax error: invalid escape sequence");
      i += 2;
      const v = parseInt(o, 8);
      if (isBytes) bytes.push(v);
      else pushCode(v);
      continue;
    }
    throw new SyntaxErr(offset, "Syntax error: invalid escape sequence");
  }
  return isBytes ? new Uint8Array(bytes) : str;
}

const isDigit = (c: string) => c >= "0" && c <= "9";
const isIdentStart = (c: string) => (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_";
const isIdentPart = (c: string) => isIdentStart(c) || isDigit(c);

function lex(text: string): Token[] {
  const toks: Token[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\f") {
      i++;
      continue;
    }
    if (c === "/" && text[i + 1] === "/") {
      while (i < n && text[i] !== "\n") i++;
      continue;
    }
    const start = i;
    // strings and bytes, with r/b prefixes
    const quoteStart = c === '"' || c === "'" || c === "r" || c === "R" || c === "b" || c === "B";
    const pm = quoteStart ? /^([rRbB]{0,2})("""|'''|"|')/.exec(text.slice(i, i + 5)) : null;
    if (pm && (pm[1] === "" || /^(?:[rR]|[bB]|[rR][bB]|[bB][rR])$/.test(pm[1]))) {
      const prefix = pm[1].toLowerCase();
      const quote = pm[2];
      const raw = prefix.includes("r");
      const isBytes = prefix.includes("b");
      let j = i + pm[0].length;
      let body = "";
      let closed = false;
      while (j < n) {
        if (text.startsWith(quote, j)) {
          closed = true;
          j += quote.length;
          break;
        }
        const ch = text[j];
        if (quote.length === 1 && (ch === "\n" || ch === "\r")) break;
        if (ch === "\\" && !raw) {
          body += ch + (text[j + 1] ?? "");
          j += 2;
          continue;
        }
        if (ch === "\\" && raw && text[j + 1] === quote[0] && quote.length === 1) {
          body += ch + text[j + 1];
          j += 2;
          continue;
        }
        body += ch;
        j++;
      }
      if (!closed) {
        toks.push({ kind: "op", text: text.slice(start, j), offset: start, error: `Syntax error: token recognition error at: '${text.slice(start, j)}'` });
        i = j;
        continue;
      }
      let value: Val;
      try {
        value = unescape(body, raw, isBytes, start);
      } catch (e) {
        toks.push({ kind: "op", text: text.slice(start, j), offset: start, error: (e as Error).message });
        i = j;
        continue;
      }
      toks.push({ kind: isBytes ? "bytes" : "string", text: text.slice(start, j), offset: start, value });
      i = j;
      continue;
    }
    if (c === "`") {
      const end = text.indexOf("`", i + 1);
      const body = end < 0 ? "" : text.slice(i + 1, end);
      if (end < 0 || body === "" || !/^[A-Za-z0-9_./ -]+$/.test(body)) {
        toks.push({ kind: "op", text: c, offset: start, error: `Syntax error: token recognition error at: '${text.slice(i, end < 0 ? n : end + 1)}'` });
        i = end < 0 ? n : end + 1;
        continue;
      }
      toks.push({ kind: "escident", text: body, offset: start });
      i = end + 1;
      continue;
    }
    if (isIdentStart(c)) {
      let j = i + 1;
      while (j < n && isIdentPart(text[j])) j++;
      const word = text.slice(i, j);
      toks.push({ kind: keywords.has(word) ? "kw" : "ident", text: word, offset: start });
      i = j;
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(text[i + 1] ?? ""))) {
      const rest = text.slice(i, i + 64);
      const hexm = /^0[xX][0-9a-fA-F]+([uU])?/.exec(rest);
      if (hexm) {
        const digits = hexm[0].replace(/[uU]$/, "");
        toks.push({ kind: hexm[1] ? "uint" : "int", text: hexm[0], offset: start, value: BigInt(digits) });
        i += hexm[0].length;
        continue;
      }
      const fm = /^(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?)/.exec(rest);
      if (fm) {
        toks.push({ kind: "float", text: fm[0], offset: start, value: Number(fm[0]) });
        i += fm[0].length;
        continue;
      }
      const im = /^[0-9]+([uU])?/.exec(rest)!;
      const digits = im[0].replace(/[uU]$/, "");
      toks.push({ kind: im[1] ? "uint" : "int", text: im[0], offset: start, value: BigInt(digits) });
      i += im[0].length;
      continue;
    }
    const op = ops.find((o) => text.startsWith(o, i));
    if (op) {
      toks.push({ kind: "op", text: op, offset: start });
      i += op.length;
      continue;
    }
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    toks.push({ kind: "op", text: ch, offset: start, error: `Syntax error: token recognition error at: '${ch}'` });
    i += ch.length;
  }
  toks.push({ kind: "eof", text: "<EOF>", offset: n });
  return toks;
}

/** Parses one expression; throws CompileError with cel-go-style issues. */
export function parse(text: string, opts: ParseOptions = {}): { expr: Expr; source: Source; maxId: number } {
  const source = new Source(text);
  const p = new Parser(text, opts);
  try {
    const expr = p.parseAll();
    if (p.issues.length) throw new CompileError(source, p.issues);
    return { expr, source, maxId: p.nextId };
  } catch (e) {
    if (e instanceof SyntaxErr) throw new CompileError(source, [...p.issues, { offset: e.offset, message: e.message }]);
    throw e;
  }
}

class Parser {
  private readonly toks: Token[];
  private pos = 0;
  nextId = 1;
  private depth = 0;
  readonly issues: Issue[] = [];
  private readonly maxDepth: number;

  constructor(
    text: string,
    private readonly opts: ParseOptions,
  ) {
    this.toks = lex(text);
    this.maxDepth = opts.maxDepth ?? 250;
    const bad = this.toks.find((t) => t.error);
    if (bad) throw new SyntaxErr(bad.offset, bad.error!);
  }

  private id(): number {
    return this.nextId++;
  }

  private peek(k = 0): Token {
    return this.toks[Math.min(this.pos + k, this.toks.length - 1)];
  }

  private next(): Token {
    const t = this.toks[this.pos];
    if (this.pos < this.toks.length - 1) this.pos++;
    return t;
  }

  private isOp(text: string, k = 0): boolean {
    const t = this.peek(k);
    return t.kind === "op" && t.text === text;
  }

  private mismatch(expecting: string): SyntaxErr {
    const t = this.peek();
    const shown = t.kind === "eof" ? "<EOF>" : t.text;
    return new SyntaxErr(t.offset, `Syntax error: mismatched input '${shown}' expecting ${expecting}`);
  }

  private expect(text: string): Token {
    if (!this.isOp(text)) {
      const t = this.peek();
      if (t.kind === "eof") throw this.mismatch(`'${text}'`);
      throw new SyntaxErr(t.offset, `Syntax error: mismatched input '${t.text}' expecting '${text}'`);
    }
    return this.next();
  }

  parseAll(): Expr {
    if (this.peek().kind === "eof") throw this.mismatch(EXPR_START);
    const e = this.expr();
    const t = this.peek();
    if (t.kind !== "eof") throw new SyntaxErr(t.offset, `Syntax error: extraneous input '${t.text}' expecting <EOF>`);
    return e;
  }

  private enter(offset: number): void {
    if (++this.depth > this.maxDepth) throw new SyntaxErr(offset, `expression recursion limit exceeded: ${this.maxDepth}`);
  }

  private leave(): void {
    this.depth--;
  }

  private call(offset: number, fn: string, args: Expr[], target?: Expr): Expr {
    return target ? { id: this.id(), offset, kind: "call", fn, target, args } : { id: this.id(), offset, kind: "call", fn, args };
  }

  private expr(): Expr {
    this.enter(this.peek().offset);
    try {
      const cond = this.conditionalOr();
      if (!this.isOp("?")) return cond;
      const q = this.next();
      const a = this.conditionalOr();
      this.expect(":");
      const b = this.expr();
      return this.call(q.offset, "_?_:_", [cond, a, b]);
    } finally {
      this.leave();
    }
  }

  private conditionalOr(): Expr {
    let e = this.conditionalAnd();
    while (this.isOp("||")) {
      const op = this.next();
      const r = this.conditionalAnd();
      e = this.call(op.offset, "_||_", [e, r]);
    }
    return e;
  }

  private conditionalAnd(): Expr {
    let e = this.relation();
    while (this.isOp("&&")) {
      const op = this.next();
      const r = this.relation();
      e = this.call(op.offset, "_&&_", [e, r]);
    }
    return e;
  }

  private relation(): Expr {
    let e = this.addition();
    for (;;) {
      const t = this.peek();
      let fn: string | undefined;
      if (t.kind === "op") fn = { "<": "_<_", "<=": "_<=_", ">": "_>_", ">=": "_>=_", "==": "_==_", "!=": "_!=_" }[t.text];
      else if (t.kind === "kw" && t.text === "in") fn = "@in";
      if (!fn) return e;
      this.next();
      const r = this.addition();
      e = this.call(t.offset, fn, [e, r]);
    }
  }

  private addition(): Expr {
    let e = this.multiplication();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.next();
      const r = this.multiplication();
      e = this.call(op.offset, op.text === "+" ? "_+_" : "_-_", [e, r]);
    }
    return e;
  }

  private multiplication(): Expr {
    let e = this.unary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("%")) {
      const op = this.next();
      const r = this.unary();
      e = this.call(op.offset, { "*": "_*_", "/": "_/_", "%": "_%_" }[op.text]!, [e, r]);
    }
    return e;
  }

  private unary(): Expr {
    if (this.isOp("!")) {
      const first = this.peek();
      let count = 0;
      while (this.isOp("!")) {
        this.next();
        count++;
      }
      const m = this.member();
      return count % 2 === 0 ? m : this.call(first.offset, "!_", [m]);
    }
    if (this.isOp("-")) {
      // A negative numeric literal is one literal (so the smallest int64 can be written).
      const nt = this.peek(1);
      if ((nt.kind === "int" || nt.kind === "float") && !(this.isOp(".", 2) || this.isOp("[", 2) || this.isOp("(", 2))) {
        const minus = this.next();
        this.next();
        return this.numberLiteral(nt, minus.offset, true);
      }
      const first = this.peek();
      let count = 0;
      while (this.isOp("-")) {
        this.next();
        count++;
      }
      const m = this.member();
      return count % 2 === 0 ? m : this.call(first.offset, "-_", [m]);
    }
    return this.member();
  }

  private numberLiteral(t: Token, offset: number, negative: boolean): Expr {
    if (t.kind === "float") {
      const v = t.value as number;
      return { id: this.id(), offset, kind: "const", value: negative ? -v : v };
    }
    let v = t.value as bigint;
    if (t.kind === "uint") {
      if (v > UINT64_MAX) {
        this.issues.push({ offset, message: "invalid uint literal" });
        v = 0n;
      }
      return { id: this.id(), offset, kind: "const", value: new CelUint(v) };
    }
    if (negative) v = -v;
    if (v < INT64_MIN || v > INT64_MAX) {
      this.issues.push({ offset, message: "invalid int literal" });
      v = 0n;
    }
    return { id: this.id(), offset, kind: "const", value: v };
  }

  private identName(allowEscaped = false): Token {
    const t = this.peek();
    if (t.kind === "ident" || (allowEscaped && t.kind === "escident")) return this.next();
    if (t.kind === "kw") throw new SyntaxErr(t.offset, `Syntax error: mismatched input '${t.text}' expecting IDENTIFIER`);
    throw this.mismatch("IDENTIFIER");
  }

  private member(): Expr {
    let e = this.primary();
    for (;;) {
      if (this.isOp(".")) {
        const dot = this.next();
        let optional = false;
        if (this.isOp("?")) {
          if (!this.opts.optionalSyntax) throw new SyntaxErr(this.peek().offset, "unsupported syntax '.?'");
          this.next();
          optional = true;
        }
        const name = this.identName(true);
        if (!optional && this.isOp("(") && name.kind === "ident") {
          const open = this.next();
          const args = this.exprList(")");
          e = this.memberCall(open.offset, name.text, e, args);
          continue;
        }
        if (optional) {
          e = this.call(dot.offset, "_?._", [e, { id: this.id(), offset: name.offset, kind: "const", value: name.text }]);
        } else e = { id: this.id(), offset: dot.offset, kind: "select", operand: e, field: name.text, testOnly: false };
        continue;
      }
      if (this.isOp("[")) {
        const open = this.next();
        let optional = false;
        if (this.isOp("?")) {
          if (!this.opts.optionalSyntax) throw new SyntaxErr(this.peek().offset, "unsupported syntax '[?'");
          this.next();
          optional = true;
        }
        const idx = this.expr();
        this.expect("]");
        e = this.call(open.offset, optional ? "_[?_]" : "_[_]", [e, idx]);
        continue;
      }
      return e;
    }
  }

  private exprList(close: string): Expr[] {
    const args: Expr[] = [];
    if (this.isOp(close)) {
      this.next();
      return args;
    }
    for (;;) {
      if (this.peek().kind === "eof" || this.isOp(close)) throw this.mismatch(EXPR_START);
      args.push(this.expr());
      if (this.isOp(",")) {
        this.next();
        continue;
      }
      if (this.isOp(close)) {
        this.next();
        return args;
      }
      throw this.mismatch(`{')', ','}`.replace("')'", `'${close}'`));
    }
  }

  private primary(): Expr {
    const t = this.peek();
    switch (t.kind) {
      case "int":
      case "uint":
      case "float":
        this.next();
        return this.numberLiteral(t, t.offset, false);
      case "string":
      case "bytes":
        this.next();
        return { id: this.id(), offset: t.offset, kind: "const", value: t.value! };
      case "kw":
        if (t.text === "true" || t.text === "false") {
          this.next();
          return { id: this.id(), offset: t.offset, kind: "const", value: t.text === "true" };
        }
        if (t.text === "null") {
          this.next();
          return { id: this.id(), offset: t.offset, kind: "const", value: null };
        }
        throw this.mismatch(EXPR_START);
      case "ident":
        return this.identOrCall(false);
      case "eof":
        throw this.mismatch(EXPR_START);
      default:
        break;
    }
    if (this.isOp(".") && this.peek(1).kind === "ident") {
      this.next();
      return this.identOrCall(true);
    }
    if (this.isOp("(")) {
      this.next();
      const e = this.expr();
      this.expect(")");
      return e;
    }
    if (this.isOp("[")) return this.listLiteral();
    if (this.isOp("{")) return this.mapLiteral();
    throw this.mismatch(EXPR_START);
  }

  private identOrCall(leadingDot: boolean): Expr {
    const t = this.next();
    const name = (leadingDot ? "." : "") + t.text;
    if (reservedIdents.has(t.text)) this.issues.push({ offset: t.offset, message: `reserved identifier: ${t.text}` });
    if (this.isOp("(")) {
      const open = this.next();
      const args = this.exprList(")");
      return this.globalCall(open.offset, name, args);
    }
    // Message construction: a (qualified) name followed by `{`.
    let typeName = name;
    let k = 0;
    while (this.isOp(".", k) && this.peek(k + 1).kind === "ident") k += 2;
    if (this.isOp("{", k)) {
      for (let i = 0; i < k; i += 2) {
        this.next();
        typeName += "." + this.next().text;
      }
      return this.structLiteral(typeName);
    }
    return { id: this.id(), offset: t.offset, kind: "ident", name };
  }

  private structLiteral(typeName: string): Expr {
    const open = this.expect("{");
    const fields: StructField[] = [];
    while (!this.isOp("}")) {
      let optional = false;
      if (this.isOp("?") && this.opts.optionalSyntax) {
        this.next();
        optional = true;
      }
      const f = this.identName();
      this.expect(":");
      const value = this.expr();
      fields.push({ id: this.id(), name: f.text, value, optional });
      if (this.isOp(",")) this.next();
      else if (!this.isOp("}")) throw this.mismatch("{',', '}'}");
    }
    this.next();
    return { id: this.id(), offset: open.offset, kind: "struct", typeName, fields };
  }

  private listLiteral(): Expr {
    const open = this.next();
    const elems: Expr[] = [];
    const optionalIndices: number[] = [];
    while (!this.isOp("]")) {
      if (this.isOp("?") && this.opts.optionalSyntax) {
        this.next();
        optionalIndices.push(elems.length);
      }
      if (this.peek().kind === "eof") throw this.mismatch(EXPR_START);
      elems.push(this.expr());
      if (this.isOp(",")) this.next();
      else if (!this.isOp("]")) throw this.mismatch("{',', ']'}");
    }
    this.next();
    return { id: this.id(), offset: open.offset, kind: "list", elems, optionalIndices };
  }

  private mapLiteral(): Expr {
    const open = this.next();
    const entries: MapEntry[] = [];
    while (!this.isOp("}")) {
      let optional = false;
      if (this.isOp("?") && this.opts.optionalSyntax) {
        this.next();
        optional = true;
      }
      if (this.peek().kind === "eof") throw this.mismatch(EXPR_START);
      const key = this.expr();
      const colon = this.expect(":");
      const value = this.expr();
      entries.push({ id: this.id(), offset: colon.offset, key, value, optional });
      if (this.isOp(",")) this.next();
      else if (!this.isOp("}")) throw this.mismatch("{',', '}'}");
    }
    this.next();
    return { id: this.id(), offset: open.offset, kind: "map", entries };
  }

  // ---- macros (cel-go parser/macro.go) ------------------------------------------------------

  private globalCall(offset: number, fn: string, args: Expr[]): Expr {
    if (fn === "has" && args.length === 1) {
      const a = args[0];
      if (a.kind !== "select") {
        this.issues.push({ offset: a.offset, message: "invalid argument to has() macro" });
        return this.call(offset, fn, args);
      }
      return { id: this.id(), offset, kind: "select", operand: a.operand, field: a.field, testOnly: true };
    }
    return this.call(offset, fn, args);
  }

  private ident(offset: number, name: string): Expr {
    return { id: this.id(), offset, kind: "ident", name };
  }

  private lit(offset: number, value: Val): Expr {
    return { id: this.id(), offset, kind: "const", value };
  }

  private varName(e: Expr, what = "argument must be a simple name"): string | undefined {
    if (e.kind === "ident" && !e.name.startsWith(".")) return e.name;
    this.issues.push({ offset: e.offset, message: what });
    return undefined;
  }

  private fold(
    offset: number,
    iterVar: string,
    iterRange: Expr,
    accuInit: Expr,
    loopCondition: Expr,
    loopStep: Expr,
    result: Expr,
    iterVar2?: string,
    accuVar = ACCUMULATOR,
  ): Expr {
    return {
      id: this.id(),
      offset,
      kind: "comprehension",
      iterVar,
      ...(iterVar2 !== undefined ? { iterVar2 } : {}),
      iterRange,
      accuVar,
      accuInit,
      loopCondition,
      loopStep,
      result,
    };
  }

  private notStrictlyFalse(offset: number, e: Expr): Expr {
    return this.call(offset, "@not_strictly_false", [e]);
  }

  private memberCall(offset: number, fn: string, target: Expr, args: Expr[]): Expr {
    const accu = () => this.ident(offset, ACCUMULATOR);
    const two = this.opts.twoVarComprehensions;
    // cel.bind(var, init, expr)
    if (fn === "bind" && target.kind === "ident" && target.name === "cel" && args.length === 3) {
      const v = this.varName(args[0], "cel.bind() variable names must be simple identifiers");
      if (v === undefined) return this.call(offset, fn, args, target);
      return this.fold(offset, "#unused", { id: this.id(), offset, kind: "list", elems: [], optionalIndices: [] }, args[1], this.lit(offset, false), this.ident(offset, v), args[2], undefined, v);
    }
    if ((fn === "all" || fn === "exists" || fn === "exists_one") && args.length === 2) {
      const v = this.varName(args[0]);
      if (v === undefined) return this.call(offset, fn, args, target);
      if (v === ACCUMULATOR) this.issues.push({ offset: args[0].offset, message: "iteration variable overwrites accumulator variable" });
      return this.quantifier(offset, fn, v, undefined, target, args[1], accu);
    }
    if (two && (fn === "all" || fn === "exists" || fn === "exists_one" || fn === "existsOne") && args.length === 3) {
      const k = this.varName(args[0]);
      const v = this.varName(args[1]);
      if (k === undefined || v === undefined) return this.call(offset, fn, args, target);
      if (k === v) this.issues.push({ offset: args[1].offset, message: `duplicate variable name: ${k}` });
      return this.quantifier(offset, fn, k, v, target, args[2], accu);
    }
    if (fn === "map" && (args.length === 2 || args.length === 3)) {
      const v = this.varName(args[0]);
      if (v === undefined) return this.call(offset, fn, args, target);
      const f = args[args.length - 1];
      const appended = this.call(offset, "_+_", [accu(), { id: this.id(), offset, kind: "list", elems: [f], optionalIndices: [] }]);
      const step = args.length === 3 ? this.call(offset, "_?_:_", [args[1], appended, accu()]) : appended;
      return this.fold(offset, v, target, { id: this.id(), offset, kind: "list", elems: [], optionalIndices: [] }, this.lit(offset, true), step, accu());
    }
    if (fn === "filter" && args.length === 2) {
      const v = this.varName(args[0]);
      if (v === undefined) return this.call(offset, fn, args, target);
      const appended = this.call(offset, "_+_", [accu(), { id: this.id(), offset, kind: "list", elems: [this.ident(args[0].offset, v)], optionalIndices: [] }]);
      const step = this.call(offset, "_?_:_", [args[1], appended, accu()]);
      return this.fold(offset, v, target, { id: this.id(), offset, kind: "list", elems: [], optionalIndices: [] }, this.lit(offset, true), step, accu());
    }
    if (two && fn === "transformList" && (args.length === 3 || args.length === 4)) {
      const i = this.varName(args[0]);
      const v = this.varName(args[1]);
      if (i === undefined || v === undefined) return this.call(offset, fn, args, target);
      const f = args[args.length - 1];
      const appended = this.call(offset, "_+_", [accu(), { id: this.id(), offset, kind: "list", elems: [f], optionalIndices: [] }]);
      const step = args.length === 4 ? this.call(offset, "_?_:_", [args[2], appended, accu()]) : appended;
      return this.fold(offset, i, target, { id: this.id(), offset, kind: "list", elems: [], optionalIndices: [] }, this.lit(offset, true), step, accu(), v);
    }
    if (two && (fn === "transformMap" || fn === "transformMapEntry") && (args.length === 3 || args.length === 4)) {
      const k = this.varName(args[0]);
      const v = this.varName(args[1]);
      if (k === undefined || v === undefined) return this.call(offset, fn, args, target);
      const f = args[args.length - 1];
      const inserted =
        fn === "transformMap" ? this.call(offset, "cel.@mapInsert", [accu(), this.ident(args[0].offset, k), f]) : this.call(offset, "cel.@mapInsert", [accu(), f]);
      const step = args.length === 4 ? this.call(offset, "_?_:_", [args[2], inserted, accu()]) : inserted;
      return this.fold(offset, k, target, { id: this.id(), offset, kind: "map", entries: [] }, this.lit(offset, true), step, accu(), v);
    }
    if (this.opts.optionalSyntax && (fn === "optMap" || fn === "optFlatMap") && args.length === 2) {
      const v = this.varName(args[0], `${fn}() variable name must be a simple identifier`);
      if (v === undefined) return this.call(offset, fn, args, target);
      const hasValue = this.call(offset, "hasValue", [], target);
      const value = this.call(offset, "value", [], target);
      const bound = this.fold(offset, "#unused", { id: this.id(), offset, kind: "list", elems: [], optionalIndices: [] }, value, this.lit(offset, false), this.ident(offset, v), args[1], undefined, v);
      const some = fn === "optMap" ? this.call(offset, "optional.of", [bound]) : bound;
      return this.call(offset, "_?_:_", [hasValue, some, this.call(offset, "optional.none", [])]);
    }
    return this.call(offset, fn, args, target);
  }

  private quantifier(offset: number, fn: string, v: string, v2: string | undefined, target: Expr, pred: Expr, accu: () => Expr): Expr {
    switch (fn) {
      case "all":
        return this.fold(offset, v, target, this.lit(offset, true), this.notStrictlyFalse(offset, accu()), this.call(offset, "_&&_", [accu(), pred]), accu(), v2);
      case "exists":
        return this.fold(offset, v, target, this.lit(offset, false), this.notStrictlyFalse(offset, this.call(offset, "!_", [accu()])), this.call(offset, "_||_", [accu(), pred]), accu(), v2);
      default: {
        const step = this.call(offset, "_?_:_", [pred, this.call(offset, "_+_", [accu(), this.lit(offset, 1n)]), accu()]);
        return this.fold(offset, v, target, this.lit(offset, 0n), this.lit(offset, true), step, this.call(offset, "_==_", [accu(), this.lit(offset, 1n)]), v2);
      }
    }
  }
}
