/**
 * OpenAPI (structural) schemas as CEL types and JSON values as CEL values — the Kubernetes
 * mapping of k8s.io/apiserver/pkg/cel/common (SchemaDeclType, UnstructuredToVal) and
 * apiextensions' model package:
 *
 * - object with properties → an object type whose fields are the escaped property names
 *   (`__dot__`, `__dash__`, `__slash__`, `__underscores__`, `__{keyword}__`); properties whose
 *   names cannot be escaped, or whose schema has no CEL type, are not visible;
 * - object with additionalProperties → map(string, V); array → list(E); integer → int;
 *   number → double; boolean → bool; string → string, or bytes (format byte), duration
 *   (format duration), timestamp (format date / date-time); x-kubernetes-int-or-string → dyn;
 * - a schema with no type (x-kubernetes-preserve-unknown-fields alone) → not visible;
 * - the root of a resource and x-kubernetes-embedded-resource objects always expose apiVersion,
 *   kind, metadata.name and metadata.generateName, and nothing else of metadata.
 *
 * Each type also carries the worst-case sizes the cost estimator needs: MaxElements (maxItems,
 * maxProperties, maxLength × 4 bytes, or what fits in a 3 MiB request given the minimum
 * serialized size of an element) and MinSerializedSize.
 *
 * Values are wrapped lazily: an object's fields are converted when a rule reads them. Lists with
 * x-kubernetes-list-type set or map carry their equality and concatenation semantics.
 */
import { additionalPropertiesSchema, isObject, itemsOf, propertiesOf, type Schema } from "../crd/schema.js";
import type { AstNode, Range, SizeEstimator } from "./cost.js";
import { parseDuration, parseTimestamp } from "./time.js";
import { T, type CelType } from "./types.js";
import { CelError, CelMap, CelObject, celEquals, withListSemantics, type ListSemantics, type Val } from "./values.js";

export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;
const MAX_DURATION_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MAX_DATETIME_SIZE_JSON = 32;

const reserved = new Set([
  "true",
  "false",
  "null",
  "in",
  "as",
  "break",
  "const",
  "continue",
  "else",
  "for",
  "function",
  "if",
  "import",
  "let",
  "loop",
  "package",
  "namespace",
  "return",
  "var",
  "void",
  "while",
]);

/** cel.Escape: the CEL field name of a property, or undefined when it cannot be accessed. */
export function escapeProperty(name: string): string | undefined {
  if (reserved.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z_.\-/][a-zA-Z0-9_.\-/]*$/.test(name)) return undefined;
  return name.replace(/__|[.\-/]/g, (m) => (m === "__" ? "__underscores__" : m === "." ? "__dot__" : m === "-" ? "__dash__" : "__slash__"));
}

export type DeclKind = "object" | "map" | "list" | "scalar";

export interface DeclField {
  /** The JSON property name. */
  readonly property: string;
  readonly type: DeclType;
  readonly required: boolean;
}

/** A CEL declaration type derived from a schema (apiserver/pkg/cel DeclType). */
export class DeclType {
  name: string;
  readonly fields?: Map<string, DeclField>;
  /** For lists: the element; for maps: the value type. */
  readonly elem?: DeclType;
  readonly key?: DeclType;
  maxElements: number;
  minSerializedSize: number;
  /** The scalar CEL type; for objects/lists/maps the type is built from the parts. */
  private readonly scalar?: CelType;
  private cached?: CelType;

  constructor(
    readonly kind: DeclKind,
    init: {
      name: string;
      scalar?: CelType;
      fields?: Map<string, DeclField>;
      elem?: DeclType;
      key?: DeclType;
      maxElements?: number;
      minSerializedSize: number;
      schema?: Schema;
    },
    readonly schema?: Schema,
  ) {
    this.name = init.name;
    this.scalar = init.scalar;
    this.fields = init.fields;
    this.elem = init.elem;
    this.key = init.key;
    this.maxElements = init.maxElements ?? 0;
    this.minSerializedSize = init.minSerializedSize;
  }

  get celType(): CelType {
    if (this.cached) return this.cached;
    switch (this.kind) {
      case "object": {
        const fields = this.fields!;
        this.cached = T.object(this.name, { field: (n) => fields.get(n)?.type.celType });
        break;
      }
      case "list":
        this.cached = T.list(this.elem!.celType);
        break;
      case "map":
        this.cached = T.map(T.string, this.elem!.celType);
        break;
      default:
        this.cached = this.scalar!;
    }
    return this.cached;
  }

  /** MaybeAssignTypeName: names object types after their place below `name`. */
  assignTypeNames(name: string): this {
    this.cached = undefined;
    if (this.kind === "object") {
      this.name = name;
      for (const [fname, f] of this.fields!) f.type.assignTypeNames(`${name}.${fname}`);
    } else if (this.kind === "list") this.elem!.assignTypeNames(`${name}.@idx`);
    else if (this.kind === "map") this.elem!.assignTypeNames(`${name}.@elem`);
    return this;
  }
}

const scalar = (name: string, t: CelType, minSize: number, maxElements = 0, schema?: Schema) =>
  new DeclType("scalar", { name, scalar: t, minSerializedSize: minSize, maxElements }, schema);

