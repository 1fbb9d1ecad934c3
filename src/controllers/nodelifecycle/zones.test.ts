/**
 * Per-zone eviction rate limiting, restating upstream pkg/controller/nodelifecycle:
 * node_lifecycle_controller_test.go TestMonitorNodeHealthEvictPodsWithDisruption (zone states
 * before and after a change, and whether node0 gets its NoExecute taint), the rate limits of
 * Normal, small and large PartialDisruption zones (the QPS functions), and the all-zones
 * FullDisruption mode; scheduler/rate_limited_queue_test.go (TestAddNode, TestDelNode, TestTry,
 * TestTryOrdering, TestSwapLimiter); ComputeZoneState and GetZoneKey. On ControllerFixture with
 * its FakeClock: the token buckets refill on it.
 */
import { describe, expect, it } from "vitest";
import type { Node, NodeCondition } from "../../apimachinery/api/core/v1.js";
import { FakeClock } from "../../apimachinery/clock.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { NodeLifecycleController, type NodeLifecycleControllerOptions } from "./controller.js";
import { RateLimitedTimedQueue } from "./ratelimitedqueue.js";
import { computeZoneState, zoneEvictionRate, zoneID, zoneKey, type ZoneState } from "./zones.js";

const T0 = Date.UTC(2015, 0, 1, 12);

function node(name: string, region: string, zone: string, ready: "True" | "False" | "Unknown", labels: Record<string, string> = {}): Node {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      uid: `uid-${name}`,
      creationTimestamp: formatTime(Date.UTC(2012, 0, 1)),
      labels: { "topology.kubernetes.io/region": region, "topology.kubernetes.io/zone": zone, ...labels },
    },
    spec: {},
    status: { conditions: [{ type: "Ready", status: ready, lastHeartbeatTime: formatTime(T0), lastTransitionTime: formatTime(T0) }] },
  };
}

function setup(nodes: Node[], opts: NodeLifecycleControllerOptions = {}) {
  const f = new ControllerFixture({ clock: new FakeClock(T0) });
  const c = new NodeLifecycleController(f.manager, opts);
  f.seed(builtin.nodes, ...nodes);
  const all = () => f.client.tracker.list(builtin.nodes, "") as unknown as Node[];
  const get = (name: string) => f.client.tracker.get(builtin.nodes, "", name) as unknown as Node;
  const refresh = () => {
    for (const n of all()) f.seedCache(builtin.nodes, n);
  };
  /** Every node's sync, then the zone pass — one round of the running controller. */
  const round = async () => {
    for (const n of all()) {
      await c.sync(n.metadata?.name ?? "", f.client);
      refresh();
    }
    const r = await c.zonePass(f.client);
    refresh();
    return r;
  };
  /** A kubelet's status write (a fresh heartbeat), as the informer delivers it. */
  const setReady = async (name: string, status: "True" | "False" | "Unknown") => {
    const cur = get(name);
    const t = formatTime(f.clock.now());
    await f.client.resource(builtin.nodes).updateStatus({ ...cur, status: { conditions: [{ type: "Ready", status, lastHeartbeatTime: t, lastTransitionTime: t }] } });
    refresh();
  };
  const noExecute = (name: string) => (get(name).spec?.taints ?? []).filter((t) => t.effect === "NoExecute").map((t) => t.key);
  const tainted = () => all().filter((n) => noExecute(n.metadata?.name ?? "").length > 0).map((n) => n.metadata?.name).sort();
  const states = () => Object.fromEntries(c.zones());
  return { f, c, get, round, setReady, noExecute, tainted, states };
}

const z1 = zoneID("region1", "zone1");
const z2 = zoneID("region1", "zone2");
const r2z2 = zoneID("region2", "zone2");

