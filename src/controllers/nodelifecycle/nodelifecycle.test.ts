/**
 * Node lifecycle, restating upstream pkg/controller/nodelifecycle/node_lifecycle_controller_test.go
 * TestMonitorNodeHealthUpdateStatus (a node that stops posting turns Unknown after the grace
 * period with NodeStatusUnknown, one that never posted after the startup grace with
 * NodeStatusNeverUpdated, one that keeps posting — status or Lease — stays), the tainting passes
 * (TestSwapUnreachableNotReadyTaints, TestTaintsNodeByCondition, TestApplyNoExecuteTaints and the
 * removal when Ready again) and markPodsNotReady, on ControllerFixture with a FakeClock.
 */
import { describe, expect, it } from "vitest";
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { Node, Pod, Taint } from "../../apimachinery/api/core/v1.js";
import { formatMicroTime, formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS, DEFAULT_NODE_STARTUP_GRACE_PERIOD_MS, desiredTaints, NodeLifecycleController, reconcileTaints } from "./controller.js";

function node(name: string, o: { ready?: string; heartbeat?: number; noConditions?: boolean; taints?: Taint[]; unschedulable?: boolean } = {}): Node {
  const hb = formatTime(o.heartbeat ?? Date.UTC(2026, 0, 1));
  const cond = (type: string, status: string) => ({ type, status, reason: "KubeletSays", message: "", lastHeartbeatTime: hb, lastTransitionTime: formatTime(Date.UTC(2025, 0, 1)) });
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, uid: `uid-${name}`, creationTimestamp: formatTime(Date.UTC(2025, 0, 1)) },
    spec: { ...(o.taints ? { taints: o.taints } : {}), ...(o.unschedulable ? { unschedulable: true } : {}) },
    status: o.noConditions ? {} : { conditions: [cond("MemoryPressure", "False"), cond("DiskPressure", "False"), cond("PIDPressure", "False"), cond("Ready", o.ready ?? "True")] },
  };
}

function pod(name: string, nodeName: string, ready = true): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: { nodeName, containers: [{ name: "c", image: "i" }] },
    status: { phase: "Running", conditions: [{ type: "Ready", status: ready ? "True" : "False", lastTransitionTime: formatTime(Date.UTC(2025, 0, 1)) }] },
  };
}

function setup(nodes: Node[], pods: Pod[] = []) {
  const f = new ControllerFixture();
  const c = new NodeLifecycleController(f.manager);
  f.seed(builtin.nodes, ...nodes);
  f.seed(builtin.pods, ...pods);
  const get = (name: string) => f.client.tracker.get(builtin.nodes, "", name) as unknown as Node;
  /** Copies the API's node into the cache, as the informer would deliver our own write. */
  const refresh = (name: string) => f.seedCache(builtin.nodes, get(name));
  /** Writes an object to the API and the cache (a kubelet's write, as the informer delivers it). */
  const put = async <T extends Node | Lease>(r: typeof builtin.nodes | typeof builtin.leases, obj: T) => {
    const ns = obj.metadata?.namespace ?? "";
    const cur = f.client.tracker.get(r, ns, obj.metadata?.name ?? "");
    const res = f.client.resource(r as typeof builtin.nodes, ns);
    const written = r === builtin.nodes && "status" in obj ? await res.updateStatus({ ...(obj as Node), metadata: { ...obj.metadata, resourceVersion: cur.metadata?.resourceVersion } }) : await (f.client.resource(builtin.leases, ns).update({ ...(obj as Lease), metadata: { ...obj.metadata, resourceVersion: cur.metadata?.resourceVersion } }));
    f.seedCache(r as typeof builtin.nodes, written as Node);
  };
  /** One round as the running controller does it: every node's sync, then the zone pass. */
  const round = async () => {
    for (const n of f.client.tracker.list(builtin.nodes, "") as unknown as Node[]) {
      await c.sync(n.metadata?.name ?? "", f.client);
      refresh(n.metadata?.name ?? "");
    }
    const r = await c.zonePass(f.client);
    for (const n of f.client.tracker.list(builtin.nodes, "") as unknown as Node[]) refresh(n.metadata?.name ?? "");
    return r;
  };
  const conditions = (name: string) => (get(name).status?.conditions ?? []).map((x) => [x.type, x.status, x.reason, x.message]);
  const taints = (name: string) => (get(name).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
  return { f, c, get, refresh, put, round, conditions, taints };
}

describe("NodeLifecycleController health", () => {
  it("a node that stops posting turns Unknown strictly after the grace period", async () => {
    const env = setup([node("n")]);
    const first = await env.c.sync("n", env.f.client);
    expect(first.requeueAfterMs).toBe(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS + 1);
    env.f.clock.step(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS);
    await env.c.sync("n", env.f.client);
    expect(env.conditions("n").find((c) => c[0] === "Ready")?.[1]).toBe("True");
    env.f.clock.step(1);
    await env.c.sync("n", env.f.client);
    const unknown = ["Unknown", "NodeStatusUnknown", "Kubelet stopped posting node status."];
    expect(env.conditions("n")).toEqual([["MemoryPressure", ...unknown], ["DiskPressure", ...unknown], ["PIDPressure", ...unknown], ["Ready", ...unknown]]);
    const ready = env.get("n").status?.conditions?.find((c) => c.type === "Ready");
    // lastHeartbeatTime stays the kubelet's; lastTransitionTime is now.
    expect(ready?.lastHeartbeatTime).toBe(formatTime(Date.UTC(2026, 0, 1)));
    expect(ready?.lastTransitionTime).toBe(formatTime(env.f.clock.now()));
    expect(env.f.recorder.events).toContainEqual(expect.stringContaining("NodeNotReady Node n status is now: NodeNotReady"));
  });

  it("a node that never posted status turns Unknown after the startup grace period, NodeStatusNeverUpdated", async () => {
    const env = setup([node("n", { noConditions: true })]);
    await env.c.sync("n", env.f.client);
    env.f.clock.step(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS + 1);
    await env.c.sync("n", env.f.client);
    expect(env.get("n").status?.conditions ?? []).toEqual([]);
    env.f.clock.step(DEFAULT_NODE_STARTUP_GRACE_PERIOD_MS - DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS);
    await env.c.sync("n", env.f.client);
    expect(env.conditions("n").find((c) => c[0] === "Ready")).toEqual(["Ready", "Unknown", "NodeStatusNeverUpdated", "Kubelet never posted node status."]);
  });

  it.each([
    ["a new status heartbeat", "status"],
    ["a renewed Lease", "lease"],
  ])("%s restarts the grace period", async (_n, how) => {
    const env = setup([node("n")]);
    const lease: Lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "n", namespace: "kube-node-lease" }, spec: { holderIdentity: "n", renewTime: formatMicroTime(Date.UTC(2026, 0, 1)) } };
    env.f.seed(builtin.leases, lease);
    await env.c.sync("n", env.f.client);
    env.f.clock.step(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS - 1000);
    if (how === "status") await env.put(builtin.nodes, node("n", { heartbeat: env.f.clock.now() }));
    else await env.put(builtin.leases, { ...lease, spec: { ...lease.spec, renewTime: formatMicroTime(env.f.clock.now()) } });
    await env.c.sync("n", env.f.client);
    env.f.clock.step(2000);
    await env.c.sync("n", env.f.client);
    expect(env.conditions("n").find((c) => c[0] === "Ready")?.[1]).toBe("True");
    env.f.clock.step(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS);
    await env.c.sync("n", env.f.client);
    expect(env.conditions("n").find((c) => c[0] === "Ready")?.[1]).toBe("Unknown");
  });
});