function estimateMaxStringLength(s: Schema): number {
  if (s["x-kubernetes-int-or-string"] === true) return MAX_REQUEST_SIZE_BYTES - 2;
  switch (s.format) {
    case "duration":
      return MAX_DURATION_SIZE_JSON;
    case "date":
      return JSON_DATE_SIZE;
    case "date-time":
      return MAX_DATETIME_SIZE_JSON;
    default:
      return MAX_REQUEST_SIZE_BYTES - 2;
  }
}

const zeroIfNegative = (n: number) => (n < 0 ? 0 : n);

/** WithTypeAndObjectMeta: the root of a resource exposes apiVersion, kind and metadata.name/generateName. */
function withTypeAndObjectMeta(s: Schema): Schema {
  const props = { ...propertiesOf(s) };
  const str: Schema = { type: "string" };
  props.kind = str;
  props.apiVersion = str;
  props.metadata = { type: "object", properties: { name: str, generateName: str } };
  return { ...s, properties: props };
}

/** SchemaDeclType: the CEL type of a schema node, or undefined when it is not visible to CEL. */
export function schemaDeclType(s: Schema | undefined, isResourceRoot: boolean): DeclType | undefined {
  if (!s || !isObject(s)) return undefined;
  if (s["x-kubernetes-int-or-string"] === true) {
    return scalar("dyn", T.dyn, 1, MAX_REQUEST_SIZE_BYTES - 2, s);
  }
  const node = isResourceRoot ? withTypeAndObjectMeta(s) : s;
  switch (node.type) {
    case "array": {
      const items = itemsOf(node);
      if (!items) return undefined;
      const elem = schemaDeclType(items, items["x-kubernetes-embedded-resource"] === true);
      if (!elem) return undefined;
      const maxItems = typeof node.maxItems === "number" ? zeroIfNegative(node.maxItems) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 1));
      return new DeclType("list", { name: "list", elem, maxElements: maxItems, minSerializedSize: 2 }, node);
    }
    case "object": {
      const ap = additionalPropertiesSchema(node);
      if (ap) {
        const elem = schemaDeclType(ap, ap["x-kubernetes-embedded-resource"] === true);
        if (!elem) return undefined;
        const maxProps = typeof node.maxProperties === "number" ? zeroIfNegative(node.maxProperties) : Math.floor((MAX_REQUEST_SIZE_BYTES - 2) / (elem.minSerializedSize + 6));
        return new DeclType("map", { name: "map", elem, key: scalar("string", T.string, MIN_STRING_SIZE), maxElements: maxProps, minSerializedSize: 2 }, node);
      }
      const fields = new Map<string, DeclField>();
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      let minSize = 2;
      for (const [name, prop] of Object.entries(propertiesOf(node))) {
        const ft = schemaDeclType(prop, prop["x-kubernetes-embedded-resource"] === true);
        if (!ft) continue;
        const esc = escapeProperty(name);
        if (esc !== undefined) fields.set(esc, { property: name, type: ft, required: required.has(name) });
        if (required.has(name) && prop.default === undefined) minSize += name.length + ft.minSerializedSize + 4;
      }
      return new DeclType("object", { name: "object", fields, minSerializedSize: minSize }, node);
    }
    case "string":
      switch (node.format) {
        case "byte":
          return scalar("bytes", T.bytes, MIN_STRING_SIZE, typeof node.maxLength === "number" ? zeroIfNegative(node.maxLength) : estimateMaxStringLength(node), node);
        case "duration":
          return scalar("duration", T.duration, MIN_DURATION_SIZE_JSON, estimateMaxStringLength(node), node);
        case "date":
          return scalar("timestamp", T.timestamp, JSON_DATE_SIZE, estimateMaxStringLength(node), node);
        case "date-time":
          return scalar("timestamp", T.timestamp, MIN_DATETIME_SIZE_JSON, estimateMaxStringLength(node), node);
        default:
          return scalar("string", T.string, MIN_STRING_SIZE, typeof node.maxLength === "number" ? zeroIfNegative(node.maxLength) * 4 : estimateMaxStringLength(node), node);
      }
    case "boolean":
      return scalar("bool", T.bool, MIN_BOOL_SIZE, 0, node);
    case "number":
      return scalar("double", T.double, MIN_NUMBER_SIZE, 0, node);
    case "integer":
      return scalar("int", T.int, MIN_NUMBER_SIZE, 0, node);
    default:
      return undefined;
  }
}

/** The sizes of `self`'s parts for the cost estimator (apiextensions' sizeEstimator). */
export function declSizeEstimator(root: DeclType): SizeEstimator {
  return {
    estimateSize(node: AstNode): Range | undefined {
      const path = node.path;
      if (!path || path.length === 0) return undefined;
      let cur: DeclType | undefined = root;
      for (const name of path.slice(1)) {
        if (!cur) return undefined;
        if (name === "@items" || name === "@values") cur = cur.elem;
        else if (name === "@keys") cur = cur.key;
        else cur = cur.fields?.get(name)?.type;
      }
      if (!cur) return undefined;
      return { min: 0, max: cur.maxElements };
    },
  };
}

