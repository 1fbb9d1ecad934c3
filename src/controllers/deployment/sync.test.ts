/** sync_test.go restated: proportional scaling (TestScale) and history cleanup. */
import type { Deployment, ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import { describe, expect, it } from "vitest";
import type { WritableObjectMeta } from "../../apimachinery/types.js";
import { newDeployment, newRSWithStatus, newSyncContext, rs, updatedReplicaSets, withRSStatus } from "./fixture.js";
import { maxSurge, replicasOf, REVISION_ANNOTATION, setReplicasAnnotations } from "./index.js";
import { cleanupDeployment, scale } from "./sync.js";

const newTimestamp = "2016-05-20T02:00:00Z";
const oldTimestamp = "2016-05-20T01:00:00Z";
const olderTimestamp = "2016-05-20T00:00:00Z";

function updatedTemplate(replicas: number): Deployment {
  const d = newDeployment("foo", replicas, undefined, undefined, undefined, { foo: "bar" });
  d.spec!.template.metadata!.labels!.another = "label";
  return d;
}

interface ScaleCase {
  name: string;
  deployment: Deployment;
  oldDeployment: Deployment;
  newRS?: ReplicaSet;
  oldRSs: ReplicaSet[];
  expectedNew?: number;
  expectedOld: number[];
  wasntUpdated?: Record<string, boolean>;
  desiredReplicasAnnotations?: Record<string, number>;
}

const scaleCases: ScaleCase[] = [
  {
    name: "normal scaling event: 10 -> 12",
    deployment: newDeployment("foo", 12),
    oldDeployment: newDeployment("foo", 10),
    newRS: rs("foo-v1", 10, undefined, newTimestamp),
    oldRSs: [],
    expectedNew: 12,
    expectedOld: [],
  },
  {
    name: "normal scaling event: 10 -> 5",
    deployment: newDeployment("foo", 5),
    oldDeployment: newDeployment("foo", 10),
    newRS: rs("foo-v1", 10, undefined, newTimestamp),
    oldRSs: [],
    expectedNew: 5,
    expectedOld: [],
  },
  {
    name: "proportional scaling: 5 -> 10",
    deployment: newDeployment("foo", 10),
    oldDeployment: newDeployment("foo", 5),
    newRS: rs("foo-v2", 2, undefined, newTimestamp),
    oldRSs: [rs("foo-v1", 3, undefined, oldTimestamp)],
    expectedNew: 4,
    expectedOld: [6],
  },
  {
    name: "proportional scaling: 5 -> 3",
    deployment: newDeployment("foo", 3),
    oldDeployment: newDeployment("foo", 5),
    newRS: rs("foo-v2", 2, undefined, newTimestamp),
    oldRSs: [rs("foo-v1", 3, undefined, oldTimestamp)],
    expectedNew: 1,
    expectedOld: [2],
  },
  {
    name: "proportional scaling: 9 -> 4",
    deployment: newDeployment("foo", 4),
    oldDeployment: newDeployment("foo", 9),
    newRS: rs("foo-v2", 8, undefined, newTimestamp),
    oldRSs: [rs("foo-v1", 1, undefined, oldTimestamp)],
    expectedNew: 4,
    expectedOld: [0],
  },
  {
    name: "proportional scaling: 7 -> 10",
    deployment: newDeployment("foo", 10),
    oldDeployment: newDeployment("foo", 7),
    newRS: rs("foo-v3", 2, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 3, undefined, oldTimestamp), rs("foo-v1", 2, undefined, olderTimestamp)],
    expectedNew: 3,
    expectedOld: [4, 3],
  },
  {
    name: "proportional scaling: 13 -> 8",
    deployment: newDeployment("foo", 8),
    oldDeployment: newDeployment("foo", 13),
    newRS: rs("foo-v3", 2, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 8, undefined, oldTimestamp), rs("foo-v1", 3, undefined, olderTimestamp)],
    expectedNew: 1,
    expectedOld: [5, 2],
  },
  {
    // Scales up the new replica set.
    name: "leftover distribution: 3 -> 4",
    deployment: newDeployment("foo", 4),
    oldDeployment: newDeployment("foo", 3),
    newRS: rs("foo-v3", 1, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 1, undefined, oldTimestamp), rs("foo-v1", 1, undefined, olderTimestamp)],
    expectedNew: 2,
    expectedOld: [1, 1],
  },
  {
    // Scales down the older replica set.
    name: "leftover distribution: 3 -> 2",
    deployment: newDeployment("foo", 2),
    oldDeployment: newDeployment("foo", 3),
    newRS: rs("foo-v3", 1, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 1, undefined, oldTimestamp), rs("foo-v1", 1, undefined, olderTimestamp)],
    expectedNew: 1,
    expectedOld: [1, 0],
  },
  {
    // Scales up the latest replica set first.
    name: "proportional scaling (no new rs): 4 -> 5",
    deployment: newDeployment("foo", 5),
    oldDeployment: newDeployment("foo", 4),
    oldRSs: [rs("foo-v2", 2, undefined, oldTimestamp), rs("foo-v1", 2, undefined, olderTimestamp)],
    expectedOld: [3, 2],
  },
  {
    name: "proportional scaling: 6 -> 0",
    deployment: newDeployment("foo", 0),
    oldDeployment: newDeployment("foo", 6),
    newRS: rs("foo-v3", 3, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 2, undefined, oldTimestamp), rs("foo-v1", 1, undefined, olderTimestamp)],
    expectedNew: 0,
    expectedOld: [0, 0],
  },
  {
    name: "proportional scaling: 0 -> 6",
    deployment: newDeployment("foo", 6),
    oldDeployment: newDeployment("foo", 6),
    newRS: rs("foo-v3", 0, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 0, undefined, oldTimestamp), rs("foo-v1", 0, undefined, olderTimestamp)],
    expectedNew: 6,
    expectedOld: [0, 0],
    wasntUpdated: { "foo-v2": true, "foo-v1": true },
  },
  {
    // deployment.spec.replicas == 3 (each RS 1) scaled to 5: foo-v3 and foo-v2 grow by one, but
    // foo-v2's update "fails" (its result is ignored).
    name: "failed rs update",
    deployment: newDeployment("foo", 5),
    oldDeployment: newDeployment("foo", 5),
    newRS: rs("foo-v3", 2, undefined, newTimestamp),
    oldRSs: [rs("foo-v2", 1, undefined, oldTimestamp), rs("foo-v1", 1, undefined, olderTimestamp)],
    expectedNew: 2,
    expectedOld: [2, 1],
    wasntUpdated: { "foo-v3": true, "foo-v1": true },
    desiredReplicasAnnotations: { "foo-v2": 3 },
  },
  {
    name: "deployment with surge pods",
    deployment: newDeployment("foo", 20, undefined, 2),
    oldDeployment: newDeployment("foo", 10, undefined, 2),
    newRS: rs("foo-v2", 6, undefined, newTimestamp),
    oldRSs: [rs("foo-v1", 6, undefined, oldTimestamp)],
    expectedNew: 11,
    expectedOld: [11],
  },
  {
    name: "change both surge and size",
    deployment: newDeployment("foo", 50, undefined, 6),
    oldDeployment: newDeployment("foo", 10, undefined, 3),
    newRS: rs("foo-v2", 5, undefined, newTimestamp),
    oldRSs: [rs("foo-v1", 8, undefined, oldTimestamp)],
    expectedNew: 22,
    expectedOld: [34],
  },
  {
    name: "change both size and template",
    deployment: updatedTemplate(14),
    oldDeployment: newDeployment("foo", 10, undefined, undefined, undefined, { foo: "bar" }),
    oldRSs: [rs("foo-v2", 7, undefined, newTimestamp), rs("foo-v1", 3, undefined, oldTimestamp)],
    expectedOld: [10, 4],
  },
  {
    name: "saturated but broken new replica set does not affect old pods",
    deployment: newDeployment("foo", 2, undefined, 1, 1),
    oldDeployment: newDeployment("foo", 2, undefined, 1, 1),
    newRS: withRSStatus(rs("foo-v2", 2, undefined, newTimestamp), { availableReplicas: 0 }),
    oldRSs: [rs("foo-v1", 1, undefined, oldTimestamp)],
    expectedNew: 2,
    expectedOld: [1],
  },
];