describe("TestMonitorNodeHealthEvictPodsWithDisruption", () => {
  // Each case: nodes (node0 is the one whose taint is checked), then after an hour the new Ready
  // statuses, the states before and after, and whether node0 ends up tainted NoExecute.
  it.each<{ name: string; nodes: Node[]; updated: Record<string, "True" | "Unknown">; initial: Record<string, ZoneState>; following: Record<string, ZoneState>; taint: boolean }>([
    {
      name: "Network Disruption: Only zone is down - eviction shouldn't take place.",
      nodes: [node("node0", "region1", "zone1", "Unknown"), node("node1", "region1", "zone1", "Unknown")],
      updated: {},
      initial: { [z1]: "FullDisruption" },
      following: { [z1]: "FullDisruption" },
      taint: false,
    },
    {
      name: "Network Disruption: Both zones down - eviction shouldn't take place.",
      nodes: [node("node0", "region1", "zone1", "Unknown"), node("node1", "region2", "zone2", "Unknown")],
      updated: {},
      initial: { [z1]: "FullDisruption", [r2z2]: "FullDisruption" },
      following: { [z1]: "FullDisruption", [r2z2]: "FullDisruption" },
      taint: false,
    },
    {
      name: "Network Disruption: One zone is down - eviction should take place.",
      nodes: [node("node0", "region1", "zone1", "Unknown"), node("node1", "region1", "zone2", "True")],
      updated: { node1: "True" },
      initial: { [z1]: "FullDisruption", [z2]: "Normal" },
      following: { [z1]: "FullDisruption", [z2]: "Normal" },
      taint: true,
    },
    {
      name: "Initially both zones down, one comes back - eviction should take place",
      nodes: [node("node0", "region1", "zone1", "Unknown"), node("node1", "region1", "zone2", "Unknown")],
      updated: { node1: "True" },
      initial: { [z1]: "FullDisruption", [z2]: "FullDisruption" },
      following: { [z1]: "FullDisruption", [z2]: "Normal" },
      taint: true,
    },
    {
      name: "Zone is partially disrupted - eviction should take place (its rate: the partial-disruption QPS)",
      nodes: [
        node("node0", "region1", "zone1", "Unknown"),
        node("node1", "region1", "zone1", "Unknown"),
        node("node2", "region1", "zone1", "Unknown"),
        node("node3", "region1", "zone1", "Unknown"),
        node("node4", "region1", "zone1", "True"),
      ],
      updated: { node4: "True" },
      initial: { [z1]: "PartialDisruption" },
      following: { [z1]: "PartialDisruption" },
      taint: true,
    },
  ])("$name", async ({ nodes, updated, initial, following, taint }) => {
    // Upstream's test makes the partial-disruption rate the test rate; here: a zone of 5 is "large".
    const env = setup(nodes, { largeClusterSizeThreshold: 4, secondaryNodeEvictionRate: 0.1 });
    await env.round();
    expect(env.states()).toEqual(initial);
    env.f.clock.step(60 * 60_000);
    for (const [name, status] of Object.entries(updated)) await env.setReady(name, status);
    await env.round();
    expect(env.states()).toEqual(following);
    // Upstream retries the tainting pass for up to a minute; here the clock moves 10 s a time.
    for (let i = 0; i < 6 && env.noExecute("node0").length === 0; i++) {
      env.f.clock.step(10_000);
      await env.c.zonePass(env.f.client);
    }
    expect(env.noExecute("node0")).toEqual(taint ? ["node.kubernetes.io/unreachable"] : []);
  });
});

