import type { Deployment } from "../apimachinery/api/apps/v1.js";
import type { ConfigMap, Pod } from "../apimachinery/api/core/v1.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { StatusError } from "../apimachinery/errors.js";
import { json, status, TestServer } from "../../test/client/server.js";
import { RequestConstructionError } from "./errors.js";
import type { WatchEvent } from "./interfaces.js";
import { KubeClient } from "./kubeclient.js";
import { listAll, listPages } from "./pager.js";
import { builtin, builtinResources, typedClients } from "./typed.js";

const server = new TestServer();
let client: KubeClient;
beforeAll(async () => {
  await server.start();
  client = new KubeClient({ host: server.url, qps: -1 });
});
afterAll(async () => {
  await client.close();
  await server.stop();
});
afterEach(() => {
  server.requests.length = 0;
});

const echo = (code = 200) => {
  server.handler = (r, res) => json(res, code, r.body ? JSON.parse(r.body) : { kind: "Thing" });
};

describe("paths and query parameters", () => {
  it.each([
    { name: "namespaced get", run: () => client.core.v1.pods("ns1").get("p1", { resourceVersion: "0" }), want: "GET /api/v1/namespaces/ns1/pods/p1?resourceVersion=0" },
    { name: "group resource", run: () => client.apps.v1.deployments("d").get("web"), want: "GET /apis/apps/v1/namespaces/d/deployments/web" },
    { name: "cluster-scoped", run: () => client.core.v1.nodes().get("n1"), want: "GET /api/v1/nodes/n1" },
    { name: "cluster-scoped ignores a namespace", run: () => client.resource(builtin.namespaces, "x").get("kube-system"), want: "GET /api/v1/namespaces/kube-system" },
    {
      name: "list across namespaces with options",
      run: () =>
        client.core.v1.pods().list({ labelSelector: "app=a", fieldSelector: "status.phase=Running", limit: 10, continue: "tok", resourceVersion: "5", resourceVersionMatch: "NotOlderThan", timeoutSeconds: 3 }),
      want: "GET /api/v1/pods?labelSelector=app%3Da&fieldSelector=status.phase%3DRunning&limit=10&continue=tok&resourceVersion=5&resourceVersionMatch=NotOlderThan&timeoutSeconds=3",
    },
    { name: "get scale", run: () => client.apps.v1.deployments("d").getScale("web"), want: "GET /apis/apps/v1/namespaces/d/deployments/web/scale" },
    { name: "leases", run: () => client.coordination.v1.leases("kube-system").get("l"), want: "GET /apis/coordination.k8s.io/v1/namespaces/kube-system/leases/l" },
    { name: "events.k8s.io", run: () => client.events.v1.events("d").list(), want: "GET /apis/events.k8s.io/v1/namespaces/d/events" },
    { name: "rbac", run: () => client.rbac.v1.clusterRoles().list(), want: "GET /apis/rbac.authorization.k8s.io/v1/clusterroles" },
    { name: "crds", run: () => client.apiextensions.v1.customResourceDefinitions().get("foos.x.io"), want: "GET /apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos.x.io" },
  ])("$name", async ({ run, want }) => {
    echo();
    await run();
    const r = server.requests[0];
    expect(`${r.method} ${r.url}`).toBe(want);
  });

  it("write options become query parameters", async () => {
    echo(201);
    const cm: ConfigMap = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { a: "b" } };
    const out = await client.core.v1.configMaps("d").create(cm, { fieldManager: "me", dryRun: "All", fieldValidation: "Strict" });
    expect(out).toEqual(cm);
    const r = server.requests[0];
    expect(`${r.method} ${r.url}`).toBe("POST /api/v1/namespaces/d/configmaps?fieldManager=me&dryRun=All&fieldValidation=Strict");
    expect(r.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(r.body)).toEqual(cm);
  });

  it("update, updateStatus and updateScale use PUT on the object, status and scale paths", async () => {
    echo();
    const d: Deployment = { metadata: { name: "web", namespace: "d" } };
    await client.apps.v1.deployments("d").update(d);
    await client.apps.v1.deployments("d").updateStatus(d);
    await client.apps.v1.deployments("d").updateScale("web", { spec: { replicas: 3 } });
    expect(server.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      "PUT /apis/apps/v1/namespaces/d/deployments/web",
      "PUT /apis/apps/v1/namespaces/d/deployments/web/status",
      "PUT /apis/apps/v1/namespaces/d/deployments/web/scale",
    ]);
  });

  it("an all-namespaces client takes the namespace from the object on create, refuses named calls", async () => {
    echo(201);
    await client.core.v1.configMaps().create({ metadata: { name: "c", namespace: "from-obj" } });
    expect(server.requests[0].path).toBe("/api/v1/namespaces/from-obj/configmaps");
    expect(() => client.core.v1.configMaps().get("c")).toThrow(RequestConstructionError);
    expect(() => client.core.v1.configMaps().create({ metadata: { name: "c" } })).toThrow(/empty namespace may not be set during creation/);
    expect(() => client.core.v1.configMaps("d").get("a/b")).toThrow(/may not contain '\/'/);
    expect(() => client.core.v1.configMaps("d").update({ metadata: {} })).toThrow(/resource name may not be empty/);
  });

  it("list fills in each item's apiVersion and kind", async () => {
    server.handler = (_r, res) => json(res, 200, { apiVersion: "apps/v1", kind: "DeploymentList", metadata: { resourceVersion: "9" }, items: [{ metadata: { name: "a" } }] });
    const list = await client.apps.v1.deployments("d").list();
    expect(list.items[0]).toEqual({ apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "a" } });
    expect(list.metadata?.resourceVersion).toBe("9");
  });
});

