/**
 * Upstream's stateful_set_control_test.go scenarios, restated as tables over the ControllerFixture:
 * each step is one reconcile, then the caches are refreshed from the fake API and a tiny kubelet
 * moves pods (Pending at creation, then Running and Ready when the scenario says so), on the
 * fixture's fake clock.
 */
import { describe, expect, it } from "vitest";
import type { ControllerRevision, StatefulSet, StatefulSetSpec } from "../../apimachinery/api/apps/v1.js";
import type { PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { formatTime } from "../../apimachinery/time.js";
import type { KubeObject, TypedObject } from "../../apimachinery/types.js";
import type { ResourceDescriptor } from "../../client/interfaces.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { StatefulSetController } from "./controller.js";
import { getOrdinal, getPodRevision, POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL } from "./utils.js";

type Readiness = "all" | "none" | ((pod: Pod) => boolean);

class World {
  readonly f = new ControllerFixture();
  readonly c: StatefulSetController;
  ready: Readiness = "all";

  constructor(opts: { maxUnavailableStatefulSet?: boolean } = {}) {
    this.c = new StatefulSetController(this.f.manager, opts);
  }

  private get tracker() {
    return this.f.client.tracker;
  }

  list<T extends TypedObject>(d: ResourceDescriptor<T>): T[] {
    return this.tracker.list(d, "default") as unknown as T[];
  }

  pods(): Pod[] {
    return this.list(builtin.pods).sort((a, b) => getOrdinal(a) - getOrdinal(b));
  }

  podNames(): string[] {
    return this.pods().map((p) => p.metadata!.name!);
  }

  set(): StatefulSet {
    return this.tracker.get(builtin.statefulSets, "default", "web") as unknown as StatefulSet;
  }

  revisions(): ControllerRevision[] {
    return this.list(builtin.controllerRevisions);
  }

  claims(): PersistentVolumeClaim[] {
    return this.list(builtin.persistentVolumeClaims);
  }

  /** The caches hold what the API holds (the informers caught up). */
  refresh(): void {
    for (const d of [builtin.statefulSets, builtin.pods, builtin.persistentVolumeClaims, builtin.controllerRevisions] as ResourceDescriptor[]) {
      this.f.informers.forResource(d).getIndexer().replace(this.tracker.list(d, "") as TypedObject[], "");
    }
  }

  create(spec: Partial<StatefulSetSpec>): void {
    const set: StatefulSet = {
      apiVersion: "apps/v1",
      kind: "StatefulSet",
      metadata: { name: "web", namespace: "default", generation: 1 },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" } },
        serviceName: "web",
        podManagementPolicy: "OrderedReady",
        updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
        revisionHistoryLimit: 10,
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1" }] } },
        ...spec,
      },
    };
    this.f.seed(builtin.statefulSets, set);
  }

  /** Changes the set's spec (generation bumped as the API server would). */
  updateSpec(fn: (spec: StatefulSetSpec) => void): void {
    const set = deepCopy(this.set());
    fn(set.spec!);
    set.metadata!.generation = (set.metadata!.generation ?? 1) + 1;
    this.tracker.update(builtin.statefulSets, "default", set as unknown as KubeObject);
    this.refresh();
  }

  /** The kubelet: new pods become Pending; pods the readiness rule picks become Running and Ready. */
  kubelet(): void {
    const now = formatTime(this.f.clock.now());
    for (const pod of this.pods()) {
      if (pod.metadata?.deletionTimestamp) continue;
      const p = deepCopy(pod);
      const want = this.ready === "all" || (this.ready !== "none" && this.ready(pod));
      if (!p.status?.phase && !want) p.status = { phase: "Pending" };
      else if (want && (!p.status?.phase || p.status.phase === "Pending")) p.status = { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: now }] };
      else continue;
      this.tracker.update(builtin.pods, "default", p as unknown as KubeObject);
    }
    this.refresh();
  }

  setPhase(name: string, phase: "Failed" | "Succeeded" | "Running", ready = false): void {
    const p = deepCopy(this.tracker.get(builtin.pods, "default", name) as unknown as Pod);
    p.status = { phase, conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: formatTime(this.f.clock.now()) }] };
    this.tracker.update(builtin.pods, "default", p as unknown as KubeObject);
    this.refresh();
  }

  deletePod(name: string): void {
    this.tracker.delete(builtin.pods, "default", name);
    this.refresh();
  }

  async step(): Promise<{ requeueAfterMs?: number }> {
    this.kubelet();
    this.f.client.clearActions();
    try {
      return (await this.f.reconcile(this.c.controller, "default/web")) as { requeueAfterMs?: number };
    } finally {
      this.refresh();
      this.kubelet();
    }
  }

  /** Steps until a step writes nothing (or the limit). */
  async converge(limit = 50): Promise<number> {
    for (let i = 1; i <= limit; i++) {
      await this.step();
      if (this.f.client.writeActions().length === 0) return i;
    }
    throw new Error(`no convergence in ${limit} steps; pods ${this.podNames().join(",")}`);
  }

  writes(verb: string, resource: string): string[] {
    return this.f.client
      .writeActions()
      .filter((a) => a.verb === verb && a.resource === resource)
      .map((a) => a.name ?? a.object?.metadata?.name ?? "");
  }
}

