/**
 * encoding/base64.StdEncoding.Decode as encoding/json uses it for []byte fields: padded standard
 * alphabet, '\r' and '\n' ignored, trailing bits not checked; errors name the input byte
 * (`illegal base64 data at input byte 4`). Decoding succeeds into the canonical re-encoding Go
 * would write back.
 */

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const decodeMap = new Int16Array(256).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) decodeMap[ALPHABET.charCodeAt(i)] = i;
const PAD = 61; // '='
const CR = 13;
const LF = 10;

export class Base64Error extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
    this.name = "Base64Error";
  }
}

/** Go's decodeQuantum: up to 4 symbols from src[si]; returns the next index, bytes decoded, and a trailing error. */
function quantum(src: Uint8Array, si: number, out: number[]): { si: number; err?: Base64Error } {
  const dbuf = [0, 0, 0, 0];
  let dlen = 4;
  let err: Base64Error | undefined;
  for (let j = 0; j < 4; j++) {
    if (src.length === si) {
      // Out of input inside a quantum: padding was required.
      if (j === 0) return { si };
      return { si, err: new Base64Error(si - j) };
    }
    const c = src[si];
    si++;
    const v = decodeMap[c];
    if (v >= 0) {
      dbuf[j] = v;
      continue;
    }
    if (c === LF || c === CR) {
      j--;
      continue;
    }
    if (c !== PAD) throw new Base64Error(si - 1);
    // Padding: the end of the data.
    if (j === 0 || j === 1) throw new Base64Error(si - 1);
    if (j === 2) {
      while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
      if (si === src.length) throw new Base64Error(src.length);
      if (src[si] !== PAD) throw new Base64Error(si - 1);
      si++;
    }
    while (si < src.length && (src[si] === LF || src[si] === CR)) si++;
    if (si < src.length) err = new Base64Error(si);
    dlen = j;
    break;
  }
  const val = (dbuf[0] << 18) | (dbuf[1] << 12) | (dbuf[2] << 6) | dbuf[3];
  const bytes = [(val >> 16) & 0xff, (val >> 8) & 0xff, val & 0xff];
  for (let k = 0; k < dlen - 1; k++) out.push(bytes[k]);
  return { si, err };
}

/**
 * Decodes `s` (a JSON string's content) as Go does; returns the canonical base64 of the bytes.
 * Throws Base64Error.
 */
export function canonicalBase64(s: string): string {
  // Fast path: already canonical (what Go writes, and what well-behaved clients send).
  if (s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    const b = Buffer.from(s, "base64");
    const re = b.toString("base64");
    if (re === s) return s;
  }
  const src = Buffer.from(s, "utf8");
  const out: number[] = [];
  let si = 0;
  while (si < src.length) {
    const r = quantum(src, si, out);
    if (r.err) throw r.err;
    if (r.si === si) break;
    si = r.si;
  }
  return Buffer.from(out).toString("base64");
}
