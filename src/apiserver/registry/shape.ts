/**
 * Reading request bodies whose shape is not guaranteed. A body reaches a strategy as decoded
 * JSON/YAML/protobuf: until decoding checks every field against the kind's schema, a field
 * may hold any JSON value. The strategies of the cluster-side API groups (admission, storage,
 * scheduling, certificates, flow control, DRA, ...) read their input through these accessors
 * so that an unexpected shape is treated as absent (and left for schema decoding to reject)
 * instead of throwing, which would answer 500.
 */
import { FieldError } from "../../apimachinery/fielderrors.js";
import type { LabelSelector } from "../../apimachinery/api/meta/v1.js";
import type { KubeObject } from "../../apimachinery/types.js";

/** A JSON object. */
export type Obj = Record<string, unknown>;

/** `v` when it is a JSON object (not null, not an array), else undefined. */
export function rec(v: unknown): Obj | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
}

/** `v` when it is an array, else []. The element type is the caller's claim, not checked. */
export function list<T = unknown>(v: unknown): T[] {
  return Array.isArray(v) ? (v as T[]) : [];
}

/** `v` when it is a JSON object, else a fresh {} (reading through absent or misshapen parents). */
export function objOf(v: unknown): Obj {
  return rec(v) ?? {};
}

/** The objects of an array (other elements read as {}), [] when not an array. */
export function records(v: unknown): Obj[] {
  return list(v).map((x) => rec(x) ?? {});
}

/** `v` when it is a string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** `v` when it is a string, else "" (Go's zero value). */
export function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** `v` when it is a finite number, else undefined. */
export function num(v: unknown): number | undefined {
  return typeof v === "number" && Number.isFinite(v) ? v : undefined;
}

/** `v` when it is a boolean, else undefined. */
export function bool(v: unknown): boolean | undefined {
  return typeof v === "boolean" ? v : undefined;
}

/** The strings of an array (other elements skipped), [] when not an array. */
export function strings(v: unknown): string[] {
  return list(v).filter((x): x is string => typeof x === "string");
}

/** A string-to-string map (non-string values skipped), undefined when not an object. */
export function stringMap(v: unknown): Record<string, string> | undefined {
  const o = rec(v);
  if (!o) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(o)) if (typeof x === "string") out[k] = x;
  return out;
}

/** `obj[field]` as an object, created (and stored) when absent or of another shape. */
export function objAt(o: Obj, field: string): Obj {
  let c = rec(o[field]);
  if (!c) {
    c = {};
    o[field] = c;
  }
  return c;
}

/** The object's top-level fields as a JSON object (for kinds whose payload is not under `spec`). */
export function fieldsOf(obj: KubeObject): Obj {
  return obj as unknown as Obj;
}

/** Whether `o` has an own field `k` whose value is not undefined or null (a Go pointer that is set). */
export function has(o: Obj | undefined, k: string): boolean {
  return o !== undefined && Object.prototype.hasOwnProperty.call(o, k) && o[k] !== undefined && o[k] !== null;
}

/**
 * A field error whose bad value is printed as given, for values Go prints in its own syntax
 * (a []byte is `[]byte{0x2d, ...}`, a struct `v1.Foo{...}`).
 */
export class GoValueError extends FieldError {
  constructor(
    type: "FieldValueInvalid",
    field: string,
    private readonly printed: string,
    detail: string,
  ) {
    super(type, field, printed, detail);
  }

  override body(): string {
    return `Invalid value: ${this.printed}${this.detail === "" ? "" : `: ${this.detail}`}`;
  }
}

/** Go's %#v of a []byte: `[]byte{0x2d, 0x2d}`, `[]byte{}` when empty, `[]byte(nil)` when absent. */
export function goBytes(b: Uint8Array | undefined): string {
  if (b === undefined) return "[]byte(nil)";
  return `[]byte{${Array.from(b, (x) => `0x${x.toString(16)}`).join(", ")}}`;
}

/**
 * A LabelSelector read from `v` for validation: matchLabels keeps string values, each
 * matchExpressions entry keeps string key/operator/values (undefined when `v` is not an object).
 */
export function labelSelector(v: unknown): LabelSelector | undefined {
  const o = rec(v);
  if (!o) return undefined;
  const sel: LabelSelector = {};
  const labels = stringMap(o.matchLabels);
  if (labels) sel.matchLabels = labels;
  if (Array.isArray(o.matchExpressions)) {
    sel.matchExpressions = records(o.matchExpressions).map((e) => ({
      key: text(e.key),
      operator: text(e.operator),
      ...(Array.isArray(e.values) ? { values: strings(e.values) } : {}),
    }));
  }
  return sel;
}

/** The value as a map of strings (labels, selectors, annotations), or undefined. */
export function stringMapOf(v: unknown): Record<string, string> | undefined {
  const r = rec(v);
  if (!r) return undefined;
  for (const k in r) if (typeof r[k] !== "string") return undefined;
  return r as Record<string, string>;
}

/** Whether a value is set (neither undefined nor null), as a Go pointer is non-nil. */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}

/**
 * The object at `obj[key]`, created when absent (for defaulting). Returns undefined, leaving
 * the value alone, when something that is not an object is there: defaulting skips it and
 * validation reports it.
 */
export function ensureRecord(obj: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  const cur = obj[key];
  if (cur === undefined || cur === null) {
    const fresh: Record<string, unknown> = {};
    obj[key] = fresh;
    return fresh;
  }
  return rec(cur);
}
