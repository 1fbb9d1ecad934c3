/** rolling_test.go restated: the scale-up and scale-down steps of a rolling update. */
import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { describe, expect, it } from "vitest";
import type { IntOrString } from "../../apimachinery/types.js";
import { newDeployment, newSyncContext, rs, updatedReplicaSets, withRSStatus } from "./fixture.js";
import { DESIRED_REPLICAS_ANNOTATION, replicasOf } from "./index.js";
import { cleanupUnhealthyReplicas, reconcileNewReplicaSet, reconcileOldReplicaSets, scaleDownOldReplicaSetsForRollingUpdate } from "./rolling.js";

describe("reconcileNewReplicaSet (TestDeploymentController_reconcileNewReplicaSet)", () => {
  it.each([
    ["should not scale up", 10, 0, 10, 0, false, 0],
    ["surge 2 over a full old RS", 10, 2, 10, 0, true, 2],
    ["surge 2 with half the old RS gone", 10, 2, 5, 0, true, 7],
    ["already at the surge limit", 10, 2, 10, 2, false, 0],
    ["should scale down", 10, 2, 2, 11, true, 10],
  ] as Array<[string, number, IntOrString, number, number, boolean, number]>)(
    "%s",
    async (_n, deploymentReplicas, surge, oldReplicas, newReplicas, scaleExpected, expectedNewReplicas) => {
      const newRS = rs("foo-v2", newReplicas, undefined);
      const oldRS = rs("foo-v1", oldReplicas, undefined);
      const d = newDeployment("foo", deploymentReplicas, undefined, surge, 0);
      const { ctx, client } = newSyncContext([newRS, oldRS]);
      const scaled = await reconcileNewReplicaSet(ctx, [newRS, oldRS], newRS, d);
      expect(scaled).toBe(scaleExpected);
      if (!scaleExpected) {
        expect(client.actions()).toEqual([]);
        return;
      }
      const updates = updatedReplicaSets(client);
      expect(updates).toHaveLength(1);
      expect(replicasOf(updates[0])).toBe(expectedNewReplicas);
    },
  );
});

describe("reconcileOldReplicaSets (TestDeploymentController_reconcileOldReplicaSets)", () => {
  it.each([
    ["maxUnavailable 0 still allows one (fencepost)", 10, 0, 10, 0, 10, 0, true, 9],
    ["maxUnavailable 2", 10, 2, 10, 0, 10, 0, true, 8],
    ["unhealthy replicas of old replica sets are cleaned up", 10, 2, 10, 0, 8, 0, true, 8],
    ["1 unhealthy replica cleaned up and 1 ready pod scaled down", 10, 2, 10, 0, 9, 0, true, 8],
    ["unavailable pods of the new RS stop further scale down", 10, 2, 8, 2, 8, 0, false, 8],
  ] as Array<[string, number, IntOrString, number, number, number, number, boolean, number]>)(
    "%s",
    async (_n, deploymentReplicas, mu, oldReplicas, newReplicas, readyOld, readyNew, scaleExpected, expectedOld) => {
      const newSelector = { foo: "new" };
      const oldSelector = { foo: "old" };
      const annotations = { [DESIRED_REPLICAS_ANNOTATION]: String(deploymentReplicas) };
      const newRS = withRSStatus(rs("foo-new", newReplicas, newSelector), { availableReplicas: readyNew });
      newRS.metadata!.annotations = { ...annotations };
      const oldRS = withRSStatus(rs("foo-old", oldReplicas, oldSelector), { availableReplicas: readyOld });
      oldRS.metadata!.annotations = { ...annotations };
      const d = newDeployment("foo", deploymentReplicas, undefined, 0, mu, newSelector);
      const { ctx, client } = newSyncContext([newRS, oldRS]);
      const scaled = await reconcileOldReplicaSets(ctx, [oldRS, newRS], [oldRS], newRS, d);
      expect(scaled).toBe(scaleExpected);
      const updates = updatedReplicaSets(client).filter((r) => r.metadata!.name === "foo-old");
      const finalOld = updates.length > 0 ? replicasOf(updates[updates.length - 1]) : oldReplicas;
      expect(finalOld).toBe(expectedOld);
      // The new ReplicaSet is never touched here.
      expect(updatedReplicaSets(client).some((r) => r.metadata!.name === "foo-new")).toBe(false);
    },
  );
});

describe("cleanupUnhealthyReplicas (TestDeploymentController_cleanupUnhealthyReplicas)", () => {
  it.each([
    [10, 8, 1, 1],
    [10, 8, 3, 2],
    [10, 8, 0, 0],
    [10, 10, 3, 0],
  ])("old %d, ready %d, max cleanup %d → %d cleaned", async (oldReplicas, readyPods, maxCleanupCount, expected) => {
    const oldRS = withRSStatus(rs("foo-v2", oldReplicas, undefined), { availableReplicas: readyPods });
    const d = newDeployment("foo", 10, undefined, 2, 2);
    const { ctx, client } = newSyncContext([oldRS]);
    const [updated, cleaned] = await cleanupUnhealthyReplicas(ctx, [oldRS], d, maxCleanupCount);
    expect(cleaned).toBe(expected);
    expect(replicasOf(updated[0])).toBe(oldReplicas - expected);
    expect(updatedReplicaSets(client)).toHaveLength(expected > 0 ? 1 : 0);
  });

  it("cleans the oldest ReplicaSets first", async () => {
    const a = withRSStatus(rs("a", 3, undefined, "2026-01-01T00:00:02Z"), { availableReplicas: 1 });
    const b = withRSStatus(rs("b", 3, undefined, "2026-01-01T00:00:01Z"), { availableReplicas: 1 });
    const { ctx, client } = newSyncContext([a, b]);
    const [, cleaned] = await cleanupUnhealthyReplicas(ctx, [a, b], newDeployment("foo", 10, undefined, 2, 2), 3);
    expect(cleaned).toBe(3);
    expect(updatedReplicaSets(client).map((r) => [r.metadata!.name, replicasOf(r)])).toEqual([
      ["b", 1],
      ["a", 2],
    ]);
  });
});

describe("scaleDownOldReplicaSetsForRollingUpdate (TestDeploymentController_scaleDownOldReplicaSetsForRollingUpdate)", () => {
  it.each([
    [10, 0, 10, 10, true, 9],
    [10, 2, 10, 10, true, 8],
    [10, 2, 8, 10, false, 0],
    [10, 2, 10, 0, false, 0],
    [10, 2, 1, 10, false, 0],
  ] as Array<[number, IntOrString, number, number, boolean, number]>)(
    "replicas %d, maxUnavailable %s, ready %d, old %d",
    async (deploymentReplicas, mu, readyPods, oldReplicas, scaleExpected, expectedOld) => {
      const oldRS: ReplicaSet = withRSStatus(rs("foo-v2", oldReplicas, undefined), { availableReplicas: readyPods });
      const d = newDeployment("foo", deploymentReplicas, undefined, 0, mu, { foo: "bar" });
      const { ctx, client } = newSyncContext([oldRS]);
      const scaled = await scaleDownOldReplicaSetsForRollingUpdate(ctx, [oldRS], [oldRS], d);
      if (!scaleExpected) {
        expect(scaled).toBe(0);
        return;
      }
      expect(scaled).toBeGreaterThan(0);
      const updates = updatedReplicaSets(client);
      expect(updates).toHaveLength(1);
      expect(replicasOf(updates[0])).toBe(expectedOld);
    },
  );
});
