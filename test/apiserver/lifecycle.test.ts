import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer, cm, deployment } from "./harness.js";

const CM = "/api/v1/namespaces/default/configmaps";
const DEP = "/apis/apps/v1/namespaces/default/deployments";
const PODS = "/api/v1/namespaces/default/pods";

const pod = (name: string, nodeName?: string) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name },
  spec: { containers: [{ name: "c", image: "nginx" }], ...(nodeName ? { nodeName } : {}) },
});

describe("deletion, finalizers and namespaces", () => {
  const t = new TestServer();
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("keeps an object with finalizers until the last one is removed", async () => {
    await t.post(CM, cm("fin", {}, { finalizers: ["example.com/hold"] }));
    const d = await t.del(`${CM}/fin`);
    expect(d.status).toBe(200);
    expect(d.body.kind).toBe("ConfigMap");
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const added = await t.patch(`${CM}/fin`, { metadata: { finalizers: ["example.com/hold", "new/one"] } });
    expect(added.status).toBe(422);
    expect(added.body.message).toContain("no new finalizers can be added if the object is being deleted");
    const cleared = await t.patch(`${CM}/fin`, { metadata: { finalizers: null } });
    expect(cleared.status).toBe(200);
    expect((await t.get(`${CM}/fin`)).status).toBe(404);
  });

  it("records Foreground and Orphan propagation as finalizers; Background deletes at once", async () => {
    await t.post(DEP, deployment("fg"));
    const fg = await t.del(`${DEP}/fg`, { propagationPolicy: "Foreground" });
    expect(fg.body.metadata.finalizers).toEqual(["foregroundDeletion"]);
    expect(fg.body.metadata.generation).toBe(2);
    await t.post(DEP, deployment("or"));
    const or = await t.req("DELETE", `${DEP}/or?propagationPolicy=Orphan`);
    expect(or.body.metadata.finalizers).toEqual(["orphan"]);
    await t.post(DEP, deployment("bg"));
    const bg = await t.del(`${DEP}/bg`, { propagationPolicy: "Background" });
    expect(bg.body).toMatchObject({ kind: "Status", status: "Success", details: { name: "bg", group: "apps", kind: "deployments" } });
    const bad = await t.del(`${DEP}/or`, { propagationPolicy: "Sideways" });
    expect(bad.status).toBe(422);
  });

  it("checks delete preconditions", async () => {
    const c = await t.post(CM, cm("pre"));
    const wrongUID = await t.del(`${CM}/pre`, { preconditions: { uid: "nope" } });
    expect(wrongUID.status).toBe(409);
    expect(wrongUID.body.message).toBe(`Operation cannot be fulfilled on configmaps "pre": Precondition failed: UID in precondition: nope, UID in object meta: ${c.body.metadata.uid}`);
    const ok = await t.del(`${CM}/pre`, { preconditions: { uid: c.body.metadata.uid, resourceVersion: c.body.metadata.resourceVersion } });
    expect(ok.status).toBe(200);
  });

  it("deletes bound pods gracefully and unscheduled pods at once, returning the pod", async () => {
    await t.post(PODS, pod("bound", "node-1"));
    const created = (await t.get(`${PODS}/bound`)).body;
    expect(created.spec.serviceAccountName).toBe("default");
    expect(created.spec.tolerations).toHaveLength(2);
    const g = await t.del(`${PODS}/bound`);
    expect(g.body.kind).toBe("Pod");
    expect(g.body.metadata.deletionGracePeriodSeconds).toBe(30);
    expect((await t.get(`${PODS}/bound`)).status).toBe(200);
    const shorter = await t.del(`${PODS}/bound`, { gracePeriodSeconds: 5 });
    expect(shorter.body.metadata.deletionGracePeriodSeconds).toBe(5);
    const now = await t.del(`${PODS}/bound`, { gracePeriodSeconds: 0 });
    expect(now.body.kind).toBe("Pod");
    expect((await t.get(`${PODS}/bound`)).status).toBe(404);
    await t.post(PODS, pod("loose"));
    const d = await t.del(`${PODS}/loose`);
    expect(d.body.kind).toBe("Pod");
    expect((await t.get(`${PODS}/loose`)).status).toBe(404);
  });

  it("deletes a collection selected by labels", async () => {
    for (const n of ["dc1", "dc2", "dc3"]) await t.post(CM, cm(n, {}, { labels: { batch: n === "dc3" ? "keep" : "drop" } }));
    const r = await t.req("DELETE", `${CM}?labelSelector=batch%3Ddrop`);
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe("ConfigMapList");
    expect(r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["dc1", "dc2"]);
    expect((await t.get(`${CM}/dc3`)).status).toBe(200);
  });

  it("bootstraps namespaces, the kubernetes service and default service accounts", async () => {
    const ns = await t.get("/api/v1/namespaces");
    expect(ns.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["default", "kube-node-lease", "kube-public", "kube-system"]);
    const svc = await t.get("/api/v1/namespaces/default/services/kubernetes");
    expect(svc.body.spec.clusterIP).toBe("10.96.0.1");
    expect(svc.body.spec.clusterIPs).toEqual(["10.96.0.1"]);
    const sa = await t.get("/api/v1/namespaces/kube-system/serviceaccounts/default");
    expect(sa.status).toBe(200);
  });

  it("allocates service cluster IPs and refuses taken ones", async () => {
    const svc = (name: string, clusterIP?: string) => ({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name },
      spec: { ports: [{ port: 80 }], ...(clusterIP ? { clusterIP } : {}) },
    });
    const a = await t.post("/api/v1/namespaces/default/services", svc("a"));
    expect(a.body.spec.clusterIP).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
    const taken = await t.post("/api/v1/namespaces/default/services", svc("b", a.body.spec.clusterIP));
    expect(taken.status).toBe(422);
    expect(taken.body.message).toContain("provided IP is already allocated");
    await t.del("/api/v1/namespaces/default/services/a");
    const reuse = await t.post("/api/v1/namespaces/default/services", svc("b", a.body.spec.clusterIP));
    expect(reuse.status).toBe(201);
    const dry = await t.post("/api/v1/namespaces/default/services?dryRun=All", svc("c", "10.96.5.5"));
    expect(dry.status).toBe(201);
    const real = await t.post("/api/v1/namespaces/default/services", svc("c", "10.96.5.5"));
    expect(real.status).toBe(201);
  });

  it("terminates a namespace: Terminating phase, contents kept until the namespace controller's finalize, then the namespace is gone", async () => {
    const created = await t.post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "doomed" } });
    expect(created.body.spec.finalizers).toEqual(["kubernetes"]);
    await t.server.controllers.idle();
    expect((await t.get("/api/v1/namespaces/doomed/serviceaccounts/default")).status).toBe(200);
    await t.post("/api/v1/namespaces/doomed/configmaps", cm("x"));
    const w = await t.watch(`/api/v1/namespaces?watch=true&fieldSelector=metadata.name%3Ddoomed&resourceVersion=${created.body.metadata.resourceVersion}`);
    const d = await t.del("/api/v1/namespaces/doomed");
    expect(d.status).toBe(200);
    expect(d.body.status.phase).toBe("Terminating");
    expect(d.body.metadata.deletionTimestamp).toBeTruthy();
    const refused = await t.post("/api/v1/namespaces/doomed/configmaps", cm("late"));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    // As kube-apiserver: the server itself deletes no content (that is the namespace controller's job).
    await t.server.controllers.idle();
    expect((await t.get("/api/v1/namespaces/doomed/configmaps/x")).status).toBe(200);
    expect((await t.get("/api/v1/namespaces/doomed")).body.status.phase).toBe("Terminating");
    // finalize changes spec.finalizers only; with none left the namespace goes.
    const ns = (await t.get("/api/v1/namespaces/doomed")).body;
    const fin = await t.put("/api/v1/namespaces/doomed/finalize", { ...ns, metadata: { ...ns.metadata, labels: { changed: "ignored" } }, spec: { finalizers: [] } });
    expect(fin.status).toBe(200);
    expect((await t.get("/api/v1/namespaces/doomed")).status).toBe(404);
    const events: string[] = [];
    for (;;) {
      const e = await w.next();
      if (!e) break;
      events.push(e.type);
      if (e.type === "DELETED") break;
    }
    expect(events[0]).toBe("MODIFIED");
    expect(events[events.length - 1]).toBe("DELETED");
    w.close();
    const protectedNs = await t.del("/api/v1/namespaces/default");
    expect(protectedNs.status).toBe(403);
    expect(protectedNs.body.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
  });
});

