/**
 * The HTTP layer under every client: client-go's rest.Request/RESTClient behaviour on undici.
 *
 * - Connections: one keep-alive undici Agent (HTTP/1.1) per transport, carrying the TLS settings
 *   (CA, client certificate, server name, verification); a ProxyAgent (http/https proxy, CONNECT)
 *   or Socks5ProxyAgent when proxy-url is set. A client certificate handed out by an exec plugin
 *   gets its own Agent, replaced when the certificate changes.
 * - Client-side throttling: every request except watches waits on the rate limiter before its
 *   first attempt and before each retry (client-go's tryThrottle).
 * - Retries (client-go's withRetry, up to maxRetries, default 10): a response with status 429 or
 *   ≥ 500 that carries an integer Retry-After header is retried after that many seconds, for any
 *   verb; a GET that fails with a connection reset / premature close is retried after 1 s. The
 *   request body is a buffer, so it is resent unchanged.
 * - 401 with refreshable credentials (exec plugin, token file): credentials are refreshed and the
 *   request is repeated once (client-go only refreshes for the next request; repeating is safe
 *   because a 401 is answered before the request is processed).
 * - Failures: any non-2xx response → StatusError — the Status in the body when there is one,
 *   otherwise one synthesised from the HTTP code as client-go's newUnstructuredResponseError does.
 *   No response at all → TransportError (client-go returns the raw url.Error). Cancellation by the
 *   caller's signal rejects with the signal's reason.
 * - Warning headers go to the configured handler (default: each text logged once to stderr).
 */
import { createSecureContext } from "node:tls";
import { readFileSync } from "node:fs";
import type { IncomingHttpHeaders } from "node:http";
import type { ConnectionOptions } from "node:tls";
import { Agent, ProxyAgent, Socks5ProxyAgent, type Dispatcher } from "undici";
import type { StatusCause } from "../apimachinery/api/meta/v1.js";
import { onAbortOf } from "../apimachinery/abort.js";
import { realClock, type Clock, type Timer } from "../apimachinery/clock.js";
import { StatusError, type StatusReason } from "../apimachinery/errors.js";
import { groupResourceString } from "../apimachinery/gvk.js";
import {
  basicAuthorization,
  StaticCredentials,
  TokenFileCredentials,
  type ClientCertificate,
  type CredentialProvider,
  type Credentials,
} from "./auth.js";
import { execClusterInfo, type RestConfig, type TLSClientConfig } from "./config.js";
import { ConfigError, errorCode, TransportError } from "./errors.js";
import { ExecCredentialProvider } from "./exec.js";
import { restClientMetrics, type RestClientMetrics } from "./metrics.js";
import { rateLimiterFor, type RequestRateLimiter } from "./ratelimit.js";
import { defaultUserAgent } from "./version.js";
import { dedupingWarningLogger, warningsFromHeaders, type WarningHandler } from "./warnings.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

export interface RestRequest {
  method: HttpMethod;
  /** Absolute API path ("/api/v1/pods"); the host's own path, if any, is prepended. */
  path: string;
  query?: Record<string, QueryValue>;
  body?: string | Uint8Array;
  contentType?: string;
  /** Defaults to "application/json, *\/*". */
  accept?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Overrides the config's per-request timeout (ms); 0 disables it. */
  timeoutMs?: number;
  /** What the request addresses, for the messages of synthesised errors ("(get pods p1)"). */
  target?: { group: string; resource: string; name?: string };
}

export interface RestResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RestStream {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** The response body as it arrives. Ends when the server closes it; throws if cut. */
  body: AsyncIterable<Uint8Array>;
  /** Stops the stream and releases the connection. */
  cancel(): void;
  /** Whether the caller's signal (or cancel()) ended the stream. */
  readonly cancelled: boolean;
}

export const DEFAULT_MAX_RETRIES = 10;

/** Go's time.Duration.String() for whole seconds and milliseconds ("32s", "1.5s", "250ms"). */
export function formatGoDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const s = ms / 1000;
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  const rest = s - m * 60;
  if (m < 60) return `${m}m${rest}s`;
  const h = Math.floor(m / 60);
  return `${h}h${m - h * 60}m${rest}s`;
}

export interface ResolvedTls {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  rejectUnauthorized: boolean;
}

