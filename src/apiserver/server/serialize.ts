/**
 * JSON bytes of response bodies, with the bytes of stored objects computed once.
 *
 * Objects read from storage are deep-frozen and never change afterwards (storage/memory.ts,
 * storage/sqlite.ts): their JSON is a pure function of their identity, so it is encoded once,
 * kept beside the object (a WeakMap: it goes away with the object) and reused by every GET,
 * LIST, write response and watch frame that carries the same object. Only frozen values are
 * cached; anything else is serialized afresh. The server freezes only with deepFreeze, so a
 * frozen object here is frozen all the way down.
 *
 * The output is byte-for-byte the UTF-8 of JSON.stringify(body).
 */
import { encodeProtobufMessage, listItemMessage, protobufMessageFor } from "../protobuf/index.js";

const encoded = new WeakMap<object, Buffer>();

/** The UTF-8 bytes of JSON.stringify(value), cached for frozen objects. */
export function objectBytes(value: object): Buffer {
  if (!Object.isFrozen(value)) return Buffer.from(JSON.stringify(value));
  let b = encoded.get(value);
  if (b === undefined) {
    b = Buffer.from(JSON.stringify(value));
    encoded.set(value, b);
  }
  return b;
}

const comma = Buffer.from(",");
const close = Buffer.from("]}");

/** A response body as the buffers to write in order, and their total length. */
export interface BodyChunks {
  readonly chunks: readonly Buffer[];
  readonly length: number;
}

const single = (b: Buffer): BodyChunks => ({ chunks: [b], length: b.length });

/**
 * The UTF-8 of JSON.stringify(body) for a response body, as chunks: a list whose `items` is its
 * last field (every *List the server builds) is the list's head, then each item's cached bytes
 * with a comma or the closing `]}`; nothing is serialized again but the head.
 */
export function bodyChunks(body: unknown): BodyChunks {
  if (typeof body !== "object" || body === null) return single(Buffer.from(JSON.stringify(body)));
  if (Object.isFrozen(body)) return single(objectBytes(body));
  const items = (body as { items?: unknown }).items;
  if (!Array.isArray(items) || items.length === 0) return single(Buffer.from(JSON.stringify(body)));
  let last: string | undefined;
  for (const k in body) last = k;
  if (last !== "items") return single(Buffer.from(JSON.stringify(body)));
  // The same object with an empty list ends in `"items":[]}`; the items go between the brackets.
  const head = Buffer.from(JSON.stringify({ ...body, items: [] }).slice(0, -2));
  if (Object.isFrozen(items)) {
    // A frozen items array (a LIST result the store reuses, rest/listcache.ts) never changes:
    // the bytes between its brackets are kept beside it.
    let joined = encodedItems.get(items);
    if (joined === undefined) {
      const own = itemChunks(items);
      if (own === undefined) return single(Buffer.from(JSON.stringify(body)));
      joined = own;
      encodedItems.set(items, joined);
    }
    return { chunks: [head, joined, close], length: head.length + joined.length + close.length };
  }
  const parts = new Array<Buffer>(items.length * 2 + 1);
  parts[0] = head;
  let length = parts[0].length + items.length;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    // Inside an array JSON.stringify writes null for what it would omit; keep to objects.
    if (typeof item !== "object" || item === null) return single(Buffer.from(JSON.stringify(body)));
    const b = objectBytes(item);
    parts[2 * i + 1] = b;
    parts[2 * i + 2] = i + 1 < items.length ? comma : close;
    length += b.length;
  }
  // `items.length` separators: n − 1 commas of one byte and the two bytes of `]}`.
  return { chunks: parts, length: length + 1 };
}

/** Bytes of the items of frozen arrays, comma-separated, without the brackets. */
const encodedItems = new WeakMap<readonly unknown[], Buffer>();

