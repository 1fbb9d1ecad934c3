/** The server with the real registry strategies, Table converter and OpenAPI documents. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinStrategies } from "../../src/apiserver/registry/index.js";
import { toTable } from "../../src/apiserver/tables/index.js";
import { openAPIV2, openAPIV3GroupVersion, openAPIV3Paths } from "../../src/apiserver/openapi/index.js";
import { TestServer, deployment } from "./harness.js";

const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

describe("built-in resources", () => {
  const t = new TestServer({
    strategies: builtinStrategies(),
    toTable,
    openapi: { v2: openAPIV2, v3Paths: openAPIV3Paths, v3GroupVersion: openAPIV3GroupVersion },
  });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("defaults and serves a deployment; get/list/watch as Tables", async () => {
    const c = await t.post("/apis/apps/v1/namespaces/default/deployments", deployment("web", 2));
    expect(c.status).toBe(201);
    expect(c.body.spec.strategy.type).toBe("RollingUpdate");
    expect(c.body.metadata.generation).toBe(1);
    const list = await t.get("/apis/apps/v1/namespaces/default/deployments", { Accept: TABLE });
    expect(list.headers.get("content-type")).toBe("application/json;as=Table;v=v1;g=meta.k8s.io");
    expect(list.body.kind).toBe("Table");
    expect(list.body.metadata.resourceVersion).toBeTruthy();
    expect(list.body.columnDefinitions.map((c: { name: string }) => c.name).slice(0, 2)).toEqual(["Name", "Ready"]);
    expect(list.body.rows[0].cells[0]).toBe("web");
    expect(list.body.rows[0].object.kind).toBe("PartialObjectMetadata");
    const one = await t.get("/apis/apps/v1/namespaces/default/deployments/web?includeObject=None", { Accept: TABLE });
    expect(one.body.rows[0].object).toBeUndefined();
    const w = await t.watch(`/apis/apps/v1/namespaces/default/deployments?watch=true&resourceVersion=${c.body.metadata.resourceVersion}`, { Accept: TABLE });
    await t.patch("/apis/apps/v1/namespaces/default/deployments/web/scale", { spec: { replicas: 4 } });
    const [ev] = await w.take(1);
    expect(ev.type).toBe("MODIFIED");
    expect(ev.object.kind).toBe("Table");
    expect(ev.object.rows).toHaveLength(1);
    w.close();
  });

  it("serves namespaces with upstream defaults and pods with the Pending phase", async () => {
    const ns = await t.get("/api/v1/namespaces/default");
    expect(ns.body.spec.finalizers).toEqual(["kubernetes"]);
    expect(ns.body.status.phase).toBe("Active");
    const p = await t.post("/api/v1/namespaces/default/pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    expect(p.status).toBe(201);
    expect(p.body.status.phase).toBe("Pending");
    expect(p.body.spec.serviceAccountName).toBe("default");
  });

  it("serves OpenAPI v3 by hash with ETag, redirecting stale hashes, and v2", async () => {
    const root = await t.get("/openapi/v3");
    const url: string = root.body.paths["apis/apps/v1"].serverRelativeURL;
    expect(url).toMatch(/^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/);
    const doc = await t.get(url);
    expect(doc.status).toBe(200);
    expect(doc.headers.get("cache-control")).toContain("immutable");
    const etag = doc.headers.get("etag")!;
    const again = await fetch(t.url + url, { headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    const stale = await fetch(`${t.url}/openapi/v3/apis/apps/v1?hash=ABC`, { redirect: "manual" });
    expect(stale.status).toBe(301);
    expect(stale.headers.get("location")).toBe(url);
    expect((await t.get("/openapi/v3/apis/nope/v1")).status).toBe(404);
    const v2 = await t.get("/openapi/v2");
    expect(v2.body.swagger).toBe("2.0");
  });
});
