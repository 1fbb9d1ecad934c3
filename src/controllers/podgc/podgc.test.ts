/**
 * Cases restated from upstream pkg/controller/podgc/gc_controller_test.go: TestGCTerminated
 * (threshold, evicted pods first), TestGCOrphaned (quarantine, the node GET, the DisruptionTarget
 * condition and phase Failed), TestGCUnscheduledTerminating and TestGCTerminating (out-of-service
 * taint on a node not Ready), on ControllerFixture with a FakeClock.
 */
import { describe, expect, it } from "vitest";
import type { Node, Pod } from "../../apimachinery/api/core/v1.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { PodGCController, QUARANTINE_MS, TAINT_NODE_OUT_OF_SERVICE } from "./controller.js";

interface PodSpec {
  name: string;
  phase?: string;
  reason?: string;
  nodeName?: string;
  deleting?: boolean;
}

function pods(specs: PodSpec[]): Pod[] {
  return specs.map((p, i) => ({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: p.name,
      namespace: "default",
      uid: `uid-${p.name}`,
      creationTimestamp: formatTime(Date.UTC(1970, 0, 1, i + 1)),
      ...(p.deleting ? { deletionTimestamp: formatTime(Date.UTC(2026, 0, 1)), finalizers: ["test/keep"] } : {}),
    },
    spec: { containers: [{ name: "c", image: "i" }], ...(p.nodeName === "" ? {} : { nodeName: p.nodeName ?? "node" }) },
    status: { ...(p.phase ? { phase: p.phase } : {}), ...(p.reason ? { reason: p.reason } : {}) },
  }));
}

function node(name: string, o: { ready?: boolean; taints?: string[] } = {}): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name },
    spec: { ...(o.taints ? { taints: o.taints.map((key) => ({ key, effect: "NoExecute" })) } : {}) },
    status: { conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }] },
  };
}

function setup(podSpecs: PodSpec[], nodes: Node[], threshold = 0) {
  const f = new ControllerFixture();
  const gc = new PodGCController(f.manager, { terminatedPodThreshold: threshold });
  f.seed(builtin.pods, ...pods(podSpecs));
  f.seed(builtin.nodes, ...nodes);
  const deleted = () =>
    f
      .actions()
      .filter((a) => a.verb === "delete" && a.resource === "pods")
      .map((a) => a.name)
      .sort();
  const patched = () =>
    f
      .actions()
      .filter((a) => a.verb === "patch" && a.resource === "pods")
      .map((a) => [a.name, a.subresource, a.patch]);
  return { f, gc, deleted, patched };
}

describe("PodGC gcTerminated", () => {
  it.each<[string, PodSpec[], number, string[]]>([
    ["threshold 0 turns terminated-pod deletion off", [{ name: "a", phase: "Failed" }, { name: "b", phase: "Succeeded" }], 0, []],
    ["the oldest beyond the threshold go", [{ name: "a", phase: "Failed" }, { name: "b", phase: "Succeeded" }, { name: "c", phase: "Failed" }], 1, ["a", "b"]],
    ["running pods do not count", [{ name: "a", phase: "Running" }, { name: "b", phase: "Succeeded" }, { name: "c", phase: "Failed" }], 1, ["b"]],
    ["one over the threshold", [{ name: "a", phase: "Failed" }, { name: "b", phase: "Succeeded" }], 1, ["a"]],
    ["under the threshold nothing goes", [{ name: "a", phase: "Failed" }, { name: "b", phase: "Succeeded" }], 5, []],
    [
      "evicted pods go first",
      [{ name: "a", phase: "Failed" }, { name: "b", phase: "Succeeded" }, { name: "c", phase: "Failed", reason: "Evicted" }],
      1,
      ["a", "c"],
    ],
    ["pending and unknown pods are not terminated", [{ name: "a", phase: "Pending" }, { name: "b", phase: "Unknown" }], 1, []],
  ])("%s", async (_n, specs, threshold, want) => {
    const env = setup(specs, [node("node")], threshold);
    await env.gc.gc(env.f.client);
    expect(env.deleted()).toEqual(want);
    // Terminated pods already have their final phase: no status patch.
    expect(env.patched()).toEqual([]);
    const del = env.f.actions().find((a) => a.verb === "delete");
    if (del) expect(del.options).toMatchObject({ gracePeriodSeconds: 0 });
  });
});

