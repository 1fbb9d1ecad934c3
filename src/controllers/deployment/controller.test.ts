/**
 * deployment_controller_test.go restated: syncDeployment fixtures with expected client actions,
 * ReplicaSet claiming, the pod map, and the event handlers.
 */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import type { WritableObjectMeta } from "../../apimachinery/types.js";
import { newControllerRef } from "../../apimachinery/ownerrefs.js";
import { builtin } from "../../client/typed.js";
import { DeletedFinalStateUnknown } from "../../informers/store.js";
import { silentLogger } from "../../runtime/logging.js";
import { DeploymentFixture, generatePodFromRS, newDeployment, newReplicaSet, withRSStatus } from "./fixture.js";
import {
  computeHash,
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  DEPLOYMENT_GVK,
  DEPLOYMENT_MAX_RETRIES,
  DEPRECATED_ROLLBACK_TO_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  getDeploymentCondition,
  InvalidStrategyError,
  MAX_REPLICAS_ANNOTATION,
  REVISION_ANNOTATION,
} from "./index.js";

const key = (d: Deployment) => `${d.metadata!.namespace}/${d.metadata!.name}`;

function bumpResourceVersion<T extends { metadata?: object }>(obj: T): T {
  const copy = structuredClone(obj) as T & { metadata: WritableObjectMeta };
  copy.metadata.resourceVersion = String(Number(copy.metadata.resourceVersion ?? "0") + 1);
  return copy;
}

