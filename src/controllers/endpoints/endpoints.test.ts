import { describe, expect, it } from "vitest";
import type { ContainerPort, Endpoints, Pod, Service, ServicePort } from "../../apimachinery/api/core/v1.js";
import type { FakeClock } from "../../apimachinery/clock.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import type { FakeClient } from "../../testing/fakeclient.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { EndpointsController, podEndpointsChanged } from "./controller.js";
import { computeSubsets, findPort, repackSubsets } from "./subsets.js";

interface PodOpts {
  ns?: string;
  ip?: string;
  ready?: boolean;
  labels?: Record<string, string>;
  ports?: ContainerPort[];
  node?: string;
  phase?: string;
  deleting?: boolean;
  hostname?: string;
  subdomain?: string;
}

function pod(name: string, o: PodOpts = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: o.ns ?? "default",
      uid: `uid-${name}`,
      labels: o.labels ?? { app: "web" },
      ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: {
      containers: [{ name: "c", ports: o.ports ?? [{ name: "http", containerPort: 8080 }] }],
      ...(o.node === "" ? {} : { nodeName: o.node ?? "node-1" }),
      ...(o.hostname ? { hostname: o.hostname } : {}),
      ...(o.subdomain ? { subdomain: o.subdomain } : {}),
    },
    status: {
      phase: o.phase ?? "Running",
      ...(o.ip === "" ? {} : { podIP: o.ip ?? "10.0.0.1", podIPs: [{ ip: o.ip ?? "10.0.0.1" }] }),
      conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }],
    },
  };
}

function svc(name: string, o: { ns?: string; selector?: Record<string, string> | null; ports?: ServicePort[]; clusterIP?: string; publishNotReady?: boolean; labels?: Record<string, string> } = {}): Service {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace: o.ns ?? "default", uid: `uid-svc-${name}`, ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      ...(o.selector === null ? {} : { selector: o.selector ?? { app: "web" } }),
      ports: o.ports ?? [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }],
      clusterIP: o.clusterIP ?? "10.96.0.10",
      ...(o.publishNotReady ? { publishNotReadyAddresses: true } : {}),
    },
  };
}

const addr = (p: string, ip: string, node = "node-1") => ({ ip, nodeName: node, targetRef: { kind: "Pod", namespace: "default", name: p, uid: `uid-${p}` } });

interface Env {
  f: ControllerFixture;
  clock: FakeClock;
  client: FakeClient;
  ec: EndpointsController;
}

/** A fixture over the seeded objects (API and caches), the controller built on its manager. */
async function setup(objects: { services?: Service[]; pods?: Pod[]; endpoints?: Endpoints[] }): Promise<Env> {
  const f = new ControllerFixture();
  const ec = new EndpointsController(f.manager);
  f.seed(builtin.services, ...(objects.services ?? []));
  f.seed(builtin.pods, ...(objects.pods ?? []));
  f.seed(builtin.endpoints, ...(objects.endpoints ?? []));
  return { f, clock: f.clock, client: f.client, ec };
}

function stored(env: Env, name: string, ns = "default"): Endpoints {
  return env.client.tracker.get(builtin.endpoints, ns, name) as Endpoints;
}

const key = (name: string, ns = "default") => new ObjectName(ns, name);

