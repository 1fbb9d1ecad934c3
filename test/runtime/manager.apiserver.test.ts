/**
 * The runtime against the embedded API server through the real HTTP client: two managers with
 * leader election on a coordination.k8s.io/v1 Lease, a controller that adopts and releases
 * children with ControllerRefManager (real strategic merge patches with UID preconditions),
 * events recorded to the API, and the metrics endpoint. Real clock and loopback HTTP: waits are
 * condition polls with a deadline, never fixed sleeps.
 */
import type { ConfigMap, Event } from "../../src/apimachinery/api/core/v1.js";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isInvalid } from "../../src/apimachinery/errors.js";
import { parseSelector } from "../../src/apimachinery/labels.js";
import { getControllerOf } from "../../src/apimachinery/ownerrefs.js";
import type { RunningApiServer } from "../../src/apiserver/index.js";
import { KubeClient } from "../../src/client/kubeclient.js";
import { builtin } from "../../src/client/typed.js";
import { ObjectName } from "../../src/apimachinery/objectname.js";
import { ControllerRefManager, Manager, captureLogger, recheckDeletionTimestamp, releasePatch } from "../../src/runtime/index.js";

const apiserver = await import("../../src/apiserver/index.js").catch((err: unknown) => {
  console.warn(`test/runtime/manager.apiserver.test.ts skipped: src/apiserver/index.ts does not load (${(err as Error).message})`);
  return undefined;
});

const NS = "default";
const SELECTOR_ANNOTATION = "kubeloop.test/selector";
const CLAIMED_ANNOTATION = "kubeloop.test/claimed";
const gvk = { group: "", version: "v1", kind: "ConfigMap" };

let api: RunningApiServer;
let client: KubeClient;

beforeAll(async () => {
  if (!apiserver) return;
  api = await apiserver.startApiServer({ port: 0 });
  client = KubeClient.fromKubeconfig({ kubeconfigPath: api.kubeconfigPath, rest: { qps: -1 } });
});
afterAll(async () => {
  await client?.close();
  await api?.stop();
});

async function eventually<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** A manager running a "parent ConfigMap claims child ConfigMaps" controller. */
function newParentManager(id: string) {
  const registry = new Registry();
  const { logger, records } = captureLogger("info");
  const manager = new Manager({
    client,
    registry,
    logger,
    metricsBindAddress: "127.0.0.1:0",
    healthProbeBindAddress: "127.0.0.1:0",
    leaderElection: { id, namespace: NS, name: "parents-controller", leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 },
    gracefulShutdownTimeoutMs: 5000,
  });
  const isParent = (cm: ConfigMap) => cm.metadata?.labels?.role === "parent";
  // Parents: themselves; any other ConfigMap: every parent of its namespace (it may be claimable).
  const parentsFor = (cm: ConfigMap): ObjectName[] =>
    isParent(cm)
      ? [ObjectName.of(cm)]
      : manager.cache.list(builtin.configMaps, { namespace: cm.metadata?.namespace ?? "" }).filter(isParent).map((p) => ObjectName.of(p));

  const controller = manager
    .controller("parents")
    .watches(builtin.configMaps, parentsFor)
    .withOptions({ maxConcurrentReconciles: 2, eventSource: "parents-controller" })
    .reconcile(async (key, ctx) => {
      const parent = ctx.cache.get(builtin.configMaps, key);
      if (!parent) return; // deleted
      const cms = ctx.client.resource(builtin.configMaps, key.namespace);
      const selector = parseSelector(parent.metadata?.annotations?.[SELECTOR_ANNOTATION] ?? "");
      const candidates = ctx.cache.list(builtin.configMaps, { namespace: key.namespace }).filter((cm) => !isParent(cm));
      const mgr = new ControllerRefManager<ConfigMap>({
        owner: parent,
        ownerGVK: gvk,
        selector,
        client: cms,
        canAdopt: recheckDeletionTimestamp(() => cms.get(key.name), parent.metadata!.uid!),
      });
      const claimed = await mgr.claim(candidates);
      const names = claimed.map((c) => c.metadata!.name!).sort().join(",");
      if (parent.metadata?.annotations?.[CLAIMED_ANNOTATION] !== names) {
        await cms.patch(key.name, "merge", { metadata: { annotations: { [CLAIMED_ANNOTATION]: names } } });
        ctx.recorder.event(parent, "Normal", "Claimed", `claimed ${claimed.length} children`);
      }
    });
  const stop = new AbortController();
  const done = manager.start(stop.signal).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { manager, controller, registry, records, stop, done };
}