describe("syncDeployment fixtures", () => {
  it("create new RS when none exists (TestSyncDeploymentCreatesReplicaSet)", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    f.dLister.push(d);
    f.objects.push(d);
    f.expectCreateRSAction();
    f.expectUpdateDeploymentStatusAction(d);
    f.expectUpdateDeploymentStatusAction(d);
    await f.run(key(d));

    const created = f.client.actions().find((a) => a.verb === "create")!.object as unknown as ReplicaSet;
    const hash = computeHash(d.spec!.template, undefined);
    expect(created.metadata).toMatchObject({
      name: `foo-${hash}`,
      namespace: "default",
      labels: { foo: "bar", [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash },
      annotations: { [REVISION_ANNOTATION]: "1", [DESIRED_REPLICAS_ANNOTATION]: "1", [MAX_REPLICAS_ANNOTATION]: "1" },
      ownerReferences: [newControllerRef(d, DEPLOYMENT_GVK)],
    });
    expect(created.spec).toMatchObject({
      replicas: 1,
      minReadySeconds: 0,
      selector: { matchLabels: { foo: "bar", [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash } },
      template: { metadata: { labels: { foo: "bar", [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash } } },
    });
    expect(f.recorder.events).toEqual([`Normal ScalingReplicaSet Scaled up replica set foo-${hash} to 1`]);
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    // maxSurge 0 and maxUnavailable 0 resolve to maxUnavailable 1: zero available pods are enough.
    expect(stored.status).toEqual({
      unavailableReplicas: 1,
      conditions: [
        {
          type: "Available",
          status: "True",
          reason: "MinimumReplicasAvailable",
          message: "Deployment has minimum availability.",
          lastUpdateTime: "2026-01-01T00:00:00Z",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    });
  });

  it("records NewReplicaSetCreated when the Deployment has a progress deadline", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 3, undefined, 1, 0, { foo: "bar" });
    d.spec!.progressDeadlineSeconds = 600;
    f.dLister.push(d);
    f.objects.push(d);
    f.expectCreateRSAction();
    f.expectUpdateDeploymentStatusAction(d);
    f.expectUpdateDeploymentStatusAction(d);
    const dc = await f.run(key(d));
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    const hash = computeHash(d.spec!.template, undefined);
    expect(getDeploymentCondition(stored.status, "Progressing")).toMatchObject({
      status: "True",
      reason: "NewReplicaSetCreated",
      message: `Created new replica set "foo-${hash}"`,
    });
    expect(dc.controller.maxRetries).toBe(DEPLOYMENT_MAX_RETRIES);
  });

  it("only updates status while the Deployment is being deleted (TestSyncDeploymentDontDoAnythingDuringDeletion)", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    (d.metadata as WritableObjectMeta).deletionTimestamp = "2026-01-01T00:00:00Z";
    f.dLister.push(d);
    f.objects.push(d);
    f.expectUpdateDeploymentStatusAction(d);
    await f.run(key(d));
  });

  it("rechecks deletion with a live GET before adopting (TestSyncDeploymentDeletionRace)", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = structuredClone(d);
    (d2.metadata as WritableObjectMeta).deletionTimestamp = "2026-01-01T00:00:00Z";
    (d2.metadata as WritableObjectMeta).finalizers = ["test/keep"];
    f.dLister.push(d); // the cache says not deleted
    f.objects.push(d2); // the API says it is
    const orphan = newReplicaSet(d, "rs1", 1);
    delete orphan.metadata!.ownerReferences;
    f.objects.push(orphan);
    f.rsLister.push(orphan);
    f.expectGetDeploymentAction(d);
    const err = await f.runExpectError(key(d));
    expect(String(err)).toMatch(/has just been deleted/);
  });

  it("does nothing for a Deployment selecting all pods (TestDontSyncDeploymentsWithEmptyPodSelector)", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    d.spec!.selector = {};
    f.dLister.push(d);
    f.objects.push(d);
    await f.run(key(d));
    expect(f.recorder.events).toEqual(["Warning SelectingAll This deployment is selecting all pods. A non-empty selector is required."]);
  });

  it("records observedGeneration for a Deployment selecting all pods", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    d.spec!.selector = {};
    (d.metadata as WritableObjectMeta).generation = 2;
    f.dLister.push(d);
    f.objects.push(d);
    f.expectUpdateDeploymentStatusAction(d);
    await f.run(key(d));
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    expect(stored.status?.observedGeneration).toBe(2);
  });

  it("does nothing for a Deployment that is gone", async () => {
    const f = new DeploymentFixture();
    await f.run("default/missing");
  });

  it("rolls back through the deprecated annotation, and nothing else (TestReentrantRollback)", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    d.metadata!.annotations = { [REVISION_ANNOTATION]: "2", [DEPRECATED_ROLLBACK_TO_ANNOTATION]: "0" };
    f.dLister.push(d);
    const rs1 = newReplicaSet(d, "deploymentrs-old", 0);
    rs1.metadata!.annotations = { [REVISION_ANNOTATION]: "1" };
    rs1.spec!.template!.spec!.terminationGracePeriodSeconds = 1;
    rs1.spec!.selector.matchLabels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "hash";
    const rs2 = newReplicaSet(d, "deploymentrs-new", 1);
    rs2.metadata!.annotations = { [REVISION_ANNOTATION]: "2" };
    rs2.spec!.selector.matchLabels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = "hash";
    f.rsLister.push(rs1, rs2);
    f.objects.push(d, rs1, rs2);
    // Rollback is done here; no update of the replica sets though.
    f.expectUpdateDeploymentAction(d);
    await f.run(key(d));
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    expect(stored.spec!.template.spec!.terminationGracePeriodSeconds).toBe(1);
    expect(stored.metadata!.annotations![DEPRECATED_ROLLBACK_TO_ANNOTATION]).toBeUndefined();
    expect(f.recorder.events).toEqual(['Normal DeploymentRollback Rolled back deployment "foo" to revision 1']);
  });

  it("refuses a strategy that cannot be resolved: warning event, clear error, no write", async () => {
    for (const [surge, unavailable, field] of [
      ["5", 0, "spec.strategy.rollingUpdate.maxSurge"],
      [0, "fifty%", "spec.strategy.rollingUpdate.maxUnavailable"],
      ["99999999999%", 0, "spec.strategy.rollingUpdate.maxSurge"],
    ] as const) {
      const f = new DeploymentFixture();
      const d = newDeployment("foo", 100, undefined, surge, unavailable, { foo: "bar" });
      f.dLister.push(d);
      f.objects.push(d);
      const err = await f.runExpectError(key(d));
      expect(err).toBeInstanceOf(InvalidStrategyError);
      expect((err as InvalidStrategyError).field).toBe(field);
      expect((err as Error).message).toContain(`deployment default/foo: invalid rolling update strategy: ${field}: `);
      expect(f.client.actions()).toEqual([]);
      expect(f.recorder.events).toHaveLength(1);
      expect(f.recorder.events[0]).toMatch(new RegExp(`^Warning InvalidStrategy Invalid rolling update strategy: ${field.replaceAll(".", "\\.")}: `));
    }
  });

  it("rejects an unknown strategy type", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    d.spec!.strategy = { type: "Canary" };
    f.dLister.push(d);
    f.objects.push(d);
    const err = await f.runExpectError(key(d));
    expect(String(err)).toContain("unexpected deployment strategy type: Canary");
  });

  it("bumps collisionCount on a hash collision and creates under a new name next time", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    f.dLister.push(d);
    f.objects.push(d);
    const hash = computeHash(d.spec!.template, undefined);
    // Someone else's ReplicaSet already has the name, with another template.
    const other = newDeployment("other", 1, undefined, undefined, undefined, { app: "other" });
    const squatter = newReplicaSet(other, `foo-${hash}`, 1);
    f.objects.push(squatter);
    f.rsLister.push(squatter);
    f.expectCreateRSAction();
    f.expectUpdateDeploymentStatusAction(d);
    const err = await f.runExpectError(key(d));
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).reason).toBe("AlreadyExists");
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    expect(stored.status?.collisionCount).toBe(1);

    // The next sync sees collisionCount 1 and picks another name.
    const g = new DeploymentFixture();
    g.dLister.push(stored);
    g.objects.push(stored);
    g.objects.push(squatter);
    g.rsLister.push(squatter);
    g.expectCreateRSAction();
    g.expectUpdateDeploymentStatusAction(d);
    g.expectUpdateDeploymentStatusAction(d);
    await g.run(key(d));
    const created = g.client.actions().find((a) => a.verb === "create")!.object as unknown as ReplicaSet;
    expect(created.metadata!.name).toBe(`foo-${computeHash(d.spec!.template, 1)}`);
    expect(created.metadata!.name).not.toBe(`foo-${hash}`);
  });

  it("treats AlreadyExists of its own ReplicaSet (slow cache) as found", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    f.dLister.push(d);
    f.objects.push(d);
    const hash = computeHash(d.spec!.template, undefined);
    const mine = newReplicaSet(d, `foo-${hash}`, 1);
    mine.spec!.template!.metadata!.labels![DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY] = hash;
    f.objects.push(mine); // in the API, but not yet in the claimed list
    const { dc } = f.newController();
    dc.rsInformer.indexer.add(structuredClone(mine));
    // Claim sees nothing (not in the list passed), so getNewReplicaSet tries to create.
    const rsList: ReplicaSet[] = [];
    const { getNewReplicaSet } = await import("./sync.js");
    const result = await getNewReplicaSet(
      {
        deployments: (ns) => f.client.resource(builtin.deployments, ns),
        replicaSets: (ns) => f.client.resource(builtin.replicaSets, ns),
        rsLister: (ns) => dc.rsInformer.lister().namespace(ns),
        recorder: f.recorder,
        clock: f.clock,
        logger: silentLogger(),
        result: {},
        written: new Map(),
      },
      structuredClone(d),
      rsList,
      [],
      true,
    );
    expect(result?.metadata?.name).toBe(`foo-${hash}`);
    expect(f.recorder.events).toEqual([]); // no "Scaled up" for a ReplicaSet that already existed
  });

  it("scales proportionally on a scaling event during a rollout", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 10, undefined, 0, 2, { foo: "bar" });
    const oldRS = newReplicaSet(d, "foo-old", 3);
    oldRS.spec!.template!.spec!.containers[0].image = "foo/old";
    oldRS.metadata!.annotations = { [REVISION_ANNOTATION]: "1", [DESIRED_REPLICAS_ANNOTATION]: "5", [MAX_REPLICAS_ANNOTATION]: "5" };
    (oldRS.metadata as WritableObjectMeta).creationTimestamp = "2026-01-01T00:00:00Z";
    const newRS = newReplicaSet(d, "foo-new", 2);
    newRS.metadata!.annotations = { [REVISION_ANNOTATION]: "2", [DESIRED_REPLICAS_ANNOTATION]: "5", [MAX_REPLICAS_ANNOTATION]: "5" };
    (newRS.metadata as WritableObjectMeta).creationTimestamp = "2026-01-01T00:01:00Z";
    d.metadata!.annotations = { [REVISION_ANNOTATION]: "2" };
    f.dLister.push(d);
    f.rsLister.push(oldRS, newRS);
    f.objects.push(d, oldRS, newRS);
    f.expectUpdateRSAction(oldRS);
    f.expectUpdateRSAction(newRS);
    f.expectUpdateDeploymentStatusAction(d);
    await f.run(key(d));
    const sizes = Object.fromEntries(
      f.client.writeActions().filter((a) => a.resource === "replicasets").map((a) => [a.name, (a.object as unknown as ReplicaSet).spec!.replicas]),
    );
    expect(sizes).toEqual({ "foo-old": 6, "foo-new": 4 });
  });

  it("pausing records DeploymentPaused, still scales, and cleans up history", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 4, 0, 1, 0, { foo: "bar" });
    d.spec!.paused = true;
    d.spec!.progressDeadlineSeconds = 600;
    const current = newReplicaSet(d, "foo-cur", 2);
    current.metadata!.annotations = { [REVISION_ANNOTATION]: "2", [DESIRED_REPLICAS_ANNOTATION]: "2", [MAX_REPLICAS_ANNOTATION]: "3" };
    const old = withRSStatus(newReplicaSet(d, "foo-old", 0), { replicas: 0 });
    old.spec!.template!.spec!.containers[0].image = "foo/old";
    old.metadata!.annotations = { [REVISION_ANNOTATION]: "1" };
    f.dLister.push(d);
    f.rsLister.push(current, old);
    f.objects.push(d, current, old);
    f.expectUpdateDeploymentStatusAction(d); // DeploymentPaused
    f.expectUpdateDeploymentStatusAction(d); // revision annotation
    f.expectUpdateRSAction(current); // scaled to 4
    f.expectDeleteRSAction(old); // revisionHistoryLimit 0
    f.expectUpdateDeploymentStatusAction(d);
    await f.run(key(d));
    const stored = f.client.tracker.get(builtin.deployments, "default", "foo") as unknown as Deployment;
    expect(getDeploymentCondition(stored.status, "Progressing")).toMatchObject({ status: "Unknown", reason: "DeploymentPaused", message: "Deployment is paused" });
  });

  it("resuming records DeploymentResumed", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, 1, 0, { foo: "bar" });
    d.spec!.progressDeadlineSeconds = 600;
    (d as { status?: object }).status = { conditions: [{ type: "Progressing", status: "Unknown", reason: "DeploymentPaused", message: "Deployment is paused" }] };
    f.dLister.push(d);
    f.objects.push(d);
    const { dc } = f.newController();
    await dc.syncDeployment(key(d));
    const first = f.client.writeActions()[0];
    expect(first).toMatchObject({ verb: "update", subresource: "status" });
    expect(getDeploymentCondition((first.object as unknown as Deployment).status, "Progressing")).toMatchObject({ status: "Unknown", reason: "DeploymentResumed", message: "Deployment is resumed" });
  });

  it("returns a requeue one second after the progress deadline for a stuck rollout", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, 1, 0, { foo: "bar" });
    d.spec!.progressDeadlineSeconds = 30;
    f.dLister.push(d);
    f.objects.push(d);
    const { dc } = f.newController();
    await dc.syncDeployment(key(d)); // creates the ReplicaSet
    // Feed the caches what the API now holds (informers are not running in fixtures).
    for (const o of f.client.tracker.list(builtin.replicaSets, "default")) dc.rsInformer.indexer.update(o as never);
    dc.deploymentInformer.indexer.update(f.client.tracker.get(builtin.deployments, "default", "foo") as never);
    f.clock.step(10_000);
    const result = await dc.syncDeployment(key(d));
    expect(result).toEqual({ requeueAfterMs: 21_000 });
  });
});

