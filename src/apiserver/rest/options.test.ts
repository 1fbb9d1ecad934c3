import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { parseBool, parseDeleteOptions, parseListOptions } from "./options.js";
import { decodeContinue, encodeContinue } from "./continuetoken.js";

function listErr(query: string): string | undefined {
  try {
    parseListOptions(new URLSearchParams(query));
    return undefined;
  } catch (err) {
    return (err as StatusError).status.message;
  }
}

describe("ListOptions validation (ValidateListOptions)", () => {
  it.each([
    ["resourceVersion=5&resourceVersionMatch=Exact", undefined],
    ["resourceVersion=5&limit=10", undefined],
    ["resourceVersionMatch=Exact", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
    ["resourceVersion=0&resourceVersionMatch=Exact", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
    ["resourceVersion=1&resourceVersionMatch=Newest", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan"'],
    ["sendInitialEvents=true", 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list'],
    ["watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", undefined],
    ["watch=true&resourceVersionMatch=NotOlderThan", 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    ["watch=True&sendInitialEvents=false&resourceVersionMatch=NotOlderThan", undefined],
    ["watch=yes", 'invalid value for watch: strconv.ParseBool: parsing "yes": invalid syntax'],
    ["limit=abc", 'invalid value for limit: strconv.ParseInt: parsing "abc": invalid syntax'],
  ])("%s", (query, want) => {
    expect(listErr(query)).toBe(want);
  });

  it("parses booleans as Go's ParseBool", () => {
    for (const v of ["1", "t", "T", "TRUE", "true", "True"]) expect(parseBool("x", v)).toBe(true);
    for (const v of ["0", "f", "F", "FALSE", "false", "False"]) expect(parseBool("x", v)).toBe(false);
  });

  it("merges DeleteOptions from the body over the query", () => {
    const o = parseDeleteOptions(new URLSearchParams("propagationPolicy=Orphan&gracePeriodSeconds=3"), {
      propagationPolicy: "Foreground",
      dryRun: ["All"],
      preconditions: { uid: "u" },
    });
    expect(o).toEqual({ dryRun: true, gracePeriodSeconds: 3, propagationPolicy: "Foreground", preconditions: { uid: "u", resourceVersion: undefined } });
    expect(() => parseDeleteOptions(new URLSearchParams("dryRun=Yes"), undefined)).toThrow(StatusError);
  });

  it("round-trips continue tokens and rejects forged ones", () => {
    expect(decodeContinue(encodeContinue(42, "default/b\x00"))).toEqual({ rv: 42, start: "default/b\x00" });
    expect(() => decodeContinue("not-a-token")).toThrow(/continue key is not valid/);
    expect(() => decodeContinue(Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: 1, start: "/etc" })).toString("base64url"))).toThrow(/continue key is not valid/);
  });
});
