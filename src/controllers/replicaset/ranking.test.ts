import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { getDeletionCost, getPodsToDelete, lessActivePod, POD_DELETION_COST_ANNOTATION, sortActivePodsWithRanks } from "./ranking.js";
import { formatTime } from "./podutil.js";

const now = Date.UTC(2026, 0, 15, 12, 0, 0);
const hour = 3600_000;
const then1Month = now - 31 * 24 * hour;
const then2Hours = now - 2 * hour;
const then5Hours = now - 5 * hour;
const then8Hours = now - 8 * hour;

function pod(
  name: string,
  nodeName: string,
  phase: string,
  ready: boolean,
  restarts: number,
  readySince: number | undefined,
  created: number | undefined,
  annotations?: Record<string, string>,
): Pod {
  return {
    metadata: {
      name,
      ...(created !== undefined ? { creationTimestamp: formatTime(created) } : {}),
      ...(annotations ? { annotations } : {}),
    },
    spec: { containers: [], ...(nodeName ? { nodeName } : {}) },
    status: {
      phase,
      ...(ready
        ? {
            conditions: [{ type: "Ready", status: "True", ...(readySince !== undefined ? { lastTransitionTime: formatTime(readySince) } : {}) }],
            containerStatuses: [{ name: "c", image: "i", imageID: "", ready: true, restartCount: restarts }],
          }
        : {}),
    },
  };
}

// Upstream TestSortingActivePodsWithRanks, restated.
const unscheduledPod = pod("unscheduled", "", "Pending", false, 0, undefined, undefined);
const scheduledPendingPod = pod("pending", "node", "Pending", false, 0, undefined, undefined);
const unknownPhasePod = pod("unknown-phase", "node", "Unknown", false, 0, undefined, undefined);
const runningNotReadyPod = pod("not-ready", "node", "Running", false, 0, undefined, undefined);
const runningReadyNoLastTransitionTimePod = pod("ready-no-last-transition-time", "node", "Running", true, 0, undefined, undefined);
const runningReadyNow = pod("ready-now", "node", "Running", true, 0, now, now);
const runningReadyThen = pod("ready-then", "node", "Running", true, 0, then1Month, then1Month);
const runningReadyNowHighRestarts = pod("ready-high-restarts", "node", "Running", true, 9001, now, now);
const runningReadyNowCreatedThen = pod("ready-now-created-then", "node", "Running", true, 0, now, then1Month);
const lowPodDeletionCost = pod("low-deletion-cost", "node", "Running", true, 0, now, then1Month, { [POD_DELETION_COST_ANNOTATION]: "10" });
const highPodDeletionCost = pod("high-deletion-cost", "node", "Running", true, 0, now, then1Month, { [POD_DELETION_COST_ANNOTATION]: "100" });
const unscheduled5Hours = pod("unscheduled-5-hours", "", "Pending", false, 0, then5Hours, then5Hours);
const unscheduled8Hours = pod("unscheduled-10-hours", "", "Pending", false, 0, then8Hours, then8Hours);
const ready2Hours = pod("ready-2-hours", "", "Running", true, 0, then2Hours, then1Month);
const ready5Hours = pod("ready-5-hours", "", "Running", true, 0, then5Hours, then1Month);
const ready10Hours = pod("ready-10-hours", "", "Running", true, 0, then8Hours, then1Month);

