/**
 * Label selectors, as k8s.io/apimachinery/pkg/labels: the string grammar
 *
 *   <selector>    ::= <requirement> | <requirement> "," <selector>
 *   <requirement> ::= ["!"] KEY [ ("in" | "notin") "(" VALUES ")" | ("=" | "==" | "!=" | ">" | "<") VALUE ]
 *
 * its parser (with upstream's error messages), the `Requirement` and `Selector` types, and the
 * conversion from a metav1.LabelSelector. A parsed selector is immutable: its requirements are
 * sorted by key and each requirement precompiles its matcher (a single comparison, or a Set
 * lookup for multi-value in/notin), so `matches` never re-reads the selector text.
 *
 * Positions in errors are UTF-16 indexes into the selector string (upstream counts bytes; the two
 * agree for ASCII, which is all a valid selector can hold).
 */
import type { LabelSelector } from "./api/meta/v1.js";
import { isQualifiedName, isValidLabelValue } from "./validation.js";

/** A set of labels, as found in metadata.labels. */
export type Labels = Readonly<Record<string, string>>;

/**
 * selection.Operator. "gt"/"lt" are upstream's integer comparisons (node affinity, `x>1`); "!"
 * is DoesNotExist.
 */
export type Operator = "=" | "==" | "!=" | "in" | "notin" | "exists" | "!" | "gt" | "lt";

export const Operators = {
  Equals: "=",
  DoubleEquals: "==",
  NotEquals: "!=",
  In: "in",
  NotIn: "notin",
  Exists: "exists",
  DoesNotExist: "!",
  GreaterThan: "gt",
  LessThan: "lt",
} as const satisfies Record<string, Operator>;

const binaryOperators: readonly string[] = ["in", "notin", "=", "==", "!=", "gt", "lt"];
const validRequirementOperators: readonly string[] = [...binaryOperators, "exists", "!"];

// ---------------------------------------------------------------------------------------------
// Errors

/** A label selector string that does not parse. `message` is upstream's text. */
export class SelectorParseError extends Error {
  override readonly name = "SelectorParseError";
  constructor(
    message: string,
    /** Index in the selector string where the offending token starts. */
    readonly position: number,
    /** The offending token's text ("" at end of input). */
    readonly token: string,
    /** The field-error texts when a requirement failed validation. */
    readonly causes: readonly string[] = [],
  ) {
    super(message);
  }
}

/** A requirement (or metav1.LabelSelector) that fails validation. `message` is upstream's text. */
export class InvalidRequirementError extends Error {
  override readonly name = "InvalidRequirementError";
  constructor(
    message: string,
    /** One text per field error, e.g. `key: Invalid value: "-a": name part …`. */
    readonly causes: readonly string[] = [],
  ) {
    super(message);
  }
}

/** Go's %q for strings (strconv.Quote), close enough for error texts. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        continue;
      case "\\":
        out += "\\\\";
        continue;
      case "\n":
        out += "\\n";
        continue;
      case "\r":
        out += "\\r";
        continue;
      case "\t":
        out += "\\t";
        continue;
      case "\x07":
        out += "\\a";
        continue;
      case "\b":
        out += "\\b";
        continue;
      case "\f":
        out += "\\f";
        continue;
      case "\v":
        out += "\\v";
        continue;
    }
    if (c < 0x20 || c === 0x7f) out += `\\x${c.toString(16).padStart(2, "0")}`;
    else if (c >= 0xd800 && c <= 0xdfff) out += "\\ufffd";
    else if ((c >= 0x80 && c < 0xa0) || c === 0xad) out += `\\u${c.toString(16).padStart(4, "0")}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Go's %#v for a []string: `[]string{"a", "b"}`, `[]string{}`, or `[]string(nil)`. */
function goStringSlice(values: readonly string[] | undefined): string {
  if (values === undefined) return "[]string(nil)";
  return `[]string{${values.map(goQuote).join(", ")}}`;
}

function aggregate(msgs: readonly string[]): string {
  const uniq = [...new Set(msgs)];
  return uniq.length === 1 ? uniq[0] : `[${uniq.join(", ")}]`;
}

function keyError(path: string, key: string): string | undefined {
  const errs = isQualifiedName(key);
  return errs.length ? `${path}: Invalid value: ${goQuote(key)}: ${errs.join("; ")}` : undefined;
}