async function started(spec: Partial<StatefulSetSpec> = {}, opts: { maxUnavailableStatefulSet?: boolean } = {}): Promise<World> {
  const w = new World(opts);
  w.create(spec);
  w.refresh();
  await w.converge();
  return w;
}

describe("StatefulSet: scaling (CreatesPods, ScaleUp, ScaleDown, Parallel)", () => {
  const cases: Array<{ name: string; spec: Partial<StatefulSetSpec>; perStep: string[][] }> = [
    { name: "OrderedReady creates one pod per step, each after its predecessor is Running and Ready", spec: { replicas: 3 }, perStep: [["web-0"], ["web-1"], ["web-2"]] },
    { name: "Parallel creates every pod at once", spec: { replicas: 3, podManagementPolicy: "Parallel" }, perStep: [["web-0", "web-1", "web-2"]] },
    { name: "spec.ordinals.start numbers pods from the start", spec: { replicas: 2, ordinals: { start: 5 } }, perStep: [["web-5"], ["web-6"]] },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const w = new World();
      w.create(tc.spec);
      w.refresh();
      for (const want of tc.perStep) {
        await w.step();
        expect(w.writes("create", "pods")).toEqual(want);
      }
      await w.converge();
      const status = w.set().status!;
      const n = tc.spec.replicas!;
      expect(status).toMatchObject({ replicas: n, readyReplicas: n, availableReplicas: n, currentReplicas: n, updatedReplicas: n, observedGeneration: 1 });
      expect(status.currentRevision).toBe(status.updateRevision);
      expect(w.f.recorder.events).toContain(`Normal SuccessfulCreate create Pod ${tc.perStep[0][0]} in StatefulSet web successful`);
    });
  }

  it("pod identity: name, hostname, subdomain, pod-name and pod-index labels, controller reference, revision label", async () => {
    const w = await started({ replicas: 1 });
    const [pod] = w.pods();
    expect(pod.metadata?.name).toBe("web-0");
    expect(pod.spec?.hostname).toBe("web-0");
    expect(pod.spec?.subdomain).toBe("web");
    expect(pod.metadata?.labels).toMatchObject({ app: "web", [STATEFULSET_POD_NAME_LABEL]: "web-0", [POD_INDEX_LABEL]: "0", "controller-revision-hash": w.set().status!.updateRevision });
    expect(pod.metadata?.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "StatefulSet", name: "web", uid: w.set().metadata!.uid, controller: true, blockOwnerDeletion: true }]);
  });

  it("OrderedReady waits while a pod is not Running and Ready (monotonic)", async () => {
    const w = new World();
    w.ready = "none";
    w.create({ replicas: 3 });
    w.refresh();
    for (let i = 0; i < 4; i++) await w.step();
    expect(w.podNames()).toEqual(["web-0"]);
    w.ready = "all";
    await w.converge();
    expect(w.podNames()).toEqual(["web-0", "web-1", "web-2"]);
  });

  const down: Array<{ name: string; policy: "OrderedReady" | "Parallel"; perStep: string[][] }> = [
    { name: "OrderedReady deletes the highest ordinal first, one per step", policy: "OrderedReady", perStep: [["web-4"], ["web-3"], ["web-2"]] },
    { name: "Parallel deletes every condemned pod at once", policy: "Parallel", perStep: [["web-4", "web-3", "web-2"]] },
  ];
  for (const tc of down) {
    it(`scale down: ${tc.name}`, async () => {
      const w = await started({ replicas: 5, podManagementPolicy: tc.policy });
      w.updateSpec((s) => (s.replicas = 2));
      for (const want of tc.perStep) {
        await w.step();
        expect(w.writes("delete", "pods")).toEqual(want);
      }
      await w.converge();
      expect(w.podNames()).toEqual(["web-0", "web-1"]);
      expect(w.set().status).toMatchObject({ replicas: 2, readyReplicas: 2 });
      expect(w.f.recorder.events).toContain("Normal SuccessfulDelete delete Pod web-4 in StatefulSet web successful");
    });
  }

  it("OrderedReady does not scale down while a replica is unhealthy (the first unhealthy pod may go)", async () => {
    const w = await started({ replicas: 3 });
    w.setPhase("web-0", "Running", false);
    w.updateSpec((s) => (s.replicas = 1));
    w.ready = "none";
    await w.step();
    expect(w.writes("delete", "pods")).toEqual([]);
  });

  it("recreates a Failed pod: deleted first, created again by the next sync (RecreatesFailedPod)", async () => {
    const w = await started({ replicas: 2 });
    w.setPhase("web-1", "Failed");
    await w.step();
    expect(w.writes("delete", "pods")).toEqual(["web-1"]);
    await w.step();
    expect(w.writes("create", "pods")).toEqual(["web-1"]);
    await w.converge();
    expect(w.set().status).toMatchObject({ replicas: 2, readyReplicas: 2 });
  });

  it("a pod that is Succeeded is recreated too", async () => {
    const w = await started({ replicas: 1 });
    w.setPhase("web-0", "Succeeded");
    await w.step();
    expect(w.writes("delete", "pods")).toEqual(["web-0"]);
  });

  it("a create that fails leaves a Warning event and rejects (retried by the queue)", async () => {
    const w = new World();
    w.create({ replicas: 1 });
    w.refresh();
    w.f.client.failNth("create", "pods", 1, new Error("server on fire"));
    await expect(w.step()).rejects.toThrow(/server on fire/);
    expect(w.f.recorder.events).toContain("Warning FailedCreate create Pod web-0 in StatefulSet web failed error: server on fire");
    await w.converge();
    expect(w.podNames()).toEqual(["web-0"]);
  });

  it("minReadySeconds: the next pod waits until the previous is available on the clock, and the sync requeues", async () => {
    const w = new World();
    w.create({ replicas: 2, minReadySeconds: 10 });
    w.refresh();
    await w.step(); // web-0 created, then Running and Ready
    const r = await w.step();
    expect(w.podNames()).toEqual(["web-0"]);
    expect(r.requeueAfterMs).toBe(10_000);
    w.f.clock.step(10_001);
    await w.step();
    expect(w.podNames()).toEqual(["web-0", "web-1"]);
    await w.converge();
    expect(w.set().status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 1 });
    w.f.clock.step(10_001);
    await w.step();
    expect(w.set().status).toMatchObject({ replicas: 2, availableReplicas: 2 });
  });
});

