/**
 * Kubernetes' lists library (k8s.io/apiserver/pkg/cel/library/lists.go): isSorted, sum, min,
 * max, indexOf, lastIndexOf on lists; and cel-go's ext.Sets: sets.contains, sets.equivalent,
 * sets.intersects.
 */
import { A, Library, memberOverload, overload } from "../decls.js";
import { T, type CelType } from "../types.js";
import { CelDuration, CelError, CelUint, celCompare, celEquals, checkDuration, checkInt, checkUint, type Val } from "../values.js";

const comparable: [string, CelType][] = [
  ["int", T.int],
  ["uint", T.uint],
  ["double", T.double],
  ["bool", T.bool],
  ["duration", T.duration],
  ["timestamp", T.timestamp],
  ["string", T.string],
  ["bytes", T.bytes],
];

const summable: [string, CelType, Val][] = [
  ["int", T.int, 0n],
  ["uint", T.uint, new CelUint(0n)],
  ["double", T.double, 0],
  ["duration", T.duration, new CelDuration(0n)],
];

function cmp(a: Val, b: Val): number {
  const c = celCompare(a, b);
  if (c === undefined) throw new CelError("NaN values cannot be ordered");
  return c;
}

function sum(list: readonly Val[], zero: Val): Val {
  let acc = zero;
  for (const x of list) {
    if (typeof acc === "bigint") acc = checkInt(acc + (x as bigint));
    else if (acc instanceof CelUint) acc = checkUint(acc.v + (x as CelUint).v);
    else if (typeof acc === "number") acc = acc + (x as number);
    else acc = checkDuration((acc as CelDuration).ns + (x as CelDuration).ns);
  }
  return acc;
}

function extreme(list: readonly Val[], sign: number, name: string): Val {
  if (list.length === 0) throw new CelError(`${name} called on empty list`);
  let best = list[0];
  for (let i = 1; i < list.length; i++) if (cmp(list[i], best) * sign > 0) best = list[i];
  return best;
}

export function listsLibrary(): Library {
  const lib = new Library();
  for (const [n, t] of comparable) {
    lib.add(
      "isSorted",
      memberOverload(`list_${n}_is_sorted_bool`, [T.list(t)], T.bool, ([l]) => {
        const list = l as Val[];
        for (let i = 1; i < list.length; i++) if (cmp(list[i - 1], list[i]) > 0) return false;
        return true;
      }),
    );
    lib.add("max", memberOverload(`list_${n}_max_${n}`, [T.list(t)], t, ([l]) => extreme(l as Val[], 1, "max")));
    lib.add("min", memberOverload(`list_${n}_min_${n}`, [T.list(t)], t, ([l]) => extreme(l as Val[], -1, "min")));
  }
  for (const [n, t, zero] of summable) lib.add("sum", memberOverload(`list_${n}_sum_${n}`, [T.list(t)], t, ([l]) => sum(l as Val[], zero)));
  lib.add(
    "indexOf",
    memberOverload("list_a_index_of_int", [T.list(A), A], T.int, ([l, x]) => BigInt((l as Val[]).findIndex((y) => celEquals(y, x)))),
  );
  lib.add(
    "lastIndexOf",
    memberOverload("list_a_last_index_of_int", [T.list(A), A], T.int, ([l, x]) => {
      const list = l as Val[];
      for (let i = list.length - 1; i >= 0; i--) if (celEquals(list[i], x)) return BigInt(i);
      return -1n;
    }),
  );
  return lib;
}

const contains = (l: readonly Val[], x: Val) => l.some((y) => celEquals(x, y));

export function setsLibrary(): Library {
  const lib = new Library();
  lib.add("sets.contains", overload("list_sets_contains_list", [T.list(A), T.list(A)], T.bool, ([a, b]) => (b as Val[]).every((x) => contains(a as Val[], x))));
  lib.add(
    "sets.equivalent",
    overload("list_sets_equivalent_list", [T.list(A), T.list(A)], T.bool, ([a, b]) => (b as Val[]).every((x) => contains(a as Val[], x)) && (a as Val[]).every((x) => contains(b as Val[], x))),
  );
  lib.add("sets.intersects", overload("list_sets_intersects_list", [T.list(A), T.list(A)], T.bool, ([a, b]) => (a as Val[]).some((x) => contains(b as Val[], x))));
  return lib;
}