describe("NodeLifecycleController taints", () => {
  it.each<[string, Parameters<typeof node>[1], string[]]>([
    ["Ready: none", { ready: "True" }, []],
    ["NotReady: not-ready NoSchedule and NoExecute", { ready: "False" }, ["node.kubernetes.io/not-ready:NoExecute", "node.kubernetes.io/not-ready:NoSchedule"]],
    ["Unknown: unreachable NoSchedule and NoExecute", { ready: "Unknown" }, ["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]],
    ["unschedulable: unschedulable NoSchedule", { ready: "True", unschedulable: true }, ["node.kubernetes.io/unschedulable:NoSchedule"]],
    [
      "NotReady → Unknown swaps the taints, keeping others",
      { ready: "Unknown", taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }, { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }, { key: "dedicated", value: "x", effect: "NoSchedule" }] },
      ["dedicated:NoSchedule", "node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"],
    ],
    [
      "Ready again: the taints go",
      { ready: "True", taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }, { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" }] },
      [],
    ],
  ])("%s", async (_n, o, want) => {
    // A second, healthy node keeps the zone out of FullDisruption (where nothing is tainted NoExecute).
    const env = setup([node("n", o), node("healthy")]);
    await env.round();
    expect(env.taints("n")).toEqual(want);
    const noExecute = env.get("n").spec?.taints?.find((t) => t.effect === "NoExecute" && t.key.startsWith("node.kubernetes.io/"));
    if (noExecute) expect(noExecute.timeAdded).toBe(formatTime(env.f.clock.now()));
  });

  it("writes nothing in steady state", async () => {
    const env = setup([node("n", { ready: "Unknown" }), node("healthy")]);
    await env.round();
    expect(env.taints("n")).toEqual(["node.kubernetes.io/unreachable:NoExecute", "node.kubernetes.io/unreachable:NoSchedule"]);
    env.f.client.clearActions();
    await env.round();
    expect(env.f.writeActions()).toEqual([]);
  });

  it("reconcileTaints keeps NoExecute taints and other keys", () => {
    const old = { key: "node.kubernetes.io/unreachable", effect: "NoExecute", timeAdded: "2025-01-01T00:00:00Z" };
    const other = { key: "dedicated", effect: "NoSchedule" };
    expect(reconcileTaints([old, other], desiredTaints(node("n", { ready: "Unknown" })))).toEqual([old, other, { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" }]);
  });
});

describe("NodeLifecycleController markPodsNotReady", () => {
  it("the pods of a node that turned Unknown get Ready=False; other nodes' pods are left", async () => {
    const env = setup([node("n"), node("m")], [pod("a", "n"), pod("b", "n", false), pod("c", "m")]);
    await env.c.sync("n", env.f.client);
    env.f.clock.step(DEFAULT_NODE_MONITOR_GRACE_PERIOD_MS + 1);
    await env.c.sync("n", env.f.client);
    const patches = env.f.actions().filter((a) => a.verb === "patch" && a.resource === "pods");
    expect(patches.map((a) => [a.name, a.subresource])).toEqual([["a", "status"]]);
    expect(patches[0].patch).toEqual({ metadata: { uid: "uid-a" }, status: { conditions: [{ type: "Ready", status: "False", lastTransitionTime: formatTime(env.f.clock.now()) }] } });
  });
});