describe("StatefulSet: status (stateful_set_status_updater_test)", () => {
  it("a conflicting status write is retried from the cached set; nothing is written when status is unchanged", async () => {
    const w = new World();
    w.create({ replicas: 1 });
    w.refresh();
    w.f.client.failNth("update", "statefulsets", 1, (await import("../../apimachinery/errors.js")).StatusError.conflict({ group: "apps", resource: "statefulsets" }, "web", "stale"));
    await w.step();
    const statusWrites = w.f.client.writeActions().filter((a) => a.resource === "statefulsets" && a.subresource === "status");
    expect(statusWrites).toHaveLength(2);
    expect(w.set().status?.updateRevision).toBeDefined();
    await w.converge();
    await w.step();
    expect(w.f.client.writeActions()).toEqual([]);
  });

  it("a failed status write fails the sync (retried by the queue)", async () => {
    const w = new World();
    w.create({ replicas: 1 });
    w.refresh();
    w.f.client.prependReactor("update", "statefulsets", () => ({ handled: true, error: new Error("etcd on fire") }));
    await expect(w.step()).rejects.toThrow(/etcd on fire/);
  });

  it("a set being deleted gets status only: no pod is created or deleted", async () => {
    const w = new World();
    w.create({ replicas: 2 });
    const set = deepCopy(w.set());
    set.metadata!.deletionTimestamp = formatTime(w.f.clock.now());
    set.metadata!.finalizers = ["keep"];
    w.f.client.tracker.update(builtin.statefulSets, "default", set as unknown as KubeObject);
    w.refresh();
    await w.step();
    expect(w.writes("create", "pods")).toEqual([]);
    expect(w.set().status).toMatchObject({ replicas: 0, observedGeneration: 1 });
  });
});