describe("patch", () => {
  it.each([
    { type: "json" as const, patch: [{ op: "replace", path: "/spec/replicas", value: 2 }], ct: "application/json-patch+json" },
    { type: "merge" as const, patch: { spec: { replicas: 2 } }, ct: "application/merge-patch+json" },
    { type: "strategic" as const, patch: { spec: { replicas: 2 } }, ct: "application/strategic-merge-patch+json" },
    { type: "apply" as const, patch: { apiVersion: "apps/v1", kind: "Deployment" }, ct: "application/apply-patch+yaml" },
  ])("$type → $ct", async ({ type, patch, ct }) => {
    echo();
    await client.apps.v1.deployments("d").patch("web", type, patch, { fieldManager: "mgr", force: type === "apply" ? true : undefined });
    const r = server.requests[0];
    expect(r.headers["content-type"]).toBe(ct);
    expect(JSON.parse(r.body)).toEqual(patch);
    expect(r.query.get("fieldManager")).toBe("mgr");
    expect(r.query.get("force")).toBe(type === "apply" ? "true" : null);
  });

  it("status subresource; apply without fieldManager is refused before sending", async () => {
    echo();
    await client.apps.v1.deployments("d").patch("web", "merge", { status: {} }, { subresource: "status" });
    expect(server.requests[0].path).toBe("/apis/apps/v1/namespaces/d/deployments/web/status");
    expect(() => client.apps.v1.deployments("d").patch("web", "apply", {})).toThrow(/fieldManager is required/);
  });
});

describe("delete", () => {
  it("sends DeleteOptions in the body and returns a Status or the object", async () => {
    server.handler = (_r, res) => json(res, 200, { kind: "Status", apiVersion: "v1", status: "Success", metadata: {} });
    const out = await client.core.v1.pods("d").delete("p", {
      propagationPolicy: "Foreground",
      gracePeriodSeconds: 0,
      preconditions: { uid: "u1", resourceVersion: "7" },
      dryRun: "All",
    });
    expect(out).toMatchObject({ kind: "Status", status: "Success" });
    const r = server.requests[0];
    expect(`${r.method} ${r.path}`).toBe("DELETE /api/v1/namespaces/d/pods/p");
    expect(JSON.parse(r.body)).toEqual({
      kind: "DeleteOptions",
      apiVersion: "v1",
      gracePeriodSeconds: 0,
      preconditions: { uid: "u1", resourceVersion: "7" },
      propagationPolicy: "Foreground",
      dryRun: ["All"],
    });

    server.handler = (_r, res) => json(res, 200, { kind: "Pod", metadata: { name: "p", deletionTimestamp: "2026-01-01T00:00:00Z" } });
    expect(await client.core.v1.pods("d").delete("p")).toMatchObject({ kind: "Pod" });
  });

  it("deleteCollection sends list options as query and DeleteOptions as body", async () => {
    server.handler = (_r, res) => json(res, 200, { kind: "PodList", items: [] });
    await client.core.v1.pods("d").deleteCollection({ labelSelector: "a=b" }, { propagationPolicy: "Background" });
    const r = server.requests[0];
    expect(`${r.method} ${r.url}`).toBe("DELETE /api/v1/namespaces/d/pods?labelSelector=a%3Db");
    expect(JSON.parse(r.body)).toMatchObject({ propagationPolicy: "Background" });
  });

  it("a 404 is a NotFound StatusError", async () => {
    server.handler = (_r, res) => json(res, 404, status(404, "NotFound", 'pods "p" not found'));
    await expect(client.core.v1.pods("d").delete("p")).rejects.toMatchObject({ status: { reason: "NotFound", message: 'pods "p" not found' } });
  });
});

