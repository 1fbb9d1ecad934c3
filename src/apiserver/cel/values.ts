/**
 * CEL runtime values. The JavaScript representation of each CEL type:
 *
 *   int → bigint, uint → CelUint, double → number, bool → boolean, string → string,
 *   bytes → Uint8Array, null → null, list → Val[] (read-only by convention), map → CelMap,
 *   timestamp → CelTimestamp, duration → CelDuration, type → CelTypeValue,
 *   optional → CelOptional, objects and extension types → CelObject subclasses.
 *
 * Errors are CelError exceptions; the interpreter turns them into values only where CEL's
 * commutative logic needs them (&&, ||, the accumulators of comprehensions).
 *
 * Lists that come from a schema with x-kubernetes-list-type set or map carry their semantics
 * (equality ignores order; `+` is a union or a merge by key) in `listSemantics`.
 */
import { formatType, T, type CelType } from "./types.js";

/** Every CEL runtime value. */
export type Val = bigint | CelUint | number | boolean | string | Uint8Array | null | readonly Val[] | CelMap | CelTimestamp | CelDuration | CelTypeValue | CelOptional | CelObject;

/** A CEL runtime error ("no such key: x", "division by zero", ...). */
export class CelError extends Error {
  constructor(
    message: string,
    /** Set for cost-limit and cancellation errors, which nothing may absorb. */
    readonly fatal = false,
  ) {
    super(message);
    this.name = "CelError";
  }
}

export const noSuchOverload = (): CelError => new CelError("no such overload");
export const costLimitExceeded = (): CelError => new CelError("operation cancelled: actual cost limit exceeded", true);

export class CelUint {
  constructor(readonly v: bigint) {}
}

export const INT64_MIN = -(1n << 63n);
export const INT64_MAX = (1n << 63n) - 1n;
export const UINT64_MAX = (1n << 64n) - 1n;

export function checkInt(v: bigint): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new CelError("integer overflow");
  return v;
}

export function checkUint(v: bigint): CelUint {
  if (v < 0n || v > UINT64_MAX) throw new CelError("unsigned integer overflow");
  return new CelUint(v);
}

/** Nanoseconds since the Unix epoch; the valid range is years 0001 to 9999. */
export class CelTimestamp {
  constructor(readonly ns: bigint) {}
}
export const MIN_TIMESTAMP_NS = -62135596800n * 1_000_000_000n;
export const MAX_TIMESTAMP_NS = 253402300799n * 1_000_000_000n + 999_999_999n;

export function checkTimestamp(ns: bigint): CelTimestamp {
  if (ns < MIN_TIMESTAMP_NS || ns > MAX_TIMESTAMP_NS) throw new CelError("timestamp overflow");
  return new CelTimestamp(ns);
}

/** A duration in nanoseconds (int64 range, as Go's time.Duration). */
export class CelDuration {
  constructor(readonly ns: bigint) {}
}

export function checkDuration(ns: bigint): CelDuration {
  if (ns < INT64_MIN || ns > INT64_MAX) throw new CelError("duration overflow");
  return new CelDuration(ns);
}

/** A type as a value (`type(x)`, `int`, `list`). */
export class CelTypeValue {
  constructor(readonly type: CelType) {}
  get name(): string {
    switch (this.type.kind) {
      case "list":
        return "list";
      case "map":
        return "map";
      case "opaque":
        return this.type.name;
      default:
        return formatType(this.type);
    }
  }
}

export class CelOptional {
  static readonly none = new CelOptional(undefined);
  private constructor(readonly value: Val | undefined) {}
  static of(v: Val): CelOptional {
    return new CelOptional(v);
  }
  hasValue(): boolean {
    return this.value !== undefined;
  }
}

/** A value of an object or extension type (schema objects, URL, Quantity, IP, ...). */
export abstract class CelObject {
  abstract readonly celType: CelType;
  /** Field selection; undefined when the field is absent. Extension types have no fields. */
  getField(_name: string): Val | undefined {
    return undefined;
  }
  hasField(name: string): boolean {
    return this.getField(name) !== undefined;
  }
  abstract equals(other: CelObject): boolean;
  /** traits.Sizer, for cost tracking; undefined when the value has no size. */
  size(): number | undefined {
    return undefined;
  }
}

/** A value of a Kubernetes extension type (URL, Quantity, IP, CIDR, Semver, NamedFormat). */
export abstract class ExtensionValue extends CelObject {}

