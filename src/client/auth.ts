/**
 * Credentials attached to requests: static bearer tokens, token files re-read as they rotate,
 * basic auth, and (exec.ts) exec credential plugins.
 */
import { readFile, stat } from "node:fs/promises";
import type { Clock } from "../apimachinery/clock.js";
import { ConfigError } from "./errors.js";

export interface ClientCertificate {
  cert: string | Buffer;
  key: string | Buffer;
}

export interface Credentials {
  /** The Authorization header value ("Bearer …", "Basic …"), if any. */
  authorization?: string;
  /** A client certificate obtained at run time (exec plugins); static ones live in the TLS config. */
  clientCert?: ClientCertificate;
}

export interface CredentialProvider {
  /** The credentials for the next request. */
  get(signal?: AbortSignal): Promise<Credentials>;
  /**
   * Called when a request made with `used` was answered 401. Resolves true when fresher
   * credentials were obtained, so that repeating the request may succeed.
   */
  refreshAfterUnauthorized?(used: Credentials, signal?: AbortSignal): Promise<boolean>;
}

export function sameCredentials(a: Credentials, b: Credentials): boolean {
  if (a.authorization !== b.authorization) return false;
  const ca = a.clientCert;
  const cb = b.clientCert;
  if (!ca || !cb) return ca === cb;
  return String(ca.cert) === String(cb.cert) && String(ca.key) === String(cb.key);
}

/** Fixed credentials. */
export class StaticCredentials implements CredentialProvider {
  private readonly creds: Credentials;
  constructor(creds: Credentials) {
    this.creds = creds;
  }
  get(): Promise<Credentials> {
    return Promise.resolve(this.creds);
  }
}

export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, "utf8").toString("base64")}`;
}

export interface TokenFileOptions {
  clock: Clock;
  /** Used while the file cannot be read (client-go keeps the kubeconfig's token as a fallback). */
  fallbackToken?: string;
  /** How often (ms) the file's mtime/size are checked; default 1000. 0 checks on every request. */
  checkIntervalMs?: number;
  /** The token is re-read at least this often (ms) even if the file looks unchanged; default 60000 (client-go's period). */
  maxAgeMs?: number;
}

/**
 * A bearer token read from a file and re-read when the file changes (mtime, size or inode
 * differ at a check) or when the cached copy is older than maxAge.
 *
 * State: `token` is the last successfully read value (trimmed, non-empty); `fingerprint` the file's
 * identity when it was read; `checkedAt`/`readAt` clock times of the last stat and read. A read
 * failure keeps the previous token; with no previous token the fallback is used, else it throws.
 */
export class TokenFileCredentials implements CredentialProvider {
  readonly file: string;
  private readonly clock: Clock;
  private readonly fallbackToken?: string;
  private readonly checkIntervalMs: number;
  private readonly maxAgeMs: number;
  private token?: string;
  private fingerprint = "";
  private checkedAt = -Infinity;
  private readAt = -Infinity;
  private inflight?: Promise<string>;

  constructor(file: string, opts: TokenFileOptions) {
    this.file = file;
    this.clock = opts.clock;
    if (opts.fallbackToken) this.fallbackToken = opts.fallbackToken;
    this.checkIntervalMs = opts.checkIntervalMs ?? 1000;
    this.maxAgeMs = opts.maxAgeMs ?? 60_000;
  }

  async get(): Promise<Credentials> {
    return { authorization: `Bearer ${await this.currentToken()}` };
  }

  /** Forces the next request to re-read the file (a 401 suggests the token rotated). */
  async refreshAfterUnauthorized(used: Credentials): Promise<boolean> {
    this.checkedAt = -Infinity;
    this.readAt = -Infinity;
    const fresh = await this.get().catch(() => used);
    return !sameCredentials(fresh, used);
  }

  currentToken(): Promise<string> {
    const now = this.clock.now();
    if (this.token !== undefined && now - this.checkedAt < this.checkIntervalMs && now - this.readAt < this.maxAgeMs) {
      return Promise.resolve(this.token);
    }
    if (!this.inflight) {
      this.inflight = this.refresh(now).finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private async refresh(now: number): Promise<string> {
    try {
      const st = await stat(this.file);
      const fp = `${st.mtimeMs}:${st.size}:${st.ino}`;
      this.checkedAt = now;
      if (this.token !== undefined && fp === this.fingerprint && now - this.readAt < this.maxAgeMs) return this.token;
      const text = (await readFile(this.file, "utf8")).trim();
      if (text === "") throw new Error(`read empty token from file "${this.file}"`);
      this.token = text;
      this.fingerprint = fp;
      this.readAt = now;
      return text;
    } catch (e) {
      if (this.token !== undefined) return this.token;
      if (this.fallbackToken !== undefined) return this.fallbackToken;
      throw new ConfigError("FileNotFound", `failed to read token file "${this.file}": ${(e as Error).message}`, {
        path: this.file,
        cause: e,
      });
    }
  }
}