describe("discovery, health and limits", () => {
  const t = new TestServer({ maxBodyBytes: 1024 });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("serves /version, health, legacy and aggregated discovery", async () => {
    expect((await t.get("/version")).body).toMatchObject({ major: "1", minor: "35" });
    for (const p of ["/healthz", "/readyz", "/livez"]) expect((await t.get(p)).text).toBe("ok");
    const api = await t.get("/api");
    expect(api.body).toMatchObject({ kind: "APIVersions", versions: ["v1"] });
    const apis = await t.get("/apis");
    expect(apis.body.groups).toEqual([{ name: "apps", versions: [{ groupVersion: "apps/v1", version: "v1" }], preferredVersion: { groupVersion: "apps/v1", version: "v1" } }]);
    const rl = await t.get("/apis/apps/v1");
    expect(rl.body.resources).toContainEqual(expect.objectContaining({ name: "deployments", namespaced: true, kind: "Deployment", shortNames: ["deploy"], categories: ["all"] }));
    expect(rl.body.resources).toContainEqual(expect.objectContaining({ name: "deployments/scale", group: "autoscaling", version: "v1", kind: "Scale" }));
    expect((await t.get("/apis/apps")).body.kind).toBe("APIGroup");
    expect((await t.get("/apis/nothing/v1")).status).toBe(404);
    const AGG =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
    const agg = await t.get("/apis", { Accept: AGG });
    expect(agg.headers.get("content-type")).toBe("application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList");
    const deploy = agg.body.items[0].versions[0].resources.find((r: { resource: string }) => r.resource === "deployments");
    expect(deploy).toMatchObject({
      responseKind: { group: "apps", version: "v1", kind: "Deployment" },
      scope: "Namespaced",
      singularResource: "deployment",
      subresources: [
        // In path order, as kube-apiserver's installer sorts them.
        { subresource: "scale", responseKind: { group: "autoscaling", version: "v1", kind: "Scale" }, verbs: ["get", "patch", "update"] },
        { subresource: "status", responseKind: { group: "apps", version: "v1", kind: "Deployment" }, verbs: ["get", "patch", "update"] },
      ],
    });
    const core = await t.get("/api", { Accept: AGG });
    expect(core.body.items[0].metadata.name).toBe("");
    expect(core.body.items[0].versions[0].resources.map((r: { resource: string }) => r.resource)).toContain("pods");
  });

  it("refuses bodies over the limit with 413 and keeps serving", async () => {
    const big = await t.post(CM, cm("big", { k: "x".repeat(2000) }));
    expect(big.status).toBe(413);
    expect(big.body.reason).toBe("RequestEntityTooLarge");
    expect((await t.get("/healthz")).status).toBe(200);
  });

  it("answers 405 for methods a resource does not serve", async () => {
    const r = await t.post(`${CM}/x`, cm("x"));
    expect(r.status).toBe(405);
    expect(r.body.reason).toBe("MethodNotAllowed");
  });
});

describe("in-flight limit", () => {
  const t = new TestServer({ maxInFlight: 0 });
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("answers 429 with Retry-After when the cap is reached, but still serves watches", async () => {
    const r = await t.get(CM);
    expect(r.status).toBe(429);
    expect(r.headers.get("retry-after")).toBe("1");
    expect(r.body).toMatchObject({ reason: "TooManyRequests", message: "Too many requests, please try again later.", details: { retryAfterSeconds: 1 } });
    const w = await t.watch(`${CM}?watch=true`);
    expect(w.res.status).toBe(200);
    w.close();
  });
});