describe("ActivePodsWithRanks ordering", () => {
  const equal: Array<[Pod, Pod?]> = [
    [unscheduledPod],
    [scheduledPendingPod],
    [unknownPhasePod],
    [runningNotReadyPod],
    [runningReadyNowCreatedThen],
    [runningReadyNow],
    [runningReadyThen],
    [runningReadyNowHighRestarts],
    // Same power-of-two age bucket: equivalent (UIDs are equal here).
    [unscheduled5Hours, unscheduled8Hours],
    [ready5Hours, ready10Hours],
  ];
  it.each(equal.map(([a, b], i) => [i, a, b ?? a] as const))("equality %i", (_i, a, b) => {
    expect(lessActivePod(a, 1, b, 1, now)).toBe(false);
    expect(lessActivePod(b, 1, a, 1, now)).toBe(false);
  });

  const inequal: Array<[Pod, number, Pod, number]> = [
    [unscheduledPod, 1, scheduledPendingPod, 2],
    [unscheduledPod, 2, scheduledPendingPod, 1],
    [scheduledPendingPod, 1, unknownPhasePod, 2],
    [unknownPhasePod, 1, runningNotReadyPod, 2],
    [runningNotReadyPod, 1, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNoLastTransitionTimePod, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNoLastTransitionTimePod, 1],
    [runningReadyNow, 1, runningReadyThen, 1],
    [runningReadyNow, 2, runningReadyThen, 1],
    [runningReadyNowHighRestarts, 1, runningReadyNow, 1],
    [runningReadyNow, 2, runningReadyNowHighRestarts, 1],
    [runningReadyNow, 1, runningReadyNowCreatedThen, 1],
    [runningReadyNowCreatedThen, 2, runningReadyNow, 1],
    [lowPodDeletionCost, 2, highPodDeletionCost, 1],
    [ready2Hours, 1, ready5Hours, 1],
  ];
  it.each(inequal.map((t, i) => [i, ...t] as const))("inequality %i", (_i, lesser, lr, greater, gr) => {
    expect(lessActivePod(lesser, lr, greater, gr, now)).toBe(true);
    expect(lessActivePod(greater, gr, lesser, lr, now)).toBe(false);
  });

  it("sorts a shuffled list into deletion order whatever the input order", () => {
    const ordered = [unscheduledPod, scheduledPendingPod, unknownPhasePod, runningNotReadyPod, runningReadyNoLastTransitionTimePod, runningReadyNowHighRestarts, runningReadyNowCreatedThen, runningReadyThen];
    // Distinct ranks play no part here: all 0.
    for (let seed = 1; seed <= 20; seed++) {
      const shuffled = [...ordered];
      let s = seed;
      for (let i = shuffled.length - 1; i > 0; i--) {
        s = (s * 1103515245 + 12345) % 2 ** 31;
        const j = s % (i + 1);
        [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
      }
      const got = sortActivePodsWithRanks(shuffled, shuffled.map(() => 0), now).pods.map((p) => p.metadata?.name);
      expect(got).toEqual(ordered.map((p) => p.metadata?.name));
    }
  });
});

describe("getDeletionCost", () => {
  it.each([
    [undefined, 0],
    ["10", 10],
    ["-5", -5],
    ["0", 0],
    ["+10", 0],
    ["008", 0],
    ["abc", 0],
    ["2147483648", 0],
    ["-2147483648", -2147483648],
  ])("%s → %d", (v, want) => {
    const p: Pod = { metadata: v === undefined ? {} : { annotations: { [POD_DELETION_COST_ANNOTATION]: v } } };
    expect(getDeletionCost(p)).toBe(want);
  });
});

describe("getPodsToDelete", () => {
  const mk = (name: string, node: string, phase = "Running", ready = true): Pod => pod(name, node, phase, ready, 0, then1Month, then1Month);

  it("prefers pods on nodes crowded with related pods", () => {
    const a = mk("a", "n1");
    const b = mk("b", "n2");
    const c = mk("c", "n2");
    const other = mk("other-rs-pod", "n1");
    const other2 = mk("other-rs-pod-2", "n1");
    // n1 holds 3 related pods, n2 holds 2: a goes first.
    expect(getPodsToDelete([a, b, c], [a, b, c, other, other2], 1, now).map((p) => p.metadata?.name)).toEqual(["a"]);
  });

  it("only counts active related pods", () => {
    const a = mk("a", "n1");
    const b = mk("b", "n2");
    const failed = { ...mk("failed", "n1"), status: { phase: "Failed" } };
    const b2 = mk("b2", "n2");
    expect(getPodsToDelete([a, b], [a, b, b2, failed], 1, now).map((p) => p.metadata?.name)).toEqual(["b"]);
  });

  it("deletes unscheduled, pending and not-ready pods before ready ones", () => {
    const ready = mk("ready", "n1");
    const notReady = mk("not-ready", "n1", "Running", false);
    const pending = mk("pending", "n1", "Pending", false);
    const unscheduled = mk("unscheduled", "", "Pending", false);
    const got = getPodsToDelete([ready, notReady, pending, unscheduled], [], 3, now).map((p) => p.metadata?.name);
    expect(got).toEqual(["unscheduled", "pending", "not-ready"]);
  });

  it("returns every pod unsorted when all go", () => {
    const a = mk("a", "n1");
    const b = mk("b", "", "Pending", false);
    expect(getPodsToDelete([a, b], [], 2, now).map((p) => p.metadata?.name)).toEqual(["a", "b"]);
  });
});
