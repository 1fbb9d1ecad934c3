/**
 * How a proposed replica count becomes the one applied (upstream horizontal.go's normalization):
 *
 * - without `behavior`: the recommendation is the highest of the last
 *   downscaleStabilisationWindow (5 min) of recommendations (stabilizeRecommendation), then
 *   bounded by minReplicas and by maxReplicas or the scale-up limit max(2 × current, 4)
 *   (convertDesiredReplicasWithRules);
 * - with `behavior`: the recommendation is held between the lowest recommendation of the
 *   scale-up stabilization window and the highest of the scale-down one
 *   (stabilizeRecommendationWithBehaviors), then each direction's policies (Pods / Percent per
 *   periodSeconds, chosen by selectPolicy Max, Min or Disabled) limit the change from the replica
 *   count at the start of each period — the scale-ups and the scale-downs of that period both
 *   counted (convertDesiredReplicasWithBehaviorRate).
 *
 * The state — recommendations and scale events per HPA key, each with its time — lives in
 * Recommendations, one per controller; a deleted HPA's entries are dropped.
 */
import type { HPAScalingRules, HorizontalPodAutoscalerBehavior } from "../../apimachinery/api/autoscaling/v2.js";

export const SCALE_UP_LIMIT_FACTOR = 2.0;
export const SCALE_UP_LIMIT_MINIMUM = 4.0;
/** --horizontal-pod-autoscaler-downscale-stabilization default (5 minutes). */
export const DEFAULT_DOWNSCALE_STABILIZATION_WINDOW_MS = 5 * 60_000;

export interface TimestampedRecommendation {
  recommendation: number;
  timestampMs: number;
}

export interface TimestampedScaleEvent {
  /** Replicas added (scale-up list) or removed (scale-down list). */
  replicaChange: number;
  timestampMs: number;
  outdated: boolean;
}

/** A limit and why (the ScalingLimited condition's reason and message). */
export interface Limited {
  replicas: number;
  reason: string;
  message: string;
}

const MAX_INT32 = 2147483647;
const MIN_INT32 = -2147483648;

export const withinRange = { reason: "DesiredWithinRange", message: "the desired count is within the acceptable range" } as const;
const scaleUpLimitReason = { reason: "ScaleUpLimit", message: "the desired replica count is increasing faster than the maximum scale rate" } as const;
const scaleDownLimitReason = { reason: "ScaleDownLimit", message: "the desired replica count is decreasing faster than the maximum scale rate" } as const;
const tooManyReason = { reason: "TooManyReplicas", message: "the desired replica count is more than the maximum replica count" } as const;
const tooFewReason = { reason: "TooFewReplicas", message: "the desired replica count is less than the minimum replica count" } as const;

/** calculateScaleUpLimit: max(2 × current, 4). */
export function calculateScaleUpLimit(currentReplicas: number): number {
  return Math.trunc(Math.max(SCALE_UP_LIMIT_FACTOR * currentReplicas, SCALE_UP_LIMIT_MINIMUM));
}

/** convertDesiredReplicasWithRules: min/max and the scale-up limit, for HPAs without behavior. */
export function convertDesiredReplicasWithRules(currentReplicas: number, desiredReplicas: number, minReplicas: number, maxReplicas: number): Limited {
  const scaleUpLimit = calculateScaleUpLimit(currentReplicas);
  let maximumAllowed: number;
  let limit: { reason: string; message: string };
  if (maxReplicas > scaleUpLimit) {
    maximumAllowed = scaleUpLimit;
    limit = scaleUpLimitReason;
  } else {
    maximumAllowed = maxReplicas;
    limit = tooManyReason;
  }
  if (desiredReplicas < minReplicas) return { replicas: minReplicas, ...tooFewReason };
  if (desiredReplicas > maximumAllowed) return { replicas: maximumAllowed, ...limit };
  return { replicas: desiredReplicas, ...withinRange };
}

/** getReplicasChangePerPeriod: the replicas changed by the events of the last periodSeconds. */
export function replicasChangePerPeriod(periodSeconds: number, events: readonly TimestampedScaleEvent[], nowMs: number): number {
  const cutoff = nowMs - periodSeconds * 1000;
  let replicas = 0;
  for (const e of events) if (e.timestampMs > cutoff) replicas += e.replicaChange;
  return replicas;
}

