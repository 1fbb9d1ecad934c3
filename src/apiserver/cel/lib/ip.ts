/**
 * Kubernetes' IP and CIDR libraries (library/ip.go, library/cidr.go), with Go netip's parsing
 * (no leading zeros in IPv4, `::` compression, no zones) and Kubernetes' refusals (zones,
 * IPv4-mapped IPv6). ip(), isIP(), ip.isCanonical(), family(), isUnspecified(), isLoopback(),
 * isLinkLocalMulticast(), isLinkLocalUnicast(), isGlobalUnicast(); cidr(), isCIDR(),
 * containsIP(), containsCIDR(), ip(), masked(), prefixLength(); string() of both.
 */
import { Library, memberOverload, overload } from "../decls.js";
import { T } from "../types.js";
import { CelError, ExtensionValue, type CelObject, type Val } from "../values.js";

export const IPType = T.opaque("net.IP");
export const CIDRType = T.opaque("net.CIDR");

/** An address: 4 or 16 bytes. */
type Addr = Uint8Array;

function parseIPv4(s: string): Addr | string {
  const parts = s.split(".");
  if (parts.length !== 4) return "IPv4 field has value >255";
  const out = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const p = parts[i];
    if (!/^[0-9]{1,3}$/.test(p)) return p === "" ? "IPv4 field must have at least one digit" : "unexpected character";
    if (p.length > 1 && p[0] === "0") return "IPv4 field has octet with leading zero";
    const n = Number(p);
    if (n > 255) return "IPv4 field has value >255";
    out[i] = n;
  }
  return out;
}

function parseIPv6(s: string): Addr | string {
  if (s.includes("%")) return "zone";
  let head = s;
  let tail = "";
  const dbl = s.indexOf("::");
  if (dbl >= 0) {
    head = s.slice(0, dbl);
    tail = s.slice(dbl + 2);
    if (tail.includes("::")) return "multiple :: in address";
  }
  const groups = (part: string): number[] | string => {
    if (part === "") return [];
    const out: number[] = [];
    const fields = part.split(":");
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i];
      if (i === fields.length - 1 && f.includes(".")) {
        const v4 = parseIPv4(f);
        if (typeof v4 === "string") return v4;
        out.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
        continue;
      }
      if (!/^[0-9a-fA-F]{1,4}$/.test(f)) return f === "" ? "colon must be followed by more characters" : "each colon-separated field must have at most 4 hex digits";
      out.push(parseInt(f, 16));
    }
    return out;
  };
  const h = groups(head);
  if (typeof h === "string") return h;
  const t = groups(tail);
  if (typeof t === "string") return t;
  let all: number[];
  if (dbl >= 0) {
    if (h.length + t.length > 7) return "address string too long";
    all = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  } else {
    if (h.length !== 8) return "address string too short";
    all = h;
  }
  const out = new Uint8Array(16);
  all.forEach((g, i) => {
    out[2 * i] = g >> 8;
    out[2 * i + 1] = g & 0xff;
  });
  return out;
}

function is4in6(a: Addr): boolean {
  if (a.length !== 16) return false;
  for (let i = 0; i < 10; i++) if (a[i] !== 0) return false;
  return a[10] === 0xff && a[11] === 0xff;
}

/** netip.ParseAddr plus Kubernetes' refusals. */
function parseAddr(raw: string, what = "IP Address"): Addr {
  if (raw.includes("%")) throw new CelError(`IP address ${JSON.stringify(raw)} with zone value is not allowed`);
  const r = raw.includes(":") ? parseIPv6(raw) : parseIPv4(raw);
  if (typeof r === "string") {
    throw new CelError(`${what} ${JSON.stringify(raw)} parse error during conversion from string: ParseAddr(${JSON.stringify(raw)}): ${r}`);
  }
  if (is4in6(r)) throw new CelError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  return r;
}