function valueError(path: string, value: string): string | undefined {
  const errs = isValidLabelValue(value);
  return errs.length ? `${path}: Invalid value: ${goQuote(value)}: ${errs.join("; ")}` : undefined;
}

// ---------------------------------------------------------------------------------------------
// Integers for gt/lt (strconv.ParseInt(s, 10, 64))

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const intRe = /^[+-]?[0-9]+$/;

function parseInt64(s: string): bigint | undefined {
  if (!intRe.test(s)) return undefined;
  const v = BigInt(s);
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

// ---------------------------------------------------------------------------------------------
// Requirement

function hasLabel(labels: Labels | undefined, key: string): string | undefined {
  if (labels === undefined) return undefined;
  const v: unknown = labels[key];
  // typeof guards against inherited properties ("constructor", "__proto__").
  return typeof v === "string" ? v : undefined;
}

/**
 * One clause of a selector: key, operator, values. Immutable. Build validated ones with
 * `newRequirement`; the constructor itself does not validate (upstream's struct literal).
 */
export class Requirement {
  readonly values: readonly string[];
  private readonly test: (labels: Labels | undefined) => boolean;

  constructor(
    readonly key: string,
    readonly operator: Operator,
    values: readonly string[] = [],
  ) {
    this.values = Object.freeze([...values]);
    this.test = compile(key, operator, this.values);
  }

  /** Whether `labels` satisfies this requirement (upstream Requirement.Matches). */
  matches(labels: Labels | undefined): boolean {
    return this.test(labels);
  }

  /** Values sorted and de-duplicated (upstream Values(), a set). */
  valueSet(): string[] {
    return [...new Set(this.values)].sort(compareStrings);
  }

  equals(other: Requirement): boolean {
    if (this.key !== other.key || this.operator !== other.operator) return false;
    if (this.values.length !== other.values.length) return false;
    return this.values.every((v, i) => v === other.values[i]);
  }

  /** Canonical text: "x in (a,b)", "!x", "x!=y", "x>1"; multiple values print sorted. */
  toString(): string {
    let s = this.operator === "!" ? "!" : "";
    s += this.key;
    switch (this.operator) {
      case "=":
        s += "=";
        break;
      case "==":
        s += "==";
        break;
      case "!=":
        s += "!=";
        break;
      case "in":
        s += " in ";
        break;
      case "notin":
        s += " notin ";
        break;
      case "gt":
        s += ">";
        break;
      case "lt":
        s += "<";
        break;
      case "exists":
      case "!":
        return s;
    }
    const list = this.values.length === 1 ? this.values[0] : [...this.values].sort(compareStrings).join(",");
    return this.operator === "in" || this.operator === "notin" ? `${s}(${list})` : s + list;
  }
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compile(key: string, op: Operator, values: readonly string[]): (labels: Labels | undefined) => boolean {
  switch (op) {
    case "in":
    case "=":
    case "==": {
      if (values.length === 1) {
        const want = values[0];
        return (ls) => hasLabel(ls, key) === want;
      }
      const set = new Set(values);
      return (ls) => {
        const v = hasLabel(ls, key);
        return v !== undefined && set.has(v);
      };
    }
    case "notin":
    case "!=": {
      if (values.length === 1) {
        const unwanted = values[0];
        return (ls) => hasLabel(ls, key) !== unwanted;
      }
      const set = new Set(values);
      return (ls) => {
        const v = hasLabel(ls, key);
        return v === undefined || !set.has(v);
      };
    }
    case "exists":
      return (ls) => hasLabel(ls, key) !== undefined;
    case "!":
      return (ls) => hasLabel(ls, key) === undefined;
    case "gt":
    case "lt": {
      // Exactly one integer value is required; anything else never matches (as upstream).
      const bound = values.length === 1 ? parseInt64(values[0]) : undefined;
      if (bound === undefined) return () => false;
      const gt = op === "gt";
      return (ls) => {
        const raw = hasLabel(ls, key);
        if (raw === undefined) return false;
        const v = parseInt64(raw);
        if (v === undefined) return false;
        return gt ? v > bound : v < bound;
      };
    }
    default:
      return () => false;
  }
}

/**
 * NewRequirement: validates and builds a requirement, throwing `InvalidRequirementError` with
 * upstream's aggregated field errors. Pass `values` undefined to mean a nil slice (it only changes
 * how an empty list prints in the error: `[]string(nil)` vs `[]string{}`).
 */
export function newRequirement(key: string, operator: string, values: readonly string[] | undefined): Requirement {
  const errs = requirementErrors(key, operator, values);
  if (errs.length) throw new InvalidRequirementError(aggregate(errs), errs);
  return new Requirement(key, operator as Operator, values ?? []);
}

function requirementErrors(key: string, operator: string, values: readonly string[] | undefined): string[] {
  const errs: string[] = [];
  const ke = keyError("key", key);
  if (ke) errs.push(ke);
  const vals = values ?? [];
  // Only error messages show the values: formatted when one is written, not for every parse.
  const shown = () => goStringSlice(values);
  switch (operator) {
    case "in":
    case "notin":
      if (vals.length === 0) errs.push(`values: Invalid value: ${shown()}: for 'in', 'notin' operators, values set can't be empty`);
      break;
    case "=":
    case "==":
    case "!=":
      if (vals.length !== 1) errs.push(`values: Invalid value: ${shown()}: exact-match compatibility requires one single value`);
      break;
    case "exists":
    case "!":
      if (vals.length !== 0) {
        errs.push(`values: Invalid value: ${shown()}: values set must be empty for exists and does not exist`);
      }
      break;
    case "gt":
    case "lt":
      if (vals.length !== 1) {
        errs.push(`values: Invalid value: ${shown()}: for 'Gt', 'Lt' operators, exactly one value is required`);
      }
      vals.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(`values[${i}]: Invalid value: ${goQuote(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
        }
      });
      break;
    default:
      errs.push(
        `operator: Unsupported value: ${goQuote(operator)}: supported values: ${validRequirementOperators.map((o) => goQuote(o)).join(", ")}`,
      );
  }
  vals.forEach((v, i) => {
    const ve = valueError(`values[${i}][${key}]`, v);
    if (ve) errs.push(ve);
  });
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Selector

/** A label selector. Immutable; every method is safe to call concurrently. */
export interface Selector {
  /** Whether the labels satisfy every requirement. */
  matches(labels: Labels | undefined): boolean;
  /** True when the selector does not restrict anything (everything()). */
  empty(): boolean;
  /** The requirements, sorted by key (none for nothing()). */
  requirements(): readonly Requirement[];
  /** False only for nothing(), which selects no object at all. */
  selectable(): boolean;
  /** Canonical text: requirements sorted by key, each with sorted values, joined by ",". */
  toString(): string;
  /** A new selector with the extra requirements (the receiver is unchanged). */
  add(...requirements: Requirement[]): Selector;
  /** The one value `label` must equal (=, == or a single-value in), if any. */
  requiresExactMatch(label: string): string | undefined;
}

function byKey(a: Requirement, b: Requirement): number {
  return compareStrings(a.key, b.key);
}

/** The ordinary selector: an AND of requirements kept sorted by key (stable for equal keys). */
class InternalSelector implements Selector {
  private readonly reqs: readonly Requirement[];
  constructor(reqs: readonly Requirement[], sorted = false) {
    this.reqs = Object.freeze(sorted ? [...reqs] : [...reqs].sort(byKey));
  }
  matches(labels: Labels | undefined): boolean {
    const reqs = this.reqs;
    for (let i = 0; i < reqs.length; i++) if (!reqs[i].matches(labels)) return false;
    return true;
  }
  empty(): boolean {
    return this.reqs.length === 0;
  }
  requirements(): readonly Requirement[] {
    return this.reqs;
  }
  selectable(): boolean {
    return true;
  }
  toString(): string {
    return this.reqs.map((r) => r.toString()).join(",");
  }
  add(...requirements: Requirement[]): Selector {
    return new InternalSelector([...this.reqs, ...requirements]);
  }
  requiresExactMatch(label: string): string | undefined {
    for (const r of this.reqs) {
      if (r.key !== label) continue;
      if ((r.operator === "=" || r.operator === "==" || r.operator === "in") && r.values.length === 1) return r.values[0];
      return undefined;
    }
    return undefined;
  }
}

class NothingSelector implements Selector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  requirements(): readonly Requirement[] {
    return [];
  }
  selectable(): boolean {
    return false;
  }
  toString(): string {
    return "";
  }
  add(): Selector {
    return this;
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
}

const sharedEverything: Selector = new InternalSelector([]);
const sharedNothing: Selector = new NothingSelector();

/** A selector that matches every label set. */
export function everything(): Selector {
  return sharedEverything;
}

/** A selector that matches nothing (a nil metav1.LabelSelector). */
export function nothing(): Selector {
  return sharedNothing;
}

/** Whether the selector is nothing() (upstream MatchesNothing). */
export function matchesNothing(selector: Selector): boolean {
  return selector === sharedNothing;
}

/** A selector requiring key=value for every entry; empty or undefined → everything(). No validation. */
export function selectorFromSet(set: Labels | undefined): Selector {
  return selectorFromValidatedSet(set);
}

/** As selectorFromSet, for a set already known to be valid. */
export function selectorFromValidatedSet(set: Labels | undefined): Selector {
  if (!set) return new InternalSelector([]);
  const keys = Object.keys(set);
  if (keys.length === 0) return new InternalSelector([]);
  return new InternalSelector(keys.map((k) => new Requirement(k, "=", [set[k]])));
}

/** As selectorFromSet, validating keys and values (throws InvalidRequirementError). */
export function validatedSelectorFromSet(set: Labels | undefined): Selector {
  if (!set) return new InternalSelector([]);
  const keys = Object.keys(set).sort(compareStrings);
  return new InternalSelector(keys.map((k) => newRequirement(k, "=", [set[k]])));
}

/**
 * metav1.LabelSelectorAsSelector: undefined/null → nothing(); no matchLabels and no
 * matchExpressions → everything(); otherwise the AND of both. Throws InvalidRequirementError for an
 * invalid key/value or an unknown operator ("\"Foo\" is not a valid label selector operator").
 */
export function labelSelectorAsSelector(ps: LabelSelector | undefined | null): Selector {
  if (ps === undefined || ps === null) return sharedNothing;
  const matchLabels = ps.matchLabels ?? {};
  const labelKeys = Object.keys(matchLabels).sort(compareStrings);
  const exprs = ps.matchExpressions ?? [];
  if (labelKeys.length + exprs.length === 0) return sharedEverything;
  const reqs: Requirement[] = [];
  for (const k of labelKeys) reqs.push(newRequirement(k, "=", [matchLabels[k]]));
  for (const expr of exprs) {
    let op: Operator;
    switch (expr.operator) {
      case "In":
        op = "in";
        break;
      case "NotIn":
        op = "notin";
        break;
      case "Exists":
        op = "exists";
        break;
      case "DoesNotExist":
        op = "!";
        break;
      default:
        throw new InvalidRequirementError(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    }
    const values = expr.values && expr.values.length > 0 ? [...expr.values] : undefined;
    reqs.push(newRequirement(expr.key, op, values));
  }
  return new InternalSelector(reqs);
}

/** A LabelSelector that has no plain-map form (LabelSelectorAsMap's errors). */
export class LabelSelectorConversionError extends Error {
  constructor(
    message: string,
    /** What was converted before the offending expression, as upstream returns it. */
    readonly partial: Record<string, string>,
  ) {
    super(message);
    this.name = "LabelSelectorConversionError";
  }
}

/**
 * metav1.LabelSelectorAsMap: the selector as a plain label map (the old selector format) —
 * matchLabels, plus each `In` expression with exactly one value. undefined/null → undefined.
 * Throws LabelSelectorConversionError, with upstream's messages, for `In` without a single value
 * and for NotIn, Exists, DoesNotExist ("operator \"NotIn\" cannot be converted into the old label
 * selector format") or an unknown operator ("\"Foo\" is not a valid selector operator").
 */
export function labelSelectorAsMap(ps: LabelSelector | undefined | null): Record<string, string> | undefined {
  if (ps === undefined || ps === null) return undefined;
  const out: Record<string, string> = { ...(ps.matchLabels ?? {}) };
  for (const expr of ps.matchExpressions ?? []) {
    const op = String(expr.operator);
    switch (op) {
      case "In":
        if ((expr.values ?? []).length !== 1) {
          throw new LabelSelectorConversionError(`operator ${goQuote(op)} without a single value cannot be converted into the old label selector format`, out);
        }
        out[expr.key] = expr.values![0];
        break;
      case "NotIn":
      case "Exists":
      case "DoesNotExist":
        throw new LabelSelectorConversionError(`operator ${goQuote(op)} cannot be converted into the old label selector format`, out);
      default:
        throw new LabelSelectorConversionError(`${goQuote(op)} is not a valid selector operator`, out);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Lexer

const enum Tok {
  Error,
  EndOfString,
  ClosedPar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

const literalTokens = new Map<string, Tok>([
  [")", Tok.ClosedPar],
  [",", Tok.Comma],
  ["!", Tok.DoesNotExist],
  ["==", Tok.DoubleEquals],
  ["=", Tok.Equals],
  [">", Tok.GreaterThan],
  ["in", Tok.In],
  ["<", Tok.LessThan],
  ["!=", Tok.NotEquals],
  ["notin", Tok.NotIn],
  ["(", Tok.OpenPar],
]);

interface Scanned {
  tok: Tok;
  lit: string;
  pos: number;
}

function isWhitespace(c: number): boolean {
  return c === 32 || c === 9 || c === 13 || c === 10;
}

function isSpecialSymbol(c: number): boolean {
  // = ! ( ) , > <
  return c === 61 || c === 33 || c === 40 || c === 41 || c === 44 || c === 62 || c === 60;
}

/**
 * Splits the selector into tokens. As upstream, a NUL character reads as end of input, and
 * "in"/"notin" are keywords here and demoted to identifiers by the parser where values go.
 */
function lex(s: string): Scanned[] {
  const out: Scanned[] = [];
  let pos = 0;
  // read(): the char code at pos (advancing), or 0 at the end.
  const read = (): number => {
    if (pos < s.length) return s.charCodeAt(pos++);
    return 0;
  };
  for (;;) {
    let ch = read();
    while (isWhitespace(ch)) ch = read();
    if (ch === 0) {
      out.push({ tok: Tok.EndOfString, lit: "", pos: Math.min(pos, s.length) });
      return out;
    }
    pos--;
    const start = pos;
    if (isSpecialSymbol(ch)) {
      let buffer = "";
      let last: { tok: Tok; lit: string } | undefined;
      for (;;) {
        const c = read();
        if (c === 0) break;
        if (isSpecialSymbol(c)) {
          buffer += String.fromCharCode(c);
          const t = literalTokens.get(buffer);
          if (t !== undefined) last = { tok: t, lit: buffer };
          else if (last) {
            pos--;
            break;
          }
        } else {
          pos--;
          break;
        }
      }
      if (!last) out.push({ tok: Tok.Error, lit: `error expected: keyword found '${buffer}'`, pos: start });
      else out.push({ tok: last.tok, lit: last.lit, pos: start });
    } else {
      let end: number;
      for (;;) {
        const before = pos;
        const c = read();
        if (c === 0) {
          // End of input, or a NUL that upstream's byte reader takes for it (and skips).
          end = before;
          break;
        }
        if (isSpecialSymbol(c) || isWhitespace(c)) {
          pos--;
          end = pos;
          break;
        }
      }
      const lit = s.slice(start, end);
      out.push({ tok: literalTokens.get(lit) ?? Tok.Identifier, lit, pos: start });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Parser

const enum Ctx {
  KeyAndOperator,
  Values,
}

class Parser {
  private items: Scanned[] = [];
  private position = 0;

  constructor(private readonly input: string) {}

  private item(context: Ctx, advance: boolean): Scanned {
    const it = this.items[this.position];
    if (advance) this.position++;
    if (context === Ctx.Values && (it.tok === Tok.In || it.tok === Tok.NotIn)) return { ...it, tok: Tok.Identifier };
    return it;
  }

  private lookahead(context: Ctx): Scanned {
    return this.item(context, false);
  }

  private consume(context: Ctx): Scanned {
    return this.item(context, true);
  }

  parse(): Requirement[] {
    this.items = lex(this.input);
    const reqs: Requirement[] = [];
    for (;;) {
      const next = this.lookahead(Ctx.Values);
      switch (next.tok) {
        case Tok.Identifier:
        case Tok.DoesNotExist: {
          reqs.push(this.parseRequirement());
          const t = this.consume(Ctx.Values);
          if (t.tok === Tok.EndOfString) return reqs;
          if (t.tok === Tok.Comma) {
            const t2 = this.lookahead(Ctx.Values);
            if (t2.tok !== Tok.Identifier && t2.tok !== Tok.DoesNotExist) {
              throw new SelectorParseError(`found '${t2.lit}', expected: identifier after ','`, t2.pos, t2.lit);
            }
            break;
          }
          throw new SelectorParseError(`found '${t.lit}', expected: ',' or 'end of string'`, t.pos, t.lit);
        }
        case Tok.EndOfString:
          return reqs;
        default:
          throw new SelectorParseError(`found '${next.lit}', expected: !, identifier, or 'end of string'`, next.pos, next.lit);
      }
    }
  }

  /** Errors inside one requirement carry upstream's "unable to parse requirement: " prefix. */
  private fail(detail: string, at: Scanned, causes: readonly string[] = []): never {
    throw new SelectorParseError(`unable to parse requirement: ${detail}`, at.pos, at.lit, causes);
  }

  private parseRequirement(): Requirement {
    let t = this.consume(Ctx.Values);
    let negated = false;
    if (t.tok === Tok.DoesNotExist) {
      negated = true;
      t = this.consume(Ctx.Values);
    }
    if (t.tok !== Tok.Identifier) this.fail(`found '${t.lit}', expected: identifier`, t);
    const key = t.lit;
    const ke = keyError("<nil>", key);
    if (ke) this.fail(ke, t, [ke]);
    const after = this.lookahead(Ctx.Values);
    if (negated) return new Requirement(key, "!", []);
    if (after.tok === Tok.EndOfString || after.tok === Tok.Comma) return new Requirement(key, "exists", []);

    const opTok = this.consume(Ctx.KeyAndOperator);
    let op: Operator;
    switch (opTok.tok) {
      case Tok.In:
        op = "in";
        break;
      case Tok.Equals:
        op = "=";
        break;
      case Tok.DoubleEquals:
        op = "==";
        break;
      case Tok.GreaterThan:
        op = "gt";
        break;
      case Tok.LessThan:
        op = "lt";
        break;
      case Tok.NotIn:
        op = "notin";
        break;
      case Tok.NotEquals:
        op = "!=";
        break;
      default:
        this.fail(`found '${opTok.lit}', expected: ${binaryOperators.join(", ")}`, opTok);
    }
    // value → where it first appeared, to point errors at it.
    const seen = new Map<string, Scanned>();
    if (op === "in" || op === "notin") this.parseValues(seen, opTok);
    else this.parseExactValue(seen, opTok);
    const values = [...seen.keys()].sort(compareStrings);
    const errs = requirementErrors(key, op, values);
    if (errs.length) {
      // Point at the first value named in an error, else at the operator.
      let at = opTok;
      for (const v of values) {
        if (errs.some((e) => e.includes(goQuote(v)))) {
          at = seen.get(v) ?? opTok;
          break;
        }
      }
      this.fail(aggregate(errs), at, errs);
    }
    return new Requirement(key, op, values);
  }

  /** "(" values ")": empty entries stand for the empty string, as upstream. */
  private parseValues(seen: Map<string, Scanned>, opTok: Scanned): void {
    const open = this.consume(Ctx.Values);
    if (open.tok !== Tok.OpenPar) this.fail(`found '${open.lit}' expected: '('`, open);
    const first = this.lookahead(Ctx.Values);
    switch (first.tok) {
      case Tok.Identifier:
      case Tok.Comma: {
        this.parseIdentifiersList(seen);
        const close = this.consume(Ctx.Values);
        if (close.tok !== Tok.ClosedPar) this.fail(`found '${first.lit}', expected: ')'`, close);
        return;
      }
      case Tok.ClosedPar:
        this.consume(Ctx.Values);
        seen.set("", opTok);
        return;
      default:
        this.fail(`found '${first.lit}', expected: ',', ')' or identifier`, first);
    }
  }

  private parseIdentifiersList(seen: Map<string, Scanned>): void {
    const add = (v: string, at: Scanned) => {
      if (!seen.has(v)) seen.set(v, at);
    };
    for (;;) {
      const t = this.consume(Ctx.Values);
      if (t.tok === Tok.Identifier) {
        add(t.lit, t);
        const t2 = this.lookahead(Ctx.Values);
        if (t2.tok === Tok.Comma) continue;
        if (t2.tok === Tok.ClosedPar) return;
        this.fail(`found '${t2.lit}', expected: ',' or ')'`, t2);
      } else if (t.tok === Tok.Comma) {
        if (seen.size === 0) add("", t); // "(,"
        const t2 = this.lookahead(Ctx.Values);
        if (t2.tok === Tok.ClosedPar) {
          add("", t); // ",)"
          return;
        }
        if (t2.tok === Tok.Comma) add("", t); // ",,"
      } else {
        this.fail(`found '${t.lit}', expected: ',', or identifier`, t);
      }
    }
  }

  private parseExactValue(seen: Map<string, Scanned>, opTok: Scanned): void {
    const next = this.lookahead(Ctx.Values);
    if (next.tok === Tok.EndOfString || next.tok === Tok.Comma) {
      seen.set("", opTok);
      return;
    }
    const t = this.consume(Ctx.Values);
    if (t.tok === Tok.Identifier) {
      seen.set(t.lit, t);
      return;
    }
    this.fail(`found '${t.lit}', expected: identifier`, t);
  }
}

/**
 * Parses a label selector string (labels.Parse). Throws SelectorParseError, whose message is
 * upstream's, e.g. "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt".
 */
export function parseSelector(selector: string): Selector {
  return new InternalSelector(new Parser(selector).parse());
}

/** The requirements of a selector string, sorted by key (labels.ParseToRequirements). */
export function parseToRequirements(selector: string): Requirement[] {
  return [...new Parser(selector).parse()].sort(byKey);
}

// ---------------------------------------------------------------------------------------------
// Label-set helpers (labels.Set)

/** "a=b,c=d", sorted (labels.Set.String). */
export function labelsToString(set: Labels | undefined): string {
  if (!set) return "";
  return Object.keys(set)
    .map((k) => `${k}=${set[k]}`)
    .sort(compareStrings)
    .join(",");
}

/** As labelsToString, but "<none>" for an empty set (labels.FormatLabels). */
export function formatLabels(set: Labels | undefined): string {
  const s = labelsToString(set);
  return s === "" ? "<none>" : s;
}

/** True when a key is in both sets with different values. */
export function labelsConflict(a: Labels | undefined, b: Labels | undefined): boolean {
  if (!a || !b) return false;
  for (const k of Object.keys(a)) {
    const v = hasLabel(b, k);
    if (v !== undefined && v !== a[k]) return true;
  }
  return false;
}

/** A new set with both; `b` wins on conflicts. */
export function mergeLabels(a: Labels | undefined, b: Labels | undefined): Record<string, string> {
  return { ...(a ?? {}), ...(b ?? {}) };
}

/** Same keys, same values. */
export function labelsEqual(a: Labels | undefined, b: Labels | undefined): boolean {
  const ka = a ? Object.keys(a) : [];
  const kb = b ? Object.keys(b) : [];
  if (ka.length !== kb.length) return false;
  for (const k of ka) if (hasLabel(b, k) !== a?.[k]) return false;
  return true;
}

/**
 * "a=b,c=d" → {a: "b", c: "d"}, validating keys and values (labels.ConvertSelectorToLabelsMap).
 * Throws InvalidRequirementError.
 */
export function convertSelectorToLabelsMap(selector: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (selector.length === 0) return out;
  for (const label of selector.split(",")) {
    const parts = label.split("=");
    if (parts.length !== 2) throw new InvalidRequirementError(`invalid selector: [${parts.join(" ")}]`);
    const key = parts[0].trim();
    const ke = keyError("<nil>", key);
    if (ke) throw new InvalidRequirementError(ke, [ke]);
    const value = parts[1].trim();
    const ve = valueError(`[${key}]`, value);
    if (ve) throw new InvalidRequirementError(ve, [ve]);
    out[key] = value;
  }
  return out;
}