/** A constructed message (`Name{field: value}`): its type name and the fields set. */
export class StructValue extends CelObject {
  readonly celType: CelType;
  constructor(
    readonly typeName: string,
    readonly fields: ReadonlyMap<string, Val>,
  ) {
    super();
    this.celType = { kind: "object", name: typeName };
  }
  override getField(name: string): Val | undefined {
    return this.fields.get(name);
  }
  equals(other: CelObject): boolean {
    if (!(other instanceof StructValue) || other.typeName !== this.typeName || other.fields.size !== this.fields.size) return false;
    for (const [k, v] of this.fields) {
      const o = other.fields.get(k);
      if (o === undefined || !celEquals(v, o)) return false;
    }
    return true;
  }
}

/** Map keys: int and uint share the bigint space (heterogeneous equality), strings, bools. */
export type MapKey = bigint | string | boolean;

/** A CEL map. Literal maps and schema-backed maps share this interface. */
export abstract class CelMap {
  abstract readonly size: number;
  abstract get(key: Val): Val | undefined;
  abstract keys(): Val[];
  has(key: Val): boolean {
    return this.get(key) !== undefined;
  }
}

/** The canonical lookup key of a map key value, or undefined when it cannot be a key. */
export function mapKeyOf(k: Val): MapKey | undefined {
  if (typeof k === "string" || typeof k === "bigint" || typeof k === "boolean") return k;
  if (k instanceof CelUint) return k.v;
  if (typeof k === "number" && Number.isInteger(k)) return BigInt(k);
  return undefined;
}

export class LiteralMap extends CelMap {
  private readonly m = new Map<MapKey, [Val, Val]>();
  get size(): number {
    return this.m.size;
  }
  /** Adds an entry; false when the key is already present. */
  set(k: Val, v: Val): boolean {
    const mk = mapKeyOf(k);
    if (mk === undefined || typeof k === "number") throw new CelError(`unsupported key type: ${typeNameOf(k)}`);
    if (this.m.has(mk)) return false;
    this.m.set(mk, [k, v]);
    return true;
  }
  get(key: Val): Val | undefined {
    const mk = mapKeyOf(key);
    if (mk === undefined) return undefined;
    return this.m.get(mk)?.[1];
  }
  keys(): Val[] {
    return [...this.m.values()].map((e) => e[0]);
  }
  entries(): IterableIterator<[Val, Val]> {
    return this.m.values();
  }
  /** A copy with one entry added or replaced (cel.@mapInsert). */
  with(k: Val, v: Val): LiteralMap {
    const out = new LiteralMap();
    for (const [kk, vv] of this.m.values()) out.set(kk, vv);
    const mk = mapKeyOf(k);
    if (mk === undefined) throw new CelError(`unsupported key type: ${typeNameOf(k)}`);
    out.m.set(mk, [k, v]);
    return out;
  }
}

export interface ListSemantics {
  type: "set" | "map";
  /** For map lists: the key properties (x-kubernetes-list-map-keys) as the CEL field names. */
  keys?: readonly string[];
}

const listSemanticsOf = new WeakMap<readonly Val[], ListSemantics>();

export function withListSemantics(list: Val[], s: ListSemantics): Val[] {
  listSemanticsOf.set(list, s);
  return list;
}

export function listSemantics(list: readonly Val[]): ListSemantics | undefined {
  return listSemanticsOf.get(list);
}

// ---- runtime types ------------------------------------------------------------------------

/** The CEL type of a runtime value (as `type()` sees it; lists and maps without parameters). */
export function runtimeType(v: Val): CelType {
  switch (typeof v) {
    case "bigint":
      return T.int;
    case "number":
      return T.double;
    case "boolean":
      return T.bool;
    case "string":
      return T.string;
  }
  if (v === null) return T.null;
  if (Array.isArray(v)) return T.list(T.dyn);
  if (v instanceof CelUint) return T.uint;
  if (v instanceof Uint8Array) return T.bytes;
  if (v instanceof CelMap) return T.map(T.dyn, T.dyn);
  if (v instanceof CelTimestamp) return T.timestamp;
  if (v instanceof CelDuration) return T.duration;
  if (v instanceof CelTypeValue) return T.type();
  if (v instanceof CelOptional) return T.optional(T.dyn);
  return (v as CelObject).celType;
}

