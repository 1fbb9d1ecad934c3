import { afterEach, describe, expect, it } from "vitest";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { FakeClock } from "../../apimachinery/clock.js";
import { metadataOnly } from "../../apimachinery/resource.js";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import type { DeleteOptions, ResourceDescriptor } from "../../client/interfaces.js";
import type { FakeRecorder } from "../../events/broadcaster.js";
import { FakeClient } from "../../testing/fakeclient.js";
import { resourceKey } from "../../testing/tracker.js";
import { RateLimitingQueue } from "../../workqueue/ratelimiting.js";
import { defaultControllerRateLimiter } from "../../workqueue/ratelimiters.js";
import { SharedInformerFactory } from "../../informers/factory.js";
import type { DiscoveredResourceInfo } from "./discovery.js";
import { deletableResources, KindMapper, RestMappingError } from "./discovery.js";
import { GarbageCollector, NamespacedOwnerOfClusterScopedObjectError } from "./garbagecollector.js";
import { GraphNode, referencesDiffs, type UIDToNode } from "./graph.js";
import { GraphBuilder, type GraphEvent } from "./graphbuilder.js";
import { silentLogger } from "../../runtime/logging.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { ReferenceCache } from "./referencecache.js";

const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

function res(group: string, version: string, resource: string, kind: string, namespaced = true): DiscoveredResourceInfo {
  return { group, version, resource, kind, namespaced, verbs: ALL_VERBS };
}

const pods = res("", "v1", "pods", "Pod");
const configMaps = res("", "v1", "configmaps", "ConfigMap");
const events = res("", "v1", "events", "Event");
const deployments = res("apps", "v1", "deployments", "Deployment");
const replicaSets = res("apps", "v1", "replicasets", "ReplicaSet");
const clusterRoles = res("rbac.authorization.k8s.io", "v1", "clusterroles", "ClusterRole", false);
const widgets = res("example.com", "v1", "widgets", "Widget");
const nodesNoWatch: DiscoveredResourceInfo = { ...res("", "v1", "componentstatuses", "ComponentStatus", false), verbs: ["get", "list"] };

const BASE = [pods, configMaps, events, deployments, replicaSets, clusterRoles, nodesNoWatch];

function ref(owner: KubeObject, opts: { block?: boolean; controller?: boolean } = {}): OwnerReference {
  return {
    apiVersion: owner.apiVersion!,
    kind: owner.kind!,
    name: owner.metadata!.name!,
    uid: owner.metadata!.uid!,
    ...(opts.block !== undefined ? { blockOwnerDeletion: opts.block } : {}),
    ...(opts.controller !== undefined ? { controller: opts.controller } : {}),
  };
}

function obj(r: ResourceDescriptor, name: string, opts: { ns?: string; uid?: string; owners?: OwnerReference[]; finalizers?: string[] } = {}): KubeObject {
  return {
    apiVersion: r.group ? `${r.group}/${r.version}` : r.version,
    kind: r.kind,
    metadata: {
      name,
      ...(r.namespaced ? { namespace: opts.ns ?? "default" } : {}),
      uid: opts.uid ?? `uid-${name}`,
      ...(opts.owners ? { ownerReferences: opts.owners } : {}),
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
    },
  };
}

/**
 * Makes the fake client's DELETE record the propagation policy as the API server does
 * (src/apiserver/rest/store.ts finalizersFor): Orphan adds the `orphan` finalizer, Foreground adds
 * `foregroundDeletion`, an explicit Background drops both; an object left with finalizers gets a
 * deletionTimestamp instead of going away.
 */