// ---- values ------------------------------------------------------------------------------

function base64Decode(s: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) throw new CelError(`illegal base64 data`);
  return new Uint8Array(Buffer.from(s, "base64"));
}

/** A JSON value without a schema (embedded and int-or-string data) as a CEL value. */
export function jsonToVal(v: unknown): Val {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case "string":
    case "boolean":
      return v;
    case "number":
      return Number.isInteger(v) ? BigInt(v) : v;
    default:
      break;
  }
  if (Array.isArray(v)) return v.map(jsonToVal);
  return new JsonMap(v as Record<string, unknown>, undefined);
}

/** UnstructuredToVal: a JSON value typed by its DeclType. */
export function toVal(v: unknown, t: DeclType | undefined): Val {
  if (v === null || v === undefined) return null;
  if (!t) return jsonToVal(v);
  switch (t.kind) {
    case "object":
      return isObject(v) ? new SchemaObject(v, t) : jsonToVal(v);
    case "map":
      return isObject(v) ? new JsonMap(v, t.elem) : jsonToVal(v);
    case "list": {
      if (!Array.isArray(v)) return jsonToVal(v);
      const elem = t.elem;
      const out = v.map((x) => toVal(x, elem));
      const sem = listSemanticsOf(t);
      return sem ? withListSemantics(out, sem) : out;
    }
    default:
      break;
  }
  const st = t.celType;
  switch (st.kind) {
    case "int":
      return typeof v === "number" ? (Number.isInteger(v) ? BigInt(v) : v) : jsonToVal(v);
    case "double":
      return typeof v === "number" ? v : jsonToVal(v);
    case "bytes":
      return typeof v === "string" ? base64Decode(v) : jsonToVal(v);
    case "duration":
      return typeof v === "string" ? parseDuration(v) : jsonToVal(v);
    case "timestamp":
      return typeof v === "string" ? parseTimestamp(t.name === "timestamp" && /^\d{4}-\d{2}-\d{2}$/.test(v) ? `${v}T00:00:00Z` : v) : jsonToVal(v);
    default:
      return jsonToVal(v);
  }
}

const semanticsCache = new WeakMap<DeclType, ListSemantics | null>();

function listSemanticsOf(t: DeclType): ListSemantics | undefined {
  let s = semanticsCache.get(t);
  if (s === undefined) {
    const lt = t.schema?.["x-kubernetes-list-type"];
    if (lt === "set") s = { type: "set" };
    else if (lt === "map") {
      const keys = (t.schema?.["x-kubernetes-list-map-keys"] ?? []).map((k) => escapeProperty(k) ?? k);
      s = { type: "map", keys };
    } else s = null;
    semanticsCache.set(t, s);
  }
  return s ?? undefined;
}

/** An object of a schema with properties: fields by their escaped names, converted on access. */
export class SchemaObject extends CelObject {
  private readonly converted = new Map<string, Val>();
  constructor(
    readonly raw: Readonly<Record<string, unknown>>,
    readonly decl: DeclType,
  ) {
    super();
  }
  get celType(): CelType {
    return this.decl.celType;
  }
  override getField(name: string): Val | undefined {
    const hit = this.converted.get(name);
    if (hit !== undefined) return hit;
    const f = this.decl.fields!.get(name);
    if (!f || !Object.prototype.hasOwnProperty.call(this.raw, f.property)) return undefined;
    const v = toVal(this.raw[f.property], f.type);
    this.converted.set(name, v);
    return v;
  }
  override hasField(name: string): boolean {
    const f = this.decl.fields!.get(name);
    return !!f && Object.prototype.hasOwnProperty.call(this.raw, f.property);
  }
  /** The fields present (escaped names), for equality. */
  presentFields(): string[] {
    const out: string[] = [];
    for (const [esc, f] of this.decl.fields!) if (Object.prototype.hasOwnProperty.call(this.raw, f.property)) out.push(esc);
    return out;
  }
  equals(other: CelObject): boolean {
    if (!(other instanceof SchemaObject)) return false;
    const mine = this.presentFields();
    const theirs = other.presentFields();
    if (mine.length !== theirs.length) return false;
    return mine.every((f) => other.hasField(f) && celEquals(this.getField(f)!, other.getField(f)!));
  }
  override size(): number {
    return this.presentFields().length;
  }
}

/** A JSON object read as map(string, V) (additionalProperties, or untyped data). */
export class JsonMap extends CelMap {
  private readonly converted = new Map<string, Val>();
  constructor(
    readonly raw: Readonly<Record<string, unknown>>,
    private readonly value: DeclType | undefined,
  ) {
    super();
  }
  get size(): number {
    return Object.keys(this.raw).length;
  }
  get(key: Val): Val | undefined {
    if (typeof key !== "string" || !Object.prototype.hasOwnProperty.call(this.raw, key)) return undefined;
    const hit = this.converted.get(key);
    if (hit !== undefined) return hit;
    const v = toVal(this.raw[key], this.value);
    this.converted.set(key, v);
    return v;
  }
  keys(): Val[] {
    return Object.keys(this.raw);
  }
}