describe("getReplicaSetsForDeployment", () => {
  it("returns only the ReplicaSets a Deployment controls (TestGetReplicaSetsForDeployment)", async () => {
    const f = new DeploymentFixture();
    const d1 = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("bar", 1, undefined, undefined, undefined, { foo: "bar" });
    const rs1 = newReplicaSet(d1, "rs1", 1);
    const rs2 = newReplicaSet(d2, "rs2", 1);
    f.dLister.push(d1, d2);
    f.rsLister.push(rs1, rs2);
    f.objects.push(d1, d2, rs1, rs2);
    const { dc } = f.newController();
    expect((await dc.getReplicaSetsForDeployment(d1)).map((r) => r.metadata!.name)).toEqual(["rs1"]);
    expect((await dc.getReplicaSetsForDeployment(d2)).map((r) => r.metadata!.name)).toEqual(["rs2"]);
    expect(f.client.writeActions()).toEqual([]);
  });

  it("adopts matching orphans and releases owned ones that no longer match (TestGetReplicaSetsForDeploymentAdoptRelease)", async () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    const rsAdopt = newReplicaSet(d, "rsAdopt", 1);
    delete rsAdopt.metadata!.ownerReferences;
    const rsRelease = newReplicaSet(d, "rsRelease", 1);
    rsRelease.metadata!.labels = { foo: "notbar" };
    f.dLister.push(d);
    f.rsLister.push(rsAdopt, rsRelease);
    f.objects.push(d, rsAdopt, rsRelease);
    const { dc } = f.newController();
    expect((await dc.getReplicaSetsForDeployment(d)).map((r) => r.metadata!.name)).toEqual(["rsAdopt"]);
    expect(f.client.actions().map((a) => `${a.verb} ${a.resource} ${a.name}`)).toEqual([
      "get deployments foo",
      "patch replicasets rsAdopt",
      "patch replicasets rsRelease",
    ]);
    const adopted = f.client.tracker.get(builtin.replicaSets, "default", "rsAdopt") as unknown as ReplicaSet;
    expect(adopted.metadata!.ownerReferences).toEqual([newControllerRef(d, DEPLOYMENT_GVK)]);
    const released = f.client.tracker.get(builtin.replicaSets, "default", "rsRelease") as unknown as ReplicaSet;
    expect(released.metadata!.ownerReferences ?? []).toEqual([]);
  });
});

