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
import { WIRE_BYTES, WIRE_VARINT, WireWriter } from "./wire.js";
import { parseDuration, parseRFC3339 } from "./wellknown.js";

const utf8 = new TextEncoder();

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function fail(where: string, what: string, v: unknown): never {
  throw new TypeError(`${where}: expected ${what}, got ${JSON.stringify(v)}`);
}

function toNumber(v: unknown, where: string): number {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  return fail(where, "a number", v);
}

function writeScalar(w: WireWriter, field: number, scalar: ScalarType, v: unknown, where: string): void {
  switch (scalar) {
    case "string":
      if (typeof v !== "string") fail(where, "a string", v);
      w.bytesField(field, utf8.encode(v));
      return;
    case "bytes":
      if (typeof v !== "string") fail(where, "a base64 string", v);
      w.bytesField(field, Buffer.from(v, "base64"));
      return;
    case "bool":
      if (typeof v !== "boolean") fail(where, "a boolean", v);
      w.tag(field, WIRE_VARINT);
      w.varint(v ? 1 : 0);
      return;
    case "int32":
    case "int64":
    case "uint32":
    case "uint64":
      w.tag(field, WIRE_VARINT);
      w.varint(Math.trunc(toNumber(v, where)));
      return;
    case "sint32":
    case "sint64": {
      const n = BigInt(Math.trunc(toNumber(v, where)));
      w.tag(field, WIRE_VARINT);
      w.varint(BigInt.asUintN(64, (n << 1n) ^ (n >> 63n)));
      return;
    }
    case "double":
      w.double(field, toNumber(v, where));
      return;
    case "float":
      w.float(field, toNumber(v, where));
      return;
  }
}

function zeroScalar(scalar: ScalarType): unknown {
  if (scalar === "string" || scalar === "bytes") return "";
  if (scalar === "bool") return false;
  return 0;
}

class Encoder {
  constructor(private readonly registry: SchemaRegistry) {}

  message(obj: Record<string, unknown>, name: string): Uint8Array {
    const msg = this.registry.message(name);
    const w = new WireWriter();
    const fields = [...msg.fields].sort((a, b) => a.number - b.number);
    for (const f of fields) this.field(w, f, obj, name);
    return w.finish();
  }