async function collect<T>(it: AsyncIterable<T>, max = Infinity): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) {
    out.push(x);
    if (out.length >= max) break;
  }
  return out;
}

describe("watch", () => {
  it("streams events split across arbitrary chunks and ends when the server closes", async () => {
    server.handler = async (_r, res) => {
      res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
      const text =
        JSON.stringify({ type: "ADDED", object: { kind: "Pod", metadata: { name: "a", resourceVersion: "1" } } }) +
        "\n" +
        JSON.stringify({ type: "MODIFIED", object: { kind: "Pod", metadata: { name: "ä", resourceVersion: "2" } } }) +
        "\n" +
        JSON.stringify({ type: "BOOKMARK", object: { kind: "Pod", metadata: { resourceVersion: "3", annotations: { "k8s.io/initial-events-end": "true" } } } }) +
        "\n";
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 7) {
        res.write(bytes.subarray(i, i + 7));
        await new Promise((r) => setImmediate(r));
      }
      res.end();
    };
    const stream = await client.core.v1.pods("d").watch({ resourceVersion: "0", allowWatchBookmarks: true, sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", timeoutSeconds: 30 });
    const events = await collect(stream);
    expect(events.map((e) => `${e.type} ${(e.object as Pod).metadata?.name ?? ""} ${(e.object as Pod).metadata?.resourceVersion ?? ""}`)).toEqual([
      "ADDED a 1",
      "MODIFIED ä 2",
      "BOOKMARK  3",
    ]);
    const r = server.requests[0];
    expect(r.url).toBe(
      "/api/v1/namespaces/d/pods?watch=true&resourceVersion=0&resourceVersionMatch=NotOlderThan&timeoutSeconds=30&allowWatchBookmarks=true&sendInitialEvents=true",
    );
  });

  it("passes ERROR events through", async () => {
    server.handler = (_r, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "ERROR", object: status(410, "Expired", "too old resource version: 1 (5)") }) + "\n");
    };
    const events = await collect(await client.core.v1.pods("d").watch({ resourceVersion: "1" }));
    expect(events).toHaveLength(1);
    const e = events[0] as Extract<WatchEvent, { type: "ERROR" }>;
    expect(e.type).toBe("ERROR");
    expect(e.object).toMatchObject({ code: 410, reason: "Expired" });
  });

  it("a non-200 start throws the StatusError (410 Expired)", async () => {
    server.handler = (_r, res) => json(res, 410, status(410, "Expired", "too old resource version: 1 (5)"));
    const err = await client.core.v1.pods("d").watch({ resourceVersion: "1" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status.reason).toBe("Expired");
  });

  it("a garbage frame yields one ERROR event (ClientWatchDecoding) and ends", async () => {
    server.handler = (_r, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"type":"ADDED","object":{"kind":"Pod"}}\n');
      res.end('{"type":"NOPE","object":{}}\n{"type":"ADDED","object":{}}\n');
    };
    const events = await collect(await client.core.v1.pods("d").watch());
    expect(events.map((e) => e.type)).toEqual(["ADDED", "ERROR"]);
    expect((events[1].object as { details?: { causes?: { reason?: string }[] } }).details?.causes?.[1]?.reason).toBe("ClientWatchDecoding");
  });

  it("aborting the signal ends the iterator; so does breaking out of the loop", async () => {
    let closed = 0;
    server.handler = (_r, res, raw) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"a"}}}\n');
      raw.socket.on("close", () => closed++);
    };
    const ac = new AbortController();
    const stream = await client.core.v1.pods("d").watch({ signal: ac.signal });
    const seen: string[] = [];
    for await (const e of stream) {
      seen.push(e.type);
      ac.abort();
    }
    expect(seen).toEqual(["ADDED"]);

    const second = await client.core.v1.pods("d").watch();
    expect(await collect(second, 1)).toHaveLength(1);
    await new Promise<void>((resolve) => {
      const check = () => (closed >= 2 ? resolve() : setImmediate(check));
      check();
    });
    expect(closed).toBe(2);
  });

  it("a connection cut mid-stream ends the iterator quietly (client-go treats it as EOF)", async () => {
    server.handler = (_r, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"type":"ADDED","object":{"kind":"Pod"}}\n{"type":"MOD');
      setImmediate(() => res.socket?.destroy());
    };
    const events = await collect(await client.core.v1.pods("d").watch());
    expect(events.map((e) => e.type)).toEqual(["ADDED"]);
  });
});

