import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FieldSelectorParseError,
  andSelectors,
  escapeValue,
  everythingFields,
  fieldSelectorFromSet,
  nothingFields,
  oneTermEqualSelector,
  oneTermNotEqualSelector,
  parseAndTransformFieldSelector,
  parseFieldSelector,
  unescapeValue,
  type FieldSelector,
  type Fields,
} from "./fields.js";

function parseError(s: string): FieldSelectorParseError {
  try {
    parseFieldSelector(s);
  } catch (err) {
    if (err instanceof FieldSelectorParseError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

// Upstream: fields/selector_test.go
describe("escapeValue / unescapeValue (TestEscapeValue)", () => {
  it.each([
    ["", ""],
    ["a", "a"],
    ["=", "\\="],
    [",", "\\,"],
    ["\\", "\\\\"],
    ["\\=\\,\\", "\\\\\\=\\\\\\,\\\\"],
  ])("%j ⇄ %j", (raw, escaped) => {
    expect(escapeValue(raw)).toBe(escaped);
    expect(unescapeValue(escaped)).toBe(raw);
  });
  it.each(["\\", "\\\\\\", "\\a"])("rejects %j with an invalid escape sequence", (v) => {
    expect(() => unescapeValue(v)).toThrow(FieldSelectorParseError);
    expect(() => unescapeValue(v)).toThrow("invalid escape sequence");
  });
});

describe("parse (TestSelectorParse, TestDeterministicParse)", () => {
  it.each(["x=a,y=b,z=c", "", "x!=a,y=b", "x=a||y\\=b", "x=a\\=\\=b"])("%j restrings identically", (s) => {
    expect(parseFieldSelector(s).toString()).toBe(s);
  });
  it.each(["x=a||y=b", "x==a==b", "x=a,b", "x in (a)", "x in (a,b,c)", "x"])("rejects %j", (s) => {
    expect(() => parseFieldSelector(s)).toThrow(FieldSelectorParseError);
  });
  it("is deterministic", () => {
    expect(parseFieldSelector("x=a,a=x").toString()).toBe(parseFieldSelector("a=x,x=a").toString());
    expect(parseFieldSelector("x=a,a=x").toString()).toBe("a=x,x=a");
  });
  it("splits terms on unescaped commas only (TestSplitTerms)", () => {
    // Terms are ordered by their raw text: "k2=v2" < "k=\\," because '2' < '='.
    expect(parseFieldSelector("k=\\,,k2=v2").requirements()).toEqual([
      { field: "k2", operator: "=", value: "v2" },
      { field: "k", operator: "=", value: "," },
    ]);
    expect(parseFieldSelector("k=\\\\,k2=v2").requirements()[1].value).toBe("\\");
    expect(parseFieldSelector("k=\\\\\\,,k2=v2").requirements()[1].value).toBe("\\,");
    expect(parseFieldSelector("함=수,목=록").requirements()).toEqual([
      { field: "목", operator: "=", value: "록" },
      { field: "함", operator: "=", value: "수" },
    ]);
    expect(parseFieldSelector("a=a,").toString()).toBe("a=a");
    expect(parseFieldSelector(",a=a").toString()).toBe("a=a");
  });
  it("splits a term at the first operator, != before == before = (TestSplitTerm)", () => {
    expect(parseFieldSelector("b==value").requirements()).toEqual([{ field: "b", operator: "=", value: "value" }]);
    expect(parseFieldSelector("c!=value").requirements()).toEqual([{ field: "c", operator: "!=", value: "value" }]);
    expect(parseFieldSelector("k=\\=").requirements()[0].value).toBe("=");
    expect(parseFieldSelector("a.b!=").requirements()).toEqual([{ field: "a.b", operator: "!=", value: "" }]);
  });
  it("reports upstream's messages with position and token", () => {
    let e = parseError("a=b,x");
    expect(e.message).toBe("invalid selector: 'a=b,x'; can't understand 'x'");
    expect(e.token).toBe("x");
    expect(e.position).toBe(4);
    e = parseError("x==a==b");
    expect(e.message).toBe("invalid field selector: unescaped character in value: 61");
    expect(e.position).toBe(4);
    e = parseError("a=1,b=x\\q");
    expect(e.message).toBe("invalid field selector: invalid escape sequence: \\q");
    expect(e.token).toBe("\\q");
    expect(e.position).toBe(7);
    e = parseError("k=\\");
    expect(e.message).toBe("invalid field selector: invalid escape sequence: \\");
    expect(e.position).toBe(2);
    e = parseError("x=a,b");
    expect(e.message).toBe("invalid selector: 'x=a,b'; can't understand 'b'");
  });
});

describe("matching (TestSelectorMatches, TestSetMatches)", () => {
  const fieldset: Fields = { foo: "bar", baz: "blah", complex: "=value\\,\\" };
  it.each([
    ["", { x: "y" }],
    ["x=y", { x: "y" }],
    ["x=y,z=w", { x: "y", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "a" }],
    ["notin=in", { notin: "in" }],
    ["foo=bar", fieldset],
    ["baz=blah", fieldset],
    ["foo=bar,baz=blah", fieldset],
    ["foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\", fieldset],
    ["missing=", {}],
    ["x!=y", {}],
    ["constructor=", {}],
  ] as Array<[string, Fields]>)("%j matches %j", (s, f) => expect(parseFieldSelector(s).matches(f)).toBe(true));
  it.each([
    ["x=y", { x: "z" }],
    ["x=y,z=w", { x: "w", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "w" }],
    ["foo=blah", fieldset],
    ["baz=bar", fieldset],
    ["foo=bar,foobar=bar,baz=blah", fieldset],
    ["missing!=", {}],
    ["x=y", undefined],
  ] as Array<[string, Fields | undefined]>)("%j does not match %j", (s, f) => expect(parseFieldSelector(s).matches(f)).toBe(false));
  it("fieldSelectorFromSet", () => {
    const ls = { foo: "bar", baz: "blah" };
    for (const set of [{}, { foo: "bar" }, { baz: "blah" }, { foo: "bar", baz: "blah" }] as Fields[]) {
      expect(fieldSelectorFromSet(set).matches(ls)).toBe(true);
    }
    for (const set of [{ foo: "=blah" }, { baz: "=bar" }, { foo: "=bar", foobar: "bar", baz: "blah" }] as Fields[]) {
      expect(fieldSelectorFromSet(set).matches(ls)).toBe(false);
    }
    expect(fieldSelectorFromSet(undefined).empty()).toBe(true);
    expect(fieldSelectorFromSet({}).empty()).toBe(true);
    expect(fieldSelectorFromSet({ b: "1", a: "x,y" }).toString()).toBe("a=x\\,y,b=1");
  });
  it("oneTerm selectors", () => {
    expect(oneTermEqualSelector("x", "y").matches({ x: "y" })).toBe(true);
    expect(oneTermEqualSelector("x", "y").matches({ x: "z" })).toBe(false);
    expect(oneTermNotEqualSelector("x", "y").matches({ x: "z" })).toBe(true);
    expect(oneTermEqualSelector("metadata.name", "a=b").toString()).toBe("metadata.name=a\\=b");
  });
});

describe("empty, everything, nothing (TestEverything, TestSetIsEmpty)", () => {
  it("everything", () => {
    expect(everythingFields().matches({ x: "y" })).toBe(true);
    expect(everythingFields().empty()).toBe(true);
    expect(everythingFields().toString()).toBe("");
  });
  it("nothing", () => {
    expect(nothingFields().matches({})).toBe(false);
    expect(nothingFields().empty()).toBe(false);
  });
  it("nested", () => {
    expect(andSelectors(andSelectors()).empty()).toBe(true);
    expect(andSelectors(oneTermEqualSelector("a", "b")).empty()).toBe(false);
    expect(oneTermNotEqualSelector("", "").empty()).toBe(false);
  });
});

// Upstream: TestRequiresExactMatch
describe("requiresExactMatch", () => {
  it.each([
    ["empty set", fieldSelectorFromSet({}), "test", undefined],
    ["skipped term", oneTermEqualSelector("a", "b"), "test", undefined],
    ["valid term", oneTermEqualSelector("test", "b"), "test", "b"],
    ["valid term no value", oneTermEqualSelector("test", ""), "test", ""],
    ["not-equal term", oneTermNotEqualSelector("test", "b"), "test", undefined],
    ["nested and", andSelectors(andSelectors()), "test", undefined],
    ["nested and matches", andSelectors(oneTermEqualSelector("test", "b")), "test", "b"],
    ["and with non-match", andSelectors(oneTermEqualSelector("", ""), oneTermEqualSelector("test", "b")), "test", "b"],
  ])("%s", (_name, sel, field, want) => expect(sel.requiresExactMatch(field)).toBe(want));
});

describe("transform", () => {
  it("rewrites terms and drops ones mapped to empty", () => {
    const sel = parseAndTransformFieldSelector("a=1,b=2", (field, value) =>
      field === "a" ? { field: "", value: "" } : { field: `spec.${field}`, value },
    );
    expect(sel.toString()).toBe("spec.b=2");
    expect(sel.matches({ "spec.b": "2" })).toBe(true);
  });
  it("propagates errors from the function", () => {
    expect(() =>
      parseFieldSelector("a=1").transform(() => {
        throw new Error("field label not supported: a");
      }),
    ).toThrow("field label not supported: a");
  });
  it("a single term mapped to empty becomes everything", () => {
    expect(parseAndTransformFieldSelector("a=1", () => ({ field: "", value: "" })).empty()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Properties and fuzz

const fieldArb = fc.stringMatching(/^[a-z][a-z.]{0,12}$/);
const valueArb = fc.string({ maxLength: 12 });
const termArb = fc.tuple(fieldArb, fc.constantFrom("=", "==", "!="), valueArb);

const sortedReqs = (sel: FieldSelector) =>
  sel
    .requirements()
    .map((r) => JSON.stringify([r.field, r.operator, r.value]))
    .sort();

/**
 * Printing and re-parsing keeps the same terms. Upstream orders terms by their raw text, and
 * "a==x" prints as "a=x", so the order may change once; after that the text is a fixed point.
 */
function roundTrip(sel: FieldSelector): FieldSelector {
  const again = parseFieldSelector(sel.toString());
  expect(sortedReqs(again)).toEqual(sortedReqs(sel));
  const text = again.toString();
  expect(parseFieldSelector(text).toString()).toBe(text);
  return again;
}

describe("properties", () => {
  it("round trip: parse(toString(sel)) prints the same and matches the same", () => {
    fc.assert(
      fc.property(fc.array(termArb, { maxLength: 5 }), fc.dictionary(fieldArb, valueArb, { maxKeys: 5 }), (terms, f) => {
        const text = terms.map(([k, op, v]) => `${k}${op}${escapeValue(v)}`).join(",");
        const sel = parseFieldSelector(text);
        const again = roundTrip(sel);
        expect(again.matches(f)).toBe(sel.matches(f));
        // Reference semantics: every term holds, a missing field reading as "".
        const want = terms.every(([k, op, v]) => {
          const got = Object.prototype.hasOwnProperty.call(f, k) ? f[k] : "";
          return op === "!=" ? got !== v : got === v;
        });
        expect(sel.matches(f)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
  it("escapeValue and unescapeValue are inverse", () => {
    fc.assert(
      fc.property(fc.string(), (v) => {
        expect(unescapeValue(escapeValue(v))).toBe(v);
      }),
      { numRuns: 2000 },
    );
  });
});

function parsesOrTypedError(s: string): void {
  try {
    roundTrip(parseFieldSelector(s));
  } catch (err) {
    if (!(err instanceof FieldSelectorParseError)) throw err;
    expect(err.position).toBeGreaterThanOrEqual(0);
    expect(err.position).toBeLessThan(Math.max(1, s.length));
  }
}

describe("fuzz", () => {
  it("random strings (10,000 runs)", () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), parsesOrTypedError), { numRuns: 10_000 });
  });
  it("random token soups (10,000 runs)", () => {
    const tok = fc.constantFrom("a", "b", "x.y", "=", "==", "!=", "!", ",", "\\", "\\,", "\\=", "\\\\", " ", "é", "", "in", "(", ")");
    fc.assert(
      fc.property(fc.array(tok, { maxLength: 16 }), (toks) => parsesOrTypedError(toks.join(""))),
      { numRuns: 10_000 },
    );
  });
});