describe("EndpointsController.syncService", () => {
  it("creates Endpoints from ready pods with the named target port resolved", async () => {
    const env = await setup({
      services: [svc("web", { labels: { tier: "front" } })],
      pods: [pod("a", { ip: "10.0.0.2" }), pod("b", { ip: "10.0.0.1", node: "node-2" }), pod("other", { labels: { app: "db" } })],
    });
    await env.ec.syncService(key("web"));
    const writes = env.client.writeActions();
    expect(writes.map((a) => `${a.verb} ${a.resource}`)).toEqual(["create endpoints"]);
    const ep = stored(env, "web");
    expect(ep.metadata?.labels).toEqual({ tier: "front" });
    expect(ep.subsets).toEqual([
      { addresses: [addr("b", "10.0.0.1", "node-2"), addr("a", "10.0.0.2")], ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ]);
  });

  it("puts not-ready pods under notReadyAddresses, and leaves out pods without IP, terminal or deleting pods", async () => {
    const env = await setup({
      services: [svc("web")],
      pods: [
        pod("ready", { ip: "10.0.0.1" }),
        pod("unready", { ip: "10.0.0.2", ready: false }),
        pod("noip", { ip: "" }),
        pod("failed", { ip: "10.0.0.3", phase: "Failed" }),
        pod("deleting", { ip: "10.0.0.4", deleting: true }),
      ],
    });
    await env.ec.syncService(key("web"));
    expect(stored(env, "web").subsets).toEqual([
      { addresses: [addr("ready", "10.0.0.1")], notReadyAddresses: [addr("unready", "10.0.0.2")], ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
    ]);
  });

  it("publishNotReadyAddresses lists every pod as ready, terminating ones included", async () => {
    const env = await setup({
      services: [svc("web", { publishNotReady: true })],
      pods: [pod("unready", { ip: "10.0.0.2", ready: false }), pod("deleting", { ip: "10.0.0.4", deleting: true })],
    });
    await env.ec.syncService(key("web"));
    expect(stored(env, "web").subsets?.[0].addresses?.map((a) => a.ip)).toEqual(["10.0.0.2", "10.0.0.4"]);
    expect(stored(env, "web").subsets?.[0].notReadyAddresses).toBeUndefined();
  });

  it("ignores services without a selector (their Endpoints are left as they are)", async () => {
    const manual: Endpoints = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "manual", namespace: "default" }, subsets: [{ addresses: [{ ip: "1.2.3.4" }] }] };
    const env = await setup({ services: [svc("manual", { selector: null })], pods: [pod("a")], endpoints: [manual] });
    await env.ec.syncService(key("manual"));
    expect(env.client.writeActions()).toEqual([]);
  });

  it("an empty selector selects every pod of the namespace", async () => {
    const env = await setup({ services: [svc("all", { selector: {} })], pods: [pod("a", { labels: { x: "1" } }), pod("b", { ns: "other", ip: "10.0.0.9" })] });
    await env.ec.syncService(key("all"));
    expect(stored(env, "all").subsets?.[0].addresses?.map((a) => a.targetRef?.name)).toEqual(["a"]);
  });

  it("makes no write when the stored Endpoints already match (steady state)", async () => {
    const env = await setup({ services: [svc("web")], pods: [pod("a")] });
    await env.ec.syncService(key("web"));
    expect(env.client.writeActions()).toHaveLength(1);
    // The endpoints cache sees the created object, as the informer would.
    env.f.seedCache(builtin.endpoints, stored(env, "web"));
    env.client.clearActions();
    await env.ec.syncService(key("web"));
    await env.ec.syncService(key("web"));
    expect(env.client.writeActions()).toEqual([]);
  });

  it("updates pre-existing Endpoints that differ, keeping their other metadata", async () => {
    const old: Endpoints = {
      apiVersion: "v1",
      kind: "Endpoints",
      metadata: { name: "web", namespace: "default", annotations: { keep: "me", "endpoints.kubernetes.io/last-change-trigger-time": "2025-01-01T00:00:00Z" } },
      subsets: [{ addresses: [{ ip: "6.7.8.9" }], ports: [{ port: 1000 }] }],
    };
    const env = await setup({ services: [svc("web")], pods: [pod("a")], endpoints: [old] });
    await env.ec.syncService(key("web"));
    const writes = env.client.writeActions();
    expect(writes.map((a) => `${a.verb} ${a.resource}`)).toEqual(["update endpoints"]);
    const ep = stored(env, "web");
    expect(ep.metadata?.annotations).toEqual({ keep: "me" });
    expect(ep.subsets).toEqual([{ addresses: [addr("a", "10.0.0.1")], ports: [{ name: "http", port: 8080, protocol: "TCP" }] }]);
  });

  it("headless service: labelled headless, and pods listed without ports when the service has none", async () => {
    const env = await setup({ services: [svc("hl", { clusterIP: "None", ports: [] })], pods: [pod("a", { hostname: "a", subdomain: "hl" })] });
    await env.ec.syncService(key("hl"));
    const ep = stored(env, "hl");
    expect(ep.metadata?.labels).toEqual({ "service.kubernetes.io/headless": "" });
    expect(ep.subsets).toEqual([{ addresses: [{ ...addr("a", "10.0.0.1"), hostname: "a" }] }]);
  });

  it("a non-headless service without ports gets empty Endpoints", async () => {
    const env = await setup({ services: [svc("noports", { ports: [] })], pods: [pod("a")] });
    await env.ec.syncService(key("noports"));
    expect(stored(env, "noports").subsets).toBeUndefined();
  });

  it("deletes the Endpoints of a deleted service, and tolerates them being gone already", async () => {
    const ep: Endpoints = { apiVersion: "v1", kind: "Endpoints", metadata: { name: "gone", namespace: "default" } };
    const env = await setup({ endpoints: [ep] });
    await env.ec.syncService(key("gone"));
    expect(env.client.writeActions().map((a) => `${a.verb} ${a.resource}/${a.name}`)).toEqual(["delete endpoints/gone"]);
    await env.ec.syncService(key("gone"));
  });

  it("pods whose named port is missing are skipped for that port only", async () => {
    const env = await setup({
      services: [svc("web", { ports: [{ name: "http", port: 80, targetPort: "http" }, { name: "metrics", port: 9090, targetPort: 9090 }] })],
      pods: [pod("a", { ip: "10.0.0.1" }), pod("b", { ip: "10.0.0.2", ports: [] })],
    });
    await env.ec.syncService(key("web"));
    expect(stored(env, "web").subsets).toEqual([
      { addresses: [addr("a", "10.0.0.1")], ports: [{ name: "http", port: 8080, protocol: "TCP" }] },
      { addresses: [addr("a", "10.0.0.1"), addr("b", "10.0.0.2")], ports: [{ name: "metrics", port: 9090, protocol: "TCP" }] },
    ]);
  });
});

