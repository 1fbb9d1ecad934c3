import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestServer, cm, deployment } from "./harness.js";

const CM = "/api/v1/namespaces/default/configmaps";
const DEP = "/apis/apps/v1/namespaces/default/deployments";

describe("REST semantics over HTTP", () => {
  const t = new TestServer();
  beforeAll(() => t.start());
  afterAll(() => t.stop());

  it("creates with uid, creationTimestamp, resourceVersion and the namespace from the URL", async () => {
    const r = await t.post(CM, cm("a", { k: "v" }));
    expect(r.status).toBe(201);
    expect(r.body.metadata).toMatchObject({ name: "a", namespace: "default" });
    expect(r.body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(Number(r.body.metadata.resourceVersion)).toBeGreaterThan(0);
    const g = await t.get(`${CM}/a`);
    expect(g.status).toBe(200);
    expect(g.body).toEqual(r.body);
  });

  it("answers errors as upstream Status objects", async () => {
    const nf = await t.get(`${CM}/missing`);
    expect(nf.status).toBe(404);
    expect(nf.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'configmaps "missing" not found',
      reason: "NotFound",
      details: { name: "missing", kind: "configmaps" },
      code: 404,
    });
    const dup = await t.post(CM, cm("a"));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ reason: "AlreadyExists", message: 'configmaps "a" already exists' });
    const dep404 = await t.get(`${DEP}/nope`);
    expect(dep404.body).toMatchObject({ message: 'deployments.apps "nope" not found', details: { group: "apps", kind: "deployments" } });
    const page = await t.get("/api/v1/namespaces/default/widgets");
    expect(page.status).toBe(404);
    expect(page.body.message).toBe("the server could not find the requested resource");
    const noNs = await t.post("/api/v1/namespaces/nowhere/configmaps", cm("x"));
    expect(noNs.status).toBe(404);
    expect(noNs.body.message).toBe('namespaces "nowhere" not found');
    const mismatch = await t.post(CM, { ...cm("y"), metadata: { name: "y", namespace: "other" } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.message).toBe("the namespace of the provided object does not match the namespace sent on the request");
    const noName = await t.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: {} });
    expect(noName.status).toBe(422);
    expect(noName.body.message).toBe('ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required');
  });

  it("generates names from generateName", async () => {
    const r = await t.post(CM, { apiVersion: "v1", kind: "ConfigMap", metadata: { generateName: "gen-" } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it("updates with optimistic concurrency: 409 Conflict on a stale resourceVersion", async () => {
    const cur = (await t.get(`${CM}/a`)).body;
    const ok = await t.put(`${CM}/a`, { ...cur, data: { k: "v2" } });
    expect(ok.status).toBe(200);
    expect(Number(ok.body.metadata.resourceVersion)).toBeGreaterThan(Number(cur.metadata.resourceVersion));
    const stale = await t.put(`${CM}/a`, { ...cur, data: { k: "v3" } });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
      details: { name: "a", kind: "configmaps" },
    });
    // Unconditional update (no resourceVersion) wins; a no-op keeps the resourceVersion.
    const { resourceVersion: _rv, ...meta } = ok.body.metadata;
    const unconditional = await t.put(`${CM}/a`, { ...ok.body, metadata: meta, data: { k: "v4" } });
    expect(unconditional.status).toBe(200);
    const noop = await t.put(`${CM}/a`, unconditional.body);
    expect(noop.body.metadata.resourceVersion).toBe(unconditional.body.metadata.resourceVersion);
    const wrongName = await t.put(`${CM}/a`, cm("b"));
    expect(wrongName.status).toBe(400);
    expect(wrongName.body.message).toBe("the name of the object (b) does not match the name on the URL (a)");
    const missing = await t.put(`${CM}/zz`, cm("zz"));
    expect(missing.status).toBe(404);
  });

  it("patches with JSON merge, JSON patch and strategic merge patch; serves apply; refuses bad patches", async () => {
    await t.post(DEP, deployment("web", 2));
    const merge = await t.patch(`${DEP}/web`, { metadata: { labels: { tier: "x" } } });
    expect(merge.status).toBe(200);
    expect(merge.body.metadata.labels).toEqual({ app: "web", tier: "x" });
    const smp = await t.patch(
      `${DEP}/web`,
      { spec: { template: { spec: { containers: [{ name: "c", image: "nginx:2" }] } } } },
      "application/strategic-merge-patch+json",
    );
    expect(smp.status).toBe(200);
    expect(smp.body.spec.template.spec.containers).toEqual([{ name: "c", image: "nginx:2" }]);
    expect(smp.body.metadata.generation).toBe(2);
    const jp = await t.patch(`${DEP}/web`, [{ op: "replace", path: "/spec/replicas", value: 5 }], "application/json-patch+json");
    expect(jp.body.spec.replicas).toBe(5);
    const failedTest = await t.patch(`${DEP}/web`, [{ op: "test", path: "/spec/replicas", value: 1 }], "application/json-patch+json");
    expect(failedTest.status).toBe(422);
    const objAsJsonPatch = await t.patch(`${DEP}/web`, { spec: {} }, "application/json-patch+json");
    expect(objAsJsonPatch.status).toBe(400);
    // Server-side apply is served (src/apiserver/ssa); an empty spec changes nothing.
    const apply = await t.patch(`${DEP}/web?fieldManager=me`, { spec: {} }, "application/apply-patch+yaml");
    expect(apply.status).toBe(200);
    expect(apply.body.spec.replicas).toBe(5);
    const weird = await t.patch(`${DEP}/web`, {}, "text/plain");
    expect(weird.status).toBe(415);
    const stale = await t.patch(`${DEP}/web`, { metadata: { resourceVersion: "1" } });
    expect(stale.status).toBe(409);
    const nf = await t.patch(`${DEP}/none`, {});
    expect(nf.status).toBe(404);
    const invalid = await t.patch(`${DEP}/web`, { spec: { replicas: -1 } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.message).toBe('Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
    expect(invalid.body.details).toMatchObject({ kind: "Deployment", group: "apps", causes: [{ reason: "FieldValueInvalid", field: "spec.replicas" }] });
  });

  it("keeps status out of main-resource writes and spec out of status writes", async () => {
    const cur = (await t.get(`${DEP}/web`)).body;
    const withStatus = await t.put(`${DEP}/web`, { ...cur, status: { replicas: 9 } });
    expect(withStatus.body.status).toEqual(cur.status);
    const st = await t.put(`${DEP}/web/status`, { ...withStatus.body, spec: { ...withStatus.body.spec, replicas: 42 }, status: { replicas: 3 } });
    expect(st.status).toBe(200);
    expect(st.body.status).toEqual({ replicas: 3 });
    expect(st.body.spec.replicas).toBe(withStatus.body.spec.replicas);
    expect(st.body.metadata.generation).toBe(withStatus.body.metadata.generation);
    const stPatch = await t.patch(`${DEP}/web/status`, { status: { readyReplicas: 1 } });
    expect(stPatch.body.status).toEqual({ replicas: 3, readyReplicas: 1 });
    const getStatus = await t.get(`${DEP}/web/status`);
    expect(getStatus.body.kind).toBe("Deployment");
  });

  it("serves the scale subresource as autoscaling/v1 Scale", async () => {
    const s = await t.get(`${DEP}/web/scale`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 5 }, status: { replicas: 3, selector: "app=web" } });
    const before = (await t.get(`${DEP}/web`)).body.metadata.generation;
    const patched = await t.patch(`${DEP}/web/scale`, { spec: { replicas: 7 } });
    expect(patched.status).toBe(200);
    expect(patched.body.spec.replicas).toBe(7);
    const after = (await t.get(`${DEP}/web`)).body;
    expect(after.spec.replicas).toBe(7);
    expect(after.metadata.generation).toBe(before + 1);
    // PUT without Content-Type (kubectl scale --current-replicas) and a stale resourceVersion.
    const res = await fetch(`${t.url}${DEP}/web/scale`, { method: "PUT", body: new TextEncoder().encode(JSON.stringify({ ...patched.body, spec: { replicas: 2 } })) });
    expect(res.status).toBe(200);
    const stale = await t.put(`${DEP}/web/scale`, { ...patched.body, spec: { replicas: 3 } });
    expect(stale.status).toBe(409);
    const bad = await t.put(`${DEP}/web/scale`, { kind: "Scale", apiVersion: "autoscaling/v1", metadata: { name: "web" }, spec: { replicas: -2 } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toContain('Scale.autoscaling "web" is invalid');
    const noScale = await t.get(`${CM}/a/scale`);
    expect(noScale.status).toBe(404);
  });

  it("lists with label and field selectors", async () => {
    await t.post(CM, cm("sel1", {}, { labels: { app: "demo", tier: "a" } }));
    await t.post(CM, cm("sel2", {}, { labels: { app: "demo", tier: "b" } }));
    const l = await t.get(`${CM}?labelSelector=${encodeURIComponent("app=demo,tier!=b")}`);
    expect(l.body.kind).toBe("ConfigMapList");
    expect(l.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["sel1"]);
    const f = await t.get(`${CM}?fieldSelector=${encodeURIComponent("metadata.name=sel2")}`);
    expect(f.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["sel2"]);
    const badLabel = await t.get(`${CM}?labelSelector=${encodeURIComponent("app IN (x")}`);
    expect(badLabel.status).toBe(400);
    const badField = await t.get(`${CM}?fieldSelector=spec.foo%3Dx`);
    expect(badField.status).toBe(400);
    expect(badField.body.message).toBe("field label not supported: spec.foo");
    const all = await t.get(`/api/v1/configmaps`);
    expect(all.body.items.length).toBeGreaterThanOrEqual(3);
    expect(Number(all.body.metadata.resourceVersion)).toBeGreaterThan(0);
  });

  it("paginates with limit and continue over a consistent snapshot", async () => {
    for (const n of ["p1", "p2", "p3", "p4", "p5"]) await t.post("/api/v1/namespaces/kube-public/configmaps", cm(n));
    const base = "/api/v1/namespaces/kube-public/configmaps";
    const first = await t.get(`${base}?limit=2`);
    expect(first.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["p1", "p2"]);
    expect(first.body.metadata.remainingItemCount).toBe(3);
    const rv = first.body.metadata.resourceVersion;
    await t.del(`${base}/p3`);
    await t.post(base, cm("p0"));
    const second = await t.get(`${base}?limit=2&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(second.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["p3", "p4"]);
    expect(second.body.metadata.resourceVersion).toBe(rv);
    const third = await t.get(`${base}?limit=2&continue=${encodeURIComponent(second.body.metadata.continue)}`);
    expect(third.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["p5"]);
    expect(third.body.metadata.continue).toBeUndefined();
    const withRV = await t.get(`${base}?limit=2&resourceVersion=5&continue=${encodeURIComponent(first.body.metadata.continue)}`);
    expect(withRV.status).toBe(400);
    const garbage = await t.get(`${base}?limit=2&continue=xyz`);
    expect(garbage.status).toBe(400);
  });

  it("honours resourceVersion and resourceVersionMatch on lists and gets", async () => {
    const base = "/api/v1/namespaces/kube-public/configmaps";
    const before = (await t.get(base)).body.metadata.resourceVersion;
    await t.post(base, cm("later"));
    const exact = await t.get(`${base}?resourceVersion=${before}&resourceVersionMatch=Exact`);
    expect(exact.body.metadata.resourceVersion).toBe(before);
    expect(exact.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === "later")).toBe(false);
    const notOlder = await t.get(`${base}?resourceVersion=${before}&resourceVersionMatch=NotOlderThan`);
    expect(notOlder.body.items.some((i: { metadata: { name: string } }) => i.metadata.name === "later")).toBe(true);
    const future = await t.get(`${base}?resourceVersion=99999999`);
    expect(future.status).toBe(504);
    expect(future.body.message).toMatch(/^Timeout: Too large resource version: 99999999, current: \d+$/);
    const noRV = await t.get(`${base}?resourceVersionMatch=Exact`);
    expect(noRV.status).toBe(422);
    expect(noRV.body.message).toBe(
      'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
    );
    const sie = await t.get(`${base}?sendInitialEvents=true`);
    expect(sie.status).toBe(422);
  });

  it("validates fieldValidation: Strict rejects unknown fields, Warn warns", async () => {
    const strict = await t.post(`${CM}?fieldValidation=Strict`, { ...cm("strict"), spec: { x: 1 } });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toBe('strict decoding error: unknown field "spec"');
    const warn = await t.post(CM, { ...cm("warn"), bogus: 1, metadata: { name: "warn", color: "red" } });
    expect(warn.status).toBe(201);
    expect(warn.headers.get("warning")).toBe('299 - "unknown field \\"bogus\\"", 299 - "unknown field \\"metadata.color\\""');
    expect(warn.body.bogus).toBeUndefined();
    const bad = await t.post(`${CM}?fieldValidation=Loud`, cm("loud"));
    expect(bad.status).toBe(422);
  });

  it("rejects malformed and unsupported bodies with 400 and 415", async () => {
    const malformed = await t.req("POST", CM, '{"metadata": {', { "Content-Type": "application/json" });
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/json parse error: .*position/);
    const xml = await t.req("POST", CM, "<a/>", { "Content-Type": "application/xml" });
    expect(xml.status).toBe(415);
    expect(xml.body.message).toBe(
      "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf",
    );
    const yaml = await t.req("POST", CM, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fromyaml\n", { "Content-Type": "application/yaml" });
    expect(yaml.status).toBe(201);
    // Protobuf answers for built-in kinds (src/apiserver/server/protobuf.http.test.ts has the rest).
    const pbOnly = await t.req("GET", `${CM}/a`, undefined, { Accept: "application/vnd.kubernetes.protobuf" });
    expect(pbOnly.status).toBe(200);
    expect(pbOnly.headers.get("content-type")).toBe("application/vnd.kubernetes.protobuf");
    const notAcceptable = await t.get(`${CM}/a`, { Accept: "text/html" });
    expect(notAcceptable.status).toBe(406);
  });

  it("dry-runs writes: nothing stored, no resourceVersion consumed", async () => {
    const rv = (await t.get(CM)).body.metadata.resourceVersion;
    const dry = await t.post(`${CM}?dryRun=All`, cm("dry"));
    expect(dry.status).toBe(201);
    expect(dry.body.metadata.uid).toBeTruthy();
    expect(dry.body.metadata.resourceVersion).toBeUndefined();
    expect((await t.get(`${CM}/dry`)).status).toBe(404);
    const cur = (await t.get(`${CM}/a`)).body;
    const dryPut = await t.put(`${CM}/a?dryRun=All`, { ...cur, data: { changed: "yes" } });
    expect(dryPut.body.data).toEqual({ changed: "yes" });
    expect((await t.get(`${CM}/a`)).body.data).toEqual(cur.data);
    const dryDel = await t.del(`${CM}/a`, { propagationPolicy: "Background", dryRun: ["All"] });
    expect(dryDel.status).toBe(200);
    expect((await t.get(`${CM}/a`)).status).toBe(200);
    expect((await t.get(CM)).body.metadata.resourceVersion).toBe(rv);
    const bad = await t.post(`${CM}?dryRun=Some`, cm("dry2"));
    expect(bad.status).toBe(422);
  });

  it("answers Tables and PartialObjectMetadata only when a converter exists, JSON otherwise", async () => {
    const table = await t.get(CM, { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" });
    expect(table.headers.get("content-type")).toBe("application/json"); // no converter in this server
    const partial = await t.get(`${CM}/a`, { Accept: "application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io" });
    expect(partial.body).toMatchObject({ kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: { name: "a" } });
  });
});