describe("getPodMapForDeployment (TestGetPodMapForReplicaSets)", () => {
  it("groups the Deployment's pods by controlling ReplicaSet, inactive ones included", () => {
    const f = new DeploymentFixture();
    const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
    const rs1 = newReplicaSet(d, "rs1", 1);
    const rs2 = newReplicaSet(d, "rs2", 1);
    const pod1 = generatePodFromRS(rs1);
    const pod2 = generatePodFromRS(rs2);
    const pod3 = { ...generatePodFromRS(rs1), metadata: { ...generatePodFromRS(rs1).metadata, name: "pod3", ownerReferences: undefined } };
    const pod4 = { ...generatePodFromRS(rs1), metadata: { ...generatePodFromRS(rs1).metadata, name: "pod4" }, status: { phase: "Failed" } };
    const pod5 = { ...generatePodFromRS(rs1), metadata: { ...generatePodFromRS(rs1).metadata, name: "pod5", labels: { foo: "other" } } };
    f.dLister.push(d);
    f.rsLister.push(rs1, rs2);
    f.podLister.push(pod1, pod2, pod3, pod4, pod5);
    const { dc } = f.newController();
    const podMap = dc.getPodMapForDeployment(d, [rs1, rs2]);
    expect(podMap.size).toBe(2);
    expect(podMap.get(rs1.metadata!.uid!)!.map((p) => p.metadata!.name).sort()).toEqual(["pod4", "rs1-pod"]);
    expect(podMap.get(rs2.metadata!.uid!)!.map((p) => p.metadata!.name)).toEqual(["rs2-pod"]);
  });
});

