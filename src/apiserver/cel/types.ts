/**
 * CEL types as the checker sees them (cel-go common/types.Type): primitives, list, map, type,
 * opaque (optional_type, net.IP, ...), struct-like object types (the schema-derived `self`
 * types and Kubernetes' URL, Quantity, Semver, NamedFormat), and type parameters used by
 * overload signatures and by the checker's inference.
 *
 * Type names print as cel-go's FormatCELType does, because compile errors quote them:
 * `list(int)`, `map(string, int)`, `optional_type(string)`, `google.protobuf.Timestamp`.
 */

export type PrimitiveKind =
  | "int"
  | "uint"
  | "double"
  | "bool"
  | "string"
  | "bytes"
  | "null_type"
  | "dyn"
  | "error"
  | "timestamp"
  | "duration";

export type CelType =
  | { readonly kind: PrimitiveKind }
  | { readonly kind: "list"; readonly elem: CelType }
  | { readonly kind: "map"; readonly key: CelType; readonly value: CelType }
  | { readonly kind: "type"; readonly param?: CelType }
  | { readonly kind: "opaque"; readonly name: string; readonly params: readonly CelType[] }
  | { readonly kind: "object"; readonly name: string; readonly fields?: ObjectFields }
  | { readonly kind: "param"; readonly name: string };

/** The fields of an object type: name → type. A lookup function so schema types can be lazy. */
export interface ObjectFields {
  field(name: string): CelType | undefined;
}

const prim = (kind: PrimitiveKind): CelType => ({ kind });

export const T = {
  int: prim("int"),
  uint: prim("uint"),
  double: prim("double"),
  bool: prim("bool"),
  string: prim("string"),
  bytes: prim("bytes"),
  null: prim("null_type"),
  dyn: prim("dyn"),
  error: prim("error"),
  timestamp: prim("timestamp"),
  duration: prim("duration"),
  list: (elem: CelType): CelType => ({ kind: "list", elem }),
  map: (key: CelType, value: CelType): CelType => ({ kind: "map", key, value }),
  type: (param?: CelType): CelType => (param ? { kind: "type", param } : { kind: "type" }),
  opaque: (name: string, ...params: CelType[]): CelType => ({ kind: "opaque", name, params }),
  optional: (t: CelType): CelType => ({ kind: "opaque", name: "optional_type", params: [t] }),
  object: (name: string, fields?: ObjectFields): CelType => (fields ? { kind: "object", name, fields } : { kind: "object", name }),
  param: (name: string): CelType => ({ kind: "param", name }),
};

/** FormatCELType. */
export function formatType(t: CelType): string {
  switch (t.kind) {
    case "list":
      return `list(${formatType(t.elem)})`;
    case "map":
      return `map(${formatType(t.key)}, ${formatType(t.value)})`;
    case "type":
      return t.param ? `type(${formatType(t.param)})` : "type";
    case "opaque":
      return t.params.length ? `${t.name}(${t.params.map(formatType).join(", ")})` : t.name;
    case "object":
    case "param":
      return t.name;
    case "timestamp":
      return "google.protobuf.Timestamp";
    case "duration":
      return "google.protobuf.Duration";
    default:
      return t.kind;
  }
}

export function isOptionalType(t: CelType): t is { kind: "opaque"; name: string; params: readonly CelType[] } {
  return t.kind === "opaque" && t.name === "optional_type";
}

export function isDynOrError(t: CelType): boolean {
  return t.kind === "dyn" || t.kind === "error";
}

/** Structural equality of types (type parameters by name, objects by name). */
export function typeEquals(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "list":
      return typeEquals(a.elem, (b as typeof a).elem);
    case "map":
      return typeEquals(a.key, (b as typeof a).key) && typeEquals(a.value, (b as typeof a).value);
    case "type": {
      const bp = (b as typeof a).param;
      if (!a.param || !bp) return !a.param && !bp;
      return typeEquals(a.param, bp);
    }
    case "opaque": {
      const bo = b as typeof a;
      return a.name === bo.name && a.params.length === bo.params.length && a.params.every((p, i) => typeEquals(p, bo.params[i]));
    }
    case "object":
    case "param":
      return a.name === (b as typeof a).name;
    default:
      return true;
  }
}

/** Type parameter substitutions built while checking one expression. */
export type Substitutions = Map<string, CelType>;

/** The type with every bound type parameter replaced; unbound ones become dyn when `finalize`. */
export function substitute(t: CelType, subs: Substitutions, finalize: boolean): CelType {
  switch (t.kind) {
    case "param": {
      const bound = subs.get(t.name);
      if (bound) return substitute(bound, subs, finalize);
      return finalize ? T.dyn : t;
    }
    case "list":
      return T.list(substitute(t.elem, subs, finalize));
    case "map":
      return T.map(substitute(t.key, subs, finalize), substitute(t.value, subs, finalize));
    case "type":
      return t.param ? T.type(substitute(t.param, subs, finalize)) : t;
    case "opaque":
      return t.params.length ? { kind: "opaque", name: t.name, params: t.params.map((p) => substitute(p, subs, finalize)) } : t;
    default:
      return t;
  }
}

