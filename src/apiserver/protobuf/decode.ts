/**
 * Schema-driven protobuf → JSON decoding of Kubernetes API objects.
 *
 * The goal is the JSON the Go client would have produced from the same Go value, so the rules
 * follow how gogo-protobuf marshals Kubernetes types and how encoding/json prints them:
 *
 * - Absent field → omitted. (gogo writes every non-pointer scalar and non-pointer struct, so
 *   absence only happens for unset pointers, empty slices/maps, and non-Go encoders.)
 * - Present Go *pointer* field → always emitted, even when zero (`replicas: 0` was set on purpose).
 * - Present non-pointer scalar (string, number, bool, []byte) with its zero value → omitted when the
 *   json tag has omitempty/omitzero (the client meant "unset", e.g. `hostNetwork: false`), emitted
 *   otherwise (`containerPort: 0` has no omitempty, Go would print it).
 * - Present non-pointer struct (message or special type) → emitted (encoding/json ignores omitempty
 *   on structs: `status: {}`, `resources: {}`), unless the tag has omitzero and the value is zero
 *   (`creationTimestamp` in 1.35). A zero metav1.Time prints as null, as Go does.
 * - Repeated fields and maps → emitted only when non-empty (Go prints `null` for a nil slice without
 *   omitempty; absent and null mean the same to every Kubernetes JSON decoder).
 * - Inline (embedded) structs merge their fields into the parent; json:"-" fields are dropped.
 * - Unknown field numbers are skipped silently, as gogo's generated Unmarshal does (old clients
 *   still send fields that were removed, e.g. ObjectMeta 15 clusterName); they are listed in
 *   DecodeContext.unknownFields, never turned into client warnings.
 */
import {
  JSON_SCHEMA_PROPS,
  type CompiledField,
  type ScalarType,
  type SchemaRegistry,
  type SpecialType,
  type ValueType,
} from "./schema.js";
import { ProtobufDecodeError } from "./errors.js";
import { WIRE_BYTES, WIRE_FIXED32, WIRE_FIXED64, WIRE_VARINT, WireReader } from "./wire.js";
import { formatDuration, formatMicroTime, formatTime } from "./wellknown.js";

/** Nesting deeper than this is rejected (recursive JSONSchemaProps could otherwise exhaust the stack). */
export const MAX_DEPTH = 200;

export interface DecodeContext {
  readonly registry: SchemaRegistry;
  /** Skipped unknown field numbers ("unknown field <n> in <message>"), for logs and tests only. */
  readonly unknownFields: string[];
  /** Decodes an embedded `k8s\0` envelope (RawExtension holding a protobuf object). */
  readonly decodeEmbedded: (raw: Uint8Array, depth: number) => Record<string, unknown>;
}

