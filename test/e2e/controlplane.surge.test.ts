/**
 * Issue 8, end to end: a rolling update driven by `kubectl set image` keeps within maxSurge and
 * maxUnavailable at every moment. A slow simulated kubelet (pods take ~0.3 s to become ready)
 * makes the intermediate states observable; watches through the control plane's client record
 * every state of the ReplicaSets, the pods and the Deployment while the rollout runs.
 *
 * The bounds checked are upstream's (test/utils/deployment.go, waitForDeploymentCompleteMaybeCheckRolling):
 * the ReplicaSets' spec.replicas sum ≤ replicas + maxSurge and the Deployment's
 * status.availableReplicas ≥ replicas − maxUnavailable; and, one level down, the live pods
 * themselves (not terminating) and the ready ones among them.
 */
import type { Deployment, ReplicaSet } from "../../src/apimachinery/api/apps/v1.js";
import type { Pod } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TypedObject } from "../../src/apimachinery/types.js";
import type { ResourceClient } from "../../src/client/interfaces.js";
import { builtin } from "../../src/client/typed.js";
import { startControlPlane, type RunningControlPlane } from "../../src/controlplane/index.js";
import { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  cp = await startControlPlane({
    port: 0,
    kubelet: { heartbeatIntervalMs: 0, speedFactor: 0.01, delays: { schedule: 20, containerCreating: 100, running: 200 } },
  });
  await cp.ready;
  k = new Kubectl(cp.api.kubeconfigPath);
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

/**
 * Mirrors one resource of a namespace from a watch started at `resourceVersion`, calling `check`
 * with the full set of objects after every event (each such set is a state the server really had).
 */
function mirror<T extends TypedObject>(
  client: ResourceClient<T>,
  resourceVersion: string,
  initial: readonly T[],
  check: (objs: readonly T[]) => void,
  signal: AbortSignal,
): Promise<void> {
  const objs = new Map<string, T>(initial.map((o) => [o.metadata?.name ?? "", o]));
  return (async () => {
    const stream = await client.watch({ resourceVersion, signal });
    try {
      for await (const ev of stream) {
        if (ev.type === "ERROR") throw new Error(`watch error: ${ev.object.message ?? ""}`);
        if (ev.type === "BOOKMARK") continue;
        const name = ev.object.metadata?.name ?? "";
        if (ev.type === "DELETED") objs.delete(name);
        else objs.set(name, ev.object);
        check([...objs.values()]);
      }
    } catch (err) {
      if (!signal.aborted) throw err;
    }
  })();
}

const isReady = (p: Pod) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;

it("set image rolls 8 pods over within maxSurge 2 / maxUnavailable 2 (25%/25%) at every observed moment", async () => {
  const ns = "e2e-surge";
  await k.ok(["create", "namespace", ns]);
  await k.ok(["-n", ns, "create", "deployment", "web", "--image=nginx:1.27", "--replicas=8"]);
  const first = await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000);
  expect(first.code).toBe(0);

  const replicas = 8;
  const surge = 2; // ceil(25% of 8)
  const unavailable = 2; // floor(25% of 8)
  const rsClient = cp.client.resource<ReplicaSet>(builtin.replicaSets, ns);
  const podClient = cp.client.resource<Pod>(builtin.pods, ns);
  const dClient = cp.client.resource<Deployment>(builtin.deployments, ns);
  const [rsList, podList, dList] = await Promise.all([rsClient.list(), podClient.list(), dClient.list()]);
  const oldName = rsList.items[0].metadata?.name ?? "";
  expect(rsList.items).toHaveLength(1);

  const violations: string[] = [];
  let maxSpecTotal = 0;
  let maxLivePods = 0;
  let minReadyPods = Number.POSITIVE_INFINITY;
  let minAvailable = Number.POSITIVE_INFINITY;
  /** Every distinct (old, new) pair of spec.replicas, in order. */
  const steps: Array<[number, number]> = [[replicas, 0]];
  let podStates = 0;

  const ac = new AbortController();
  const watches = [
    mirror(
      rsClient,
      rsList.metadata?.resourceVersion ?? "",
      rsList.items,
      (rss) => {
        const total = rss.reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0);
        maxSpecTotal = Math.max(maxSpecTotal, total);
        if (total > replicas + surge) violations.push(`ReplicaSets sum to ${total} replicas`);
        const oldSize = rss.find((rs) => rs.metadata?.name === oldName)?.spec?.replicas ?? 0;
        const newSize = rss.find((rs) => rs.metadata?.name !== oldName)?.spec?.replicas ?? 0;
        const last = steps[steps.length - 1];
        if (!last || last[0] !== oldSize || last[1] !== newSize) steps.push([oldSize, newSize]);
      },
      ac.signal,
    ),
    mirror(
      podClient,
      podList.metadata?.resourceVersion ?? "",
      podList.items,
      (ps) => {
        podStates++;
        const live = ps.filter((p) => !p.metadata?.deletionTimestamp);
        const ready = live.filter(isReady).length;
        maxLivePods = Math.max(maxLivePods, live.length);
        minReadyPods = Math.min(minReadyPods, ready);
        if (live.length > replicas + surge) violations.push(`${live.length} live pods`);
        if (ready < replicas - unavailable) violations.push(`${ready} ready pods`);
      },
      ac.signal,
    ),
    mirror(
      dClient,
      dList.metadata?.resourceVersion ?? "",
      dList.items,
      (ds) => {
        const available = ds[0]?.status?.availableReplicas ?? 0;
        minAvailable = Math.min(minAvailable, available);
        if (available < replicas - unavailable) violations.push(`deployment reports ${available} available`);
      },
      ac.signal,
    ),
  ];

  const start = Date.now();
  await k.ok(["-n", ns, "set", "image", "deployment/web", "nginx=nginx:1.28"]);
  const r = await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const elapsed = Date.now() - start;
  // Let the last pod deletions arrive on the watches before stopping them.
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const live = (await podClient.list()).items;
    if (live.length === replicas) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  await new Promise((res) => setTimeout(res, 100));
  ac.abort();
  await Promise.all(watches);

  expect(violations).toEqual([]);
  // The bounds were actually reached: the rollout surged and dipped as far as allowed.
  expect(maxSpecTotal).toBe(replicas + surge);
  expect(minAvailable).toBe(replicas - unavailable);
  expect(maxLivePods).toBeGreaterThan(replicas);
  expect(minReadyPods).toBeLessThan(replicas);
  expect(podStates).toBeGreaterThan(20);
  // With pods needing ~0.3 s to become ready, the rollout takes several steps.
  expect(elapsed).toBeGreaterThan(600);

  // The order: the new ReplicaSet is created at maxSurge (8 + 2 = 10 pods), then the old one
  // dips by maxUnavailable (10 − 6 − 2 unavailable new ones = 2); then each step waits for
  // new pods to become available. The new ReplicaSet only grows, the old one only shrinks.
  expect(steps[0]).toEqual([8, 0]);
  expect(steps[1]).toEqual([8, 2]);
  expect(steps[2]).toEqual([6, 2]);
  expect(steps[steps.length - 1]).toEqual([0, 8]);
  for (let i = 1; i < steps.length; i++) {
    expect(steps[i][0]).toBeLessThanOrEqual(steps[i - 1][0]);
    expect(steps[i][1]).toBeGreaterThanOrEqual(steps[i - 1][1]);
    expect(steps[i][0] + steps[i][1]).toBeLessThanOrEqual(replicas + surge);
    expect(steps[i][0] + steps[i][1]).toBeGreaterThanOrEqual(replicas);
  }
  expect(steps.length).toBeGreaterThanOrEqual(5);

  const pods = (await podClient.list()).items;
  expect(pods).toHaveLength(replicas);
  for (const p of pods) expect(p.spec?.containers[0].image).toBe("nginx:1.28");
}, 120_000);