describe("scale (TestScale)", () => {
  it.each(scaleCases)("$name", async (test) => {
    const annotate = (r: ReplicaSet) => {
      const desired = test.desiredReplicasAnnotations?.[r.metadata!.name!] ?? replicasOf(test.oldDeployment);
      setReplicasAnnotations(r, desired, desired + maxSurge(test.oldDeployment));
    };
    if (test.newRS) annotate(test.newRS);
    for (const r of test.oldRSs) annotate(r);
    const { ctx, client } = newSyncContext([...(test.newRS ? [test.newRS] : []), ...test.oldRSs]);

    await scale(ctx, test.deployment, test.newRS, test.oldRSs);

    const nameToSize = new Map<string, number>();
    if (test.newRS) nameToSize.set(test.newRS.metadata!.name!, replicasOf(test.newRS));
    for (const r of test.oldRSs) nameToSize.set(r.metadata!.name!, replicasOf(r));
    for (const r of updatedReplicaSets(client)) {
      if (!test.wasntUpdated?.[r.metadata!.name!]) nameToSize.set(r.metadata!.name!, replicasOf(r));
    }
    if (test.newRS && test.expectedNew !== undefined) expect(nameToSize.get(test.newRS.metadata!.name!)).toBe(test.expectedNew);
    expect(test.oldRSs.map((r) => nameToSize.get(r.metadata!.name!))).toEqual(test.expectedOld);
    // Only ReplicaSets were written.
    expect(client.writeActions().every((a) => a.resource === "replicasets" && a.verb === "update")).toBe(true);
  });

  it("records a ScalingReplicaSet event per size change", async () => {
    const d = newDeployment("foo", 10);
    const oldD = newDeployment("foo", 5);
    const newRS = rs("foo-v2", 2, undefined, newTimestamp);
    const oldRS = rs("foo-v1", 3, undefined, oldTimestamp);
    for (const r of [newRS, oldRS]) setReplicasAnnotations(r, 5, 5 + maxSurge(oldD));
    const { ctx, recorder } = newSyncContext([newRS, oldRS]);
    await scale(ctx, d, newRS, [oldRS]);
    expect(recorder.events).toEqual([
      "Normal ScalingReplicaSet Scaled up replica set foo-v1 to 6 from 3",
      "Normal ScalingReplicaSet Scaled up replica set foo-v2 to 4 from 2",
    ]);
  });
});