describe("pager", () => {
  function pagedServer(expireOnSecond = false) {
    const all = ["a", "b", "c", "d", "e"];
    server.handler = (r, res) => {
      const limit = Number(r.query.get("limit") ?? "0");
      const cont = r.query.get("continue");
      if (expireOnSecond && cont) {
        json(res, 410, status(410, "Expired", "The provided continue parameter is too old"));
        return;
      }
      const start = cont ? Number(cont) : 0;
      const end = limit > 0 ? Math.min(all.length, start + limit) : all.length;
      json(res, 200, {
        kind: "PodList",
        apiVersion: "v1",
        metadata: { resourceVersion: "42", ...(end < all.length ? { continue: String(end) } : {}) },
        items: all.slice(start, end).map((name) => ({ metadata: { name } })),
      });
    };
  }

  it("pages with limit/continue, dropping resourceVersion after the first page", async () => {
    pagedServer();
    const pages = await collect(listPages(client.core.v1.pods("d"), { resourceVersion: "0" }, { pageSize: 2 }));
    expect(pages.map((p) => p.items.map((i) => i.metadata?.name).join(""))).toEqual(["ab", "cd", "e"]);
    expect(server.requests.map((r) => r.url)).toEqual([
      "/api/v1/namespaces/d/pods?limit=2&resourceVersion=0",
      "/api/v1/namespaces/d/pods?limit=2&continue=2",
      "/api/v1/namespaces/d/pods?limit=2&continue=4",
    ]);
  });

  it("listAll concatenates pages; falls back to a full list when the continue token expires", async () => {
    pagedServer();
    const all = await listAll(client.core.v1.pods("d"), {}, { pageSize: 2 });
    expect(all.items.map((i) => i.metadata?.name)).toEqual(["a", "b", "c", "d", "e"]);
    expect(all.metadata).toEqual({ resourceVersion: "42" });

    server.requests.length = 0;
    pagedServer(true);
    const fallback = await listAll(client.core.v1.pods("d"), { resourceVersion: "7" }, { pageSize: 2 });
    expect(fallback.items).toHaveLength(5);
    expect(server.requests.map((r) => r.url)).toEqual([
      "/api/v1/namespaces/d/pods?limit=2&resourceVersion=7",
      "/api/v1/namespaces/d/pods?limit=2&continue=2",
      "/api/v1/namespaces/d/pods?resourceVersion=7",
    ]);
  });
});

describe("typedClients over any factory", () => {
  it("hands the descriptors and namespaces to the factory", () => {
    const calls: string[] = [];
    const t = typedClients({
      resource(rd, ns) {
        calls.push(`${rd.group}/${rd.version}/${rd.resource}@${ns ?? "<none>"}`);
        return {} as never;
      },
    });
    t.core.v1.pods("a");
    t.core.v1.namespaces();
    t.apps.v1.replicaSets();
    t.events.v1.events("e");
    expect(calls).toEqual(["/v1/pods@a", "/v1/namespaces@<none>", "apps/v1/replicasets@", "events.k8s.io/v1/events@e"]);
    expect(builtinResources.find((r) => r.kind === "Lease")).toEqual({ group: "coordination.k8s.io", version: "v1", resource: "leases", kind: "Lease", namespaced: true });
  });
});
