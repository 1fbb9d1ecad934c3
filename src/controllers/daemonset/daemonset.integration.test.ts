/**
 * The DaemonSet controller running with its informers beside the simulated kubelet (scheduler
 * and nodes), on the fake clock: one pod per simulated node, each bound to the node its affinity
 * names; a template change rolled out with maxUnavailable 1; a NoExecute taint evicting the pod of
 * that node; the taint's removal (a node update) starting a pod there again.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Node, Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { PodLifecycleSimulator } from "../podlifecycle/simulator.js";
import { DaemonSetsController } from "./controller.js";
import { getTargetNodeName } from "./util.js";

function daemonSet(): DaemonSet {
  return {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name: "agent", namespace: "default", generation: 1 },
    spec: {
      selector: { matchLabels: { app: "agent" } },
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
      template: { metadata: { labels: { app: "agent" } }, spec: { restartPolicy: "Always", containers: [{ name: "agent", image: "agent:1" }] } },
    },
  };
}

describe("DaemonSet controller with the simulated kubelet, on the fake clock", () => {
  it("one pod per node, a rolling update to a new image, a NoExecute taint evicting", async () => {
    const f = new ControllerFixture({ clock: new FakeClock() });
    const kubelet = new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, workers: 2 });
    new DaemonSetsController(f.manager, { workers: 2 });
    f.seedAPI(builtin.daemonSets, daemonSet());
    await f.start();
    const dss = f.client.resource(builtin.daemonSets, "default");
    const ds = () => f.client.tracker.get(builtin.daemonSets, "default", "agent") as unknown as DaemonSet;
    const pods = () => (f.client.tracker.list(builtin.pods, "default") as unknown as Pod[]).filter((p) => !p.metadata?.deletionTimestamp);
    const settled = (n: number, image: string) => () => {
      const s = ds().status;
      const ps = pods();
      return (
        s?.observedGeneration === ds().metadata?.generation &&
        s?.desiredNumberScheduled === n &&
        s?.updatedNumberScheduled === n &&
        s?.numberAvailable === n &&
        ps.length === n &&
        ps.every((p) => p.spec?.containers[0].image === image && p.status?.phase === "Running")
      );
    };
    try {
      expect(kubelet.nodeNames).toHaveLength(3);
      await f.eventually(settled(3, "agent:1"), { maxSteps: 5000, stepMs: 50, what: "three running daemon pods" });
      // Each pod runs on the node its affinity names, one per node.
      const placed = pods().map((p) => [p.spec?.nodeName, getTargetNodeName({ ...p, spec: { ...p.spec!, nodeName: undefined } })]);
      for (const [bound, wanted] of placed) expect(bound).toBe(wanted);
      expect(new Set(placed.map(([n]) => n))).toEqual(new Set(kubelet.nodeNames));

      const cur = ds();
      await dss.update({
        ...cur,
        metadata: { ...cur.metadata, generation: 2 },
        spec: { ...cur.spec!, template: { ...cur.spec!.template, spec: { ...cur.spec!.template.spec!, containers: [{ name: "agent", image: "agent:2" }] } } },
      });
      await f.eventually(settled(3, "agent:2"), { maxSteps: 10_000, stepMs: 50, what: "the rollout to agent:2" });
      const revisions = f.client.tracker.list(builtin.controllerRevisions, "default");
      expect(revisions.map((r) => (r as unknown as { revision: number }).revision).sort()).toEqual([1, 2]);

      const nodes = f.client.resource(builtin.nodes);
      const tainted = kubelet.nodeNames[0];
      const node = (await nodes.get(tainted)) as Node;
      await nodes.update({ ...node, spec: { ...node.spec, taints: [{ key: "dedicated", value: "x", effect: "NoExecute" }] } });
      await f.eventually(settled(2, "agent:2"), { maxSteps: 10_000, stepMs: 50, what: "the pod of the tainted node gone" });
      expect(pods().map((p) => p.spec?.nodeName)).not.toContain(tainted);

      // The taint removed: the node update requeues the DaemonSet, which starts a pod there again.
      const again = (await nodes.get(tainted)) as Node;
      await nodes.update({ ...again, spec: { ...again.spec, taints: [] } });
      await f.eventually(settled(3, "agent:2"), { maxSteps: 10_000, stepMs: 50, what: "a pod on the untainted node" });
      expect(pods().map((p) => p.spec?.nodeName)).toContain(tainted);
      expect(f.recorder.events.filter((e) => e.startsWith("Normal SuccessfulCreate Created pod: agent-"))).toHaveLength(7);
    } finally {
      await f.stop();
    }
  });
});
