/**
 * End to end on the fake client, through the informers and the runtime Controller: a Deployment
 * rolls out, rolls over to a new template within maxSurge/maxUnavailable at every step, scales
 * proportionally mid-rollout, and a Recreate Deployment never runs old and new pods together.
 *
 * A small stand-in plays the ReplicaSet controller's part: it sets every ReplicaSet's status
 * (replicas, ready, available) to its spec.replicas — pods that start instantly and are at once
 * available. The test drives it in explicit steps, so the state between steps can be checked.
 */
import type { Deployment, DeploymentStrategy, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { afterEach, describe, expect, it } from "vitest";
import type { FakeClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { builtin } from "../../client/typed.js";
import type { FakeRecorder } from "../../events/broadcaster.js";
import type { FakeClient } from "../../testing/fakeclient.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { DeploymentController } from "./controller.js";
import {
  getDeploymentCondition,
  maxSurge,
  maxUnavailable,
  replicasOf,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  withDeploymentDefaults,
} from "./index.js";

const NS = "default";

interface Harness {
  clock: FakeClock;
  client: FakeClient;
  recorder: FakeRecorder;
  dc: DeploymentController;
  stop: () => Promise<void>;
}

const running: Harness[] = [];
afterEach(async () => {
  for (const h of running.splice(0)) await h.stop();
});

/**
 * The fake client's status subresource keeps the stored metadata; a real API server takes
 * metadata changes (the controller's revision annotation) through it and keeps only spec and, for
 * Deployments, labels. Emulated here so the controller sees what it would in a cluster.
 */
function withRealStatusSubresource(client: FakeClient): void {
  client.prependReactor("update", "deployments", (action) => {
    if (action.subresource !== "status" || !action.object) return { handled: false };
    const result = client.tracker.update(builtin.deployments, action.object.metadata?.namespace ?? NS, action.object, (next, old) => ({
      ...old,
      status: next.status,
      metadata: { ...next.metadata, labels: old.metadata?.labels },
    }));
    return { handled: true, result };
  });
}

async function start(): Promise<Harness> {
  const f = new ControllerFixture();
  withRealStatusSubresource(f.client);
  const dc = new DeploymentController(f.manager, { workers: 2 });
  await f.start();
  const h: Harness = {
    clock: f.clock,
    client: f.client,
    recorder: f.recorder,
    dc,
    stop: () => f.stop(),
  };
  running.push(h);
  return h;
}

/** Lets watches, handlers and workers run, moving the fake clock past rate-limited retries. */
async function settle(h: Harness, rounds = 30): Promise<void> {
  for (let i = 0; i < rounds; i++) await h.clock.advance(20);
}

async function replicaSets(h: Harness): Promise<ReplicaSet[]> {
  const list = await h.client.resource<ReplicaSet>(builtin.replicaSets, NS).list();
  return list.items.sort((a, b) => (a.metadata!.creationTimestamp! < b.metadata!.creationTimestamp! ? -1 : 1));
}

async function deployment(h: Harness, name: string): Promise<Deployment> {
  return h.client.resource<Deployment>(builtin.deployments, NS).get(name);
}

/**
 * The ReplicaSet controller's part: pods of every ReplicaSet exist and are available. `only`
 * applies just the scale-downs (pods deleted at once) or just the scale-ups (pods created and
 * available at once), so the moment between the two can be checked too.
 */
async function playReplicaSetController(h: Harness, only?: "down" | "up"): Promise<void> {
  const rsClient = h.client.resource<ReplicaSet>(builtin.replicaSets, NS);
  for (const rs of (await rsClient.list()).items) {
    const n = replicasOf(rs);
    const s = rs.status;
    if (s && s.replicas === n && s.readyReplicas === n && s.availableReplicas === n) continue;
    const current = s?.availableReplicas ?? 0;
    if (only === "down" && n >= current) continue;
    if (only === "up" && n < current) continue;
    await rsClient.updateStatus({
      ...rs,
      status: { replicas: n, fullyLabeledReplicas: n, readyReplicas: n, availableReplicas: n, observedGeneration: rs.metadata?.generation ?? 0 },
    } as ReplicaSet);
  }
}

function newDeploymentObject(name: string, replicas: number, image: string, strategy: DeploymentStrategy): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name, namespace: NS },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "web", image }] } },
      strategy,
      progressDeadlineSeconds: 600,
      revisionHistoryLimit: 10,
    },
  };
}

/** Every bound of a rolling update, checked on what the API holds now. */
async function checkRollingBounds(h: Harness, d: Deployment, steps: string[]): Promise<void> {
  const rss = await replicaSets(h);
  const dd = withDeploymentDefaults(structuredClone(d));
  const specTotal = rss.reduce((n, rs) => n + replicasOf(rs), 0);
  const available = rss.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
  steps.push(rss.map((rs) => `${replicasOf(rs)}/${rs.status?.availableReplicas ?? 0}`).join(" "));
  expect(specTotal).toBeLessThanOrEqual(replicasOf(dd) + maxSurge(dd));
  expect(available).toBeGreaterThanOrEqual(replicasOf(dd) - maxUnavailable(dd));
}

