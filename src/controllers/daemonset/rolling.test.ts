/**
 * Rolling updates, restating upstream's update_test.go: maxUnavailable without surge, maxSurge,
 * new pods that do not become ready, old pods that were never ready, no template change, OnDelete,
 * and the maxSurge + minReadySeconds walk on the fake clock; and TestGetUnavailableNumbers.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY } from "./constants.js";
import { daemonSetHash } from "./revisions.js";
import { updatedDesiredNodeCounts } from "./rolling.js";
import { DaemonSetHarness, newDaemonSet, newPod, nodes, simpleDaemonSetLabel } from "./fixture.js";
import { getTargetNodeName } from "./util.js";

type Step = [creates: number, deletes: number] | "ready" | ((h: DaemonSetHarness) => void);

const unavailable = (n: number | string): NonNullable<DaemonSet["spec"]>["updateStrategy"] => ({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: n } });
const surge = (n: number | string): NonNullable<DaemonSet["spec"]>["updateStrategy"] => ({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: n } });

interface RollCase {
  name: string;
  /** Mark the first 5 pods ready before the update. */
  readyBefore: boolean;
  update: (ds: DaemonSet) => void;
  steps: Step[];
}

const newImage = (strategy: NonNullable<DaemonSet["spec"]>["updateStrategy"]) => (ds: DaemonSet) => {
  ds.spec!.template.spec!.containers[0].image = "foo2/bar2";
  ds.spec!.updateStrategy = strategy;
};

const rollCases: RollCase[] = [
  {
    name: "TestDaemonSetUpdatesPods: maxUnavailable 2 over 5 nodes",
    readyBefore: true,
    update: newImage(unavailable(2)),
    steps: [[0, 2], [2, 0], "ready", [0, 2], [2, 0], "ready", [0, 1], [1, 0], "ready", [0, 0]],
  },
  {
    name: "TestDaemonSetUpdatesPodsWithMaxSurge: maxSurge 2 over 5 nodes",
    readyBefore: true,
    update: newImage(surge(2)),
    steps: [[2, 0], [0, 0], "ready", [2, 2], [0, 0], "ready", [5 % 2, 2], [0, 0], "ready", [0, 5 % 2], [0, 0]],
  },
  {
    name: "TestDaemonSetUpdatesWhenNewPosIsNotReady: maxUnavailable 3, new pods never ready",
    readyBefore: true,
    update: newImage(unavailable(3)),
    steps: [[0, 3], [3, 0], [0, 0]],
  },
  {
    name: "TestDaemonSetUpdatesAllOldPodsNotReady: old pods never ready are all replaced",
    readyBefore: false,
    update: newImage(unavailable(3)),
    steps: [[0, 5], [5, 0], [0, 0]],
  },
  {
    name: "TestDaemonSetUpdatesNoTemplateChanged: a strategy change alone replaces nothing",
    readyBefore: false,
    update: (ds) => (ds.spec!.updateStrategy = unavailable(3)),
    steps: [[0, 0]],
  },
  {
    name: "OnDelete: a new template replaces nothing",
    readyBefore: true,
    update: (ds) => (ds.spec!.template.spec!.containers[0].image = "foo2/bar2"),
    steps: [[0, 0], [0, 0]],
  },
  {
    name: "maxUnavailable 40% of 5 nodes rounds up to 2",
    readyBefore: true,
    update: newImage(unavailable("40%")),
    steps: [[0, 2], [2, 0], "ready", [0, 2]],
  },
];

async function run(h: DaemonSetHarness, steps: readonly Step[]): Promise<void> {
  for (const [i, step] of steps.entries()) {
    if (step === "ready") {
      h.markPodsReady();
      continue;
    }
    if (typeof step === "function") {
      step(h);
      continue;
    }
    h.clearExpectations();
    const got = await h.sync();
    expect([got.creates, got.deletes], `step ${i}`).toEqual(step);
  }
}

