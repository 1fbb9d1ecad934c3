/**
 * Bounded decoding: every request body and patch is checked for nesting depth before any
 * recursive work is done on it, so that no document can exhaust the call stack (a JavaScript
 * stack overflow, or worse a V8 fatal error inside the YAML parser) or the heap.
 *
 * Limits (kube-apiserver's, adapted):
 * - size: 3 MiB per body (body.ts, `defaultMaxBodyBytes`, as upstream's MaxRequestBodyBytes);
 * - depth: `maxNestingDepth` levels of objects and arrays. Go's JSON and YAML decoders stop at
 *   10000; every pass kubeloop makes over an object (copies, equality, managed fields, schema
 *   validation, the YAML composer) is recursive and must stay well inside V8's stack, so the
 *   limit here is lower. Real objects are far shallower (a CRD with a deeply nested schema is
 *   well under 100 levels).
 * - YAML aliases: the yaml library's alias-expansion guard (maxAliasCount, "billion laughs"),
 *   plus a node budget on the decoded value, which also catches documents that alias their way
 *   past the depth limit.
 *
 * How each format is checked before recursion:
 * - JSON: one linear scan of the bytes counting brackets outside strings (V8's JSON.parse itself
 *   is iterative, the work after it is not);
 * - YAML: the lexer's tokens are followed (yamlNesting) before the recursive parser runs, then
 *   the value is checked (aliases);
 * - protobuf: the decoder bounds its own recursion (protobuf/decode.ts MAX_DEPTH); the value it
 *   produces (which may embed JSON) is checked like any other.
 */
import { Lexer, parse as parseYAMLText, type ParseOptions, type DocumentOptions, type SchemaOptions, type ToJSOptions } from "yaml";
import { StatusError } from "../../apimachinery/errors.js";

/** Deepest nesting of objects and arrays accepted in a request body (see the module comment). */
export const maxNestingDepth = 500;

/** Most values (objects, arrays, scalars) a decoded YAML document may expand to. */
export const maxDecodedNodes = 2_000_000;

