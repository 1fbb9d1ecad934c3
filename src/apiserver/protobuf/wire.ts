/**
 * Protobuf wire format: a bounds-checked reader and a growable writer. Only what Kubernetes'
 * gogo-generated messages use: varint (0), fixed64 (1), length-delimited (2), fixed32 (5).
 * Groups (3, 4) are rejected as malformed, as gogo's generated Unmarshal rejects them.
 */
import { ProtobufDecodeError } from "./errors.js";

export const WIRE_VARINT = 0;
export const WIRE_FIXED64 = 1;
export const WIRE_BYTES = 2;
export const WIRE_FIXED32 = 5;

const TWO_32 = 4294967296;
const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

/**
 * Reads protobuf wire data from `buf[pos, end)`. Invariant: `pos <= end <= buf.length`; every read
 * checks it before touching the buffer, and throws ProtobufDecodeError on truncation.
 */
export class WireReader {
  pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  done(): boolean {
    return this.pos >= this.end;
  }

  /** Reads a varint as an unsigned 64-bit BigInt. */
  varintBig(): bigint {
    let result = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError("truncated varint");
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return BigInt.asUintN(64, result);
      shift += 7n;
    }
    throw new ProtobufDecodeError("varint longer than 10 bytes");
  }

  /** Reads a varint known to be small (tags, lengths); throws past 2^31. */
  uint32(): number {
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufDecodeError("truncated varint");
      const b = this.buf[this.pos++];
      result += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (result > 0x7fffffff) throw new ProtobufDecodeError(`length or tag ${result} out of range`);
        return result;
      }
      mul *= 128;
    }
    throw new ProtobufDecodeError("varint longer than 10 bytes");
  }

  tag(): { field: number; wire: number } {
    const t = this.uint32();
    const field = Math.floor(t / 8);
    if (field === 0) throw new ProtobufDecodeError("field number 0");
    return { field, wire: t & 7 };
  }

  /** A length-delimited payload, as a view (no copy). */
  bytes(): Uint8Array {
    const len = this.uint32();
    if (this.pos + len > this.end) throw new ProtobufDecodeError("length-delimited field runs past its message");
    const out = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return out;
  }

  string(): string {
    try {
      return utf8.decode(this.bytes());
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw err;
      throw new ProtobufDecodeError("string field is not valid UTF-8");
    }
  }

  fixed32(): DataView {
    if (this.pos + 4 > this.end) throw new ProtobufDecodeError("truncated fixed32");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 4);
    this.pos += 4;
    return v;
  }

  fixed64(): DataView {
    if (this.pos + 8 > this.end) throw new ProtobufDecodeError("truncated fixed64");
    const v = new DataView(this.buf.buffer, this.buf.byteOffset + this.pos, 8);
    this.pos += 8;
    return v;
  }

  /** Skips one value of the given wire type. */
  skip(wire: number): void {
    switch (wire) {
      case WIRE_VARINT:
        this.varintBig();
        return;
      case WIRE_FIXED64:
        this.fixed64();
        return;
      case WIRE_BYTES:
        this.bytes();
        return;
      case WIRE_FIXED32:
        this.fixed32();
        return;
      default:
        throw new ProtobufDecodeError(`unsupported wire type ${wire}`);
    }
  }
}

/** Growable protobuf writer. */
export class WireWriter {
  private buf = new Uint8Array(256);
  private len = 0;

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  /** Writes an unsigned varint; negative numbers are written as 64-bit two's complement. */
  varint(value: number | bigint): void {
    let v = typeof value === "bigint" ? BigInt.asUintN(64, value) : undefined;
    if (v === undefined) {
      const n = value as number;
      if (n >= 0 && n < TWO_32 * 2097152) {
        // Up to 2^53: plain arithmetic.
        let x = n;
        this.ensure(10);
        while (x >= 128) {
          this.buf[this.len++] = (x % 128) | 0x80;
          x = Math.floor(x / 128);
        }
        this.buf[this.len++] = x;
        return;
      }
      v = BigInt.asUintN(64, BigInt(Math.trunc(n)));
    }
    this.ensure(10);
    while (v >= 128n) {
      this.buf[this.len++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.len++] = Number(v);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  /**
   * Starts a length-delimited field whose content is then written in place (a nested message):
   * writes the tag, reserves one byte for the length, returns the mark for endNested. Nesting
   * needs no buffer per message; a length past 127 moves the content right by the extra bytes.
   */
  beginNested(field: number): number {
    this.tag(field, WIRE_BYTES);
    this.ensure(1);
    return this.len++;
  }

  endNested(mark: number): void {
    const len = this.len - mark - 1;
    if (len < 128) {
      this.buf[mark] = len;
      return;
    }
    let extra = 0;
    for (let n = len; n >= 128; n = Math.floor(n / 128)) extra++;
    this.ensure(extra);
    this.buf.copyWithin(mark + 1 + extra, mark + 1, this.len);
    let n = len;
    let p = mark;
    while (n >= 128) {
      this.buf[p++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.buf[p] = n;
    this.len += extra;
  }

  /** A string field, UTF-8 encoded straight into the buffer. */
  stringField(field: number, s: string): void {
    this.tag(field, WIRE_BYTES);
    // At most 3 bytes per UTF-16 unit; ASCII-only strings (the common case) are 1 byte each.
    const max = s.length * 3;
    this.ensure(max + 5);
    if (max < 128) {
      // Short strings: copy ASCII directly (most names, labels and enum values are ASCII).
      const start = this.len + 1;
      const buf = this.buf;
      let i = 0;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + i] = c;
      }
      if (i === s.length) {
        buf[this.len] = i;
        this.len = start + i;
        return;
      }
      const { written } = utf8Encoder.encodeInto(s, buf.subarray(start));
      buf[this.len] = written;
      this.len = start + written;
      return;
    }
    const mark = this.len++;
    const { written } = utf8Encoder.encodeInto(s, this.buf.subarray(this.len));
    this.len += written;
    this.endNested(mark);
  }

  bytesField(field: number, bytes: Uint8Array): void {
    this.tag(field, WIRE_BYTES);
    this.varint(bytes.length);
    this.raw(bytes);
  }

  double(field: number, value: number): void {
    this.tag(field, WIRE_FIXED64);
    this.ensure(8);
    new DataView(this.buf.buffer, this.len, 8).setFloat64(0, value, true);
    this.len += 8;
  }

  float(field: number, value: number): void {
    this.tag(field, WIRE_FIXED32);
    this.ensure(4);
    new DataView(this.buf.buffer, this.len, 4).setFloat32(0, value, true);
    this.len += 4;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}