describe("event handlers", () => {
  function setup(deployments: Deployment[], replicaSets: ReplicaSet[] = []) {
    const f = new DeploymentFixture();
    f.dLister.push(...deployments);
    f.rsLister.push(...replicaSets);
    const { dc } = f.newController();
    return dc;
  }
  async function keys(dc: ReturnType<typeof setup>): Promise<string[]> {
    const out: string[] = [];
    while (dc.queue.len() > 0) {
      const r = await dc.queue.get();
      if (r.shutdown) break;
      out.push(r.item.toString());
      dc.queue.done(r.item);
    }
    return out;
  }

  it("addReplicaSet enqueues the controlling Deployment (TestAddReplicaSet)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const rs1 = newReplicaSet(d1, "rs1", 1);
    const rs2 = newReplicaSet(d2, "rs2", 1);
    const dc = setup([d1, d2]);
    dc.addReplicaSet(rs1);
    expect(await keys(dc)).toEqual(["default/d1"]);
    dc.addReplicaSet(rs2);
    expect(await keys(dc)).toEqual(["default/d2"]);
  });

  it("addReplicaSet of an orphan enqueues every matching Deployment (TestAddReplicaSetOrphan)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const d3 = newDeployment("d3", 1, undefined, undefined, undefined, { foo: "notbar" });
    const r = newReplicaSet(d1, "rs1", 1);
    delete r.metadata!.ownerReferences;
    const dc = setup([d1, d2, d3]);
    dc.addReplicaSet(r);
    expect((await keys(dc)).sort()).toEqual(["default/d1", "default/d2"]);
  });

  it("addReplicaSet of a ReplicaSet being deleted counts as a deletion", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const owned = newReplicaSet(d1, "rs1", 1);
    (owned.metadata as WritableObjectMeta).deletionTimestamp = "2026-01-01T00:00:00Z";
    const orphan = structuredClone(owned);
    delete orphan.metadata!.ownerReferences;
    const dc = setup([d1, d2]);
    dc.addReplicaSet(owned);
    expect(await keys(dc)).toEqual(["default/d1"]);
    dc.addReplicaSet(orphan);
    expect(await keys(dc)).toEqual([]);
  });

  it("a controller reference with a stale UID resolves to nothing", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const r = newReplicaSet(d1, "rs1", 1);
    r.metadata!.ownerReferences![0].uid = "someone-else";
    const dc = setup([d1]);
    dc.addReplicaSet(r);
    expect(await keys(dc)).toEqual([]);
  });

  it("updateReplicaSet enqueues the controlling Deployment; resyncs are ignored (TestUpdateReplicaSet)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const rs1 = newReplicaSet(d1, "rs1", 1);
    const rs2 = newReplicaSet(d2, "rs2", 1);
    const dc = setup([d1, d2], [rs1, rs2]);
    dc.updateReplicaSet(rs1, bumpResourceVersion(rs1));
    expect(await keys(dc)).toEqual(["default/d1"]);
    dc.updateReplicaSet(rs2, bumpResourceVersion(rs2));
    expect(await keys(dc)).toEqual(["default/d2"]);
    dc.updateReplicaSet(rs2, rs2);
    expect(await keys(dc)).toEqual([]);
  });

  it("updateReplicaSet of an orphan with new labels enqueues every matching Deployment (TestUpdateReplicaSetOrphanWithNewLabels)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const r = newReplicaSet(d1, "rs1", 1);
    delete r.metadata!.ownerReferences;
    const dc = setup([d1, d2], [r]);
    const prev = structuredClone(r);
    prev.metadata!.labels = { foo: "notbar" };
    dc.updateReplicaSet(prev, bumpResourceVersion(r));
    expect((await keys(dc)).sort()).toEqual(["default/d1", "default/d2"]);
    // Same labels, still an orphan: nobody is woken.
    dc.updateReplicaSet(r, bumpResourceVersion(r));
    expect(await keys(dc)).toEqual([]);
  });

  it("updateReplicaSet with a changed controller reference enqueues old and new owners (TestUpdateReplicaSetChangeControllerRef)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const r = newReplicaSet(d1, "rs1", 1);
    const dc = setup([d1, d2], [r]);
    const prev = structuredClone(r);
    prev.metadata!.ownerReferences = [newControllerRef(d2, DEPLOYMENT_GVK)];
    dc.updateReplicaSet(prev, bumpResourceVersion(r));
    expect((await keys(dc)).sort()).toEqual(["default/d1", "default/d2"]);
  });

  it("updateReplicaSet that removes the controller reference wakes every matching Deployment (TestUpdateReplicaSetRelease)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const r = newReplicaSet(d1, "rs1", 1);
    const dc = setup([d1, d2], [r]);
    const next = bumpResourceVersion(r);
    delete next.metadata!.ownerReferences;
    dc.updateReplicaSet(r, next);
    expect((await keys(dc)).sort()).toEqual(["default/d1", "default/d2"]);
  });

  it("deleteReplicaSet enqueues the controlling Deployment, tombstones included (TestDeleteReplicaSet)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const rs1 = newReplicaSet(d1, "rs1", 1);
    const rs2 = newReplicaSet(d2, "rs2", 1);
    const dc = setup([d1, d2], [rs1, rs2]);
    dc.deleteReplicaSet(rs1);
    expect(await keys(dc)).toEqual(["default/d1"]);
    dc.deleteReplicaSet(new DeletedFinalStateUnknown("default/rs2", rs2));
    expect(await keys(dc)).toEqual(["default/d2"]);
    dc.deleteReplicaSet(new DeletedFinalStateUnknown<ReplicaSet>("default/rs3", undefined));
    expect(await keys(dc)).toEqual([]);
  });

  it("deleteReplicaSet of an orphan wakes nobody (TestDeleteReplicaSetOrphan)", async () => {
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    const d2 = newDeployment("d2", 1, undefined, undefined, undefined, { foo: "bar" });
    const r = newReplicaSet(d1, "rs1", 1);
    delete r.metadata!.ownerReferences;
    const dc = setup([d1, d2], [r]);
    dc.deleteReplicaSet(r);
    expect(await keys(dc)).toEqual([]);
  });

  it("Deployment add, update and delete (tombstone too) enqueue it (for(deployments))", async () => {
    const f = new DeploymentFixture();
    const d1 = newDeployment("d1", 1, undefined, undefined, undefined, { foo: "bar" });
    f.objects.push(d1);
    const { dc } = f.newController();
    const reconciled: string[] = [];
    // Count the reconciles through the status writes the sync makes on the running controller.
    await f.f.start();
    await f.f.settle();
    for (const a of f.client.actions()) if (a.verb === "update" && a.resource === "deployments") reconciled.push(a.name ?? "");
    expect(reconciled.length).toBeGreaterThan(0);
    expect(dc.queue.len()).toBe(0);
    await f.f.stop();
  });

  describe("pod deletion", () => {
    function recreateSetup(opts: { podInCache: boolean; partial: boolean; strategy?: string }) {
      const f = new DeploymentFixture();
      const foo = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
      foo.spec!.strategy = { type: opts.strategy ?? "Recreate" };
      const rs1 = newReplicaSet(foo, "foo-1", 1);
      const pod = generatePodFromRS(rs1);
      f.dLister.push(foo);
      f.rsLister.push(rs1);
      if (opts.partial) {
        const rs2 = newReplicaSet(foo, "foo-2", 1);
        delete rs2.metadata!.ownerReferences;
        f.rsLister.push(rs2);
      }
      if (opts.podInCache) f.podLister.push(pod);
      const { dc } = f.newController();
      const enqueued: string[] = [];
      dc.enqueueDeployment = (d) => enqueued.push(d.metadata!.name!);
      dc.deletePod(pod);
      return enqueued;
    }
    it("enqueues a Recreate Deployment once no pod remains (TestPodDeletionEnqueuesRecreateDeployment)", () => {
      expect(recreateSetup({ podInCache: false, partial: false })).toEqual(["foo"]);
    });
    it("does not while pods remain (TestPodDeletionDoesntEnqueueRecreateDeployment)", () => {
      expect(recreateSetup({ podInCache: true, partial: false })).toEqual([]);
    });
    it("ignores ReplicaSets it does not own (TestPodDeletionPartialReplicaSetOwnershipEnqueueRecreateDeployment)", () => {
      expect(recreateSetup({ podInCache: false, partial: true })).toEqual(["foo"]);
    });
    it("(TestPodDeletionPartialReplicaSetOwnershipDoesntEnqueueRecreateDeployment)", () => {
      expect(recreateSetup({ podInCache: true, partial: true })).toEqual([]);
    });
    it("ignores RollingUpdate Deployments", () => {
      expect(recreateSetup({ podInCache: false, partial: false, strategy: "RollingUpdate" })).toEqual([]);
    });
  });
});
