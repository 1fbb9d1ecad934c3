/**
 * The Go primitives the decoder reproduces: time.Parse for RFC 3339 (metav1.Time) and
 * RFC3339Micro (metav1.MicroTime) with Go's messages, base64.StdEncoding's errors, the JSON
 * scanner's syntax errors, the scan for duplicate keys and inexact numbers, and fmt's verbs.
 */
import { describe, expect, it } from "vitest";
import { canonicalBase64 } from "./base64.js";
import { goFloat, goSyntax, goValue } from "./goformat.js";
import { formatRFC3339, formatRFC3339Micro, parseGoTime, RFC3339, RFC3339Micro } from "./gotime.js";
import { goSyntaxError, JsonEntries, JsonNumber, parseJsonExact, scanJson } from "./jsontext.js";

describe("time.Parse(RFC3339) and Format", () => {
  const ok: [string, string][] = [
    ["2024-01-01T10:00:00Z", "2024-01-01T10:00:00Z"],
    ["2024-01-01T10:00:00.999Z", "2024-01-01T10:00:00Z"],
    ["2024-01-01T10:00:00+02:00", "2024-01-01T08:00:00Z"],
    ["2024-01-01T01:00:00-01:30", "2024-01-01T02:30:00Z"],
    ["2024-02-29T23:59:59,5Z", "2024-02-29T23:59:59Z"],
    ["0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"],
    ["1969-12-31T23:59:59Z", "1969-12-31T23:59:59Z"],
    // Go's hour chunk takes one digit too.
    ["2024-01-01T1:02:03Z", "2024-01-01T01:02:03Z"],
  ];
  for (const [input, want] of ok) it(input, () => expect(formatRFC3339(parseGoTime(RFC3339, input))).toBe(want));

  const bad: [string, string][] = [
    ["2024-01-01", 'parsing time "2024-01-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"'],
    ["yesterday", 'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"'],
    ["2024-01-01 10:00:00Z", 'parsing time "2024-01-01 10:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse " 10:00:00Z" as "T"'],
    ["2024-1-01T10:00:00Z", 'parsing time "2024-1-01T10:00:00Z" as "2006-01-02T15:04:05Z07:00": cannot parse "1-01T10:00:00Z" as "01"'],
    ["2024-13-01T00:00:00Z", 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ["2024-02-30T00:00:00Z", 'parsing time "2024-02-30T00:00:00Z": day out of range'],
    ["2023-02-29T00:00:00Z", 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ["2024-01-01T25:00:00Z", 'parsing time "2024-01-01T25:00:00Z": hour out of range'],
    ["2024-01-01T10:60:00Z", 'parsing time "2024-01-01T10:60:00Z": minute out of range'],
    ["2024-01-01T10:00:00", 'parsing time "2024-01-01T10:00:00" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "Z07:00"'],
    ["2024-01-01T10:00:00+0100", 'parsing time "2024-01-01T10:00:00+0100" as "2006-01-02T15:04:05Z07:00": cannot parse "+0100" as "Z07:00"'],
    ["2024-01-01T10:00:00Zjunk", 'parsing time "2024-01-01T10:00:00Zjunk": extra text: "junk"'],
    ["2024-01-01T10:00:00z", 'parsing time "2024-01-01T10:00:00z" as "2006-01-02T15:04:05Z07:00": cannot parse "z" as "Z07:00"'],
  ];
  for (const [input, message] of bad) it(`rejects ${input}`, () => expect(() => parseGoTime(RFC3339, input)).toThrow(message));
});

describe("time.Parse(RFC3339Micro) and Format", () => {
  it("needs exactly six fractional digits", () => {
    expect(formatRFC3339Micro(parseGoTime(RFC3339Micro, "2024-01-01T10:00:00.123456Z"))).toBe("2024-01-01T10:00:00.123456Z");
    expect(formatRFC3339Micro(parseGoTime(RFC3339Micro, "2024-01-01T10:00:00.000001+01:00"))).toBe("2024-01-01T09:00:00.000001Z");
    expect(() => parseGoTime(RFC3339Micro, "2024-01-01T10:00:00Z")).toThrow(
      'parsing time "2024-01-01T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
    expect(() => parseGoTime(RFC3339Micro, "2024-01-01T10:00:00.123Z")).toThrow(
      'parsing time "2024-01-01T10:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"',
    );
    expect(() => parseGoTime(RFC3339Micro, "2024-01-01T10:00:00.123456789Z")).toThrow(
      'parsing time "2024-01-01T10:00:00.123456789Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "789Z" as "Z07:00"',
    );
  });
});

describe("base64.StdEncoding as encoding/json decodes []byte", () => {
  const ok: [string, string][] = [
    ["YWJjZA==", "YWJjZA=="],
    ["YWJj\nZA==", "YWJjZA=="],
    ["YWJj\r\nZA==\n", "YWJjZA=="],
    // Trailing bits are not checked; the canonical encoding is written back.
    ["YR==", "YQ=="],
    ["", ""],
  ];
  for (const [input, want] of ok) it(JSON.stringify(input), () => expect(canonicalBase64(input)).toBe(want));

  const bad: [string, number][] = [
    ["YWJj!ZA==", 4],
    ["YQ", 0],
    ["YWJ", 0],
    ["YQ=", 3],
    ["=", 0],
    ["YQ==YQ==", 4],
    ["é", 0],
  ];
  for (const [input, offset] of bad) {
    it(`rejects ${JSON.stringify(input)}`, () => expect(() => canonicalBase64(input)).toThrow(`illegal base64 data at input byte ${offset}`));
  }
});

describe("JSON text", () => {
  it("scans keys and inexact numbers outside strings", () => {
    expect(scanJson('{"a":1,"b":{"c":[true,false,null]},"d":"x:e.5\\"y"}')).toEqual({ keys: 4, inexactNumbers: false });
    expect(scanJson('{"a":1.0}').inexactNumbers).toBe(true);
    expect(scanJson('{"a":1e3}').inexactNumbers).toBe(true);
    expect(scanJson('{"a":1234567890123456}').inexactNumbers).toBe(true);
    expect(scanJson('{"a":123456789012345}').inexactNumbers).toBe(false);
    expect(scanJson('{"a":"\\\\","b":2}').keys).toBe(2);
  });

  it("keeps inexact literals and, on request, duplicate keys", () => {
    const v = parseJsonExact('{"a":3.0,"b":12,"c":[1e3],"a":2}') as Record<string, unknown>;
    expect(v.a).toBe(2);
    expect(v.b).toBe(12);
    expect((v.c as unknown[])[0]).toEqual(new JsonNumber("1e3"));
    const e = parseJsonExact('{"a":1,"a":2}', true) as JsonEntries;
    expect(e.entries).toEqual([
      ["a", 1],
      ["a", 2],
    ]);
  });

  const syntax: [string, string][] = [
    ['{"a":}', "invalid character '}' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["{a:1}", "invalid character 'a' looking for beginning of object key string"],
    ['{"a":tru', "unexpected end of JSON input"],
    ['{"a":trux}', "invalid character 'x' in literal true (expecting 'e')"],
    ['{"a":1}x', "invalid character 'x' after top-level value"],
    ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['{"a":-x}', "invalid character 'x' in numeric literal"],
    ['{"a":1.x}', "invalid character 'x' after decimal point in numeric literal"],
    ['{"a":1ex}', "invalid character 'x' in exponent of numeric literal"],
    ['{"a":"x\ny"}', "invalid character '\\n' in string literal"],
    ["", "unexpected end of JSON input"],
  ];
  for (const [text, message] of syntax) it(`syntax: ${JSON.stringify(text)}`, () => expect(goSyntaxError(text)).toBe(message));
});

describe("fmt verbs of untyped values", () => {
  it("%v", () => {
    expect(goValue({ spec: { replicas: "3", b: [1, "x", null], f: 1.5 } })).toBe("map[spec:map[b:[1 x <nil>] f:1.5 replicas:3]]");
    expect(goFloat(1234567.5)).toBe("1.2345675e+06");
    expect(goFloat(0.00001)).toBe("1e-05");
    expect(goFloat(123456.5)).toBe("123456.5");
  });
  it("%#v", () => {
    expect(goSyntax({ a: "b", n: 1 })).toBe('map[string]interface {}{"a":"b", "n":1}');
    expect(goSyntax(["x", true])).toBe('[]interface {}{"x", true}');
  });
});
