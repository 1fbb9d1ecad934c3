import { describe, expect, it } from "vitest";
import type { WatchEvent, WatchStream } from "./interfaces.js";
import type { RestStream } from "./transport.js";
import type { TypedObject } from "../apimachinery/types.js";
import { decodeWatchEvent, FrameSyntaxError, JsonObjectFramer, watchBatches, watchStream } from "./watch.js";
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
    { name: "split, then a pretty-printed rest", chunks: ['{"a":', '{\n"x":"}"\n}}\n{"b":2}\n'], want: [{ a: { x: "}" } }, { b: 2 }] },
    { name: "split over three chunks", chunks: ['{"a":"x', "yz", '"}\n{"b":2}\n'], want: [{ a: "xyz" }, { b: 2 }] },
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

/** A RestStream over fixed chunks, recording whether it was cancelled. */
function restStream(chunks: string[]): RestStream & { wasCancelled: () => boolean } {
  let cancelled = false;
  return {
    statusCode: 200,
    headers: {},
    body: (async function* () {
      for (const c of chunks) yield Buffer.from(c);
    })(),
    cancel: () => {
      cancelled = true;
    },
    get cancelled() {
      return cancelled;
    },
    wasCancelled: () => cancelled,
  };
}

const ev = (type: string, name: string) => JSON.stringify({ type, object: { kind: "Pod", metadata: { name } } }) + "\n";

describe("watchStream and watchBatches", () => {
  it("hands out the events of each chunk together, in order; the same events one by one", async () => {
    const chunks = [ev("ADDED", "a") + ev("MODIFIED", "a") + ev("ADDED", "b").slice(0, 10), ev("ADDED", "b").slice(10), "\n", ev("DELETED", "a")];
    const batches: string[][] = [];
    for await (const batch of watchBatches(watchStream(restStream(chunks)))) {
      batches.push(batch.map((e) => `${e.type} ${e.type === "ERROR" ? "" : e.object.metadata?.name}`));
    }
    expect(batches).toEqual([["ADDED a", "MODIFIED a"], ["ADDED b"], ["DELETED a"]]);
    const single: string[] = [];
    for await (const e of watchStream(restStream(chunks))) single.push(e.type);
    expect(single).toEqual(["ADDED", "MODIFIED", "ADDED", "DELETED"]);
  });

  it("a frame that is not an event ends its batch with an ERROR event, and the stream", async () => {
    const rs = restStream([ev("ADDED", "a") + '{"type":"WHAT","object":{}}\n' + ev("ADDED", "b"), ev("ADDED", "c")]);
    const got: WatchEvent<TypedObject>[][] = [];
    for await (const batch of watchBatches(watchStream(rs))) got.push([...batch]);
    expect(got).toHaveLength(1);
    expect(got[0].map((e) => e.type)).toEqual(["ADDED", "ERROR"]);
    expect((got[0][1].object as { message?: string }).message).toMatch(/invalid watch event type: WHAT/);
    expect(rs.wasCancelled()).toBe(true);
  });

  it("stopping early cancels the watch; a stream iterates once; other streams come one event per batch", async () => {
    const rs = restStream([ev("ADDED", "a"), ev("ADDED", "b")]);
    const s = watchStream(rs);
    for await (const batch of watchBatches(s)) {
      expect(batch).toHaveLength(1);
      break;
    }
    expect(rs.wasCancelled()).toBe(true);
    expect(() => s[Symbol.asyncIterator]()).toThrow(/only once/);
    const plain: WatchStream<never> = (async function* () {
      yield* [] as never[];
    })();
    const other = (async function* () {
      yield { type: "ADDED" as const, object: { metadata: { name: "x" } } };
      yield { type: "ADDED" as const, object: { metadata: { name: "y" } } };
    })();
    const sizes: number[] = [];
    for await (const b of watchBatches(other)) sizes.push(b.length);
    expect(sizes).toEqual([1, 1]);
    for await (const b of watchBatches(plain)) sizes.push(b.length);
    expect(sizes).toEqual([1, 1]);
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
