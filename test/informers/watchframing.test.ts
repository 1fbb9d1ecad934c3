/**
 * The watch framer under the informer (src/client/watch.ts JsonObjectFramer) skips string
 * contents with indexOf instead of scanning byte by byte. This differential test holds it to the
 * plain byte-by-byte brace scanner below (the reference), on random objects full of quotes,
 * backslashes, braces and multi-byte characters, with random separators, cut into chunks at
 * random places (single bytes included).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { JsonObjectFramer } from "../../src/client/watch.js";

/** The reference: one byte at a time, tracking depth, string and escape state. */
class ReferenceFramer {
  private pending: number[] = [];
  private depth = 0;
  private inString = false;
  private escaped = false;

  push(chunk: Uint8Array): string[] {
    const out: string[] = [];
    for (const b of chunk) {
      if (this.depth === 0) {
        if (b === 0x7b) {
          this.depth = 1;
          this.pending = [b];
        } else if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) {
          throw new SyntaxError("garbage");
        }
        continue;
      }
      this.pending.push(b);
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === 0x5c) this.escaped = true;
        else if (b === 0x22) this.inString = false;
        continue;
      }
      if (b === 0x22) this.inString = true;
      else if (b === 0x7b) this.depth++;
      else if (b === 0x7d && --this.depth === 0) {
        out.push(Buffer.from(this.pending).toString("utf8"));
        this.pending = [];
      }
    }
    return out;
  }
}

const trickyString = fc.stringMatching(/^[a-z"\\{}ż\u{1F600} \n]{0,12}$/u);

const jsonValue = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    trickyString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(trickyString, tie("value"), { maxKeys: 4 }),
  ),
})).value;

const document = fc.dictionary(trickyString, jsonValue, { minKeys: 0, maxKeys: 5 });

function cutAt(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const p of points) {
    out.push(bytes.subarray(prev, p));
    prev = p;
  }
  out.push(bytes.subarray(prev));
  return out;
}

describe("JsonObjectFramer against a byte-by-byte reference", () => {
  it("frames identically for any objects, separators and chunking", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(document, fc.constantFrom("", "\n", " ", "\r\n", "\n\n")), { minLength: 1, maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.boolean(),
        (docs, cuts, byteByByte) => {
          const bytes = Buffer.from(docs.map(([d, sep]) => JSON.stringify(d) + sep).join(""), "utf8");
          const chunks = byteByByte ? [...bytes].map((b) => Buffer.from([b])) : cutAt(bytes, cuts);
          const fast = new JsonObjectFramer();
          const ref = new ReferenceFramer();
          const got = chunks.flatMap((c) => fast.push(c));
          const want = chunks.flatMap((c) => ref.push(c));
          expect(got).toEqual(want);
          expect(got).toEqual(docs.map(([d]) => JSON.stringify(d)));
          expect(fast.partial).toBe(false);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it("handles backslash runs at every chunk boundary", () => {
    for (let run = 0; run <= 5; run++) {
      const text = `{"s":"${"\\\\".repeat(run)}\\"x"}\n{"t":"${"\\\\".repeat(run)}"}\n`;
      const bytes = Buffer.from(text);
      expect(JSON.parse(text.split("\n")[0])).toBeTruthy();
      for (let cut = 0; cut <= bytes.length; cut++) {
        const f = new JsonObjectFramer();
        const got = [...f.push(bytes.subarray(0, cut)), ...f.push(bytes.subarray(cut))];
        expect(got, `run ${run}, cut ${cut}`).toEqual(text.trim().split("\n"));
      }
    }
  });

  it("accepts a Uint8Array that is not a Buffer", () => {
    const f = new JsonObjectFramer();
    const u8 = new Uint8Array(Buffer.from('{"a":"}"}\n{"b":1}'));
    expect(f.push(u8.subarray(0, 5))).toEqual([]);
    expect(f.push(u8.subarray(5))).toEqual(['{"a":"}"}', '{"b":1}']);
  });
});
