/**
 * Warning headers (RFC 7234 §5.5, as kube-apiserver sends them: `Warning: 299 - "text"`):
 * parsing and handlers, after client-go's rest/warnings.go and apimachinery's util/net.
 */

export interface WarningHeader {
  /** The warn-code; kube-apiserver uses 299 ("miscellaneous persistent warning"). */
  code: number;
  /** The warn-agent; "-" when unknown. */
  agent: string;
  text: string;
}

/** Receives every Warning header of every response. */
export type WarningHandler = (warning: WarningHeader) => void;

/**
 * Parses one Warning header value, which may hold several comma-separated warnings. Malformed
 * entries end parsing; the well-formed ones before them are returned.
 */
export function parseWarningHeader(value: string): WarningHeader[] {
  const out: WarningHeader[] = [];
  let i = 0;
  const n = value.length;
  const skipSpace = () => {
    while (i < n && (value[i] === " " || value[i] === "\t")) i++;
  };
  const token = (): string => {
    const start = i;
    while (i < n && value[i] !== " " && value[i] !== "\t" && value[i] !== ",") i++;
    return value.slice(start, i);
  };
  const quoted = (): string | undefined => {
    if (value[i] !== '"') return undefined;
    i++;
    let s = "";
    while (i < n) {
      const c = value[i];
      if (c === "\\" && i + 1 < n) {
        s += value[i + 1];
        i += 2;
        continue;
      }
      if (c === '"') {
        i++;
        return s;
      }
      s += c;
      i++;
    }
    return undefined; // unterminated
  };
  while (i < n) {
    skipSpace();
    if (i >= n) break;
    const codeStr = token();
    if (!/^\d{3}$/.test(codeStr)) break;
    skipSpace();
    const agent = token();
    if (agent === "") break;
    skipSpace();
    const text = quoted();
    if (text === undefined) break;
    skipSpace();
    if (value[i] === '"') {
      if (quoted() === undefined) break; // optional warn-date
      skipSpace();
    }
    out.push({ code: Number(codeStr), agent, text });
    if (i < n) {
      if (value[i] !== ",") break;
      i++;
    }
  }
  return out;
}

/** Parses every Warning header of a response (undici gives a string or a string array). */
export function warningsFromHeaders(header: string | string[] | undefined): WarningHeader[] {
  if (header === undefined) return [];
  const values = Array.isArray(header) ? header : [header];
  return values.flatMap(parseWarningHeader);
}

/**
 * Logs each distinct 299 warning text once per handler ("Warning: <text>" on stderr by default),
 * like kubectl's deduplicating warning writer.
 */
export function dedupingWarningLogger(write: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): WarningHandler {
  const seen = new Set<string>();
  return (w) => {
    if (w.code !== 299 || w.text === "" || seen.has(w.text)) return;
    seen.add(w.text);
    write(`Warning: ${w.text}`);
  };
}

/** Ignores warnings. */
export const noWarnings: WarningHandler = () => {};
