/**
 * The shape of the generated protobuf tables (schemas/*.ts, written by
 * scripts/protobuf/generate.mjs) and their compiled, lookup-friendly form.
 *
 * A table row is `[fieldNumber, jsonName, type, flags]`:
 * - jsonName: the Go json tag name; "" for an inline (embedded) struct whose fields merge into the
 *   parent object; "-" for a field that is on the protobuf wire but never in JSON.
 * - type: a scalar ("string", "bool", "int32", "int64", "sint32", "sint64", "uint32", "uint64",
 *   "double", "float", "bytes"), a special type with its own codec (see SPECIAL_TYPES), a message
 *   key ("core/v1.PodSpec"), "map<K,V>", or "[]T" (a named Go slice carried as the wrapper message
 *   `{ repeated T items = 1 }`, JSON: a plain array; used for map values such as UserInfo.extra).
 * - flags: p = Go pointer, o = omitempty, z = omitzero, r = repeated (slice or map), i = inline.
 */

export type FieldSpec = readonly [number, string, string, string];
export type MessageTable = Readonly<Record<string, readonly FieldSpec[]>>;
/** apiVersion → kind → message key. */
export type KindTable = Readonly<Record<string, Readonly<Record<string, string>>>>;

export const SCALAR_TYPES = [
  "string", "bool", "int32", "int64", "sint32", "sint64", "uint32", "uint64", "double", "float", "bytes",
] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

export const SPECIAL_TYPES = [
  "Time", "MicroTime", "Duration", "Quantity", "IntOrString", "RawExtension", "FieldsV1",
  "JSON", "JSONSchemaPropsOrArray", "JSONSchemaPropsOrBool", "JSONSchemaPropsOrStringArray",
] as const;
export type SpecialType = (typeof SPECIAL_TYPES)[number];

/** The message JSONSchemaPropsOr* wrap. */
export const JSON_SCHEMA_PROPS = "apiextensions/v1.JSONSchemaProps";

export type ValueType =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "special"; readonly special: SpecialType }
  | { readonly kind: "message"; readonly message: string }
  | { readonly kind: "map"; readonly key: ValueType; readonly value: ValueType }
  | { readonly kind: "list"; readonly elem: ValueType };

export interface CompiledField {
  readonly number: number;
  /** JSON name; "" when inline; "-" when not in JSON. */
  readonly json: string;
  readonly type: ValueType;
  readonly pointer: boolean;
  readonly omitempty: boolean;
  readonly omitzero: boolean;
  readonly repeated: boolean;
  readonly inline: boolean;
}

export interface CompiledMessage {
  readonly name: string;
  /** In table order: Go's declaration order, which is the order Go's JSON writes keys in. */
  readonly fields: readonly CompiledField[];
  /** In field-number order: the order gogo-protobuf writes fields in. */
  readonly wireOrder: readonly CompiledField[];
  readonly byNumber: ReadonlyMap<number, CompiledField>;
}

const scalarSet: ReadonlySet<string> = new Set(SCALAR_TYPES);
const specialSet: ReadonlySet<string> = new Set(SPECIAL_TYPES);

/** Parses a table type string. Throws on a malformed or unknown type (a generator bug). */
export function parseValueType(text: string, messages: MessageTable): ValueType {
  if (scalarSet.has(text)) return { kind: "scalar", scalar: text as ScalarType };
  if (specialSet.has(text)) return { kind: "special", special: text as SpecialType };
  if (text.startsWith("[]")) return { kind: "list", elem: parseValueType(text.slice(2), messages) };
  if (text.startsWith("map<") && text.endsWith(">")) {
    const inner = text.slice(4, -1);
    // Keys are scalars, so the first comma separates key from value.
    const comma = inner.indexOf(",");
    if (comma < 0) throw new Error(`malformed map type ${text}`);
    return {
      kind: "map",
      key: parseValueType(inner.slice(0, comma), messages),
      value: parseValueType(inner.slice(comma + 1), messages),
    };
  }
  if (Object.hasOwn(messages, text)) return { kind: "message", message: text };
  throw new Error(`unknown protobuf table type ${JSON.stringify(text)}`);
}

/** meta.k8s.io/v1 kinds that every group version also serves (see lookupKind). */
const META_EVERYWHERE: ReadonlySet<string> = new Set(["Status", "APIVersions", "APIGroupList", "APIGroup", "APIResourceList"]);

/**
 * Compiled tables with lazy per-message compilation. Invariant: a message key is compiled at most
 * once; the cache only grows.
 */
export class SchemaRegistry {
  private readonly compiled = new Map<string, CompiledMessage>();

  constructor(
    readonly messages: MessageTable,
    readonly kinds: KindTable,
  ) {}

  has(message: string): boolean {
    return Object.hasOwn(this.messages, message);
  }

  message(name: string): CompiledMessage {
    const hit = this.compiled.get(name);
    if (hit) return hit;
    if (!Object.hasOwn(this.messages, name)) throw new Error(`no protobuf table for message ${name}`);
    const rows = this.messages[name];
    const fields = rows.map(([number, json, type, flags]): CompiledField => ({
      number,
      json,
      type: parseValueType(type, this.messages),
      pointer: flags.includes("p"),
      omitempty: flags.includes("o"),
      omitzero: flags.includes("z"),
      repeated: flags.includes("r"),
      inline: flags.includes("i"),
    }));
    const wireOrder = [...fields].sort((a, b) => a.number - b.number);
    const msg: CompiledMessage = { name, fields, wireOrder, byNumber: new Map(fields.map((f) => [f.number, f])) };
    this.compiled.set(name, msg);
    return msg;
  }

  /** The message key serving apiVersion+kind, or undefined. */
  lookupKind(apiVersion: string, kind: string): string | undefined {
    const byKind = Object.hasOwn(this.kinds, apiVersion) ? this.kinds[apiVersion] : undefined;
    if (byKind && Object.hasOwn(byKind, kind)) return byKind[kind];
    // metav1.AddToGroupVersion registers the option kinds (DeleteOptions, ListOptions, ...) and
    // WatchEvent into every group version, and Status and the discovery documents as unversioned
    // kinds, so they travel under the resource's apiVersion (a Status as "v1").
    const meta = this.kinds["meta.k8s.io/v1"];
    if (meta && Object.hasOwn(meta, kind) && (kind.endsWith("Options") || META_EVERYWHERE.has(kind))) return meta[kind];
    if (kind === "WatchEvent") return "meta/v1.WatchEvent";
    return undefined;
  }
}
