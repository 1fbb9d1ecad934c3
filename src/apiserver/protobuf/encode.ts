/**
 * Schema-driven JSON → protobuf encoding, mirroring Go's gogo-protobuf marshaller for Kubernetes
 * types: fields in ascending field-number order; non-pointer scalars and structs always written
 * (absent JSON → the zero value); pointer fields only when present (non-null); repeated elements
 * one by one (strings unpacked, as gogo's proto2 output is); map entries sorted by key.
 *
 * Used by the tests to produce real-shaped bodies, and usable for protobuf responses later.
 * Input is the object's JSON form; a value of the wrong JSON type throws a TypeError. RawExtension
 * values are written as JSON bytes (never as nested protobuf).
 */
import { JSON_SCHEMA_PROPS, type CompiledField, type ScalarType, type SchemaRegistry, type SpecialType, type ValueType } from "./schema.js";
import { WIRE_VARINT, WireWriter } from "./wire.js";
import { parseDuration, parseRFC3339 } from "./wellknown.js";

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Where a value sits is passed as two strings (message name, field JSON name), joined only for an
 * error: the hot path allocates nothing for it.
 */
function fail(owner: string, key: string, what: string, v: unknown): never {
  throw new TypeError(`${owner}.${key}: expected ${what}, got ${JSON.stringify(v)}`);
}

function toNumber(v: unknown, owner: string, key: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return fail(owner, key, "a number", v);
}

function writeScalar(w: WireWriter, field: number, scalar: ScalarType, v: unknown, owner: string, key: string): void {
  switch (scalar) {
    case "string":
      if (typeof v !== "string") fail(owner, key, "a string", v);
      w.stringField(field, v);
      return;
    case "bytes":
      if (typeof v !== "string") fail(owner, key, "a base64 string", v);
      w.bytesField(field, Buffer.from(v, "base64"));
      return;
    case "bool":
      if (typeof v !== "boolean") fail(owner, key, "a boolean", v);
      w.tag(field, WIRE_VARINT);
      w.varint(v ? 1 : 0);
      return;
    case "int32":
    case "int64":
    case "uint32":
    case "uint64":
      w.tag(field, WIRE_VARINT);
      w.varint(Math.trunc(toNumber(v, owner, key)));
      return;
    case "sint32":
    case "sint64": {
      const n = BigInt(Math.trunc(toNumber(v, owner, key)));
      w.tag(field, WIRE_VARINT);
      w.varint(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)));
      return;
    }
    case "double":
      w.double(field, toNumber(v, owner, key));
      return;
    case "float":
      w.float(field, toNumber(v, owner, key));
      return;
  }
}

function zeroScalar(scalar: ScalarType): unknown {
  if (scalar === "string" || scalar === "bytes") return "";
  if (scalar === "bool") return false;
  return 0;
}

/**
 * Writes messages into one WireWriter: a nested message is written in place between
 * beginNested/endNested, so no buffer is allocated per message (gogo's generated Marshal sizes
 * first and writes once; this is the single-buffer equivalent).
 */
class Encoder {
  constructor(
    private readonly registry: SchemaRegistry,
    private readonly w: WireWriter,
  ) {}

  /** Writes the fields of `obj` as message `name` at the writer's position. */
  fields(obj: Record<string, unknown>, name: string): void {
    const msg = this.registry.message(name);
    for (const f of msg.wireOrder) this.field(f, obj, name);
  }

  private nested(field: number, obj: Record<string, unknown>, name: string): void {
    const mark = this.w.beginNested(field);
    this.fields(obj, name);
    this.w.endNested(mark);
  }

  private field(f: CompiledField, obj: Record<string, unknown>, name: string): void {
    if (f.json === "-") return;
    if (f.inline) {
      // An embedded struct: its fields live in the parent's JSON object.
      if (f.type.kind !== "message") throw new TypeError(`${name}.#${f.number}: inline field of non-message type`);
      this.nested(f.number, obj, f.type.message);
      return;
    }
    const v = Object.hasOwn(obj, f.json) ? obj[f.json] : undefined;
    if (f.repeated) {
      if (v === undefined || v === null) return;
      if (f.type.kind === "map") {
        if (!isRecord(v)) fail(name, f.json, "an object", v);
        const type = f.type;
        const numericKey = type.key.kind === "scalar" && type.key.scalar !== "string";
        for (const key of Object.keys(v).sort()) {
          const mark = this.w.beginNested(f.number);
          this.value(1, type.key, numericKey ? Number(key) : key, name, f.json);
          this.value(2, type.value, v[key], name, f.json);
          this.w.endNested(mark);
        }
        return;
      }
      if (!Array.isArray(v)) fail(name, f.json, "an array", v);
      for (const item of v) this.value(f.number, f.type, item, name, f.json);
      return;
    }
    if (f.pointer) {
      if (v === undefined || v === null) return;
      this.value(f.number, f.type, v, name, f.json);
      return;
    }
    this.value(f.number, f.type, v === undefined ? this.zero(f.type) : v, name, f.json);
  }

