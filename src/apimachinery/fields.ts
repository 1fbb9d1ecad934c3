/**
 * Field selectors, as k8s.io/apimachinery/pkg/fields: comma-separated terms `field=value`,
 * `field==value` or `field!=value`, ANDed. In values, `\`, `,` and `=` must be escaped with a
 * backslash; field names take no escapes (the first operator splits the term). A missing field
 * reads as "" (so `x=` matches an object without x, and `x!=` does not).
 *
 * Parsed selectors are immutable. Terms are kept in upstream's order (sorted by their raw text),
 * which is also the order toString prints them in, so `toString` round-trips.
 */

/** The selectable fields of an object, e.g. {"metadata.name": "x", "status.phase": "Running"}. */
export type Fields = Readonly<Record<string, string>>;

export type FieldOperator = "=" | "==" | "!=";

/** One term of a field selector (fields.Requirement). */
export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  readonly value: string;
}

/** A field selector string that does not parse. `message` is upstream's text. */
export class FieldSelectorParseError extends Error {
  override readonly name = "FieldSelectorParseError";
  constructor(
    message: string,
    /** Index in the selector string of the offending term or character. */
    readonly position: number,
    /** The offending term or escape sequence. */
    readonly token: string,
  ) {
    super(message);
  }
}

/** Maps a (field, value) pair to another, e.g. to convert field labels between versions. */
export type FieldTransform = (field: string, value: string) => { field: string; value: string };

export interface FieldSelector {
  matches(fields: Fields | undefined): boolean;
  /** True when nothing is restricted (everything()). */
  empty(): boolean;
  requirements(): readonly FieldRequirement[];
  /** The value `field` must equal (an = or == term), if any. */
  requiresExactMatch(field: string): string | undefined;
  /**
   * A copy with `fn` applied to every term; terms whose field and value both become "" are
   * dropped. Errors thrown by `fn` propagate.
   */
  transform(fn: FieldTransform): FieldSelector;
  /** "a=b,c!=d" with values escaped; parses back to an equal selector. */
  toString(): string;
}

function fieldValue(fields: Fields | undefined, field: string): string {
  if (fields === undefined) return "";
  const v: unknown = fields[field];
  // typeof guards against inherited properties ("constructor", "__proto__").
  return typeof v === "string" ? v : "";
}

/** Escapes `\`, `,` and `=` in a value (fields.EscapeValue). */
export function escapeValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

interface Fail {
  message: string;
  offset: number;
  token: string;
}

function unescape(s: string): string | Fail {
  if (!/[\\,=]/.test(s)) return s;
  let out = "";
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) {
      if (c === "\\" || c === "," || c === "=") out += c;
      else {
        const cp = String.fromCodePoint(s.codePointAt(i) ?? 0);
        const seq = `\\${cp}`;
        return { message: `invalid field selector: invalid escape sequence: ${seq}`, offset: i - 1, token: seq };
      }
      inSlash = false;
      continue;
    }
    if (c === "\\") inSlash = true;
    else if (c === "," || c === "=") {
      // Upstream prints the rune with %v: its code point in decimal.
      return { message: `invalid field selector: unescaped character in value: ${c.charCodeAt(0)}`, offset: i, token: c };
    } else out += c;
  }
  if (inSlash) return { message: "invalid field selector: invalid escape sequence: \\", offset: s.length - 1, token: "\\" };
  return out;
}

/** Removes the escapes of escapeValue, throwing FieldSelectorParseError on a bad sequence. */
export function unescapeValue(s: string): string {
  const r = unescape(s);
  if (typeof r !== "string") throw new FieldSelectorParseError(r.message, r.offset, r.token);
  return r;
}

class Term implements FieldSelector {
  constructor(
    private readonly field: string,
    private readonly operator: FieldOperator,
    private readonly value: string,
  ) {}
  matches(fields: Fields | undefined): boolean {
    const v = fieldValue(fields, this.field);
    return this.operator === "!=" ? v !== this.value : v === this.value;
  }
  empty(): boolean {
    return false;
  }
  requirements(): readonly FieldRequirement[] {
    return [{ field: this.field, operator: this.operator, value: this.value }];
  }
  requiresExactMatch(field: string): string | undefined {
    return this.operator !== "!=" && this.field === field ? this.value : undefined;
  }
  transform(fn: FieldTransform): FieldSelector {
    const t = fn(this.field, this.value);
    if (t.field === "" && t.value === "") return everythingSelector;
    return new Term(t.field, this.operator, t.value);
  }
  toString(): string {
    return `${this.field}${this.operator === "!=" ? "!=" : "="}${escapeValue(this.value)}`;
  }
}