/** `item,item,…` of a non-empty array of objects in one Buffer; undefined if an item is no object. */
function itemChunks(items: readonly unknown[]): Buffer | undefined {
  const parts = new Array<Buffer>(items.length);
  let length = items.length - 1;
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    if (typeof item !== "object" || item === null) return undefined;
    parts[i] = objectBytes(item);
    length += parts[i].length;
  }
  const out = Buffer.allocUnsafe(length);
  let pos = 0;
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) out[pos++] = 0x2c; // ","
    out.set(parts[i], pos);
    pos += parts[i].length;
  }
  return out;
}

/**
 * The UTF-8 of JSON.stringify(body) for a response body, in one Buffer (see bodyChunks). This is
 * what responses write: copying a 500-item list's cached bytes into one buffer takes tens of
 * microseconds, while handing them to the socket as a thousand chunks (one `res.write` each, then
 * a writev of that many buffers) cost ~0.3–0.5 ms of server CPU per request more, measured with
 * each side in its own process (bench/README.md, branch `listget`).
 */
export function bodyBytes(body: unknown): Buffer {
  return joinChunks(bodyChunks(body));
}

/** The chunks of a body in one Buffer (the chunk itself when there is one). */
export function joinChunks({ chunks, length }: BodyChunks): Buffer {
  if (chunks.length === 1) return chunks[0];
  const out = Buffer.allocUnsafe(length);
  let pos = 0;
  for (const c of chunks) {
    out.set(c, pos);
    pos += c.length;
  }
  return out;
}

/*
 * Protobuf bodies (application/vnd.kubernetes.protobuf): the `k8s\0` envelope around the object's
 * generated.proto message. Frozen objects' message bytes are cached like their JSON (a second
 * WeakMap, so JSON-only traffic never pays for it); a list is assembled from its items' cached
 * bytes. Only kinds with a table can be encoded (custom resources cannot, as upstream).
 */

interface EncodedMessage {
  readonly message: string;
  readonly bytes: Uint8Array;
}

const protobufEncoded = new WeakMap<object, EncodedMessage>();

