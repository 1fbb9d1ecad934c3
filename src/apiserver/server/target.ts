/**
 * The request target (path and query) exactly as the client sent it. Paths are routed on their
 * raw segments, each percent-decoded on its own and never normalised: `.` and `..` are names
 * like any other (which the handlers then refuse, as upstream does), `%2F` stays inside its
 * segment. WHATWG `URL` would resolve dot segments and turn `\` into `/`, so it is not used
 * for routing.
 */
import { StatusError } from "../../apimachinery/errors.js";

export interface RequestTarget {
  /** The path as sent: percent-encoded, not normalised ("/" for an empty path). */
  readonly pathname: string;
  /** The raw query, without the "?" ("" when there is none). */
  readonly search: string;
  readonly searchParams: URLSearchParams;
}

/** What handlers read of the target (a WHATWG URL has these too). */
export type RequestURL = Pick<RequestTarget, "pathname" | "searchParams">;

const hex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
const utf8 = new TextDecoder("utf-8");

/**
 * Percent-decodes one path segment (Go's url.PathUnescape: every %XX is a byte; the bytes are
 * read as UTF-8). Throws a 400 StatusError for a malformed escape, with Go's message.
 */
export function decodeSegment(s: string): string {
  if (!s.includes("%")) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      if (i + 2 >= s.length || !hex(s.charCodeAt(i + 1)) || !hex(s.charCodeAt(i + 2))) {
        throw StatusError.badRequest(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      }
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      for (const b of Buffer.from(ch, "utf8")) bytes.push(b);
      i += ch.length - 1;
    }
  }
  return utf8.decode(Uint8Array.from(bytes));
}

/** The path's non-empty segments, each percent-decoded (400 on a malformed escape). */
export function pathSegments(pathname: string): string[] {
  const out: string[] = [];
  for (const p of pathname.split("/")) if (p !== "") out.push(decodeSegment(p));
  return out;
}

/**
 * Parses the request-target of an HTTP request line: origin form (`/path?query`), absolute
 * form (`http://host/path?query`, as sent to proxies) or `*`. 400 for anything else.
 */
export function parseRequestTarget(raw: string | undefined): RequestTarget {
  let t = raw ?? "/";
  if (t === "*") return { pathname: "*", search: "", searchParams: new URLSearchParams() };
  if (!t.startsWith("/")) {
    const m = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/.exec(t);
    if (!m) throw StatusError.badRequest(`malformed request URI ${JSON.stringify(t.slice(0, 256))}`);
    t = t.slice(m[0].length);
    if (!t.startsWith("/")) t = `/${t}`;
  }
  const q = t.indexOf("?");
  const pathname = q < 0 ? t : t.slice(0, q);
  const search = q < 0 ? "" : t.slice(q + 1);
  return { pathname: pathname === "" ? "/" : pathname, search, searchParams: new URLSearchParams(search) };
}
