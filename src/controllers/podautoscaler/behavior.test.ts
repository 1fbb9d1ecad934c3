/**
 * Normalization (behavior.ts), restating upstream horizontal_test.go's tables
 * (kubernetes pkg/controller/podautoscaler, omerap12/kubernetes@060da168):
 * TestConvertDesiredReplicasWithRules, TestCalculateScaleUpLimitWithScalingRules,
 * TestCalculateScaleDownLimitWithBehaviors, TestNormalizeDesiredReplicas, TestScalingWithRules,
 * TestStoreScaleEvents and TestNormalizeDesiredReplicasWithBehavior — upstream's inputs and
 * expected values, on a fixed clock instead of time.Now(). A few cases of our own (marked) cover
 * what those tables do not.
 */
import { describe, expect, it } from "vitest";
import type { HPAScalingRules } from "../../apimachinery/api/autoscaling/v2.js";
import { Recommendations, calculateScaleUpLimit, convertDesiredReplicasWithRules, replicasChangePerPeriod, scaleDownLimitWithRules, scaleUpLimitWithRules, type TimestampedScaleEvent } from "./behavior.js";
import { scaleDownRules, scaleUpRules } from "./controller.js";

const now = Date.UTC(2026, 0, 1, 12, 0, 0);
const ago = (s: number) => now - s * 1000;
const ev = (change: number, secondsAgo: number, outdated = false): TimestampedScaleEvent => ({ replicaChange: change, timestampMs: ago(secondsAgo), outdated });
const rules = (selectPolicy: string, ...policies: Array<[string, number, number]>): HPAScalingRules => ({ selectPolicy, policies: policies.map(([type, value, periodSeconds]) => ({ type, value, periodSeconds })) });

/** Upstream's generateScalingRules: selectPolicy Max, a Pods and/or a Percent policy (a zero value leaves it out). */
function generateScalingRules(pods: number, podsPeriod: number, percent: number, percentPeriod: number, stabilizationWindow: number): HPAScalingRules {
  const policies: NonNullable<HPAScalingRules["policies"]> = [];
  if (pods !== 0) policies.push({ type: "Pods", value: pods, periodSeconds: podsPeriod });
  if (percent !== 0) policies.push({ type: "Percent", value: percent, periodSeconds: percentPeriod });
  return { stabilizationWindowSeconds: stabilizationWindow, selectPolicy: "Max", policies };
}

/**
 * Upstream's generateEventsUniformDistribution: the events spread over the last periodSeconds,
 * each in the middle of its segment; Go converts the seconds to a Duration before multiplying, so
 * they are whole seconds.
 */
function generateEventsUniformDistribution(rawEvents: number[], periodSeconds: number): TimestampedScaleEvent[] {
  const segment = periodSeconds / rawEvents.length;
  return rawEvents.map((change, idx) => ev(change, Math.trunc(periodSeconds - segment * (idx + 1) + segment / 2)));
}

describe("TestConvertDesiredReplicasWithRules (no behavior)", () => {
  it.each<[string, number, number, number, number, number, string]>([
    // [annotation, current, desired, min, max, converted, condition]
    ["prenormalized desired replicas within range", 5, 7, 3, 8, 7, "DesiredWithinRange"],
    ["prenormalized desired replicas < minReplicas", 3, 1, 2, 8, 2, "TooFewReplicas"],
    ["prenormalized desired zeroed replicas within range", 1, 0, 0, 10, 0, "DesiredWithinRange"],
    ["maxReplicas is the limit because maxReplicas < scaleUpLimit", 20, 1000, 1, 10, 10, "TooManyReplicas"],
    ["scaleUpLimit is the limit because scaleUpLimit < maxReplicas", 3, 1000, 1, 2000, calculateScaleUpLimit(3), "ScaleUpLimit"],
  ])("%s", (_n, current, desired, min, max, replicas, reason) => {
    const got = convertDesiredReplicasWithRules(current, desired, min, max);
    expect([got.replicas, got.reason]).toEqual([replicas, reason]);
  });
});