describe.skipIf(!apiserver)("runtime against the embedded API server", () => {
  it("a release whose UID precondition fails is Invalid (what ControllerRefManager ignores)", async () => {
    const cms = client.resource<ConfigMap>(builtin.configMaps, NS);
    await cms.create({ metadata: { name: "uid-probe", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "o", uid: "owner-uid" }] } });
    const err = await cms.patch("uid-probe", "strategic", releasePatch("owner-uid", "not-the-uid")).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isInvalid(err)).toBe(true);
    const stored = await cms.get("uid-probe");
    const ok = await cms.patch("uid-probe", "strategic", releasePatch("owner-uid", stored.metadata!.uid!));
    expect(ok.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it("two managers: one leads and adopts/releases; the other takes over when it stops", async () => {
    const cms = client.resource<ConfigMap>(builtin.configMaps, NS);
    const parent = await cms.create({ metadata: { name: "parent", labels: { role: "parent" }, annotations: { [SELECTOR_ANNOTATION]: "app=web" } } });
    const parentRef = { apiVersion: "v1", kind: "ConfigMap", name: "parent", uid: parent.metadata!.uid!, controller: true, blockOwnerDeletion: true };
    await cms.create({ metadata: { name: "c1", labels: { app: "web" } } });
    await cms.create({ metadata: { name: "c2", labels: { app: "other" }, ownerReferences: [parentRef] } });
    await cms.create({
      metadata: { name: "c3", labels: { app: "web" }, ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "someone-else", controller: true }] },
    });

    const a = newParentManager("manager-a");
    const b = newParentManager("manager-b");
    try {
      await eventually("a leader", () => a.manager.isLeader() || b.manager.isLeader());
      const [leader, follower] = a.manager.isLeader() ? [a, b] : [b, a];

      await eventually("c1 adopted, c2 released", async () => {
        const p = await cms.get("parent");
        return p.metadata?.annotations?.[CLAIMED_ANNOTATION] === "c1" || undefined;
      });
      expect(getControllerOf(await cms.get("c1"))?.uid).toBe(parent.metadata!.uid);
      expect((await cms.get("c2")).metadata?.ownerReferences ?? []).toEqual([]);
      expect(getControllerOf(await cms.get("c3"))?.uid).toBe("someone-else");

      // Only the leader ran its controller.
      expect(follower.manager.isLeader()).toBe(false);
      expect(follower.controller.phase).toBe("Created");
      expect(leader.controller.phase).toBe("Running");

      // The event reached the API.
      const events = client.resource<Event>(builtin.events, NS);
      const ev = await eventually("the Claimed event", async () => (await events.list()).items.find((e) => e.reason === "Claimed"));
      expect(ev.source?.component).toBe("parents-controller");
      expect(ev.involvedObject.name).toBe("parent");

      // Metrics and health of the leader.
      const text = await (await fetch(`http://${leader.manager.metricsAddress}/metrics`)).text();
      expect(text).toMatch(/controller_runtime_reconcile_total\{controller="parents",result="success"\} [1-9]/);
      expect((await fetch(`http://${leader.manager.healthAddress}/readyz`)).status).toBe(200);
      expect((await fetch(`http://${follower.manager.healthAddress}/healthz`)).status).toBe(200);

      // The leader stops; the follower takes over and handles new children.
      leader.stop.abort();
      expect(await leader.done).toBeUndefined();
      await eventually("the follower leads", () => follower.manager.isLeader());
      await cms.create({ metadata: { name: "c4", labels: { app: "web" } } });
      await eventually("c4 adopted by the new leader", async () => {
        const p = await cms.get("parent");
        return p.metadata?.annotations?.[CLAIMED_ANNOTATION] === "c1,c4" || undefined;
      });
      expect(getControllerOf(await cms.get("c4"))?.uid).toBe(parent.metadata!.uid);
    } finally {
      a.stop.abort();
      b.stop.abort();
      expect(await a.done).toBeUndefined();
      expect(await b.done).toBeUndefined();
    }
  });
});