interface Decoded {
  readonly value: unknown;
  /** Whether the Go value would be its type's zero value (drives omitempty/omitzero). */
  readonly zero: boolean;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function wireFor(type: ValueType): number {
  if (type.kind !== "scalar") return WIRE_BYTES;
  switch (type.scalar) {
    case "string":
    case "bytes":
      return WIRE_BYTES;
    case "double":
      return WIRE_FIXED64;
    case "float":
      return WIRE_FIXED32;
    default:
      return WIRE_VARINT;
  }
}

function isPackable(type: ValueType): boolean {
  return type.kind === "scalar" && type.scalar !== "string" && type.scalar !== "bytes";
}

function readScalar(r: WireReader, scalar: ScalarType): Decoded {
  switch (scalar) {
    case "string": {
      const s = r.string();
      return { value: s, zero: s === "" };
    }
    case "bytes": {
      const b = r.bytes();
      return { value: Buffer.from(b.buffer, b.byteOffset, b.length).toString("base64"), zero: b.length === 0 };
    }
    case "bool": {
      const v = r.varintBig() !== 0n;
      return { value: v, zero: !v };
    }
    case "int32":
      return num(Number(BigInt.asIntN(32, r.varintBig())));
    case "int64":
      return num(Number(BigInt.asIntN(64, r.varintBig())));
    case "uint32":
      return num(Number(BigInt.asUintN(32, r.varintBig())));
    case "uint64":
      return num(Number(r.varintBig()));
    case "sint32":
    case "sint64": {
      const v = r.varintBig();
      return num(Number((v >> 1n) ^ -(v & 1n)));
    }
    case "double":
      return num(r.fixed64().getFloat64(0, true));
    case "float":
      return num(r.fixed32().getFloat32(0, true));
  }
}

function num(n: number): Decoded {
  return { value: n, zero: n === 0 };
}

/** The JSON of a type's zero value (for map entries that omit their value). */
function zeroValue(ctx: DecodeContext, type: ValueType, depth: number): unknown {
  return decodeBytes(ctx, new Uint8Array(0), type, "map value", depth).value;
}

function decodeBytes(ctx: DecodeContext, data: Uint8Array, type: ValueType, where: string, depth: number): Decoded {
  switch (type.kind) {
    case "scalar":
      if (type.scalar === "string" || type.scalar === "bytes") {
        // Re-frame as a length-delimited value so readScalar's checks apply.
        return type.scalar === "string"
          ? { value: decodeUtf8(data, where), zero: data.length === 0 }
          : { value: Buffer.from(data.buffer, data.byteOffset, data.length).toString("base64"), zero: data.length === 0 };
      }
      if (data.length === 0) return { value: type.scalar === "bool" ? false : 0, zero: true };
      return readScalar(new WireReader(data), type.scalar);
    case "message":
      return decodeMessage(ctx, data, type.message, depth + 1);
    case "special":
      return decodeSpecial(ctx, data, type.special, where, depth + 1);
    case "list": {
      const items = decodeWrappedList(ctx, data, type.elem, where, depth + 1);
      return { value: items, zero: items.length === 0 };
    }
    case "map":
      throw new ProtobufDecodeError(`${where}: a map cannot be a singular value`);
  }
}

function decodeUtf8(data: Uint8Array, where: string): string {
  try {
    return utf8.decode(data);
  } catch {
    throw new ProtobufDecodeError(`${where}: string is not valid UTF-8`);
  }
}

/** Reads one value of `type` at the reader (after its tag), checking the wire type. */
function readValue(ctx: DecodeContext, r: WireReader, wire: number, type: ValueType, where: string, depth: number): Decoded {
  const expected = wireFor(type);
  if (wire !== expected) throw new ProtobufDecodeError(`${where}: wire type ${wire}, expected ${expected}`);
  if (type.kind === "scalar") return readScalar(r, type.scalar);
  return decodeBytes(ctx, r.bytes(), type, where, depth);
}

/** The wrapper message `{ repeated T items = 1 }` a named Go slice is carried in. */
function decodeWrappedList(ctx: DecodeContext, data: Uint8Array, elem: ValueType, where: string, depth: number): unknown[] {
  const r = new WireReader(data);
  const out: unknown[] = [];
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field !== 1) {
      ctx.unknownFields.push(`unknown field ${field} in ${where} list`);
      r.skip(wire);
      continue;
    }
    readRepeated(ctx, r, wire, elem, where, depth, out);
  }
  return out;
}

function readRepeated(
  ctx: DecodeContext,
  r: WireReader,
  wire: number,
  elem: ValueType,
  where: string,
  depth: number,
  out: unknown[],
): void {
  if (wire === WIRE_BYTES && isPackable(elem) && elem.kind === "scalar") {
    const sub = new WireReader(r.bytes());
    while (!sub.done()) out.push(readScalar(sub, elem.scalar).value);
    return;
  }
  out.push(readValue(ctx, r, wire, elem, where, depth).value);
}

function readMapEntry(
  ctx: DecodeContext,
  data: Uint8Array,
  key: ValueType,
  value: ValueType,
  where: string,
  depth: number,
): [string, unknown] {
  const r = new WireReader(data);
  let k: unknown;
  let v: unknown;
  let hasValue = false;
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field === 1) k = readValue(ctx, r, wire, key, `${where} key`, depth).value;
    else if (field === 2) {
      v = readValue(ctx, r, wire, value, `${where} value`, depth).value;
      hasValue = true;
    } else {
      ctx.unknownFields.push(`unknown field ${field} in ${where} map entry`);
      r.skip(wire);
    }
  }
  if (k === undefined) k = key.kind === "scalar" && key.scalar !== "string" ? 0 : "";
  if (!hasValue) v = zeroValue(ctx, value, depth);
  return [String(k), v];
}