function mirrorPropagation(client: FakeClient, resources: readonly ResourceDescriptor[]): void {
  client.prependReactor("delete", "*", (a) => {
    const r = resources.find((x) => resourceKey(x) === resourceKey(a));
    const o = (a.options ?? {}) as DeleteOptions;
    if (!r || !a.name || o.propagationPolicy === undefined) return { handled: false };
    let cur: KubeObject;
    try {
      cur = client.tracker.get(r, a.namespace ?? "", a.name);
    } catch (error) {
      return { handled: true, error };
    }
    const meta = cur.metadata ?? {};
    if (o.preconditions?.uid && o.preconditions.uid !== meta.uid) return { handled: true, error: StatusError.conflict(r, a.name, "Precondition failed: UID") };
    if (o.preconditions?.resourceVersion && o.preconditions.resourceVersion !== meta.resourceVersion) {
      return { handled: true, error: StatusError.conflict(r, a.name, "Precondition failed: ResourceVersion") };
    }
    const existing = meta.finalizers ?? [];
    const next = existing.filter((f) => f !== "orphan" && f !== "foregroundDeletion");
    if (o.propagationPolicy === "Orphan") next.push("orphan");
    if (o.propagationPolicy === "Foreground") next.push("foregroundDeletion");
    if (next.join(",") === existing.join(",")) return { handled: false };
    const updated: KubeObject = {
      ...cur,
      metadata: { ...meta, finalizers: next.length ? next : undefined, deletionTimestamp: meta.deletionTimestamp ?? new Date(client.tracker.clock.now()).toISOString() },
    };
    return { handled: true, result: client.tracker.update(r, a.namespace ?? "", updated) };
  });
}

interface Env {
  f: ControllerFixture;
  clock: FakeClock;
  client: FakeClient;
  gc: GarbageCollector;
  recorder: FakeRecorder;
  discovered: DiscoveredResourceInfo[];
  stop(): Promise<void>;
}

const running: Env[] = [];

afterEach(async () => {
  for (const e of running.splice(0)) await e.stop();
});

async function start(
  seed: Array<[ResourceDescriptor, KubeObject]>,
  discovered: DiscoveredResourceInfo[] = [...BASE],
  prepare?: (client: FakeClient) => void,
): Promise<Env> {
  const f = new ControllerFixture({ clock: new FakeClock() });
  const client = f.client;
  mirrorPropagation(client, [...BASE, widgets]);
  prepare?.(client);
  for (const [r, o] of seed) client.seed(r, o);
  const gc = new GarbageCollector(f.manager, { discovery: { serverPreferredResources: async () => discovered.slice() }, workers: 2 });
  await f.start();
  const env: Env = { f, clock: f.clock, client, gc, recorder: f.recorder, discovered, stop: () => f.stop() };
  running.push(env);
  await eventually(env, () => gc.isSynced());
  return env;
}

/** The fixture's eventually: informers, the graph builder and the workers run while the fake clock moves. */
function eventually(env: { f: ControllerFixture }, cond: () => boolean, what = "condition"): Promise<boolean> {
  return env.f.eventually(cond, { what });
}

/** Runs the loops for a while, to show that nothing (more) happens. */
function settle(env: { f: ControllerFixture }): Promise<void> {
  return env.f.settle();
}

function exists(env: Env, r: ResourceDescriptor, name: string, ns = "default"): boolean {
  try {
    env.client.tracker.get(r, r.namespaced ? ns : "", name);
    return true;
  } catch {
    return false;
  }
}

function get(env: Env, r: ResourceDescriptor, name: string, ns = "default"): KubeObject {
  return env.client.tracker.get(r, r.namespaced ? ns : "", name);
}