function occurs(name: string, t: CelType, subs: Substitutions): boolean {
  switch (t.kind) {
    case "param": {
      if (t.name === name) return true;
      const b = subs.get(t.name);
      return b ? occurs(name, b, subs) : false;
    }
    case "list":
      return occurs(name, t.elem, subs);
    case "map":
      return occurs(name, t.key, subs) || occurs(name, t.value, subs);
    case "type":
      return t.param ? occurs(name, t.param, subs) : false;
    case "opaque":
      return t.params.some((p) => occurs(name, p, subs));
    default:
      return false;
  }
}

/** Whether null may stand where `t` is expected (messages, opaque values, timestamps, durations). */
function nullAssignable(t: CelType): boolean {
  return t.kind === "object" || t.kind === "opaque" || t.kind === "timestamp" || t.kind === "duration" || t.kind === "null_type";
}

/**
 * isAssignable(t1 := expected, t2 := actual) with type-parameter binding (cel-go checker's
 * internalIsAssignable). Substitutions are updated only when the whole check succeeds.
 */
export function isAssignable(expected: CelType, actual: CelType, subs: Substitutions): boolean {
  const added: string[] = [];
  if (assign(expected, actual, subs, added)) return true;
  for (const k of added) subs.delete(k);
  return false;
}

/** Every parameter is assignable; on failure the bindings made are undone. */
export function allAssignable(expected: readonly CelType[], actual: readonly CelType[], subs: Substitutions): boolean {
  const added: string[] = [];
  for (let i = 0; i < expected.length; i++) {
    if (!assign(expected[i], actual[i], subs, added)) {
      for (const k of added) subs.delete(k);
      return false;
    }
  }
  return true;
}

function bind(subs: Substitutions, added: string[], name: string, t: CelType): true {
  subs.set(name, t);
  added.push(name);
  return true;
}

function assign(t1: CelType, t2: CelType, subs: Substitutions, added: string[]): boolean {
  if (t1.kind === "param") {
    const b = subs.get(t1.name);
    if (b) return assign(b, t2, subs, added);
    if (t2.kind === "param" && t2.name === t1.name) return true;
    if (occurs(t1.name, t2, subs)) return false;
    return bind(subs, added, t1.name, t2);
  }
  if (t2.kind === "param") {
    const b = subs.get(t2.name);
    if (b) return assign(t1, b, subs, added);
    if (occurs(t2.name, t1, subs)) return false;
    return bind(subs, added, t2.name, t1);
  }
  if (isDynOrError(t1) || isDynOrError(t2)) return true;
  if (t1.kind === "null_type" && nullAssignable(t2)) return true;
  if (t2.kind === "null_type" && nullAssignable(t1)) return true;
  if (t1.kind !== t2.kind) return false;
  switch (t1.kind) {
    case "list":
      return assign(t1.elem, (t2 as typeof t1).elem, subs, added);
    case "map":
      return assign(t1.key, (t2 as typeof t1).key, subs, added) && assign(t1.value, (t2 as typeof t1).value, subs, added);
    case "type":
      // Type values compare at runtime; their parameters do not constrain assignment.
      return true;
    case "opaque": {
      const o2 = t2 as typeof t1;
      if (t1.name !== o2.name || t1.params.length !== o2.params.length) return false;
      return t1.params.every((p, i) => assign(p, o2.params[i], subs, added));
    }
    case "object":
      return t1.name === (t2 as typeof t1).name;
    default:
      return true;
  }
}

/** Whether `a` is dyn (or a type parameter) wherever it differs from `b`: the more general of two assignable types. */
export function lessSpecific(a: CelType, b: CelType): boolean {
  if (a.kind === "dyn" || a.kind === "param" || a.kind === "error" || b.kind === "null_type") return true;
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "list":
      return lessSpecific(a.elem, (b as typeof a).elem);
    case "map":
      return lessSpecific(a.key, (b as typeof a).key) && lessSpecific(a.value, (b as typeof a).value);
    case "opaque":
      return a.params.every((p, i) => lessSpecific(p, (b as typeof a).params[i] ?? T.dyn));
    default:
      return true;
  }
}

/** The most specific type both may be assigned to: equal types stay, anything else joins as dyn. */
export function joinTypes(a: CelType, b: CelType): CelType {
  if (typeEquals(a, b)) return a;
  if (a.kind === "list" && b.kind === "list") return T.list(joinTypes(a.elem, b.elem));
  if (a.kind === "map" && b.kind === "map") return T.map(joinTypes(a.key, b.key), joinTypes(a.value, b.value));
  return T.dyn;
}
