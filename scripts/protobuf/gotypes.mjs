/**
 * Reads Go runtime type descriptors (the data `reflect` uses) out of a stripped, statically linked
 * linux/amd64 Go executable such as kubectl 1.35 (built with go1.25).
 *
 * Why: every Kubernetes API struct carries its wire facts in its struct tags
 * (`json:"replicas,omitempty" protobuf:"varint,1,opt,name=replicas"`), and the Go field type says
 * whether a field is a pointer. kubectl registers every built-in API type in its scheme, so the
 * descriptors of all of them, with their tags, are in the binary. Reading them gives exactly the
 * schema the client's protobuf marshaller used, including the two facts generated.proto lacks:
 * pointer-ness and `json:",inline"` embedding.
 *
 * Layout facts used (internal/abi of go1.21..go1.25, 64-bit):
 *   Type      { Size uintptr; PtrBytes uintptr; Hash uint32; TFlag uint8; Align uint8; FieldAlign uint8;
 *               Kind uint8; Equal func; GCData *byte; Str NameOff(int32); PtrToThis TypeOff(int32) }  48 bytes
 *   PtrType/SliceType { Type; Elem *Type }            ArrayType { Type; Elem; Slice; Len uintptr }
 *   MapType   { Type; Key *Type; Elem *Type; ... }    StructType { Type; PkgPath Name; Fields []StructField }
 *   StructField { Name Name; Typ *Type; Offset uintptr }
 *   UncommonType (after the kind-specific part when TFlag&1) { PkgPath NameOff; ... }
 *   Name: flags byte (1 exported, 2 tag, 4 pkgpath, 8 embedded), uvarint len, bytes, [uvarint len, tag]
 * The `types` base (target of NameOff/TypeOff) is the start of .rodata; `.typelink` holds int32
 * offsets of the linker's list of types, from which every other type is reached by traversal.
 */
import { readFileSync } from "node:fs";

const KIND_NAMES = [
  "invalid", "bool", "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32",
  "uint64", "uintptr", "float32", "float64", "complex64", "complex128", "array", "chan", "func",
  "interface", "map", "ptr", "slice", "string", "struct", "unsafe.Pointer",
];

/** @typedef {{ addr: bigint, kind: string, name: string, pkgPath: string, named: boolean, elem?: bigint, key?: bigint, fields?: GoField[] }} GoType */
/** @typedef {{ name: string, tag: string, embedded: boolean, type: bigint }} GoField */

export class GoBinary {
  /** @param {Buffer} buf */
  constructor(buf) {
    this.buf = buf;
    if (buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2 || buf[5] !== 1) {
      throw new Error("not a 64-bit little-endian ELF file");
    }
    const shoff = Number(buf.readBigUInt64LE(0x28));
    const shentsize = buf.readUInt16LE(0x3a);
    const shnum = buf.readUInt16LE(0x3c);
    const shstrndx = buf.readUInt16LE(0x3e);
    /** @type {{ name: string, addr: bigint, off: number, size: number }[]} */
    const sections = [];
    const raw = [];
    for (let i = 0; i < shnum; i++) {
      const o = shoff + i * shentsize;
      raw.push({
        nameOff: buf.readUInt32LE(o),
        type: buf.readUInt32LE(o + 4),
        addr: buf.readBigUInt64LE(o + 0x10),
        off: Number(buf.readBigUInt64LE(o + 0x18)),
        size: Number(buf.readBigUInt64LE(o + 0x20)),
      });
    }
    const strtab = raw[shstrndx];
    for (const s of raw) {
      let end = strtab.off + s.nameOff;
      while (buf[end] !== 0) end++;
      const name = buf.toString("latin1", strtab.off + s.nameOff, end);
      if (s.type !== 8 /* NOBITS */) sections.push({ name, addr: s.addr, off: s.off, size: s.size });
    }
    this.sections = sections;
    const rodata = this.section(".rodata");
    this.typesBase = rodata.addr;
    /** @type {Map<bigint, GoType>} */
    this.cache = new Map();
  }

  /** @param {string} name */
  section(name) {
    const s = this.sections.find((x) => x.name === name);
    if (!s) throw new Error(`section ${name} not found`);
    return s;
  }

  /** File offset of a virtual address. @param {bigint} addr */
  off(addr) {
    for (const s of this.sections) {
      if (addr >= s.addr && addr < s.addr + BigInt(s.size)) return s.off + Number(addr - s.addr);
    }
    throw new Error(`address 0x${addr.toString(16)} is in no file-backed section`);
  }