describe("GarbageCollector", () => {
  it("monitors every preferred resource supporting delete, list and watch, except events", async () => {
    const env = await start([]);
    const keys = env.gc.monitoredResources().map((r) => `${r.group}/${r.resource}`).sort();
    expect(keys).toEqual(["/configmaps", "/pods", "apps/deployments", "apps/replicasets", "rbac.authorization.k8s.io/clusterroles"]);
  });

  it("background cascade: Deployment → ReplicaSet → Pods are collected once the Deployment is gone", async () => {
    const d = obj(deployments, "web");
    const rs = obj(replicaSets, "web-abc", { owners: [ref(d, { block: true, controller: true })] });
    const p1 = obj(pods, "web-abc-1", { owners: [ref(rs, { block: true, controller: true })] });
    const p2 = obj(pods, "web-abc-2", { owners: [ref(rs, { block: true, controller: true })] });
    const env = await start([
      [deployments, d],
      [replicaSets, rs],
      [pods, p1],
      [pods, p2],
    ]);
    await settle(env);
    expect(env.client.writeActions()).toEqual([]);
    expect(env.gc.graphHasUID("uid-web-abc-1")).toBe(true);

    await env.client.resource(deployments, "default").delete("web");
    await eventually(env, () => !exists(env, pods, "web-abc-1") && !exists(env, pods, "web-abc-2") && !exists(env, replicaSets, "web-abc"), "cascade");
    await eventually(env, () => env.gc.graph().length === 0, "empty graph");
    const deletes = env.client.writeActions().filter((a) => a.verb === "delete");
    expect(deletes.map((a) => `${a.resource}/${a.name}`).sort()).toEqual(["deployments/web", "pods/web-abc-1", "pods/web-abc-2", "replicasets/web-abc"]);
    const rsDelete = deletes.find((a) => a.resource === "replicasets")!;
    expect((rsDelete.options as DeleteOptions).propagationPolicy).toBe("Background");
    expect((rsDelete.options as DeleteOptions).preconditions?.uid).toBe("uid-web-abc");
  });

  it("deletes a dependent whose owner never existed (dangling reference) or has another UID", async () => {
    const ghost: OwnerReference = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "ghost", uid: "uid-ghost" };
    const impostor = obj(replicaSets, "impostor", { uid: "uid-new" });
    const stale: OwnerReference = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "impostor", uid: "uid-old" };
    const env = await start([
      [replicaSets, impostor],
      [pods, obj(pods, "orphaned", { owners: [ghost] })],
      [pods, obj(pods, "stale", { owners: [stale] })],
      [pods, obj(pods, "standalone")],
    ]);
    await eventually(env, () => !exists(env, pods, "orphaned") && !exists(env, pods, "stale"), "dangling dependents deleted");
    await settle(env);
    expect(exists(env, pods, "standalone")).toBe(true);
    expect(exists(env, replicaSets, "impostor")).toBe(true);
    expect(env.gc.graphHasUID("uid-ghost")).toBe(false);
  });

  it("with one of two owners gone, removes only that reference and keeps the dependent", async () => {
    const a = obj(configMaps, "owner-a");
    const b = obj(configMaps, "owner-b");
    const dep = obj(configMaps, "dep", { owners: [ref(a), ref(b)] });
    const env = await start([
      [configMaps, a],
      [configMaps, b],
      [configMaps, dep],
    ]);
    await env.client.resource(configMaps, "default").delete("owner-b");
    await eventually(env, () => (get(env, configMaps, "dep").metadata?.ownerReferences ?? []).length === 1, "reference removed");
    expect(get(env, configMaps, "dep").metadata?.ownerReferences).toEqual([ref(a)]);
    const patch = env.client.writeActions().find((x) => x.verb === "patch" && x.name === "dep")!;
    expect(patch.patchType).toBe("strategic");
    expect(patch.patch).toEqual({ metadata: { ownerReferences: [{ $patch: "delete", uid: "uid-owner-b" }], uid: "uid-dep" } });
    await settle(env);
    expect(exists(env, configMaps, "dep")).toBe(true);
  });

  it("foreground: the owner is held by its finalizer until the blocking dependents are gone", async () => {
    const d = obj(deployments, "web");
    const rs = obj(replicaSets, "web-abc", { owners: [ref(d, { block: true, controller: true })] });
    const p1 = obj(pods, "web-abc-1", { owners: [ref(rs, { block: true, controller: true })] });
    const env = await start([
      [deployments, d],
      [replicaSets, rs],
      [pods, p1],
    ]);
    const res1 = (await env.client.resource(deployments, "default").delete("web", { propagationPolicy: "Foreground" })) as KubeObject;
    expect(res1.metadata?.finalizers).toEqual(["foregroundDeletion"]);
    await eventually(env, () => !exists(env, deployments, "web"), "deployment gone");
    expect(exists(env, replicaSets, "web-abc")).toBe(false);
    expect(exists(env, pods, "web-abc-1")).toBe(false);
    const actions = env.client.writeActions();
    const idx = (pred: (a: (typeof actions)[number]) => boolean) => actions.findIndex(pred);
    const podDelete = idx((a) => a.verb === "delete" && a.resource === "pods");
    const rsFinalizerRemoved = idx((a) => a.verb === "patch" && a.resource === "replicasets");
    const dFinalizerRemoved = idx((a) => a.verb === "patch" && a.resource === "deployments");
    // The ReplicaSet has dependents, so it is deleted in the foreground too.
    const rsDelete = actions.find((a) => a.verb === "delete" && a.resource === "replicasets")!;
    expect((rsDelete.options as DeleteOptions).propagationPolicy).toBe("Foreground");
    expect(podDelete).toBeGreaterThanOrEqual(0);
    expect(rsFinalizerRemoved).toBeGreaterThan(podDelete);
    expect(dFinalizerRemoved).toBeGreaterThan(rsFinalizerRemoved);
    expect(actions[dFinalizerRemoved].patchType).toBe("merge");
    expect(actions[dFinalizerRemoved].patch).toMatchObject({ metadata: { finalizers: null } });
  });

  it("blockOwnerDeletion: only dependents with a blocking reference hold a foreground deletion", async () => {
    const owner = obj(configMaps, "owner");
    const blocking = obj(configMaps, "blocking", { owners: [ref(owner, { block: true })], finalizers: ["example.com/hold"] });
    const free = obj(configMaps, "free", { owners: [ref(owner, { block: false })], finalizers: ["example.com/hold"] });
    const env = await start([
      [configMaps, owner],
      [configMaps, blocking],
      [configMaps, free],
    ]);
    await env.client.resource(configMaps, "default").delete("owner", { propagationPolicy: "Foreground" });
    await eventually(env, () => !!get(env, configMaps, "blocking").metadata?.deletionTimestamp && !!get(env, configMaps, "free").metadata?.deletionTimestamp, "dependents deleting");
    await settle(env);
    // The blocking dependent is still there (held by its own finalizer): so is the owner.
    expect(get(env, configMaps, "owner").metadata?.finalizers).toEqual(["foregroundDeletion"]);

    // Releasing the non-blocking dependent changes nothing for the owner.
    const f = get(env, configMaps, "free");
    env.client.tracker.update(configMaps, "default", { ...f, metadata: { ...f.metadata, finalizers: [] } });
    await settle(env);
    expect(exists(env, configMaps, "owner")).toBe(true);

    const b = get(env, configMaps, "blocking");
    env.client.tracker.update(configMaps, "default", { ...b, metadata: { ...b.metadata, finalizers: [] } });
    await eventually(env, () => !exists(env, configMaps, "owner"), "owner released");
  });

  it("orphan: references to the owner are removed from the dependents, then the orphan finalizer", async () => {
    const rs = obj(replicaSets, "web-abc");
    const p1 = obj(pods, "web-abc-1", { owners: [ref(rs, { block: true, controller: true })] });
    const other = obj(configMaps, "other");
    const p2 = obj(pods, "web-abc-2", { owners: [ref(rs, { block: true, controller: true }), ref(other)] });
    const env = await start([
      [replicaSets, rs],
      [pods, p1],
      [pods, p2],
      [configMaps, other],
    ]);
    await env.client.resource(replicaSets, "default").delete("web-abc", { propagationPolicy: "Orphan" });
    await eventually(env, () => !exists(env, replicaSets, "web-abc"), "owner gone");
    await settle(env);
    expect(get(env, pods, "web-abc-1").metadata?.ownerReferences ?? []).toEqual([]);
    expect(get(env, pods, "web-abc-2").metadata?.ownerReferences).toEqual([ref(other)]);
    const finalizerPatch = env.client.writeActions().find((a) => a.verb === "patch" && a.resource === "replicasets")!;
    expect(finalizerPatch.patch).toMatchObject({ metadata: { finalizers: null } });
    expect(env.client.writeActions().filter((a) => a.verb === "delete" && a.resource === "pods")).toEqual([]);
  });

  it("a namespaced owner referenced from another namespace counts as absent, with an OwnerRefInvalidNamespace warning", async () => {
    const owner = obj(configMaps, "owner", { ns: "a" });
    const dep = obj(configMaps, "dep", { ns: "b", owners: [ref(owner)] });
    const env = await start([
      [configMaps, owner],
      [configMaps, dep],
    ]);
    await eventually(env, () => !exists(env, configMaps, "dep", "b"), "dependent deleted");
    expect(exists(env, configMaps, "owner", "a")).toBe(true);
    expect(env.recorder.events).toContain(
      'Warning OwnerRefInvalidNamespace ownerRef [v1/ConfigMap, namespace: b, name: owner, uid: uid-owner] does not exist in namespace "b"',
    );
  });

  it("never collects a cluster-scoped object that names a namespaced owner", async () => {
    const cm = obj(configMaps, "cm");
    const cr = obj(clusterRoles, "role", { owners: [{ apiVersion: "v1", kind: "ConfigMap", name: "cm", uid: "uid-gone" }] });
    const env = await start([
      [configMaps, cm],
      [clusterRoles, cr],
    ]);
    await settle(env);
    // Processing the role itself stops at the invalid reference instead of treating it as dangling.
    const node = env.gc.graph().find((n) => n.identity.uid === "uid-role")!;
    await expect(env.gc.attemptToDeleteItem(node)).rejects.toThrow(NamespacedOwnerOfClusterScopedObjectError);
    expect(await env.gc.attemptToDeleteWorker(node)).toBe("forget");
    await settle(env);
    expect(exists(env, clusterRoles, "role")).toBe(true);
    expect(env.client.writeActions()).toEqual([]);
  });

  it("picks up new resources on re-discovery and collects custom resources", async () => {
    const discovered = [...BASE];
    const env = await start([], discovered);
    const owner = obj(configMaps, "cm");
    env.client.seed(widgets, obj(widgets, "w1", { owners: [{ ...ref(owner), uid: "uid-missing" }] }));
    env.client.seed(widgets, obj(widgets, "w2", { owners: [ref(owner)] }));
    env.client.seed(configMaps, owner);
    discovered.push(widgets);
    await env.clock.advance(30_000);
    await eventually(env, () => env.gc.monitoredResources().some((r) => r.resource === "widgets"), "widgets monitored");
    await eventually(env, () => !exists(env, widgets, "w1"), "w1 collected");
    await settle(env);
    expect(exists(env, widgets, "w2")).toBe(true);
  });

  it("falls back to a JSON merge patch where strategic merge patch is refused (custom resources)", async () => {
    const cm = obj(configMaps, "cm");
    const missing: OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "gone", uid: "uid-gone" };
    const env = await start(
      [
        [configMaps, cm],
        [widgets, obj(widgets, "w", { owners: [ref(cm), missing] })],
      ],
      [...BASE, widgets],
      (client) =>
        client.prependReactor("patch", "widgets", (a) =>
          a.patchType === "strategic" ? { handled: true, error: StatusError.unsupportedMediaType("application/strategic-merge-patch+json", []) } : { handled: false },
        ),
    );
    await eventually(env, () => (get(env, widgets, "w").metadata?.ownerReferences ?? []).length === 1, "reference removed");
    expect(get(env, widgets, "w").metadata?.ownerReferences).toEqual([ref(cm)]);
    const merge = env.client.writeActions().find((a) => a.verb === "patch" && a.patchType === "merge")!;
    expect(merge.patch).toEqual({ metadata: { resourceVersion: expect.stringMatching(/^\d+$/), ownerReferences: [ref(cm)] } });
    expect(env.client.writeActions().filter((a) => a.verb === "patch" && a.patchType === "strategic")).toHaveLength(1);
  });

  it("does not fight the API server emptying a namespace (owner and dependents deleted together)", async () => {
    const rs = obj(replicaSets, "web-abc");
    const p1 = obj(pods, "web-abc-1", { owners: [ref(rs, { block: true, controller: true })] });
    const env = await start([
      [replicaSets, rs],
      [pods, p1],
    ]);
    env.client.clearActions();
    env.client.tracker.delete(pods, "default", "web-abc-1");
    env.client.tracker.delete(replicaSets, "default", "web-abc");
    await eventually(env, () => env.gc.graph().length === 0, "graph emptied");
    await settle(env);
    expect(env.client.writeActions()).toEqual([]);
  });

  it("monitors through metadata-only informers (the cache holds PartialObjectMetadata)", async () => {
    const env = await start([[configMaps, { ...obj(configMaps, "cm"), data: { big: "x".repeat(100) } } as KubeObject]], [configMaps]);
    const meta = env.f.informers.existing(metadataOnly(configMaps));
    expect(meta?.getIndexer().getByKey("default/cm")).toMatchObject({ kind: "PartialObjectMetadata", metadata: { name: "cm" } });
    expect(meta?.getIndexer().getByKey("default/cm")).not.toHaveProperty("data");
    expect(env.f.informers.existing(configMaps)).toBeUndefined();
  });

  it("retries a failed delete with rate limiting", async () => {
    const ghost: OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "ghost", uid: "uid-ghost" };
    const env = await start([[configMaps, obj(configMaps, "dep", { owners: [ghost] })]], [configMaps], (c) =>
      c.failNth("delete", "configmaps", 1, StatusError.internalError(new Error("boom"))),
    );
    const client = env.client;
    await eventually(env, () => {
      try {
        client.tracker.get(configMaps, "default", "dep");
        return false;
      } catch {
        return true;
      }
    });
    expect(client.writeActions().filter((a) => a.verb === "delete")).toHaveLength(2);
  });
});