/** Decodes one message into its JSON object. */
export function decodeMessage(
  ctx: DecodeContext,
  data: Uint8Array,
  name: string,
  depth: number,
): { value: Record<string, unknown>; zero: boolean } {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError(`message nesting deeper than ${MAX_DEPTH}`);
  const msg = ctx.registry.message(name);
  const r = new WireReader(data);
  const singles = new Map<CompiledField, Decoded>();
  const lists = new Map<CompiledField, unknown[]>();
  const maps = new Map<CompiledField, Record<string, unknown>>();
  while (!r.done()) {
    const { field, wire } = r.tag();
    const f = msg.byNumber.get(field);
    if (!f) {
      ctx.unknownFields.push(`unknown field ${field} in ${name}`);
      r.skip(wire);
      continue;
    }
    const where = `${name}.${f.json || `#${f.number}`}`;
    if (f.repeated && f.type.kind === "map") {
      if (wire !== WIRE_BYTES) throw new ProtobufDecodeError(`${where}: wire type ${wire}, expected 2`);
      let m = maps.get(f);
      if (!m) maps.set(f, (m = {}));
      const [k, v] = readMapEntry(ctx, r.bytes(), f.type.key, f.type.value, where, depth);
      // defineProperty, not assignment: a key such as "__proto__" must stay an ordinary own key.
      Object.defineProperty(m, k, { value: v, enumerable: true, writable: true, configurable: true });
    } else if (f.repeated) {
      let list = lists.get(f);
      if (!list) lists.set(f, (list = []));
      readRepeated(ctx, r, wire, f.type, where, depth, list);
    } else {
      // A repeated occurrence of a singular field: the last one wins (protobuf semantics).
      singles.set(f, readValue(ctx, r, wire, f.type, where, depth));
    }
  }

  const out: Record<string, unknown> = {};
  let zero = true;
  for (const f of msg.fields) {
    if (f.repeated) {
      const content = f.type.kind === "map" ? maps.get(f) : lists.get(f);
      if (content === undefined) continue;
      zero = false;
      if (f.json !== "-") out[f.json] = content;
      continue;
    }
    const d = singles.get(f);
    if (!d) continue;
    if (f.pointer || !d.zero) zero = false;
    if (f.json === "-") continue;
    if (f.inline) {
      if (d.value !== null && typeof d.value === "object") Object.assign(out, d.value);
      continue;
    }
    if (!f.pointer && d.zero && omitsZero(f)) continue;
    out[f.json] = d.value;
  }
  return { value: out, zero };
}

/** Whether encoding/json would leave this non-pointer field out when it holds its zero value. */
function omitsZero(f: CompiledField): boolean {
  if (f.omitzero) return true;
  if (!f.omitempty) return false;
  // omitempty covers scalars, strings, []byte and slices; never structs.
  return f.type.kind === "scalar" || f.type.kind === "list";
}

