/**
 * The API server's HTTPS client for webhooks — admission webhooks and CRD conversion webhooks
 * (k8s.io/apiserver/pkg/util/webhook ClientManager + client-go's REST client as those callers
 * use it): a JSON POST to `clientConfig.url`, or to `clientConfig.service` resolved through the
 * cluster's Services and endpoints, verified against `caBundle` (the system roots when it is
 * empty) and, for services, against the name `<service>.<namespace>.svc`.
 *
 * Failures carry the texts Go's HTTP client and client-go produce, because users read them in
 * `Internal error occurred: failed calling webhook "x": failed to call webhook: ...`:
 * - transport: `Post "https://svc.ns.svc:443/path?timeout=10s": dial tcp 10.0.0.1:443: connect:
 *   connection refused`, `...: context deadline exceeded`, `...: tls: failed to verify
 *   certificate: x509: certificate signed by unknown authority`, `...: service "x" not found`;
 * - an error status from the webhook: the Status it sent, or client-go's generic text;
 * - a 2xx body that is not JSON: `couldn't get version/kind; json parse error: ...`.
 *
 * Connections are kept alive per (CA bundle, server name); `close()` drops them.
 */
import { Agent, request, type RequestOptions } from "node:https";
import { isIP } from "node:net";
import { checkServerIdentity, type PeerCertificate } from "node:tls";
import type { Status } from "../../apimachinery/api/meta/v1.js";
import type { Clock } from "../../apimachinery/clock.js";
import { realClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { decodePEMBlocks } from "../auth/csr.js";
import { ServiceResolutionError, type ServiceResolver } from "./resolver.js";

/** admissionregistration/v1 and apiextensions/v1 WebhookClientConfig, as stored (caBundle base64). */
export interface WebhookClientConfig {
  url?: string;
  service?: { namespace: string; name: string; path?: string; port?: number };
  caBundle?: string;
}

/** The request could not be made or answered (client-go's error text in `message`). */
export class WebhookRequestError extends Error {
  constructor(
    message: string,
    /** When the webhook answered with an error status: that status (or client-go's generic one). */
    readonly status?: StatusError,
  ) {
    super(message);
    this.name = "WebhookRequestError";
  }
}

/** The client configuration itself is unusable (bad CA bundle, unparsable URL). */
export class WebhookConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "WebhookConfigError";
  }
}

export interface WebhookPostOptions {
  /** The caller's cancellation (the request's). */
  signal?: AbortSignal;
  /** The webhook's own deadline; also sent as `?timeout=Ns`. */
  timeoutMs: number;
}

export interface WebhookClientOptions {
  resolver: ServiceResolver;
  clock?: Clock;
  /** Largest response body accepted (default 64 MiB). */
  maxResponseBytes?: number;
  userAgent?: string;
}

const deadlineExceeded = "context deadline exceeded";
const canceled = "context canceled";

/** Go's time.Duration String for whole and fractional seconds ("10s", "1.5s"). */
function goSeconds(ms: number): string {
  const s = Math.ceil(ms / 1000);
  return `${s}s`;
}

/** The CA bundle of a client config as PEM, undefined for the system roots. */
export function caBundlePEM(caBundle: string | undefined): string | undefined {
  if (!caBundle) return undefined;
  const pem = Buffer.from(caBundle, "base64").toString("utf8");
  if (pem.trim() === "") return undefined;
  if (!decodePEMBlocks(pem).some((b) => b.type === "CERTIFICATE")) throw new WebhookConfigError("unable to load root certificates: unable to parse bytes as PEM block");
  return pem;
}

interface Target {
  /** The URL as Go prints it in errors (with ?timeout=). */
  display: string;
  connectHost: string;
  connectPort: number;
  path: string;
  serverName: string;
}

