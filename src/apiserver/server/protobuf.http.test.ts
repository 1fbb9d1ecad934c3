/**
 * Protobuf responses over HTTP, as client-go's typed clients ask for them
 * (`Accept: application/vnd.kubernetes.protobuf,application/json`): GET, LIST, create, update,
 * patch, delete, subresources, watch streams (length-prefixed WatchEvents), PartialObjectMetadata,
 * and Status errors; custom resources fall back to JSON (406 when JSON is not acceptable).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { startApiServer, type RunningApiServer } from "../index.js";
import { decodeProtobufBody, decodeProtobufMessage, encodeProtobufBody } from "../protobuf/index.js";

const PB = "application/vnd.kubernetes.protobuf";
const PB_FIRST = `${PB},application/json`;

let api: RunningApiServer;

interface Reply {
  status: number;
  contentType: string;
  bytes: Buffer;
}

async function call(method: string, path: string, opts: { accept?: string; body?: Uint8Array | string; contentType?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (opts.accept !== undefined) headers.Accept = opts.accept;
  if (opts.contentType !== undefined) headers["Content-Type"] = opts.contentType;
  const res = await fetch(api.url + path, { method, headers, body: opts.body });
  return { status: res.status, contentType: res.headers.get("content-type") ?? "", bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Decodes a protobuf reply, checking its Content-Type. */
function pb(r: Reply): KubeObject {
  expect(r.contentType).toBe(PB);
  return decodeProtobufBody(new Uint8Array(r.bytes)).object;
}

function json(r: Reply): KubeObject {
  expect(r.contentType).toMatch(/^application\/json/);
  return JSON.parse(r.bytes.toString("utf8")) as KubeObject;
}

/** JSON answers carry the TypeMeta of list items only where the server put it; compare without. */
function withoutItemTypeMeta(list: KubeObject): KubeObject {
  const items = (list.items as KubeObject[]).map(({ apiVersion: _a, kind: _k, ...rest }) => rest);
  return { ...list, items };
}

const cm = (name: string, data: Record<string, string>) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data });

const CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: "widgets.pb.example.com" },
  spec: {
    group: "pb.example.com",
    scope: "Namespaced",
    names: { plural: "widgets", singular: "widget", kind: "Widget" },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } } }],
  },
};

