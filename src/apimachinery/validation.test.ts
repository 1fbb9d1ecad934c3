import { describe, expect, it } from "vitest";
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isHTTPHeaderName,
  isInRange,
  isQualifiedName,
  isValidGroupID,
  isValidIP,
  isValidIPv4,
  isValidIPv6,
  isValidLabelValue,
  isValidPercent,
  isValidPortName,
  isValidPortNum,
  isValidUserID,
  isWildcardDNS1123Subdomain,
  isCIdentifier,
  nameIsDNS1035Label,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  parseIPSloppy,
  regexError,
  utf8Length,
} from "./validation.js";

const r = (c: string, n: number) => c.repeat(n);

function table(name: string, fn: (v: string) => string[], good: string[], bad: string[]) {
  describe(name, () => {
    it.each(good.map((v) => [v]))("accepts %j", (v) => expect(fn(v)).toEqual([]));
    it.each(bad.map((v) => [v]))("rejects %j", (v) => expect(fn(v).length).toBeGreaterThan(0));
  });
}

// Upstream: util/validation/validation_test.go
table(
  "isDNS1123Label",
  isDNS1123Label,
  ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2", r("a", 63)],
  [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2", r("a", 64), "a\n",
  ],
);

table(
  "isDNS1123Subdomain",
  isDNS1123Subdomain,
  [
    "a", "ab", "abc", "a1", "a-1", "a--1--2--b", "0", "01", "012", "1a", "1-a", "1--a--b--2",
    "a.a", "ab.a", "abc.a", "a1.a", "a-1.a", "a--1--2--b.a", "a.1", "ab.1", "abc.1", "a1.1", "a-1.1", "a--1--2--b.1",
    "0.a", "01.a", "012.a", "1a.a", "1-a.a", "0.1", "01.1", "012.1", "1a.1", "1-a.1", "1--a--b--2.1",
    "a.b.c.d.e", "aa.bb.cc.dd.ee", "1.2.3.4.5", "11.22.33.44.55", r("a", 253),
  ],
  [
    "", "A", "ABC", "aBc", "A1", "A-1", "1-A", "-", "a-", "-a", "1-", "-1",
    "_", "a_", "_a", "a_b", "1_", "_1", "1_2", ".", "a.", ".a", "a..b", "1.", ".1", "1..2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2", "A.a", "aB.a", "ab.A", "A1.a", "a1.A",
    "A.1", "aB.1", "A1.1", "1A.1", "0.A", "01.A", "012.A", "1A.a", "1a.A",
    "A.B.C.D.E", "AA.BB.CC.DD.EE", "a.B.c.d.e", "aa.bB.cc.dd.ee",
    "a@b", "a,b", "a;b", "a:b", "a%b", "a?b", "a$b", r("a", 254),
  ],
);

table(
  "isDNS1035Label",
  isDNS1035Label,
  ["a", "ab", "abc", "a1", "a-1", "a--1--2--b", r("a", 63)],
  [
    "0", "01", "012", "1a", "1-a", "1--a--b--2", "", "A", "ABC", "aBc", "A1", "A-1", "1-A",
    "-", "a-", "-a", "1-", "-1", "_", "a_", "_a", "a_b", "1_", "_1", "1_2",
    ".", "a.", ".a", "a.b", "1.", ".1", "1.2", " ", "a ", " a", "a b", "1 ", " 1", "1 2", r("a", 64),
  ],
);

table(
  "isValidPortName",
  isValidPortName,
  ["telnet", "re-mail-ck", "pop3", "a", "a-1", "1-a", "a-1-b-2-c", "1-a-2-b-3"],
  ["longerthan15characters", "", r("a", 16), "12345", "1-2-3-4", "-begin", "end-", "two--hyphens", "whois++"],
);

const qualifiedGood = [
  "simple", "now-with-dashes", "1-starts-with-num", "1234", "simple/simple", "now-with-dashes/simple",
  "now-with-dashes/now-with-dashes", "now.with.dots/simple", "now-with.dashes-and.dots/simple", "1-num.2-num/3-num",
  "1234/5678", "1.2.3.4/5678", "Uppercase_Is_OK_123", "example.com/Uppercase_Is_OK_123", "requests.storage-foo",
  r("a", 63), `${r("a", 253)}/${r("b", 63)}`,
];
const qualifiedBad = [
  "nospecialchars%^=@", "cantendwithadash-", "-cantstartwithadash-", "only/one/slash", "Example.com/abc",
  "example_com/abc", "example.com/", "/simple", r("a", 64), `${r("a", 254)}/abc`,
];
table("isQualifiedName", isQualifiedName, qualifiedGood, qualifiedBad);