/** The runtime type name used for overload dispatch ("int", "list", "map", "kubernetes.URL", ...). */
export function typeNameOf(v: Val): string {
  switch (typeof v) {
    case "bigint":
      return "int";
    case "number":
      return "double";
    case "boolean":
      return "bool";
    case "string":
      return "string";
  }
  if (v === null) return "null_type";
  if (Array.isArray(v)) return "list";
  if (v instanceof CelUint) return "uint";
  if (v instanceof Uint8Array) return "bytes";
  if (v instanceof CelMap) return "map";
  if (v instanceof CelTimestamp) return "google.protobuf.Timestamp";
  if (v instanceof CelDuration) return "google.protobuf.Duration";
  if (v instanceof CelTypeValue) return "type";
  if (v instanceof CelOptional) return "optional_type";
  const t = (v as CelObject).celType;
  return t.kind === "object" || t.kind === "opaque" ? t.name : formatType(t);
}

/** The dispatch name of a declared parameter type; undefined means "anything". */
export function dispatchName(t: CelType): string | undefined {
  switch (t.kind) {
    case "dyn":
    case "param":
    case "error":
      return undefined;
    case "list":
      return "list";
    case "map":
      return "map";
    case "type":
      return "type";
    case "opaque":
    case "object":
      return t.name;
    default:
      return formatType(t);
  }
}

// ---- equality and ordering ----------------------------------------------------------------

function numericValue(v: Val): number | bigint | undefined {
  if (typeof v === "bigint" || typeof v === "number") return v;
  if (v instanceof CelUint) return v.v;
  return undefined;
}