function readPem(what: string, data: string | Buffer | undefined, file: string | undefined): string | undefined {
  if (data !== undefined && data.length > 0) return typeof data === "string" ? data : data.toString("utf8");
  if (!file) return undefined;
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError("FileNotFound", `unable to read ${what} ${file}: ${(e as Error).message}`, { path: file, cause: e });
  }
}

/** Reads the TLS material a config names (files are read once, at transport creation). */
export function resolveTls(tls: TLSClientConfig | undefined): ResolvedTls {
  const out: ResolvedTls = { rejectUnauthorized: !tls?.insecure };
  if (!tls) return out;
  const ca = tls.insecure ? undefined : readPem("certificate-authority", tls.caData, tls.caFile);
  if (ca) out.ca = ca;
  const cert = readPem("client-certificate", tls.certData, tls.certFile);
  const key = readPem("client-key", tls.keyData, tls.keyFile);
  if (cert) out.cert = cert;
  if (key) out.key = key;
  if (tls.serverName) out.servername = tls.serverName;
  return out;
}

function credentialsFor(config: RestConfig, clock: Clock, ca: string | undefined): CredentialProvider | undefined {
  if (config.credentials) return config.credentials;
  if (config.bearerTokenFile) {
    return new TokenFileCredentials(config.bearerTokenFile, { clock, fallbackToken: config.bearerToken });
  }
  if (config.bearerToken) return new StaticCredentials({ authorization: `Bearer ${config.bearerToken}` });
  if (config.username !== undefined || config.password !== undefined) {
    return new StaticCredentials({ authorization: basicAuthorization(config.username ?? "", config.password ?? "") });
  }
  if (config.exec) {
    return new ExecCredentialProvider(config.exec, {
      clock,
      cluster: execClusterInfo(config, ca !== undefined ? Buffer.from(ca, "utf8") : undefined),
    });
  }
  return undefined;
}

function impersonationHeaders(config: RestConfig): Record<string, string | string[]> {
  const h: Record<string, string | string[]> = {};
  const imp = config.impersonate;
  if (!imp) return h;
  if (imp.userName) h["impersonate-user"] = imp.userName;
  if (imp.uid) h["impersonate-uid"] = imp.uid;
  if (imp.groups && imp.groups.length > 0) h["impersonate-group"] = [...imp.groups];
  for (const [k, v] of Object.entries(imp.extra ?? {})) h[`impersonate-extra-${encodeURIComponent(k)}`] = [...v];
  return h;
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Retry-After as whole seconds, when present and an integer (client-go ignores HTTP dates). */
function retryAfterSeconds(headers: IncomingHttpHeaders): number | undefined {
  const h = headerString(headers["retry-after"]);
  if (h === undefined || !/^\s*-?\d+\s*$/.test(h)) return undefined;
  return Number(h);
}

/** client-go's checkWait: 429 or any 5xx with a Retry-After header asks for a retry. */
function retryWaitSeconds(statusCode: number, headers: IncomingHttpHeaders): number | undefined {
  if (statusCode !== 429 && statusCode < 500) return undefined;
  return retryAfterSeconds(headers);
}

/** Connection failures client-go retries for GET (IsConnectionReset / IsProbableEOF). */
export function isProbableEOF(err: unknown): boolean {
  const code = errorCode(err);
  if (code === "ECONNRESET" || code === "EPIPE" || code === "UND_ERR_SOCKET" || code === "ECONNABORTED") return true;
  const msg = err instanceof Error ? err.message : "";
  return /other side closed|socket hang up|connection reset by peer|premature close|terminated/i.test(msg);
}

function isTextResponse(headers: IncomingHttpHeaders): boolean {
  const ct = headerString(headers["content-type"]);
  if (!ct) return true;
  return ct.split(";")[0].trim().toLowerCase().startsWith("text/");
}

function isJsonContentType(headers: IncomingHttpHeaders): boolean {
  const ct = headerString(headers["content-type"]);
  if (!ct) return true;
  const media = ct.split(";")[0].trim().toLowerCase();
  return media === "application/json" || media.endsWith("+json") || media === "application/yaml" || media === "text/plain";
}

const MAX_UNSTRUCTURED_TEXT = 2048;

/**
 * An error for a response that carries no Status (apimachinery's NewGenericServerResponse with
 * isUnexpectedResponse=true).
 */
export function unstructuredResponseError(
  statusCode: number,
  method: string,
  serverText: string,
  target?: { group: string; resource: string; name?: string },
  retryAfter = 0,
): StatusError {
  let reason: StatusReason = "";
  let message = `the server responded with the status code ${statusCode} but did not return more information`;
  switch (statusCode) {
    case 409:
      reason = method === "POST" ? "AlreadyExists" : "Conflict";
      message = "the server reported a conflict";
      break;
    case 404:
      reason = "NotFound";
      message = "the server could not find the requested resource";
      break;
    case 400:
      reason = "BadRequest";
      message = "the server rejected our request for an unknown reason";
      break;
    case 401:
      reason = "Unauthorized";
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      reason = "Forbidden";
      message = serverText;
      break;
    case 406:
      reason = "NotAcceptable";
      message = serverText;
      break;
    case 415:
      reason = "UnsupportedMediaType";
      message = serverText;
      break;
    case 405:
      reason = "MethodNotAllowed";
      message = "the server does not allow this method on the requested resource";
      break;
    case 422:
      reason = "Invalid";
      message = "the server rejected our request due to an error in our request";
      break;
    case 503:
      reason = "ServiceUnavailable";
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      reason = "Timeout";
      message = "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (statusCode >= 500) {
        reason = "InternalError";
        message = `an error on the server (${JSON.stringify(serverText)}) has prevented the request from succeeding`;
      }
  }
  if (target && target.resource) {
    const gr = groupResourceString(target);
    message = target.name ? `${message} (${method.toLowerCase()} ${gr} ${target.name})` : `${message} (${method.toLowerCase()} ${gr})`;
  }
  const causes: StatusCause[] = [{ reason: "UnexpectedServerResponse", message: serverText }];
  const details: NonNullable<StatusError["status"]["details"]> = { causes };
  if (target?.group) details.group = target.group;
  if (target?.resource) details.kind = target.resource;
  if (target?.name) details.name = target.name;
  if (retryAfter > 0) details.retryAfterSeconds = retryAfter;
  return new StatusError({ message, reason, code: statusCode, details });
}