describe("cleanupDeployment (TestDeploymentController_cleanupDeployment)", () => {
  const selector = { foo: "bar" };
  const alreadyDeleted = () => {
    const r = newRSWithStatus("foo-1", 0, 0, selector);
    (r.metadata as WritableObjectMeta).deletionTimestamp = "2026-01-01T00:00:00Z";
    return r;
  };
  it.each([
    ["three empty, limit 1", () => [newRSWithStatus("foo-1", 0, 0, selector), newRSWithStatus("foo-2", 0, 0, selector), newRSWithStatus("foo-3", 0, 0, selector)], 1, 2],
    [
      "only the ReplicaSet with spec and status replicas 0",
      () => [newRSWithStatus("foo-1", 0, 0, selector), newRSWithStatus("foo-2", 0, 1, selector), newRSWithStatus("foo-3", 1, 0, selector), newRSWithStatus("foo-4", 1, 1, selector)],
      0,
      1,
    ],
    ["two empty, limit 0", () => [newRSWithStatus("foo-1", 0, 0, selector), newRSWithStatus("foo-2", 0, 0, selector)], 0, 2],
    ["two busy, limit 0", () => [newRSWithStatus("foo-1", 1, 1, selector), newRSWithStatus("foo-2", 1, 1, selector)], 0, 0],
    ["already being deleted", () => [alreadyDeleted()], 0, 0],
    ["unlimited revisionHistoryLimit", () => [newRSWithStatus("foo-1", 0, 0, selector), newRSWithStatus("foo-2", 0, 0, selector), newRSWithStatus("foo-3", 0, 0, selector)], 2 ** 31 - 1, 0],
  ] as Array<[string, () => ReplicaSet[], number, number]>)("%s", async (_n, make, limit, expectedDeletions) => {
    const oldRSs = make();
    const { ctx, client } = newSyncContext(oldRSs);
    const d = newDeployment("foo", 1, limit, undefined, undefined, selector);
    await cleanupDeployment(ctx, oldRSs, d);
    expect(client.actions().filter((a) => a.verb === "delete")).toHaveLength(expectedDeletions);
  });

  it("skips a ReplicaSet whose latest generation its controller has not observed", async () => {
    const r = newRSWithStatus("foo-1", 0, 0, selector);
    (r.metadata as WritableObjectMeta).generation = 2;
    const observed = withRSStatus(newRSWithStatus("foo-2", 0, 0, selector), { observedGeneration: 2 });
    (observed.metadata as WritableObjectMeta).generation = 2;
    const { ctx, client } = newSyncContext([r, observed]);
    await cleanupDeployment(ctx, [r, observed], newDeployment("foo", 1, 0, undefined, undefined, selector));
    expect(client.actions().filter((a) => a.verb === "delete").map((a) => a.name)).toEqual(["foo-2"]);
  });
});

