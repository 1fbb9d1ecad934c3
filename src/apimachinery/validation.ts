/**
 * String-format validators, as apimachinery's util/validation (and the api/validate/content
 * package it delegates label keys and values to). Every `is…` function returns the list of
 * problems with the value: an empty array means valid. The message texts are upstream's, byte for
 * byte, because they reach users inside `Status` causes and tools match on them.
 *
 * Version note (Kubernetes 1.35): the DNS, port and percent checks report lengths as
 * "must be no more than N characters" (util/validation.MaxLenError), while label keys and values
 * go through the newer content package which says "must be no more than N bytes" and calls a
 * malformed key "a valid label key". Lengths are counted in UTF-8 bytes, as Go's len() does.
 */

// ---------------------------------------------------------------------------------------------
// Message builders

/** "must be no more than 63 characters" (util/validation.MaxLenError). */
export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** "must be no more than 63 bytes" (api/validate/content.MaxLenError, used for label keys/values). */
export function maxLenBytesError(length: number): string {
  return `must be no more than ${length} bytes`;
}

/** Explains a regex mismatch, listing examples the way upstream does (note the double spaces). */
export function regexError(msg: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${msg} (regex used for validation is '${fmt}')`;
  let out = `${msg} (e.g. `;
  examples.forEach((ex, i) => {
    if (i > 0) out += " or ";
    out += `'${ex}', `;
  });
  return `${out}regex used for validation is '${fmt}')`;
}

/** "must be non-empty". */
export function emptyError(): string {
  return "must be non-empty";
}

/** "must be between 1 and 65535, inclusive". */
export function inclusiveRangeError(lo: number, hi: number): string {
  return `must be between ${lo} and ${hi}, inclusive`;
}

/** Length of `s` in UTF-8 bytes (Go's len on a string). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

// ---------------------------------------------------------------------------------------------
// DNS names

const dns1123LabelFmt = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const dns1123LabelErrMsg =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
export const DNS1123LabelMaxLength = 63;
const dns1123LabelRegexp = new RegExp(`^${dns1123LabelFmt}$`);

const dns1123SubdomainFmt = `${dns1123LabelFmt}(\\.${dns1123LabelFmt})*`;
const dns1123SubdomainErrorMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
export const DNS1123SubdomainMaxLength = 253;
const dns1123SubdomainRegexp = new RegExp(`^${dns1123SubdomainFmt}$`);

const dns1035LabelFmt = "[a-z]([-a-z0-9]*[a-z0-9])?";
const dns1035LabelErrMsg =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
export const DNS1035LabelMaxLength = 63;
const dns1035LabelRegexp = new RegExp(`^${dns1035LabelFmt}$`);

const wildcardDNS1123SubdomainFmt = `\\*\\.${dns1123SubdomainFmt}`;
const wildcardDNS1123SubdomainErrMsg =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";
const wildcardDNS1123SubdomainRegexp = new RegExp(`^${wildcardDNS1123SubdomainFmt}$`);

/** A DNS (RFC 1123) label: what most Kubernetes names that end up in DNS must be. */
export function isDNS1123Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123LabelMaxLength) errs.push(maxLenError(DNS1123LabelMaxLength));
  if (!dns1123LabelRegexp.test(value)) {
    // A valid subdomain that is not a valid label can only be failing on its dots.
    if (dns1123SubdomainRegexp.test(value)) errs.push("must not contain dots");
    else errs.push(regexError(dns1123LabelErrMsg, dns1123LabelFmt, "my-name", "123-abc"));
  }
  return errs;
}

/** A DNS (RFC 1123) subdomain: the format of most object names. */
export function isDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"));
  }
  return errs;
}

/** Label-key prefixes use the content package's subdomain check, which counts in bytes. */
function isDNS1123SubdomainContent(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123SubdomainMaxLength) errs.push(maxLenBytesError(DNS1123SubdomainMaxLength));
  if (!dns1123SubdomainRegexp.test(value)) {
    errs.push(regexError(dns1123SubdomainErrorMsg, dns1123SubdomainFmt, "example.com"));
  }
  return errs;
}

/** A DNS (RFC 1035) label: starts with a letter (Service and Namespace-like names). */
export function isDNS1035Label(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1035LabelMaxLength) errs.push(maxLenError(DNS1035LabelMaxLength));
  if (!dns1035LabelRegexp.test(value)) {
    errs.push(regexError(dns1035LabelErrMsg, dns1035LabelFmt, "my-name", "abc-123"));
  }
  return errs;
}

/** A wildcard subdomain ("*.example.com", RFC 1034 section 4.3.3). */
export function isWildcardDNS1123Subdomain(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!wildcardDNS1123SubdomainRegexp.test(value)) {
    errs.push(regexError(wildcardDNS1123SubdomainErrMsg, wildcardDNS1123SubdomainFmt, "*.example.com"));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Label keys ("qualified names") and values

const labelKeyFmt = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const labelKeyErrMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LabelKeyNameMaxLength = 63;
const labelKeyRegexp = new RegExp(`^${labelKeyFmt}$`);

const labelValueFmt = `(${labelKeyFmt})?`;
const labelValueErrMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
export const LabelValueMaxLength = 63;
const labelValueRegexp = new RegExp(`^${labelValueFmt}$`);

/**
 * A "qualified name" (label key, annotation key, finalizer name…): an optional DNS-subdomain
 * prefix and '/', then a name of at most 63 alphanumerics, '-', '_' or '.'.
 */
export function isQualifiedName(value: string): string[] {
  const errs: string[] = [];
  const parts = value.split("/");
  let name: string;
  if (parts.length === 1) {
    name = parts[0];
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1];
    if (prefix.length === 0) errs.push(`prefix part ${emptyError()}`);
    else for (const m of isDNS1123SubdomainContent(prefix)) errs.push(`prefix part ${m}`);
  } else {
    errs.push(
      `a valid label key ${regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")}` +
        " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
    return errs;
  }
  if (name.length === 0) errs.push(`name part ${emptyError()}`);
  else if (utf8Length(name) > LabelKeyNameMaxLength) errs.push(`name part ${maxLenBytesError(LabelKeyNameMaxLength)}`);
  if (!labelKeyRegexp.test(name)) {
    errs.push(`name part ${regexError(labelKeyErrMsg, labelKeyFmt, "MyName", "my.name", "123-abc")}`);
  }
  return errs;
}

