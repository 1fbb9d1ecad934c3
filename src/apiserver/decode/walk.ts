/**
 * The schema walk: a JSON value (parsed body, patched object, decoded protobuf) read against a
 * built-in type of the decoding schema table the way Go reads it into the struct, and written
 * back as Go's encoding/json would marshal the struct.
 *
 * Two dialects, because kube-apiserver reaches the struct two ways:
 * - "json": encoding/json via sigs.k8s.io/json (create, update, JSON and merge patches): keys in
 *   document order, type errors saved (the first one wins) while decoding goes on, errors of
 *   custom unmarshalers (Quantity, Time, IntOrString, ...) abort at once, unknown fields as
 *   sigs.k8s.io/json's strict mode names them ("spec.template.spec.containers[0].foo").
 * - "unstructured": runtime.DefaultUnstructuredConverter.FromUnstructured (strategic merge patch
 *   results): fields in Go declaration order, the first error aborts, its own messages
 *   ("unrecognized type: int32", "cannot convert int64 to string"), unknown fields sorted.
 *
 * Normalisation (both): unknown fields are dropped; null for a pointer, slice or map field is
 * absent, for any other field Go's zero value; `omitempty` fields holding an empty value vanish;
 * quantities, times, micro-times and base64 bytes take their canonical serialised form;
 * RawExtension, JSON and FieldsV1 values are kept as they are. Absent fields stay absent: where
 * Go would print a zero value (`"containerPort": 0`) or `null` for a nil slice, the walk leaves
 * the field out (the same value to every client; documented in README.md).
 *
 * Objects are changed in place unless frozen (stored objects): those are copied on first write.
 */
import { parseQuantity, formatQuantity, QuantityError } from "../../apimachinery/quantity.js";
import { typeInfo, type TypeInfo, type ValueType } from "../generated/schema.js";
import { Base64Error, canonicalBase64 } from "./base64.js";
import { formatRFC3339, formatRFC3339Micro, isZeroInstant, parseGoTime, RFC3339, RFC3339Micro, TimeParseError } from "./gotime.js";
import { countKeys, JsonNumber, plainJson } from "./jsontext.js";

export type Dialect = "json" | "unstructured";

/** A decoding failure with the text Go's decoder gives. */
export class GoDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GoDecodeError";
  }
}

export interface WalkOptions {
  dialect: Dialect;
  /** Record unknown fields (fieldValidation Strict or Warn). */
  reportUnknown: boolean;
  /** Count the object keys seen, to compare with the text's (duplicate detection). */
  countKeys: boolean;
}

export interface WalkResult {
  value: Record<string, unknown>;
  /** `unknown field "path"` texts, deduplicated, at most 100 (sigs.k8s.io/json's cap). */
  unknown: string[];
  /** Keys seen (when counting). */
  keys: number;
}

const ABSENT: unique symbol = Symbol("absent");
type Out = unknown | typeof ABSENT;

const MAX_STRICT_ERRORS = 100;

/**
 * Serialised forms of recently seen quantities and times (the same few strings recur in every
 * body: "100m", "128Mi", timestamps of the same second); "" is a time's zero instant. Only valid
 * inputs are kept (errors carry context and are never cached). Bounded: at most MAX_REMEMBERED
 * entries per map, keys of at most MAX_REMEMBERED_KEY characters (a valid quantity or time can be
 * arbitrarily long: digits, fractional seconds); a full map is cleared.
 */
const quantityForms = new Map<string, string>();
const timeForms = new Map<string, string>();
const microTimeForms = new Map<string, string>();
const MAX_REMEMBERED = 4096;
const MAX_REMEMBERED_KEY = 64;

function remember(m: Map<string, string>, k: string, v: string): void {
  if (k.length > MAX_REMEMBERED_KEY) return;
  if (m.size >= MAX_REMEMBERED) m.clear();
  m.set(k, v);
}

const SEG_FIELD = 0;
const SEG_KEY = 1;
const SEG_INDEX = 2;

const int32Min = -2147483648;
const int32Max = 2147483647;
const int64Limit = 9223372036854775808; // 2^63, exactly representable