class AndTerm implements FieldSelector {
  private readonly terms: readonly FieldSelector[];
  constructor(terms: readonly FieldSelector[]) {
    this.terms = Object.freeze([...terms]);
  }
  matches(fields: Fields | undefined): boolean {
    const terms = this.terms;
    for (let i = 0; i < terms.length; i++) if (!terms[i].matches(fields)) return false;
    return true;
  }
  empty(): boolean {
    return this.terms.every((t) => t.empty());
  }
  requirements(): readonly FieldRequirement[] {
    return this.terms.flatMap((t) => t.requirements());
  }
  requiresExactMatch(field: string): string | undefined {
    for (const t of this.terms) {
      const v = t.requiresExactMatch(field);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  transform(fn: FieldTransform): FieldSelector {
    const next: FieldSelector[] = [];
    for (const t of this.terms) {
      const n = t.transform(fn);
      if (!n.empty()) next.push(n);
    }
    return new AndTerm(next);
  }
  toString(): string {
    return this.terms.map((t) => t.toString()).join(",");
  }
}

class NothingFieldSelector implements FieldSelector {
  matches(): boolean {
    return false;
  }
  empty(): boolean {
    return false;
  }
  requirements(): readonly FieldRequirement[] {
    return [];
  }
  requiresExactMatch(): string | undefined {
    return undefined;
  }
  transform(): FieldSelector {
    return this;
  }
  toString(): string {
    return "";
  }
}

const everythingSelector: FieldSelector = new AndTerm([]);
const nothingSelector: FieldSelector = new NothingFieldSelector();

/** Matches every object. */
export function everythingFields(): FieldSelector {
  return everythingSelector;
}

/** Matches no object. */
export function nothingFields(): FieldSelector {
  return nothingSelector;
}

/** field=value. */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new Term(field, "=", value);
}

/** field!=value. */
export function oneTermNotEqualSelector(field: string, value: string): FieldSelector {
  return new Term(field, "!=", value);
}

/** The AND of several selectors. */
export function andSelectors(...selectors: FieldSelector[]): FieldSelector {
  return new AndTerm(selectors);
}

/** field=value for every entry; undefined → everything. Terms are sorted by field for a stable text. */
export function fieldSelectorFromSet(set: Fields | undefined): FieldSelector {
  if (set === undefined) return everythingSelector;
  const terms = Object.keys(set)
    .sort()
    .map((k) => new Term(k, "=", set[k]));
  return terms.length === 1 ? terms[0] : new AndTerm(terms);
}

/** Splits on unescaped commas, keeping each term's escapes and its start index. */
function splitTerms(s: string): Array<{ text: string; at: number }> {
  if (s.length === 0) return [];
  const out: Array<{ text: string; at: number }> = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (inSlash) inSlash = false;
    else if (c === "\\") inSlash = true;
    else if (c === ",") {
      out.push({ text: s.slice(start, i), at: start });
      start = i + 1;
    }
  }
  out.push({ text: s.slice(start), at: start });
  return out;
}

const termOperators: readonly FieldOperator[] = ["!=", "==", "="];

function splitTerm(term: string): { lhs: string; op: FieldOperator; rhs: string; rhsAt: number } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of termOperators) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length), rhsAt: i + op.length };
    }
  }
  return undefined;
}

/**
 * Parses a field selector (fields.ParseSelector). Throws FieldSelectorParseError with upstream's
 * message, e.g. "invalid selector: 'x'; can't understand 'x'".
 */
export function parseFieldSelector(selector: string): FieldSelector {
  return parseAndTransformFieldSelector(selector, (field, value) => ({ field, value }));
}

/** Parses, then applies `fn` to every term (fields.ParseAndTransformSelector). */
export function parseAndTransformFieldSelector(selector: string, fn: FieldTransform): FieldSelector {
  const parts = splitTerms(selector).sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  const items: FieldSelector[] = [];
  for (const part of parts) {
    if (part.text === "") continue;
    const t = splitTerm(part.text);
    if (!t) {
      throw new FieldSelectorParseError(`invalid selector: '${selector}'; can't understand '${part.text}'`, part.at, part.text);
    }
    const v = unescape(t.rhs);
    if (typeof v !== "string") throw new FieldSelectorParseError(v.message, part.at + t.rhsAt + v.offset, v.token);
    // "==" is "=" (upstream keeps no trace of which was written).
    items.push(new Term(t.lhs, t.op === "!=" ? "!=" : "=", v));
  }
  if (items.length === 1) return items[0].transform(fn);
  return new AndTerm(items).transform(fn);
}