describe("the Endpoints controller running", () => {
  it("follows services and pods, then settles with no writes", async () => {
    const f = new ControllerFixture();
    const client = f.client;
    f.seedAPI(builtin.services, svc("web"));
    f.seedAPI(builtin.pods, pod("a", { ip: "10.0.0.1" }));
    f.seedAPI(builtin.endpoints, { apiVersion: "v1", kind: "Endpoints", metadata: { name: "orphan", namespace: "default" } });
    const ec = new EndpointsController(f.manager, { workers: 2 });
    await f.start();
    const until = (cond: () => boolean) => f.eventually(cond);
    const ips = () => {
      try {
        const ep = client.tracker.get(builtin.endpoints, "default", "web") as Endpoints;
        return (ep.subsets ?? []).flatMap((s) => [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])].map((a) => a.ip)).join(",");
      } catch {
        return "<none>";
      }
    };
    const orphanGone = () => client.tracker.list(builtin.endpoints, "default").every((e) => e.metadata?.name !== "orphan");
    await until(() => ips() === "10.0.0.1" && orphanGone());

    // A new matching pod joins; a relabelled pod leaves.
    await client.resource(builtin.pods, "default").create(pod("b", { ip: "10.0.0.2" }));
    await until(() => ips() === "10.0.0.1,10.0.0.2");
    const a = await client.resource(builtin.pods, "default").get("a");
    await client.resource(builtin.pods, "default").update({ ...a, metadata: { ...a.metadata, labels: { app: "other" } } });
    await until(() => ips() === "10.0.0.2");

    // A deleted Endpoints of a live service comes back.
    await client.resource(builtin.endpoints, "default").delete("web");
    await until(() => ips() === "10.0.0.2");

    await f.settle();
    client.clearActions();
    // Steady state: an irrelevant pod change and an explicit resync of the service write nothing.
    const b = await client.resource(builtin.pods, "default").get("b");
    await client.resource(builtin.pods, "default").update({ ...b, metadata: { ...b.metadata, annotations: { note: "x" } } });
    ec.controller.enqueue("default/web");
    await f.settle();
    expect(client.writeActions().map((x) => `${x.verb} ${x.resource}`)).toEqual(["update pods"]);

    // The service goes: its Endpoints go.
    await client.resource(builtin.services, "default").delete("web");
    await until(() => ips() === "<none>");
    await f.stop();
  });
});

describe("subsets helpers", () => {
  it("findPort resolves numbers, numeric strings, and names by protocol", () => {
    const p = pod("a", { ports: [{ name: "dns", containerPort: 53, protocol: "UDP" }, { name: "dns", containerPort: 5353, protocol: "TCP" }] });
    expect(findPort(p, { port: 80, targetPort: 8080 })).toBe(8080);
    expect(findPort(p, { port: 80 })).toBe(80);
    expect(findPort(p, { port: 53, targetPort: "dns", protocol: "UDP" })).toBe(53);
    expect(findPort(p, { port: 53, targetPort: "dns" })).toBe(5353);
    expect(() => findPort(p, { port: 80, targetPort: "http" })).toThrow("no suitable port for manifest: uid-a");
  });

  it("repackSubsets groups addresses by port set; not ready wins", () => {
    const p80 = { port: 80, protocol: "TCP" };
    const p443 = { port: 443, protocol: "TCP" };
    const out = repackSubsets([
      { addresses: [{ ip: "1.1.1.2" }], ports: [p80] },
      { addresses: [{ ip: "1.1.1.1" }], ports: [p80, p443] },
      { notReadyAddresses: [{ ip: "1.1.1.2" }], ports: [p80] },
    ]);
    expect(out).toEqual([
      { addresses: [{ ip: "1.1.1.1" }], notReadyAddresses: [{ ip: "1.1.1.2" }], ports: [p80] },
      { addresses: [{ ip: "1.1.1.1" }], ports: [p443] },
    ]);
  });

  it("computeSubsets picks the pod IP of the service's family", () => {
    const dual = pod("a", { ip: "10.0.0.1" });
    dual.status!.podIPs = [{ ip: "10.0.0.1" }, { ip: "fd00::1" }];
    const s6 = svc("web", { clusterIP: "fd00::a" });
    expect(computeSubsets(s6, [dual]).subsets[0].addresses?.[0].ip).toBe("fd00::1");
    expect(computeSubsets(svc("web"), [dual]).subsets[0].addresses?.[0].ip).toBe("10.0.0.1");
  });

  it("podEndpointsChanged", () => {
    const a = pod("a");
    expect(podEndpointsChanged(a, pod("a"))).toEqual({ changed: false, labelsChanged: false });
    expect(podEndpointsChanged(a, pod("a", { ready: false })).changed).toBe(true);
    expect(podEndpointsChanged(a, pod("a", { ip: "10.9.9.9" })).changed).toBe(true);
    expect(podEndpointsChanged(a, pod("a", { deleting: true })).changed).toBe(true);
    expect(podEndpointsChanged(a, pod("a", { labels: { app: "x" } }))).toEqual({ changed: false, labelsChanged: true });
  });
});
