/**
 * String formats validated in custom resources: the formats kube-apiserver keeps in CRD schemas
 * (apiextensions-apiserver validation/formats.go; every other format, int32 and int64 included,
 * is stripped and not checked), with go-openapi strfmt's acceptance rules.
 */
import { isIP, isIPv4, isIPv6 } from "node:net";

const rx = {
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid3: /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  uuid4: /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  uuid5: /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i,
  hexcolor: /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/,
  rgbcolor: /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/,
  ssn: /^\d{3}[- ]?\d{2}[- ]?\d{4}$/,
  isbn10: /^(?:[0-9]{9}X|[0-9]{10})$/,
  isbn13: /^(?:[0-9]{13})$/,
  creditcard:
    /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/,
  hostname:
    /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u,
  email: /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/,
  bsonobjectid: /^[0-9a-fA-F]{24}$/,
  dateTimeTail: /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(z|[+-]\d{2}:\d{2})$/,
  goDuration: /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/,
  strfmtDuration: /^(\d+)\s*(ns|us|µs|ms|s|m|h|d|w|nanoseconds?|microseconds?|milliseconds?|seconds?|minutes?|hours?|days?|weeks?)$/i,
};

/** full-date (RFC 3339): YYYY-MM-DD naming a real calendar day. */
export function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= days;
}

/** strfmt.IsDateTime: a full date, "T", hh:mm:ss[.frac] and a zone ("Z" or ±hh:mm), case-insensitive. */
export function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split("t");
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = rx.dateTimeTail.exec(parts[1]);
  if (!m) return false;
  return m[1] <= "23" && m[2] <= "59" && m[3] <= "59";
}

function isISBN10(s: string): boolean {
  const digits = s.replace(/[\s-]/g, "");
  if (!rx.isbn10.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += (i + 1) * Number(digits[i]);
  sum += digits[9] === "X" ? 100 : 10 * Number(digits[9]);
  return sum % 11 === 0;
}

function isISBN13(s: string): boolean {
  const digits = s.replace(/[\s-]/g, "");
  if (!rx.isbn13.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(digits[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10 === Number(digits[12]);
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const ip = s.slice(0, slash);
  const bits = s.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits)) return false;
  const v = isIP(ip);
  if (v === 0) return false;
  return Number(bits) <= (v === 4 ? 32 : 128);
}

function isMAC(s: string): boolean {
  // net.ParseMAC: 6, 8 or 20 octets separated by ':' or '-', or dotted groups of four hex digits.
  const colon = /^([0-9a-fA-F]{2})([:-][0-9a-fA-F]{2})*$/;
  if (colon.test(s)) {
    const sep = s[2];
    if (s.split(sep).some((p) => p.length !== 2)) return false;
    const n = s.split(sep).length;
    return n === 6 || n === 8 || n === 20;
  }
  if (/^[0-9a-fA-F]{4}(\.[0-9a-fA-F]{4})*$/.test(s)) {
    const n = s.split(".").length * 2;
    return n === 6 || n === 8 || n === 20;
  }
  return false;
}

function isURI(s: string): boolean {
  // url.ParseRequestURI: an absolute URI or an absolute path.
  if (s.startsWith("/")) return !/\s/.test(s);
  try {
    new URL(s);
    return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s);
  } catch {
    return false;
  }
}

function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

const validators: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => rx.bsonobjectid.test(s),
  uri: isURI,
  email: (s) => rx.email.test(s) || /^[^<>]*<[^\s@<>]+@[^\s@<>]+>$/.test(s),
  hostname: (s) => s.length <= 255 && rx.hostname.test(s),
  ipv4: (s) => (isIPv4(s) || isIPv6(s)) && s.includes("."),
  ipv6: (s) => isIP(s) !== 0 && s.includes(":"),
  cidr: isCIDR,
  mac: isMAC,
  uuid: (s) => rx.uuid.test(s),
  uuid3: (s) => rx.uuid3.test(s),
  uuid4: (s) => rx.uuid4.test(s),
  uuid5: (s) => rx.uuid5.test(s),
  isbn: (s) => isISBN10(s) || isISBN13(s),
  isbn10: isISBN10,
  isbn13: isISBN13,
  creditcard: (s) => rx.creditcard.test(s.replace(/\D/g, "")),
  ssn: (s) => rx.ssn.test(s),
  hexcolor: (s) => rx.hexcolor.test(s),
  rgbcolor: (s) => rx.rgbcolor.test(s),
  byte: isBase64,
  password: () => true,
  date: isDate,
  duration: (s) => rx.goDuration.test(s) || rx.strfmtDuration.test(s),
  datetime: isDateTime,
};

/** The validator of a schema format, or undefined when kube-apiserver ignores the format. */
export function formatValidator(format: string | undefined): ((s: string) => boolean) | undefined {
  if (!format) return undefined;
  return validators[format.replace(/-/g, "")];
}