describe("scale-up limit with scaling rules", () => {
  it("TestCalculateScaleUpLimitWithScalingRules: Min of Pods 2 and Percent 50 per 60 s from 1 replica", () => {
    const r = { stabilizationWindowSeconds: 300, ...rules("Min", ["Pods", 2, 60], ["Percent", 50, 60]) };
    expect(scaleUpLimitWithRules(1, [], [], r, now)).toBe(2);
  });

  // Our own cases: the defaults, Disabled, rounding, the period's cutoff and a policy's period counted on its own.
  it.each<[string, number, TimestampedScaleEvent[], TimestampedScaleEvent[], HPAScalingRules, number]>([
    ["defaults (Pods 4, Percent 100 per 15 s), Max", 10, [], [], scaleUpRules(undefined), 20],
    ["defaults, Min", 10, [], [], { ...scaleUpRules(undefined), selectPolicy: "Min" }, 14],
    ["a small target: Pods 4 wins under Max", 1, [], [], scaleUpRules(undefined), 5],
    ["events older than the period do not count", 10, [ev(4, 20)], [], scaleUpRules(undefined), 20],
    ["an event exactly one period old does not count (the cutoff is exclusive)", 10, [ev(4, 15)], [], scaleUpRules(undefined), 20],
    ["Percent rounds up", 3, [], [], rules("Max", ["Percent", 50, 60]), 5],
    ["each policy its own period", 10, [ev(2, 30)], [], rules("Max", ["Pods", 1, 15], ["Pods", 2, 60]), 11],
    ["Disabled", 10, [], [], rules("Disabled", ["Pods", 4, 15]), 10],
  ])("ours: %s", (_n, current, up, down, r, want) => {
    expect(scaleUpLimitWithRules(current, up, down, r, now)).toBe(want);
  });
});

describe("scale-down limit with behaviors", () => {
  it("TestCalculateScaleDownLimitWithBehaviors: Min of Pods 2 and Percent 50 per 60 s from 5 replicas", () => {
    const r = { stabilizationWindowSeconds: 300, ...rules("Min", ["Pods", 2, 60], ["Percent", 50, 60]) };
    expect(scaleDownLimitWithRules(5, [], [], r, now)).toBe(3);
  });

  // Our own cases: the default, rounding and Disabled.
  it.each<[string, number, HPAScalingRules, number]>([
    ["default (Percent 100 per 15 s)", 10, scaleDownRules(undefined, 300_000), 0],
    ["Percent rounds down", 7, rules("Max", ["Percent", 50, 60]), 3],
    ["Disabled", 10, rules("Disabled", ["Pods", 2, 60]), 10],
  ])("ours: %s", (_n, current, r, want) => {
    expect(scaleDownLimitWithRules(current, [], [], r, now)).toBe(want);
  });
});

describe("TestNormalizeDesiredReplicas (stabilizeRecommendation, no behavior, 5 min window)", () => {
  it.each<[string, Array<[number, number]>, number, number, number]>([
    // [name, recommendations [replicas, minutes ago], prenormalized, stabilized, log length after]
    ["empty log", [], 5, 5, 1],
    ["stabilize", [[4, 2], [5, 1]], 3, 5, 3],
    ["no stabilize", [[1, 2], [2, 1]], 3, 3, 3],
    ["no stabilize - old recommendations", [[10, 10], [9, 9]], 3, 3, 2],
    ["stabilize - old recommendations", [[10, 10], [4, 1], [5, 2], [9, 9]], 3, 5, 4],
  ])("%s", (_n, recs, prenormalized, want, logLength) => {
    const m = new Recommendations(5 * 60_000);
    m.recommendations.set("", recs.map(([recommendation, min]) => ({ recommendation, timestampMs: ago(min * 60) })));
    expect(m.stabilize("", prenormalized, now)).toBe(want);
    expect(m.recommendations.get("")).toHaveLength(logLength);
  });

  it("ours: the last recommendation outside the window is the one replaced", () => {
    const m = new Recommendations(5 * 60_000);
    m.recommendations.set("", [
      { recommendation: 10, timestampMs: ago(600) },
      { recommendation: 9, timestampMs: ago(540) },
      { recommendation: 4, timestampMs: ago(60) },
    ]);
    expect(m.stabilize("", 3, now)).toBe(4);
    expect(m.recommendations.get("")?.map((r) => r.recommendation)).toEqual([10, 3, 4]);
  });

  it("ours: a new key starts from the current count, once", () => {
    const m = new Recommendations();
    m.recordInitial("new", 6, now);
    m.recordInitial("new", 9, now);
    expect(m.recommendations.get("new")).toEqual([{ recommendation: 6, timestampMs: now }]);
  });
});

