/**
 * A Job's successPolicy (success_policy.go, Indexed Jobs only): the Job has succeeded once one
 * rule holds — every index of `succeededIndexes` succeeded, or at least `succeededCount` of them
 * (when both are given), or at least `succeededCount` indexes at all (when only the count is).
 * Rules are tried in order; the message names the first that holds.
 */
import type { SuccessPolicy } from "../../apimachinery/api/batch/v1.js";
import { OrderedIntervals } from "./indexes.js";

export interface SuccessPolicyMatch {
  met: boolean;
  /** "Matched rules at index N" when met. */
  message: string;
}

/** Whether the succeeded indexes satisfy the policy (matchSuccessPolicy). */
export function matchSuccessPolicy(policy: SuccessPolicy | undefined | null, completions: number, succeeded: OrderedIntervals): SuccessPolicyMatch {
  if (!policy || succeeded.total() === 0) return { met: false, message: "" };
  const rules = policy.rules ?? [];
  for (let index = 0; index < rules.length; index++) {
    const rule = rules[index];
    if (rule.succeededIndexes != null) {
      const required = OrderedIntervals.parse(rule.succeededIndexes, completions);
      // Nothing usable in the rule (malformed, or every index beyond completions).
      if (required.total() === 0) continue;
      if (matchSucceededIndexesRule(required, succeeded, rule.succeededCount ?? undefined)) return { met: true, message: `Matched rules at index ${index}` };
    } else if (rule.succeededCount != null && succeeded.total() >= rule.succeededCount) {
      return { met: true, message: `Matched rules at index ${index}` };
    }
  }
  return { met: false, message: "" };
}

/** All of `required` succeeded, or at least `succeededCount` of them (matchSucceededIndexesRule). */
export function matchSucceededIndexesRule(required: OrderedIntervals, succeeded: OrderedIntervals, succeededCount: number | undefined): boolean {
  const contained = required.intersectionSize(succeeded);
  return contained === required.total() || (succeededCount !== undefined && contained >= succeededCount);
}
