/**
 * Normalization (behavior.ts), as upstream horizontal_test.go's tables for
 * calculateScaleUpLimitWithScalingRules, calculateScaleDownLimitWithBehaviors,
 * convertDesiredReplicasWithRules, stabilizeRecommendation(WithBehaviors) and
 * convertDesiredReplicasWithBehaviorRate.
 */
import { describe, expect, it } from "vitest";
import type { HPAScalingRules } from "../../apimachinery/api/autoscaling/v2.js";
import { Recommendations, convertDesiredReplicasWithRules, scaleDownLimitWithRules, scaleUpLimitWithRules, type TimestampedScaleEvent } from "./behavior.js";
import { scaleDownRules, scaleUpRules } from "./controller.js";

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const ago = (s: number) => now - s * 1000;
const ev = (change: number, secondsAgo: number): TimestampedScaleEvent => ({ replicaChange: change, timestampMs: ago(secondsAgo), outdated: false });
const rules = (selectPolicy: string, ...policies: Array<[string, number, number]>): HPAScalingRules => ({ selectPolicy, policies: policies.map(([type, value, periodSeconds]) => ({ type, value, periodSeconds })) });

// Our own cases (upstream's horizontal_test.go exercises these functions only through whole
// syncs); the arithmetic is upstream's: the period starts at current − added + removed.
describe("scale-up limit with scaling rules", () => {
  it.each<[string, number, TimestampedScaleEvent[], TimestampedScaleEvent[], HPAScalingRules, number]>([
    ["defaults (Pods 4, Percent 100 per 15 s), Max", 10, [], [], scaleUpRules(undefined), 20],
    ["defaults, Min", 10, [], [], { ...scaleUpRules(undefined), selectPolicy: "Min" }, 14],
    ["a small target: Pods 4 wins under Max", 1, [], [], scaleUpRules(undefined), 5],
    ["the period's scale-ups count from the period's start", 10, [ev(4, 10)], [], scaleUpRules(undefined), 12],
    ["events older than the period do not", 10, [ev(4, 20)], [], scaleUpRules(undefined), 20],
    ["the period's scale-downs raise its start", 10, [], [ev(2, 10)], rules("Max", ["Pods", 4, 60]), 16],
    ["scale-ups and scale-downs of the period both count", 10, [ev(3, 10)], [ev(1, 20)], rules("Max", ["Pods", 4, 60]), 12],
    ["Percent rounds up", 3, [], [], rules("Max", ["Percent", 50, 60]), 5],
    ["each policy its own period", 10, [ev(2, 30)], [], rules("Max", ["Pods", 1, 15], ["Pods", 2, 60]), 11],
    ["Disabled", 10, [], [], rules("Disabled", ["Pods", 4, 15]), 10],
  ])("%s", (_n, current, up, down, r, want) => {
    expect(scaleUpLimitWithRules(current, up, down, r, now)).toBe(want);
  });
});

describe("scale-down limit with behaviors", () => {
  it.each<[string, number, TimestampedScaleEvent[], TimestampedScaleEvent[], HPAScalingRules, number]>([
    ["default (Percent 100 per 15 s)", 10, [], [], scaleDownRules(undefined, 300_000), 0],
    ["Pods 2 and Percent 10 per 60 s, Max (the larger change)", 10, [], [], rules("Max", ["Pods", 2, 60], ["Percent", 10, 60]), 8],
    ["the same, Min (the smaller change)", 10, [], [], rules("Min", ["Pods", 2, 60], ["Percent", 10, 60]), 9],
    ["Percent rounds down", 7, [], [], rules("Max", ["Percent", 50, 60]), 3],
    ["the period's removals count", 10, [], [ev(3, 30)], rules("Max", ["Pods", 2, 60], ["Percent", 10, 60]), 11],
    ["the period's scale-ups lower its start", 10, [ev(4, 30)], [], rules("Max", ["Pods", 2, 60]), 4],
    ["Disabled", 10, [], [], rules("Disabled", ["Pods", 2, 60]), 10],
  ])("%s", (_n, current, up, down, r, want) => {
    expect(scaleDownLimitWithRules(current, up, down, r, now)).toBe(want);
  });
});

describe("convertDesiredReplicasWithRules (no behavior)", () => {
  it.each<[string, number, number, number, number, [number, string]]>([
    ["within range", 3, 5, 1, 10, [5, "DesiredWithinRange"]],
    ["the scale-up limit max(2 × current, 4)", 2, 10, 1, 20, [4, "ScaleUpLimit"]],
    ["maxReplicas below the scale-up limit", 10, 30, 1, 15, [15, "TooManyReplicas"]],
    ["below minReplicas", 3, 0, 1, 10, [1, "TooFewReplicas"]],
  ])("%s", (_n, current, desired, min, max, [replicas, reason]) => {
    const got = convertDesiredReplicasWithRules(current, desired, min, max);
    expect([got.replicas, got.reason]).toEqual([replicas, reason]);
  });
});