beforeAll(async () => {
  api = await startApiServer({ port: 0, insecureHttp: true });
  const c = await call("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", { body: JSON.stringify(CRD), contentType: "application/json" });
  expect(c.status).toBe(201);
  // The CRD controller establishes the resource asynchronously: poll discovery (bounded).
  for (let i = 0; i < 200; i++) {
    const r = await call("GET", "/apis/pb.example.com/v1/namespaces/default/widgets");
    if (r.status === 200) break;
    await new Promise((resolve) => setImmediate(resolve));
  }
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

describe("protobuf responses", () => {
  it("create (protobuf body), GET and LIST answer protobuf that decodes to the JSON answer", async () => {
    const created = await call("POST", "/api/v1/namespaces/default/configmaps", {
      accept: PB_FIRST,
      body: encodeProtobufBody(cm("pb1", { a: "1" })),
      contentType: PB,
    });
    expect(created.status).toBe(201);
    expect(created.bytes.subarray(0, 4)).toEqual(Buffer.from("k8s\0", "latin1"));
    const obj = pb(created);
    expect(obj).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "pb1", namespace: "default" }, data: { a: "1" } });

    const get = pb(await call("GET", "/api/v1/namespaces/default/configmaps/pb1", { accept: PB_FIRST }));
    expect(get).toEqual(json(await call("GET", "/api/v1/namespaces/default/configmaps/pb1")));

    const list = pb(await call("GET", "/api/v1/namespaces/default/configmaps", { accept: PB_FIRST }));
    expect(list.kind).toBe("ConfigMapList");
    const jsonList = json(await call("GET", "/api/v1/namespaces/default/configmaps"));
    expect(withoutItemTypeMeta(list)).toEqual(withoutItemTypeMeta(jsonList));
  });

  it("protobuf is chosen only when listed first (or alone); JSON stays the default", async () => {
    await call("POST", "/api/v1/namespaces/default/configmaps", { body: JSON.stringify(cm("pb2", {})), contentType: "application/json" });
    const path = "/api/v1/namespaces/default/configmaps/pb2";
    expect((await call("GET", path, { accept: PB })).contentType).toBe(PB);
    expect((await call("GET", path, { accept: `application/json,${PB}` })).contentType).toBe("application/json");
    expect((await call("GET", path, { accept: `${PB};q=0.5,application/json` })).contentType).toBe("application/json");
    expect((await call("GET", path, { accept: `*/*,${PB}` })).contentType).toBe(PB);
    expect((await call("GET", path)).contentType).toBe("application/json");
    // kubectl get asks for a Table: still JSON.
    const table = await call("GET", path, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    expect(table.contentType).toContain("as=Table");
  });

  it("update, patch, subresources (status, scale) and delete answer protobuf", async () => {
    const dep = {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "web" },
      spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }] } } },
    };
    const created = pb(await call("POST", "/apis/apps/v1/namespaces/default/deployments", { accept: PB_FIRST, body: encodeProtobufBody(dep), contentType: PB }));
    expect(created.spec).toMatchObject({ replicas: 1, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } } });

    const patched = pb(
      await call("PATCH", "/apis/apps/v1/namespaces/default/deployments/web", { accept: PB_FIRST, body: '{"spec":{"replicas":3}}', contentType: "application/merge-patch+json" }),
    );
    expect((patched.spec as { replicas: number }).replicas).toBe(3);

    const updated = pb(await call("PUT", "/apis/apps/v1/namespaces/default/deployments/web", { accept: PB_FIRST, body: encodeProtobufBody({ ...patched, metadata: { ...(patched.metadata as object), labels: { x: "y" } } }), contentType: PB }));
    expect(updated.metadata?.labels).toEqual({ x: "y" });

    const scale = pb(await call("GET", "/apis/apps/v1/namespaces/default/deployments/web/scale", { accept: PB_FIRST }));
    expect(scale).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 3 } });
    const status = pb(await call("GET", "/apis/apps/v1/namespaces/default/deployments/web/status", { accept: PB_FIRST }));
    expect(status.kind).toBe("Deployment");

    const deleted = pb(await call("DELETE", "/apis/apps/v1/namespaces/default/deployments/web", { accept: PB_FIRST }));
    expect(deleted).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Success", details: { name: "web", group: "apps", kind: "deployments" } });
  });

  it("errors are protobuf Status objects when protobuf was negotiated", async () => {
    const missing = await call("GET", "/api/v1/namespaces/default/configmaps/nope", { accept: PB_FIRST });
    expect(missing.status).toBe(404);
    expect(pb(missing)).toMatchObject({ kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: 'configmaps "nope" not found' });
    const exists = await call("POST", "/api/v1/namespaces/default/configmaps", { accept: PB_FIRST, body: encodeProtobufBody(cm("pb1", {})), contentType: PB });
    expect(exists.status).toBe(409);
    expect(pb(exists)).toMatchObject({ reason: "AlreadyExists", code: 409 });
    // Without protobuf in Accept the same error is JSON.
    expect(json(await call("GET", "/api/v1/namespaces/default/configmaps/nope")).reason).toBe("NotFound");
  });

  it("PartialObjectMetadataList in protobuf (metadata informers), for custom resources too", async () => {
    const accept = `${PB};as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json`;
    const list = pb(await call("GET", "/api/v1/namespaces/default/configmaps", { accept }));
    expect(list.kind).toBe("PartialObjectMetadataList");
    expect(list.apiVersion).toBe("meta.k8s.io/v1");
    expect((list.items as KubeObject[]).map((i) => i.metadata?.name)).toContain("pb1");
    expect((list.items as KubeObject[])[0]).not.toHaveProperty("data");
    const widgets = pb(await call("GET", "/apis/pb.example.com/v1/namespaces/default/widgets", { accept }));
    expect(widgets.kind).toBe("PartialObjectMetadataList");
  });

  it("custom resources answer JSON to a protobuf-first Accept, and 406 to protobuf alone", async () => {
    const w = { apiVersion: "pb.example.com/v1", kind: "Widget", metadata: { name: "w1" }, spec: { size: 2 } };
    const created = await call("POST", "/apis/pb.example.com/v1/namespaces/default/widgets", { accept: PB_FIRST, body: JSON.stringify(w), contentType: "application/json" });
    expect(created.status).toBe(201);
    expect(json(created)).toMatchObject(w);
    expect(json(await call("GET", "/apis/pb.example.com/v1/namespaces/default/widgets/w1", { accept: PB_FIRST })).spec).toEqual({ size: 2 });
    const only = await call("GET", "/apis/pb.example.com/v1/namespaces/default/widgets/w1", { accept: PB });
    expect(only.status).toBe(406);
    expect(json(only)).toMatchObject({ reason: "NotAcceptable", code: 406 });
    // The CRD itself is a built-in kind.
    const crd = pb(await call("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.pb.example.com", { accept: PB_FIRST }));
    expect(crd).toMatchObject({ kind: "CustomResourceDefinition", spec: { group: "pb.example.com" } });
  });

  it("watch streams length-prefixed WatchEvents whose objects are k8s\\0 bodies", async () => {
    const list = pb(await call("GET", "/api/v1/namespaces/default/configmaps", { accept: PB_FIRST }));
    const rv = String((list.metadata as { resourceVersion: string }).resourceVersion);
    const ac = new AbortController();
    const res = await fetch(`${api.url}/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=${rv}&allowWatchBookmarks=true`, {
      headers: { Accept: PB_FIRST },
      signal: ac.signal,
    });
    expect(res.headers.get("content-type")).toBe(`${PB};stream=watch`);
    const reader = res.body!.getReader();
    let buf = Buffer.alloc(0);
    const next = async (): Promise<{ type: string; object: KubeObject }> => {
      for (;;) {
        if (buf.length >= 4) {
          const len = buf.readUInt32BE(0);
          if (buf.length >= 4 + len) {
            const ev = decodeProtobufMessage(new Uint8Array(buf.subarray(4, 4 + len)), "meta/v1.WatchEvent");
            buf = buf.subarray(4 + len);
            return ev as { type: string; object: KubeObject };
          }
        }
        const { value, done } = await reader.read();
        if (done) throw new Error("watch ended");
        buf = Buffer.concat([buf, Buffer.from(value)]);
      }
    };
    await call("POST", "/api/v1/namespaces/default/configmaps", { body: JSON.stringify(cm("watched", { k: "v" })), contentType: "application/json" });
    await call("DELETE", "/api/v1/namespaces/default/configmaps/watched");
    const added = await next();
    expect(added.type).toBe("ADDED");
    // RawExtension holding a protobuf object decodes to the object (the envelope names its kind).
    expect(added.object).toMatchObject({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "watched" }, data: { k: "v" } });
    const gone = await next();
    expect(gone.type).toBe("DELETED");
    expect(gone.object.metadata?.name).toBe("watched");
    ac.abort();
    await reader.cancel().catch(() => undefined);
  });
});