describe("rolling update (update_test)", () => {
  it.each(rollCases)("$name", async (c) => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 5));
    expect(await h.sync()).toEqual({ creates: 5, deletes: 0, events: 0 });
    if (c.readyBefore) h.markPodsReady();
    h.updateDaemonSet(c.update);
    await run(h, c.steps);
  });

  it("a finished rolling update leaves every pod on the new hash and the status complete", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 3));
    await h.sync();
    h.markPodsReady();
    h.updateDaemonSet(newImage(unavailable(1)));
    for (let i = 0; i < 10; i++) {
      h.clearExpectations();
      await h.sync();
      h.markPodsReady();
    }
    const hash = daemonSetHash(h.ds);
    expect(h.cachedPods().map((p) => p.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY])).toEqual([hash, hash, hash]);
    expect(h.stored().status).toMatchObject({ desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberAvailable: 3, observedGeneration: h.ds.metadata?.generation });
  });

  it("TestDaemonSetUpdatesAllOldPodsNotReadyMaxSurge: surge, minReadySeconds on the fake clock", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 5));
    await h.sync();
    h.updateDaemonSet(newImage(surge(3)));
    // Old pods that are not available are replaced at once, beyond maxSurge.
    await run(h, [[5, 0]]);
    h.f.clock.step(100_000);
    // Not yet ready new pods: the unavailable old ones go anyway.
    await run(h, [[0, 5]]);

    h.markPodsReady();
    h.updateDaemonSet((ds) => {
      ds.spec!.minReadySeconds = 15;
      ds.spec!.template.spec!.containers[0].image = "foo3/bar3";
    });
    h.f.clock.step(100_000); // t = 300 s
    await run(h, [[3, 0]]);
    const hash = daemonSetHash(h.ds);
    const isNew = (p: Pod) => p.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] === hash;
    const newOn = new Set(h.cachedPods().filter(isNew).map((p) => getTargetNodeName(p)));
    // Two updated pods ready at 300 s; one old pod on a node without an updated pod turns unready.
    let n = 2;
    h.markPodsReady((p) => isNew(p) && n-- > 0);
    let m = 1;
    h.markPodsReady((p) => !isNew(p) && !newOn.has(getTargetNodeName(p)) && m-- > 0, false);

    // 310 s: the new pods wait for minReadySeconds; the unready old pod's node gets a replacement.
    h.f.clock.step(10_000);
    await run(h, [[1, 0]]);
    // 320 s: two new pods available — their old pods go, and one more surge pod starts.
    h.f.clock.step(10_000);
    await run(h, [[1, 3]]);
    h.markPodsReady(isNew);
    // 340 s: the rest are available: the last old pods go.
    h.f.clock.step(20_000);
    await run(h, [[0, 2]]);
    h.f.clock.step(10_000);
    await run(h, [[0, 0]]);
  });
});

describe("updatedDesiredNodeCounts (TestGetUnavailableNumbers)", () => {
  const mk = (strategy: NonNullable<DaemonSet["spec"]>["updateStrategy"]) => {
    const ds = newDaemonSet("x");
    ds.spec!.updateStrategy = strategy;
    return ds;
  };
  it.each([
    { name: "no nodes", ds: mk(unavailable(0)), nodes: 0, pods: 0, maxUnavailable: 0, maxSurge: 0, emptyNodes: 0 },
    { name: "two nodes with ready pods", ds: mk(unavailable(1)), nodes: 2, pods: 2, maxUnavailable: 1, maxSurge: 0, emptyNodes: 0 },
    { name: "two nodes, one without pods", ds: mk(unavailable(0)), nodes: 2, pods: 1, maxUnavailable: 1, maxSurge: 0, emptyNodes: 1 },
    { name: "two nodes, one without pods, surge", ds: mk(surge(0)), nodes: 2, pods: 1, maxUnavailable: 1, maxSurge: 0, emptyNodes: 1 },
    { name: "two nodes with pods, MaxUnavailable in percents", ds: mk(unavailable("50%")), nodes: 2, pods: 2, maxUnavailable: 1, maxSurge: 0, emptyNodes: 0 },
    { name: "two nodes with pods, MaxUnavailable in percents, surge", ds: mk(surge("50%")), nodes: 2, pods: 2, maxUnavailable: 0, maxSurge: 1, emptyNodes: 0 },
    { name: "two nodes with pods, MaxUnavailable is 100%, surge", ds: mk(surge("100%")), nodes: 2, pods: 2, maxUnavailable: 0, maxSurge: 2, emptyNodes: 0 },
    { name: "ten nodes, MaxUnavailable 50%, two pods", ds: mk(unavailable("50%")), nodes: 10, pods: 2, maxUnavailable: 5, maxSurge: 0, emptyNodes: 8 },
  ])("$name", (c) => {
    const nodeList = nodes(0, c.nodes);
    const map = new Map<string, Pod[]>();
    for (let i = 0; i < c.pods; i++) map.set(`node-${i}`, [newPod("pod-", `node-${i}`, { ...simpleDaemonSetLabel })]);
    const got = updatedDesiredNodeCounts(c.ds, nodeList, map);
    expect({ maxUnavailable: got.maxUnavailable, maxSurge: got.maxSurge }).toEqual({ maxUnavailable: c.maxUnavailable, maxSurge: c.maxSurge });
    expect([...map.values()].filter((p) => p.length === 0)).toHaveLength(c.emptyNodes);
  });

  it("an invalid percentage is an error naming the field", () => {
    expect(() => updatedDesiredNodeCounts(mk(unavailable("50")), nodes(0, 1), new Map())).toThrow(/invalid value for MaxUnavailable/);
  });
});
