/**
 * The HTTP front of the API server: health endpoints, /version, discovery, OpenAPI and the
 * resource API, with a cap on in-flight (non-watch) requests (429 + Retry-After) and every
 * failure answered as a Status.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { StatusError } from "../../apimachinery/errors.js";
import { parseBool } from "../rest/options.js";
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
import { negotiateDiscovery } from "./negotiate.js";
import type { OpenAPIServer } from "./openapiserve.js";
import { parsePath, type ResourceRequestInfo } from "./requestinfo.js";
import { notFoundPage, toStatusError, writeError, writeJSON, writeText } from "./respond.js";

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export interface RequestHandlerOptions {
  env: HandlerEnv;
  openapi?: OpenAPIServer;
  /** Maximum concurrent non-long-running requests (default 400). */
  maxInFlight?: number;
  logger?: Logger;
  /** host:port for APIVersions.serverAddressByClientCIDRs. */
  serverAddress: () => string;
  /**
   * Authentication and authorization before routing (auth/); throws (or rejects with) a 401/403
   * StatusError to refuse. May answer synchronously: it runs before every request.
   */
  guard?: (req: IncomingMessage, url: URL) => void | Promise<void>;
  /**
   * Serves resource requests that are not stored objects (reviews, TokenRequest); true when
   * handled. A plain false (no promise) for the requests it does not serve.
   */
  intercept?: (req: IncomingMessage, res: ServerResponse, info: ResourceRequestInfo) => boolean | Promise<boolean>;
}

const healthPaths = new Set(["/healthz", "/livez", "/readyz", "/healthz/ping", "/livez/ping", "/readyz/ping"]);

function isLongRunning(url: URL): boolean {
  if (url.pathname.includes("/watch/")) return true;
  try {
    return parseBool("watch", url.searchParams.get("watch")) === true;
  } catch {
    return false;
  }
}

export function createRequestHandler(opts: RequestHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const maxInFlight = opts.maxInFlight ?? 400;
  let inFlight = 0;
  const { env } = opts;

  const route = async (req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> => {
    if (opts.guard) {
      const pending = opts.guard(req, url);
      if (pending) await pending;
    }
    let path = url.pathname;
    if (path.length > 1 && path.endsWith("/")) path = path.slice(0, -1);
    if (healthPaths.has(path)) return writeText(res, 200, "ok");
    if (path === "/version") return writeJSON(res, 200, versionInfo());
    if (path.startsWith("/openapi/")) {
      if (opts.openapi?.handle(req, res, url)) return;
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

  return (req, res) => {
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://localhost");
    } catch {
      writeError(res, StatusError.badRequest("malformed request URL"));
      return;
    }
    const limited = !isLongRunning(url);
    if (limited) {
      if (inFlight >= maxInFlight) {
        req.resume();
        writeError(res, StatusError.tooManyRequests("Too many requests, please try again later.", 1));
        return;
      }
      inFlight++;
    }
    route(req, res, url)
      .catch((err: unknown) => {
        const se = toStatusError(err);
        if (se.code >= 500) opts.logger?.error({ err: err instanceof Error ? err.message : String(err), method: req.method, path: url.pathname }, "request failed");
        writeError(res, se);
      })
      .finally(() => {
        if (limited) inFlight--;
      });
  };
}