  /** @param {bigint} addr */ u8(addr) { return this.buf[this.off(addr)]; }
  /** @param {bigint} addr */ i32(addr) { return this.buf.readInt32LE(this.off(addr)); }
  /** @param {bigint} addr */ u64(addr) { return this.buf.readBigUInt64LE(this.off(addr)); }

  /** Decodes a runtime name at an absolute address. @param {bigint} addr */
  nameAt(addr) {
    let p = this.off(addr);
    const flags = this.buf[p++];
    const readVarint = () => {
      let v = 0, shift = 0;
      for (;;) {
        if (p >= this.buf.length || shift > 28) throw new Error("bad name varint");
        const b = this.buf[p++];
        v |= (b & 0x7f) << shift;
        if (b < 0x80) return v;
        shift += 7;
      }
    };
    const n = readVarint();
    const name = this.buf.toString("utf8", p, p + n);
    p += n;
    let tag = "";
    if (flags & 2) {
      const t = readVarint();
      tag = this.buf.toString("utf8", p, p + t);
    }
    return { name, tag, embedded: (flags & 8) !== 0 };
  }

  /** Addresses of all types listed in .typelink. */
  typelinks() {
    const s = this.section(".typelink");
    const out = [];
    for (let i = 0; i < s.size; i += 4) out.push(this.typesBase + BigInt(this.buf.readInt32LE(s.off + i)));
    return out;
  }

  /** @param {bigint} addr @returns {GoType} */
  type(addr) {
    const hit = this.cache.get(addr);
    if (hit) return hit;
    const tflag = this.u8(addr + 20n);
    const kind = KIND_NAMES[this.u8(addr + 23n) & 0x1f] ?? "invalid";
    const strOff = this.i32(addr + 40n);
    let name = this.nameAt(this.typesBase + BigInt(strOff)).name;
    if (tflag & 2) name = name.slice(1);
    /** @type {GoType} */
    const t = { addr, kind, name, pkgPath: "", named: (tflag & 4) !== 0 };
    this.cache.set(addr, t);
    let uncommon = -1n;
    switch (kind) {
      case "ptr":
      case "slice":
        t.elem = this.u64(addr + 48n);
        uncommon = addr + 56n;
        break;
      case "array":
        t.elem = this.u64(addr + 48n);
        uncommon = addr + 72n;
        break;
      case "map":
        // Swiss-table MapType (go1.24+): Key, Elem, Group, Hasher, GroupSize, SlotSize, ElemOff, Flags.
        t.key = this.u64(addr + 48n);
        t.elem = this.u64(addr + 56n);
        uncommon = addr + 112n;
        break;
      case "struct": {
        const fptr = this.u64(addr + 56n);
        const flen = Number(this.u64(addr + 64n));
        if (flen > 100_000) throw new Error(`implausible field count ${flen} at 0x${addr.toString(16)}`);
        t.fields = [];
        for (let i = 0; i < flen; i++) {
          const f = fptr + BigInt(i * 24);
          const n = this.nameAt(this.u64(f));
          t.fields.push({ name: n.name, tag: n.tag, embedded: n.embedded, type: this.u64(f + 8n) });
        }
        uncommon = addr + 80n;
        break;
      }
      case "func":
      case "interface":
      case "chan":
      case "invalid":
      case "unsafe.Pointer":
        // Their kind-specific parts are not needed here; neither is their package.
        break;
      default:
        // Scalars and strings: the uncommon part follows the 48-byte header.
        uncommon = addr + 48n;
    }
    if ((tflag & 1) && uncommon >= 0n) {
      const pk = this.i32(uncommon);
      if (pk !== 0) t.pkgPath = this.nameAt(this.typesBase + BigInt(pk)).name;
    }
    return t;
  }

  /**
   * Every named type reachable from the typelinks, keyed "pkgPath.Name".
   * @returns {Map<string, GoType>}
   */
  namedTypes() {
    /** @type {Map<string, GoType>} */
    const out = new Map();
    const seen = new Set();
    const stack = this.typelinks();
    while (stack.length > 0) {
      const a = /** @type {bigint} */ (stack.pop());
      if (a === 0n || seen.has(a)) continue;
      seen.add(a);
      let t;
      try {
        t = this.type(a);
      } catch {
        continue;
      }
      if (t.pkgPath && t.named) {
        const short = t.name.slice(t.name.lastIndexOf(".") + 1);
        out.set(`${t.pkgPath}.${short}`, t);
      }
      if (t.elem) stack.push(t.elem);
      if (t.key) stack.push(t.key);
      for (const f of t.fields ?? []) stack.push(f.type);
    }
    return out;
  }
}

/** @param {string} path */
export function openGoBinary(path) {
  return new GoBinary(readFileSync(path));
}