  private field(w: WireWriter, f: CompiledField, obj: Record<string, unknown>, name: string): void {
    const where = `${name}.${f.json || `#${f.number}`}`;
    if (f.json === "-") return;
    if (f.inline) {
      // An embedded struct: its fields live in the parent's JSON object.
      if (f.type.kind !== "message") throw new TypeError(`${where}: inline field of non-message type`);
      w.bytesField(f.number, this.message(obj, f.type.message));
      return;
    }
    const v = Object.hasOwn(obj, f.json) ? obj[f.json] : undefined;
    if (f.repeated) {
      if (v === undefined || v === null) return;
      if (f.type.kind === "map") {
        if (!isRecord(v)) fail(where, "an object", v);
        const type = f.type;
        for (const key of Object.keys(v).sort()) {
          const entry = new WireWriter();
          this.value(entry, 1, type.key, type.key.kind === "scalar" && type.key.scalar !== "string" ? Number(key) : key, `${where} key`);
          this.value(entry, 2, type.value, v[key], `${where}[${key}]`);
          w.bytesField(f.number, entry.finish());
        }
        return;
      }
      if (!Array.isArray(v)) fail(where, "an array", v);
      for (const item of v) this.value(w, f.number, f.type, item, `${where}[]`);
      return;
    }
    if (f.pointer) {
      if (v === undefined || v === null) return;
      this.value(w, f.number, f.type, v, where);
      return;
    }
    this.value(w, f.number, f.type, v === undefined ? this.zero(f.type) : v, where);
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

  private value(w: WireWriter, field: number, type: ValueType, v: unknown, where: string): void {
    switch (type.kind) {
      case "scalar":
        writeScalar(w, field, type.scalar, v === null ? zeroScalar(type.scalar) : v, where);
        return;
      case "message":
        if (v !== null && !isRecord(v)) fail(where, "an object", v);
        w.bytesField(field, this.message(v ?? {}, type.message));
        return;
      case "list": {
        if (v !== null && !Array.isArray(v)) fail(where, "an array", v);
        const inner = new WireWriter();
        for (const item of v ?? []) this.value(inner, 1, type.elem, item, `${where}[]`);
        w.bytesField(field, inner.finish());
        return;
      }
      case "special":
        w.bytesField(field, this.special(type.special, v, where));
        return;
      case "map":
        throw new TypeError(`${where}: a map cannot be a singular value`);
    }
  }

  private special(special: SpecialType, v: unknown, where: string): Uint8Array {
    const w = new WireWriter();
    switch (special) {
      case "Time":
      case "MicroTime": {
        if (v === null || v === undefined) return w.finish();
        if (typeof v !== "string") fail(where, "an RFC 3339 string", v);
        const t = parseRFC3339(v);
        w.tag(1, WIRE_VARINT);
        w.varint(t.seconds);
        // metav1.Time carries no sub-second part on the wire; MicroTime does.
        w.tag(2, WIRE_VARINT);
        w.varint(special === "MicroTime" ? t.nanos : 0);
        return w.finish();
      }
      case "Duration": {
        const nanos = v === null || v === undefined ? 0n : typeof v === "string" ? parseDuration(v) : fail(where, "a duration string", v);
        w.tag(1, WIRE_VARINT);
        w.varint(nanos);
        return w.finish();
      }
      case "Quantity": {
        const s = v === null || v === undefined ? "0" : typeof v === "number" ? String(v) : typeof v === "string" ? v : fail(where, "a quantity", v);
        w.bytesField(1, utf8.encode(s));
        return w.finish();
      }
      case "IntOrString": {
        const isString = typeof v === "string";
        if (!isString && typeof v !== "number" && v !== null && v !== undefined) fail(where, "an int or a string", v);
        w.tag(1, WIRE_VARINT);
        w.varint(isString ? 1 : 0);
        w.tag(2, WIRE_VARINT);
        w.varint(typeof v === "number" ? Math.trunc(v) : 0);
        w.bytesField(3, utf8.encode(isString ? v : ""));
        return w.finish();
      }
      case "RawExtension":
      case "FieldsV1":
      case "JSON": {
        if (v === null || v === undefined) return w.finish();
        w.bytesField(1, utf8.encode(JSON.stringify(v)));
        return w.finish();
      }
      case "JSONSchemaPropsOrArray":
        if (Array.isArray(v)) {
          for (const s of v) w.bytesField(2, this.schemaProps(s, where));
        } else if (isRecord(v)) w.bytesField(1, this.schemaProps(v, where));
        return w.finish();
      case "JSONSchemaPropsOrBool":
        w.tag(1, WIRE_VARINT);
        w.varint(v === false ? 0 : 1);
        if (isRecord(v)) w.bytesField(2, this.schemaProps(v, where));
        return w.finish();
      case "JSONSchemaPropsOrStringArray":
        if (isRecord(v)) w.bytesField(1, this.schemaProps(v, where));
        else if (Array.isArray(v)) {
          for (const s of v) {
            if (typeof s !== "string") fail(where, "a string", s);
            w.tag(2, WIRE_BYTES);
            const b = utf8.encode(s);
            w.varint(b.length);
            w.raw(b);
          }
        }
        return w.finish();
    }
  }

  private schemaProps(v: unknown, where: string): Uint8Array {
    if (!isRecord(v)) fail(where, "a JSON schema object", v);
    return this.message(v, JSON_SCHEMA_PROPS);
  }
}

/** Encodes the JSON form `obj` as message `name` (no envelope). */
export function encodeMessage(
  registry: SchemaRegistry,
  obj: Record<string, unknown>,
  name: string,
): Uint8Array {
  return new Encoder(registry).message(obj, name);
}