describe("StatefulSet: updates (RollingUpdate, partition, maxUnavailable, OnDelete, rollback, history)", () => {
  const image = (w: World, i: string) => w.updateSpec((s) => (s.template.spec!.containers[0].image = i));
  const imageOf = (p: Pod) => p.spec?.containers[0].image;

  const rolling: Array<{ name: string; spec: Partial<StatefulSetSpec>; gate?: boolean; firstDeletes: string[]; final: string[] }> = [
    { name: "RollingUpdate replaces the highest ordinal first, one at a time", spec: {}, firstDeletes: ["web-2"], final: ["nginx:2", "nginx:2", "nginx:2"] },
    {
      name: "partition keeps the ordinals below it at the current revision",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } } },
      firstDeletes: ["web-2"],
      final: ["nginx:1", "nginx:1", "nginx:2"],
    },
    {
      name: "maxUnavailable 2 replaces two pods at once",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 2 } } },
      firstDeletes: ["web-2", "web-1"],
      final: ["nginx:2", "nginx:2", "nginx:2"],
    },
    {
      name: "maxUnavailable 50% of 3 rounds down to 1",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: "50%" } } },
      firstDeletes: ["web-2"],
      final: ["nginx:2", "nginx:2", "nginx:2"],
    },
    {
      name: "maxUnavailable is ignored with the MaxUnavailableStatefulSet gate off",
      spec: { updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 2 } } },
      gate: false,
      firstDeletes: ["web-2"],
      final: ["nginx:2", "nginx:2", "nginx:2"],
    },
    {
      name: "Parallel with maxUnavailable 3 replaces every pod at once",
      spec: { podManagementPolicy: "Parallel", updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 3 } } },
      firstDeletes: ["web-2", "web-1", "web-0"],
      final: ["nginx:2", "nginx:2", "nginx:2"],
    },
    { name: "OnDelete changes nothing until pods are deleted", spec: { updateStrategy: { type: "OnDelete" } }, firstDeletes: [], final: ["nginx:1", "nginx:1", "nginx:1"] },
  ];
  for (const tc of rolling) {
    it(tc.name, async () => {
      const w = await started({ replicas: 3, ...tc.spec }, { maxUnavailableStatefulSet: tc.gate });
      const before = w.set().status!;
      image(w, "nginx:2");
      await w.step();
      expect(w.writes("delete", "pods")).toEqual(tc.firstDeletes);
      await w.converge();
      expect(w.pods().map(imageOf)).toEqual(tc.final);
      const s = w.set().status!;
      expect(s.updateRevision).not.toBe(before.updateRevision);
      expect(s.observedGeneration).toBe(2);
      const updated = tc.final.filter((i) => i === "nginx:2").length;
      expect(s.updatedReplicas).toBe(updated);
      if (updated === 3) {
        expect(s.currentRevision).toBe(s.updateRevision);
        expect(s.currentReplicas).toBe(3);
      } else {
        expect(s.currentRevision).toBe(before.currentRevision);
        expect(s.currentReplicas).toBe(3 - updated);
      }
      for (const p of w.pods()) expect(getPodRevision(p)).toBe(imageOf(p) === "nginx:2" ? s.updateRevision : before.updateRevision);
    });
  }

  it("OnDelete: a deleted pod comes back at the update revision", async () => {
    const w = await started({ replicas: 3, updateStrategy: { type: "OnDelete" } });
    image(w, "nginx:2");
    await w.converge();
    w.deletePod("web-1");
    await w.converge();
    expect(w.pods().map(imageOf)).toEqual(["nginx:1", "nginx:2", "nginx:1"]);
    expect(w.set().status).toMatchObject({ updatedReplicas: 1, currentReplicas: 2 });
  });

  it("RollingUpdate waits for the replaced pod to be healthy before the next", async () => {
    const w = await started({ replicas: 3 });
    image(w, "nginx:2");
    w.ready = "none";
    for (let i = 0; i < 4; i++) await w.step();
    expect(w.pods().map(imageOf)).toEqual(["nginx:1", "nginx:1", "nginx:2"]);
  });

  it("rollback: the template of an older revision renumbers that revision instead of creating one", async () => {
    const w = await started({ replicas: 2 });
    const first = w.set().status!.updateRevision;
    image(w, "nginx:2");
    await w.converge();
    const second = w.set().status!.updateRevision;
    image(w, "nginx:1");
    await w.converge();
    const s = w.set().status!;
    expect(s.updateRevision).toBe(first);
    expect(s.currentRevision).toBe(first);
    const revs = Object.fromEntries(w.revisions().map((r) => [r.metadata!.name!, r.revision]));
    expect(Object.keys(revs).sort()).toEqual([first, second].sort());
    expect(revs[first!]).toBe(3);
    expect(revs[second!]).toBe(2);
    expect(w.pods().map(imageOf)).toEqual(["nginx:1", "nginx:1"]);
  });

  it("revisionHistoryLimit: non-live revisions beyond the limit are deleted, oldest first", async () => {
    const w = await started({ replicas: 1, revisionHistoryLimit: 1 });
    for (const i of ["nginx:2", "nginx:3", "nginx:4"]) {
      image(w, i);
      await w.converge();
    }
    const revs = w.revisions().sort((a, b) => a.revision - b.revision);
    // The live one (current = update) plus one of history.
    expect(revs.map((r) => r.revision)).toEqual([3, 4]);
    expect(revs[1].metadata?.name).toBe(w.set().status!.updateRevision);
  });

  it("a revision name taken by other data bumps status.collisionCount", async () => {
    const w = new World();
    w.create({ replicas: 1 });
    w.refresh();
    // What the controller will name its first revision, taken by someone else with other data.
    const { newRevision } = await import("./utils.js");
    const squatter = newRevision(w.set(), 1, 0);
    squatter.metadata!.namespace = "default";
    squatter.data = { other: true } as never;
    squatter.metadata!.ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "someone-else", controller: true }];
    w.f.seed(builtin.controllerRevisions, squatter);
    await w.converge();
    const s = w.set().status!;
    expect(s.collisionCount).toBe(1);
    expect(s.updateRevision).not.toBe(squatter.metadata!.name);
  });

  it("adopts orphan revisions matching the selector", async () => {
    const w = new World();
    w.create({ replicas: 1 });
    const { newRevision } = await import("./utils.js");
    const orphan = newRevision(w.set(), 1, 0);
    orphan.metadata!.namespace = "default";
    delete orphan.metadata!.ownerReferences;
    w.f.seed(builtin.controllerRevisions, orphan);
    w.refresh();
    await w.step();
    const adopt = w.f.client.writeActions().find((a) => a.verb === "patch" && a.resource === "controllerrevisions");
    expect(adopt?.name).toBe(orphan.metadata!.name);
    await w.converge();
    expect(w.revisions()).toHaveLength(1);
    expect(w.set().status!.updateRevision).toBe(orphan.metadata!.name);
  });
});

