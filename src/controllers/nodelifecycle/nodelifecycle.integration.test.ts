/**
 * A node whose simulated kubelet stops (sim.kubeloop.dev/heartbeat: "stopped"): on the fake
 * clock it turns Unknown after the grace period, is tainted unreachable, its pods are evicted by
 * the taint eviction controller after their tolerationSeconds and replaced by their ReplicaSet on
 * the other node; when the kubelet comes back the node is Ready and untainted again.
 */
import { describe, expect, it } from "vitest";
import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Node, Pod } from "../../apimachinery/api/core/v1.js";
import { FakeClock } from "../../apimachinery/clock.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { HEARTBEAT_ANNOTATION } from "../podlifecycle/nodes.js";
import { PodLifecycleSimulator } from "../podlifecycle/simulator.js";
import { ReplicaSetController } from "../replicaset/index.js";
import { TaintEvictionController } from "../tainteviction/index.js";
import { DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS, NodeLifecycleController } from "./controller.js";

// The DefaultTolerationSeconds admission plugin's tolerations, with 30 s instead of 300 s.
const tolerations = ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"].map((key) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds: 30 }));

const rs: ReplicaSet = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  metadata: { name: "web", namespace: "default", uid: "uid-web" },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "nginx" }], tolerations } },
  },
};

describe("node lifecycle with the simulated kubelet, on the fake clock", () => {
  it("a stopped kubelet's node goes Unknown and tainted, its pods are evicted and replaced; back Ready when it restarts", async () => {
    const f = new ControllerFixture({ clock: new FakeClock() });
    new PodLifecycleSimulator(f.manager, { nodes: 2, heartbeatIntervalMs: 10_000, workers: 2 });
    new NodeLifecycleController(f.manager);
    new TaintEvictionController(f.manager);
    new ReplicaSetController(f.manager, { workers: 2 });
    f.seedAPI(builtin.replicaSets, rs);
    await f.start();
    const pods = () => f.client.tracker.list(builtin.pods, "default") as unknown as Pod[];
    const getNode = (n: string) => f.client.tracker.get(builtin.nodes, "", n) as unknown as Node;
    const ready = (n: string) => getNode(n).status?.conditions?.find((c) => c.type === "Ready");
    try {
      const running = (p: Pod) => p.status?.phase === "Running" && !p.metadata?.deletionTimestamp;
      await f.eventually(() => pods().filter(running).length === 2, { what: "two running pods", maxSteps: 2000 });
      // Put both pods on node 1 as the victims: stop the node that holds at least one.
      const victimNode = pods()[0].spec?.nodeName ?? "";
      const other = victimNode === "kubeloop-node-1" ? "kubeloop-node-2" : "kubeloop-node-1";
      const onVictim = pods().filter((p) => p.spec?.nodeName === victimNode).map((p) => p.metadata?.name);
      const n = getNode(victimNode);
      await f.client.resource(builtin.nodes).update({ ...n, metadata: { ...n.metadata, annotations: { ...n.metadata?.annotations, [HEARTBEAT_ANNOTATION]: "stopped" } } });
      const stoppedAt = f.clock.now();

      await f.eventually(() => ready(victimNode)?.status === "Unknown", { what: "the node to turn Unknown", stepMs: 1000, maxSteps: 2000 });
      // Not before the grace period since the last heartbeat (at most one 10 s interval before the stop).
      expect(f.clock.now() - stoppedAt).toBeGreaterThan(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS - 10_000);
      expect(ready(victimNode)).toMatchObject({ reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status." });
      expect(ready(other)?.status).toBe("True");
      await f.eventually(() => (getNode(victimNode).spec?.taints ?? []).length === 2, { what: "the unreachable taints", maxSteps: 2000 });
      expect((getNode(victimNode).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort()).toEqual(["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]);

      // After the 30 s toleration: the victims are deleted (the fake API deletes at once; a real
      // one keeps them Terminating while their kubelet is gone) and replaced on the other node.
      const gone = (name: string | undefined) => !pods().some((p) => p.metadata?.name === name && !p.metadata?.deletionTimestamp);
      await f.eventually(
        () => onVictim.every(gone) && pods().filter((p) => running(p) && p.spec?.nodeName === other).length === 2,
        { what: "the pods evicted and replaced", stepMs: 1000, maxSteps: 4000 },
      );
      expect(f.clock.now() - stoppedAt).toBeGreaterThan(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS - 10_000 + 30_000);
      for (const name of onVictim) {
        const patch = f.client.actions().find((a) => a.verb === "patch" && a.name === name && a.subresource === "status" && JSON.stringify(a.patch).includes("DisruptionTarget"));
        expect(patch?.patch).toMatchObject({ status: { conditions: [{ type: "DisruptionTarget", status: "True", reason: "DeletionByTaintManager" }] } });
      }
      expect(f.recorder.events.filter((e) => e.startsWith("Normal TaintManagerEviction Marking for deletion Pod default/web-"))).toHaveLength(onVictim.length);

      // The kubelet restarts: Ready again, taints gone.
      const s = getNode(victimNode);
      const annotations = { ...s.metadata?.annotations };
      delete annotations[HEARTBEAT_ANNOTATION];
      await f.client.resource(builtin.nodes).update({ ...s, metadata: { ...s.metadata, annotations } });
      await f.eventually(() => ready(victimNode)?.status === "True" && (getNode(victimNode).spec?.taints ?? []).length === 0, { what: "the node Ready and untainted", maxSteps: 2000 });
    } finally {
      await f.stop();
    }
  });
});
