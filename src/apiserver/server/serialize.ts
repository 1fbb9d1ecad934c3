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

/**
 * The UTF-8 of JSON.stringify(body) for a response body. A list whose `items` is its last field
 * (every *List the server builds) is assembled from the cached bytes of its items.
 */
export function bodyBytes(body: unknown): Buffer {
  if (typeof body !== "object" || body === null) return Buffer.from(JSON.stringify(body));
  if (Object.isFrozen(body)) return objectBytes(body);
  const items = (body as { items?: unknown }).items;
  if (!Array.isArray(items) || items.length === 0) return Buffer.from(JSON.stringify(body));
  let last: string | undefined;
  for (const k in body) last = k;
  if (last !== "items") return Buffer.from(JSON.stringify(body));
  const parts = new Array<Buffer>(items.length * 2 + 1);
  // The same object with an empty list ends in `"items":[]}`; the items go between the brackets.
  parts[0] = Buffer.from(JSON.stringify({ ...body, items: [] }).slice(0, -2));
  for (let i = 0; i < items.length; i++) {
    const item: unknown = items[i];
    // Inside an array JSON.stringify writes null for what it would omit; keep to objects.
    if (typeof item !== "object" || item === null) return Buffer.from(JSON.stringify(body));
    parts[2 * i + 1] = objectBytes(item);
    parts[2 * i + 2] = i + 1 < items.length ? comma : close;
  }
  return Buffer.concat(parts);
}