/** Compares int, uint and double values across types; NaN compares as undefined. */
export function compareNumbers(a: number | bigint, b: number | bigint): number | undefined {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "number") {
    if (Number.isNaN(a) || Number.isNaN(b)) return undefined;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  // int/uint against double: cel-go's compareIntDouble / compareUintDouble (the integer is
  // converted to a double unless the double lies outside the integer's range).
  const d = typeof a === "number" ? a : (b as number);
  const i = typeof a === "bigint" ? a : (b as bigint);
  if (Number.isNaN(d)) return undefined;
  const unsigned = i >= 0n && i > INT64_MAX;
  let r: number;
  if (d < (unsigned ? 0 : -(2 ** 63))) r = 1;
  else if (d > (unsigned ? 2 ** 64 : 2 ** 63)) r = -1;
  else {
    const x = Number(i);
    r = x < d ? -1 : x > d ? 1 : 0;
  }
  return typeof a === "bigint" ? r : -r;
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** A map-list item's key tuple (for map-list equality and merge). */
function mapListKey(item: Val, keys: readonly string[]): string | undefined {
  if (!(item instanceof CelObject)) return undefined;
  const parts: string[] = [];
  for (const k of keys) {
    const v = item.getField(k);
    parts.push(v === undefined ? "\u0000" : keyString(v));
  }
  return parts.join("\u0001");
}

/** A string standing for a scalar value, for set membership. */
function keyString(v: Val): string {
  if (typeof v === "string") return `s${v}`;
  if (typeof v === "bigint") return `n${v}`;
  if (v instanceof CelUint) return `n${v.v}`;
  if (typeof v === "number") return Number.isInteger(v) ? `n${BigInt(v)}` : `d${v}`;
  if (typeof v === "boolean") return `b${v}`;
  return `j${JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x))}`;
}

function listEquals(a: readonly Val[], b: readonly Val[]): boolean {
  if (a.length !== b.length) return false;
  const sem = listSemantics(a);
  if (sem?.type === "set") {
    // Order-insensitive; set items are unique.
    return a.every((x) => b.some((y) => celEquals(x, y)));
  }
  if (sem?.type === "map" && sem.keys) {
    const byKey = new Map<string, Val>();
    for (const y of b) {
      const k = mapListKey(y, sem.keys);
      if (k === undefined) return false;
      byKey.set(k, y);
    }
    return a.every((x) => {
      const k = mapListKey(x, sem.keys!);
      const y = k === undefined ? undefined : byKey.get(k);
      return y !== undefined && celEquals(x, y);
    });
  }
  for (let i = 0; i < a.length; i++) if (!celEquals(a[i], b[i])) return false;
  return true;
}

function mapEquals(a: CelMap, b: CelMap): boolean {
  if (a.size !== b.size) return false;
  for (const k of a.keys()) {
    const bv = b.get(k);
    if (bv === undefined) return false;
    if (!celEquals(a.get(k)!, bv)) return false;
  }
  return true;
}

/** Heterogeneous equality: values of different types are unequal, except numbers by value. */
export function celEquals(a: Val, b: Val): boolean {
  if (a === b) return typeof a !== "number" || !Number.isNaN(a);
  const na = numericValue(a);
  if (na !== undefined) {
    const nb = numericValue(b);
    return nb !== undefined && compareNumbers(na, nb) === 0;
  }
  if (a === null || b === null) return false;
  if (typeof a !== "object" || typeof b !== "object") return false;
  if (Array.isArray(a)) return Array.isArray(b) && listEquals(a, b);
  if (a instanceof Uint8Array) return b instanceof Uint8Array && bytesEqual(a, b);
  if (a instanceof CelMap) return b instanceof CelMap && mapEquals(a, b);
  if (a instanceof CelTimestamp) return b instanceof CelTimestamp && a.ns === b.ns;
  if (a instanceof CelDuration) return b instanceof CelDuration && a.ns === b.ns;
  if (a instanceof CelTypeValue) return b instanceof CelTypeValue && a.name === b.name;
  if (a instanceof CelOptional) {
    if (!(b instanceof CelOptional)) return false;
    if (!a.hasValue() || !b.hasValue()) return a.hasValue() === b.hasValue();
    return celEquals(a.value!, b.value!);
  }
  if (a instanceof CelObject) return b instanceof CelObject && typeNameOf(a) === typeNameOf(b) && a.equals(b);
  return false;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

/** Compares strings by code point, as Go compares UTF-8 bytes. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x < y ? -1 : 1;
    if (x > 0xffff) i++;
  }
  return a.length < b.length ? -1 : 1;
}

/** Ordering for `<` and friends; undefined for NaN; throws no such overload for unordered types. */
export function celCompare(a: Val, b: Val): number | undefined {
  const na = numericValue(a);
  if (na !== undefined) {
    const nb = numericValue(b);
    if (nb === undefined) throw noSuchOverload();
    return compareNumbers(na, nb);
  }
  if (typeof a === "string" && typeof b === "string") return compareStrings(a, b);
  if (typeof a === "boolean" && typeof b === "boolean") return a === b ? 0 : a ? 1 : -1;
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (a instanceof CelTimestamp && b instanceof CelTimestamp) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  if (a instanceof CelDuration && b instanceof CelDuration) return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
  throw noSuchOverload();
}

/** traits.Sizer: string length in code points, bytes, list and map sizes. */
export function sizeOf(v: Val): number | undefined {
  if (typeof v === "string") return codePointLength(v);
  if (Array.isArray(v)) return v.length;
  if (v instanceof Uint8Array) return v.length;
  if (v instanceof CelMap) return v.size;
  if (v instanceof CelObject) return v.size();
  return undefined;
}

export function codePointLength(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

/** Set-list union and map-list merge for `+` on lists with x-kubernetes-list-type semantics. */
export function concatLists(a: readonly Val[], b: readonly Val[]): Val[] {
  const sem = listSemantics(a);
  if (sem?.type === "set") {
    const out = [...a];
    for (const y of b) if (!out.some((x) => celEquals(x, y))) out.push(y);
    return withListSemantics(out, sem);
  }
  if (sem?.type === "map" && sem.keys) {
    const out = [...a];
    const index = new Map<string, number>();
    out.forEach((x, i) => {
      const k = mapListKey(x, sem.keys!);
      if (k !== undefined) index.set(k, i);
    });
    for (const y of b) {
      const k = mapListKey(y, sem.keys);
      const at = k === undefined ? undefined : index.get(k);
      if (at !== undefined) out[at] = y;
      else {
        if (k !== undefined) index.set(k, out.length);
        out.push(y);
      }
    }
    return withListSemantics(out, sem);
  }
  return [...a, ...b];
}

/** Whether a value is the zero value of its type (optional.ofNonZeroValue). */
export function isZeroValue(v: Val): boolean {
  if (v === null || v === false || v === "" || v === 0 || v === 0n) return true;
  if (v instanceof CelUint) return v.v === 0n;
  if (Array.isArray(v) || v instanceof Uint8Array) return v.length === 0;
  if (v instanceof CelMap) return v.size === 0;
  if (v instanceof CelDuration || v instanceof CelTimestamp) return v.ns === 0n;
  return false;
}