/** A Status-shaped failure decoded from a body, if the body is one. */
export function statusFromBody(body: Buffer | string): StatusError | undefined {
  if (body.length === 0) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(typeof body === "string" ? body : body.toString("utf8"));
  } catch {
    return undefined;
  }
  return failureStatusOf(doc, false);
}

/**
 * A decoded document as a failure: a Status with status "Failure" (or, unless `requireKind`, a
 * kind-less document with status "Failure").
 */
function failureStatusOf(doc: unknown, requireKind: boolean): StatusError | undefined {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) return undefined;
  const s = doc as { kind?: unknown; status?: unknown; code?: unknown };
  if ((s.kind === "Status" || (!requireKind && s.kind === undefined)) && s.status === "Failure") {
    return StatusError.fromStatus(doc as Parameters<typeof StatusError.fromStatus>[0]);
  }
  return undefined;
}

/** The error for a non-2xx response (client-go's transformResponse + Result.Error). */
export function errorFromResponse(
  statusCode: number,
  headers: IncomingHttpHeaders,
  body: Buffer,
  method: string,
  target?: RestRequest["target"],
): StatusError {
  if (isJsonContentType(headers)) {
    const fromStatus = statusFromBody(body);
    if (fromStatus) {
      if (!fromStatus.status.code) fromStatus.status.code = statusCode;
      return fromStatus;
    }
  }
  const text = isTextResponse(headers) ? body.subarray(0, MAX_UNSTRUCTURED_TEXT).toString("utf8").trim() : "unknown";
  return unstructuredResponseError(statusCode, method, text, target, retryAfterSeconds(headers) ?? 0);
}

class ClientTimeout extends Error {
  constructor(ms: number) {
    super(`request timed out after ${formatGoDuration(ms)}`);
    this.name = "TimeoutError";
  }
}

/** A signal that aborts with the caller's signal or when the timeout passes on the clock. */
class RequestScope {
  readonly controller = new AbortController();
  private timer?: Timer;
  private readonly stopWaiting?: () => void;
  private readonly parent?: AbortSignal;
  timedOut = false;

