/** progress_test.go restated: the Progressing condition and the progress-deadline requeue. */
import type { Deployment, DeploymentCondition, DeploymentStatus, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { describe, expect, it } from "vitest";
import { newSyncContext, rs, withRSStatus } from "./fixture.js";
import { getDeploymentCondition, NEW_RS_AVAILABLE_REASON, REPLICA_SET_UPDATED_REASON, TIMED_OUT_REASON } from "./index.js";
import { getReplicaFailures, requeueStuckDeployment, syncRolloutStatus } from "./progress.js";

function newDeploymentStatus(replicas: number, updatedReplicas: number, availableReplicas: number): DeploymentStatus {
  return { replicas, updatedReplicas, availableReplicas };
}

/** upstream's currentDeployment: a Recreate Deployment whose status is observed. */
function currentDeployment(
  pds: number | undefined,
  replicas: number,
  statusReplicas: number,
  updatedReplicas: number,
  availableReplicas: number,
  conditions: DeploymentCondition[] | undefined,
): Deployment {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "progress-test", namespace: "default", uid: "progress-test-uid" },
    spec: { progressDeadlineSeconds: pds, replicas, strategy: { type: "Recreate" }, selector: { matchLabels: { a: "b" } }, template: {} },
    status: { ...newDeploymentStatus(statusReplicas, updatedReplicas, availableReplicas), conditions },
  };
}

function newRSWithAvailable(name: string, specReplicas: number, statusReplicas: number, availableReplicas: number): ReplicaSet {
  return withRSStatus(rs(name, specReplicas, undefined), { replicas: statusReplicas, availableReplicas });
}

describe("requeueStuckDeployment (TestRequeueStuckDeployment)", () => {
  const pds = 60;
  const failed: DeploymentCondition[] = [{ type: "Progressing", status: "False", reason: TIMED_OUT_REASON }];
  const stuck: DeploymentCondition[] = [{ type: "Progressing", status: "True", lastUpdateTime: "2017-02-15T18:49:00Z" }];
  const t = (h: number, m: number, s: number, ms = 0) => Date.UTC(2017, 1, 15, h, m, s, ms);
  it.each([
    ["no progressDeadlineSeconds specified", currentDeployment(undefined, 4, 3, 3, 2, undefined), newDeploymentStatus(3, 3, 2), undefined, -1],
    ["no progressing condition found", currentDeployment(pds, 4, 3, 3, 2, undefined), newDeploymentStatus(3, 3, 2), undefined, -1],
    ["complete deployment does not need to be requeued", currentDeployment(pds, 3, 3, 3, 3, undefined), newDeploymentStatus(3, 3, 3), undefined, -1],
    ["already failed deployment does not need to be requeued", currentDeployment(pds, 3, 3, 3, 0, failed), newDeploymentStatus(3, 3, 0), undefined, -1],
    ["stuck deployment - 30s", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 49, 30), 30_000],
    ["stuck deployment - 1s", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 49, 59), 1_000],
    // Less than a second left: a rate-limited requeue now.
    ["stuck deployment - 999ms", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 49, 59, 1), 0],
    ["stuck deployment - 1ms", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 49, 59, 999), 0],
    ["failed deployment - now", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 50, 0), 0],
    ["failed deployment - 1s after deadline", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 50, 1), 0],
    ["failed deployment - 60s after deadline", currentDeployment(pds, 3, 3, 3, 1, stuck), newDeploymentStatus(3, 3, 1), t(18, 51, 0), 0],
  ] as Array<[string, Deployment, DeploymentStatus, number | undefined, number]>)("%s", (_n, d, status, now, expected) => {
    const { ctx, clock } = newSyncContext();
    if (now !== undefined) clock.setTime(now);
    expect(requeueStuckDeployment(ctx, d, status)).toBe(expected);
    // Requeued a second after the deadline.
    if (expected > 0) expect(ctx.result).toEqual({ requeueAfterMs: expected + 1_000 });
    else if (expected === 0) expect(ctx.result).toEqual({ requeue: true });
    else expect(ctx.result).toEqual({});
  });
});