/** Upstream's newer name for the same check. */
export const isLabelKey = isQualifiedName;

/** A label value: empty, or up to 63 alphanumerics, '-', '_' or '.' starting and ending alphanumeric. */
export function isValidLabelValue(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > LabelValueMaxLength) errs.push(maxLenBytesError(LabelValueMaxLength));
  if (!labelValueRegexp.test(value)) {
    errs.push(regexError(labelValueErrMsg, labelValueFmt, "MyValue", "my_value", "12345"));
  }
  return errs;
}

// ---------------------------------------------------------------------------------------------
// Numbers, ports, percents

/** A non-zero TCP/UDP port number. */
export function isValidPortNum(port: number): string[] {
  if (Number.isInteger(port) && port >= 1 && port <= 65535) return [];
  return [inclusiveRangeError(1, 65535)];
}

/** `value` in [min, max]. */
export function isInRange(value: number, min: number, max: number): string[] {
  if (value >= min && value <= max) return [];
  return [inclusiveRangeError(min, max)];
}

/** A Unix UID (0 … 2^32-1). */
export function isValidUserID(uid: number): string[] {
  return isInRange(uid, 0, 0xffffffff);
}

/** A Unix GID (0 … 2^32-1). */
export function isValidGroupID(gid: number): string[] {
  return isInRange(gid, 0, 0xffffffff);
}

const portNameCharsetRegex = /^[-a-z0-9]+$/;
const portNameOneLetterRegexp = /[a-z]/;

/**
 * An IANA_SVC_NAME (RFC 6335): 1–15 of [-a-z0-9], at least one letter, no leading, trailing or
 * doubled hyphen. Each failing rule adds its own message.
 */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (utf8Length(port) > 15) errs.push(maxLenError(15));
  if (!portNameCharsetRegex.test(port)) {
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!portNameOneLetterRegexp.test(port)) errs.push("must contain at least one letter (a-z)");
  if (port.includes("--")) errs.push("must not contain consecutive hyphens");
  if (port.length > 0 && (port.startsWith("-") || port.endsWith("-"))) {
    errs.push("must not begin or end with a hyphen");
  }
  return errs;
}

const percentFmt = "[0-9]+%";
const percentErrMsg = "a valid percent string must be a numeric string followed by an ending '%'";
const percentRegexp = new RegExp(`^${percentFmt}$`);

/** "10%"-style strings. */
export function isValidPercent(percent: string): string[] {
  if (!percentRegexp.test(percent)) return [regexError(percentErrMsg, percentFmt, "1%", "93%")];
  return [];
}

// ---------------------------------------------------------------------------------------------
// Other identifiers