interface ScalingCase {
  name: string;
  scaleUpEvents?: TimestampedScaleEvent[];
  scaleDownEvents?: TimestampedScaleEvent[];
  specMinReplicas: number;
  specMaxReplicas: number;
  scaleUpRules?: HPAScalingRules;
  scaleDownRules?: HPAScalingRules;
  currentReplicas: number;
  prenormalizedDesiredReplicas: number;
  expectedReplicas: number;
  expectedCondition: string;
}

const g = generateScalingRules;
const u = generateEventsUniformDistribution;
const scalingWithRules: ScalingCase[] = [
  { name: "prenormalized desired replicas within range", currentReplicas: 5, prenormalizedDesiredReplicas: 7, specMinReplicas: 3, specMaxReplicas: 8, expectedReplicas: 7, expectedCondition: "DesiredWithinRange" },
  { name: "prenormalized desired replicas < minReplicas", currentReplicas: 3, prenormalizedDesiredReplicas: 1, specMinReplicas: 2, specMaxReplicas: 8, expectedReplicas: 2, expectedCondition: "TooFewReplicas" },
  { name: "prenormalized desired replicas within range when minReplicas is 0", currentReplicas: 1, prenormalizedDesiredReplicas: 0, specMinReplicas: 0, specMaxReplicas: 10, expectedReplicas: 0, expectedCondition: "DesiredWithinRange" },
  { name: "maxReplicas is the limit because maxReplicas < scaleUpLimit", currentReplicas: 20, prenormalizedDesiredReplicas: 1000, specMinReplicas: 1, specMaxReplicas: 10, expectedReplicas: 10, expectedCondition: "TooManyReplicas" },
  { name: "desired replica count is more than the maximum replica count", currentReplicas: 100, prenormalizedDesiredReplicas: 1000, specMinReplicas: 100, specMaxReplicas: 150, expectedReplicas: 150, expectedCondition: "TooManyReplicas" },
  { name: "scaleUpLimit is the limit because scaleUpLimit < maxReplicas with user policies", currentReplicas: 3, prenormalizedDesiredReplicas: 1000, specMinReplicas: 1, specMaxReplicas: 2000, scaleUpRules: g(0, 0, 1, 60, 0), expectedReplicas: 4, expectedCondition: "ScaleUpLimit" },
  // ScaleUp without PeriodSeconds usage
  { name: "scaleUp with default behavior", specMinReplicas: 1, specMaxReplicas: 1000, currentReplicas: 10, prenormalizedDesiredReplicas: 50, expectedReplicas: 20, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with pods policy larger than percent policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(100, 60, 100, 60, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 500, expectedReplicas: 110, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with percent policy larger than pods policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(2, 60, 100, 60, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 500, expectedReplicas: 20, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with spec MaxReplicas limitation with large pod policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(100, 60, 0, 0, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 50, expectedReplicas: 50, expectedCondition: "DesiredWithinRange" },
  { name: "scaleUp with spec MaxReplicas limitation with large percent policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(10000, 60, 0, 0, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 50, expectedReplicas: 50, expectedCondition: "DesiredWithinRange" },
  { name: "scaleUp with pod policy limitation", specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(30, 60, 0, 0, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 50, expectedReplicas: 40, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with percent policy limitation", specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(0, 0, 200, 60, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 50, expectedReplicas: 30, expectedCondition: "ScaleUpLimit" },
  { name: "scaleDown with percent policy larger than pod policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(20, 60, 1, 60, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 2, expectedReplicas: 80, expectedCondition: "ScaleDownLimit" },
  { name: "scaleDown with pod policy larger than percent policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(2, 60, 1, 60, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 2, expectedReplicas: 98, expectedCondition: "ScaleDownLimit" },
  { name: "scaleDown with spec MinReplicas limitation with large pod policy", specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(100, 60, 0, 0, 300), currentReplicas: 10, prenormalizedDesiredReplicas: 0, expectedReplicas: 1, expectedCondition: "TooFewReplicas" },
  { name: "scaleDown with spec MinReplicas limitation with large percent policy", specMinReplicas: 5, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 100, 60, 300), currentReplicas: 10, prenormalizedDesiredReplicas: 2, expectedReplicas: 5, expectedCondition: "TooFewReplicas" },
  { name: "scaleDown with pod policy limitation", specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(5, 60, 0, 0, 300), currentReplicas: 10, prenormalizedDesiredReplicas: 2, expectedReplicas: 5, expectedCondition: "ScaleDownLimit" },
  { name: "scaleDown with percent policy limitation", specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 50, 60, 300), currentReplicas: 10, prenormalizedDesiredReplicas: 5, expectedReplicas: 5, expectedCondition: "DesiredWithinRange" },
  // ScaleUp with PeriodSeconds usage
  { name: "scaleUp with spec MaxReplicas limitation with large pod policy and events", scaleUpEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 200, scaleUpRules: g(300, 60, 0, 0, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 500, expectedReplicas: 200, expectedCondition: "TooManyReplicas" },
  { name: "scaleUp with spec MaxReplicas limitation with large percent policy and events", scaleUpEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 200, scaleUpRules: g(0, 0, 10000, 60, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 500, expectedReplicas: 200, expectedCondition: "TooManyReplicas" },
  // 120 s ago there were 100 − 15 replicas and the policy allows 5: no scale-up at all (not below current).
  { name: "scaleUp with currentReplicas limitation with rate.PeriodSeconds with a lot of recent scale up events", scaleUpEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(5, 120, 0, 0, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 500, expectedReplicas: 100, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with pod policy and previous scale up events", scaleUpEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(150, 120, 0, 0, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 500, expectedReplicas: 235, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with percent policy and previous scale up events", scaleUpEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(0, 0, 200, 120, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 500, expectedReplicas: 255, expectedCondition: "ScaleUpLimit" },
  { name: "scaleUp with percent policy and previous scale up and down events", scaleUpEvents: u([4], 120), scaleDownEvents: u([2], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(0, 0, 300, 300, 0), currentReplicas: 6, prenormalizedDesiredReplicas: 24, expectedReplicas: 16, expectedCondition: "ScaleUpLimit" },
  // ScaleDown with PeriodSeconds usage
  { name: "scaleDown with default policy and previous events", scaleDownEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 1000, currentReplicas: 10, prenormalizedDesiredReplicas: 5, expectedReplicas: 5, expectedCondition: "DesiredWithinRange" },
  { name: "scaleDown with spec MinReplicas=nil limitation with large pod policy and previous events", scaleDownEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(115, 120, 0, 0, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 0, expectedReplicas: 1, expectedCondition: "TooFewReplicas" },
  { name: "scaleDown with spec MinReplicas limitation with large pod policy and previous events", scaleDownEvents: u([1, 5, 9], 120), specMinReplicas: 5, specMaxReplicas: 1000, scaleDownRules: g(130, 120, 0, 0, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 0, expectedReplicas: 5, expectedCondition: "TooFewReplicas" },
  { name: "scaleDown with spec MinReplicas limitation with large percent policy and previous events", scaleDownEvents: u([1, 5, 9], 120), specMinReplicas: 5, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 100, 120, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 2, expectedReplicas: 5, expectedCondition: "TooFewReplicas" },
  { name: "scaleDown with pod policy limitation and previous events", scaleDownEvents: u([1, 5, 9], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(5, 120, 0, 0, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 2, expectedReplicas: 100, expectedCondition: "ScaleDownLimit" },
  { name: "scaleDown with percent policy limitation and previous events", scaleDownEvents: u([2, 4, 6], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 50, 120, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 0, expectedReplicas: 56, expectedCondition: "ScaleDownLimit" },
  { name: "scaleDown with percent policy and previous scale up and down events", scaleUpEvents: u([2], 120), scaleDownEvents: u([4], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 50, 180, 0), currentReplicas: 10, prenormalizedDesiredReplicas: 1, expectedReplicas: 6, expectedCondition: "ScaleDownLimit" },
  // (100 + 30) − 10 % = 117 is above the current count: keep 100.
  { name: "scaleDown with previous events preventing further scale down", scaleDownEvents: u([10, 10, 10], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 10, 120, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 0, expectedReplicas: 100, expectedCondition: "ScaleDownLimit" },
  // (10 + 30) − 1000 % = −360 is below the 5 the metrics want: 5.
  { name: "scaleDown with with previous events still allowing more scale down", scaleDownEvents: u([10, 10, 10], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(0, 0, 1000, 120, 300), currentReplicas: 10, prenormalizedDesiredReplicas: 5, expectedReplicas: 5, expectedCondition: "DesiredWithinRange" },
  { name: "check 'outdated' flag for events for one behavior for up", scaleUpEvents: u([8, 12, 9, 11], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(1000, 60, 0, 0, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 200, expectedReplicas: 200, expectedCondition: "DesiredWithinRange" },
  { name: "check that events were not marked 'outdated' for two different policies in the behavior for up", scaleUpEvents: u([8, 12, 9, 11], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(1000, 120, 100, 60, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 200, expectedReplicas: 200, expectedCondition: "DesiredWithinRange" },
  { name: "check that events were marked 'outdated' for two different policies in the behavior for up", scaleUpEvents: u([8, 12, 9, 11], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleUpRules: g(1000, 30, 100, 60, 0), currentReplicas: 100, prenormalizedDesiredReplicas: 200, expectedReplicas: 200, expectedCondition: "DesiredWithinRange" },
  { name: "check 'outdated' flag for events for one behavior for down", scaleDownEvents: u([8, 12, 9, 11], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(1000, 60, 0, 0, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 5, expectedReplicas: 5, expectedCondition: "DesiredWithinRange" },
  { name: "check that events were not marked 'outdated' for two different policies in the behavior for down", scaleDownEvents: u([8, 12, 9, 11], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(1000, 120, 100, 60, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 5, expectedReplicas: 5, expectedCondition: "DesiredWithinRange" },
  { name: "check that events were marked 'outdated' for two different policies in the behavior for down", scaleDownEvents: u([8, 12, 9, 11], 120), specMinReplicas: 1, specMaxReplicas: 1000, scaleDownRules: g(1000, 30, 100, 60, 300), currentReplicas: 100, prenormalizedDesiredReplicas: 5, expectedReplicas: 5, expectedCondition: "DesiredWithinRange" },
];

describe("TestScalingWithRules (convertDesiredReplicasWithBehaviorRate)", () => {
  it.each(scalingWithRules)("$name", (tc) => {
    const m = new Recommendations();
    m.scaleUpEvents.set("", tc.scaleUpEvents ?? []);
    m.scaleDownEvents.set("", tc.scaleDownEvents ?? []);
    const got = m.convertWithBehaviorRate(
      {
        key: "",
        // GenerateHPAScaleUpRules / GenerateHPAScaleDownRules (default 300 s down window).
        scaleUp: scaleUpRules(tc.scaleUpRules),
        scaleDown: scaleDownRules(tc.scaleDownRules, 300_000),
        minReplicas: tc.specMinReplicas,
        maxReplicas: tc.specMaxReplicas,
        currentReplicas: tc.currentReplicas,
        desiredReplicas: tc.prenormalizedDesiredReplicas,
      },
      now,
    );
    expect([got.replicas, got.reason]).toEqual([tc.expectedReplicas, tc.expectedCondition]);
  });
});

describe("TestStoreScaleEvents", () => {
  it.each<[string, number, TimestampedScaleEvent[], Array<[number, boolean]>, HPAScalingRules | undefined, number]>([
    // [name, replicaChange, previous events, events after [change, outdated], rules, change in the last 60 s before]
    ["empty entries with default behavior", 5, [], [], undefined, 0],
    ["empty entries with two-policy-behavior", 5, [], [[5, false]], generateScalingRules(10, 60, 100, 60, 0), 0],
    ["one outdated entry to be kept untouched without behavior", 5, [ev(7, 61)], [[7, false]], undefined, 0],
    ["one outdated entry to be replaced with behavior", 5, [ev(7, 61)], [[5, false]], generateScalingRules(10, 60, 100, 60, 0), 0],
    ["one actual entry to be not touched with behavior", 5, [ev(7, 58)], [[7, false], [5, false]], generateScalingRules(10, 60, 100, 60, 0), 7],
    ["two entries, one of them to be replaced", 5, [ev(7, 61), ev(6, 59)], [[5, false], [6, false]], generateScalingRules(10, 60, 0, 0, 0), 6],
    ["replace one entry, use policies with different periods", 5, [ev(8, 29), ev(6, 59), ev(7, 61), ev(9, 61)], [[8, false], [6, false], [7, true], [5, false]], generateScalingRules(10, 60, 100, 30, 0), 14],
    ["two entries, both actual", 5, [ev(7, 58), ev(6, 59)], [[7, false], [6, false], [5, false]], generateScalingRules(10, 120, 100, 30, 0), 13],
  ])("%s", (_n, change, prev, want, r, changeBefore) => {
    for (const direction of ["up", "down"] as const) {
      const m = new Recommendations();
      const events = direction === "up" ? m.scaleUpEvents : m.scaleDownEvents;
      events.set("", prev.map((e) => ({ ...e })));
      expect(replicasChangePerPeriod(60, events.get("") ?? [], now)).toBe(changeBefore);
      const behavior = r === undefined ? undefined : direction === "up" ? { scaleUp: r } : { scaleDown: r };
      m.storeScaleEvent(behavior, "", 10, direction === "up" ? 10 + change : 10 - change, now);
      expect((events.get("") ?? []).map((e) => [e.replicaChange, e.outdated])).toEqual(want);
    }
  });
});

describe("TestNormalizeDesiredReplicasWithBehavior (stabilizeRecommendationWithBehaviors)", () => {
  it.each<[string, Array<[number, number]>, number, number, number, number[] | undefined, number, number]>([
    // [name, recommendations [replicas, minutes ago], current, prenormalized, stabilized, recommendations after, up window s, down window s]
    ["empty recommendations for scaling down", [], 100, 5, 5, [5], 0, 0],
    ["simple scale down stabilization", [[4, 2], [5, 1]], 100, 3, 5, [4, 5, 3], 0, 180],
    ["simple scale up stabilization", [[4, 2], [5, 1]], 1, 7, 4, [4, 5, 7], 300, 0],
    ["no scale down stabilization", [[1, 2], [2, 1]], 100, 3, 3, [1, 2, 3], 300, 0],
    ["no scale up stabilization", [[4, 2], [5, 1]], 1, 3, 3, [4, 5, 3], 0, 300],
    ["no scale down stabilization, reuse recommendation element", [[10, 10], [9, 9]], 100, 3, 3, [10, 3], 0, 0],
    ["no scale up stabilization, reuse recommendation element", [[10, 10], [9, 9]], 1, 100, 100, [10, 100], 0, 0],
    ["scale down stabilization, reuse one of obsolete recommendation element", [[10, 10], [4, 1], [5, 2], [9, 9]], 100, 3, 5, [10, 4, 5, 3], 0, 180],
    ["scale up stabilization, reuse one of obsolete recommendation element", [[10, 100], [6, 1], [5, 2], [9, 3]], 1, 100, 5, [100, 6, 5, 9], 300, 0],
    ["scale up and down stabilization, do not scale up when prenormalized rec goes down", [[2, 100], [3, 3]], 2, 1, 2, undefined, 300, 300],
    ["scale up and down stabilization, do not scale down when prenormalized rec goes up", [[2, 100], [1, 3]], 2, 3, 2, undefined, 300, 300],
  ])("%s", (_n, recs, current, desired, want, wantRecs, upWindow, downWindow) => {
    const m = new Recommendations();
    m.recommendations.set("", recs.map(([recommendation, min]) => ({ recommendation, timestampMs: ago(min * 60) })));
    const got = m.stabilizeWithBehaviors(
      { key: "", scaleUp: { stabilizationWindowSeconds: upWindow }, scaleDown: { stabilizationWindowSeconds: downWindow }, minReplicas: 0, maxReplicas: 0, currentReplicas: current, desiredReplicas: desired },
      now,
    );
    expect(got.replicas).toBe(want);
    if (wantRecs) expect((m.recommendations.get("") ?? []).map((r) => r.recommendation)).toEqual(wantRecs);
  });

  // Ours: the reason follows the direction of the recommendation.
  it.each<[number, number, string]>([
    [5, 9, "ScaleUpStabilized"],
    [5, 3, "ScaleDownStabilized"],
  ])("ours: current %d, desired %d: %s", (current, desired, reason) => {
    const m = new Recommendations();
    const got = m.stabilizeWithBehaviors({ key: "k", scaleUp: { stabilizationWindowSeconds: 0 }, scaleDown: { stabilizationWindowSeconds: 0 }, minReplicas: 1, maxReplicas: 10, currentReplicas: current, desiredReplicas: desired }, now);
    expect(got.reason).toBe(reason);
  });
});

/**
 * Upstream pkg/apis/autoscaling/v2/defaults_test.go (kubernetes/kubernetes@0a74a85e):
 * TestGenerateScaleDownRules and TestGenerateScaleUpRules, against scaleDownRules / scaleUpRules.
 * Where upstream leaves the scale-down window nil (the controller's
 * --horizontal-pod-autoscaler-downscale-stabilization applies), ours fills in that window — here 123 s.
 */
describe("TestGenerateScaleDownRules / TestGenerateScaleUpRules", () => {
  type Row = [string, [number, number], [number, number], number | undefined, string | undefined, Array<[string, number, number]>, number, string];
  // [annotation, [pods, podsPeriod], [percent, percentPeriod], stabilization, selectPolicy, expected policies, expected stabilization, expected selectPolicy]
  const input = ([pods, podsPeriod]: [number, number], [percent, percentPeriod]: [number, number], stabilization: number | undefined, selectPolicy: string | undefined): HPAScalingRules => {
    const policies: NonNullable<HPAScalingRules["policies"]> = [];
    if (pods !== 0 || podsPeriod !== 0) policies.push({ type: "Pods", value: pods, periodSeconds: podsPeriod });
    if (percent !== 0 || percentPeriod !== 0) policies.push({ type: "Percent", value: percent, periodSeconds: percentPeriod });
    return { ...(stabilization === undefined ? {} : { stabilizationWindowSeconds: stabilization }), ...(selectPolicy === undefined ? {} : { selectPolicy }), ...(policies.length ? { policies } : {}) };
  };
  const policies = (ps: Array<[string, number, number]>) => ps.map(([type, value, periodSeconds]) => ({ type, value, periodSeconds }));

  it.each<Row>([
    ["Default values", [0, 0], [0, 0], undefined, undefined, [["Percent", 100, 15]], 123, "Max"],
    ["All parameters are specified", [1, 2], [3, 4], 25, "Max", [["Pods", 1, 2], ["Percent", 3, 4]], 25, "Max"],
    ["Percent policy is specified", [0, 0], [1, 2], undefined, "Min", [["Percent", 1, 2]], 123, "Min"],
    ["Pods policy is specified", [3, 4], [0, 0], undefined, undefined, [["Pods", 3, 4]], 123, "Max"],
  ])("scale down: %s", (_n, pods, percent, stabilization, selectPolicy, wantPolicies, wantStabilization, wantSelect) => {
    const got = scaleDownRules(input(pods, percent, stabilization, selectPolicy), 123_000);
    expect(got.policies).toEqual(policies(wantPolicies));
    expect(got.stabilizationWindowSeconds).toBe(wantStabilization);
    expect(got.selectPolicy).toBe(wantSelect);
  });

  it.each<Row>([
    ["Default values", [0, 0], [0, 0], undefined, undefined, [["Pods", 4, 15], ["Percent", 100, 15]], 0, "Max"],
    ["All parameters are specified", [1, 2], [3, 4], 25, "Max", [["Pods", 1, 2], ["Percent", 3, 4]], 25, "Max"],
    ["Pod policy is specified", [1, 2], [0, 0], undefined, "Min", [["Pods", 1, 2]], 0, "Min"],
    ["Percent policy is specified", [0, 0], [7, 10], undefined, undefined, [["Percent", 7, 10]], 0, "Max"],
    ["Pod policy and stabilization window are specified", [4, 2], [0, 0], 25, undefined, [["Pods", 4, 2]], 25, "Max"],
    ["Percent policy and stabilization window are specified", [0, 0], [7, 60], 25, undefined, [["Percent", 7, 60]], 25, "Max"],
  ])("scale up: %s", (_n, pods, percent, stabilization, selectPolicy, wantPolicies, wantStabilization, wantSelect) => {
    const got = scaleUpRules(input(pods, percent, stabilization, selectPolicy));
    expect(got.policies).toEqual(policies(wantPolicies));
    expect(got.stabilizationWindowSeconds).toBe(wantStabilization);
    expect(got.selectPolicy).toBe(wantSelect);
  });
});