  constructor(clock: Clock, parent: AbortSignal | undefined, timeoutMs: number) {
    this.parent = parent;
    if (parent) {
      if (parent.aborted) this.controller.abort(parent.reason);
      else this.stopWaiting = onAbortOf(parent, () => this.controller.abort(parent.reason));
    }
    if (timeoutMs > 0) {
      this.timer = clock.setTimer(timeoutMs, () => {
        this.timedOut = true;
        this.controller.abort(new ClientTimeout(timeoutMs));
      });
    }
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get callerAborted(): boolean {
    return this.parent?.aborted ?? false;
  }

  dispose(): void {
    this.timer?.cancel();
    this.stopWaiting?.();
  }
}

export interface TransportStats {
  /** HTTP attempts made (including retries). */
  attempts: number;
  retries: number;
}

export class Transport {
  readonly config: RestConfig;
  readonly clock: Clock;
  readonly rateLimiter: RequestRateLimiter;
  readonly maxRetries: number;
  readonly userAgent: string;
  readonly stats: TransportStats = { attempts: 0, retries: 0 };
  private readonly origin: string;
  private readonly basePath: string;
  private readonly tls: ResolvedTls;
  private readonly credentials?: CredentialProvider;
  private readonly warningHandler: WarningHandler;
  private readonly staticHeaders: Record<string, string | string[]>;
  private readonly metrics: RestClientMetrics | undefined;
  /** The `host` label of the metrics (the URL's host:port, as client-go's). */
  private readonly metricsHost: string;
  private dispatcher: Dispatcher;
  /** The Agent for an exec-provided client certificate, keyed by its PEM. */
  private certDispatcher?: { key: string; dispatcher: Dispatcher };
  private closed = false;

  constructor(config: RestConfig) {
    this.config = config;
    this.clock = config.clock ?? realClock;
    let url: URL;
    try {
      url = new URL(config.host);
    } catch {
      throw new ConfigError("Invalid", `host must be a URL, got "${config.host}"`);
    }
    this.origin = url.origin;
    this.metricsHost = url.host;
    this.metrics = config.metricsRegistry === false ? undefined : restClientMetrics(config.metricsRegistry);
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.tls = resolveTls(config.tls);
    this.rateLimiter = rateLimiterFor(config, this.clock);
    this.maxRetries = Math.max(0, config.maxRetries ?? DEFAULT_MAX_RETRIES);
    this.userAgent = config.userAgent ?? defaultUserAgent;
    this.credentials = credentialsFor(config, this.clock, this.tls.ca);
    this.warningHandler = config.warningHandler ?? dedupingWarningLogger();
    this.staticHeaders = impersonationHeaders(config);
    this.dispatcher = this.newDispatcher(undefined);
  }

  private connectOptions(cert: ClientCertificate | undefined): ConnectionOptions {
    const o: ConnectionOptions = { rejectUnauthorized: this.tls.rejectUnauthorized };
    if (this.tls.servername) o.servername = this.tls.servername;
    const material: { ca?: ConnectionOptions["ca"]; cert?: ConnectionOptions["cert"]; key?: ConnectionOptions["key"] } = {};
    if (this.tls.ca) material.ca = this.tls.ca;
    if (cert) {
      material.cert = cert.cert;
      material.key = cert.key;
    } else if (this.tls.cert && this.tls.key) {
      material.cert = this.tls.cert;
      material.key = this.tls.key;
    }
    // One secure context per dispatcher: passing PEM strings instead would make Node parse the CA,
    // certificate and key again for every new connection.
    if (material.ca || material.cert) o.secureContext = createSecureContext(material);
    return o;
  }

  private newDispatcher(cert: ClientCertificate | undefined): Dispatcher {
    const tls = this.connectOptions(cert);
    const proxy = this.config.proxyUrl;
    const common = { keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 };
    if (proxy) {
      let pu: URL;
      try {
        pu = new URL(proxy);
      } catch {
        throw new ConfigError("Invalid", `proxy-url must be a URL, got "${proxy}"`);
      }
      if (pu.protocol === "socks5:" || pu.protocol === "socks:") {
        const opts: Socks5ProxyAgent.Options & { requestTls?: ConnectionOptions } = { ...common, requestTls: tls };
        return new Socks5ProxyAgent(pu, opts);
      }
      if (pu.protocol !== "http:" && pu.protocol !== "https:") {
        throw new ConfigError("Invalid", `proxy-url scheme ${pu.protocol} is not supported (http, https, socks5)`);
      }
      return new ProxyAgent({ ...common, uri: proxy, requestTls: tls });
    }
    return new Agent({ ...common, connect: tls });
  }

