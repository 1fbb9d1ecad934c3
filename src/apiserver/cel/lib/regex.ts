/**
 * Kubernetes' regex library (library/regex.go): `find` returns the first match ("" when
 * none), `findAll` every match, optionally at most n (n < 0: all).
 */
import { Library, memberOverload } from "../decls.js";
import { globalRegexFor, regexFor } from "../regex.js";
import { T } from "../types.js";
import type { Val } from "../values.js";

function findAll(s: string, pattern: string, limit: number): string[] {
  if (limit === 0) return [];
  const re = globalRegexFor(pattern);
  const out: string[] = [];
  for (const m of s.matchAll(re)) {
    out.push(m[0]);
    if (limit > 0 && out.length >= limit) break;
  }
  return out;
}

export function regexLibrary(): Library {
  const lib = new Library();
  lib.add(
    "find",
    memberOverload("string_find_string", [T.string, T.string], T.string, ([s, re]) => regexFor(re as string).exec(s as string)?.[0] ?? ""),
  );
  lib.add(
    "findAll",
    memberOverload("string_find_all_string", [T.string, T.string], T.list(T.string), ([s, re]) => findAll(s as string, re as string, -1)),
    memberOverload("string_find_all_string_int", [T.string, T.string, T.int], T.list(T.string), ([s, re, n]: readonly Val[]) => findAll(s as string, re as string, Number(n as bigint))),
  );
  return lib;
}