describe("syncRolloutStatus (TestSyncRolloutStatus)", () => {
  const pds = 60;
  const testTime = "2017-02-15T18:49:00Z";
  const failedTimedOut: DeploymentCondition = { type: "Progressing", status: "False", reason: TIMED_OUT_REASON };
  const newRSAvailable: DeploymentCondition = { type: "Progressing", status: "True", reason: NEW_RS_AVAILABLE_REASON, lastUpdateTime: testTime, lastTransitionTime: testTime };
  const replicaSetUpdated: DeploymentCondition = { type: "Progressing", status: "True", reason: REPLICA_SET_UPDATED_REASON, lastUpdateTime: testTime, lastTransitionTime: testTime };

  interface Case {
    name: string;
    d: Deployment;
    allRSs: ReplicaSet[];
    newRS?: ReplicaSet;
    conditionType?: string;
    conditionStatus?: string;
    conditionReason?: string;
    lastUpdate?: string;
    lastTransition?: string;
  }
  const cases: Case[] = [
    {
      name: "General: remove Progressing condition and do not estimate progress if deployment has no Progress Deadline",
      d: currentDeployment(undefined, 3, 2, 2, 2, [replicaSetUpdated]),
      allRSs: [newRSWithAvailable("bar", 0, 1, 1)],
      newRS: newRSWithAvailable("foo", 3, 2, 2),
      conditionType: "Progressing",
    },
    {
      name: "General: do not estimate progress of deployment with only one active ReplicaSet",
      d: currentDeployment(pds, 3, 3, 3, 3, [newRSAvailable]),
      allRSs: [newRSWithAvailable("bar", 3, 3, 3)],
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: NEW_RS_AVAILABLE_REASON,
      lastUpdate: testTime,
      lastTransition: testTime,
    },
    {
      name: "DeploymentProgressing: dont update lastTransitionTime if deployment already has Progressing=True",
      d: currentDeployment(pds, 3, 2, 2, 2, [replicaSetUpdated]),
      allRSs: [newRSWithAvailable("bar", 0, 1, 1)],
      newRS: newRSWithAvailable("foo", 3, 2, 2),
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: REPLICA_SET_UPDATED_REASON,
      lastTransition: testTime,
    },
    {
      name: "DeploymentProgressing: update everything if deployment has Progressing=False",
      d: currentDeployment(pds, 3, 2, 2, 2, [failedTimedOut]),
      allRSs: [newRSWithAvailable("bar", 0, 1, 1)],
      newRS: newRSWithAvailable("foo", 3, 2, 2),
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: REPLICA_SET_UPDATED_REASON,
    },
    {
      name: "DeploymentProgressing: create Progressing condition if it does not exist",
      d: currentDeployment(pds, 3, 2, 2, 2, []),
      allRSs: [newRSWithAvailable("bar", 0, 1, 1)],
      newRS: newRSWithAvailable("foo", 3, 2, 2),
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: REPLICA_SET_UPDATED_REASON,
    },
    {
      name: "DeploymentComplete: dont update lastTransitionTime if deployment already has Progressing=True",
      d: currentDeployment(pds, 3, 3, 3, 3, [replicaSetUpdated]),
      allRSs: [],
      newRS: newRSWithAvailable("foo", 3, 3, 3),
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: NEW_RS_AVAILABLE_REASON,
      lastTransition: testTime,
    },
    {
      name: "DeploymentComplete: update everything if deployment has Progressing=False",
      d: currentDeployment(pds, 3, 3, 3, 3, [failedTimedOut]),
      allRSs: [],
      newRS: newRSWithAvailable("foo", 3, 3, 3),
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: NEW_RS_AVAILABLE_REASON,
    },
    {
      name: "DeploymentComplete: create Progressing condition if it does not exist",
      d: currentDeployment(pds, 3, 3, 3, 3, []),
      allRSs: [],
      newRS: newRSWithAvailable("foo", 3, 3, 3),
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: NEW_RS_AVAILABLE_REASON,
    },
    {
      name: "DeploymentComplete: defend against NPE when newRS=nil",
      d: currentDeployment(pds, 0, 3, 3, 3, [replicaSetUpdated]),
      allRSs: [newRSWithAvailable("foo", 0, 0, 0)],
      conditionType: "Progressing",
      conditionStatus: "True",
      conditionReason: NEW_RS_AVAILABLE_REASON,
    },
    {
      name: "DeploymentTimedOut: update status if rollout exceeds Progress Deadline",
      d: currentDeployment(pds, 3, 2, 2, 2, [replicaSetUpdated]),
      allRSs: [],
      newRS: newRSWithAvailable("foo", 3, 2, 2),
      conditionType: "Progressing",
      conditionStatus: "False",
      conditionReason: TIMED_OUT_REASON,
    },
    {
      name: "DeploymentTimedOut: do not update status if deployment has existing timedOut condition",
      d: currentDeployment(pds, 3, 2, 2, 2, [{ ...failedTimedOut, lastUpdateTime: testTime, lastTransitionTime: testTime }]),
      allRSs: [],
      newRS: newRSWithAvailable("foo", 3, 2, 2),
      conditionType: "Progressing",
      conditionStatus: "False",
      conditionReason: TIMED_OUT_REASON,
      lastUpdate: testTime,
      lastTransition: testTime,
    },
  ];

  it.each(cases)("$name", async (test) => {
    const { ctx } = newSyncContext([test.d]);
    const allRSs = test.newRS ? [...test.allRSs, test.newRS] : test.allRSs;
    await syncRolloutStatus(ctx, allRSs, test.newRS, test.d);
    const cond = getDeploymentCondition(test.d.status, test.conditionType ?? "Progressing");
    if (test.conditionStatus === undefined) {
      expect(cond).toBeUndefined();
      return;
    }
    expect(cond).toMatchObject({ status: test.conditionStatus, reason: test.conditionReason });
    if (test.lastUpdate) expect(cond!.lastUpdateTime).toBe(test.lastUpdate);
    if (test.lastTransition) expect(cond!.lastTransitionTime).toBe(test.lastTransition);
  });

  it("writes nothing when nothing changed, and asks for a requeue a second after the deadline instead", async () => {
    const { ctx, client, clock } = newSyncContext();
    const since = new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z");
    const d = currentDeployment(pds, 3, 3, 3, 0, [{ ...replicaSetUpdated, lastUpdateTime: since, lastTransitionTime: since }]);
    client.seed({ group: "apps", version: "v1", resource: "deployments", kind: "Deployment", namespaced: true }, structuredClone(d) as never);
    const newRS = newRSWithAvailable("foo", 3, 3, 0);
    await syncRolloutStatus(ctx, [newRS], newRS, d); // first pass records Available=False
    expect(client.writeActions()).toHaveLength(1);
    client.clearActions();
    clock.step(10_000);
    ctx.result = {};
    await syncRolloutStatus(ctx, [newRS], newRS, d);
    expect(client.writeActions()).toEqual([]);
    expect(ctx.result).toEqual({ requeueAfterMs: 51_000 });
    // At the deadline itself the rollout has not timed out yet (strictly after only)…
    clock.step(50_000);
    ctx.result = {};
    await syncRolloutStatus(ctx, [newRS], newRS, d);
    expect(client.writeActions()).toEqual([]);
    expect(getDeploymentCondition(d.status, "Progressing")).toMatchObject({ status: "True", reason: REPLICA_SET_UPDATED_REASON });
    expect(ctx.result).toEqual({ requeue: true });
    // …at the requeue one second later it has.
    clock.step(1_000);
    ctx.result = {};
    await syncRolloutStatus(ctx, [newRS], newRS, d);
    expect(getDeploymentCondition(d.status, "Progressing")).toMatchObject({ status: "False", reason: TIMED_OUT_REASON, message: 'ReplicaSet "foo" has timed out progressing.' });
  });
});