const cIdentifierFmt = "[A-Za-z_][A-Za-z0-9_]*";
const cIdentifierRegexp = new RegExp(`^${cIdentifierFmt}$`);

/** A C identifier (format only, no length limit). */
export function isCIdentifier(value: string): string[] {
  if (!cIdentifierRegexp.test(value)) {
    return [
      regexError(
        "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_'",
        cIdentifierFmt,
        "my_name",
        "MY_NAME",
        "MyName",
      ),
    ];
  }
  return [];
}

const httpHeaderNameFmt = "[-A-Za-z0-9]+";
const httpHeaderNameRegexp = new RegExp(`^${httpHeaderNameFmt}$`);

/** An HTTP header field name, as Go's HTTP library accepts it. */
export function isHTTPHeaderName(value: string): string[] {
  if (!httpHeaderNameRegexp.test(value)) {
    return [
      regexError("a valid HTTP header must consist of alphanumeric characters or '-'", httpHeaderNameFmt, "X-Header-Name"),
    ];
  }
  return [];
}

function hasChDirPrefix(value: string): string[] {
  if (value === ".") return ["must not be '.'"];
  if (value === "..") return ["must not be '..'"];
  if (value.startsWith("..")) return ["must not start with '..'"];
  return [];
}

const envVarNameFmt = "[-._a-zA-Z][-._a-zA-Z0-9]*";
const envVarNameRegexp = new RegExp(`^${envVarNameFmt}$`);

/** An environment variable name (the strict, pre-relaxed rule). */
export function isEnvVarName(value: string): string[] {
  const errs: string[] = [];
  if (!envVarNameRegexp.test(value)) {
    errs.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        envVarNameFmt,
        "my.env-name",
        "MY_ENV.NAME",
        "MyEnvName1",
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

const configMapKeyFmt = "[-._a-zA-Z0-9]+";
const configMapKeyRegexp = new RegExp(`^${configMapKeyFmt}$`);

/** A ConfigMap or Secret data key. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (utf8Length(value) > DNS1123SubdomainMaxLength) errs.push(maxLenError(DNS1123SubdomainMaxLength));
  if (!configMapKeyRegexp.test(value)) {
    errs.push(
      regexError(
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.'",
        configMapKeyFmt,
        "key.name",
        "KEY_NAME",
        "key-name",
      ),
    );
  }
  errs.push(...hasChDirPrefix(value));
  return errs;
}

// ---------------------------------------------------------------------------------------------
// IP addresses

const IPV4_BIG = 0xffffff;

/** Reads a decimal number at the start of `s`: [value, digits] or undefined. */
function dtoi(s: string, from: number): [number, number] | undefined {
  let n = 0;
  let i = from;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) break;
    n = n * 10 + (c - 48);
    if (n >= IPV4_BIG) return undefined;
  }
  if (i === from) return undefined;
  return [n, i];
}

/** Reads a hex number at `from`: [value, end index] or undefined. */
function xtoi(s: string, from: number): [number, number] | undefined {
  let n = 0;
  let i = from;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let d: number;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (c >= 97 && c <= 102) d = c - 97 + 10;
    else if (c >= 65 && c <= 70) d = c - 65 + 10;
    else break;
    n = n * 16 + d;
    if (n >= IPV4_BIG) return undefined;
  }
  if (i === from) return undefined;
  return [n, i];
}

/** Parses dotted-quad IPv4 starting at `from` through the end of `s`, leading zeros allowed. */
function parseIPv4Bytes(s: string, from: number): number[] | undefined {
  const out: number[] = [];
  let i = from;
  for (let part = 0; part < 4; part++) {
    if (i >= s.length) return undefined;
    if (part > 0) {
      if (s[i] !== ".") return undefined;
      i++;
    }
    const r = dtoi(s, i);
    if (r === undefined || r[0] > 0xff) return undefined;
    out.push(r[0]);
    i = r[1];
  }
  if (i !== s.length) return undefined;
  return out;
}

