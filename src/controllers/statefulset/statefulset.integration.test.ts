/**
 * The StatefulSet controller running (informers, event handlers, workers) with the simulated
 * kubelet on a fake clock: a set rolls out in ordinal order, rolls an image change out, honours
 * minReadySeconds through its own requeues, and adopts and releases pods as stateful_set_test.go's
 * adoption cases.
 */
import { describe, expect, it } from "vitest";
import type { StatefulSet, StatefulSetSpec } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { FakeClock } from "../../apimachinery/clock.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { parseTime } from "../../apimachinery/time.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { PodLifecycleSimulator } from "../podlifecycle/simulator.js";
import { StatefulSetController } from "./controller.js";
import { getOrdinal } from "./utils.js";

function sts(spec: Partial<StatefulSetSpec> = {}): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "web", namespace: "default", uid: "web-uid", generation: 1 },
    spec: {
      replicas: 3,
      serviceName: "web",
      selector: { matchLabels: { app: "web" } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1" }] } },
      ...spec,
    },
  };
}

async function running(set: StatefulSet, extra: Pod[] = []) {
  const f = new ControllerFixture({ clock: new FakeClock() });
  new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, workers: 2 });
  new StatefulSetController(f.manager, { workers: 2 });
  f.seedAPI(builtin.statefulSets, set);
  if (extra.length > 0) f.seedAPI(builtin.pods, ...extra);
  await f.start();
  const get = () => f.client.tracker.get(builtin.statefulSets, "default", "web") as unknown as StatefulSet;
  const pods = () => (f.client.tracker.list(builtin.pods, "default") as unknown as Pod[]).sort((a, b) => getOrdinal(a) - getOrdinal(b));
  const ready = (n: number) => () => {
    const s = get().status;
    return s?.readyReplicas === n && s.updatedReplicas === n && s.currentRevision === s.updateRevision && s.observedGeneration === get().metadata?.generation;
  };
  return { f, get, pods, ready };
}

describe("StatefulSet controller with the simulated kubelet", () => {
  it("rolls out in ordinal order, each pod created after its predecessor became ready, then rolls an image change out", async () => {
    const { f, get, pods, ready } = await running(sts());
    try {
      await f.eventually(ready(3), { maxSteps: 2000, stepMs: 100 });
      const ps = pods();
      expect(ps.map((p) => p.metadata?.name)).toEqual(["web-0", "web-1", "web-2"]);
      for (let i = 1; i < ps.length; i++) {
        const readyAt = parseTime(ps[i - 1].status?.conditions?.find((c) => c.type === "Ready")?.lastTransitionTime)!;
        expect(parseTime(ps[i].metadata?.creationTimestamp)!).toBeGreaterThanOrEqual(readyAt);
      }
      const set = deepCopy(get());
      set.spec!.template.spec!.containers[0].image = "nginx:2";
      set.metadata!.generation = 2;
      f.client.tracker.update(builtin.statefulSets, "default", set as unknown as KubeObject);
      await f.eventually(() => ready(3)() && pods().every((p) => p.spec?.containers[0].image === "nginx:2" && p.status?.phase === "Running"), { maxSteps: 4000, stepMs: 100 });
      expect(get().status).toMatchObject({ replicas: 3, readyReplicas: 3, currentReplicas: 3, updatedReplicas: 3, availableReplicas: 3, observedGeneration: 2 });
    } finally {
      await f.stop();
    }
  });

  it("minReadySeconds: availableReplicas catches up through the controller's own requeues", async () => {
    const { f, get } = await running(sts({ replicas: 1, minReadySeconds: 30 }));
    try {
      await f.eventually(() => get().status?.readyReplicas === 1, { maxSteps: 2000, stepMs: 100 });
      expect(get().status?.availableReplicas ?? 0).toBe(0);
      await f.eventually(() => get().status?.availableReplicas === 1, { maxSteps: 2000, stepMs: 1000 });
    } finally {
      await f.stop();
    }
  });

  it("adopts an orphan member matching the selector; leaves a non-member alone; releases an owned pod that stopped matching", async () => {
    const orphan: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "web-0", namespace: "default", labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1" }] } };
    const stranger: Pod = { apiVersion: "v1", kind: "Pod", metadata: { name: "other-0", namespace: "default", labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "x" }] } };
    const { f, pods, ready } = await running(sts({ replicas: 1 }), [orphan, stranger]);
    try {
      await f.eventually(ready(1), { maxSteps: 2000, stepMs: 100 });
      const byName = new Map(pods().map((p) => [p.metadata?.name, p]));
      expect(byName.get("web-0")?.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "StatefulSet", name: "web", uid: "web-uid", controller: true });
      expect(byName.get("other-0")?.metadata?.ownerReferences).toBeUndefined();

      // web-0 stops matching the selector: the set releases it.
      const relabelled = deepCopy(byName.get("web-0")!);
      relabelled.metadata!.labels = { app: "something-else" };
      f.client.tracker.update(builtin.pods, "default", relabelled as unknown as KubeObject);
      await f.eventually(() => (pods().find((p) => p.metadata?.name === "web-0")?.metadata?.ownerReferences ?? []).length === 0, { maxSteps: 2000, stepMs: 100 });
    } finally {
      await f.stop();
    }
  });
});
