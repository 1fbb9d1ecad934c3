import { describe, expect, it } from "vitest";
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
  type Condition,
} from "./conditions.js";
import { formatTime } from "./time.js";

const NOW = Date.UTC(2026, 0, 1, 12);
const hourBefore = formatTime(NOW - 3_600_000);
const hourAfter = formatTime(NOW + 3_600_000);

// apimachinery api/meta conditions_test.go, restated.
describe("setStatusCondition (meta.SetStatusCondition)", () => {
  const cases: Array<{ name: string; conditions: Condition[]; toAdd: Condition; expected: Condition[]; changed: boolean }> = [
    {
      name: "should-add",
      conditions: [{ type: "first", status: "" }, { type: "third", status: "" }],
      toAdd: { type: "second", status: "True", lastTransitionTime: hourBefore, reason: "reason", message: "message" },
      expected: [{ type: "first", status: "" }, { type: "third", status: "" }, { type: "second", status: "True", lastTransitionTime: hourBefore, reason: "reason", message: "message" }],
      changed: true,
    },
    {
      name: "use-supplied-time",
      conditions: [{ type: "first", status: "" }, { type: "second", status: "False" }, { type: "third", status: "" }],
      toAdd: { type: "second", status: "True", lastTransitionTime: hourBefore, reason: "reason", message: "message" },
      expected: [{ type: "first", status: "" }, { type: "second", status: "True", lastTransitionTime: hourBefore, reason: "reason", message: "message" }, { type: "third", status: "" }],
      changed: true,
    },
    {
      name: "update-fields",
      conditions: [{ type: "first", status: "" }, { type: "second", status: "True", lastTransitionTime: hourBefore }, { type: "third", status: "" }],
      toAdd: { type: "second", status: "True", lastTransitionTime: hourAfter, reason: "reason", message: "message", observedGeneration: 3 },
      expected: [
        { type: "first", status: "" },
        { type: "second", status: "True", lastTransitionTime: hourBefore, reason: "reason", message: "message", observedGeneration: 3 },
        { type: "third", status: "" },
      ],
      changed: true,
    },
    {
      name: "a new condition without a time gets now",
      conditions: [],
      toAdd: { type: "Ready", status: "True" },
      expected: [{ type: "Ready", status: "True", lastTransitionTime: formatTime(NOW) }],
      changed: true,
    },
    {
      name: "a status change without a time gets now",
      conditions: [{ type: "Ready", status: "False", lastTransitionTime: hourBefore }],
      toAdd: { type: "Ready", status: "True" },
      expected: [{ type: "Ready", status: "True", lastTransitionTime: formatTime(NOW) }],
      changed: true,
    },
    {
      name: "nothing changed",
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: hourBefore, reason: "r", message: "m" }],
      toAdd: { type: "Ready", status: "True", reason: "r", message: "m" },
      expected: [{ type: "Ready", status: "True", lastTransitionTime: hourBefore, reason: "r", message: "m" }],
      changed: false,
    },
  ];
  it.each(cases)("$name", (c) => {
    const conditions = c.conditions.map((x) => ({ ...x }));
    expect(setStatusCondition(conditions, c.toAdd, NOW)).toBe(c.changed);
    expect(conditions).toEqual(c.expected);
  });
});

describe("removeStatusCondition, findStatusCondition, isStatusCondition*", () => {
  it.each([
    ["present", "second", [{ type: "first" }, { type: "third" }], true],
    ["not-present", "fourth", [{ type: "first" }, { type: "second" }, { type: "third" }], false],
  ] as const)("remove %s", (_n, type, expected, removed) => {
    const cs: Condition[] = [{ type: "first", status: "" }, { type: "second", status: "" }, { type: "third", status: "" }];
    expect(removeStatusCondition(cs, type)).toBe(removed);
    expect(cs.map((c) => ({ type: c.type }))).toEqual(expected);
  });
  it("find", () => {
    expect(findStatusCondition([{ type: "first", status: "" }], "second")).toBeUndefined();
    expect(findStatusCondition([{ type: "first", status: "" }, { type: "second", status: "" }], "second")).toEqual({ type: "second", status: "" });
  });
  it.each([
    ["doesnt-match-true", "Unknown", "True", false],
    ["does-match-true", "True", "True", true],
    ["does-match-false", "False", "False", true],
  ] as const)("presentAndEqual %s", (_n, status, want, expected) => {
    expect(isStatusConditionPresentAndEqual([{ type: "first", status }], "first", want)).toBe(expected);
  });
  it("true / false", () => {
    expect(isStatusConditionTrue([{ type: "a", status: "True" }], "a")).toBe(true);
    expect(isStatusConditionFalse([{ type: "a", status: "True" }], "a")).toBe(false);
    expect(isStatusConditionTrue(undefined, "a")).toBe(false);
  });
});
