/**
 * Issue 14's resources over HTTP with the built-in strategies: discovery (resources, versions,
 * subresources and their kinds), autoscaling at two versions, pods/ephemeralcontainers and
 * pods/resize, bindings, componentstatuses, scale subresources of every scalable kind, the Job
 * delete default, Tables, and the default ServiceCIDR.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinServerConfig } from "../../src/apiserver/index.js";
import { TestServer } from "./harness.js";

const t = new TestServer(builtinServerConfig());
beforeAll(() => t.start());
afterAll(() => t.stop());

const NS = "/api/v1/namespaces/default";
const TABLE = { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" };
const template = (labels: Record<string, string>, restartPolicy = "Always") => ({
  metadata: { labels },
  spec: { restartPolicy, containers: [{ name: "c", image: "nginx", resources: { requests: { cpu: "100m", memory: "64Mi" }, limits: { cpu: "200m", memory: "128Mi" } } }] },
});

describe("discovery", () => {
  it("lists the workload resources with upstream's names, verbs and subresources", async () => {
    const core = await t.get("/api/v1");
    const byName = new Map<string, Record<string, unknown>>(core.body.resources.map((r: { name: string }) => [r.name, r]));
    expect(byName.get("componentstatuses")).toMatchObject({ kind: "ComponentStatus", namespaced: false, verbs: ["get", "list"], shortNames: ["cs"] });
    expect(byName.get("bindings")).toMatchObject({ kind: "Binding", namespaced: true, verbs: ["create"] });
    expect(byName.get("replicationcontrollers/scale")).toMatchObject({ group: "autoscaling", version: "v1", kind: "Scale" });
    expect(byName.get("pods/eviction")).toMatchObject({ group: "policy", version: "v1", kind: "Eviction", verbs: ["create"] });
    expect(byName.get("pods/binding")).toMatchObject({ kind: "Binding", verbs: ["create"] });
    expect(byName.get("pods/resize")).toMatchObject({ kind: "Pod", verbs: ["get", "patch", "update"] });
    expect(byName.get("pods/ephemeralcontainers")).toMatchObject({ kind: "Pod", verbs: ["get", "patch", "update"] });
    const names = core.body.resources.map((r: { name: string }) => r.name);
    expect(names).toEqual([...names].sort());
    const apps = await t.get("/apis/apps/v1");
    expect(apps.body.resources.map((r: { name: string }) => r.name)).toEqual([
      "controllerrevisions",
      "daemonsets",
      "daemonsets/status",
      "deployments",
      "deployments/scale",
      "deployments/status",
      "replicasets",
      "replicasets/scale",
      "replicasets/status",
      "statefulsets",
      "statefulsets/scale",
      "statefulsets/status",
    ]);
  });

  it("serves autoscaling at v2 (preferred) and v1, with one storage version hash", async () => {
    const g = await t.get("/apis/autoscaling");
    expect(g.body.versions.map((v: { version: string }) => v.version)).toEqual(["v2", "v1"]);
    expect(g.body.preferredVersion.version).toBe("v2");
    const hash = async (v: string) => (await t.get(`/apis/autoscaling/${v}`)).body.resources.find((r: { name: string }) => r.name === "horizontalpodautoscalers").storageVersionHash;
    expect(await hash("v1")).toBe(await hash("v2"));
  });
});

describe("HorizontalPodAutoscalers at two versions", () => {
  it("creates through v1, reads through v2 and back", async () => {
    const c = await t.post(`/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers`, {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: { scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" }, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
    });
    expect(c.status).toBe(201);
    expect(c.body.apiVersion).toBe("autoscaling/v1");
    const v2 = await t.get(`/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web`);
    expect(v2.body.spec.metrics).toEqual([{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } } }]);
    const patched = await t.patch(`/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web`, { spec: { maxReplicas: 9 } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ apiVersion: "autoscaling/v1", spec: { maxReplicas: 9, targetCPUUtilizationPercentage: 70 } });
    const table = await t.get(`/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers`, TABLE);
    expect(table.body.rows[0].cells).toEqual(["web", "Deployment/web", "cpu: <unknown>/70%", "1", 9, 0, expect.any(String)]);
  });
});

describe("pod subresources", () => {
  const POD = `${NS}/pods/sub`;
  beforeAll(async () => {
    await t.post(`${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name: "sub" }, spec: template({ app: "sub" }).spec });
  });

  it("adds an ephemeral container through pods/ephemeralcontainers only", async () => {
    const got = await t.get(`${POD}/ephemeralcontainers`);
    expect(got.body.kind).toBe("Pod");
    const r = await t.patch(
      `${POD}/ephemeralcontainers`,
      { spec: { ephemeralContainers: [{ name: "debugger", image: "busybox", targetContainerName: "c", stdin: true, tty: true }] } },
      "application/strategic-merge-patch+json",
    );
    expect(r.status).toBe(200);
    expect(r.body.spec.ephemeralContainers).toEqual([
      expect.objectContaining({ name: "debugger", image: "busybox", targetContainerName: "c", terminationMessagePolicy: "File", imagePullPolicy: "Always" }),
    ]);
    const bad = await t.patch(`${POD}/ephemeralcontainers`, { spec: { ephemeralContainers: [{ name: "x", image: "busybox", ports: [{ containerPort: 80 }] }] } }, "application/strategic-merge-patch+json");
    expect(bad.status).toBe(422);
    // strategic merge puts patch-only items first, as upstream's normalizeElementOrder
    expect(bad.body.message).toContain("spec.ephemeralContainers[0].ports: Forbidden: cannot be set for an Ephemeral Container");
    const removed = await t.patch(`${POD}/ephemeralcontainers`, [{ op: "remove", path: "/spec/ephemeralContainers/0" }], "application/json-patch+json");
    expect(removed.status).toBe(422);
    expect(removed.body.message).toContain('spec.ephemeralContainers: Forbidden: existing ephemeral containers "debugger" may not be removed');
  });

  it("resizes cpu and memory through pods/resize, keeping the QoS class", async () => {
    const r = await t.patch(`${POD}/resize`, { spec: { containers: [{ name: "c", resources: { requests: { cpu: "150m" }, limits: { cpu: "300m" } } }] } }, "application/strategic-merge-patch+json");
    expect(r.status).toBe(200);
    expect(r.body.spec.containers[0].resources).toEqual({ requests: { cpu: "150m", memory: "64Mi" }, limits: { cpu: "300m", memory: "128Mi" } });
    const qos = await t.patch(
      `${POD}/resize`,
      { spec: { containers: [{ name: "c", resources: { requests: { cpu: "300m", memory: "128Mi" }, limits: { cpu: "300m", memory: "128Mi" } } }] } },
      "application/strategic-merge-patch+json",
    );
    expect(qos.status).toBe(422);
    expect(qos.body.message).toContain('spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing');
    const other = await t.patch(`${POD}/resize`, { spec: { containers: [{ name: "c", image: "alpine" }] } }, "application/strategic-merge-patch+json");
    // Only resources may change: the image change is dropped.
    expect(other.status).toBe(200);
    expect(other.body.spec.containers[0].image).toBe("nginx");
  });

  it("answers 405 for GET on create-only subresources", async () => {
    expect((await t.get(`${POD}/eviction`)).status).toBe(405);
    expect((await t.get(`${POD}/binding`)).status).toBe(405);
  });
});

describe("bindings and componentstatuses", () => {
  it("binds a pod through POST bindings", async () => {
    await t.post(`${NS}/pods`, { apiVersion: "v1", kind: "Pod", metadata: { name: "tobind" }, spec: template({}).spec });
    const b = await t.post(`${NS}/bindings`, { apiVersion: "v1", kind: "Binding", metadata: { name: "tobind" }, target: { kind: "Node", name: "node-1" } });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ kind: "Status", status: "Success" });
    expect((await t.get(`${NS}/pods/tobind`)).body.spec.nodeName).toBe("node-1");
    expect((await t.post(`${NS}/bindings`, { metadata: { name: "tobind" }, target: { kind: "Node", name: "node-2" } })).status).toBe(409);
    expect((await t.get(`${NS}/bindings`)).status).toBe(405);
  });

  it("lists healthy components with the deprecation warning", async () => {
    const r = await t.get("/api/v1/componentstatuses");
    expect(r.headers.get("warning")).toBe('299 - "v1 ComponentStatus is deprecated in v1.19+"');
    expect(r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["controller-manager", "etcd-0", "scheduler"]);
    expect(r.body.items[1].conditions).toEqual([{ type: "Healthy", status: "True", message: "ok" }]);
    expect((await t.get("/api/v1/componentstatuses/scheduler")).body.metadata.name).toBe("scheduler");
    expect((await t.get("/api/v1/componentstatuses/nope")).status).toBe(404);
    expect((await t.get("/api/v1/componentstatuses?watch=true")).status).toBe(405);
  });
});

describe("scale subresources", () => {
  it.each([
    ["/apis/apps/v1/namespaces/default/statefulsets", "StatefulSet", { selector: { matchLabels: { app: "s" } }, serviceName: "s", template: template({ app: "s" }) }, "app=s"],
    [`${NS}/replicationcontrollers`, "ReplicationController", { selector: { app: "r", tier: "x" }, template: template({ app: "r", tier: "x" }) }, "app=r,tier=x"],
  ])("%s", async (base, kind, spec, selector) => {
    const apiVersion = base.startsWith("/apis/apps") ? "apps/v1" : "v1";
    const c = await t.post(base, { apiVersion, kind, metadata: { name: "scaled" }, spec });
    expect(c.status).toBe(201);
    const s = await t.get(`${base}/scaled/scale`);
    expect(s.body).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 1 }, status: { replicas: 0, selector } });
    const put = await t.put(`${base}/scaled/scale`, { ...s.body, spec: { replicas: 4 } });
    expect(put.status).toBe(200);
    expect((await t.get(`${base}/scaled`)).body.spec.replicas).toBe(4);
  });
});

describe("Jobs", () => {
  it("orphans pods on a delete without a policy, saying so", async () => {
    await t.post("/apis/batch/v1/namespaces/default/jobs", { apiVersion: "batch/v1", kind: "Job", metadata: { name: "j" }, spec: { template: template({}, "Never") } });
    const d = await t.del("/apis/batch/v1/namespaces/default/jobs/j");
    expect(d.status).toBe(200);
    expect(d.headers.get("warning")).toContain("child pods are preserved by default when jobs are deleted");
    expect(d.body.metadata.finalizers).toEqual(["orphan"]);
  });

  it("prints upstream's columns", async () => {
    await t.post("/apis/batch/v1/namespaces/default/jobs", { apiVersion: "batch/v1", kind: "Job", metadata: { name: "k" }, spec: { completions: 3, template: template({}, "Never") } });
    const tbl = await t.get("/apis/batch/v1/namespaces/default/jobs/k", TABLE);
    expect(tbl.body.columnDefinitions.map((c: { name: string; priority: number }) => `${c.name}:${c.priority}`)).toEqual([
      "Name:0",
      "Status:0",
      "Completions:0",
      "Duration:0",
      "Age:0",
      "Containers:1",
      "Images:1",
      "Selector:1",
    ]);
    expect(tbl.body.rows[0].cells.slice(0, 4)).toEqual(["k", "Running", "0/3", ""]);
  });
});

describe("bootstrap", () => {
  it("has the kubernetes ServiceCIDR", async () => {
    const r = await t.get("/apis/networking.k8s.io/v1/servicecidrs/kubernetes");
    expect(r.body.spec).toEqual({ cidrs: ["10.96.0.0/12"] });
  });
});