function decodeSpecial(ctx: DecodeContext, data: Uint8Array, special: SpecialType, where: string, depth: number): Decoded {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError(`message nesting deeper than ${MAX_DEPTH}`);
  const r = new WireReader(data);
  switch (special) {
    case "Time":
    case "MicroTime": {
      // An empty message is the zero time (Go marshals the zero Time as no bytes at all).
      if (data.length === 0) return { value: null, zero: true };
      let seconds = 0n;
      let nanos = 0;
      while (!r.done()) {
        const { field, wire } = r.tag();
        if (field === 1 && wire === WIRE_VARINT) seconds = BigInt.asIntN(64, r.varintBig());
        else if (field === 2 && wire === WIRE_VARINT) nanos = Number(BigInt.asIntN(32, r.varintBig()));
        else {
          ctx.unknownFields.push(`unknown field ${field} in ${special}`);
          r.skip(wire);
        }
      }
      try {
        // metav1.Time drops nanoseconds when decoding protobuf; MicroTime keeps microseconds.
        const value = special === "Time" ? formatTime(seconds) : formatMicroTime(seconds, nanos);
        return { value, zero: false };
      } catch {
        throw new ProtobufDecodeError(`${where}: time out of range`);
      }
    }
    case "Duration": {
      let nanos = 0n;
      readFields(ctx, r, special, (field, wire) => {
        if (field === 1 && wire === WIRE_VARINT) {
          nanos = BigInt.asIntN(64, r.varintBig());
          return true;
        }
        return false;
      });
      return { value: formatDuration(nanos), zero: nanos === 0n };
    }
    case "Quantity": {
      let s = "";
      readFields(ctx, r, special, (field, wire) => {
        if (field === 1 && wire === WIRE_BYTES) {
          s = r.string();
          return true;
        }
        return false;
      });
      return { value: s === "" ? "0" : s, zero: s === "" || /^[+-]?0*\.?0*([a-zA-Z]*|[eE][+-]?\d+)$/.test(s) };
    }
    case "IntOrString": {
      let type = 0n;
      let intVal = 0;
      let strVal = "";
      readFields(ctx, r, special, (field, wire) => {
        if (field === 1 && wire === WIRE_VARINT) type = BigInt.asIntN(64, r.varintBig());
        else if (field === 2 && wire === WIRE_VARINT) intVal = Number(BigInt.asIntN(32, r.varintBig()));
        else if (field === 3 && wire === WIRE_BYTES) strVal = r.string();
        else return false;
        return true;
      });
      if (type === 1n) return { value: strVal, zero: false };
      if (type !== 0n) throw new ProtobufDecodeError(`${where}: IntOrString type ${type}`);
      return { value: intVal, zero: intVal === 0 && strVal === "" };
    }
    case "RawExtension":
    case "FieldsV1":
    case "JSON": {
      let raw: Uint8Array | undefined;
      readFields(ctx, r, special, (field, wire) => {
        if (field === 1 && wire === WIRE_BYTES) {
          raw = r.bytes();
          return true;
        }
        return false;
      });
      if (raw === undefined || raw.length === 0) return { value: null, zero: true };
      if (special === "RawExtension" && isEnvelope(raw)) return { value: ctx.decodeEmbedded(raw, depth), zero: false };
      try {
        return { value: JSON.parse(decodeUtf8(raw, where)) as unknown, zero: false };
      } catch (err) {
        if (err instanceof ProtobufDecodeError) throw err;
        throw new ProtobufDecodeError(`${where}: ${special} does not hold JSON`);
      }
    }
    case "JSONSchemaPropsOrArray":
    case "JSONSchemaPropsOrBool":
    case "JSONSchemaPropsOrStringArray": {
      // Field numbers: OrArray {schema=1, jSONSchemas=2}, OrBool {allows=1, schema=2},
      // OrStringArray {schema=1, property=2}.
      let schema: unknown;
      const items: unknown[] = [];
      let allows = false;
      const schemaField = special === "JSONSchemaPropsOrBool" ? 2 : 1;
      readFields(ctx, r, special, (field, wire) => {
        if (field === schemaField && wire === WIRE_BYTES) {
          schema = decodeMessage(ctx, r.bytes(), JSON_SCHEMA_PROPS, depth + 1).value;
        } else if (special === "JSONSchemaPropsOrBool" && field === 1 && wire === WIRE_VARINT) {
          allows = r.varintBig() !== 0n;
        } else if (special === "JSONSchemaPropsOrArray" && field === 2 && wire === WIRE_BYTES) {
          items.push(decodeMessage(ctx, r.bytes(), JSON_SCHEMA_PROPS, depth + 1).value);
        } else if (special === "JSONSchemaPropsOrStringArray" && field === 2 && wire === WIRE_BYTES) {
          items.push(r.string());
        } else return false;
        return true;
      });
      // The JSON forms follow the types' MarshalJSON methods.
      if (special === "JSONSchemaPropsOrBool") {
        return { value: schema !== undefined ? schema : allows, zero: schema === undefined && !allows };
      }
      if (items.length > 0) return { value: items, zero: false };
      return { value: schema === undefined ? null : schema, zero: schema === undefined };
    }
  }
}

/** Runs `handle` for each field; unhandled fields are skipped with a warning. */
function readFields(
  ctx: DecodeContext,
  r: WireReader,
  name: string,
  handle: (field: number, wire: number) => boolean,
): void {
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (!handle(field, wire)) {
      ctx.unknownFields.push(`unknown field ${field} in ${name}`);
      r.skip(wire);
    }
  }
}

/** The 4-byte prefix of a Kubernetes protobuf object: "k8s" followed by a NUL byte. */
export const PROTOBUF_MAGIC = new Uint8Array([0x6b, 0x38, 0x73, 0x00]);

export function isEnvelope(data: Uint8Array): boolean {
  return (
    data.length >= 4 &&
    data[0] === PROTOBUF_MAGIC[0] &&
    data[1] === PROTOBUF_MAGIC[1] &&
    data[2] === PROTOBUF_MAGIC[2] &&
    data[3] === PROTOBUF_MAGIC[3]
  );
}