export function formatAddr(a: Addr): string {
  if (a.length === 4) return [...a].join(".");
  const g: number[] = [];
  for (let i = 0; i < 16; i += 2) g.push((a[i] << 8) | a[i + 1]);
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLen).join(":")}`;
}

class IPValue extends ExtensionValue {
  readonly celType = IPType;
  constructor(readonly addr: Addr) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof IPValue && sameAddr(this.addr, other.addr);
  }
  override size(): number {
    return this.addr.length;
  }
}

class CIDRValue extends ExtensionValue {
  readonly celType = CIDRType;
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof CIDRValue && other.bits === this.bits && sameAddr(this.addr, other.addr);
  }
  override size(): number {
    return this.addr.length;
  }
}

function sameAddr(a: Addr, b: Addr): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function parseCIDR(raw: string): CIDRValue {
  const slash = raw.lastIndexOf("/");
  const fail = (why: string) => new CelError(`network address ${JSON.stringify(raw)} parse error during conversion from string: netip.ParsePrefix(${JSON.stringify(raw)}): ${why}`);
  if (slash < 0) throw fail("no '/'");
  const addrPart = raw.slice(0, slash);
  const bitsPart = raw.slice(slash + 1);
  if (addrPart.includes("%")) throw new CelError(`CIDR ${JSON.stringify(raw)} with zone value is not allowed`);
  const a = addrPart.includes(":") ? parseIPv6(addrPart) : parseIPv4(addrPart);
  if (typeof a === "string") throw fail(`ParseAddr(${JSON.stringify(addrPart)}): ${a}`);
  if (is4in6(a)) throw new CelError(`IPv4-mapped IPv6 address ${JSON.stringify(raw)} is not allowed`);
  if (!/^(0|[1-9][0-9]*)$/.test(bitsPart)) throw fail(`bad bits after slash: ${JSON.stringify(bitsPart)}`);
  const bits = Number(bitsPart);
  if (bits > a.length * 8) throw fail(`prefix length out of range`);
  return new CIDRValue(a, bits);
}

function mask(a: Addr, bits: number): Addr {
  const out = new Uint8Array(a);
  for (let i = 0; i < out.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    out[i] &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return out;
}

function containsAddr(c: CIDRValue, a: Addr): boolean {
  if (a.length !== c.addr.length) return false;
  return sameAddr(mask(c.addr, c.bits), mask(a, c.bits));
}

function classify(a: Addr) {
  const v4 = a.length === 4;
  const zero = a.every((x) => x === 0);
  const loopback = v4 ? a[0] === 127 : a.slice(0, 15).every((x) => x === 0) && a[15] === 1;
  const multicast = v4 ? a[0] >= 224 && a[0] <= 239 : a[0] === 0xff;
  const llMulticast = v4 ? a[0] === 224 && a[1] === 0 && a[2] === 0 : a[0] === 0xff && (a[1] & 0x0f) === 0x02;
  const llUnicast = v4 ? a[0] === 169 && a[1] === 254 : a[0] === 0xfe && (a[1] & 0xc0) === 0x80;
  const broadcast = v4 && a.every((x) => x === 255);
  return { zero, loopback, multicast, llMulticast, llUnicast, global: !zero && !loopback && !multicast && !llUnicast && !broadcast };
}

const ip = (v: Val) => (v as IPValue).addr;
const cidr = (v: Val) => v as CIDRValue;

export function ipLibrary(): Library {
  const lib = new Library();
  lib.add("ip", overload("string_to_ip", [T.string], IPType, ([s]) => new IPValue(parseAddr(s as string))));
  lib.add(
    "isIP",
    overload("is_ip", [T.string], T.bool, ([s]) => {
      try {
        parseAddr(s as string);
        return true;
      } catch {
        return false;
      }
    }),
  );
  lib.add("ip.isCanonical", overload("ip_is_canonical", [T.string], T.bool, ([s]) => formatAddr(parseAddr(s as string)) === s));
  lib.add("family", memberOverload("ip_family", [IPType], T.int, ([v]) => (ip(v).length === 4 ? 4n : 6n)));
  lib.add("isUnspecified", memberOverload("ip_is_unspecified", [IPType], T.bool, ([v]) => classify(ip(v)).zero));
  lib.add("isLoopback", memberOverload("ip_is_loopback", [IPType], T.bool, ([v]) => classify(ip(v)).loopback));
  lib.add("isLinkLocalMulticast", memberOverload("ip_is_link_local_multicast", [IPType], T.bool, ([v]) => classify(ip(v)).llMulticast));
  lib.add("isLinkLocalUnicast", memberOverload("ip_is_link_local_unicast", [IPType], T.bool, ([v]) => classify(ip(v)).llUnicast));
  lib.add("isGlobalUnicast", memberOverload("ip_is_global_unicast", [IPType], T.bool, ([v]) => classify(ip(v)).global));
  lib.add("string", overload("ip_to_string", [IPType], T.string, ([v]) => formatAddr(ip(v))), overload("cidr_to_string", [CIDRType], T.string, ([v]) => `${formatAddr(cidr(v).addr)}/${cidr(v).bits}`));

  lib.add("cidr", overload("string_to_cidr", [T.string], CIDRType, ([s]) => parseCIDR(s as string)));
  lib.add(
    "isCIDR",
    overload("is_cidr", [T.string], T.bool, ([s]) => {
      try {
        parseCIDR(s as string);
        return true;
      } catch {
        return false;
      }
    }),
  );
  lib.add(
    "containsIP",
    memberOverload("cidr_contains_ip_string", [CIDRType, T.string], T.bool, ([c, s]) => containsAddr(cidr(c), parseAddr(s as string))),
    memberOverload("cidr_contains_ip_ip", [CIDRType, IPType], T.bool, ([c, a]) => containsAddr(cidr(c), ip(a))),
  );
  const containsCIDR = (c: CIDRValue, o: CIDRValue) => o.bits >= c.bits && containsAddr(c, o.addr);
  lib.add(
    "containsCIDR",
    memberOverload("cidr_contains_cidr_string", [CIDRType, T.string], T.bool, ([c, s]) => containsCIDR(cidr(c), parseCIDR(s as string))),
    memberOverload("cidr_contains_cidr", [CIDRType, CIDRType], T.bool, ([c, o]) => containsCIDR(cidr(c), cidr(o))),
  );
  lib.add("ip", memberOverload("cidr_ip", [CIDRType], IPType, ([c]) => new IPValue(cidr(c).addr)));
  lib.add("masked", memberOverload("cidr_masked", [CIDRType], CIDRType, ([c]) => new CIDRValue(mask(cidr(c).addr, cidr(c).bits), cidr(c).bits)));
  lib.add("prefixLength", memberOverload("cidr_prefix_length", [CIDRType], T.int, ([c]) => BigInt(cidr(c).bits)));
  return lib;
}
