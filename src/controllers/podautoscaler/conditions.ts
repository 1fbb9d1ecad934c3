/**
 * The HPA's conditions (upstream horizontal.go setCondition / setConditionInList and the reasons
 * it uses): AbleToScale, ScalingActive and ScalingLimited. A condition's lastTransitionTime moves
 * only when its status changes; reason and message are always the latest.
 */
import type { HorizontalPodAutoscaler, HorizontalPodAutoscalerCondition } from "../../apimachinery/api/autoscaling/v2.js";
import { formatTime } from "../../apimachinery/time.js";

export const ABLE_TO_SCALE = "AbleToScale";
export const SCALING_ACTIVE = "ScalingActive";
export const SCALING_LIMITED = "ScalingLimited";
/** Set only under HPAScaleToZero (alpha, off in 1.36): with the gate off the controller removes it. */
export const SCALED_TO_ZERO = "ScaledToZero";

export type ConditionStatus = "True" | "False";

/** setConditionInList: returns a new list with `type` set. */
export function setConditionInList(list: readonly HorizontalPodAutoscalerCondition[] | undefined, type: string, status: ConditionStatus, reason: string, message: string, nowMs: number): HorizontalPodAutoscalerCondition[] {
  const out = (list ?? []).map((c) => ({ ...c }));
  let cond = out.find((c) => c.type === type);
  if (!cond) {
    cond = { type, status: "" };
    out.push(cond);
  }
  if (cond.status !== status) cond.lastTransitionTime = formatTime(nowMs);
  cond.status = status;
  cond.reason = reason;
  cond.message = message;
  return out;
}

/** setCondition on the (copied) HPA being reconciled. */
export function setCondition(hpa: HorizontalPodAutoscaler, type: string, status: ConditionStatus, reason: string, message: string, nowMs: number): void {
  hpa.status = { ...(hpa.status ?? { desiredReplicas: 0 }), conditions: setConditionInList(hpa.status?.conditions, type, status, reason, message, nowMs) };
}

/** removeCondition: drops the condition of `type` (a new list). */
export function removeCondition(hpa: HorizontalPodAutoscaler, type: string): void {
  if (!hpa.status?.conditions?.some((c) => c.type === type)) return;
  hpa.status = { ...hpa.status, conditions: hpa.status.conditions.filter((c) => c.type !== type) };
}
