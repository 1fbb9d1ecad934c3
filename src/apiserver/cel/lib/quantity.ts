/**
 * Kubernetes' quantity library (library/quantity.go): quantity(string), isQuantity(string),
 * sign, isInteger, asInteger, asApproximateFloat, add and sub (Quantity or int), compareTo,
 * isGreaterThan, isLessThan, and equality by value. Quantities are exact nano-unit bigints
 * (apiserver/registry/quantity), as resource.Quantity compares them.
 */
import { quantityFormatError, quantityNanos } from "../../../apimachinery/quantity.js";
import { Library, memberOverload, overload } from "../decls.js";
import { T } from "../types.js";
import { CelError, ExtensionValue, INT64_MAX, INT64_MIN, type CelObject, type Val } from "../values.js";

export const QuantityType = T.object("kubernetes.Quantity");
const NANO = 1_000_000_000n;

class QuantityValue extends ExtensionValue {
  readonly celType = QuantityType;
  constructor(readonly nanos: bigint) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof QuantityValue && other.nanos === this.nanos;
  }
}

function parse(s: string): QuantityValue {
  const n = quantityNanos(s);
  if (n === undefined) throw new CelError(quantityFormatError);
  return new QuantityValue(n);
}

const q = (v: Val) => (v as QuantityValue).nanos;
const cmp = (a: bigint, b: bigint) => (a < b ? -1n : a > b ? 1n : 0n);

function asInteger(n: bigint): bigint {
  if (n % NANO !== 0n) throw new CelError("cannot convert value to integer");
  const i = n / NANO;
  if (i < INT64_MIN || i > INT64_MAX) throw new CelError("cannot convert value to integer");
  return i;
}

export function quantityLibrary(): Library {
  const lib = new Library();
  lib.add("quantity", overload("string_to_quantity", [T.string], QuantityType, ([s]) => parse(s as string)));
  lib.add("isQuantity", overload("is_quantity_string", [T.string], T.bool, ([s]) => quantityNanos(s as string) !== undefined));
  lib.add("sign", memberOverload("quantity_sign", [QuantityType], T.int, ([v]) => cmp(q(v), 0n)));
  lib.add("isInteger", memberOverload("quantity_is_integer", [QuantityType], T.bool, ([v]) => q(v) % NANO === 0n && q(v) / NANO >= INT64_MIN && q(v) / NANO <= INT64_MAX));
  lib.add("asInteger", memberOverload("quantity_get_integer", [QuantityType], T.int, ([v]) => asInteger(q(v))));
  lib.add("asApproximateFloat", memberOverload("quantity_get_float", [QuantityType], T.double, ([v]) => Number(q(v)) / 1e9));
  lib.add(
    "add",
    memberOverload("quantity_add", [QuantityType, QuantityType], QuantityType, ([a, b]) => new QuantityValue(q(a) + q(b))),
    memberOverload("quantity_add_int", [QuantityType, T.int], QuantityType, ([a, b]) => new QuantityValue(q(a) + (b as bigint) * NANO)),
  );
  lib.add(
    "sub",
    memberOverload("quantity_sub", [QuantityType, QuantityType], QuantityType, ([a, b]) => new QuantityValue(q(a) - q(b))),
    memberOverload("quantity_sub_int", [QuantityType, T.int], QuantityType, ([a, b]) => new QuantityValue(q(a) - (b as bigint) * NANO)),
  );
  lib.add("isLessThan", memberOverload("quantity_less", [QuantityType, QuantityType], T.bool, ([a, b]) => q(a) < q(b)));
  lib.add("isGreaterThan", memberOverload("quantity_greater", [QuantityType, QuantityType], T.bool, ([a, b]) => q(a) > q(b)));
  lib.add("compareTo", memberOverload("quantity_compare_to", [QuantityType, QuantityType], T.int, ([a, b]) => cmp(q(a), q(b))));
  return lib;
}
