/**
 * The HTTP front of the API server: health endpoints, /version, discovery, OpenAPI and the
 * resource API, every failure answered as a Status.
 *
 * The chain each request goes through, as kube-apiserver's handler chain:
 * 1. the request target, routed on its raw segments (target.ts; 400 for malformed escapes);
 * 2. authentication, impersonation and authorization (`guard`);
 * 3. the deadline of requests that are not long-running (deadline.ts; 400 for a malformed
 *    `timeout`, 504 when it passes: the answer is sent and whatever the handler writes later is
 *    dropped);
 * 4. the in-flight limit (inflight.ts; 429 + Retry-After), except for long-running requests,
 *    health probes and system:masters — a seat is held until the handler ends;
 * 5. the handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { requestUser } from "../auth/context.js";
import { SystemMasters } from "../auth/user.js";
import { parseBool } from "../rest/options.js";
import { deadlineExceeded, defaultRequestTimeoutMs, requestTimeoutMs } from "./deadline.js";
import {
  aggregatedContentType,
  aggregatedDiscovery,
  apiGroupDoc,
  apiGroupList,
  apiResourceList,
  apiVersions,
  versionInfo,
} from "./discovery.js";
import type { HandlerEnv } from "./env.js";
import { handleResource } from "./handlers.js";
import { InFlightLimiter, inFlightKindOf } from "./inflight.js";
import { negotiateDiscovery } from "./negotiate.js";
import type { OpenAPIServer } from "./openapiserve.js";
import { parsePath, type ResourceRequestInfo } from "./requestinfo.js";
import { abandonResponse, methodNotAllowed, notFoundPage, toStatusError, writeError, writeJSON, writeText } from "./respond.js";
import { parseRequestTarget, type RequestTarget, type RequestURL } from "./target.js";

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export interface RequestHandlerOptions {
  env: HandlerEnv;
  openapi?: OpenAPIServer;
  /** Seats for requests being served (inflight.ts); default a limiter with upstream's 400 / 200. */
  inFlight?: InFlightLimiter;
  /** Deadline of requests that are not long-running (default 60 s). */
  requestTimeoutMs?: number;
  logger?: Logger;
  /** host:port for APIVersions.serverAddressByClientCIDRs. */
  serverAddress: () => string;
  /**
   * Authentication and authorization before routing (auth/); throws (or rejects with) a 401/403
   * StatusError to refuse. May answer synchronously: it runs before every request.
   */
  guard?: (req: IncomingMessage, url: RequestURL) => void | Promise<void>;
  /**
   * Serves resource requests that are not stored objects (reviews, TokenRequest); true when
   * handled. A plain false (no promise) for the requests it does not serve.
   */
  intercept?: (req: IncomingMessage, res: ServerResponse, info: ResourceRequestInfo) => boolean | Promise<boolean>;
}

const healthPaths = new Set(["/healthz", "/livez", "/readyz", "/healthz/ping", "/livez/ping", "/readyz/ping"]);
/** Methods the API serves; anything else is answered 405 before any other work. */
const servedMethods = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]);

function isHealthPath(path: string): boolean {
  return healthPaths.has(path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path);
}

/** Watches (the `/watch/` prefix or `?watch=true`): exempt from the in-flight limit and the deadline. */
function isLongRunning(url: RequestURL): boolean {
  if (url.pathname.includes("/watch/")) return true;
  try {
    return parseBool("watch", url.searchParams.get("watch")) === true;
  } catch {
    return false;
  }
}

function isPrivileged(req: IncomingMessage): boolean {
  return requestUser(req)?.groups.includes(SystemMasters) ?? false;
}

