/**
 * RE2 patterns (what CEL's `matches` and the Kubernetes regex library take) as JavaScript
 * regular expressions, compiled once per pattern. Constructs RE2 rejects (lookarounds,
 * backreferences) are errors here too, with Go's regexp message.
 */
import { compilePattern } from "../crd/schema.js";
import { CelError } from "./values.js";

const cache = new Map<string, RegExp | string>();

/** The compile error of a pattern, or undefined when it is valid. */
export function regexError(pattern: string): string | undefined {
  const r = compiled(pattern);
  return typeof r === "string" ? r : undefined;
}

function compiled(pattern: string): RegExp | string {
  let r = cache.get(pattern);
  if (r === undefined) {
    r = compilePattern(pattern);
    if (cache.size > 2000) cache.clear();
    cache.set(pattern, r);
  }
  return r;
}

/** The (unanchored, non-global) regexp of a pattern; throws CelError when it does not compile. */
export function regexFor(pattern: string): RegExp {
  const r = compiled(pattern);
  if (typeof r === "string") throw new CelError(r);
  return r;
}

/** A global-flag copy for iterating matches (findAll). */
export function globalRegexFor(pattern: string): RegExp {
  const r = regexFor(pattern);
  return new RegExp(r.source, r.flags.includes("g") ? r.flags : `${r.flags}g`);
}
