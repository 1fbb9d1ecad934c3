import { describe, expect, it } from "vitest";
import type { SuccessPolicy } from "../../apimachinery/api/batch/v1.js";
import { OrderedIntervals } from "./indexes.js";
import { matchSucceededIndexesRule, matchSuccessPolicy } from "./successpolicy.js";

interface Case {
  name: string;
  policy: SuccessPolicy | undefined;
  completions: number;
  succeeded: string;
  wantMet: boolean;
  wantMessage?: string;
}

// Restated from upstream's TestMatchSuccessPolicy (success_policy_test.go).
const cases: Case[] = [
  { name: "successPolicy is null", policy: undefined, completions: 10, succeeded: "0-3", wantMet: false },
  { name: "any rule matched but no succeeded indexes", policy: { rules: [{ succeededCount: 1 }] }, completions: 10, succeeded: "", wantMet: false },
  { name: "rule.succeededIndexes matched", policy: { rules: [{ succeededIndexes: "1-3" }] }, completions: 10, succeeded: "0-4", wantMet: true, wantMessage: "Matched rules at index 0" },
  { name: "rule.succeededIndexes not fully succeeded", policy: { rules: [{ succeededIndexes: "1-3" }] }, completions: 10, succeeded: "0-2", wantMet: false },
  { name: "rule.succeededCount matched", policy: { rules: [{ succeededCount: 3 }] }, completions: 10, succeeded: "1,4,7", wantMet: true, wantMessage: "Matched rules at index 0" },
  { name: "rule.succeededCount not matched", policy: { rules: [{ succeededCount: 4 }] }, completions: 10, succeeded: "1,4,7", wantMet: false },
  {
    name: "succeededIndexes and succeededCount: enough of the listed indexes",
    policy: { rules: [{ succeededIndexes: "0-5", succeededCount: 3 }] },
    completions: 10,
    succeeded: "2,4,5,8",
    wantMet: true,
    wantMessage: "Matched rules at index 0",
  },
  {
    name: "succeededIndexes and succeededCount: succeeded outside the listed indexes do not count",
    policy: { rules: [{ succeededIndexes: "0-2", succeededCount: 2 }] },
    completions: 10,
    succeeded: "2-9",
    wantMet: false,
  },
  {
    name: "second rule matched",
    policy: { rules: [{ succeededIndexes: "9" }, { succeededCount: 2 }] },
    completions: 10,
    succeeded: "0,1",
    wantMet: true,
    wantMessage: "Matched rules at index 1",
  },
  {
    name: "rule indexes beyond completions are dropped; a rule left with none is skipped",
    policy: { rules: [{ succeededIndexes: "10-12" }, { succeededIndexes: "3,11" }] },
    completions: 10,
    succeeded: "3",
    wantMet: true,
    wantMessage: "Matched rules at index 1",
  },
  {
    name: "multiple intervals in the rule and in the succeeded indexes",
    policy: { rules: [{ succeededIndexes: "0,2,4-6,8" }] },
    completions: 10,
    succeeded: "0-2,4-8",
    wantMet: true,
    wantMessage: "Matched rules at index 0",
  },
];

describe("matchSuccessPolicy (upstream TestMatchSuccessPolicy)", () => {
  for (const c of cases) {
    it(c.name, () => {
      const got = matchSuccessPolicy(c.policy, c.completions, OrderedIntervals.parse(c.succeeded, c.completions));
      expect(got.met).toBe(c.wantMet);
      if (c.wantMessage !== undefined) expect(got.message).toBe(c.wantMessage);
    });
  }
});

describe("matchSucceededIndexesRule", () => {
  const iv = (s: string) => OrderedIntervals.parse(s, 100);
  it.each([
    ["0-9", "0-9", undefined, true],
    ["0-9", "0-8", undefined, false],
    ["0-9", "0-8", 9, true],
    ["1,3,5", "0-4", 2, true],
    ["1,3,5", "0-4", 3, false],
    ["10-20", "0-9,21-30", 1, false],
  ] as const)("rule %s, succeeded %s, count %s → %s", (rule, succeeded, count, want) => {
    expect(matchSucceededIndexesRule(iv(rule), iv(succeeded), count)).toBe(want);
  });
});