/** A document nested deeper than the limit (answered 400). */
export class NestingTooDeepError extends Error {
  constructor(readonly limit: number) {
    super(`exceeded max depth of ${limit}`);
    this.name = "NestingTooDeepError";
  }
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The nesting depth of a JSON text, counted without parsing (strings and their escapes are
 * skipped). Stops counting — and returns a value over `limit` — as soon as the limit is passed.
 * Exact for well-formed JSON; malformed text fails JSON.parse anyway.
 */
export function jsonNestingDepth(buf: Uint8Array | string, limit = maxNestingDepth): number {
  const bytes = typeof buf === "string" ? Buffer.from(buf, "utf8") : buf;
  let depth = 0;
  let max = 0;
  const n = bytes.length;
  for (let i = 0; i < n; i++) {
    const c = bytes[i];
    if (c === QUOTE) {
      // Skip the string, to the next quote not escaped (found natively: strings are most bytes).
      const start = i;
      for (let from = i + 1; ; ) {
        const q = bytes.indexOf(QUOTE, from);
        if (q < 0) return max;
        let backslashes = 0;
        for (let k = q - 1; k > start && bytes[k] === BACKSLASH; k--) backslashes++;
        if (backslashes % 2 === 0) {
          i = q;
          break;
        }
        from = q + 1;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return max;
}

/** Throws NestingTooDeepError when the JSON text nests deeper than `limit`. */
export function checkJSONDepth(buf: Uint8Array | string, limit = maxNestingDepth): void {
  if (jsonNestingDepth(buf, limit) > limit) throw new NestingTooDeepError(limit);
}

/**
 * Checks a decoded value iteratively: nesting at most `maxDepth`, at most `maxNodes` values
 * visited (shared subtrees — YAML aliases — count each time they appear; a cycle exceeds any
 * budget). Throws NestingTooDeepError, or a 413 StatusError for too many nodes.
 */
export function checkValueBounds(value: unknown, maxDepth = maxNestingDepth, maxNodes = maxDecodedNodes): void {
  if (typeof value !== "object" || value === null) return;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  let nodes = 0;
  while (stack.length > 0) {
    const v = stack.pop() as object;
    const d = depths.pop()!;
    if (d > maxDepth) throw new NestingTooDeepError(maxDepth);
    const children: unknown[] = Array.isArray(v) ? v : Object.values(v);
    nodes += 1 + children.length;
    if (nodes > maxNodes) throw StatusError.requestEntityTooLarge(`the decoded document has more than ${maxNodes} values`);
    for (const c of children) {
      if (typeof c === "object" && c !== null) {
        stack.push(c);
        depths.push(d + 1);
      }
    }
  }
}

const DOCUMENT = "\x02";
const SCALAR = "\x1f";

/**
 * How deep a YAML text nests (an upper bound: the collection depth, or one more where the
 * deepest node is a scalar or flow collection in block context) and whether it uses aliases, from the yaml library's Lexer — which is iterative, linear and lazy, so the walk stops
 * as soon as the bound passes `limit` however large the text. (Its Parser and Composer are too
 * slow or recursive for hostile depths: tens of microseconds per level.)
 *
 * Flow collections are counted by their brackets. Block collections are tracked by columns: a
 * stack of the columns of the nodes that start lines or follow a `-` / `?` indicator, popped by
 * any node at a smaller column; a block sequence at the same column as its parent mapping's key
 * (`a:\n- x`, which YAML allows) counts one level more.
 */
export function yamlNesting(text: string, limit = maxNestingDepth): { depth: number; aliases: boolean } {
  const stack: { col: number; seq: boolean }[] = [];
  let flow = 0;
  let col = 0;
  let lineStart = true;
  let afterIndicator = false;
  let scalarNext = false;
  let max = 0;
  let aliases = false;
  const advance = (lexeme: string) => {
    const nl = lexeme.lastIndexOf("\n");
    col = nl < 0 ? col + lexeme.length : lexeme.length - nl - 1;
    if (nl >= 0) lineStart = false;
  };
  const node = (seq: boolean): boolean => {
    if (flow === 0 && (lineStart || afterIndicator)) {
      while (stack.length > 0 && stack[stack.length - 1].col > col) stack.pop();
      const top = stack[stack.length - 1];
      if (top?.col === col) {
        if (seq && !top.seq) stack.push({ col, seq });
        else if (!seq && top.seq && stack.length > 1 && stack[stack.length - 2].col === col) stack.pop();
      } else {
        stack.push({ col, seq });
      }
    }
    lineStart = false;
    afterIndicator = false;
    const depth = stack.length + flow;
    if (depth > max) max = depth;
    return max > limit;
  };
  for (const lexeme of new Lexer().lex(text)) {
    if (lexeme === SCALAR) {
      scalarNext = true;
      continue;
    }
    if (scalarNext) {
      scalarNext = false;
      if (node(false)) break;
      advance(lexeme);
      continue;
    }
    if (lexeme === DOCUMENT || lexeme === "---" || lexeme === "...") {
      stack.length = 0;
      flow = 0;
      advance(lexeme === DOCUMENT ? "" : lexeme);
      continue;
    }
    switch (lexeme[0]) {
      case undefined:
      case "\n":
      case "\r":
        col = 0;
        lineStart = true;
        afterIndicator = false;
        continue;
      case " ":
      case "\t":
      case "#":
      case "&":
      case "!":
      case "%":
      case ",":
        // Space, comments, anchors, tags, directives, separators: no node of their own.
        advance(lexeme);
        continue;
      case "-":
      case "?":
        if (lexeme.length === 1 && flow === 0) {
          if (node(lexeme === "-")) return { depth: max, aliases };
          afterIndicator = true;
          advance(lexeme);
          continue;
        }
        break;
      case ":":
        if (lexeme.length === 1) {
          // An explicit value (`: ` starting a line) may hold a compact collection.
          const explicit = lineStart && flow === 0;
          if (explicit && node(false)) return { depth: max, aliases };
          afterIndicator = explicit;
          advance(lexeme);
          continue;
        }
        break;
      case "[":
      case "{":
        if (lexeme.length === 1) {
          if (node(false)) return { depth: max, aliases };
          flow++;
          if (flow + stack.length > max) max = flow + stack.length;
          if (max > limit) return { depth: max, aliases };
          advance(lexeme);
          continue;
        }
        break;
      case "]":
      case "}":
        if (lexeme.length === 1) {
          if (flow > 0) flow--;
          advance(lexeme);
          continue;
        }
        break;
      case "*":
        aliases = true;
        break;
    }
    // Any other lexeme is (part of) a scalar node.
    if (node(false)) break;
    advance(lexeme);
  }
  return { depth: max, aliases };
}

export type YAMLParseOptions = ParseOptions & DocumentOptions & SchemaOptions & ToJSOptions;

/**
 * yaml's `parse`, bounded: the depth of the syntax tree is checked before the (recursive)
 * composer runs, and the value after it (aliases can nest what the text does not). A document
 * with aliases is copied so that no two places of the value share an object (as JSON decoding
 * would give). Throws NestingTooDeepError, the 413 of checkValueBounds, or the yaml library's
 * errors.
 */
export function parseYAMLBounded(text: string, options: YAMLParseOptions = {}, limit = maxNestingDepth): unknown {
  const shape = yamlNesting(text, limit);
  if (shape.depth > limit) throw new NestingTooDeepError(limit);
  const value: unknown = parseYAMLText(text, options);
  // Exact, and what aliases expand to.
  checkValueBounds(value, limit);
  return shape.aliases ? (JSON.parse(JSON.stringify(value)) as unknown) : value;
}
