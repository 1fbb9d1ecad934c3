/** recreate_test.go restated, plus a Recreate rollout step by step. */
import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { newDeployment, newReplicaSet, newRSWithStatus, newSyncContext, updatedReplicaSets } from "./fixture.js";
import { oldPodsRunning, replicasOf } from "./index.js";
import { rolloutRecreate, scaleDownOldReplicaSetsForRecreate, type PodMap } from "./recreate.js";

describe("scaleDownOldReplicaSetsForRecreate (TestScaleDownOldReplicaSets)", () => {
  it("scales every old ReplicaSet to zero", async () => {
    const d = newDeployment("foo", 3, undefined, undefined, undefined, { foo: "bar" });
    const oldRSs = [newReplicaSet(d, "foo-0", 3), newReplicaSet(d, "foo-1", 0), newReplicaSet(d, "foo-2", 2)];
    const { ctx, client } = newSyncContext(oldRSs);
    const list = [...oldRSs];
    expect(await scaleDownOldReplicaSetsForRecreate(ctx, list, d)).toBe(true);
    for (const r of list) expect(replicasOf(r)).toBe(0);
    expect(updatedReplicaSets(client).map((r) => r.metadata!.name)).toEqual(["foo-0", "foo-2"]);
    expect(await scaleDownOldReplicaSetsForRecreate(ctx, list, d)).toBe(false);
  });
});

describe("oldPodsRunning (TestOldPodsRunning)", () => {
  const d = newDeployment("foo", 1, undefined, undefined, undefined, { foo: "bar" });
  const rsWithUID = (uid: string): ReplicaSet => {
    const r = newReplicaSet(d, `foo-${uid}`, 0);
    (r.metadata as { uid?: string }).uid = uid;
    return r;
  };
  const pod = (phase?: string): Pod => ({ metadata: { name: "p" }, status: phase ? { phase } : {} });
  const podMapWithUIDs = (uids: string[]): PodMap => new Map(uids.map((u) => [u, [pod(), pod()]]));
  it.each([
    ["no old RSs", undefined, [], undefined, false],
    ["old RSs with running pods", undefined, [rsWithUID("some-uid"), rsWithUID("other-uid")], podMapWithUIDs(["some-uid", "other-uid"]), true],
    ["old RSs without pods but with non-zero status replicas", undefined, [newRSWithStatus("rs-1", 0, 1)], undefined, true],
    ["old RSs without pods or non-zero status replicas", undefined, [newRSWithStatus("rs-1", 0, 0)], undefined, false],
    ["old RSs with zero status replicas but pods in terminal state are present", undefined, [newRSWithStatus("rs-1", 0, 0)], new Map([["uid-1", [pod("Failed"), pod("Succeeded")]]]), false],
    ["old RSs with zero status replicas but pod in unknown phase present", undefined, [newRSWithStatus("rs-1", 0, 0)], new Map([["uid-1", [pod("Unknown")]]]), true],
    ["old RSs with zero status replicas with pending pod present", undefined, [newRSWithStatus("rs-1", 0, 0)], new Map([["uid-1", [pod("Pending")]]]), true],
    ["old RSs with zero status replicas with running pod present", undefined, [newRSWithStatus("rs-1", 0, 0)], new Map([["uid-1", [pod("Running")]]]), true],
    [
      "old RSs with zero status replicas but pods in terminal state and pending are present",
      undefined,
      [newRSWithStatus("rs-1", 0, 0)],
      new Map([
        ["uid-1", [pod("Failed"), pod("Succeeded")]],
        ["uid-2", []],
        ["uid-3", [pod("Pending")]],
      ]),
      true,
    ],
    ["pods of the new ReplicaSet do not count", rsWithUID("new-uid"), [], new Map([["new-uid", [pod("Running")]]]), false],
  ] as Array<[string, ReplicaSet | undefined, ReplicaSet[], PodMap | undefined, boolean]>)("%s", (_n, newRS, oldRSs, podMap, expected) => {
    expect(oldPodsRunning(newRS, oldRSs, podMap)).toBe(expected);
  });
});

describe("rolloutRecreate", () => {
  it("scales old down first, waits for old pods, then creates the new ReplicaSet at full size", async () => {
    const d = newDeployment("foo", 3, undefined, undefined, undefined, { foo: "bar" });
    d.spec!.strategy = { type: "Recreate" };
    const old = newReplicaSet(d, "foo-old", 3);
    old.spec!.template!.spec!.containers[0].image = "foo/old";
    const { ctx, client, recorder } = newSyncContext([d, old]);

    // Step 1: the old ReplicaSet is scaled to zero; nothing is created.
    await rolloutRecreate(ctx, structuredClone(d), [old], new Map());
    expect(client.writeActions().map((a) => `${a.verb} ${a.resource}${a.subresource ? "/" + a.subresource : ""}`)).toEqual([
      "update replicasets",
      "update deployments/status",
    ]);
    expect(recorder.events).toEqual(["Normal ScalingReplicaSet Scaled down replica set foo-old to 0 from 3"]);

    // Step 2: the old ReplicaSet is at zero but a pod still runs: wait.
    client.clearActions();
    const scaledDown = { ...old, spec: { ...old.spec!, replicas: 0 } };
    const runningPod: Pod = { metadata: { name: "p", namespace: "default" }, status: { phase: "Running" } };
    await rolloutRecreate(ctx, structuredClone(d), [scaledDown], new Map([[old.metadata!.uid!, [runningPod]]]));
    expect(client.writeActions().filter((a) => a.resource === "replicasets")).toEqual([]);

    // Step 3: no old pod: the new ReplicaSet is created with all replicas.
    client.clearActions();
    await rolloutRecreate(ctx, structuredClone(d), [scaledDown], new Map([[old.metadata!.uid!, []]]));
    const created = client.writeActions().filter((a) => a.verb === "create");
    expect(created).toHaveLength(1);
    expect((created[0].object as ReplicaSet).spec!.replicas).toBe(3);
  });
});