/**
 * The replica count at the start of a policy's period: the current count less what the period's
 * scale-ups added, plus what its scale-downs removed.
 */
function periodStartReplicas(currentReplicas: number, periodSeconds: number, upEvents: readonly TimestampedScaleEvent[], downEvents: readonly TimestampedScaleEvent[], nowMs: number): number {
  return currentReplicas - replicasChangePerPeriod(periodSeconds, upEvents, nowMs) + replicasChangePerPeriod(periodSeconds, downEvents, nowMs);
}

/** calculateScaleUpLimitWithScalingRules. */
export function scaleUpLimitWithRules(currentReplicas: number, upEvents: readonly TimestampedScaleEvent[], downEvents: readonly TimestampedScaleEvent[], rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === "Disabled") return currentReplicas;
  const pickMin = rules.selectPolicy === "Min";
  let result = pickMin ? MAX_INT32 : MIN_INT32;
  for (const p of rules.policies ?? []) {
    const periodStart = periodStartReplicas(currentReplicas, p.periodSeconds, upEvents, downEvents, nowMs);
    let proposed: number;
    if (p.type === "Pods") proposed = periodStart + p.value;
    else proposed = Math.ceil(periodStart * (1 + p.value / 100));
    result = pickMin ? Math.min(result, proposed) : Math.max(result, proposed);
  }
  return result;
}

/** calculateScaleDownLimitWithBehaviors. */
export function scaleDownLimitWithRules(currentReplicas: number, upEvents: readonly TimestampedScaleEvent[], downEvents: readonly TimestampedScaleEvent[], rules: HPAScalingRules, nowMs: number): number {
  if (rules.selectPolicy === "Disabled") return currentReplicas;
  // Min picks the policy allowing the smallest change: the highest floor.
  const pickHighest = rules.selectPolicy === "Min";
  let result = pickHighest ? MIN_INT32 : MAX_INT32;
  for (const p of rules.policies ?? []) {
    const periodStart = periodStartReplicas(currentReplicas, p.periodSeconds, upEvents, downEvents, nowMs);
    let proposed: number;
    if (p.type === "Pods") proposed = periodStart - p.value;
    else proposed = Math.trunc(periodStart * (1 - p.value / 100));
    result = pickHighest ? Math.max(result, proposed) : Math.min(result, proposed);
  }
  return result;
}

export interface NormalizationArg {
  key: string;
  scaleUp: HPAScalingRules;
  scaleDown: HPAScalingRules;
  minReplicas: number;
  maxReplicas: number;
  currentReplicas: number;
  desiredReplicas: number;
}

/** The autoscaler's memory: recommendations and scale events per HPA key. */
export class Recommendations {
  readonly recommendations = new Map<string, TimestampedRecommendation[]>();
  readonly scaleUpEvents = new Map<string, TimestampedScaleEvent[]>();
  readonly scaleDownEvents = new Map<string, TimestampedScaleEvent[]>();

  constructor(private readonly downscaleStabilisationWindowMs = DEFAULT_DOWNSCALE_STABILIZATION_WINDOW_MS) {}

  forget(key: string): void {
    this.recommendations.delete(key);
    this.scaleUpEvents.delete(key);
    this.scaleDownEvents.delete(key);
  }

  /** recordInitialRecommendation: the current count is the first recommendation of a new key. */
  recordInitial(key: string, currentReplicas: number, nowMs: number): void {
    if (!this.recommendations.has(key)) this.recommendations.set(key, [{ recommendation: currentReplicas, timestampMs: nowMs }]);
  }

  private record(key: string, replace: number | undefined, rec: TimestampedRecommendation): void {
    const list = this.recommendations.get(key) ?? [];
    if (replace !== undefined) list[replace] = rec;
    else list.push(rec);
    this.recommendations.set(key, list);
  }

  /** stabilizeRecommendation (no behavior): the highest recommendation of the window, recording this one. */
  stabilize(key: string, prenormalized: number, nowMs: number): number {
    let max = prenormalized;
    let oldIndex: number | undefined;
    const cutoff = nowMs - this.downscaleStabilisationWindowMs;
    (this.recommendations.get(key) ?? []).forEach((r, i) => {
      if (r.timestampMs < cutoff) oldIndex = i;
      else if (r.recommendation > max) max = r.recommendation;
    });
    this.record(key, oldIndex, { recommendation: prenormalized, timestampMs: nowMs });
    return max;
  }