/** Go's `invalid character 'x' looking for beginning of value` family, for the common cases. */
export function jsonParseError(body: string): string {
  const t = body.trimStart();
  if (t === "") return "unexpected end of JSON input";
  const c = t[0];
  if (!/[{["\-0-9tfn]/.test(c)) return `invalid character ${goQuoteChar(c)} looking for beginning of value`;
  try {
    JSON.parse(body);
    return "";
  } catch (err) {
    return (err as Error).message;
  }
}

function goQuoteChar(c: string): string {
  if (c === "'") return "'\\''";
  return `'${c}'`;
}

/** Go's text for a TLS / socket failure Node reports with `code`. */
function transportReason(err: NodeJS.ErrnoException & { reason?: string; cert?: PeerCertificate; host?: string }, addr: string, serverName: string): string {
  switch (err.code) {
    case "ECONNREFUSED":
      return `dial tcp ${addr}: connect: connection refused`;
    case "EHOSTUNREACH":
      return `dial tcp ${addr}: connect: no route to host`;
    case "ENETUNREACH":
      return `dial tcp ${addr}: connect: network is unreachable`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `dial tcp: lookup ${addr.replace(/:\d+$/, "")}: no such host`;
    case "ECONNRESET":
      return "read: connection reset by peer";
    case "EPIPE":
      return "write: broken pipe";
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "UNABLE_TO_GET_ISSUER_CERT":
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case "CERT_HAS_EXPIRED":
    case "CERT_NOT_YET_VALID":
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    case "ERR_TLS_CERT_ALTNAME_INVALID": {
      const names = (err.cert?.subjectaltname ?? "")
        .split(/,\s*/)
        .map((n) => n.replace(/^(DNS|IP Address):/, ""))
        .filter(Boolean);
      return names.length
        ? `tls: failed to verify certificate: x509: certificate is valid for ${names.join(", ")}, not ${serverName}`
        : "tls: failed to verify certificate: x509: certificate relies on legacy Common Name field, use SANs instead";
    }
    default:
      return err.message;
  }
}

/** client-go's text for an error status without a Status body (NewGenericServerResponse). */
function genericResponseError(code: number, body: string): StatusError {
  const text = body.trim().slice(0, 1024);
  let message: string;
  let reason: StatusError["status"]["reason"] = "";
  switch (code) {
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
      message = "the server does not allow access to the requested resource";
      break;
    case 404:
      reason = "NotFound";
      message = "the server could not find the requested resource";
      break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    case 500:
      reason = "InternalError";
      message = `an error on the server (${JSON.stringify(text || "unknown")}) has prevented the request from succeeding`;
      break;
    case 503:
      reason = "ServiceUnavailable";
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      reason = "Timeout";
      message = "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    default:
      message = `the server responded with the status code ${code} but did not return more information`;
  }
  return new StatusError({ message, reason, code, details: text ? { causes: [{ reason: "UnexpectedServerResponse", message: text }] } : undefined });
}

function asStatus(v: unknown): Status | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const s = v as Status;
  return s.kind === "Status" ? s : undefined;
}

export class WebhookClient {
  private readonly agents = new Map<string, Agent>();
  private readonly clock: Clock;
  private readonly maxResponseBytes: number;
  private closed = false;

  constructor(private readonly opts: WebhookClientOptions) {
    this.clock = opts.clock ?? realClock;
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024 * 1024;
  }

  /** Drops every kept-alive connection. */
  close(): void {
    this.closed = true;
    for (const a of this.agents.values()) a.destroy();
    this.agents.clear();
  }

  private agentFor(ca: string | undefined, serverName: string): Agent {
    const key = `${serverName}\x00${ca ?? ""}`;
    let a = this.agents.get(key);
    if (!a) {
      a = new Agent({ keepAlive: true, ca });
      this.agents.set(key, a);
    }
    return a;
  }

  private target(cc: WebhookClientConfig, timeoutMs: number): Target {
    const timeout = `timeout=${goSeconds(timeoutMs)}`;
    if (cc.service) {
      const port = cc.service.port || 443;
      const serverName = `${cc.service.name}.${cc.service.namespace}.svc`;
      const path = cc.service.path || "/";
      return { display: `https://${serverName}:${port}${path}?${timeout}`, connectHost: "", connectPort: port, path, serverName };
    }
    if (!cc.url) throw new WebhookConfigError("webhook configuration must have either service or URL");
    let u: URL;
    try {
      u = new URL(cc.url);
    } catch (err) {
      throw new WebhookConfigError(`Unparsable URL: ${(err as Error).message}`);
    }
    const host = u.hostname.replace(/^\[(.*)\]$/, "$1");
    const port = u.port ? Number(u.port) : 443;
    const path = u.pathname || "/";
    return { display: `${u.protocol}//${u.host}${path}?${timeout}`, connectHost: host, connectPort: port, path, serverName: host };
  }

  /**
   * POSTs `body` as JSON and returns the decoded JSON answer. Throws WebhookConfigError for an
   * unusable configuration and WebhookRequestError for everything else.
   */
  async post(cc: WebhookClientConfig, body: unknown, opts: WebhookPostOptions): Promise<unknown> {
    if (this.closed) throw new WebhookRequestError("webhook client closed");
    const ca = caBundlePEM(cc.caBundle);
    const t = this.target(cc, opts.timeoutMs);
    const fail = (reason: string): WebhookRequestError => new WebhookRequestError(`Post ${JSON.stringify(t.display)}: ${reason}`);
    let host = t.connectHost;
    let port = t.connectPort;
    if (cc.service) {
      try {
        ({ host, port } = this.opts.resolver.resolve(cc.service.namespace, cc.service.name, t.connectPort));
      } catch (err) {
        if (err instanceof ServiceResolutionError) throw fail(err.message);
        throw err;
      }
    }
    const addr = isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`;
    const payload = Buffer.from(JSON.stringify(body));
    const ac = new AbortController();
    let why: string | undefined;
    const timer = this.clock.setTimer(opts.timeoutMs, () => {
      why ??= deadlineExceeded;
      ac.abort();
    });
    const onParentAbort = () => {
      why ??= canceled;
      ac.abort();
    };
    if (opts.signal?.aborted) onParentAbort();
    else opts.signal?.addEventListener("abort", onParentAbort, { once: true });
    const serverName = t.serverName;
    const options: RequestOptions = {
      method: "POST",
      host,
      port,
      path: `${t.path}?timeout=${goSeconds(opts.timeoutMs)}`,
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, */*",
        "Content-Length": payload.length,
        "User-Agent": this.opts.userAgent ?? "kube-apiserver-admission",
        Host: isIP(serverName) === 6 ? `[${serverName}]:${port}` : `${serverName}:${t.connectPort}`,
      },
      agent: this.agentFor(ca, serverName),
      ...(isIP(serverName) ? {} : { servername: serverName }),
      checkServerIdentity: (_host, cert) => checkServerIdentity(serverName, cert),
      signal: ac.signal,
    };
    try {
      const { code, text } = await new Promise<{ code: number; text: string }>((resolve, reject) => {
        const req = request(options, (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (c: Buffer) => {
            size += c.length;
            if (size > this.maxResponseBytes) {
              req.destroy(new Error(`response body larger than ${this.maxResponseBytes} bytes`));
              return;
            }
            chunks.push(c);
          });
          res.on("end", () => resolve({ code: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        });
        req.on("error", reject);
        req.end(payload);
      });
      if (code < 200 || code > 299) {
        let status: Status | undefined;
        try {
          status = asStatus(JSON.parse(text));
        } catch {
          status = undefined;
        }
        const se = status ? StatusError.fromStatus(status, code) : genericResponseError(code, text);
        throw new WebhookRequestError(se.message, se);
      }
      const parseErr = jsonParseError(text);
      if (parseErr) throw new WebhookRequestError(`couldn't get version/kind; json parse error: ${parseErr}`);
      return JSON.parse(text) as unknown;
    } catch (err) {
      if (err instanceof WebhookRequestError) throw err;
      if (why) throw fail(why);
      throw fail(transportReason(err as NodeJS.ErrnoException, addr, serverName));
    } finally {
      timer.cancel();
      opts.signal?.removeEventListener("abort", onParentAbort);
    }
  }
}