  private zero(type: ValueType): unknown {
    switch (type.kind) {
      case "scalar":
        return zeroScalar(type.scalar);
      case "message":
        return {};
      case "list":
        return [];
      default:
        return null;
    }
  }

  private value(field: number, type: ValueType, v: unknown, owner: string, key: string): void {
    switch (type.kind) {
      case "scalar":
        writeScalar(this.w, field, type.scalar, v === null ? zeroScalar(type.scalar) : v, owner, key);
        return;
      case "message":
        if (v !== null && !isRecord(v)) fail(owner, key, "an object", v);
        this.nested(field, v ?? {}, type.message);
        return;
      case "list": {
        if (v !== null && !Array.isArray(v)) fail(owner, key, "an array", v);
        const mark = this.w.beginNested(field);
        for (const item of v ?? []) this.value(1, type.elem, item, owner, key);
        this.w.endNested(mark);
        return;
      }
      case "special": {
        const mark = this.w.beginNested(field);
        this.special(type.special, v, owner, key);
        this.w.endNested(mark);
        return;
      }
      case "map":
        throw new TypeError(`${owner}.${key}: a map cannot be a singular value`);
    }
  }

  /** Writes the content of a special type's message at the writer's position. */
  private special(special: SpecialType, v: unknown, owner: string, key: string): void {
    const w = this.w;
    switch (special) {
      case "Time":
      case "MicroTime": {
        if (v === null || v === undefined) return;
        if (typeof v !== "string") fail(owner, key, "an RFC 3339 string", v);
        let t: { seconds: bigint; nanos: number };
        try {
          t = parseRFC3339(v);
        } catch {
          fail(owner, key, "an RFC 3339 string", v);
        }
        w.tag(1, WIRE_VARINT);
        w.varint(t.seconds);
        // metav1.Time carries no sub-second part on the wire; MicroTime does.
        w.tag(2, WIRE_VARINT);
        w.varint(special === "MicroTime" ? t.nanos : 0);
        return;
      }
      case "Duration": {
        const nanos = v === null || v === undefined ? 0n : typeof v === "string" ? parseDuration(v) : fail(owner, key, "a duration string", v);
        w.tag(1, WIRE_VARINT);
        w.varint(nanos);
        return;
      }
      case "Quantity": {
        const s = v === null || v === undefined ? "0" : typeof v === "number" ? String(v) : typeof v === "string" ? v : fail(owner, key, "a quantity", v);
        w.stringField(1, s);
        return;
      }
      case "IntOrString": {
        const isString = typeof v === "string";
        if (!isString && typeof v !== "number" && v !== null && v !== undefined) fail(owner, key, "an int or a string", v);
        w.tag(1, WIRE_VARINT);
        w.varint(isString ? 1 : 0);
        w.tag(2, WIRE_VARINT);
        w.varint(typeof v === "number" ? Math.trunc(v) : 0);
        w.stringField(3, isString ? v : "");
        return;
      }
      case "RawExtension":
      case "FieldsV1":
      case "JSON": {
        if (v === null || v === undefined) return;
        w.stringField(1, JSON.stringify(v));
        return;
      }
      case "JSONSchemaPropsOrArray":
        if (Array.isArray(v)) {
          for (const s of v) this.schemaProps(2, s, owner, key);
        } else if (isRecord(v)) this.schemaProps(1, v, owner, key);
        return;
      case "JSONSchemaPropsOrBool":
        w.tag(1, WIRE_VARINT);
        w.varint(v === false ? 0 : 1);
        if (isRecord(v)) this.schemaProps(2, v, owner, key);
        return;
      case "JSONSchemaPropsOrStringArray":
        if (isRecord(v)) this.schemaProps(1, v, owner, key);
        else if (Array.isArray(v)) {
          for (const s of v) {
            if (typeof s !== "string") fail(owner, key, "a string", s);
            w.stringField(2, s);
          }
        }
        return;
    }
  }

  private schemaProps(field: number, v: unknown, owner: string, key: string): void {
    if (!isRecord(v)) fail(owner, key, "a JSON schema object", v);
    this.nested(field, v, JSON_SCHEMA_PROPS);
  }
}

/** Encodes the JSON form `obj` as message `name` (no envelope). */
export function encodeMessage(
  registry: SchemaRegistry,
  obj: Record<string, unknown>,
  name: string,
): Uint8Array {
  const w = new WireWriter();
  new Encoder(registry, w).fields(obj, name);
  return w.finish();
}
