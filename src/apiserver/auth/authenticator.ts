/**
 * Request authentication as kube-apiserver chains it: client certificate, then bearer tokens;
 * every authenticated user gets system:authenticated; a request with no credentials at all
 * becomes system:anonymous (group system:unauthenticated) only on the paths anonymous access
 * is allowed for, and a request whose credentials fail is refused (never treated as anonymous).
 */
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { AllUnauthenticated, Anonymous, withAuthenticatedGroup, type UserInfo } from "./user.js";

/** What an authenticator says about one request. */
export type AuthResult =
  /** The credential it handles was absent: let the next one try. */
  | { kind: "none" }
  | { kind: "user"; user: UserInfo }
  /** A credential was presented and is not valid. */
  | { kind: "error"; message: string };

export interface RequestAuthenticator {
  authenticate(req: IncomingMessage): Promise<AuthResult> | AuthResult;
}

/** Verifies bearer tokens; `undefined` means "not mine" (another token authenticator may know it). */
export interface TokenAuthenticator {
  authenticateToken(token: string): Promise<TokenResult | undefined> | TokenResult | undefined;
}

export type TokenResult = { user: UserInfo; audiences?: string[] } | { error: string };

const none: AuthResult = { kind: "none" };

/**
 * What a TLS connection's client certificate says, computed once per connection: the peer
 * certificate cannot change on an established TLS connection (renegotiation is refused, and
 * TLS 1.3 has none), and reading it (getPeerCertificate builds an object from the DER) on every
 * request would cost more than the rest of the authentication.
 */
const byConnection = new WeakMap<object, AuthResult>();

/** Client certificates verified against the client CA by the TLS layer: CN = user, O = groups. */
export const clientCertificateAuthenticator: RequestAuthenticator = {
  authenticate(req) {
    const socket = req.socket as Partial<TLSSocket>;
    if (typeof socket.getPeerCertificate !== "function") return none;
    let r = byConnection.get(socket);
    if (r === undefined) {
      r = certificateIdentity(socket);
      byConnection.set(socket, r);
    }
    return r;
  },
};

function certificateIdentity(socket: Partial<TLSSocket>): AuthResult {
  const peer = socket.getPeerCertificate!();
  if (!peer || Object.keys(peer).length === 0) return none;
  if (!socket.authorized) {
    return { kind: "error", message: `verifying certificate SN=${peer.serialNumber}, SKID=, AKID= failed: x509: ${socket.authorizationError ?? "certificate signed by unknown authority"}` };
  }
  const cn = peer.subject?.CN;
  const username = Array.isArray(cn) ? String(cn[0]) : (cn ?? "");
  if (!username) return { kind: "error", message: "x509: certificate has no common name" };
  const o: unknown = peer.subject?.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? o.map(String) : [String(o)];
  return { kind: "user", user: { username, groups } };
}

/** Extracts the bearer token of an Authorization header ("Bearer <token>", scheme case-insensitive). */
export function bearerToken(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

/** Tries each token authenticator; a token none of them knows is an invalid bearer token. */
export function bearerTokenAuthenticator(tokens: readonly TokenAuthenticator[]): RequestAuthenticator {
  return {
    async authenticate(req) {
      const token = bearerToken(req);
      if (token === undefined) return none;
      const errors: string[] = [];
      for (const t of tokens) {
        const r = await t.authenticateToken(token);
        if (!r) continue;
        if ("user" in r) return { kind: "user", user: r.user };
        errors.push(r.error);
      }
      return { kind: "error", message: errors.length ? errors.join(", ") : "invalid bearer token" };
    },
  };
}

export interface AnonymousOptions {
  /** Paths anonymous requests may reach; other paths answer 401 (upstream's anonymous conditions). */
  paths: readonly string[];
}

/** The default anonymous paths: the ones system:public-info-viewer grants. */
export const publicInfoPaths: readonly string[] = ["/healthz", "/livez", "/readyz", "/version"];

export type AuthenticationOutcome = { kind: "user"; user: UserInfo } | { kind: "unauthorized"; message: string };

/** The chain: authenticators in order, the system:authenticated group, then anonymous (FailOnError). */
export class AuthenticationChain {
  constructor(
    private readonly authenticators: readonly RequestAuthenticator[],
    private readonly anonymous: AnonymousOptions | undefined,
  ) {}

  async authenticate(req: IncomingMessage, path: string): Promise<AuthenticationOutcome> {
    const errors: string[] = [];
    for (const a of this.authenticators) {
      const r = await a.authenticate(req);
      if (r.kind === "user") return { kind: "user", user: withAuthenticatedGroup(r.user) };
      if (r.kind === "error") errors.push(r.message);
    }
    if (errors.length) return { kind: "unauthorized", message: errors.join(", ") };
    if (this.anonymous && anonymousAllowed(this.anonymous.paths, path)) {
      return { kind: "user", user: { username: Anonymous, groups: [AllUnauthenticated] } };
    }
    return { kind: "unauthorized", message: "no credentials" };
  }
}

function anonymousAllowed(paths: readonly string[], path: string): boolean {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  return paths.includes(p);
}