describe("GraphBuilder.processEvent (upstream TestProcessEvent)", () => {
  function event(type: GraphEvent["type"], uid: string, owners: string[]): GraphEvent {
    return {
      virtual: false,
      type,
      apiVersion: "v1",
      kind: "Pod",
      obj: { metadata: { uid, ownerReferences: owners.map((o) => ({ apiVersion: "v1", kind: "Pod", name: "", uid: o })) } },
    };
  }

  function verifyInvariants(uidToNode: UIDToNode): void {
    for (const n of uidToNode.nodes()) {
      for (const dep of n.dependents) expect(dep.owners.some((o) => o.uid === n.identity.uid)).toBe(true);
      for (const o of n.owners) {
        const ownerNode = uidToNode.read(o.uid);
        if (ownerNode) expect(ownerNode.dependents.has(n)).toBe(true);
      }
    }
  }

  const scenarios: Array<{ name: string; events: GraphEvent[] }> = [
    { name: "test1", events: [event("add", "1", []), event("add", "2", ["1"]), event("add", "3", ["1", "2"])] },
    {
      name: "test2",
      events: [event("add", "1", []), event("add", "2", ["1"]), event("add", "3", ["1", "2"]), event("add", "4", ["2"]), event("delete", "2", ["doesn't matter"])],
    },
    {
      name: "test3",
      events: [event("add", "1", []), event("add", "2", ["1"]), event("add", "3", ["1", "2"]), event("add", "4", ["3"]), event("update", "2", ["4"])],
    },
    {
      name: "reverse test2",
      events: [event("add", "4", ["2"]), event("add", "3", ["1", "2"]), event("add", "2", ["1"]), event("add", "1", []), event("delete", "2", ["doesn't matter"])],
    },
  ];

  for (const s of scenarios) {
    it(s.name, () => {
      const clock = new FakeClock();
      const q = () => new RateLimitingQueue<GraphNode>(defaultControllerRateLimiter<GraphNode>(clock), { clock });
      const gb = new GraphBuilder({
        informers: new SharedInformerFactory(new FakeClient({ clock }), { clock }),
        attemptToDelete: q(),
        attemptToOrphan: q(),
        absentOwnerCache: new ReferenceCache(2),
        logger: silentLogger(),
      });
      for (const e of s.events) {
        gb.processEvent(e);
        verifyInvariants(gb.uidToNode);
      }
    });
  }

  it("a deleted owner's dependents are queued and the owner is recorded absent", () => {
    const clock = new FakeClock();
    const del = new RateLimitingQueue<GraphNode>(defaultControllerRateLimiter<GraphNode>(clock), { clock });
    const cache = new ReferenceCache();
    const gb = new GraphBuilder({
      informers: new SharedInformerFactory(new FakeClient({ clock }), { clock }),
      attemptToDelete: del,
      attemptToOrphan: new RateLimitingQueue<GraphNode>(defaultControllerRateLimiter<GraphNode>(clock), { clock }),
      absentOwnerCache: cache,
      logger: silentLogger(),
    });
    gb.processEvent(event("add", "1", []));
    gb.processEvent(event("add", "2", ["1"]));
    expect(del.len()).toBe(0);
    gb.processEvent(event("delete", "1", []));
    expect(del.len()).toBe(1);
    expect(cache.has({ apiVersion: "v1", kind: "Pod", name: "", uid: "1", namespace: "" })).toBe(true);
    expect(gb.uidToNode.read("2")?.owners.map((o) => o.uid)).toEqual(["1"]);
  });
});