/** The message bytes (no envelope) of `value` as `message`, cached for frozen objects. */
function messageBytes(value: object, message: string): Uint8Array {
  if (!Object.isFrozen(value)) return encodeProtobufMessage(value as Record<string, unknown>, message);
  const hit = protobufEncoded.get(value);
  if (hit !== undefined && hit.message === message) return hit.bytes;
  const bytes = encodeProtobufMessage(value as Record<string, unknown>, message);
  if (hit === undefined) protobufEncoded.set(value, { message, bytes });
  return bytes;
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(buf: Uint8Array, pos: number, n: number): number {
  while (n >= 128) {
    buf[pos++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  buf[pos++] = n;
  return pos;
}

/** Tag of field 2, wire type 2 (a List's `items`). */
const ITEMS_TAG = 0x12;

/** `k8s\0` + runtime.Unknown's typeMeta field + the tag and length of its raw field. */
function envelopeHead(apiVersion: string, kind: string, rawLength: number): Buffer {
  const av = Buffer.from(apiVersion);
  const k = Buffer.from(kind);
  const tm = 1 + varintLength(av.length) + av.length + 1 + varintLength(k.length) + k.length;
  const head = Buffer.allocUnsafe(4 + 1 + varintLength(tm) + tm + 1 + varintLength(rawLength));
  let pos = head.write("k8s\0", 0, "latin1");
  head[pos++] = 0x0a; // Unknown.typeMeta
  pos = writeVarint(head, pos, tm);
  head[pos++] = 0x0a; // TypeMeta.apiVersion
  pos = writeVarint(head, pos, av.length);
  pos += av.copy(head, pos);
  head[pos++] = 0x12; // TypeMeta.kind
  pos = writeVarint(head, pos, k.length);
  pos += k.copy(head, pos);
  head[pos++] = 0x12; // Unknown.raw
  writeVarint(head, pos, rawLength);
  return head;
}

/** Unknown.contentEncoding and contentType, both empty. */
const ENVELOPE_TAIL = Buffer.from([0x1a, 0x00, 0x22, 0x00]);

/**
 * The protobuf body of a response (object, list, Status, Scale, PartialObjectMetadata), or
 * undefined when its apiVersion/kind has no table or a value does not fit its field's type (a
 * stored object that the schema-driven decoding would have rejected): the caller then answers
 * JSON, which every client that asks for protobuf also lists. A *List (its `items` is field 2 in
 * every List message) is assembled from the cached bytes of its items into one buffer.
 */
export function protobufBodyBytes(body: unknown): Buffer | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const o = body as Record<string, unknown>;
  const apiVersion = typeof o.apiVersion === "string" ? o.apiVersion : "";
  const kind = typeof o.kind === "string" ? o.kind : "";
  const message = protobufMessageFor(apiVersion, kind);
  if (message === undefined) return undefined;
  try {
    const items = o.items;
    const itemMessage = Array.isArray(items) && items.length > 0 && !Object.isFrozen(o) ? listItemMessage(message) : undefined;
    if (itemMessage === undefined) {
      const raw = messageBytes(o, message);
      const head = envelopeHead(apiVersion, kind, raw.length);
      return Buffer.concat([head, raw, ENVELOPE_TAIL], head.length + raw.length + ENVELOPE_TAIL.length);
    }
    const list = items as unknown[];
    const listHead = encodeProtobufMessage({ ...o, items: undefined }, message);
    const parts = new Array<Uint8Array>(list.length);
    let rawLength = listHead.length;
    for (let i = 0; i < list.length; i++) {
      const item: unknown = list[i];
      if (typeof item !== "object" || item === null) return undefined;
      const b = messageBytes(item, itemMessage);
      parts[i] = b;
      rawLength += 1 + varintLength(b.length) + b.length;
    }
    const head = envelopeHead(apiVersion, kind, rawLength);
    const out = Buffer.allocUnsafe(head.length + rawLength + ENVELOPE_TAIL.length);
    let pos = head.copy(out, 0);
    out.set(listHead, pos);
    pos += listHead.length;
    for (const b of parts) {
      out[pos++] = ITEMS_TAG;
      pos = writeVarint(out, pos, b.length);
      out.set(b, pos);
      pos += b.length;
    }
    ENVELOPE_TAIL.copy(out, pos);
    return out;
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) return undefined;
    throw err;
  }
}

/**
 * One frame of a protobuf watch (`application/vnd.kubernetes.protobuf;stream=watch`), as
 * client-go's length-delimited frame reader expects: a 4-byte big-endian length, then a raw
 * (unprefixed) metav1.WatchEvent { 1: type, 2: RawExtension { 1: the object's `k8s\0` body } }.
 * Undefined when the object cannot be encoded (see protobufBodyBytes).
 */
export function protobufWatchFrame(type: string, object: unknown): Buffer | undefined {
  const body = protobufBodyBytes(object);
  if (body === undefined) return undefined;
  const typeBytes = Buffer.from(type);
  const rawExt = 1 + varintLength(body.length) + body.length;
  const event = 1 + varintLength(typeBytes.length) + typeBytes.length + 1 + varintLength(rawExt) + rawExt;
  const out = Buffer.allocUnsafe(4 + event);
  out.writeUInt32BE(event, 0);
  let pos = 4;
  out[pos++] = 0x0a; // WatchEvent.type (1, bytes)
  pos = writeVarint(out, pos, typeBytes.length);
  typeBytes.copy(out, pos);
  pos += typeBytes.length;
  out[pos++] = 0x12; // WatchEvent.object (2, bytes)
  pos = writeVarint(out, pos, rawExt);
  out[pos++] = 0x0a; // RawExtension.raw (1, bytes)
  pos = writeVarint(out, pos, body.length);
  body.copy(out, pos);
  return out;
}
