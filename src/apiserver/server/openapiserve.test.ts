/** /openapi/v2 negotiation, headers and caching, as kube-openapi's handler serves them. */
import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer, type RunningApiServer } from "../index.js";
import { encodeOpenAPIV2 } from "../protobuf/openapiv2.js";
import { negotiateOpenAPIV2, OPENAPI_V2_PROTOBUF } from "./openapiserve.js";

let api: RunningApiServer;

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function get(path: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(api.url + path, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on("error", reject);
    req.end();
  });
}

const PB_DEPRECATED = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
// What kubectl 1.24–1.28 and helm 3 send for /openapi/v2.
const CLIENT_GO_ACCEPT = `${PB_DEPRECATED}, application/json`;

describe("/openapi/v2 negotiation", () => {
  it.each<[string | undefined, "json" | "protobuf" | undefined]>([
    [undefined, "json"],
    ["", "json"],
    ["*/*", "json"],
    ["application/json", "json"],
    [CLIENT_GO_ACCEPT, "protobuf"],
    [PB_DEPRECATED, "protobuf"],
    [OPENAPI_V2_PROTOBUF, "protobuf"],
    [`application/json;q=0.5, ${PB_DEPRECATED}`, "protobuf"],
    ["application/*", "json"],
    ["text/html", undefined],
    ["application/vnd.kubernetes.protobuf", undefined],
  ])("Accept %s → %s", (accept, want) => {
    expect(negotiateOpenAPIV2(accept)).toBe(want);
  });
});

describe("/openapi/v2 over HTTP", () => {
  it("serves gnostic protobuf with the JSON's ETag, Vary: Accept and Last-Modified", async () => {
    const json = await get("/openapi/v2", { Accept: "application/json" });
    expect(json.status).toBe(200);
    expect(json.headers["content-type"]).toBe("application/json");
    const pb = await get("/openapi/v2", { Accept: CLIENT_GO_ACCEPT });
    expect(pb.status).toBe(200);
    // kube-openapi answers the dotted media type (Go's mime parser rejects the `@` form).
    expect(pb.headers["content-type"]).toBe(OPENAPI_V2_PROTOBUF);
    expect(pb.headers.vary).toBe("Accept");
    expect(pb.headers.etag).toBe(json.headers.etag);
    expect(pb.headers.etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(Date.parse(String(pb.headers["last-modified"]))).toBeGreaterThan(0);
    expect(pb.body.equals(Buffer.from(encodeOpenAPIV2(JSON.parse(json.body.toString("utf8")) as object)))).toBe(true);
  });

  it("answers 304 to a matching If-None-Match or a current If-Modified-Since", async () => {
    const first = await get("/openapi/v2", { Accept: CLIENT_GO_ACCEPT });
    const etag = String(first.headers.etag);
    const cached = await get("/openapi/v2", { Accept: CLIENT_GO_ACCEPT, "If-None-Match": etag });
    expect(cached.status).toBe(304);
    expect(cached.body.length).toBe(0);
    expect(cached.headers.etag).toBe(etag);
    expect((await get("/openapi/v2", { Accept: CLIENT_GO_ACCEPT, "If-None-Match": '"stale"' })).status).toBe(200);
    const since = await get("/openapi/v2", { Accept: "application/json", "If-Modified-Since": String(first.headers["last-modified"]) });
    expect(since.status).toBe(304);
  });

  it("gzips when the client accepts it", async () => {
    const plain = await get("/openapi/v2", { Accept: CLIENT_GO_ACCEPT });
    const gz = await get("/openapi/v2", { Accept: CLIENT_GO_ACCEPT, "Accept-Encoding": "gzip" });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gz.headers.vary).toBe("Accept, Accept-Encoding");
    expect(gunzipSync(gz.body).equals(plain.body)).toBe(true);
  });

  it("answers an empty 406 when no format matches, as kube-openapi", async () => {
    const r = await get("/openapi/v2", { Accept: "text/html" });
    expect(r.status).toBe(406);
    expect(r.body.length).toBe(0);
  });
});