describe("StatefulSet: volumeClaimTemplates and persistentVolumeClaimRetentionPolicy", () => {
  const claimTemplate = { metadata: { name: "www" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } };

  it("creates the claim before the pod, and the pod mounts it", async () => {
    const w = new World();
    w.create({ replicas: 1, volumeClaimTemplates: [claimTemplate] });
    w.refresh();
    await w.step();
    const writes = w.f.client
      .writeActions()
      .filter((a) => a.resource !== "controllerrevisions" && a.resource !== "statefulsets")
      .map((a) => `${a.verb} ${a.resource} ${a.name ?? a.object?.metadata?.name}`);
    expect(writes).toEqual(["create persistentvolumeclaims www-web-0", "create pods web-0"]);
    const [claim] = w.claims();
    expect(claim.metadata?.labels).toEqual({ app: "web" });
    expect(w.pods()[0].spec?.volumes).toEqual([{ name: "www", persistentVolumeClaim: { claimName: "www-web-0", readOnly: false } }]);
    expect(w.f.recorder.events).toContain("Normal SuccessfulCreate create Claim www-web-0 Pod web-0 in StatefulSet web success");
  });

  it("a claim that cannot be created fails the pod's creation, with both events (CreatePodFailure on PVC)", async () => {
    const w = new World();
    w.create({ replicas: 1, volumeClaimTemplates: [claimTemplate] });
    w.refresh();
    w.f.client.failNth("create", "persistentvolumeclaims", 1, new Error("quota exceeded"));
    await expect(w.step()).rejects.toThrow(/failed to create PVC www-web-0: quota exceeded/);
    expect(w.podNames()).toEqual([]);
    expect(w.f.recorder.events).toContain("Warning FailedCreate create Claim www-web-0 for Pod web-0 in StatefulSet web failed error: quota exceeded");
    expect(w.f.recorder.events).toContain("Warning FailedCreate create Pod web-0 in StatefulSet web failed error: failed to create PVC www-web-0: quota exceeded");
    await w.converge();
    expect(w.podNames()).toEqual(["web-0"]);
  });

  it("a Pending pod whose claim went missing gets it back", async () => {
    const w = new World();
    w.ready = "none";
    w.create({ replicas: 1, volumeClaimTemplates: [claimTemplate] });
    w.refresh();
    await w.step();
    w.f.client.tracker.delete(builtin.persistentVolumeClaims, "default", "www-web-0");
    w.refresh();
    await w.step();
    expect(w.writes("create", "persistentvolumeclaims")).toEqual(["www-web-0"]);
  });

  const owners = (w: World, claim: string) =>
    (w.claims().find((c) => c.metadata?.name === claim)?.metadata?.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`).sort();

  const policies: Array<{ whenDeleted: "Retain" | "Delete"; whenScaled: "Retain" | "Delete"; inRange: string[]; scaledDown: string[] }> = [
    { whenDeleted: "Retain", whenScaled: "Retain", inRange: [], scaledDown: [] },
    { whenDeleted: "Delete", whenScaled: "Retain", inRange: ["StatefulSet/web"], scaledDown: ["StatefulSet/web"] },
    { whenDeleted: "Retain", whenScaled: "Delete", inRange: [], scaledDown: ["Pod/web-1"] },
    { whenDeleted: "Delete", whenScaled: "Delete", inRange: ["StatefulSet/web"], scaledDown: ["Pod/web-1"] },
  ];
  for (const p of policies) {
    it(`whenDeleted ${p.whenDeleted}, whenScaled ${p.whenScaled}: claim owners ${JSON.stringify(p.inRange)} in range, ${JSON.stringify(p.scaledDown)} once scaled down`, async () => {
      const w = await started({
        replicas: 2,
        volumeClaimTemplates: [claimTemplate],
        persistentVolumeClaimRetentionPolicy: { whenDeleted: p.whenDeleted, whenScaled: p.whenScaled },
      });
      expect(owners(w, "www-web-1")).toEqual(p.inRange);
      expect(owners(w, "www-web-0")).toEqual(p.inRange);
      w.updateSpec((s) => (s.replicas = 1));
      // The claim's owners are fixed before the condemned pod is deleted.
      await w.step();
      expect(owners(w, "www-web-1")).toEqual(p.scaledDown);
      expect(owners(w, "www-web-0")).toEqual(p.inRange);
      const refs = w.claims().find((c) => c.metadata?.name === "www-web-1")?.metadata?.ownerReferences ?? [];
      for (const r of refs) expect(r).toMatchObject({ controller: true, blockOwnerDeletion: true });
      await w.converge();
      expect(w.podNames()).toEqual(["web-0"]);
    });
  }

  it("changing the policy rewrites the owners of existing claims", async () => {
    const w = await started({ replicas: 1, volumeClaimTemplates: [claimTemplate] });
    expect(owners(w, "www-web-0")).toEqual([]);
    w.updateSpec((s) => (s.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete", whenScaled: "Retain" }));
    await w.converge();
    expect(owners(w, "www-web-0")).toEqual(["StatefulSet/web"]);
  });

  it("a claim controlled by another owner is left alone", async () => {
    const w = new World();
    w.create({ replicas: 1, volumeClaimTemplates: [claimTemplate], persistentVolumeClaimRetentionPolicy: { whenDeleted: "Delete", whenScaled: "Delete" } });
    w.f.seed(builtin.persistentVolumeClaims, {
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name: "www-web-0", namespace: "default", ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "other", uid: "other", controller: true }] },
      spec: {},
    });
    w.refresh();
    await w.converge();
    expect(owners(w, "www-web-0")).toEqual(["ConfigMap/other"]);
  });
});
