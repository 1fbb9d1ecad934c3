/**
 * Static bearer tokens from a CSV file, as kube-apiserver's --token-auth-file:
 * `token,user,uid,"group1,group2"` — at least three columns; the optional fourth is a
 * comma-separated group list (quote it). Empty tokens are skipped; a duplicate token keeps
 * the later line (upstream warns and overwrites).
 */
import { readFileSync } from "node:fs";
import type { TokenAuthenticator, TokenResult } from "./authenticator.js";
import type { UserInfo } from "./user.js";

export class TokenFileError extends Error {}

/** Splits one CSV record (RFC 4180 quoting, leading spaces of fields trimmed as Go's TrimLeadingSpace). */
export function parseCSVLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    while (line[i] === " " || line[i] === "\t") i++;
    let field = "";
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new TokenFileError(`extraneous or missing " in quoted-field`);
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ",") throw new TokenFileError(`extraneous or missing " in quoted-field`);
    } else {
      const comma = line.indexOf(",", i);
      const end = comma < 0 ? line.length : comma;
      field = line.slice(i, end);
      if (field.includes('"')) throw new TokenFileError(`bare " in non-quoted-field`);
      i = end;
    }
    out.push(field);
    if (i >= line.length) return out;
    i++; // the comma
  }
}

export function parseTokenFile(text: string, source = "token file"): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  const lines = text.split(/\r?\n/);
  lines.forEach((line, idx) => {
    if (line.trim() === "") return;
    let rec: string[];
    try {
      rec = parseCSVLine(line);
    } catch (err) {
      throw new TokenFileError(`${source}: line ${idx + 1}: ${(err as Error).message}`);
    }
    if (rec.length < 3) throw new TokenFileError(`token file '${source}' must have at least 3 columns (token, user name, user uid), found ${rec.length}`);
    const [token, username, uid] = rec;
    if (token === "") return;
    const user: UserInfo = { username, uid, groups: [] };
    if (rec.length >= 4 && rec[3] !== "") user.groups = rec[3].split(",");
    tokens.set(token, user);
  });
  return tokens;
}

export class StaticTokenAuthenticator implements TokenAuthenticator {
  constructor(private readonly tokens: ReadonlyMap<string, UserInfo>) {}

  static fromFile(path: string): StaticTokenAuthenticator {
    return new StaticTokenAuthenticator(parseTokenFile(readFileSync(path, "utf8"), path));
  }

  authenticateToken(token: string): TokenResult | undefined {
    const u = this.tokens.get(token);
    if (!u) return undefined;
    return { user: { ...u, groups: [...u.groups] } };
  }
}