class Walker {
  readonly unknown: string[] = [];
  private readonly seen = new Set<string>();
  saved: GoDecodeError | undefined;
  keys = 0;
  /** Path segments: field names, map keys, list indexes. */
  private readonly segs: Array<string | number> = [];
  private readonly segKinds: number[] = [];
  /** For each field segment, the name of the struct holding the field (Go's errorContext.Struct). */
  private readonly structs: string[] = [];
  /** >0 inside a custom unmarshaler's own decoding (JSONSchemaPropsOrBool, ...): no strict checks. */
  private inner = 0;
  /** The error context at the outermost custom unmarshaler (Go's addErrorContext overwrites with it). */
  private innerContext: { struct: string; field: string } | undefined;

  constructor(readonly opts: WalkOptions) {}

  // ---- paths and errors ---------------------------------------------------------------------

  private push(seg: string | number, kind: number, struct?: string): void {
    this.segs.push(seg);
    this.segKinds.push(kind);
    if (kind === SEG_FIELD) this.structs.push(struct!);
  }

  private pop(): void {
    this.segs.pop();
    if (this.segKinds.pop() === SEG_FIELD) this.structs.pop();
  }

  /** sigs.k8s.io/json's strict path ("a.b[0].c"), or FromUnstructured's (no map keys). */
  private strictPath(last: string): string {
    let s = "";
    const unstructured = this.opts.dialect === "unstructured";
    for (let i = 0; i < this.segs.length; i++) {
      const k = this.segKinds[i];
      if (k === SEG_INDEX) s += `[${this.segs[i]}]`;
      else if (k === SEG_KEY && unstructured) continue;
      else s += s === "" ? String(this.segs[i]) : `.${this.segs[i]}`;
    }
    return s === "" ? last : `${s}.${last}`;
  }

  private recordUnknown(key: string): void {
    if (!this.opts.reportUnknown || this.inner > 0) return;
    const text = `unknown field ${JSON.stringify(this.strictPath(key))}`;
    if (this.unknown.length >= MAX_STRICT_ERRORS || this.seen.has(text)) return;
    this.seen.add(text);
    this.unknown.push(text);
  }

  /** Go's errorContext: the struct of the innermost field and the field names from the root. */
  private context(): { struct: string; field: string } | undefined {
    if (this.innerContext) return this.innerContext;
    if (this.structs.length === 0) return undefined;
    let field = "";
    for (let i = 0; i < this.segs.length; i++) {
      if (this.segKinds[i] !== SEG_FIELD) continue;
      field += field === "" ? String(this.segs[i]) : `.${this.segs[i]}`;
    }
    return { struct: this.structs[this.structs.length - 1], field };
  }

  /** json.UnmarshalTypeError's text, with the current error context. */
  private typeErrorText(value: string, goType: string): string {
    const c = this.context();
    if (c) return `json: cannot unmarshal ${value} into Go struct field ${c.struct}.${c.field} of type ${goType}`;
    return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
  }

  /** A type mismatch: saved (decoding goes on) in the json dialect, fatal otherwise. */
  private typeError(value: string, goType: string): void {
    if (this.opts.dialect === "unstructured") throw new GoDecodeError(`unrecognized type: ${goType}`);
    const err = new GoDecodeError(this.typeErrorText(value, goType));
    if (this.inner > 0) throw err;
    this.saved ??= err;
  }

  /** An error a custom unmarshaler returns: decoding stops. */
  private fatal(message: string): never {
    throw new GoDecodeError(message);
  }

  // ---- values -------------------------------------------------------------------------------

  /** Go's name for a JSON value in json type errors. */
  private static jsonKind(v: unknown): string {
    if (typeof v === "string") return "string";
    if (typeof v === "boolean") return "bool";
    if (typeof v === "number" || v instanceof JsonNumber) return "number";
    if (Array.isArray(v)) return "array";
    return "object";
  }

  /** reflect.Kind of an unstructured value. */
  private static unstructuredKind(v: unknown): string {
    if (typeof v === "string") return "string";
    if (typeof v === "boolean") return "bool";
    if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
    if (v instanceof JsonNumber) return /[.eE]/.test(v.text) ? "float64" : "int64";
    if (Array.isArray(v)) return "slice";
    return "map";
  }

  /** The literal of a number as Go's json would have read it. */
  private static numberText(v: number | JsonNumber): string {
    return typeof v === "number" ? String(v) : v.text;
  }