export function createRequestHandler(opts: RequestHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const limiter = opts.inFlight ?? new InFlightLimiter();
  const serverTimeoutMs = opts.requestTimeoutMs ?? defaultRequestTimeoutMs;
  const { env } = opts;

  const dispatch = async (req: IncomingMessage, res: ServerResponse, url: RequestTarget): Promise<void> => {
    let path = url.pathname;
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    if (healthPaths.has(path)) return writeText(res, 200, "ok");
    if (path === "/version") return writeJSON(res, 200, versionInfo());
    if (path.startsWith("/openapi/")) {
      // The OpenAPI handler reads a WHATWG URL: only for paths that URL leaves as they are.
      const whatwg = new URL(req.url ?? "/", "http://localhost");
      if (whatwg.pathname === url.pathname && opts.openapi?.handle(req, res, whatwg)) return;
      throw notFoundPage();
    }
    const p = parsePath(path);
    const method = req.method ?? "GET";
    const readOnly = method === "GET" || method === "HEAD";
    switch (p.kind) {
      case "apiVersions":
      case "apiGroupList": {
        if (!readOnly) throw notFoundPage();
        const rep = negotiateDiscovery(req.headers.accept);
        if (rep.kind === "aggregated") {
          return writeJSON(res, 200, aggregatedDiscovery(env.registry, p.kind === "apiVersions", rep.version), aggregatedContentType(rep.version));
        }
        return writeJSON(res, 200, p.kind === "apiVersions" ? apiVersions(opts.serverAddress()) : apiGroupList(env.registry));
      }
      case "apiGroup": {
        const doc = readOnly ? apiGroupDoc(env.registry, p.group) : undefined;
        if (!doc) throw notFoundPage();
        return writeJSON(res, 200, doc);
      }
      case "resourceList": {
        const doc = readOnly ? apiResourceList(env.registry, p.group, p.version) : undefined;
        if (!doc) throw notFoundPage();
        return writeJSON(res, 200, doc);
      }
      case "resource":
        if (opts.intercept) {
          const handled = opts.intercept(req, res, p.info);
          if (handled === true || (handled !== false && (await handled))) return;
        }
        return handleResource(env, req, res, url, p.info);
      case "notFound":
        throw notFoundPage();
    }
  };

  /** Steps 3–5 of the chain (the module comment), after authentication and authorization. */
  const serve = async (req: IncomingMessage, res: ServerResponse, url: RequestTarget): Promise<void> => {
    if (isLongRunning(url)) return dispatch(req, res, url);
    // 400 for a malformed `timeout` before any seat is taken (upstream's filter order).
    const ms = requestTimeoutMs(url.searchParams, serverTimeoutMs);
    let release: (() => void) | undefined;
    if (!isHealthPath(url.pathname) && !isPrivileged(req)) {
      release = limiter.tryAcquire(inFlightKindOf(req.method));
      if (!release) {
        req.resume();
        throw StatusError.tooManyRequests("Too many requests, please try again later.", 1);
      }
    }
    let finished = false;
    const timer = setTimeout(() => {
      if (finished) return;
      const bodyPending = !req.complete;
      writeError(res, deadlineExceeded(), { close: bodyPending });
      // Whatever the handler writes from now on is dropped; it keeps its seat until it ends.
      abandonResponse(res);
      // A body still arriving is abandoned with the connection, which also ends the handler's
      // read of it (Node no longer tells a request whose response is sent that its socket closed).
      if (bodyPending) res.once("close", () => req.destroy());
    }, ms);
    try {
      await dispatch(req, res, url);
    } finally {
      finished = true;
      clearTimeout(timer);
      release?.();
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = parseRequestTarget(req.url);
    if (!servedMethods.has(req.method ?? "")) {
      req.resume();
      throw methodNotAllowed();
    }
    if (opts.guard) {
      const pending = opts.guard(req, url);
      if (pending) await pending;
    }
    return serve(req, res, url);
  };

  return (req, res) => {
    route(req, res).catch((err: unknown) => {
      const se = toStatusError(err);
      if (se.code >= 500) {
        opts.logger?.error({ err: err instanceof Error ? err.stack ?? err.message : String(err), method: req.method, path: req.url }, "request failed");
      }
      writeError(res, se);
    });
  };
}
