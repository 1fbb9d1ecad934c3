/**
 * The Kubernetes protobuf envelope: the magic `k8s\0` followed by a runtime.Unknown message
 *   Unknown { 1: TypeMeta { 1: apiVersion, 2: kind }, 2: raw (the object's own message),
 *             3: contentEncoding, 4: contentType }
 * as written by apimachinery's protobuf serializer.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { decodeMessage, isEnvelope, MAX_DEPTH, PROTOBUF_MAGIC, type DecodeContext } from "./decode.js";
import { encodeMessage } from "./encode.js";
import { ProtobufDecodeError, UnsupportedProtobufKindError } from "./errors.js";
import type { SchemaRegistry } from "./schema.js";
import { WIRE_BYTES, WireReader, WireWriter } from "./wire.js";

export interface UnknownEnvelope {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentEncoding: string;
  contentType: string;
}

/** Parses the magic prefix and the runtime.Unknown message. */
export function readEnvelope(body: Uint8Array, unknownFields: string[]): UnknownEnvelope {
  if (!isEnvelope(body)) throw new ProtobufDecodeError("body does not start with the Kubernetes protobuf prefix k8s\\x00");
  const r = new WireReader(body, PROTOBUF_MAGIC.length);
  const env: UnknownEnvelope = { apiVersion: "", kind: "", raw: new Uint8Array(0), contentEncoding: "", contentType: "" };
  while (!r.done()) {
    const { field, wire } = r.tag();
    if (field >= 1 && field <= 4 && wire !== WIRE_BYTES) {
      throw new ProtobufDecodeError(`runtime.Unknown field ${field}: wire type ${wire}, expected 2`);
    }
    switch (field) {
      case 1: {
        const t = new WireReader(r.bytes());
        while (!t.done()) {
          const tag = t.tag();
          if (tag.field === 1 && tag.wire === WIRE_BYTES) env.apiVersion = t.string();
          else if (tag.field === 2 && tag.wire === WIRE_BYTES) env.kind = t.string();
          else {
            unknownFields.push(`unknown field ${tag.field} in runtime.TypeMeta`);
            t.skip(tag.wire);
          }
        }
        break;
      }
      case 2:
        env.raw = r.bytes();
        break;
      case 3:
        env.contentEncoding = r.string();
        break;
      case 4:
        env.contentType = r.string();
        break;
      default:
        unknownFields.push(`unknown field ${field} in runtime.Unknown`);
        r.skip(wire);
    }
  }
  return env;
}

/** Decodes a whole `k8s\0` body into the object's JSON form. */
export function decodeEnvelope(
  registry: SchemaRegistry,
  body: Uint8Array,
  unknownFields: string[],
  depth = 0,
): KubeObject {
  if (depth > MAX_DEPTH) throw new ProtobufDecodeError(`message nesting deeper than ${MAX_DEPTH}`);
  const env = readEnvelope(body, unknownFields);
  if (env.kind === "") throw new ProtobufDecodeError("runtime.Unknown carries no kind");
  if (env.contentEncoding !== "") {
    throw new ProtobufDecodeError(`unsupported protobuf contentEncoding ${JSON.stringify(env.contentEncoding)}`);
  }
  if (env.contentType !== "" && env.contentType !== "application/vnd.kubernetes.protobuf") {
    throw new ProtobufDecodeError(`unsupported runtime.Unknown contentType ${JSON.stringify(env.contentType)}`);
  }
  const message = registry.lookupKind(env.apiVersion, env.kind);
  if (message === undefined) throw new UnsupportedProtobufKindError(env.apiVersion, env.kind);
  const ctx: DecodeContext = {
    registry,
    unknownFields,
    decodeEmbedded: (raw, d) => decodeEnvelope(registry, raw, unknownFields, d + 1),
  };
  const { value } = decodeMessage(ctx, env.raw, message, depth);
  // TypeMeta is not part of the object's message; it comes from the envelope, first like Go's JSON
  // (metav1.TypeMeta declares kind before apiVersion).
  const out: KubeObject = { kind: env.kind };
  if (env.apiVersion !== "") out.apiVersion = env.apiVersion;
  for (const [k, v] of Object.entries(value)) if (k !== "apiVersion" && k !== "kind") out[k] = v;
  return out;
}

/**
 * Encodes a JSON object (with apiVersion and kind) into a `k8s\0` body, field for field as Go's
 * gogo-protobuf marshaller would. Throws UnsupportedProtobufKindError for a kind with no table.
 */
export function encodeEnvelope(registry: SchemaRegistry, object: KubeObject): Uint8Array {
  const apiVersion = typeof object.apiVersion === "string" ? object.apiVersion : "";
  const kind = typeof object.kind === "string" ? object.kind : "";
  const message = registry.lookupKind(apiVersion, kind);
  if (message === undefined) throw new UnsupportedProtobufKindError(apiVersion, kind);
  return wrapEnvelope(apiVersion, kind, encodeMessage(registry, object, message));
}

const utf8 = new TextEncoder();

/** The fixed bytes every envelope ends with: empty contentEncoding (3) and contentType (4). */
const ENVELOPE_TAIL = new Uint8Array([0x1a, 0x00, 0x22, 0x00]);

/**
 * `k8s\0` + runtime.Unknown{typeMeta, raw, "", ""} around an already encoded message, byte for byte
 * as apimachinery's protobuf serializer writes it.
 */
export function wrapEnvelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const typeMeta = new WireWriter();
  typeMeta.bytesField(1, utf8.encode(apiVersion));
  typeMeta.bytesField(2, utf8.encode(kind));
  const w = new WireWriter();
  w.raw(PROTOBUF_MAGIC);
  w.bytesField(1, typeMeta.finish());
  w.bytesField(2, raw);
  w.raw(ENVELOPE_TAIL);
  return w.finish();
}