  /** A number for an integer field: Go's strconv.ParseInt of the literal, range-checked. */
  private integer(v: number | JsonNumber, kind: "int32" | "int64" | "uint32" | "uint64", goType: string): Out {
    const text = Walker.numberText(v);
    let n: number;
    if (typeof v === "number") {
      n = v;
      if (!Number.isInteger(n)) return this.badNumber(text, goType, v);
    } else {
      if (!/^-?[0-9]+$/.test(v.text)) return this.badNumber(text, goType, v);
      n = Number(v.text);
    }
    let ok: boolean;
    switch (kind) {
      case "int32":
        ok = n >= int32Min && n <= int32Max;
        break;
      case "int64":
        ok = typeof v === "number" ? n >= -int64Limit && n < int64Limit : inInt64(v.text);
        break;
      case "uint32":
        ok = n >= 0 && n <= 4294967295;
        break;
      case "uint64":
        ok = n >= 0 && (typeof v === "number" ? n < 2 * int64Limit : BigInt(v.text) < 1n << 64n);
        break;
    }
    if (!ok) {
      if (this.opts.dialect === "unstructured") return wrapInt(n, kind);
      return this.badNumber(text, goType, v);
    }
    return n;
  }

  private badNumber(text: string, goType: string, v: number | JsonNumber): Out {
    if (this.opts.dialect === "unstructured") {
      // A float with a fraction: FromUnstructured refuses it; an integral one converts.
      const n = typeof v === "number" ? v : Number(v.text);
      if (Number.isInteger(n)) return n;
      throw new GoDecodeError(`cannot convert float64 to ${goType}`);
    }
    this.typeError(`number ${text}`, goType);
    return ABSENT;
  }

  /** A value of type `t`; goTypes[level] is its Go type string. Returns ABSENT for "not set". */
  value(v: unknown, t: ValueType, goTypes: readonly string[], level: number, pointer: boolean): Out {
    const goType = goTypes[level] ?? "";
    if (v === null || v === undefined) return this.zero(t, pointer);
    switch (t.kind) {
      case "scalar":
        return this.scalar(v, t.scalar, goType);
      case "struct": {
        if (typeof v !== "object" || Array.isArray(v) || v instanceof JsonNumber) {
          if (this.opts.dialect === "unstructured") throw new GoDecodeError(`cannot restore struct from: ${Walker.unstructuredKind(v)}`);
          this.typeError(Walker.jsonKind(v), goType);
          return ABSENT;
        }
        const info = typeInfo(t.type);
        if (!info) return v;
        return this.struct(v as Record<string, unknown>, info);
      }
      case "list": {
        if (!Array.isArray(v)) {
          if (this.opts.dialect === "unstructured") throw new GoDecodeError(`cannot restore slice from ${Walker.unstructuredKind(v)}`);
          this.typeError(Walker.jsonKind(v), goType);
          return ABSENT;
        }
        return this.list(v, t.element, goTypes, level + 1);
      }
      case "map": {
        if (typeof v !== "object" || Array.isArray(v) || v instanceof JsonNumber) {
          if (this.opts.dialect === "unstructured") throw new GoDecodeError(`cannot restore map from ${Walker.unstructuredKind(v)}`);
          this.typeError(Walker.jsonKind(v), goType);
          return ABSENT;
        }
        return this.map(v as Record<string, unknown>, t.value, goTypes, level + 1);
      }
      case "any":
        if (this.opts.countKeys) this.keys += countKeys(v);
        return plainJson(v);
      case "special":
        return this.special(v, t.special, goType);
    }
  }

  /** The value a JSON null (or, unstructured, a missing value) decodes to. */
  private zero(t: ValueType, pointer: boolean): Out {
    if (pointer) return ABSENT;
    switch (t.kind) {
      case "scalar":
        switch (t.scalar) {
          case "string":
            return "";
          case "bool":
            return false;
          case "bytes":
            return ABSENT;
          default:
            return 0;
        }
      case "struct":
        return {};
      case "special":
        // Quantity and IntOrString decode null into their zero values, which print as "0" / 0.
        if (t.special === "Quantity") return "0";
        if (t.special === "IntOrString") return 0;
        return ABSENT;
      default:
        return ABSENT;
    }
  }

