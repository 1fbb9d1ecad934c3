/**
 * Compact JWS (JWT) signing and verification with ES256 (ECDSA P-256, SHA-256; the signature is
 * the 64-byte r||s form JOSE requires), via node:crypto.
 */
import { createHash, sign, verify, type KeyObject } from "node:crypto";

export type JWTClaims = Record<string, unknown>;

export class JWTError extends Error {}

const b64url = (b: Buffer | string) => Buffer.from(b).toString("base64url");

/** The key id: base64url SHA-256 of the public key's SPKI DER (upstream uses the same idea). */
export function keyID(publicKey: KeyObject): string {
  return b64url(createHash("sha256").update(publicKey.export({ type: "spki", format: "der" })).digest());
}

export function signJWT(claims: JWTClaims, privateKey: KeyObject, kid: string): string {
  const header = { alg: "ES256", kid };
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const sig = sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" });
  return `${input}.${b64url(sig)}`;
}

/** Whether the string has the shape of a compact JWS (three base64url parts). */
export function looksLikeJWT(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

function decodePart(part: string, what: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  } catch {
    throw new JWTError(`malformed token ${what}`);
  }
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new JWTError(`malformed token ${what}`);
  return v as Record<string, unknown>;
}

/** The unverified claims (to read the issuer before choosing keys). */
export function peekClaims(token: string): JWTClaims {
  const parts = token.split(".");
  if (parts.length !== 3) throw new JWTError("malformed token");
  return decodePart(parts[1], "claims");
}

/** Verifies the ES256 signature with the key named by `kid` (or any key when absent). */
export function verifyJWT(token: string, keys: ReadonlyMap<string, KeyObject>): JWTClaims {
  const parts = token.split(".");
  if (parts.length !== 3) throw new JWTError("malformed token");
  const header = decodePart(parts[0], "header");
  if (header.alg !== "ES256") throw new JWTError(`unsupported signing algorithm ${JSON.stringify(header.alg)}`);
  const sig = Buffer.from(parts[2], "base64url");
  const candidates = typeof header.kid === "string" && keys.has(header.kid) ? [keys.get(header.kid)!] : [...keys.values()];
  const input = Buffer.from(`${parts[0]}.${parts[1]}`);
  for (const key of candidates) {
    if (verify("sha256", input, { key, dsaEncoding: "ieee-p1363" }, sig)) return decodePart(parts[1], "claims");
  }
  throw new JWTError("invalid signature");
}