table(
  "isValidLabelValue",
  isValidLabelValue,
  ["simple", "now-with-dashes", "1-starts-with-num", "end-with-num-1", "1234", r("a", 63), ""],
  [
    "nospecialchars%^=@", "Tama-nui-te-rā.is.Māori.sun", "\\backslashes\\are\\bad", "-starts-with-dash",
    "ends-with-dash-", ".starts.with.dot", "ends.with.dot.", r("a", 64),
  ],
);

table(
  "isHTTPHeaderName",
  isHTTPHeaderName,
  [
    "Accept-Encoding", "Host", "If-Modified-Since", "X-Forwarded-For", "a", "ab", "abc", "a1", "-a", "a-", "a-b", "a-1",
    "a--1--2--b", "--abc-123", "A", "AB", "AbC", "A1", "-A", "A-", "A-B", "A-1", "A--1--2--B", "--123-ABC",
  ],
  [
    "Host:", "X-Forwarded-For:", "X-@Home", "", "_", "a_", "_a", "1_", "1_2", ".", "a.", ".a", "a.b", "1.", ".1", "1.2",
    " ", "a ", " a", "a b", "1 ", " 1", "1 2", "#a#", "^", ",", ";", "=", "<", "?", "@", "{",
  ],
);

table(
  "isValidPercent",
  isValidPercent,
  ["0%", "00000%", "1%", "01%", "99%", "100%", "101%"],
  ["", "0", "100", "0.0%", "99.9%", "hundred", " 1%", "1% ", "-0%", "-1%", "+1%"],
);

table(
  "isConfigMapKey",
  isConfigMapKey,
  ["a", "good", "good-good", "still.good", "this.is.also.good", ".so.is.this", "THIS_IS_GOOD", "so_is_this_17"],
  [".", "..", "..bad", "b*d", "bad!&bad", r("a", 254)],
);

table(
  "isWildcardDNS1123Subdomain",
  isWildcardDNS1123Subdomain,
  ["*.example.com", "*.bar.com", "*.foo.bar.com"],
  ["*.*.bar.com", "*.foo.*.com", "*bar.com", "f*.bar.com", "*"],
);

table("isCIdentifier", isCIdentifier, ["my_name", "MY_NAME", "MyName", "_x1"], ["", "1a", "a-b", "a.b"]);
table("isEnvVarName", isEnvVarName, ["ABC", "my.env-name", "MY_ENV.NAME", "MyEnvName1", "-x"], ["1ABC", "a=b", "", ".", "..", "..x"]);

// Upstream: util/validation/ip_test.go (a representative subset).
table(
  "isValidIP",
  isValidIP,
  [
    "127.0.0.1", "1.2.3.4", "0.0.0.0", "255.255.255.255", "010.001.002.003", "1.2.3.04",
    "::", "::1", "2001:db8::", "2001:db8::1", "2001:db8:0:0:0:0:0:1", "1:2:3:4:5:6:7:8", "::ffff:1.2.3.4",
    "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4", "FE80::1", "2001:DB8::ABCD", "0001:0002::",
  ],
  [
    "", "1", "1.2", "1.2.3", "1.2.3.4.5", "256.0.0.1", "1.2.3.-4", "1.2.3.4 ", " 1.2.3.4", "a.b.c.d", "1..2.3",
    ":", ":1", "1:", ":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8::",
    "fe80::1%eth0", "[::1]", "2001:db8::g", "12345::", "1.2.3.4:80", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3", "1.2.3.4::", "1::2:3:4:5:6:7:1.2.3.4", "::1:2:3:4:5:6:7:8",
    "10.0.0.0/8",
  ],
);