  private scalar(v: unknown, kind: string, goType: string): Out {
    const unstructured = this.opts.dialect === "unstructured";
    switch (kind) {
      case "string":
        if (typeof v === "string") return v;
        if (unstructured) {
          const k = Walker.unstructuredKind(v);
          if (k === "int64") throw new GoDecodeError(`cannot convert int64 to ${goType}`);
          throw new GoDecodeError("unrecognized type: string");
        }
        this.typeError(Walker.jsonKind(v), goType);
        return ABSENT;
      case "bool":
        if (typeof v === "boolean") return v;
        if (unstructured) throw new GoDecodeError("unrecognized type: bool");
        this.typeError(Walker.jsonKind(v), goType);
        return ABSENT;
      case "int32":
      case "int64":
      case "uint32":
      case "uint64":
        if (typeof v === "number" || v instanceof JsonNumber) return this.integer(v, kind, goType);
        if (unstructured) throw new GoDecodeError(`unrecognized type: ${kind}`);
        this.typeError(Walker.jsonKind(v), goType);
        return ABSENT;
      case "float64": {
        if (typeof v === "number" || v instanceof JsonNumber) {
          const n = typeof v === "number" ? v : Number(v.text);
          if (!Number.isFinite(n)) {
            this.typeError(`number ${Walker.numberText(v)}`, goType);
            return ABSENT;
          }
          return n;
        }
        if (unstructured) throw new GoDecodeError("unrecognized type: float64");
        this.typeError(Walker.jsonKind(v), goType);
        return ABSENT;
      }
      case "bytes":
        return this.bytes(v, goType);
    }
    return v;
  }

  private bytes(v: unknown, goType: string): Out {
    const unstructured = this.opts.dialect === "unstructured";
    if (typeof v === "string") {
      try {
        return canonicalBase64(v);
      } catch (err) {
        if (!(err instanceof Base64Error)) throw err;
        if (unstructured) throw new GoDecodeError(`error decoding from json: ${err.message}`);
        // encoding/json saves the base64 error as it is (no field context) and goes on.
        const e = new GoDecodeError(err.message);
        if (this.inner > 0) throw e;
        this.saved ??= e;
        return ABSENT;
      }
    }
    if (Array.isArray(v)) {
      // A JSON array of numbers decodes into []byte element by element (Go allows it).
      const out: number[] = [];
      for (let i = 0; i < v.length; i++) {
        this.push(i, SEG_INDEX);
        const x = v[i];
        if (x === null) out.push(0);
        else if (typeof x === "number" || x instanceof JsonNumber) {
          const n = this.integer(x, "uint32", "uint8");
          if (typeof n === "number") {
            if (n > 255) {
              if (unstructured) out.push(n & 0xff);
              else this.typeError(`number ${Walker.numberText(x)}`, "uint8");
            } else out.push(n);
          }
        } else if (unstructured) throw new GoDecodeError("unrecognized type: uint8");
        else this.typeError(Walker.jsonKind(x), "uint8");
        this.pop();
      }
      return Buffer.from(out).toString("base64");
    }
    if (unstructured) throw new GoDecodeError(`cannot restore slice from ${Walker.unstructuredKind(v)}`);
    this.typeError(Walker.jsonKind(v), goType);
    return ABSENT;
  }

