/**
 * Cases restated from upstream staging/src/k8s.io/endpointslice/reconciler_test.go
 * (TestReconcileEmpty, TestReconcile1Pod, TestReconcileManyPods,
 * TestReconcileEndpointSlicesSomePreexisting/Updated's steady state, TestReconcileEndpointSlicesReplaceDeprecated
 * for address types) and pkg/controller/endpointslice/endpointslice_controller_test.go
 * (TestSyncServiceNoSelector, TestSyncServiceMissing, TestSyncServicePodSelection, named ports), on ControllerFixture.
 */
import { describe, expect, it } from "vitest";
import type { Node, Pod, Service, ServicePort } from "../../apimachinery/api/core/v1.js";
import type { EndpointSlice } from "../../apimachinery/api/discovery/v1.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { EndpointSliceController } from "./controller.js";
import { planSlices } from "./reconciler.js";
import { desiredGroups } from "./desired.js";
import { StaleInformerCacheError } from "./tracker.js";

interface PodOpts {
  ip?: string;
  ready?: boolean;
  labels?: Record<string, string>;
  node?: string;
  deleting?: boolean;
  port?: number;
}

function pod(name: string, o: PodOpts = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}`, labels: o.labels ?? { app: "web" }, ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    spec: { containers: [{ name: "c", ports: [{ name: "http", containerPort: o.port ?? 8080 }] }], nodeName: o.node ?? "node-1" },
    status: {
      phase: "Running",
      ...(o.ip === "" ? {} : { podIP: o.ip ?? "10.0.0.1", podIPs: [{ ip: o.ip ?? "10.0.0.1" }] }),
      conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }],
    },
  };
}

function svc(name: string, o: { selector?: Record<string, string> | null; ports?: ServicePort[]; labels?: Record<string, string> } = {}): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: "default", uid: `uid-svc-${name}`, ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      ...(o.selector === null ? {} : { selector: o.selector ?? { app: "web" } }),
      ports: o.ports ?? [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      clusterIP: "10.96.0.10",
      ipFamilies: ["IPv4"],
    },
  };
}

const node = (name: string, zone: string): Node => ({ apiVersion: "v1", kind: "Node", metadata: { name, labels: { "topology.kubernetes.io/zone": zone } } });

function setup(objects: { services?: Service[]; pods?: Pod[]; nodes?: Node[]; slices?: EndpointSlice[] }, maxEndpointsPerSlice?: number) {
  const f = new ControllerFixture();
  const c = new EndpointSliceController(f.manager, { maxEndpointsPerSlice });
  f.seed(builtin.services, ...(objects.services ?? []));
  f.seed(builtin.pods, ...(objects.pods ?? []));
  f.seed(builtin.nodes, ...(objects.nodes ?? []));
  f.seed(builtin.endpointSlices, ...(objects.slices ?? []));
  // The tracker stores untyped objects; these are the slices the controller wrote.
  const slices = () => f.client.tracker.list(builtin.endpointSlices, "default") as unknown as EndpointSlice[];
  /** Feeds what the controller wrote back into its cache (the informer's role), as a second sync sees it. */
  const resync = () =>
    f.informers.forResource(builtin.endpointSlices).getIndexer().replace(slices(), "");
  /** Puts a pod or service into the controller's cache as if its informer had delivered it. */
  const cache = f.seedCache.bind(f);
  return { f, c, slices, resync, cache };
}

const key = (n: string) => new ObjectName("default", n);

describe("EndpointSliceController.syncService", () => {
  it("TestReconcile1Pod: one slice with the pod's endpoint, conditions, node, zone, target and resolved named port", async () => {
    const env = setup({ services: [svc("web", { labels: { tier: "front" } })], pods: [pod("a", { ip: "10.0.0.2" })], nodes: [node("node-1", "zone-a")] });
    await env.c.syncService(key("web"));
    expect(env.f.client.writeActions().map((a) => `${a.verb} ${a.resource}`)).toEqual(["create endpointslices"]);
    const [s] = env.slices();
    expect(s.metadata?.name).toMatch(/^web-/);
    expect(s.metadata?.labels).toEqual({ tier: "front", "kubernetes.io/service-name": "web", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" });
    expect(s.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Service", name: "web", uid: "uid-svc-web", controller: true, blockOwnerDeletion: true }]);
    expect(s.addressType).toBe("IPv4");
    expect(s.ports).toEqual([{ name: "http", port: 8080, protocol: "TCP" }]);
    expect(s.endpoints).toEqual([
      {
        addresses: ["10.0.0.2"],
        conditions: { ready: true, serving: true, terminating: false },
        nodeName: "node-1",
        zone: "zone-a",
        targetRef: { kind: "Pod", namespace: "default", name: "a", uid: "uid-a" },
      },
    ]);
  });

  it.each([
    ["ready", { ready: true }, { ready: true, serving: true, terminating: false }],
    ["not ready", { ready: false }, { ready: false, serving: false, terminating: false }],
    ["terminating and ready", { deleting: true }, { ready: false, serving: true, terminating: true }],
    ["terminating, not ready", { deleting: true, ready: false }, { ready: false, serving: false, terminating: true }],
  ] as Array<[string, PodOpts, object]>)("endpoint conditions of a %s pod", async (_n, o, conditions) => {
    const env = setup({ services: [svc("web")], pods: [pod("a", o)] });
    await env.c.syncService(key("web"));
    expect(env.slices()[0].endpoints?.[0].conditions).toEqual(conditions);
  });

  it("TestReconcileEmpty: a service selecting nothing gets one placeholder slice, without ports", async () => {
    const env = setup({ services: [svc("web")], pods: [pod("other", { labels: { app: "db" } }), pod("noip", { ip: "" })] });
    await env.c.syncService(key("web"));
    const all = env.slices();
    expect(all).toHaveLength(1);
    expect(all[0].endpoints).toEqual([]);
    expect(all[0].ports).toEqual([]);
    env.resync();
    await env.c.syncService(key("web"));
    expect(env.f.client.writeActions()).toHaveLength(1);
  });

  it("TestReconcileManyPods: 250 pods in slices of 100, 100 and 50; a second sync writes nothing", async () => {
    const pods = Array.from({ length: 250 }, (_, i) => pod(`p${String(i).padStart(3, "0")}`, { ip: `10.0.${Math.floor(i / 200)}.${i % 200}` }));
    const env = setup({ services: [svc("web")], pods });
    await env.c.syncService(key("web"));
    expect(env.slices().map((s) => s.endpoints?.length).sort()).toEqual([100, 100, 50].sort());
    env.resync();
    const before = env.f.client.writeActions().length;
    await env.c.syncService(key("web"));
    expect(env.f.client.writeActions()).toHaveLength(before);
  });

  it("maxEndpointsPerSlice is honoured; a new pod fills the slice with room instead of creating one", async () => {
    const env = setup({ services: [svc("web")], pods: [pod("a", { ip: "10.0.0.1" }), pod("b", { ip: "10.0.0.2" }), pod("c", { ip: "10.0.0.3" })] }, 2);
    await env.c.syncService(key("web"));
    expect(env.slices().map((s) => s.endpoints?.length).sort()).toEqual([1, 2]);
    env.resync();
    env.cache(builtin.pods, pod("d", { ip: "10.0.0.4" }));
    const before = env.f.client.writeActions().length;
    await env.c.syncService(key("web"));
    expect(env.f.client.writeActions().slice(before).map((a) => a.verb)).toEqual(["update"]);
    expect(env.slices().map((s) => s.endpoints?.length)).toEqual([2, 2]);
  });

  it("a pod that went away is removed; a slice left empty is deleted, a placeholder kept when nothing remains", async () => {
    const env = setup({ services: [svc("web")], pods: [pod("a")] });
    await env.c.syncService(key("web"));
    env.resync();
    env.f.informers.forResource(builtin.pods).getIndexer().replace([], "");
    await env.c.syncService(key("web"));
    const all = env.slices();
    expect(all).toHaveLength(1);
    expect(all[0].endpoints).toEqual([]);
  });

  it("pods resolving a named port differently go to different slices (one per port list)", async () => {
    const env = setup({ services: [svc("web")], pods: [pod("a", { ip: "10.0.0.1", port: 8080 }), pod("b", { ip: "10.0.0.2", port: 9090 })] });
    await env.c.syncService(key("web"));
    expect(env.slices().map((s) => [s.ports?.[0].port, s.endpoints?.map((e) => e.addresses[0])]).sort()).toEqual([
      [8080, ["10.0.0.1"]],
      [9090, ["10.0.0.2"]],
    ]);
  });

  it("a changed endpoint updates its slice in place; service label changes reach the slices", async () => {
    const env = setup({ services: [svc("web")], pods: [pod("a", { ready: false })] });
    await env.c.syncService(key("web"));
    env.resync();
    const name = env.slices()[0].metadata?.name;
    env.cache(builtin.pods, pod("a"));
    env.cache(builtin.services, { ...svc("web", { labels: { v: "2" } }), metadata: { ...svc("web").metadata, labels: { v: "2" }, uid: env.f.informers.forResource(builtin.services).lister().namespace("default").get("web").metadata?.uid } });
    await env.c.syncService(key("web"));
    const [s] = env.slices();
    expect(s.metadata?.name).toBe(name);
    expect(s.endpoints?.[0].conditions?.ready).toBe(true);
    expect(s.metadata?.labels?.v).toBe("2");
  });

  it("a cache behind the controller's own writes fails the sync (retried) instead of writing duplicates", async () => {
    const env = setup({ services: [svc("web")], pods: [pod("a")] });
    await env.c.syncService(key("web"));
    env.cache(builtin.pods, pod("b", { ip: "10.0.0.2" }));
    await expect(env.c.syncService(key("web"))).rejects.toThrow(StaleInformerCacheError);
    expect(env.f.client.writeActions()).toHaveLength(1);
    env.resync();
    await env.c.syncService(key("web"));
    expect(env.slices()).toHaveLength(1);
    expect(env.slices()[0].endpoints).toHaveLength(2);
  });

  it("TestSyncServiceNoSelector: a service without a selector is left alone", async () => {
    const env = setup({ services: [svc("manual", { selector: null })], pods: [pod("a")] });
    await env.c.syncService(key("manual"));
    expect(env.f.client.writeActions()).toEqual([]);
  });

  it("TestSyncServiceMissing: the managed slices of a deleted service are deleted, others' kept", async () => {
    const managed: EndpointSlice = {
      apiVersion: "discovery.k8s.io/v1",
      kind: "EndpointSlice",
      metadata: { name: "gone-abc", namespace: "default", labels: { "kubernetes.io/service-name": "gone", "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io" } },
      addressType: "IPv4",
      endpoints: [],
    };
    const foreign: EndpointSlice = { ...managed, metadata: { ...managed.metadata, name: "gone-mine", labels: { "kubernetes.io/service-name": "gone", "endpointslice.kubernetes.io/managed-by": "someone-else" } } };
    const env = setup({ slices: [managed, foreign] });
    await env.c.syncService(key("gone"));
    expect(env.slices().map((s) => s.metadata?.name)).toEqual(["gone-mine"]);
  });

  it("slices of an address type the service no longer has are replaced", () => {
    const s = svc("web");
    const old: EndpointSlice = { apiVersion: "discovery.k8s.io/v1", kind: "EndpointSlice", metadata: { name: "web-old" }, addressType: "FQDN", endpoints: [], ports: [] };
    const groups = desiredGroups(s, [pod("a")], "IPv4", () => undefined);
    const plan = planSlices(s, "IPv4", groups, [old], 100);
    expect(plan.delete.map((x) => x.metadata?.name)).toEqual(["web-old"]);
    expect(plan.create).toHaveLength(1);
  });
});