describe("cleanupDeployment order (TestDeploymentController_cleanupDeploymentOrder)", () => {
  const selector = { foo: "bar" };
  const now = Date.UTC(2026, 0, 1);
  const minute = 60_000;
  const mk = (name: string, replicas: number, ts: number, rev: string) => {
    const r = rs(name, replicas, selector, new Date(ts).toISOString().replace(/\.\d{3}Z$/, "Z"));
    if (rev !== "") r.metadata!.annotations = { [REVISION_ANNOTATION]: rev };
    return withRSStatus(r, { replicas });
  };
  it.each([
    ["revision order: rs1 < rs2, delete rs1", () => [mk("foo-1", 0, now - minute, "1"), mk("foo-2", 0, now, "2")], 1, ["foo-1"]],
    ["revision order: rs2 < rs1, delete rs2", () => [mk("foo-1", 0, now - minute, "2"), mk("foo-2", 0, now, "1")], 1, ["foo-2"]],
    ["rs1 has revision but rs2 doesn't have revision, delete rs2", () => [mk("foo-1", 0, now - minute, "1"), mk("foo-2", 0, now, "")], 1, ["foo-2"]],
    ["rs1 doesn't have revision while rs2 has revision, delete rs1", () => [mk("foo-1", 0, now - minute, ""), mk("foo-2", 0, now, "2")], 1, ["foo-1"]],
    [
      "revision order: rs1 < rs2 < r3, but rs1 has replicas, delete rs2",
      () => [mk("foo-1", 1, now - minute, "1"), mk("foo-2", 0, now, "2"), mk("foo-3", 0, now + minute, "3")],
      1,
      ["foo-2"],
    ],
    [
      "revision order: rs1 < rs2 < r3, both rs1 && rs2 have replicas, don't delete",
      () => [mk("foo-1", 1, now - minute, "1"), mk("foo-2", 1, now, "2"), mk("foo-3", 0, now + minute, "3")],
      1,
      [],
    ],
    [
      "revision order: rs2 < rs4 < rs1 < rs3, delete rs2 && rs4",
      () => [mk("foo-1", 0, now - minute, "3"), mk("foo-2", 0, now, "1"), mk("foo-3", 0, now + minute, "4"), mk("foo-4", 0, now + 2 * minute, "2")],
      2,
      ["foo-2", "foo-4"],
    ],
  ] as Array<[string, () => ReplicaSet[], number, string[]]>)("%s", async (_n, make, limit, expected) => {
    const oldRSs = make();
    const { ctx, client } = newSyncContext(oldRSs);
    await cleanupDeployment(ctx, oldRSs, newDeployment("foo", 1, limit, undefined, undefined, selector));
    const deleted = client.actions().filter((a) => a.verb === "delete" && a.resource === "replicasets").map((a) => a.name!);
    expect(deleted.sort()).toEqual([...expected].sort());
  });
});
