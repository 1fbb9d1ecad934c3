/**
 * sigs.k8s.io/json's strict errors in document order — unknown fields and duplicate fields —
 * read from the text itself (objects as JsonEntries, duplicates kept). Used when the text has
 * duplicate keys: the walk of the parsed tree cannot see them (JSON.parse keeps the last).
 *
 * Duplicates are reported where Go's decoder checks them: known fields of structs, map keys and
 * untyped (interface{}) objects; never inside values with their own UnmarshalJSON (Quantity,
 * Time, IntOrString, RawExtension, FieldsV1, JSON, JSONSchemaPropsOr*). A repeated unknown field
 * is an unknown field, not a duplicate.
 */
import { typeInfo, type TypeInfo, type ValueType } from "../generated/schema.js";
import { JsonEntries } from "./jsontext.js";

const MAX_STRICT_ERRORS = 100;

class StrictCollector {
  readonly errors: string[] = [];
  private readonly seen = new Set<string>();

  add(kind: "unknown" | "duplicate", path: string): void {
    const text = `${kind} field ${JSON.stringify(path)}`;
    if (this.errors.length >= MAX_STRICT_ERRORS || this.seen.has(text)) return;
    this.seen.add(text);
    this.errors.push(text);
  }
}

const join = (prefix: string, key: string) => (prefix === "" ? key : `${prefix}.${key}`);

function visit(v: unknown, t: ValueType, path: string, out: StrictCollector): void {
  switch (t.kind) {
    case "struct": {
      const info = typeInfo(t.type);
      if (info && v instanceof JsonEntries) visitStruct(v, info, path, out);
      return;
    }
    case "list":
      if (Array.isArray(v)) v.forEach((x, i) => visit(x, t.element, `${path}[${i}]`, out));
      return;
    case "map":
      if (v instanceof JsonEntries) {
        const seen = new Set<string>();
        for (const [k, x] of v.entries) {
          if (seen.has(k)) out.add("duplicate", join(path, k));
          seen.add(k);
          visit(x, t.value, join(path, k), out);
        }
      }
      return;
    case "any":
      visitAny(v, path, out);
      return;
    default:
      return;
  }
}

function visitAny(v: unknown, path: string, out: StrictCollector): void {
  if (Array.isArray(v)) v.forEach((x, i) => visitAny(x, `${path}[${i}]`, out));
  else if (v instanceof JsonEntries) {
    const seen = new Set<string>();
    for (const [k, x] of v.entries) {
      if (seen.has(k)) out.add("duplicate", join(path, k));
      seen.add(k);
      visitAny(x, join(path, k), out);
    }
  }
}

function visitStruct(v: JsonEntries, info: TypeInfo, path: string, out: StrictCollector): void {
  const seen = new Set<string>();
  for (const [k, x] of v.entries) {
    const f = info.fields.get(k);
    if (!f) {
      out.add("unknown", join(path, k));
      continue;
    }
    if (seen.has(k)) out.add("duplicate", join(path, k));
    seen.add(k);
    visit(x, f.type, join(path, k), out);
  }
}

/** The strict errors of a document (parsed with entries) read as the struct type `info`. */
export function strictErrors(doc: unknown, info: TypeInfo): string[] {
  const out = new StrictCollector();
  if (doc instanceof JsonEntries) visitStruct(doc, info, "", out);
  return out.errors;
}

/** Duplicate keys of an untyped document (a merge patch decoded into map[string]interface{}). */
export function duplicateErrors(doc: unknown): string[] {
  const out = new StrictCollector();
  visitAny(doc, "", out);
  return out.errors;
}