  /** stabilizeRecommendationWithBehaviors: held between the up window's lowest and the down window's highest. */
  stabilizeWithBehaviors(a: NormalizationArg, nowMs: number): { replicas: number; reason: string; message: string } {
    let up = a.desiredReplicas;
    let down = a.desiredReplicas;
    const upCutoff = nowMs - (a.scaleUp.stabilizationWindowSeconds ?? 0) * 1000;
    const downCutoff = nowMs - (a.scaleDown.stabilizationWindowSeconds ?? 0) * 1000;
    let oldIndex: number | undefined;
    (this.recommendations.get(a.key) ?? []).forEach((r, i) => {
      if (r.timestampMs > upCutoff) up = Math.min(r.recommendation, up);
      if (r.timestampMs > downCutoff) down = Math.max(r.recommendation, down);
      if (r.timestampMs < upCutoff && r.timestampMs < downCutoff) oldIndex = i;
    });
    let replicas = a.currentReplicas;
    if (replicas < up) replicas = up;
    if (replicas > down) replicas = down;
    this.record(a.key, oldIndex, { recommendation: a.desiredReplicas, timestampMs: nowMs });
    if (a.desiredReplicas >= a.currentReplicas) {
      return { replicas, reason: "ScaleUpStabilized", message: "recent recommendations were lower than current one, applying the lowest recent recommendation" };
    }
    return { replicas, reason: "ScaleDownStabilized", message: "recent recommendations were higher than current one, applying the highest recent recommendation" };
  }

  /** convertDesiredReplicasWithBehaviorRate: the policies' limits and min/max. */
  convertWithBehaviorRate(a: NormalizationArg, nowMs: number): Limited {
    if (a.desiredReplicas > a.currentReplicas) {
      let limit = scaleUpLimitWithRules(a.currentReplicas, this.scaleUpEvents.get(a.key) ?? [], this.scaleDownEvents.get(a.key) ?? [], a.scaleUp, nowMs);
      // No further scale-up until the period's events age out.
      if (limit < a.currentReplicas) limit = a.currentReplicas;
      let maximumAllowed = a.maxReplicas;
      let why: { reason: string; message: string } = tooManyReason;
      if (maximumAllowed > limit) {
        maximumAllowed = limit;
        why = scaleUpLimitReason;
      }
      if (a.desiredReplicas > maximumAllowed) return { replicas: maximumAllowed, ...why };
    } else if (a.desiredReplicas < a.currentReplicas) {
      let limit = scaleDownLimitWithRules(a.currentReplicas, this.scaleUpEvents.get(a.key) ?? [], this.scaleDownEvents.get(a.key) ?? [], a.scaleDown, nowMs);
      if (limit > a.currentReplicas) limit = a.currentReplicas;
      let minimumAllowed = a.minReplicas;
      let why: { reason: string; message: string } = tooFewReason;
      if (minimumAllowed < limit) {
        minimumAllowed = limit;
        why = scaleDownLimitReason;
      }
      if (a.desiredReplicas < minimumAllowed) return { replicas: minimumAllowed, ...why };
    }
    return { replicas: a.desiredReplicas, ...withinRange };
  }

  /** storeScaleEvent: remembers a rescale for the policies (only HPAs with behavior use them). */
  storeScaleEvent(behavior: HorizontalPodAutoscalerBehavior | undefined, key: string, prevReplicas: number, newReplicas: number, nowMs: number): void {
    if (!behavior) return;
    const up = newReplicas > prevReplicas;
    const rules = up ? behavior.scaleUp : behavior.scaleDown;
    const map = up ? this.scaleUpEvents : this.scaleDownEvents;
    const longest = Math.max(0, ...(rules?.policies ?? []).map((p) => p.periodSeconds));
    const events = map.get(key) ?? [];
    const cutoff = nowMs - longest * 1000;
    let oldIndex: number | undefined;
    events.forEach((e, i) => {
      if (e.timestampMs < cutoff) e.outdated = true;
      if (e.outdated) oldIndex = i;
    });
    const event: TimestampedScaleEvent = { replicaChange: up ? newReplicas - prevReplicas : prevReplicas - newReplicas, timestampMs: nowMs, outdated: false };
    if (oldIndex !== undefined) events[oldIndex] = event;
    else events.push(event);
    map.set(key, events);
  }
}