describe("getReplicaFailures", () => {
  const failure = (msg: string) => ({ type: "ReplicaFailure", status: "True", reason: "FailedCreate", message: msg, lastTransitionTime: "2026-01-01T00:00:00Z" });
  it("prefers the new ReplicaSet's failures, then any ReplicaSet's", () => {
    const oldRS = withRSStatus(rs("old", 1, undefined), { conditions: [failure("old")] });
    const newRS = withRSStatus(rs("new", 1, undefined), { conditions: [failure("new")] });
    expect(getReplicaFailures([oldRS, newRS], newRS).map((c) => c.message)).toEqual(["new"]);
    const healthyNew = rs("new", 1, undefined);
    expect(getReplicaFailures([oldRS, healthyNew], healthyNew)).toEqual([
      { type: "ReplicaFailure", status: "True", reason: "FailedCreate", message: "old", lastTransitionTime: "2026-01-01T00:00:00Z", lastUpdateTime: "2026-01-01T00:00:00Z" },
    ]);
  });
  it("surfaces in the Deployment status and goes away with the failure", async () => {
    const d = currentDeployment(undefined, 1, 0, 0, 0, undefined);
    const broken = withRSStatus(rs("foo", 1, undefined), { conditions: [failure("pods \"x\" is forbidden: exceeded quota")] });
    const { ctx } = newSyncContext([d]);
    await syncRolloutStatus(ctx, [broken], broken, d);
    expect(getDeploymentCondition(d.status, "ReplicaFailure")).toMatchObject({ status: "True", reason: "FailedCreate" });
    const fixed = rs("foo", 1, undefined);
    await syncRolloutStatus(ctx, [fixed], fixed, d);
    expect(getDeploymentCondition(d.status, "ReplicaFailure")).toBeUndefined();
  });
});