function parseIPv6Bytes(s: string): number[] | undefined {
  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  let pos = 0;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    pos = 2;
    if (pos === s.length) return ip;
  }
  let i = 0;
  while (i < 16) {
    const r = xtoi(s, pos);
    if (r === undefined || r[0] > 0xffff) return undefined;
    const [n, end] = r;
    if (end < s.length && s[end] === ".") {
      // An embedded IPv4 address may only end the text.
      if (ellipsis < 0 && i !== 12) return undefined;
      if (i + 4 > 16) return undefined;
      const v4 = parseIPv4Bytes(s, pos);
      if (v4 === undefined) return undefined;
      for (let k = 0; k < 4; k++) ip[i + k] = v4[k];
      i += 4;
      pos = s.length;
      break;
    }
    ip[i] = n >> 8;
    ip[i + 1] = n & 0xff;
    i += 2;
    pos = end;
    if (pos === s.length) break;
    if (s[pos] !== ":" || pos + 1 === s.length) return undefined;
    pos++;
    if (s[pos] === ":") {
      if (ellipsis >= 0) return undefined;
      ellipsis = i;
      pos++;
      if (pos === s.length) break;
    }
  }
  if (pos !== s.length) return undefined;
  if (i < 16) {
    if (ellipsis < 0) return undefined;
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j];
    for (let j = ellipsis + n - 1; j >= ellipsis; j--) ip[j] = 0;
  } else if (ellipsis >= 0) {
    // The ellipsis must stand for at least one group.
    return undefined;
  }
  return ip;
}

/**
 * Parses an IP address the way k8s.io/utils/net.ParseIPSloppy does (Go's pre-1.17 net.ParseIP:
 * IPv4 octets may carry leading zeros and are read as decimal; no zones, no brackets). Returns the
 * 16-byte form (IPv4 as ::ffff:a.b.c.d) or undefined.
 */
export function parseIPSloppy(s: string): number[] | undefined {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ".") {
      const v4 = parseIPv4Bytes(s, 0);
      return v4 === undefined ? undefined : [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];
    }
    if (s[i] === ":") return parseIPv6Bytes(s);
  }
  return undefined;
}

function isV4(ip: number[]): boolean {
  for (let i = 0; i < 10; i++) if (ip[i] !== 0) return false;
  return ip[10] === 0xff && ip[11] === 0xff;
}

/** An IPv4 or IPv6 address (IsValidIP; the field path is the caller's business). */
export function isValidIP(value: string): string[] {
  if (parseIPSloppy(value) === undefined) return ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"];
  return [];
}

/** An IPv4 address (IsValidIPv4Address; IPv4-mapped IPv6 forms count as IPv4, as upstream). */
export function isValidIPv4(value: string): string[] {
  const ip = parseIPSloppy(value);
  if (ip === undefined || !isV4(ip)) return ["must be a valid IPv4 address"];
  return [];
}

/** An IPv6 address (IsValidIPv6Address). */
export function isValidIPv6(value: string): string[] {
  const ip = parseIPSloppy(value);
  if (ip === undefined || isV4(ip)) return ["must be a valid IPv6 address"];
  return [];
}

// ---------------------------------------------------------------------------------------------
// Object-name validators (api/validation's ValidateNameFunc forms)

/**
 * A name validator: `prefix` is true when the name is a generateName prefix that will get a
 * random suffix, in which case a trailing '-' is allowed.
 */
export type ValidateNameFunc = (name: string, prefix: boolean) => string[];

/**
 * Upstream masks a trailing dash before checking a generateName prefix. It drops the last two
 * characters and appends "a" (a quirk kept on purpose: it decides which names validate).
 */
function maskTrailingDash(name: string): string {
  if (name.length > 1 && name.endsWith("-")) return `${name.slice(0, name.length - 2)}a`;
  return name;
}

/**
 * path.ValidatePathSegmentName: names usable as one URL path segment — not "." or ".." (unless
 * a generateName prefix), no "/" and no "%". Every object name in a request path must pass it
 * (upstream's "Name parameter invalid"); some kinds (RBAC) accept any such name.
 */
export const nameIsPathSegment: ValidateNameFunc = (name, prefix) => {
  const errs: string[] = [];
  if (!prefix && (name === "." || name === "..")) errs.push(`may not be '${name}'`);
  for (const bad of ["/", "%"]) if (name.includes(bad)) errs.push(`may not contain '${bad}'`);
  return errs;
};

/** Object names that must be DNS subdomains (most resources). */
export const nameIsDNSSubdomain: ValidateNameFunc = (name, prefix) =>
  isDNS1123Subdomain(prefix ? maskTrailingDash(name) : name);

/** Object names that must be DNS-1123 labels. */
export const nameIsDNSLabel: ValidateNameFunc = (name, prefix) =>
  isDNS1123Label(prefix ? maskTrailingDash(name) : name);

/** Object names that must be DNS-1035 labels (Services). */
export const nameIsDNS1035Label: ValidateNameFunc = (name, prefix) =>
  isDNS1035Label(prefix ? maskTrailingDash(name) : name);
