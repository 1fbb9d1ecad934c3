/**
 * Kubernetes' URL library (library/urls.go): url(string), isURL(string) and the accessors
 * getScheme, getHost, getHostname, getPort, getEscapedPath, getQuery. Parsing follows Go's
 * url.ParseRequestURI: an absolute URI or an absolute path; no fragment handling.
 */
import { Library, memberOverload, overload } from "../decls.js";
import { T } from "../types.js";
import { CelError, ExtensionValue, LiteralMap, type CelObject, type Val } from "../values.js";

export const URLType = T.object("kubernetes.URL");

interface ParsedURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  rawQuery: string;
}

class URLValue extends ExtensionValue {
  readonly celType = URLType;
  constructor(
    readonly raw: string,
    readonly url: ParsedURL,
  ) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof URLValue && other.raw === this.raw;
  }
  override size(): number {
    return [...this.raw].length;
  }
}

function validEscapes(s: string): boolean {
  return !/%(?![0-9a-fA-F]{2})/.test(s);
}

function parseRequestURI(raw: string): ParsedURL {
  const fail = (why: string) => new CelError(`URL parse error during conversion from string: parse "${raw}": ${why}`);
  // eslint-disable-next-line no-control-regex -- Go rejects control characters in URLs
  if (/[\x00-\x1f\x7f]/.test(raw)) throw fail("net/url: invalid control character in URL");
  let rest = raw;
  let scheme = "";
  const sm = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(rest);
  if (sm) {
    scheme = sm[1].toLowerCase();
    rest = rest.slice(sm[0].length);
  } else if (/^[0-9+.-]/.test(rest) && rest.includes(":") && !rest.startsWith("/")) throw fail("first path segment in URL cannot contain colon");
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  if (!rest.startsWith("/")) {
    if (scheme !== "") return { scheme, opaque: rest, host: "", path: "", rawQuery };
    throw fail("invalid URI for request");
  }
  let host = "";
  if (scheme !== "" && rest.startsWith("//")) {
    const after = rest.slice(2);
    const slash = after.indexOf("/");
    const authority = slash < 0 ? after : after.slice(0, slash);
    rest = slash < 0 ? "" : after.slice(slash);
    const at = authority.lastIndexOf("@");
    host = at >= 0 ? authority.slice(at + 1) : authority;
    if (host.startsWith("[")) {
      const close = host.indexOf("]");
      if (close < 0) throw fail("missing ']' in host");
      const port = host.slice(close + 1);
      if (port !== "" && !/^:[0-9]*$/.test(port)) throw fail(`invalid port "${port}" after host`);
    } else {
      const colon = host.lastIndexOf(":");
      if (colon >= 0 && !/^[0-9]*$/.test(host.slice(colon + 1))) throw fail(`invalid port "${host.slice(colon)}" after host`);
      if (/[^A-Za-z0-9\-._~!$&'()*+,;=:%]/.test(host)) throw fail(`invalid character "${/[^A-Za-z0-9\-._~!$&'()*+,;=:%]/.exec(host)![0]}" in host name`);
    }
  }
  if (!validEscapes(rest)) throw fail(`invalid URL escape "${/%.{0,2}/.exec(rest.slice(rest.search(/%(?![0-9a-fA-F]{2})/)))?.[0] ?? "%"}"`);
  return { scheme, opaque: "", host, path: rest, rawQuery };
}

function hostname(host: string): string {
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]"));
  const colon = host.lastIndexOf(":");
  return colon >= 0 ? host.slice(0, colon) : host;
}

function port(host: string): string {
  if (host.startsWith("[")) {
    const rest = host.slice(host.indexOf("]") + 1);
    return rest.startsWith(":") ? rest.slice(1) : "";
  }
  const colon = host.lastIndexOf(":");
  return colon >= 0 ? host.slice(colon + 1) : "";
}

function unescapeQuery(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, " "));
  } catch {
    return s;
  }
}

function query(raw: string): LiteralMap {
  const byKey = new Map<string, string[]>();
  for (const part of raw.split(/&/)) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const k = unescapeQuery(eq >= 0 ? part.slice(0, eq) : part);
    const v = eq >= 0 ? unescapeQuery(part.slice(eq + 1)) : "";
    byKey.set(k, [...(byKey.get(k) ?? []), v]);
  }
  const m = new LiteralMap();
  for (const [k, vs] of byKey) m.set(k, vs);
  return m;
}

const u = (v: Val) => (v as URLValue).url;

export function urlsLibrary(): Library {
  const lib = new Library();
  lib.add("url", overload("string_to_url", [T.string], URLType, ([s]) => new URLValue(s as string, parseRequestURI(s as string))));
  lib.add(
    "isURL",
    overload("is_url_string", [T.string], T.bool, ([s]) => {
      try {
        parseRequestURI(s as string);
        return true;
      } catch {
        return false;
      }
    }),
  );
  lib.add("getScheme", memberOverload("url_get_scheme", [URLType], T.string, ([v]) => u(v).scheme));
  lib.add("getHost", memberOverload("url_get_host", [URLType], T.string, ([v]) => u(v).host));
  lib.add("getHostname", memberOverload("url_get_hostname", [URLType], T.string, ([v]) => hostname(u(v).host)));
  lib.add("getPort", memberOverload("url_get_port", [URLType], T.string, ([v]) => port(u(v).host)));
  lib.add("getEscapedPath", memberOverload("url_get_escaped_path", [URLType], T.string, ([v]) => u(v).path));
  lib.add("getQuery", memberOverload("url_get_query", [URLType], T.map(T.string, T.list(T.string)), ([v]) => query(u(v).rawQuery)));
  return lib;
}
