/**
 * metrics.k8s.io served from a ResourceMetricsSource (core/resourcemetrics.ts): PodMetrics and
 * NodeMetrics as metrics-server shapes them, selectors, 404s, node sums, discovery and the
 * APIService, and no group at all without a source.
 */
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { FakeClock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { ApiServer } from "../apiserver.js";
import { builtinServerConfig } from "../index.js";
import { defaultWriteContext } from "../rest/context.js";
import { parseListOptions } from "../rest/options.js";
import { desiredAPIService } from "./apiservices.js";
import type { ResourceMetricsSource } from "./resourcemetrics.js";

const t0 = Date.UTC(2026, 0, 1, 12, 0, 0);

// A source that reports what the pod's "usage" annotation says (cpu,memory) for each container.
const source: ResourceMetricsSource = {
  windowMs: 15_000,
  podUsage: (pod) => {
    const u = pod.metadata?.annotations?.usage;
    if (!u) return undefined;
    const [cpu, memory] = u.split(",");
    return ((pod.spec as { containers: Array<{ name: string }> }).containers ?? []).map((c) => ({ name: c.name, usage: { cpu, memory } }));
  },
};

const pod = (ns: string, name: string, node: string, usage: string | undefined, labels: Record<string, string> = {}, containers = ["app"]): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: ns, labels, ...(usage ? { annotations: { usage } } : {}) },
  spec: { nodeName: node, containers: containers.map((c) => ({ name: c, image: "nginx" })) },
});

async function server(withSource = true): Promise<ApiServer> {
  const s = new ApiServer(builtinServerConfig({ clock: new FakeClock(t0), admissionPlugins: false, ...(withSource ? { resourceMetrics: source } : {}) }));
  const ctx = defaultWriteContext();
  const nodes = s.registry.byGroupResource("", "nodes")!;
  for (const n of ["n1", "n2"]) await nodes.create(undefined, { apiVersion: "v1", kind: "Node", metadata: { name: n, labels: { zone: n === "n1" ? "a" : "b" } } }, ctx);
  await s.registry.byGroupResource("", "namespaces")!.create(undefined, { apiVersion: "v1", kind: "Namespace", metadata: { name: "ns" } }, ctx);
  const pods = s.registry.byGroupResource("", "pods")!;
  await pods.create("ns", pod("ns", "a", "n1", "250m,64Mi", { app: "web" }), ctx);
  await pods.create("ns", pod("ns", "b", "n1", "1500m,1Gi", { app: "db" }, ["one", "two"]), ctx);
  await pods.create("ns", pod("ns", "idle", "n2", undefined, { app: "web" }), ctx);
  return s;
}

const list = async (s: ApiServer, resource: string, ns: string | undefined, query = "") =>
  (await s.registry.byGroupResource("metrics.k8s.io", resource)!.list(ns, parseListOptions(new URLSearchParams(query)))) as { kind: string; items: KubeObject[] };

describe("metrics.k8s.io/v1beta1", () => {
  it("PodMetrics carry the pod's names and labels, the sample's timestamp and window, and each container's usage", async () => {
    const s = await server();
    const l = await list(s, "pods", "ns");
    expect(l.kind).toBe("PodMetricsList");
    // The pod with no metrics (the source says none) is left out.
    expect(l.items.map((m) => m.metadata?.name)).toEqual(["a", "b"]);
    expect(l.items[1]).toEqual({
      kind: "PodMetrics",
      apiVersion: "metrics.k8s.io/v1beta1",
      metadata: { name: "b", namespace: "ns", creationTimestamp: "2026-01-01T12:00:00Z", labels: { app: "db" } },
      timestamp: "2026-01-01T12:00:00Z",
      window: "15s",
      containers: [
        { name: "one", usage: { cpu: "1500m", memory: "1Gi" } },
        { name: "two", usage: { cpu: "1500m", memory: "1Gi" } },
      ],
    });
  });

  it.each<[string, string, string[]]>([
    ["label selector", "labelSelector=app%3Dweb", ["a"]],
    ["set-based label selector", "labelSelector=app+in+(web,db)", ["a", "b"]],
    ["field selector on metadata.name", "fieldSelector=metadata.name%3Db", ["b"]],
    ["field selector on metadata.namespace", "fieldSelector=metadata.namespace%3Dother", []],
  ])("lists with a %s", async (_n, query, want) => {
    const s = await server();
    expect((await list(s, "pods", "ns", query)).items.map((m) => m.metadata?.name)).toEqual(want);
  });

  it("a field selector on a pod field metrics-server does not support is a 400", async () => {
    const s = await server();
    await expect(list(s, "pods", "ns", "fieldSelector=spec.nodeName%3Dn1")).rejects.toThrow(/field label not supported: spec.nodeName/);
  });

  it("get: a pod without metrics and an unknown node answer metrics-server's 404s", async () => {
    const s = await server();
    const status = async (p: Promise<unknown>) => {
      try {
        await p;
      } catch (err) {
        if (err instanceof StatusError) return `${err.status.code} ${err.status.message}`;
        throw err;
      }
      return "found";
    };
    const podMetrics = s.registry.byGroupResource("metrics.k8s.io", "pods")!;
    const nodeMetrics = s.registry.byGroupResource("metrics.k8s.io", "nodes")!;
    expect(await status(podMetrics.get("ns", "a"))).toBe("found");
    expect(await status(podMetrics.get("ns", "idle"))).toBe('404 podmetrics.metrics.k8s.io "ns/idle" not found');
    expect(await status(nodeMetrics.get(undefined, "n1"))).toBe("found");
    expect(await status(nodeMetrics.get(undefined, "nope"))).toBe('404 nodemetrics.metrics.k8s.io "nope" not found');
  });

  it("NodeMetrics sum the usage of the pods on each node (every node listed, idle ones at zero)", async () => {
    const s = await server();
    const l = await list(s, "nodes", undefined);
    expect(l.kind).toBe("NodeMetricsList");
    expect(l.items.map((m) => [m.metadata?.name, m.usage])).toEqual([
      ["n1", { cpu: "3250m", memory: "2112Mi" }],
      ["n2", { cpu: "0", memory: "0" }],
    ]);
    expect((await list(s, "nodes", undefined, "labelSelector=zone%3Db")).items.map((m) => m.metadata?.name)).toEqual(["n2"]);
    expect(l.items[0]).toMatchObject({ kind: "NodeMetrics", metadata: { name: "n1", labels: { zone: "a" } }, timestamp: "2026-01-01T12:00:00Z", window: "15s" });
  });

  it("is in discovery (get and list only) with a Local APIService v1beta1.metrics.k8s.io; without a source it is not served", async () => {
    const s = await server();
    const group = s.registry.groups().find((g) => g.group === "metrics.k8s.io");
    expect(group?.versions).toEqual(["v1beta1"]);
    expect(s.registry.byGroupResource("metrics.k8s.io", "pods")!.strategy.verbs).toEqual(["get", "list"]);
    expect(desiredAPIService("metrics.k8s.io", "v1beta1", true)?.spec).toEqual({ group: "metrics.k8s.io", version: "v1beta1", groupPriorityMinimum: 100, versionPriority: 100 });
    const bare = await server(false);
    expect(bare.registry.groups().some((g) => g.group === "metrics.k8s.io")).toBe(false);
  });
});
