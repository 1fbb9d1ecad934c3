/**
 * Serving OpenAPI: /openapi/v2 (JSON) and /openapi/v3 (root with per-group-version URLs
 * carrying a content hash, and the group-version documents with ETag, immutable caching when
 * asked by hash, and a 301 to the current hash for a stale one). Documents come from the
 * openapi module; each is serialised once per resource-set generation and cached.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { notAcceptable, parseAccept } from "./negotiate.js";
import { notFoundPage } from "./respond.js";
import type { ServedResource } from "./resources.js";

export interface OpenAPISource {
  v2(resources: ServedResource[]): object;
  v3Paths(resources: ServedResource[]): { paths: Record<string, { serverRelativeURL: string }> };
  v3GroupVersion(groupVersionPath: string, resources: ServedResource[]): object | undefined;
}

interface CachedDoc {
  body: Buffer;
  hash: string;
}

function hashOf(body: Buffer): string {
  return createHash("sha512").update(body).digest("hex").toUpperCase();
}

export class OpenAPIServer {
  private generation = -1;
  private v2: CachedDoc | undefined;
  private v3Root: Buffer | undefined;
  private readonly v3Docs = new Map<string, CachedDoc | null>();

  constructor(
    private readonly source: OpenAPISource,
    private readonly resources: () => { generation: number; served: ServedResource[] },
  ) {}

  private refresh(): ServedResource[] {
    const { generation, served } = this.resources();
    if (generation !== this.generation) {
      this.generation = generation;
      this.v2 = undefined;
      this.v3Root = undefined;
      this.v3Docs.clear();
    }
    return served;
  }

  private gvDoc(path: string, served: ServedResource[]): CachedDoc | undefined {
    let d = this.v3Docs.get(path);
    if (d === undefined) {
      const doc = this.source.v3GroupVersion(path, served);
      if (doc) {
        const body = Buffer.from(JSON.stringify(doc));
        d = { body, hash: hashOf(body) };
      } else d = null;
      this.v3Docs.set(path, d);
    }
    return d ?? undefined;
  }

  /** Handles /openapi/...; returns false when the path is not an OpenAPI path. */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): boolean {
    const path = url.pathname;
    if (path !== "/openapi/v2" && path !== "/openapi/v3" && !path.startsWith("/openapi/v3/")) return false;
    const served = this.refresh();
    const jsonOK = parseAccept(req.headers.accept).some(
      (m) => (m.type === "application" && (m.subtype === "json" || m.subtype === "*")) || (m.type === "*" && m.subtype === "*"),
    );
    if (!jsonOK) throw notAcceptable();
    if (path === "/openapi/v2") {
      if (!this.v2) {
        const body = Buffer.from(JSON.stringify(this.source.v2(served)));
        this.v2 = { body, hash: hashOf(body) };
      }
      this.send(req, res, this.v2, "no-cache, private");
      return true;
    }
    if (path === "/openapi/v3") {
      if (!this.v3Root) {
        const keys = Object.keys(this.source.v3Paths(served).paths);
        const paths: Record<string, { serverRelativeURL: string }> = {};
        for (const k of keys) {
          const doc = this.gvDoc(k, served);
          if (doc) paths[k] = { serverRelativeURL: `/openapi/v3/${k}?hash=${doc.hash}` };
        }
        this.v3Root = Buffer.from(JSON.stringify({ paths }));
      }
      res.writeHead(200, { "Content-Type": "application/json", "Content-Length": this.v3Root.length, "Cache-Control": "no-cache, private" });
      res.end(this.v3Root);
      return true;
    }
    const gvPath = path.slice("/openapi/v3/".length);
    const doc = this.gvDoc(gvPath, served);
    if (!doc) throw notFoundPage();
    const hash = url.searchParams.get("hash");
    if (hash !== null && hash !== "" && hash !== doc.hash) {
      res.writeHead(301, { Location: `/openapi/v3/${gvPath}?hash=${doc.hash}`, "Cache-Control": "no-cache, private" });
      res.end();
      return true;
    }
    this.send(req, res, doc, hash ? "public, immutable, max-age=31536000" : "no-cache, private");
    return true;
  }

  private send(req: IncomingMessage, res: ServerResponse, doc: CachedDoc, cacheControl: string): void {
    const etag = `"${doc.hash}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { ETag: etag, "Cache-Control": cacheControl });
      res.end();
      return;
    }
    res.writeHead(200, { "Content-Type": "application/json", "Content-Length": doc.body.length, ETag: etag, "Cache-Control": cacheControl });
    res.end(doc.body);
  }
}