  private dispatcherFor(creds: Credentials | undefined): Dispatcher {
    const cert = creds?.clientCert;
    if (!cert) return this.dispatcher;
    const key = `${String(cert.cert)}\n${String(cert.key)}`;
    if (this.certDispatcher?.key !== key) {
      const old = this.certDispatcher?.dispatcher;
      this.certDispatcher = { key, dispatcher: this.newDispatcher(cert) };
      // Let requests already running on the old certificate finish.
      void old?.close().catch(() => undefined);
    }
    return this.certDispatcher.dispatcher;
  }

  /** The full request path with query string. */
  pathFor(req: Pick<RestRequest, "path" | "query">, timeoutMs = 0): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(req.query ?? {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const x of v) params.append(k, x);
      else params.append(k, String(v));
    }
    if (timeoutMs > 0 && !params.has("timeout")) params.set("timeout", formatGoDuration(timeoutMs));
    const qs = params.toString();
    return `${this.basePath}${req.path}${qs ? `?${qs}` : ""}`;
  }

  urlFor(req: Pick<RestRequest, "path" | "query">): string {
    return `${this.origin}${this.pathFor(req)}`;
  }

  private async headersFor(req: RestRequest, creds: Credentials | undefined): Promise<Record<string, string | string[]>> {
    const h: Record<string, string | string[]> = {
      "user-agent": this.userAgent,
      accept: req.accept ?? "application/json, */*",
      ...this.staticHeaders,
    };
    if (req.contentType) h["content-type"] = req.contentType;
    if (creds?.authorization) h.authorization = creds.authorization;
    for (const [k, v] of Object.entries(req.headers ?? {})) h[k.toLowerCase()] = v;
    return h;
  }

  private handleWarnings(headers: IncomingHttpHeaders): void {
    for (const w of warningsFromHeaders(headers.warning)) {
      try {
        this.warningHandler(w);
      } catch {
        // a failing handler must not fail the request
      }
    }
  }

  /**
   * One attempt loop shared by request() and stream(). `consume` turns a successful response into
   * the result; for errors the body is read here.
   */
  private async execute<R>(
    req: RestRequest,
    opts: { throttle: boolean; timeoutMs: number; stream: boolean },
    consume: (res: Dispatcher.ResponseData, scope: RequestScope) => Promise<R>,
  ): Promise<R> {
    if (this.closed) throw new TransportError(req.method, this.urlFor(req), new Error("transport is closed"));
    const started = this.clock.now();
    if (opts.throttle) await this.throttle(req.method, req.signal);
    const scope = new RequestScope(this.clock, req.signal, opts.timeoutMs);
    const path = this.pathFor(req, opts.stream ? 0 : opts.timeoutMs);
    const url = `${this.origin}${path}`;
    let keepScope = false;
    let refreshedAfter401 = false;
    try {
      for (let attempt = 0; ; attempt++) {
        const creds = this.credentials ? await this.credentials.get(scope.signal) : undefined;
        const dispatcher = this.dispatcherFor(creds);
        let res: Dispatcher.ResponseData;
        this.stats.attempts++;
        try {
          res = await dispatcher.request({
            origin: this.origin,
            path,
            method: req.method,
            headers: await this.headersFor(req, creds),
            body: req.body ?? null,
            // Keep the connection after a DELETE with a body (undici resets it otherwise); the
            // server reads every request body in full, so reuse is safe.
            reset: false,
            signal: scope.signal,
            ...(opts.stream ? { bodyTimeout: 0, headersTimeout: 0 } : {}),
          });
        } catch (err) {
          this.metrics?.result(undefined, req.method, this.metricsHost);
          if (scope.callerAborted) throw req.signal!.reason;
          if (scope.timedOut) throw new TransportError(req.method, url, scope.signal.reason, { timeout: true, code: "ETIMEDOUT" });
          if (req.method === "GET" && isProbableEOF(err) && attempt < this.maxRetries) {
            await this.backoff(1, req, scope);
            continue;
          }
          throw new TransportError(req.method, url, err);
        }
        this.metrics?.result(res.statusCode, req.method, this.metricsHost);
        this.handleWarnings(res.headers);
        const ok = opts.stream ? res.statusCode === 200 : res.statusCode >= 200 && res.statusCode < 300;
        if (ok) {
          keepScope = opts.stream;
          return await consume(res, scope);
        }
        let body: Buffer;
        try {
          body = Buffer.from(await res.body.arrayBuffer());
        } catch (err) {
          if (scope.callerAborted) throw req.signal!.reason;
          throw new TransportError(req.method, url, err, scope.timedOut ? { timeout: true, code: "ETIMEDOUT" } : undefined);
        }
        if (res.statusCode === 401 && !refreshedAfter401 && creds && this.credentials?.refreshAfterUnauthorized) {
          refreshedAfter401 = true;
          if (await this.credentials.refreshAfterUnauthorized(creds, scope.signal)) continue;
        }
        const wait = retryWaitSeconds(res.statusCode, res.headers);
        if (wait !== undefined && attempt < this.maxRetries) {
          await this.backoff(wait, req, scope);
          continue;
        }
        throw errorFromResponse(res.statusCode, res.headers, body, req.method, req.target);
      }
    } catch (err) {
      if (scope.timedOut && !(err instanceof TransportError) && !(err instanceof StatusError)) {
        throw new TransportError(req.method, url, scope.signal.reason, { timeout: true, code: "ETIMEDOUT" });
      }
      throw err;
    } finally {
      if (!keepScope) scope.dispose();
      if (!opts.stream) this.metrics?.latency(req.method, this.metricsHost, (this.clock.now() - started) / 1000);
    }
  }