describe("stabilization", () => {
  it("without behavior: the highest recommendation of the 5 min window; the oldest outside it is replaced", () => {
    const m = new Recommendations();
    m.recommendations.set("k", [
      { recommendation: 5, timestampMs: ago(360) },
      { recommendation: 8, timestampMs: ago(120) },
      { recommendation: 4, timestampMs: ago(60) },
    ]);
    expect(m.stabilize("k", 3, now)).toBe(8);
    expect(m.recommendations.get("k")).toEqual([
      { recommendation: 3, timestampMs: now },
      { recommendation: 8, timestampMs: ago(120) },
      { recommendation: 4, timestampMs: ago(60) },
    ]);
    // A new key starts from the current count.
    m.recordInitial("new", 6, now);
    m.recordInitial("new", 9, now);
    expect(m.recommendations.get("new")).toEqual([{ recommendation: 6, timestampMs: now }]);
  });

  it.each<[string, number, number, Array<[number, number]>, number, number, number, string]>([
    // [name, upWindow s, downWindow s, recommendations [replicas, seconds ago], current, desired, want, reason]
    ["scale-down held by the down window's highest", 0, 300, [[10, 30], [2, 120]], 5, 3, 5, "ScaleDownStabilized"],
    ["scale-down to the down window's highest", 0, 300, [[4, 30], [2, 120]], 5, 3, 4, "ScaleDownStabilized"],
    ["scale-down once the window has passed", 0, 60, [[10, 120]], 5, 3, 3, "ScaleDownStabilized"],
    ["scale-up held by the up window's lowest", 60, 300, [[6, 30]], 5, 9, 6, "ScaleUpStabilized"],
    ["scale-up at once with no up window", 0, 300, [[6, 30]], 5, 9, 9, "ScaleUpStabilized"],
  ])("with behavior: %s", (_n, upWin, downWin, recs, current, desired, want, reason) => {
    const m = new Recommendations();
    m.recommendations.set("k", recs.map(([recommendation, s]) => ({ recommendation, timestampMs: ago(s) })));
    const got = m.stabilizeWithBehaviors(
      { key: "k", scaleUp: { ...scaleUpRules(undefined), stabilizationWindowSeconds: upWin }, scaleDown: { ...scaleDownRules(undefined, 300_000), stabilizationWindowSeconds: downWin }, minReplicas: 1, maxReplicas: 100, currentReplicas: current, desiredReplicas: desired },
      now,
    );
    expect([got.replicas, got.reason]).toEqual([want, reason]);
  });
});

describe("convertDesiredReplicasWithBehaviorRate", () => {
  const arg = (current: number, desired: number, up: HPAScalingRules, down: HPAScalingRules, min = 1, max = 100) => ({ key: "k", scaleUp: up, scaleDown: down, minReplicas: min, maxReplicas: max, currentReplicas: current, desiredReplicas: desired });
  it.each<[string, ReturnType<typeof arg>, TimestampedScaleEvent[], TimestampedScaleEvent[], [number, string]]>([
    ["scale-up limited by the policy", arg(5, 20, rules("Max", ["Pods", 2, 60]), scaleDownRules(undefined, 0)), [], [], [7, "ScaleUpLimit"]],
    ["scale-up limited by maxReplicas", arg(5, 20, rules("Max", ["Pods", 20, 60]), scaleDownRules(undefined, 0), 1, 8), [], [], [8, "TooManyReplicas"]],
    ["no further scale-up until the period's events age out", arg(7, 20, rules("Max", ["Pods", 2, 60]), scaleDownRules(undefined, 0)), [ev(4, 10)], [], [7, "ScaleUpLimit"]],
    ["scale-down limited by the policy", arg(10, 1, scaleUpRules(undefined), rules("Max", ["Pods", 3, 60])), [], [], [7, "ScaleDownLimit"]],
    ["scale-down limited by minReplicas", arg(10, 1, scaleUpRules(undefined), rules("Max", ["Percent", 100, 60]), 4), [], [], [4, "TooFewReplicas"]],
    ["no scale-down while the period's removals use the budget", arg(8, 1, scaleUpRules(undefined), rules("Max", ["Pods", 2, 60])), [], [ev(2, 10)], [8, "ScaleDownLimit"]],
    ["within the limits", arg(5, 6, scaleUpRules(undefined), scaleDownRules(undefined, 0)), [], [], [6, "DesiredWithinRange"]],
  ])("%s", (_n, a, upEvents, downEvents, [replicas, reason]) => {
    const m = new Recommendations();
    m.scaleUpEvents.set("k", upEvents);
    m.scaleDownEvents.set("k", downEvents);
    const got = m.convertWithBehaviorRate(a, now);
    expect([got.replicas, got.reason]).toEqual([replicas, reason]);
  });

  it("storeScaleEvent records changes per direction, reusing an outdated slot; nothing without behavior", () => {
    const m = new Recommendations();
    const behavior = { scaleUp: rules("Max", ["Pods", 4, 60]), scaleDown: rules("Max", ["Pods", 4, 60]) };
    m.storeScaleEvent(undefined, "k", 1, 4, now);
    expect(m.scaleUpEvents.get("k")).toBeUndefined();
    m.scaleUpEvents.set("k", [ev(1, 120), ev(2, 30)]);
    m.storeScaleEvent(behavior, "k", 3, 5, now);
    expect(m.scaleUpEvents.get("k")).toEqual([{ replicaChange: 2, timestampMs: now, outdated: false }, ev(2, 30)]);
    m.storeScaleEvent(behavior, "k", 5, 2, now);
    expect(m.scaleDownEvents.get("k")).toEqual([{ replicaChange: 3, timestampMs: now, outdated: false }]);
  });
});