describe("zone rate limits", () => {
  /** `n` nodes in zone1, the first `down` of them Unknown. */
  const zone = (n: number, down: number) => Array.from({ length: n }, (_, i) => node(`node${i}`, "region1", "zone1", i < down ? "Unknown" : "True"));

  it("Normal zone: the first node at once, then one every 1/--node-eviction-rate (10 s)", async () => {
    const env = setup(zone(10, 3));
    const r = await env.round();
    expect(env.states()).toEqual({ [z1]: "Normal" });
    expect(env.tainted()).toEqual(["node0"]);
    // Requeued for the next token.
    expect(r.requeueAfterMs).toBe(10_000);
    env.f.clock.step(9_999);
    await env.c.zonePass(env.f.client);
    expect(env.tainted()).toEqual(["node0"]);
    env.f.clock.step(1);
    await env.c.zonePass(env.f.client);
    expect(env.tainted()).toEqual(["node0", "node1"]);
    env.f.clock.step(10_000);
    expect((await env.c.zonePass(env.f.client)).requeueAfterMs).toBeUndefined();
    expect(env.tainted()).toEqual(["node0", "node1", "node2"]);
    const metric = await env.f.registry.getSingleMetric("node_collector_evictions_total")?.get();
    expect(metric?.values).toEqual([{ labels: { zone: "region1/zone1" }, value: 3 }]);
  });

  it("PartialDisruption in a small zone (≤ --large-cluster-size-threshold): no tainting", async () => {
    const env = setup(zone(10, 6));
    const r = await env.round();
    expect(env.states()).toEqual({ [z1]: "PartialDisruption" });
    expect(r.requeueAfterMs).toBeUndefined();
    env.f.clock.step(3_600_000);
    await env.c.zonePass(env.f.client);
    expect(env.tainted()).toEqual([]);
    expect(env.c.waitingForTaint(z1)).toEqual(["node0", "node1", "node2", "node3", "node4", "node5"]);
  });

  it("PartialDisruption in a large zone: one node every 1/--secondary-node-eviction-rate (100 s)", async () => {
    const env = setup(zone(60, 40));
    await env.round();
    expect(env.states()).toEqual({ [z1]: "PartialDisruption" });
    // The swap from the initial bucket, which still had its token, keeps one: the first at once.
    expect(env.tainted()).toHaveLength(1);
    env.f.clock.step(99_999);
    await env.c.zonePass(env.f.client);
    expect(env.tainted()).toHaveLength(1);
    env.f.clock.step(1);
    await env.c.zonePass(env.f.client);
    expect(env.tainted()).toHaveLength(2);
  });

  it("zones are limited separately", async () => {
    const env = setup([...["a0", "a1", "a2"].map((n, i) => node(n, "r", "a", i < 2 ? "Unknown" : "True")), ...["b0", "b1", "b2"].map((n, i) => node(n, "r", "b", i < 2 ? "Unknown" : "True"))]);
    await env.round();
    expect(env.tainted()).toEqual(["a0", "b0"]);
  });

  it("every zone in FullDisruption: NoExecute taints removed, tainting stopped; grace periods restart when a zone is back", async () => {
    const env = setup([node("node0", "region1", "zone1", "Unknown"), node("node1", "region1", "zone2", "True")]);
    await env.round();
    expect(env.tainted()).toEqual(["node0"]);
    // zone2's node stops posting too: after the grace period it is Unknown, and every zone is down.
    env.f.clock.step(50_001);
    await env.round();
    await env.round();
    expect(env.states()).toEqual({ [z1]: "FullDisruption", [z2]: "FullDisruption" });
    expect(env.tainted()).toEqual([]);
    expect(env.noExecute("node1")).toEqual([]);
    // The NoSchedule taints stay: the scheduler must still keep off.
    expect((env.get("node0").spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`)).toEqual(["node.kubernetes.io/unreachable:NoSchedule"]);
    env.f.clock.step(3_600_000);
    await env.round();
    expect(env.tainted()).toEqual([]);

    // node1's kubelet is back: zone2 Normal, zone1 tainted again at the normal rate.
    await env.setReady("node1", "True");
    await env.round();
    expect(env.states()).toEqual({ [z1]: "FullDisruption", [z2]: "Normal" });
    // The swap from the stopped limiter starts the new bucket empty: the first token in 10 s.
    expect(env.tainted()).toEqual([]);
    env.f.clock.step(10_000);
    await env.c.zonePass(env.f.client);
    expect(env.tainted()).toEqual(["node0"]);
  });

  it("a node labelled node.kubernetes.io/exclude-disruption does not count toward its zone's state", async () => {
    const env = setup([node("node0", "region1", "zone1", "Unknown"), node("node1", "region1", "zone1", "True", { "node.kubernetes.io/exclude-disruption": "" })]);
    await env.round();
    expect(env.states()).toEqual({ [z1]: "FullDisruption" });
    expect(env.tainted()).toEqual([]);
  });

  it("zoneEvictionRate: the QPS functions", () => {
    const rates = { nodeEvictionRate: 0.1, secondaryNodeEvictionRate: 0.01, largeClusterSizeThreshold: 50 };
    expect([zoneEvictionRate("Normal", 10, rates), zoneEvictionRate("PartialDisruption", 50, rates), zoneEvictionRate("PartialDisruption", 51, rates), zoneEvictionRate("FullDisruption", 10, rates)]).toEqual([0.1, 0, 0.01, 0.1]);
  });
});

describe("ComputeZoneState", () => {
  const conds = (ready: number, notReady: number, missing = 0): Array<NodeCondition | undefined> => [
    ...Array.from({ length: ready }, () => ({ type: "Ready", status: "True" })),
    ...Array.from({ length: notReady }, () => ({ type: "Ready", status: "Unknown" })),
    ...Array.from({ length: missing }, () => undefined),
  ];
  it.each<[string, Array<NodeCondition | undefined>, number, ZoneState]>([
    ["all ready", conds(3, 0), 0, "Normal"],
    ["none ready", conds(0, 2), 2, "FullDisruption"],
    ["a missing condition counts as not ready", conds(0, 0, 1), 1, "FullDisruption"],
    ["2 of 3 not ready: not more than 2", conds(1, 2), 2, "Normal"],
    ["3 of 5 not ready: 60% ≥ 55%", conds(2, 3), 3, "PartialDisruption"],
    ["3 of 6 not ready: 50% < 55%", conds(3, 3), 3, "Normal"],
    ["no nodes", [], 0, "Normal"],
  ])("%s", (_n, c, notReady, state) => {
    expect(computeZoneState(c, 0.55)).toEqual({ notReady, state });
  });
});

describe("GetZoneKey", () => {
  const labelled = (labels: Record<string, string>): Node => ({ metadata: { name: "n", labels } });
  it.each<[string, Record<string, string>, string]>([
    ["no labels", {}, ""],
    ["stable region and zone", { "topology.kubernetes.io/region": "r", "topology.kubernetes.io/zone": "z" }, "r:\0:z"],
    ["beta labels when the stable ones are absent", { "failure-domain.beta.kubernetes.io/region": "r", "failure-domain.beta.kubernetes.io/zone": "z" }, "r:\0:z"],
    ["stable wins over beta", { "topology.kubernetes.io/zone": "z", "failure-domain.beta.kubernetes.io/zone": "old" }, ":\0:z"],
    ["region only", { "topology.kubernetes.io/region": "r" }, "r:\0:"],
  ])("%s", (_n, labels, want) => {
    expect(zoneKey(labelled(labels))).toBe(want);
  });
});

describe("RateLimitedTimedQueue", () => {
  const always = (clock: FakeClock) => new RateLimitedTimedQueue(Infinity, clock);

  it("TestAddNode: in order, once each", () => {
    const q = always(new FakeClock(T0));
    expect([q.add("first", "11111"), q.add("second", "22222"), q.add("third", "33333"), q.add("first", "11111")]).toEqual([true, true, true, false]);
    expect(q.waiting()).toEqual(["first", "second", "third"]);
  });

  it("TestDelNode: a removed name leaves the queue and may be added again", () => {
    const q = always(new FakeClock(T0));
    q.add("first", "1");
    q.add("second", "2");
    q.add("third", "3");
    expect(q.remove("second")).toBe(true);
    expect(q.remove("second")).toBe(false);
    expect(q.waiting()).toEqual(["first", "third"]);
    expect(q.add("second", "2")).toBe(true);
    expect(q.waiting()).toEqual(["first", "third", "second"]);
  });

  it("TestTry: processed items leave the queue but stay members; a refused one is retried after its wait", async () => {
    const clock = new FakeClock(T0);
    const q = always(clock);
    for (const v of ["first", "second", "third"]) q.add(v, v);
    await q.try(async (v) => (v.value === "second" ? { ok: false, waitMs: 1000 } : { ok: true }));
    expect(q.waiting()).toEqual(["second"]);
    expect(q.add("first", "first")).toBe(false);
    await q.try(async () => ({ ok: true }));
    expect(q.waiting()).toEqual(["second"]);
    clock.step(1001);
    await q.try(async () => ({ ok: true }));
    expect(q.waiting()).toEqual([]);
  });

  it("TestTryOrdering: an item put back goes after those due sooner", async () => {
    const clock = new FakeClock(T0);
    const q = always(clock);
    for (const v of ["first", "second", "third"]) q.add(v, v);
    const order: string[] = [];
    let refused = false;
    await q.try(async (v) => {
      order.push(v.value);
      if (v.value === "first" && !refused) {
        refused = true;
        return { ok: false, waitMs: 0 };
      }
      return { ok: true };
    });
    expect(order).toEqual(["first", "second", "third"]);
    clock.step(1);
    await q.try(async (v) => (order.push(v.value), { ok: true }));
    expect(order).toEqual(["first", "second", "third", "first"]);
  });

  it("a token bucket of burst 1: one item, then one per 1/qps", async () => {
    const clock = new FakeClock(T0);
    const q = new RateLimitedTimedQueue(0.5, clock);
    for (const v of ["a", "b", "c"]) q.add(v, v);
    const done: string[] = [];
    const take = () => q.try(async (v) => (done.push(v.value), { ok: true }));
    await take();
    expect(done).toEqual(["a"]);
    expect(q.nextAttemptInMs()).toBe(2000);
    clock.step(1999);
    await take();
    expect(done).toEqual(["a"]);
    clock.step(1);
    await take();
    expect(done).toEqual(["a", "b"]);
  });

  it("TestSwapLimiter: 0 never grants; the same rate keeps the bucket; a new rate starts drained when the old bucket was empty", async () => {
    const clock = new FakeClock(T0);
    const q = new RateLimitedTimedQueue(0.1, clock);
    q.add("a", "a");
    q.add("b", "b");
    q.swapLimiter(0);
    expect(q.qps).toBe(0);
    await q.try(async () => ({ ok: true }));
    expect(q.waiting()).toEqual(["a", "b"]);
    expect(q.nextAttemptInMs()).toBeUndefined();
    q.swapLimiter(5);
    expect(q.qps).toBe(5);
    // The stopped limiter had no token: the new bucket starts empty (200 ms to the first).
    expect(q.nextAttemptInMs()).toBe(200);
    clock.step(200);
    await q.try(async () => ({ ok: true }));
    expect(q.waiting()).toEqual(["b"]);
    q.swapLimiter(5);
    expect(q.nextAttemptInMs()).toBe(200);
  });
});
