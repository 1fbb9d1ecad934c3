import { describe, expect, it } from "vitest";
import { decodeWatchEvent, JsonObjectFramer } from "./watch.js";
import { parseWarningHeader } from "./warnings.js";

function feed(chunks: (string | Buffer)[]): string[] {
  const f = new JsonObjectFramer();
  return chunks.flatMap((c) => f.push(typeof c === "string" ? Buffer.from(c) : c));
}

describe("JsonObjectFramer", () => {
  it.each([
    { name: "one object per line", chunks: ['{"a":1}\n{"b":2}\n'], want: ['{"a":1}', '{"b":2}'] },
    { name: "no separators", chunks: ['{"a":1}{"b":2}'], want: ['{"a":1}', '{"b":2}'] },
    { name: "split mid-object", chunks: ['{"a":', '{"x":1}', "}\n"], want: ['{"a":{"x":1}}'] },
    { name: "braces and quotes inside strings", chunks: ['{"s":"}{\\"', '}"}\n'], want: ['{"s":"}{\\"}"}'] },
    { name: "escape split across chunks", chunks: ['{"s":"a\\', '"}"}'], want: ['{"s":"a\\"}"}'] },
    { name: "partial object is held back", chunks: ['{"a":1}\n{"b":'], want: ['{"a":1}'] },
  ])("$name", ({ chunks, want }) => {
    expect(feed(chunks)).toEqual(want);
  });

  it("a multi-byte character split across chunks survives", () => {
    const bytes = Buffer.from('{"name":"żółw"}\n');
    const cut = bytes.indexOf(0xc5) + 1; // inside "ż"
    expect(feed([bytes.subarray(0, cut), bytes.subarray(cut)])).toEqual(['{"name":"żółw"}']);
  });

  it("rejects garbage between objects", () => {
    expect(() => feed(["x"])).toThrow(SyntaxError);
  });
});

describe("decodeWatchEvent", () => {
  it("decodes typed events and ERROR statuses, explains bad frames", () => {
    expect(decodeWatchEvent('{"type":"ADDED","object":{"kind":"Pod"}}')).toEqual({ type: "ADDED", object: { kind: "Pod" } });
    expect(decodeWatchEvent('{"type":"ERROR","object":{"kind":"Status","code":410}}')).toEqual({
      type: "ERROR",
      object: { kind: "Status", code: 410 },
    });
    expect(decodeWatchEvent('{"type":"WHAT","object":{}}')).toMatch(/invalid watch event type: WHAT/);
    expect(decodeWatchEvent('{"type":"ADDED"}')).toMatch(/no object/);
  });
});

describe("parseWarningHeader", () => {
  it.each([
    { value: '299 - "deprecated API"', want: [{ code: 299, agent: "-", text: "deprecated API" }] },
    { value: '299 - "a, \\"quoted\\"", 299 kube "b" "Mon, 01 Jan 2026 00:00:00 GMT"', want: [
      { code: 299, agent: "-", text: 'a, "quoted"' },
      { code: 299, agent: "kube", text: "b" },
    ] },
    { value: 'bogus', want: [] },
    { value: '299 - "ok", garbage', want: [{ code: 299, agent: "-", text: "ok" }] },
  ])("$value", ({ value, want }) => {
    expect(parseWarningHeader(value)).toEqual(want);
  });
});
