/**
 * Status conditions (metav1.Condition) with the semantics of apimachinery's api/meta package
 * (conditions.go): find, set, remove, and the status checks controllers write their status with.
 *
 * setStatusCondition(conditions, c, now) changes the list in place and reports whether it changed:
 * - a condition of a new type is appended, with lastTransitionTime = now when c has none;
 * - an existing one takes c's status — and then lastTransitionTime (c's, else now) only when the
 *   status changed — and c's reason, message and observedGeneration; its lastTransitionTime is
 *   otherwise kept, so recomputing an unchanged world changes nothing.
 * Times are metav1.Time strings: RFC 3339 in whole seconds, UTC.
 */
import { formatTime } from "./time.js";

/** metav1.Condition, and any condition type of the same shape (a CRD's own). */
export interface Condition {
  type: string;
  /** "True", "False" or "Unknown". */
  status: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** The condition of `type`, if present (FindStatusCondition); the list's own element. */
export function findStatusCondition<C extends Condition>(conditions: readonly C[] | undefined, type: string): C | undefined {
  return conditions?.find((c) => c.type === type);
}

/** SetStatusCondition: see the module comment. `now` is milliseconds since the epoch. */
export function setStatusCondition<C extends Condition>(conditions: C[], next: C, now: number): boolean {
  const existing = findStatusCondition(conditions, next.type);
  if (!existing) {
    const c = { ...next };
    if (!c.lastTransitionTime) c.lastTransitionTime = formatTime(now);
    conditions.push(c);
    return true;
  }
  let changed = false;
  if (existing.status !== next.status) {
    existing.status = next.status;
    existing.lastTransitionTime = next.lastTransitionTime || formatTime(now);
    changed = true;
  }
  if ((existing.reason ?? "") !== (next.reason ?? "")) {
    existing.reason = next.reason;
    changed = true;
  }
  if ((existing.message ?? "") !== (next.message ?? "")) {
    existing.message = next.message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (next.observedGeneration ?? 0)) {
    existing.observedGeneration = next.observedGeneration;
    changed = true;
  }
  return changed;
}

/** RemoveStatusCondition: drops the condition of `type` in place; whether one was there. */
export function removeStatusCondition(conditions: Condition[], type: string): boolean {
  const i = conditions.findIndex((c) => c.type === type);
  if (i < 0) return false;
  for (let j = conditions.length - 1; j >= 0; j--) if (conditions[j].type === type) conditions.splice(j, 1);
  return true;
}

/** IsStatusConditionPresentAndEqual. */
export function isStatusConditionPresentAndEqual(conditions: readonly Condition[] | undefined, type: string, status: string): boolean {
  return findStatusCondition(conditions, type)?.status === status;
}

/** IsStatusConditionTrue. */
export function isStatusConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, "True");
}

/** IsStatusConditionFalse. */
export function isStatusConditionFalse(conditions: readonly Condition[] | undefined, type: string): boolean {
  return isStatusConditionPresentAndEqual(conditions, type, "False");
}