describe("PodGC gcOrphaned", () => {
  it.each<[string, PodSpec[], string[]]>([
    ["terminated pods on a missing node", [{ name: "a", phase: "Failed" }, { name: "b", phase: "Succeeded" }], ["a", "b"]],
    ["a running pod on a missing node", [{ name: "a", phase: "Running" }], ["a"]],
  ])("%s: deleted only after the quarantine", async (_n, specs, want) => {
    const env = setup(specs, []);
    await env.gc.gc(env.f.client);
    expect(env.deleted()).toEqual([]);
    env.f.clock.step(QUARANTINE_MS - 1);
    await env.gc.gc(env.f.client);
    expect(env.deleted()).toEqual([]);
    env.f.clock.step(1);
    await env.gc.gc(env.f.client);
    expect(env.deleted()).toEqual(want);
    // The node is confirmed gone with a GET first.
    expect(env.f.actions().some((a) => a.verb === "get" && a.resource === "nodes" && a.name === "node")).toBe(true);
  });

  it("marks a running orphan Failed with DisruptionTarget DeletionByPodGC before deleting it", async () => {
    const env = setup([{ name: "a", phase: "Running" }], []);
    await env.gc.gc(env.f.client);
    env.f.clock.step(QUARANTINE_MS);
    await env.gc.gc(env.f.client);
    const now = formatTime(env.f.clock.now());
    expect(env.patched()).toEqual([
      [
        "a",
        "status",
        {
          metadata: { uid: "uid-a" },
          status: { phase: "Failed", conditions: [{ type: "DisruptionTarget", status: "True", reason: "DeletionByPodGC", message: "PodGC: node no longer exists", lastTransitionTime: now }] },
        },
      ],
    ]);
    const verbs = env.f.actions().filter((a) => a.resource === "pods").map((a) => a.verb);
    expect(verbs).toEqual(["patch", "delete"]);
  });

  it("keeps pods whose node is in the API though not yet in the cache", async () => {
    const env = setup([{ name: "a", phase: "Running" }], []);
    env.f.seedAPI(builtin.nodes, node("node"));
    await env.gc.gc(env.f.client);
    env.f.clock.step(QUARANTINE_MS);
    await env.gc.gc(env.f.client);
    expect(env.deleted()).toEqual([]);
  });
});

describe("PodGC gcUnscheduledTerminating", () => {
  it.each<[string, PodSpec[], string[]]>([
    [
      "unscheduled pods in any phase are deleted",
      [
        { name: "a", phase: "Failed", deleting: true, nodeName: "" },
        { name: "b", phase: "Succeeded", deleting: true, nodeName: "" },
        { name: "c", phase: "Running", deleting: true, nodeName: "" },
      ],
      ["a", "b", "c"],
    ],
    [
      "scheduled or not terminating pods are not",
      [
        { name: "a", phase: "Failed", nodeName: "" },
        { name: "b", phase: "Succeeded", nodeName: "node" },
        { name: "c", phase: "Running", deleting: true, nodeName: "node" },
      ],
      [],
    ],
  ])("%s", async (_n, specs, want) => {
    const env = setup(specs, [node("node")], -1);
    await env.gc.gcUnscheduledTerminating(env.f.client, env.f.informers.forResource(builtin.pods).lister().list());
    expect(env.deleted()).toEqual(want);
  });
});

describe("PodGC gcTerminating", () => {
  it.each<[string, Node[], PodSpec[], string[]]>([
    [
      "terminating pods on a NotReady out-of-service node are deleted",
      [node("worker-0", { ready: false, taints: [TAINT_NODE_OUT_OF_SERVICE] }), node("worker-1", { ready: false }), node("worker-2")],
      [
        { name: "a", phase: "Running", deleting: true, nodeName: "worker-0" },
        { name: "b", phase: "Running", deleting: true, nodeName: "worker-1" },
        { name: "c", phase: "Running", deleting: true, nodeName: "worker-2" },
        { name: "d", phase: "Running", nodeName: "worker-0" },
      ],
      ["a"],
    ],
    [
      "a Ready node with the taint keeps its pods",
      [node("worker-0", { taints: [TAINT_NODE_OUT_OF_SERVICE] })],
      [{ name: "a", phase: "Running", deleting: true, nodeName: "worker-0" }],
      [],
    ],
    [
      "terminated pods there are deleted without a status patch",
      [node("worker-0", { ready: false, taints: [TAINT_NODE_OUT_OF_SERVICE] })],
      [{ name: "a", phase: "Succeeded", deleting: true, nodeName: "worker-0" }],
      ["a"],
    ],
  ])("%s", async (_n, nodes, specs, want) => {
    const env = setup(specs, nodes, -1);
    await env.gc.gc(env.f.client);
    expect(env.deleted()).toEqual(want);
    for (const [name, , patch] of env.patched()) {
      expect(want).toContain(name);
      expect(patch).toMatchObject({ status: { phase: "Failed" } });
    }
  });
});

describe("PodGC running", () => {
  it("passes every gcCheckPeriod on the clock", async () => {
    const f = new ControllerFixture();
    new PodGCController(f.manager, { terminatedPodThreshold: 1 });
    f.seed(builtin.nodes, node("node"));
    f.seed(builtin.pods, ...pods([{ name: "a", phase: "Failed" }]));
    await f.start();
    try {
      await f.settle();
      expect(f.client.tracker.list(builtin.pods, "default").length).toBe(1);
      await f.client.resource(builtin.pods, "default").create(pods([{ name: "b", phase: "Succeeded" }])[0]);
      await f.eventually(() => f.client.tracker.list(builtin.pods, "default").length === 1, { what: "the older pod to be collected", stepMs: 1000 });
      expect(f.client.tracker.list(builtin.pods, "default").map((p) => p.metadata?.name)).toEqual(["b"]);
    } finally {
      await f.stop();
    }
  });
});
