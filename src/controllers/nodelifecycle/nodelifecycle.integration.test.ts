/**
 * A node whose simulated kubelet stops (sim.kubeloop.dev/heartbeat: "stopped"): on the fake
 * clock it turns Unknown after the grace period, is tainted unreachable, its pods are evicted by
 * the taint eviction controller after their tolerationSeconds and replaced by their ReplicaSet on
 * the other node; when the kubelet comes back the node is Ready and untainted again. And with the
 * nodes labelled into zones: the NoExecute taints come at the zone's rate, and none at all when
 * every zone is down.
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
import { LABEL_TOPOLOGY_REGION, LABEL_TOPOLOGY_ZONE } from "./zones.js";

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

  it("zones: two stopped kubelets of one zone are tainted 10 s apart; when every zone is down the NoExecute taints go", async () => {
    const f = new ControllerFixture({ clock: new FakeClock() });
    new PodLifecycleSimulator(f.manager, { nodes: 3, heartbeatIntervalMs: 10_000, workers: 2 });
    new NodeLifecycleController(f.manager);
    await f.start();
    const getNode = (n: string) => f.client.tracker.get(builtin.nodes, "", n) as unknown as Node;
    const noExecute = (n: string) => (getNode(n).spec?.taints ?? []).filter((t) => t.effect === "NoExecute" && t.key === "node.kubernetes.io/unreachable");
    const edit = async (n: string, labels: Record<string, string>, annotations: Record<string, string>) => {
      const cur = getNode(n);
      await f.client.resource(builtin.nodes).update({ ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata?.labels, ...labels }, annotations: { ...cur.metadata?.annotations, ...annotations } } });
    };
    const [a1, a2, b1] = ["kubeloop-node-1", "kubeloop-node-2", "kubeloop-node-3"];
    try {
      await f.eventually(() => [a1, a2, b1].every((n) => f.client.tracker.list(builtin.nodes, "").some((x) => x.metadata?.name === n)), { what: "three nodes", maxSteps: 2000 });
      for (const [n, zone] of [[a1, "a"], [a2, "a"], [b1, "b"]]) await edit(n, { [LABEL_TOPOLOGY_REGION]: "r", [LABEL_TOPOLOGY_ZONE]: zone }, {});
      for (const n of [a1, a2]) await edit(n, {}, { [HEARTBEAT_ANNOTATION]: "stopped" });

      await f.eventually(() => noExecute(a1).length + noExecute(a2).length > 0, { what: "the first taint", stepMs: 1000, maxSteps: 2000 });
      const first = noExecute(a1).length > 0 ? a1 : a2;
      const second = first === a1 ? a2 : a1;
      const firstAt = Date.parse(noExecute(first)[0].timeAdded ?? "");
      await f.eventually(() => noExecute(second).length > 0, { what: "the second taint", stepMs: 1000, maxSteps: 2000 });
      // --node-eviction-rate 0.1: the second token comes 10 s after the first.
      expect(Date.parse(noExecute(second)[0].timeAdded ?? "") - firstAt).toBeGreaterThanOrEqual(10_000);
      expect(noExecute(b1)).toEqual([]);

      // Zone b goes down too: every zone in FullDisruption, the NoExecute taints are removed.
      await edit(b1, {}, { [HEARTBEAT_ANNOTATION]: "stopped" });
      await f.eventually(() => getNode(b1).status?.conditions?.find((c) => c.type === "Ready")?.status === "Unknown", { what: "node 3 Unknown", stepMs: 1000, maxSteps: 2000 });
      await f.eventually(() => [a1, a2, b1].every((n) => noExecute(n).length === 0), { what: "the NoExecute taints removed", maxSteps: 2000 });
      expect((getNode(a1).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`)).toEqual(["node.kubernetes.io/unreachable:NoSchedule"]);
    } finally {
      await f.stop();
    }
  });
});
