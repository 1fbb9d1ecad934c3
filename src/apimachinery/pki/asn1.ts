/**
 * A minimal ASN.1 DER encoder: just the universal types an X.509 certificate is made of.
 * Every function returns the complete TLV (tag, definite length, value) as a Buffer.
 */

export const Tag = {
  boolean: 0x01,
  integer: 0x02,
  bitString: 0x03,
  octetString: 0x04,
  null: 0x05,
  oid: 0x06,
  utf8String: 0x0c,
  printableString: 0x13,
  ia5String: 0x16,
  utcTime: 0x17,
  generalizedTime: 0x18,
  sequence: 0x30,
  set: 0x31,
} as const;

function lengthBytes(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

/** A TLV with an arbitrary tag byte. */
export function tlv(tag: number, value: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([tag]), lengthBytes(value.length), value]);
}

export const sequence = (...items: Uint8Array[]): Buffer => tlv(Tag.sequence, Buffer.concat(items));
export const set = (...items: Uint8Array[]): Buffer => tlv(Tag.set, Buffer.concat(items));
export const octetString = (b: Uint8Array): Buffer => tlv(Tag.octetString, b);
export const nullValue = (): Buffer => tlv(Tag.null, Buffer.alloc(0));
export const boolean = (v: boolean): Buffer => tlv(Tag.boolean, Buffer.from([v ? 0xff : 0x00]));
export const utf8String = (s: string): Buffer => tlv(Tag.utf8String, Buffer.from(s, "utf8"));
export const ia5String = (s: string): Buffer => tlv(Tag.ia5String, Buffer.from(s, "ascii"));

/** Context-specific constructed tag [n] EXPLICIT wrapping `inner`. */
export const explicit = (n: number, inner: Uint8Array): Buffer => tlv(0xa0 | n, inner);
/** Context-specific primitive tag [n] IMPLICIT with raw contents. */
export const implicitPrimitive = (n: number, contents: Uint8Array): Buffer => tlv(0x80 | n, contents);

/** A non-negative INTEGER from big-endian magnitude bytes (leading zeros trimmed, sign byte added). */
export function unsignedInteger(magnitude: Uint8Array): Buffer {
  let i = 0;
  while (i < magnitude.length - 1 && magnitude[i] === 0) i++;
  let body = Buffer.from(magnitude.subarray(i));
  if (body.length === 0) body = Buffer.from([0]);
  if (body[0] & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return tlv(Tag.integer, body);
}

export function smallInteger(n: number): Buffer {
  if (!Number.isInteger(n) || n < 0 || n > 0x7fffffff) throw new RangeError(`integer ${n} out of range`);
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return unsignedInteger(b);
}

/** BIT STRING holding whole bytes (unused bits 0): signatures and public keys. */
export const bitStringBytes = (b: Uint8Array): Buffer => tlv(Tag.bitString, Buffer.concat([Buffer.from([0]), b]));

/**
 * BIT STRING of named bits (bit 0 = most significant bit of the first byte), DER form:
 * trailing zero bits removed and counted as unused.
 */
export function namedBits(bits: readonly number[]): Buffer {
  if (bits.length === 0) return tlv(Tag.bitString, Buffer.from([0]));
  const max = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(max / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)] |= 0x80 >> bit % 8;
  const unused = 7 - (max % 8);
  return tlv(Tag.bitString, Buffer.concat([Buffer.from([unused]), bytes]));
}

export function oid(dotted: string): Buffer {
  const parts = dotted.split(".").map((p) => {
    if (!/^\d+$/.test(p)) throw new Error(`malformed OID ${dotted}`);
    return BigInt(p);
  });
  if (parts.length < 2) throw new Error(`malformed OID ${dotted}`);
  const arcs = [parts[0] * 40n + parts[1], ...parts.slice(2)];
  const out: number[] = [];
  for (const arc of arcs) {
    const chunk: number[] = [];
    let v = arc;
    do {
      chunk.unshift(Number(v & 0x7fn));
      v >>= 7n;
    } while (v > 0n);
    for (let i = 0; i < chunk.length - 1; i++) chunk[i] |= 0x80;
    out.push(...chunk);
  }
  return tlv(Tag.oid, Buffer.from(out));
}

const pad2 = (n: number) => String(n).padStart(2, "0");

/** X.509 Time: UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5), second precision. */
export function time(d: Date): Buffer {
  const y = d.getUTCFullYear();
  const rest = `${pad2(d.getUTCMonth() + 1)}${pad2(d.getUTCDate())}${pad2(d.getUTCHours())}${pad2(d.getUTCMinutes())}${pad2(d.getUTCSeconds())}Z`;
  if (y >= 1950 && y < 2050) return tlv(Tag.utcTime, Buffer.from(`${pad2(y % 100)}${rest}`, "ascii"));
  return tlv(Tag.generalizedTime, Buffer.from(`${String(y).padStart(4, "0")}${rest}`, "ascii"));
}

/** PEM armour, 64 base64 characters per line. */
export function pem(label: string, der: Uint8Array): string {
  const b64 = Buffer.from(der).toString("base64");
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
