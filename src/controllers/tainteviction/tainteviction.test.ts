/**
 * Taint eviction, restating upstream pkg/controller/tainteviction/taint_eviction_test.go:
 * TestCreatePod (untainted node, tainted node, finite / infinite / non-matching toleration),
 * TestUpdateNode (taint added → eviction; taint removed → cancelled), TestUpdateNodeWithMultipleTaints
 * (the smallest tolerationSeconds wins), TestGetMinTolerationTime, and the DisruptionTarget
 * condition of addConditionAndDeletePod; on ControllerFixture with a FakeClock.
 */
import { describe, expect, it } from "vitest";
import type { Node, Pod, Taint, Toleration } from "../../apimachinery/api/core/v1.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { minTolerationMs, TaintEvictionController } from "./controller.js";

const taint = (key: string, value = ""): Taint => ({ key, value, effect: "NoExecute" });
const tol = (key: string, seconds?: number, value = ""): Toleration => ({ key, operator: "Equal", value, effect: "NoExecute", ...(seconds !== undefined ? { tolerationSeconds: seconds } : {}) });

function node(name: string, taints: Taint[] = []): Node {
  return { apiVersion: "v1", kind: "Node", metadata: { name, uid: `uid-${name}` }, spec: taints.length ? { taints } : {} };
}

function pod(name: string, nodeName: string, tolerations: Toleration[] = []): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", uid: `uid-${name}` },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: "c", image: "i" }], tolerations },
    status: { phase: "Running" },
  };
}

function setup(nodes: Node[], pods: Pod[]) {
  const f = new ControllerFixture();
  const c = new TaintEvictionController(f.manager);
  f.seed(builtin.nodes, ...nodes);
  f.seed(builtin.pods, ...pods);
  const sync = (name: string) => c.sync(new ObjectName("default", name), f.client);
  const deleted = () => f.actions().filter((a) => a.verb === "delete").map((a) => a.name);
  return { f, c, sync, deleted };
}

describe("TaintEvictionController (TestCreatePod)", () => {
  it.each<[string, Node, Toleration[], boolean, number | undefined]>([
    ["not scheduled - ignore", node("other", [taint("testTaint1", "taint1")]), [], false, undefined],
    ["scheduled on a node without taints", node("node1"), [], false, undefined],
    ["scheduled on a tainted node", node("node1", [taint("testTaint1", "taint1")]), [], true, undefined],
    ["scheduled on a tainted node with a finite toleration", node("node1", [taint("testTaint1", "taint1")]), [tol("testTaint1", 100, "taint1")], false, 100_000],
    ["scheduled on a tainted node with an infinite toleration", node("node1", [taint("testTaint1", "taint1")]), [tol("testTaint1", undefined, "taint1")], false, undefined],
    ["scheduled on a tainted node with a toleration for another taint", node("node1", [taint("testTaint1", "taint1")]), [tol("testTaint2", undefined, "taint2")], true, undefined],
    ["a toleration of 0 seconds evicts at once", node("node1", [taint("testTaint1", "taint1")]), [tol("testTaint1", 0, "taint1")], true, undefined],
  ])("%s", async (_n, n, tolerations, evicted, requeue) => {
    const env = setup([n], [pod("pod1", "node1", tolerations)]);
    const r = await env.sync("pod1");
    expect(env.deleted()).toEqual(evicted ? ["pod1"] : []);
    expect(r.requeueAfterMs).toBe(requeue);
  });
});

describe("TaintEvictionController timing", () => {
  it("deletes once the toleration has passed, with the DisruptionTarget condition first", async () => {
    const env = setup([node("node1", [taint("testTaint1", "taint1")])], [pod("pod1", "node1", [tol("testTaint1", 1, "taint1")])]);
    expect((await env.sync("pod1")).requeueAfterMs).toBe(1000);
    env.f.clock.step(999);
    // A later pass does not postpone the deadline.
    expect((await env.sync("pod1")).requeueAfterMs).toBe(1);
    env.f.clock.step(1);
    await env.sync("pod1");
    const acts = env.f.actions().filter((a) => a.resource === "pods");
    expect(acts.map((a) => [a.verb, a.subresource])).toEqual([
      ["patch", "status"],
      ["delete", undefined],
    ]);
    expect(acts[0].patch).toEqual({
      metadata: { uid: "uid-pod1" },
      status: { conditions: [{ type: "DisruptionTarget", status: "True", reason: "DeletionByTaintManager", message: "Taint manager: deleting due to NoExecute taint", lastTransitionTime: formatTime(env.f.clock.now()) }] },
    });
    // Deleted with the pod's own grace period.
    expect(acts[1].options).not.toHaveProperty("gracePeriodSeconds");
    expect(env.f.recorder.events).toContain("Normal TaintManagerEviction Marking for deletion Pod default/pod1");
  });

  it("TestUpdateNode: the taint removed before the deadline cancels the deletion", async () => {
    const env = setup([node("node1", [taint("testTaint1", "taint1")])], [pod("pod1", "node1", [tol("testTaint1", 10, "taint1")])]);
    await env.sync("pod1");
    // The cache shows the node without its taint (the sync reads only the cache).
    env.f.seedCache(builtin.nodes, node("node1"));
    env.f.clock.step(20_000);
    expect(await env.sync("pod1")).toEqual({});
    expect(env.deleted()).toEqual([]);
    expect(env.f.recorder.events).toContain("Normal TaintManagerEviction Cancelling deletion of Pod default/pod1");
  });

  it("TestUpdateNodeWithMultipleTaints: every taint must be tolerated; the smallest seconds win", async () => {
    const n = node("node1", [taint("t1"), taint("t2")]);
    const one = setup([n], [pod("pod1", "node1", [tol("t1", 100)])]);
    await one.sync("pod1");
    expect(one.deleted()).toEqual(["pod1"]);
    const both = setup([n], [pod("pod1", "node1", [tol("t1", 100), tol("t2", 5)])]);
    expect((await both.sync("pod1")).requeueAfterMs).toBe(5000);
  });

  it("leaves pods already being deleted", async () => {
    const p = pod("pod1", "node1");
    p.metadata = { ...p.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["keep"] };
    const env = setup([node("node1", [taint("t1")])], [p]);
    await env.sync("pod1");
    expect(env.f.writeActions()).toEqual([]);
  });
});

describe("minTolerationMs (TestGetMinTolerationTime)", () => {
  it.each<[string, Toleration[], number | undefined]>([
    ["no tolerations", [], undefined],
    ["one without seconds", [tol("a")], undefined],
    ["the smallest", [tol("a", 20), tol("b", 10), tol("c")], 10_000],
    ["negative counts as 0", [tol("a", -5)], 0],
  ])("%s", (_n, ts, want) => {
    expect(minTolerationMs(ts)).toBe(want);
  });
});
