/**
 * Typed errors of the client layer that are not API errors.
 *
 * An answer from the API server (any non-2xx response) is always a `StatusError`
 * (src/apimachinery/errors.ts). What is left is typed here:
 * - `ConfigError`: the configuration cannot be loaded or is unusable (clientcmd's errors);
 * - `ExecCredentialError`: an exec credential plugin failed or answered badly;
 * - `TransportError`: the request never produced an HTTP response (refused connection, TLS
 *   failure, reset, timeout). client-go returns the raw `*url.Error` in that case rather than
 *   a StatusError; this is its typed counterpart;
 * - `RequestConstructionError`: the request could not be built (empty name, missing namespace…).
 */

export type ConfigErrorReason =
  /** A file the configuration names (or an explicit kubeconfig path) does not exist or cannot be read. */
  | "FileNotFound"
  /** A kubeconfig file is not valid YAML or not shaped like a kubeconfig. */
  | "InvalidFile"
  /** No kubeconfig was found anywhere and no server was given (clientcmd's ErrEmptyConfig). */
  | "EmptyConfig"
  /** No context is selected (no current-context and no override). */
  | "NoCurrentContext"
  | "ContextNotFound"
  | "ClusterNotFound"
  | "UserNotFound"
  /** The merged configuration is unusable (no server, conflicting TLS options, bad exec config…). */
  | "Invalid"
  /** In-cluster configuration was requested outside a cluster. */
  | "NotInCluster";

export class ConfigError extends Error {
  readonly reason: ConfigErrorReason;
  /** The file involved, when there is one. */
  readonly path?: string;

  constructor(reason: ConfigErrorReason, message: string, options?: { path?: string; cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "ConfigError";
    this.reason = reason;
    if (options?.path !== undefined) this.path = options.path;
  }
}

export class ExecCredentialError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = "ExecCredentialError";
  }
}

export class TransportError extends Error {
  /** The system error code when known (ECONNREFUSED, ECONNRESET, ETIMEDOUT, UND_ERR_SOCKET…). */
  readonly code?: string;
  readonly method: string;
  readonly url: string;
  /** True when the request was cut by the client's own per-request timeout. */
  readonly timeout: boolean;

  constructor(method: string, url: string, cause: unknown, opts?: { timeout?: boolean; code?: string }) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${url}: ${detail}`, { cause });
    this.name = "TransportError";
    this.method = method;
    this.url = url;
    this.timeout = opts?.timeout ?? false;
    const code = opts?.code ?? errorCode(cause);
    if (code !== undefined) this.code = code;
  }
}

export class RequestConstructionError extends Error {
  constructor(message: string) {
    super(`request construction error: ${message}`);
    this.name = "RequestConstructionError";
  }
}

/** The `code` of a Node/undici error, looking through `cause` chains. */
export function errorCode(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const c = (e as { code?: unknown }).code;
    if (typeof c === "string") return c;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}