  /** Waits for the rate limiter, observing rest_client_rate_limiter_duration_seconds. */
  private async throttle(verb: string, signal: AbortSignal | undefined): Promise<void> {
    const t0 = this.clock.now();
    await this.rateLimiter.wait(signal);
    this.metrics?.rateLimiterLatency(verb, this.metricsHost, (this.clock.now() - t0) / 1000);
  }

  private async backoff(seconds: number, req: RestRequest, scope: RequestScope): Promise<void> {
    this.stats.retries++;
    if (seconds > 0) await this.clock.sleep(seconds * 1000, scope.signal);
    if (req.signal?.aborted) throw req.signal.reason;
    // Retries are throttled too (client-go's withRetry.Before).
    await this.throttle(req.method, scope.signal);
  }

  /** Performs a request and reads the whole response. Non-2xx → StatusError. */
  async request(req: RestRequest): Promise<RestResponse> {
    const timeoutMs = req.timeoutMs ?? this.config.timeoutMs ?? 0;
    return this.execute(req, { throttle: true, timeoutMs, stream: false }, async (res, scope) => {
      try {
        const body = Buffer.from(await res.body.arrayBuffer());
        return { statusCode: res.statusCode, headers: res.headers, body };
      } catch (err) {
        if (scope.callerAborted) throw req.signal!.reason;
        throw new TransportError(req.method, this.urlFor(req), err, scope.timedOut ? { timeout: true, code: "ETIMEDOUT" } : undefined);
      }
    });
  }

  /**
   * Performs a request and decodes the JSON body. A 2xx body that is a Failure Status is an
   * error too (client-go's Result.Into).
   */
  async requestJSON<T>(req: RestRequest): Promise<T> {
    const res = await this.request(req);
    if (res.body.length === 0) return undefined as T;
    let doc: unknown;
    try {
      doc = JSON.parse(res.body.toString("utf8"));
    } catch (e) {
      throw StatusError.internalError(new Error(`unable to decode the response from the server: ${(e as Error).message}`));
    }
    // Checked on the decoded document: a LIST body can be tens of megabytes, never parse it twice.
    const failure = failureStatusOf(doc, true);
    if (failure) throw failure;
    return doc as T;
  }

  /**
   * Opens a streaming request (a watch). Not rate limited (as in client-go) and with no
   * per-request timeout; anything but 200 → StatusError.
   */
  async stream(req: RestRequest): Promise<RestStream> {
    return this.execute(req, { throttle: false, timeoutMs: 0, stream: true }, (res, scope) => {
      let cancelled = false;
      const body = res.body;
      const cancel = () => {
        if (cancelled) return;
        cancelled = true;
        scope.controller.abort(new Error("watch stopped"));
        body.destroy();
        scope.dispose();
      };
      body.once("close", () => scope.dispose());
      const stream: RestStream = {
        statusCode: res.statusCode,
        headers: res.headers,
        body: body as AsyncIterable<Uint8Array>,
        cancel,
        get cancelled() {
          return cancelled || scope.callerAborted;
        },
      };
      return Promise.resolve(stream);
    });
  }

  /** Closes the connection pools; in-flight requests finish first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([this.dispatcher.close(), this.certDispatcher?.dispatcher.close()]).catch(() => undefined);
  }
}
