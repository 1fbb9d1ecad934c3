/**
 * IP addresses and CIDRs for the networking API: parsing (k8s.io/utils/net's sloppy parser),
 * canonical text (what Go's netip prints: IPv4 dotted decimal without leading zeros, IPv6 in
 * RFC 5952 form), and the field checks of IsValidIP / IsValidCIDR (new fields: canonical form
 * required) and IsValidCIDRForLegacyField (old fields: any parseable CIDR).
 */
import { fieldErrors, type FieldError } from "../../apimachinery/fielderrors.js";
import { parseIPSloppy } from "../../apimachinery/validation.js";

const ipMessage = "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)";
const cidrMessage = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

export interface ParsedIP {
  family: 4 | 6;
  /** 4 or 16 bytes. */
  bytes: number[];
}

export function parseIP(s: string): ParsedIP | undefined {
  const b = parseIPSloppy(s);
  if (!b) return undefined;
  // Text without a ':' is IPv4; "::ffff:1.2.3.4" stays IPv6 text for canonical-form purposes.
  if (!s.includes(":")) return { family: 4, bytes: b.slice(12) };
  return { family: 6, bytes: b };
}

export function formatIP(ip: ParsedIP): string {
  if (ip.family === 4) return ip.bytes.join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((ip.bytes[i] << 8) | ip.bytes[i + 1]);
  // The longest run of two or more zero groups becomes "::" (the first one on a tie).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = (g: number[]) => g.map((x) => x.toString(16)).join(":");
  if (best < 0) return hex(groups);
  return `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLen))}`;
}

export interface ParsedCIDR {
  ip: ParsedIP;
  prefix: number;
}

export function parseCIDR(s: string): ParsedCIDR | undefined {
  const m = /^([^/]+)\/([0-9]{1,3})$/.exec(s);
  if (!m) return undefined;
  const ip = parseIP(m[1]);
  const prefix = Number(m[2]);
  if (!ip || prefix > (ip.family === 4 ? 32 : 128) || (m[2].length > 1 && m[2].startsWith("0"))) return undefined;
  return { ip, prefix };
}

/** The network address of a CIDR (host bits cleared). */
export function maskCIDR(c: ParsedCIDR): ParsedCIDR {
  const bytes = c.ip.bytes.map((b, i) => {
    const bits = Math.max(0, Math.min(8, c.prefix - i * 8));
    return b & ((0xff << (8 - bits)) & 0xff);
  });
  return { ip: { family: c.ip.family, bytes }, prefix: c.prefix };
}

export function formatCIDR(c: ParsedCIDR): string {
  return `${formatIP(c.ip)}/${c.prefix}`;
}

/** Whether `inner` lies inside `outer` (same family). */
export function cidrContains(outer: ParsedCIDR, ip: ParsedIP): boolean {
  if (outer.ip.family !== ip.family) return false;
  const a = maskCIDR(outer).ip.bytes;
  const b = maskCIDR({ ip, prefix: outer.prefix }).ip.bytes;
  return a.every((x, i) => x === b[i]);
}

/** IsValidIP (new fields): parseable and in canonical form. */
export function validateIP(value: string, field: string): FieldError[] {
  const ip = parseIP(value);
  if (!ip) return [fieldErrors.invalid(field, value, ipMessage)];
  const canonical = formatIP(ip);
  if (canonical !== value) return [fieldErrors.invalid(field, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
  return [];
}

/** IsValidCIDR (new fields): parseable, in canonical form, host bits clear. */
export function validateCIDRStrict(value: string, field: string): FieldError[] {
  const c = parseCIDR(value);
  if (!c) return [fieldErrors.invalid(field, value, cidrMessage)];
  const canonical = formatCIDR(maskCIDR(c));
  if (canonical !== value) return [fieldErrors.invalid(field, value, `must be in canonical form (${JSON.stringify(canonical)})`)];
  return [];
}

/** IsValidCIDRForLegacyField: parseable (leading zeros and host bits tolerated). */
export function validateCIDRLegacy(value: string, field: string): FieldError[] {
  return parseCIDR(value) ? [] : [fieldErrors.invalid(field, value, cidrMessage)];
}