describe("rollout end to end (fake client, informers, runtime Controller)", () => {
  it("creates, rolls over within surge and unavailability bounds, completes, and keeps history", async () => {
    const h = await start();
    const deployments = h.client.resource<Deployment>(builtin.deployments, NS);
    const strategy = { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } };
    await deployments.create(newDeploymentObject("web", 10, "web:v1", strategy));
    await settle(h);

    // First rollout: one ReplicaSet with every replica.
    let rss = await replicaSets(h);
    expect(rss).toHaveLength(1);
    expect(replicasOf(rss[0])).toBe(10);
    expect(rss[0].metadata!.annotations![REVISION_ANNOTATION]).toBe("1");
    await playReplicaSetController(h);
    await settle(h);
    let d = await deployment(h, "web");
    expect(d.status).toMatchObject({ replicas: 10, updatedReplicas: 10, readyReplicas: 10, availableReplicas: 10 });
    expect(getDeploymentCondition(d.status, "Available")).toMatchObject({ status: "True", reason: "MinimumReplicasAvailable" });
    expect(getDeploymentCondition(d.status, "Progressing")).toMatchObject({ status: "True", reason: "NewReplicaSetAvailable" });
    expect(d.metadata!.annotations![REVISION_ANNOTATION]).toBe("1");

    // Change the image: roll over step by step.
    d.spec!.template.spec!.containers[0].image = "web:v2";
    await deployments.update(d);
    const steps: string[] = [];
    for (let i = 0; i < 20; i++) {
      await settle(h);
      await checkRollingBounds(h, d, steps);
      await playReplicaSetController(h, "down");
      await checkRollingBounds(h, d, steps);
      await playReplicaSetController(h, "up");
      await checkRollingBounds(h, d, steps);
      d = await deployment(h, "web");
      if (getDeploymentCondition(d.status, "Progressing")?.reason === "NewReplicaSetAvailable" && d.status?.updatedReplicas === 10 && d.status?.replicas === 10) break;
    }
    await settle(h);
    d = await deployment(h, "web");
    rss = await replicaSets(h);
    expect(rss.map((rs) => replicasOf(rs))).toEqual([0, 10]);
    expect(rss[1].spec!.template!.spec!.containers[0].image).toBe("web:v2");
    expect(rss[1].metadata!.annotations![REVISION_ANNOTATION]).toBe("2");
    expect(d.status).toMatchObject({ replicas: 10, updatedReplicas: 10, availableReplicas: 10 });
    expect(d.status?.unavailableReplicas).toBeUndefined();
    expect(getDeploymentCondition(d.status, "Progressing")).toMatchObject({ reason: "NewReplicaSetAvailable", message: `ReplicaSet "${rss[1].metadata!.name!}" has successfully progressed.` });
    expect(d.metadata!.annotations![REVISION_ANNOTATION]).toBe("2");
    // More than one step, and the first one surged the new ReplicaSet to maxSurge.
    expect(steps.length).toBeGreaterThan(4);
    expect(h.recorder.events).toContain(`Normal ScalingReplicaSet Scaled up replica set ${rss[1].metadata!.name!} to 3`);

    // kubectl rollout undo: the v1 template goes back into the Deployment; the v1 ReplicaSet is
    // reused and renumbered.
    const v1 = rss[0];
    d.spec!.template = structuredClone(v1.spec!.template!);
    delete d.spec!.template.metadata!.labels!["pod-template-hash"];
    await deployments.update(d);
    for (let i = 0; i < 20; i++) {
      await settle(h);
      await checkRollingBounds(h, d, steps);
      await playReplicaSetController(h, "down");
      await checkRollingBounds(h, d, steps);
      await playReplicaSetController(h, "up");
      d = await deployment(h, "web");
      if (getDeploymentCondition(d.status, "Progressing")?.reason === "NewReplicaSetAvailable" && d.status?.updatedReplicas === 10 && d.status?.replicas === 10) break;
    }
    rss = await replicaSets(h);
    expect(rss).toHaveLength(2);
    expect(rss[0].metadata!.name).toBe(v1.metadata!.name);
    expect(replicasOf(rss[0])).toBe(10);
    expect(rss[0].metadata!.annotations).toMatchObject({ [REVISION_ANNOTATION]: "3", [REVISION_HISTORY_ANNOTATION]: "1" });
    expect(d.metadata!.annotations![REVISION_ANNOTATION]).toBe("3");
  });

  it("scales proportionally when the Deployment is scaled mid-rollout", async () => {
    const h = await start();
    const deployments = h.client.resource<Deployment>(builtin.deployments, NS);
    await deployments.create(newDeploymentObject("api", 10, "api:v1", { type: "RollingUpdate", rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } }));
    await settle(h);
    await playReplicaSetController(h);
    await settle(h);

    let d = await deployment(h, "api");
    d.spec!.template.spec!.containers[0].image = "api:v2";
    await deployments.update(d);
    await settle(h);
    // Mid-rollout, no new pod available yet: the new ReplicaSet surged to 3, the old one lost 2
    // (13 - 8 minimum available - 3 new unavailable), then the new one took the freed room (5).
    let rss = await replicaSets(h);
    expect(rss.map(replicasOf)).toEqual([8, 5]);

    d = await deployment(h, "api");
    d.spec!.replicas = 20;
    await deployments.update(d);
    await settle(h);
    rss = await replicaSets(h);
    // 20 + surge 3 = 23 allowed, 13 present: 10 to add, shared in proportion to size (largest
    // first): old round(8 * 23 / 13) - 8 = 6, new round(5 * 23 / 13) - 5 = 4, no leftover.
    expect(rss.map(replicasOf)).toEqual([14, 9]);
    expect(rss.reduce((n, rs) => n + replicasOf(rs), 0)).toBe(23);
    for (const rs of rss) expect(rs.metadata!.annotations).toMatchObject({ "deployment.kubernetes.io/desired-replicas": "20", "deployment.kubernetes.io/max-replicas": "23" });

    // The rollout then completes at the new size.
    for (let i = 0; i < 30; i++) {
      await playReplicaSetController(h);
      await settle(h);
      d = await deployment(h, "api");
      if (getDeploymentCondition(d.status, "Progressing")?.reason === "NewReplicaSetAvailable" && d.status?.replicas === 20) break;
    }
    rss = await replicaSets(h);
    expect(rss.map(replicasOf)).toEqual([0, 20]);
    expect(d.status).toMatchObject({ replicas: 20, updatedReplicas: 20, availableReplicas: 20 });
  });

  it("Recreate never runs old and new ReplicaSets together", async () => {
    const h = await start();
    const deployments = h.client.resource<Deployment>(builtin.deployments, NS);
    await deployments.create(newDeploymentObject("job", 4, "job:v1", { type: "Recreate" }));
    await settle(h);
    await playReplicaSetController(h);
    await settle(h);
    let d = await deployment(h, "job");
    d.spec!.template.spec!.containers[0].image = "job:v2";
    await deployments.update(d);
    for (let i = 0; i < 10; i++) {
      await settle(h);
      const rss = await replicaSets(h);
      const running = rss.filter((rs) => replicasOf(rs) > 0 || (rs.status?.replicas ?? 0) > 0);
      expect(running.length).toBeLessThanOrEqual(1);
      await playReplicaSetController(h);
      d = await deployment(h, "job");
      if (d.status?.updatedReplicas === 4 && d.status?.availableReplicas === 4) break;
    }
    const rss = await replicaSets(h);
    expect(rss.map(replicasOf)).toEqual([0, 4]);
    expect(rss[1].spec!.template!.spec!.containers[0].image).toBe("job:v2");
  });

  it("times out a stuck rollout only after its progress deadline, at the requeue a second later", async () => {
    const h = await start();
    const deployments = h.client.resource<Deployment>(builtin.deployments, NS);
    const obj = newDeploymentObject("stuck", 2, "stuck:v1", { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } });
    obj.spec!.progressDeadlineSeconds = 60;
    await deployments.create(obj);
    await settle(h); // the ReplicaSet is created, but its pods never become available
    let d = await deployment(h, "stuck");
    expect(getDeploymentCondition(d.status, "Progressing")).toMatchObject({ status: "True", reason: "NewReplicaSetCreated" });
    await h.clock.advance(59_000 - 30 * 20);
    await settle(h, 5);
    d = await deployment(h, "stuck");
    expect(getDeploymentCondition(d.status, "Progressing")?.reason).toBe("NewReplicaSetCreated");
    await h.clock.advance(1_000);
    await settle(h, 5);
    d = await deployment(h, "stuck");
    // At the deadline (within the settle steps) it has not timed out: strictly after only.
    expect(getDeploymentCondition(d.status, "Progressing")?.reason).toBe("NewReplicaSetCreated");
    await h.clock.advance(1_000);
    await settle(h, 5);
    d = await deployment(h, "stuck");
    expect(getDeploymentCondition(d.status, "Progressing")).toMatchObject({ status: "False", reason: "ProgressDeadlineExceeded" });
  });

  it("recovers from write conflicts by retrying", async () => {
    const h = await start();
    h.client.failNth("create", "replicasets", 1, StatusError.conflict(builtin.replicaSets, "x", "the object has been modified"));
    const deployments = h.client.resource<Deployment>(builtin.deployments, NS);
    await deployments.create(newDeploymentObject("retry", 2, "retry:v1", { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }));
    await settle(h);
    const rss = await replicaSets(h);
    expect(rss).toHaveLength(1);
    expect(h.client.actions().filter((a) => a.verb === "create" && a.resource === "replicasets")).toHaveLength(2);
  });
});
