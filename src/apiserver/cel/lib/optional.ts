/**
 * Optional types (cel.OptionalTypes): optional.of / ofNonZeroValue / none, hasValue, value, or,
 * orValue, optional field selection `x.?f` (`_?._`) and optional indexing `x[?k]` (`_[?_]`).
 * The optMap/optFlatMap macros are expanded by the parser; `_?._`'s result type for objects is
 * computed by the checker.
 */
import { A, K, Library, memberOverload, overload, V } from "../decls.js";
import { T } from "../types.js";
import { CelError, CelMap, CelObject, CelOptional, CelUint, isZeroValue, type Val } from "../values.js";

function optField(v: Val, field: string): CelOptional {
  if (v instanceof CelOptional) return v.hasValue() ? optField(v.value!, field) : CelOptional.none;
  if (v instanceof CelObject) {
    const r = v.getField(field);
    return r === undefined ? CelOptional.none : CelOptional.of(r);
  }
  if (v instanceof CelMap) {
    const r = v.get(field);
    return r === undefined ? CelOptional.none : CelOptional.of(r);
  }
  throw new CelError("no such overload");
}

function optIndex(c: Val, k: Val): CelOptional {
  if (c instanceof CelOptional) return c.hasValue() ? optIndex(c.value!, k) : CelOptional.none;
  if (Array.isArray(c)) {
    let i: bigint | undefined;
    if (typeof k === "bigint") i = k;
    else if (k instanceof CelUint) i = k.v;
    else if (typeof k === "number" && Number.isInteger(k)) i = BigInt(k);
    if (i === undefined) throw new CelError("no such overload");
    return i >= 0n && i < BigInt(c.length) ? CelOptional.of(c[Number(i)]) : CelOptional.none;
  }
  if (c instanceof CelMap) {
    const r = c.get(k);
    return r === undefined ? CelOptional.none : CelOptional.of(r);
  }
  throw new CelError("no such overload");
}

export function optionalLibrary(): Library {
  const lib = new Library();
  lib.typeName("optional_type", T.optional(T.dyn));
  lib.add("optional.of", overload("optional_of", [A], T.optional(A), ([v]) => CelOptional.of(v)));
  lib.add("optional.ofNonZeroValue", overload("optional_ofNonZeroValue", [A], T.optional(A), ([v]) => (isZeroValue(v) ? CelOptional.none : CelOptional.of(v))));
  lib.add("optional.none", overload("optional_none", [], T.optional(T.param("T")), () => CelOptional.none));
  lib.add("hasValue", memberOverload("optional_hasValue", [T.optional(A)], T.bool, ([o]) => (o as CelOptional).hasValue()));
  lib.add(
    "value",
    memberOverload("optional_value", [T.optional(A)], A, ([o]) => {
      const opt = o as CelOptional;
      if (!opt.hasValue()) throw new CelError("optional.none() dereference");
      return opt.value!;
    }),
  );
  lib.add("or", memberOverload("optional_or_optional", [T.optional(A), T.optional(A)], T.optional(A), ([a, b]) => ((a as CelOptional).hasValue() ? a : b)));
  lib.add("orValue", memberOverload("optional_orValue_value", [T.optional(A), A], A, ([a, b]) => ((a as CelOptional).hasValue() ? (a as CelOptional).value! : b)));
  lib.add("_?._", overload("select_optional_field", [T.dyn, T.string], T.optional(T.dyn), ([v, f]) => optField(v, f as string)));
  lib.add(
    "_[?_]",
    overload("list_optindex_optional_int", [T.list(V), T.int], T.optional(V), ([l, i]) => optIndex(l, i)),
    overload("optional_list_optindex_optional_int", [T.optional(T.list(V)), T.int], T.optional(V), ([l, i]) => optIndex(l, i)),
    overload("map_optindex_optional_value", [T.map(K, V), K], T.optional(V), ([m, k]) => optIndex(m, k)),
    overload("optional_map_optindex_optional_value", [T.optional(T.map(K, V)), K], T.optional(V), ([m, k]) => optIndex(m, k)),
  );
  return lib;
}
