/**
 * Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`), which kubectl 1.35's
 * typed clients and helm 4 send with no JSON fallback.
 *
 * Contract (the HTTP layer calls these): decodeProtobufBody turns a `k8s\0` body into the object's
 * JSON form; ProtobufDecodeError → 400, UnsupportedProtobufKindError → 415.
 */
import type { KubeObject } from "../../apimachinery/types.js";
import { decodeMessage } from "./decode.js";
import { encodeMessage } from "./encode.js";
import { decodeEnvelope, encodeEnvelope, wrapEnvelope } from "./envelope.js";
import { SchemaRegistry } from "./schema.js";
import { KINDS, MESSAGES } from "./schemas/index.js";

export { ProtobufDecodeError, UnsupportedProtobufKindError } from "./errors.js";

export const PROTOBUF_CONTENT_TYPE = "application/vnd.kubernetes.protobuf";

let registry: SchemaRegistry | undefined;

/** The generated tables, compiled lazily (one shared, append-only cache). */
export function protobufSchemas(): SchemaRegistry {
  registry ??= new SchemaRegistry(MESSAGES, KINDS);
  return registry;
}

/**
 * Decodes a protobuf request body into the JSON object the client would have sent as JSON, with
 * apiVersion/kind from the envelope. Unknown field numbers are skipped silently, as upstream's
 * decoder does (`warnings` stays empty for them); `unknownFields` names them for logs and tests.
 */
export function decodeProtobufBody(body: Uint8Array): { object: KubeObject; warnings: string[]; unknownFields: string[] } {
  const unknownFields: string[] = [];
  const object = decodeEnvelope(protobufSchemas(), body, unknownFields);
  return { object, warnings: [], unknownFields };
}

/** Encodes a JSON object (apiVersion and kind set) as a protobuf body, as client-go would. */
export function encodeProtobufBody(object: KubeObject): Uint8Array {
  return encodeEnvelope(protobufSchemas(), object);
}

/** The message key ("apps/v1.Deployment") serving apiVersion+kind, or undefined (custom resources). */
export function protobufMessageFor(apiVersion: string, kind: string): string | undefined {
  return protobufSchemas().lookupKind(apiVersion, kind);
}

/** The item message of a List message (its field 2, `items`), or undefined for other messages. */
export function listItemMessage(message: string): string | undefined {
  const schemas = protobufSchemas();
  if (!schemas.has(message)) return undefined;
  const f = schemas.message(message).byNumber.get(2);
  return f && f.json === "items" && f.repeated && f.type.kind === "message" ? f.type.message : undefined;
}

/** Encodes the JSON form of one message (no envelope), e.g. a list item or a WatchEvent. */
export function encodeProtobufMessage(object: Record<string, unknown>, message: string): Uint8Array {
  return encodeMessage(protobufSchemas(), object, message);
}

/** Decodes one message (no envelope) into its JSON form. */
export function decodeProtobufMessage(raw: Uint8Array, message: string): Record<string, unknown> {
  const unknownFields: string[] = [];
  const schemas = protobufSchemas();
  return decodeMessage(
    { registry: schemas, unknownFields, decodeEmbedded: (b, d) => decodeEnvelope(schemas, b, unknownFields, d + 1) },
    raw,
    message,
    0,
  ).value;
}

export { wrapEnvelope };
