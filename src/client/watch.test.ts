import { describe, expect, it } from "vitest";
import { decodeWatchEvent, FrameSyntaxError, JsonObjectFramer } from "./watch.js";
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

describe("JsonObjectFramer.pushParsed (the line fast path, with the scanner behind it)", () => {
  const feedParsed = (chunks: (string | Buffer)[]): unknown[] => {
    const f = new JsonObjectFramer();
    return chunks.flatMap((c) => f.pushParsed(typeof c === "string" ? Buffer.from(c) : c));
  };
  it.each([
    { name: "one object per line", chunks: ['{"a":1}\n{"b":2}\n'], want: [{ a: 1 }, { b: 2 }] },
    { name: "CRLF and blank lines", chunks: ['{"a":1}\r\n\n  {"b":2}\r\n'], want: [{ a: 1 }, { b: 2 }] },
    { name: "no separators", chunks: ['{"a":1}{"b":2}'], want: [{ a: 1 }, { b: 2 }] },
    { name: "two objects on one line", chunks: ['{"a":1}{"b":2}\n{"c":3}\n'], want: [{ a: 1 }, { b: 2 }, { c: 3 }] },
    { name: "pretty-printed", chunks: ['{\n  "a": {\n    "x": "}{"\n  }\n}\n{"b":2}\n'], want: [{ a: { x: "}{" } }, { b: 2 }] },
    { name: "a first line that looks whole but is not", chunks: ['{"a":{}\n}\n'], want: [{ a: {} }] },
    { name: "split mid-object", chunks: ['{"a":', '{"x":1}', "}\n"], want: [{ a: { x: 1 } }] },
    { name: "split, then lines", chunks: ['{"a":1}\n{"b":', '2}\n{"c":3}\n'], want: [{ a: 1 }, { b: 2 }, { c: 3 }] },
    { name: "escape split across chunks", chunks: ['{"s":"a\\', '"}"}\n'], want: [{ s: 'a"}' }] },
    { name: "partial object is held back", chunks: ['{"a":1}\n{"b":'], want: [{ a: 1 }] },
  ])("$name", ({ chunks, want }) => {
    expect(feedParsed(chunks)).toEqual(want);
  });

  it("agrees with push + JSON.parse for every cut of a realistic stream", () => {
    const events = [
      { type: "ADDED", object: { kind: "Pod", metadata: { name: "a", annotations: { "x/y": 'q"u}o{te\\' } }, spec: {} } },
      { type: "MODIFIED", object: { kind: "Pod", metadata: { name: "żółw" }, status: { phase: "Running" } } },
      { type: "BOOKMARK", object: { kind: "Pod", metadata: { resourceVersion: "7" } } },
    ];
    const bytes = Buffer.from(events.map((e) => JSON.stringify(e) + "\n").join(""));
    for (let cut = 0; cut <= bytes.length; cut++) {
      const chunks = [bytes.subarray(0, cut), bytes.subarray(cut)];
      expect(feedParsed(chunks)).toEqual(events);
      expect(feed(chunks).map((t) => JSON.parse(t) as unknown)).toEqual(events);
    }
  });

  it("a frame that is not JSON comes back as a FrameSyntaxError; garbage between objects throws", () => {
    const got = feedParsed(['{"a":1}\n{"b":tru}\n']);
    expect(got[0]).toEqual({ a: 1 });
    expect(got[1]).toBeInstanceOf(FrameSyntaxError);
    expect(() => feedParsed(['{"a":1}\nx'])).toThrow(SyntaxError);
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
