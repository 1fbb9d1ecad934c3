/**
 * Cases restated from upstream pkg/controller/disruption/disruption_test.go: TestNoSelector,
 * TestUnavailable, TestIntegerMaxUnavailable, TestNakedPod, TestReplicaSet, TestReplicationController,
 * TestStatefulSetController, TestTwoControllers (the Deployment's scale for its ReplicaSet),
 * TestPDBNotExist, TestUpdateDisruptedPods, TestBasicFinderFunctions' "no controller" case
 * (fail-safe SyncFailed), on ControllerFixture.
 */
import { describe, expect, it } from "vitest";
import type { Pod, ReplicationController } from "../../apimachinery/api/core/v1.js";
import type { Deployment, ReplicaSet, StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { PodDisruptionBudget } from "../../apimachinery/api/policy/v1.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { DELETION_TIMEOUT_MS, DisruptionController } from "./controller.js";

const owner = (kind: string, apiVersion: string, name: string) => [{ apiVersion, kind, name, uid: `uid-${name}`, controller: true }];

function pod(name: string, o: { ready?: boolean; owners?: ReturnType<typeof owner>; deleting?: boolean; labels?: Record<string, string> } = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}`, labels: o.labels ?? { foo: "bar" }, ...(o.owners ? { ownerReferences: o.owners } : {}), ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}) },
    spec: { containers: [{ name: "c" }] },
    status: { phase: "Running", conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }] },
  };
}

type PDBSpec = NonNullable<PodDisruptionBudget["spec"]>;

function pdb(spec: { minAvailable?: PDBSpec["minAvailable"]; maxUnavailable?: PDBSpec["maxUnavailable"]; selector?: PDBSpec["selector"] | null }, status?: PodDisruptionBudget["status"]): PodDisruptionBudget {
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: "foobar", namespace: "default", uid: "uid-pdb", generation: 1 },
    spec: { ...(spec.selector === null ? {} : { selector: spec.selector ?? { matchLabels: { foo: "bar" } } }), ...(spec.minAvailable !== undefined ? { minAvailable: spec.minAvailable } : {}), ...(spec.maxUnavailable !== undefined ? { maxUnavailable: spec.maxUnavailable } : {}) },
    ...(status ? { status } : {}),
  };
}

const rs = (name: string, replicas: number, deployment?: string): ReplicaSet => ({
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: { name, namespace: "default", uid: `uid-${name}`, ...(deployment ? { ownerReferences: owner("Deployment", "apps/v1", deployment) } : {}) },
  spec: { replicas, selector: { matchLabels: { foo: "bar" } } },
});

function setup(objects: { pdbs: PodDisruptionBudget[]; pods?: Pod[]; rss?: ReplicaSet[]; deployments?: Deployment[]; rcs?: ReplicationController[]; sts?: StatefulSet[] }) {
  const f = new ControllerFixture();
  const c = new DisruptionController(f.manager);
  f.seed(builtin.podDisruptionBudgets, ...objects.pdbs);
  f.seed(builtin.pods, ...(objects.pods ?? []));
  f.seed(builtin.replicaSets, ...(objects.rss ?? []));
  f.seed(builtin.deployments, ...(objects.deployments ?? []));
  f.seed(builtin.replicationControllers, ...(objects.rcs ?? []));
  f.seed(builtin.statefulSets, ...(objects.sts ?? []));
  const status = () => (f.client.tracker.get(builtin.podDisruptionBudgets, "default", "foobar") as unknown as PodDisruptionBudget).status;
  const sync = () => c.sync(new ObjectName("default", "foobar"), f.client);
  return { f, c, status, sync };
}

const rsPods = (n: number, rsName: string, notReady = 0) => Array.from({ length: n }, (_, i) => pod(`${rsName}-${i}`, { owners: owner("ReplicaSet", "apps/v1", rsName), ready: i >= notReady }));

describe("DisruptionController.sync", () => {
  it.each([
    // [name, spec, pods, expected {currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed}, reason]
    ["TestNoSelector: a nil selector selects nothing", { minAvailable: 3, selector: null }, [pod("a")], [0, 3, 0, 0], "InsufficientPods"],
    ["TestUnavailable: minAvailable 3 of 4 ready", { minAvailable: 3 }, [pod("a"), pod("b"), pod("c"), pod("d")], [4, 3, 4, 1], "SufficientPods"],
    ["TestUnavailable: one not ready leaves none", { minAvailable: 3 }, [pod("a"), pod("b"), pod("c"), pod("d", { ready: false })], [3, 3, 4, 0], "InsufficientPods"],
    ["TestNakedPod: minAvailable integer counts bare pods", { minAvailable: 1 }, [pod("a"), pod("b")], [2, 1, 2, 1], "SufficientPods"],
    ["terminating pods are not healthy", { minAvailable: 1 }, [pod("a", { deleting: true }), pod("b")], [1, 1, 2, 0], "InsufficientPods"],
  ] as Array<[string, Parameters<typeof pdb>[0], Pod[], number[], string]>)("%s", async (_n, spec, pods, [currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed], reason) => {
    const env = setup({ pdbs: [pdb(spec)], pods });
    await env.sync();
    const s = env.status();
    expect({ currentHealthy: s?.currentHealthy, desiredHealthy: s?.desiredHealthy, expectedPods: s?.expectedPods, disruptionsAllowed: s?.disruptionsAllowed }).toEqual({ currentHealthy, desiredHealthy, expectedPods, disruptionsAllowed });
    expect(s?.observedGeneration).toBe(1);
    expect(s?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([["DisruptionAllowed", disruptionsAllowed > 0 ? "True" : "False", reason]]);
  });

  it("TestReplicaSet: minAvailable 20% of a ReplicaSet of 10 wants 2 healthy", async () => {
    const env = setup({ pdbs: [pdb({ minAvailable: "20%" })], pods: rsPods(10, "rs"), rss: [rs("rs", 10)] });
    await env.sync();
    expect(env.status()).toMatchObject({ currentHealthy: 10, desiredHealthy: 2, expectedPods: 10, disruptionsAllowed: 8 });
  });

  it("TestIntegerMaxUnavailable: maxUnavailable 1 of a ReplicaSet of 3 with one pod not ready allows none", async () => {
    const env = setup({ pdbs: [pdb({ maxUnavailable: 1 })], pods: rsPods(3, "rs", 1), rss: [rs("rs", 3)] });
    await env.sync();
    expect(env.status()).toMatchObject({ currentHealthy: 2, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 0 });
  });

  it("TestTwoControllers: a ReplicaSet of a Deployment counts the Deployment's replicas", async () => {
    const d: Deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web", namespace: "default", uid: "uid-web" }, spec: { replicas: 4, selector: { matchLabels: { foo: "bar" } }, template: {} } };
    const env = setup({ pdbs: [pdb({ maxUnavailable: "50%" })], pods: rsPods(3, "web-rs"), rss: [rs("web-rs", 3, "web")], deployments: [d] });
    await env.sync();
    expect(env.status()).toMatchObject({ currentHealthy: 3, desiredHealthy: 2, expectedPods: 4, disruptionsAllowed: 1 });
  });

  it.each([
    ["TestReplicationController", "ReplicationController", "v1"],
    ["TestStatefulSetController", "StatefulSet", "apps/v1"],
  ])("%s: the controller's replicas are the expected pods", async (_n, kind, apiVersion) => {
    const pods = Array.from({ length: 3 }, (_, i) => pod(`p${i}`, { owners: owner(kind, apiVersion, "ctl") }));
    const metadata = { name: "ctl", namespace: "default", uid: "uid-ctl" };
    const sts: StatefulSet = { apiVersion: "apps/v1", kind: "StatefulSet", metadata, spec: { replicas: 3, selector: { matchLabels: { foo: "bar" } }, template: {}, serviceName: "" } };
    const rc: ReplicationController = { apiVersion: "v1", kind: "ReplicationController", metadata, spec: { replicas: 3, selector: { foo: "bar" } } };
    const env = setup({ pdbs: [pdb({ minAvailable: "34%" })], pods, ...(kind === "StatefulSet" ? { sts: [sts] } : { rcs: [rc] }) });
    await env.sync();
    expect(env.status()).toMatchObject({ currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 });
  });

  it("a pod whose controller is missing: fail-safe status (SyncFailed), and the sync fails", async () => {
    const env = setup({ pdbs: [pdb({ maxUnavailable: 1 }, { currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, disruptionsAllowed: 1 })], pods: rsPods(3, "gone") });
    await expect(env.sync()).rejects.toThrow('found no controllers for pod "gone-0"');
    const s = env.status();
    expect(s?.disruptionsAllowed).toBe(0);
    expect(s?.conditions?.map((c) => [c.status, c.reason, c.message])).toEqual([["False", "SyncFailed", 'found no controllers for pod "gone-0"']]);
  });

  it("TestUpdateDisruptedPods: pending entries are kept and not healthy; lapsed, deleting and missing ones are dropped; requeue at the first expiry", async () => {
    const f0 = new ControllerFixture();
    const now = f0.clock.now();
    const env = setup({
      pdbs: [
        pdb(
          { minAvailable: 1 },
          {
            currentHealthy: 0,
            desiredHealthy: 0,
            expectedPods: 0,
            disruptionsAllowed: 0,
            disruptedPods: { p1: formatTime(now), p2: formatTime(now - DELETION_TIMEOUT_MS - 1000), p3: formatTime(now), missing: formatTime(now) },
          },
        ),
      ],
      pods: [pod("p1"), pod("p2"), pod("p3", { deleting: true }), pod("p4")],
    });
    env.f.clock.setTime(now);
    const result = await env.sync();
    const s = env.status();
    expect(Object.keys(s?.disruptedPods ?? {})).toEqual(["p1"]);
    expect(s).toMatchObject({ currentHealthy: 2, desiredHealthy: 1, expectedPods: 4, disruptionsAllowed: 1 });
    expect(result).toEqual({ requeueAfterMs: DELETION_TIMEOUT_MS - (env.f.clock.now() - now) });
  });

  it("TestPDBNotExist: a missing PDB is no error and no write; a second sync of a current status writes nothing", async () => {
    const env = setup({ pdbs: [pdb({ minAvailable: 1 })], pods: [pod("a"), pod("b")] });
    await env.c.sync(new ObjectName("default", "other"), env.f.client);
    expect(env.f.client.writeActions()).toEqual([]);
    await env.sync();
    expect(env.f.client.writeActions()).toHaveLength(1);
    env.f.seedCache(builtin.podDisruptionBudgets, env.f.client.tracker.get(builtin.podDisruptionBudgets, "default", "foobar") as unknown as PodDisruptionBudget);
    await env.sync();
    expect(env.f.client.writeActions()).toHaveLength(1);
  });
});