describe("IP families", () => {
  it.each([["1.2.3.4"], ["::ffff:1.2.3.4"], ["001.002.003.004"]])("isValidIPv4 accepts %s", (v) =>
    expect(isValidIPv4(v)).toEqual([]),
  );
  it.each([["::1"], ["2001:db8::1"], ["x"]])("isValidIPv4 rejects %s", (v) =>
    expect(isValidIPv4(v)).toEqual(["must be a valid IPv4 address"]),
  );
  it.each([["::1"], ["2001:db8::1"], ["::1.2.3.4"]])("isValidIPv6 accepts %s", (v) => expect(isValidIPv6(v)).toEqual([]));
  it.each([["1.2.3.4"], ["::ffff:1.2.3.4"], ["nope"]])("isValidIPv6 rejects %s", (v) =>
    expect(isValidIPv6(v)).toEqual(["must be a valid IPv6 address"]),
  );
  it("expands the ellipsis into the right bytes", () => {
    expect(parseIPSloppy("2001:db8::1")).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIPSloppy("1::")).toEqual([0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPSloppy("010.1.2.3")?.slice(12)).toEqual([10, 1, 2, 3]);
  });
  it("reports the upstream message", () => {
    expect(isValidIP("x")).toEqual(["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]);
  });
});

describe("numbers", () => {
  it("isValidPortNum", () => {
    for (const p of [1, 2, 1000, 16384, 32768, 65535]) expect(isValidPortNum(p)).toEqual([]);
    for (const p of [0, -1, 65536, 100000, 1.5]) expect(isValidPortNum(p)).toEqual(["must be between 1 and 65535, inclusive"]);
  });
  it("isInRange", () => {
    for (const [v, lo, hi] of [[1, 0, 10], [5, 5, 20], [25, 10, 25]]) expect(isInRange(v, lo, hi)).toEqual([]);
    for (const [v, lo, hi] of [[1, 2, 10], [5, -4, 2], [25, 100, 120]]) expect(isInRange(v, lo, hi)).toHaveLength(1);
  });
  it("user and group IDs", () => {
    for (const id of [0, 1, 1000, 65535, 2147483647, 2147483648, 3000000000, 0xffffffff]) {
      expect(isValidUserID(id)).toEqual([]);
      expect(isValidGroupID(id)).toEqual([]);
    }
    for (const id of [-1, -1003, 0x100000000]) {
      expect(isValidUserID(id)).toEqual(["must be between 0 and 4294967295, inclusive"]);
      expect(isValidGroupID(id)).toHaveLength(1);
    }
  });
});

describe("exact upstream messages", () => {
  it("DNS-1123 label", () => {
    expect(isDNS1123Label("A_")).toEqual([
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(isDNS1123Label("a.b")).toEqual(["must not contain dots"]);
    expect(isDNS1123Label(r("a", 64))).toEqual(["must be no more than 63 characters"]);
  });
  it("DNS-1123 subdomain", () => {
    expect(isDNS1123Subdomain("Foo")).toEqual([
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(isDNS1123Subdomain(`${r("a", 254)}-`)).toHaveLength(2);
    expect(isDNS1123Subdomain(r("a", 254))[0]).toBe("must be no more than 253 characters");
  });
  it("DNS-1035 label", () => {
    expect(isDNS1035Label("1abc")).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });
  it("qualified names", () => {
    const nameRegex =
      "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
    expect(isQualifiedName("a/b/c")).toEqual([
      `a valid label key ${nameRegex} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ]);
    expect(isQualifiedName("-x")).toEqual([`name part ${nameRegex}`]);
    expect(isQualifiedName("/x")).toEqual(["prefix part must be non-empty"]);
    expect(isQualifiedName("x/")).toEqual(["name part must be non-empty", `name part ${nameRegex}`]);
    expect(isQualifiedName(r("a", 64))).toEqual(["name part must be no more than 63 bytes"]);
    expect(isQualifiedName("Example.com/x")).toEqual([
      "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ]);
    expect(isQualifiedName(`${r("a", 254)}/x`)).toEqual(["prefix part must be no more than 253 bytes"]);
  });
  it("label values", () => {
    expect(isValidLabelValue("-a")).toEqual([
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ]);
    expect(isValidLabelValue(r("a", 64))).toEqual(["must be no more than 63 bytes"]);
    // Go counts bytes: 32 two-byte characters exceed 63 bytes.
    expect(isValidLabelValue(r("é", 32))[0]).toBe("must be no more than 63 bytes");
  });
  it("port names list every failing rule", () => {
    expect(isValidPortName("-1--")).toEqual([
      "must contain at least one letter (a-z)",
      "must not contain consecutive hyphens",
      "must not begin or end with a hyphen",
    ]);
    expect(isValidPortName("A")).toEqual([
      "must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)",
      "must contain at least one letter (a-z)",
    ]);
    expect(isValidPortName(r("a", 16))).toEqual(["must be no more than 15 characters"]);
  });
  it("percent", () => {
    expect(isValidPercent("1")).toEqual([
      "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ]);
  });
  it("regexError without examples", () => {
    expect(regexError("bad", "x+")).toBe("bad (regex used for validation is 'x+')");
  });
  it("utf8Length counts like Go's len", () => {
    expect(utf8Length("abc")).toBe(3);
    expect(utf8Length("é")).toBe(2);
    expect(utf8Length("€")).toBe(3);
    expect(utf8Length("😀")).toBe(4);
  });
});

describe("name validators (generateName prefixes)", () => {
  it("allows a trailing dash only for prefixes", () => {
    expect(nameIsDNSSubdomain("foo-", true)).toEqual([]);
    expect(nameIsDNSSubdomain("foo-", false)).toHaveLength(1);
    expect(nameIsDNSLabel("foo-", true)).toEqual([]);
    expect(nameIsDNSLabel("foo-", false)).toHaveLength(1);
    expect(nameIsDNS1035Label("foo-", true)).toEqual([]);
    expect(nameIsDNS1035Label("1foo-", true)).toHaveLength(1);
    // The mask drops two characters: "a.-" becomes "aa", valid as a label.
    expect(nameIsDNSLabel("a.-", true)).toEqual([]);
    expect(nameIsDNSSubdomain("-", true)).toHaveLength(1);
  });
});