  private special(v: unknown, kind: string, goType: string): Out {
    const unstructured = this.opts.dialect === "unstructured";
    switch (kind) {
      case "Quantity": {
        // UnmarshalJSON: the string's content, or the raw literal (numbers; anything else fails the grammar).
        const raw = typeof v === "string" ? v : typeof v === "number" || v instanceof JsonNumber ? Walker.numberText(v) : "{";
        const known = quantityForms.get(raw);
        if (known !== undefined) return known;
        try {
          const q = formatQuantity(parseQuantity(raw.trim()));
          remember(quantityForms, raw, q);
          return q;
        } catch (err) {
          if (err instanceof QuantityError) this.fatal(err.message);
          throw err;
        }
      }
      case "IntOrString": {
        if (typeof v === "string") return v;
        // json.Unmarshal into the int32: its type errors carry the field's context (addErrorContext).
        if (typeof v === "number" || v instanceof JsonNumber) {
          const text = Walker.numberText(v);
          const n = typeof v === "number" ? v : /^-?[0-9]+$/.test(v.text) ? Number(v.text) : NaN;
          if (Number.isInteger(n) && n >= int32Min && n <= int32Max) return n;
          this.fatal(this.customTypeError(`number ${text}`, "int32"));
        }
        this.fatal(this.customTypeError(Walker.jsonKind(v), "int32"));
        break;
      }
      case "Time":
      case "MicroTime": {
        if (typeof v !== "string") this.fatal(this.customTypeError(Walker.jsonKind(v), "string"));
        const micro = kind === "MicroTime";
        const forms = micro ? microTimeForms : timeForms;
        const known = forms.get(v as string);
        if (known !== undefined) return known === "" ? ABSENT : known;
        try {
          const t = parseGoTime(micro ? RFC3339Micro : RFC3339, v as string);
          const out = isZeroInstant(t) ? "" : micro ? formatRFC3339Micro(t) : formatRFC3339(t);
          remember(forms, v as string, out);
          return out === "" ? ABSENT : out;
        } catch (err) {
          if (err instanceof TimeParseError) this.fatal(err.message);
          throw err;
        }
      }
      case "Duration":
        if (typeof v !== "string") this.fatal(this.customTypeError(Walker.jsonKind(v), "string"));
        return v;
      case "RawExtension":
      case "JSON":
      case "FieldsV1":
        if (this.opts.countKeys) this.keys += countKeys(v);
        return plainJson(v);
      case "JSONSchemaPropsOrBool":
        if (typeof v === "boolean") return v;
        if (typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber)) return this.innerStruct(v as Record<string, unknown>, "apiextensions/v1.JSONSchemaProps");
        this.fatal("boolean or JSON schema expected");
        break;
      case "JSONSchemaPropsOrArray":
      case "JSONSchemaPropsOrStringArray": {
        if (Array.isArray(v)) {
          const elem: ValueType =
            kind === "JSONSchemaPropsOrArray" ? { kind: "struct", type: "apiextensions/v1.JSONSchemaProps" } : { kind: "scalar", scalar: "string" };
          return this.innerList(v, elem, kind === "JSONSchemaPropsOrArray" ? "v1.JSONSchemaProps" : "string");
        }
        if (typeof v === "object" && !(v instanceof JsonNumber)) return this.innerStruct(v as Record<string, unknown>, "apiextensions/v1.JSONSchemaProps");
        // Neither an object nor an array: an empty value, which marshals as null.
        return ABSENT;
      }
    }
    void unstructured;
    void goType;
    return v;
  }

  /** The text of a type error raised inside a custom unmarshaler (its json.Unmarshal call). */
  private customTypeError(value: string, goType: string): string {
    if (this.opts.dialect === "unstructured") return `json: cannot unmarshal ${value} into Go value of type ${goType}`;
    return this.typeErrorText(value, goType);
  }

  /** A custom unmarshaler decoding a struct of its own (non-strict, errors fatal, outer context). */
  private innerStruct(v: Record<string, unknown>, key: string): Out {
    const info = typeInfo(key)!;
    return this.insideCustom(() => this.struct(v, info));
  }

  private innerList(v: unknown[], elem: ValueType, goType: string): Out {
    return this.insideCustom(() => this.list(v, elem, [`[]${goType}`, goType], 1));
  }

  private insideCustom(fn: () => Out): Out {
    if (this.inner === 0 && this.opts.dialect === "json") this.innerContext = this.context();
    this.inner++;
    try {
      return fn();
    } finally {
      this.inner--;
      if (this.inner === 0) this.innerContext = undefined;
    }
  }

  private list(v: unknown[], elem: ValueType, goTypes: readonly string[], level: number): Out {
    let out = v;
    for (let i = 0; i < v.length; i++) {
      const x = v[i];
      this.push(i, SEG_INDEX);
      let nx = this.value(x, elem, goTypes, level, false);
      this.pop();
      if (nx === ABSENT) nx = null;
      if (nx !== x) {
        if (out === v && Object.isFrozen(v)) out = v.slice();
        out[i] = nx;
      }
    }
    return out;
  }

  private map(v: Record<string, unknown>, elem: ValueType, goTypes: readonly string[], level: number): Out {
    let out = v;
    for (const k in v) {
      if (this.opts.countKeys) this.keys++;
      const x = v[k];
      this.push(k, SEG_KEY);
      let nx = this.value(x, elem, goTypes, level, false);
      this.pop();
      if (nx === ABSENT) nx = null;
      if (nx !== x) {
        if (out === v && Object.isFrozen(v)) out = { ...v };
        out[k] = nx;
      }
    }
    return out;
  }

  /** A struct value: its fields decoded, unknown fields dropped, empty omitempty fields removed. */
  struct(v: Record<string, unknown>, info: TypeInfo): Record<string, unknown> {
    let out = v;
    const fields = info.fields;
    const structName = structNameOf(info);
    const json = this.opts.dialect === "json";
    const counting = this.opts.countKeys;
    // json: keys in document order; unstructured: the struct's fields in Go declaration order.
    const keys: Iterable<string> = json ? Object.keys(v) : fields.keys();
    for (const key of keys) {
      const f = fields.get(key);
      if (json && counting) this.keys++;
      if (f === undefined) {
        if (counting) this.keys += countKeys(v[key]);
        this.recordUnknown(key);
        if (out === v && Object.isFrozen(v)) out = { ...v };
        delete out[key];
        continue;
      }
      if (!json && !Object.hasOwn(v, key)) continue;
      const x = v[key];
      this.push(key, SEG_FIELD, structName);
      const nx = this.value(x, f.type, f.goTypes, 0, f.pointer);
      this.pop();
      if (nx === ABSENT || (f.omitempty && !f.pointer && isEmpty(nx, f.type))) {
        if (x === undefined) continue;
        if (out === v && Object.isFrozen(v)) out = { ...v };
        delete out[key];
      } else if (nx !== x) {
        if (out === v && Object.isFrozen(v)) out = { ...v };
        out[key] = nx;
      }
    }
    if (!json) {
      for (const key in v) {
        if (fields.has(key)) continue;
        this.recordUnknown(key);
        if (out === v && Object.isFrozen(v)) out = { ...v };
        delete out[key];
      }
    }
    return out;
  }
}

