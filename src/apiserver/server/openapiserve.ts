/**
 * Serving OpenAPI: /openapi/v2 as JSON or as gnostic protobuf (the negotiation, headers and
 * caching of kube-openapi's handler), and /openapi/v3 (root with per-group-version URLs carrying
 * a content hash, and the group-version documents with ETag, immutable caching when asked by
 * hash, and a 301 to the current hash for a stale one). Documents come from the openapi module;
 * each is serialised once per resource-set generation and cached.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import { encodeOpenAPIV2 } from "../protobuf/openapiv2.js";
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

/** The gnostic protobuf media type kube-openapi answers with (also for the deprecated `@` form). */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/** /openapi/v2 formats in kube-openapi's order: a wildcard Accept entry picks JSON. */
const V2_FORMATS: readonly { subtype: string; format: "json" | "protobuf" }[] = [
  { subtype: "json", format: "json" },
  { subtype: "com.github.proto-openapi.spec.v2@v1.0+protobuf", format: "protobuf" },
  { subtype: "com.github.proto-openapi.spec.v2.v1.0+protobuf", format: "protobuf" },
];

/** The /openapi/v2 format an Accept header selects (goautoneg order), or undefined (406). */
export function negotiateOpenAPIV2(accept: string | undefined): "json" | "protobuf" | undefined {
  for (const m of parseAccept(accept === undefined || accept === "" ? "*/*" : accept)) {
    for (const f of V2_FORMATS) {
      if ((m.type === "application" || m.type === "*") && (m.subtype === f.subtype || m.subtype === "*")) return f.format;
    }
  }
  return undefined;
}

/** /openapi/v2 in both formats; one ETag (the JSON's hash, as kube-openapi, thanks to Vary). */
interface V2Doc {
  json: CachedDoc;
  protobuf?: Buffer;
  /** When this document was built: Last-Modified, and If-Modified-Since answers. */
  lastModified: Date;
  gzipped: Map<string, Buffer>;
}

export class OpenAPIServer {
  private generation = -1;
  private v2: V2Doc | undefined;
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
    if (path !== "/openapi/v2") {
      const jsonOK = parseAccept(req.headers.accept).some(
        (m) => (m.type === "application" && (m.subtype === "json" || m.subtype === "*")) || (m.type === "*" && m.subtype === "*"),
      );
      if (!jsonOK) throw notAcceptable();
    }
    if (path === "/openapi/v2") {
      this.serveV2(req, res, served);
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

  /**
   * /openapi/v2 as kube-openapi serves it: the first Accept entry matching JSON or gnostic protobuf
   * (an empty 406 otherwise), `Vary: Accept`, the JSON's ETag for both, Last-Modified, 304 for a
   * matching If-None-Match (or, without one, an If-Modified-Since not before the document), and
   * gzip when the client takes it.
   */
  private serveV2(req: IncomingMessage, res: ServerResponse, served: ServedResource[]): void {
    const format = negotiateOpenAPIV2(req.headers.accept);
    if (format === undefined) {
      res.writeHead(406, { Vary: "Accept", "Content-Length": 0 });
      res.end();
      return;
    }
    if (!this.v2) {
      const body = Buffer.from(JSON.stringify(this.source.v2(served)));
      // HTTP dates have second precision; round down so If-Modified-Since compares exactly.
      this.v2 = { json: { body, hash: hashOf(body) }, lastModified: new Date(Math.floor(Date.now() / 1000) * 1000), gzipped: new Map() };
    }
    const doc = this.v2;
    let body: Buffer;
    if (format === "protobuf") {
      if (!doc.protobuf) {
        const pb = encodeOpenAPIV2(JSON.parse(doc.json.body.toString("utf8")) as object);
        doc.protobuf = Buffer.from(pb.buffer, pb.byteOffset, pb.byteLength);
      }
      body = doc.protobuf;
    } else body = doc.json.body;
    const etag = `"${doc.json.hash}"`;
    const headers: Record<string, string | number> = {
      Vary: "Accept",
      ETag: etag,
      "Last-Modified": doc.lastModified.toUTCString(),
      "Cache-Control": "no-cache, private",
    };
    const inm = req.headers["if-none-match"];
    const ims = req.headers["if-modified-since"];
    const notModified =
      inm !== undefined ? inm.split(",").some((t) => t.trim() === etag || t.trim() === "*") : ims !== undefined && Date.parse(ims) >= doc.lastModified.getTime();
    if (notModified) {
      res.writeHead(304, headers);
      res.end();
      return;
    }
    headers["Content-Type"] = format === "protobuf" ? OPENAPI_V2_PROTOBUF : "application/json";
    if (/\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))) {
      let gz = doc.gzipped.get(format);
      if (!gz) doc.gzipped.set(format, (gz = gzipSync(body)));
      body = gz;
      headers["Content-Encoding"] = "gzip";
      headers.Vary = "Accept, Accept-Encoding";
    }
    headers["Content-Length"] = body.length;
    res.writeHead(200, headers);
    res.end(body);
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