describe("helpers", () => {
  it("referencesDiffs", () => {
    const r = (uid: string, block?: boolean): OwnerReference => ({ apiVersion: "v1", kind: "X", name: uid, uid, ...(block !== undefined ? { blockOwnerDeletion: block } : {}) });
    const d = referencesDiffs([r("1"), r("2", true)], [r("2", false), r("3")]);
    expect(d.added.map((x) => x.uid)).toEqual(["3"]);
    expect(d.removed.map((x) => x.uid)).toEqual(["1"]);
    expect(d.changed.map((c) => [c.oldRef.blockOwnerDeletion, c.newRef.blockOwnerDeletion])).toEqual([[true, false]]);
  });

  it("deletableResources keeps delete+list+watch resources and drops events", () => {
    const keys = [...deletableResources(BASE).keys()].sort();
    expect(keys).toEqual(["/v1/configmaps", "/v1/pods", "apps/v1/deployments", "apps/v1/replicasets", "rbac.authorization.k8s.io/v1/clusterroles"]);
  });

  it("KindMapper maps served apiVersion/kind only", () => {
    const m = new KindMapper([deployments]);
    expect(m.resourceFor("apps/v1", "Deployment").resource).toBe("deployments");
    expect(() => m.resourceFor("apps/v1beta1", "Deployment")).toThrow(RestMappingError);
    expect(() => m.resourceFor("a/b/c", "Deployment")).toThrow(RestMappingError);
  });

  it("ReferenceCache evicts the least recently used", () => {
    const c = new ReferenceCache(2);
    const r = (uid: string) => ({ apiVersion: "v1", kind: "X", name: "n", uid, namespace: "" });
    c.add(r("1"));
    c.add(r("2"));
    expect(c.has(r("1"))).toBe(true);
    c.add(r("3"));
    expect(c.has(r("2"))).toBe(false);
    expect(c.has(r("1"))).toBe(true);
    expect(c.size).toBe(2);
  });

  it("GraphNode.blockingDependents", () => {
    const owner = new GraphNode({ identity: { apiVersion: "v1", kind: "X", name: "o", uid: "o", namespace: "" } });
    const mk = (uid: string, block?: boolean) =>
      new GraphNode({ identity: { apiVersion: "v1", kind: "X", name: uid, uid, namespace: "" }, owners: [{ apiVersion: "v1", kind: "X", name: "o", uid: "o", blockOwnerDeletion: block }] });
    const a = mk("a", true);
    const b = mk("b", false);
    const c = mk("c");
    for (const n of [a, b, c]) owner.dependents.add(n);
    expect(owner.blockingDependents()).toEqual([a]);
  });
});