const structNames = new WeakMap<TypeInfo, string>();

/** "apps/v1.DeploymentSpec" → "DeploymentSpec" (Go's errorContext.Struct.Name()). */
function structNameOf(info: TypeInfo): string {
  let n = structNames.get(info);
  if (n === undefined) {
    n = info.key.slice(info.key.indexOf(".") + 1);
    structNames.set(info, n);
  }
  return n;
}

/** Go's isEmptyValue for the kinds omitempty can drop (structs and special types never are). */
function isEmpty(v: unknown, t: ValueType): boolean {
  switch (t.kind) {
    case "scalar":
      return v === "" || v === 0 || v === false;
    case "list":
      return Array.isArray(v) && v.length === 0;
    case "map":
      if (typeof v !== "object" || v === null) return false;
      for (const _ in v) return false;
      return true;
    default:
      return false;
  }
}

function inInt64(text: string): boolean {
  const b = BigInt(text);
  return b >= -(1n << 63n) && b < 1n << 63n;
}

/** Go's reflect Convert between integer kinds: the value wraps. */
function wrapInt(n: number, kind: string): number {
  const b = BigInt(Math.trunc(n));
  switch (kind) {
    case "int32":
      return Number(BigInt.asIntN(32, b));
    case "uint32":
      return Number(BigInt.asUintN(32, b));
    case "uint64":
      return Number(BigInt.asUintN(64, b));
    default:
      return Number(BigInt.asIntN(64, b));
  }
}

/**
 * Decodes `obj` as the struct type `info` (in place unless frozen). Throws GoDecodeError for
 * an error that stops decoding; the json dialect's saved type error is thrown after the walk.
 */
export function walkObject(obj: Record<string, unknown>, info: TypeInfo, opts: WalkOptions): WalkResult {
  const w = new Walker(opts);
  const value = w.struct(obj, info);
  if (w.saved) throw w.saved;
  if (opts.dialect === "unstructured") w.unknown.sort();
  return { value, unknown: w.unknown, keys: w.keys };
}
