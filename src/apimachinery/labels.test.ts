import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  InvalidRequirementError,
  LabelSelectorConversionError,
  labelSelectorAsMap,
  Requirement,
  SelectorParseError,
  convertSelectorToLabelsMap,
  everything,
  formatLabels,
  goQuote,
  labelSelectorAsSelector,
  labelsConflict,
  labelsEqual,
  labelsToString,
  matchesNothing,
  mergeLabels,
  newRequirement,
  nothing,
  parseSelector,
  parseToRequirements,
  selectorFromSet,
  validatedSelectorFromSet,
  type Labels,
  type Operator,
} from "./labels.js";

function parseError(s: string): SelectorParseError {
  try {
    parseSelector(s);
  } catch (err) {
    if (err instanceof SelectorParseError) return err;
    throw err;
  }
  throw new Error(`expected ${JSON.stringify(s)} to fail`);
}

// Upstream: labels/selector_test.go TestSelectorParse
describe("parse: good and bad strings", () => {
  it.each(["x=a,y=b,z=c", "", "x!=a,y=b", "x=", "x= ", "x=,z= ", "x= ,z= ", "!x", "x>1", "x>1,z<5"])(
    "parses %j and restrings without spaces",
    (s) => expect(parseSelector(s).toString()).toBe(s.replaceAll(" ", "")),
  );
  it.each(["x=a||y=b", "x==a==b", "!x=a", "x<a"])("rejects %j", (s) => {
    expect(() => parseSelector(s)).toThrow(SelectorParseError);
  });
  it("is deterministic", () => {
    expect(parseSelector("x=a,a=x").toString()).toBe(parseSelector("a=x,x=a").toString());
    expect(parseSelector("x=a,a=x").toString()).toBe("a=x,x=a");
  });
});

describe("matching (TestSelectorMatches, TestSetMatches)", () => {
  const yes: Array<[string, Labels]> = [
    ["", { x: "y" }],
    ["x=y", { x: "y" }],
    ["x=y,z=w", { x: "y", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "a" }],
    ["notin=in", { notin: "in" }],
    ["x", { x: "z" }],
    ["!x", { y: "z" }],
    ["x>1", { x: "2" }],
    ["x<1", { x: "0" }],
    ["foo=bar", { foo: "bar", baz: "blah" }],
    ["baz=blah", { foo: "bar", baz: "blah" }],
    ["foo=bar,baz=blah", { foo: "bar", baz: "blah" }],
    ["x in (a,b,c)", { x: "b" }],
    ["x notin (a,b,c)", { x: "d" }],
    ["x notin (a,b,c)", {}],
    ["x in (a,)", { x: "" }],
    ["x==y", { x: "y" }],
    ["x>0", { x: "1" }],
    ["x>007", { x: "8" }],
    ["x<99999999999999999", { x: "99999999999999998" }],
    ["constructor notin (a)", {}],
    ["!constructor", {}],
  ];
  const no: Array<[string, Labels]> = [
    ["x=z", {}],
    ["x=y", { x: "z" }],
    ["x=y,z=w", { x: "w", z: "w" }],
    ["x!=y,z!=w", { x: "z", z: "w" }],
    ["x", { y: "z" }],
    ["!x", { x: "z" }],
    ["x>1", { x: "0" }],
    ["x<1", { x: "2" }],
    ["x>1", { x: "v2" }],
    ["x>1", { x: "1" }],
    ["x<1", { x: "1" }],
    ["x>1", {}],
    ["x>1", { x: "99999999999999999999" }],
    ["foo=blah", { foo: "bar", baz: "blah" }],
    ["baz=bar", { foo: "bar", baz: "blah" }],
    ["foo=bar,foobar=bar,baz=blah", { foo: "bar", baz: "blah" }],
    ["x in (a,b,c)", { x: "d" }],
    ["x in (a,b,c)", {}],
    ["x notin (a,b,c)", { x: "a" }],
    ["x in ()", { y: "" }],
    ["constructor", {}],
    ["toString=x", {}],
  ];
  it.each(yes)("%j matches %j", (s, ls) => expect(parseSelector(s).matches(ls)).toBe(true));
  it.each(no)("%j does not match %j", (s, ls) => expect(parseSelector(s).matches(ls)).toBe(false));
  it("ignores inherited properties of the label object", () => {
    expect(new Requirement("__proto__", "exists").matches({})).toBe(false);
    expect(new Requirement("__proto__", "!").matches({})).toBe(true);
  });
  it("treats undefined labels as empty", () => {
    expect(parseSelector("!x").matches(undefined)).toBe(true);
    expect(parseSelector("x").matches(undefined)).toBe(false);
  });
  it("selectorFromSet", () => {
    const ls = { foo: "bar", baz: "blah" };
    const sets: Labels[] = [{}, { foo: "bar" }, { baz: "blah" }, { foo: "bar", baz: "blah" }];
    for (const set of sets) {
      expect(selectorFromSet(set).matches(ls)).toBe(true);
    }
    expect(selectorFromSet({ foo: "other" }).matches(ls)).toBe(false);
    expect(selectorFromSet(undefined).empty()).toBe(true);
    expect(selectorFromSet({}).empty()).toBe(true);
    expect(selectorFromSet({ b: "2", a: "1" }).toString()).toBe("a=1,b=2");
  });
  it("validatedSelectorFromSet rejects bad values", () => {
    expect(validatedSelectorFromSet({ a: "1" }).toString()).toBe("a=1");
    expect(() => validatedSelectorFromSet({ a: "-bad" })).toThrow(InvalidRequirementError);
  });
});

describe("everything and nothing", () => {
  it("everything matches all and is empty", () => {
    expect(everything().matches({ x: "y" })).toBe(true);
    expect(everything().empty()).toBe(true);
    expect(everything().selectable()).toBe(true);
  });
  it("nothing matches nothing", () => {
    expect(nothing().matches({})).toBe(false);
    expect(nothing().empty()).toBe(false);
    expect(nothing().selectable()).toBe(false);
    expect(nothing().toString()).toBe("");
    expect(nothing().add(new Requirement("x", "exists"))).toBe(nothing());
    expect(matchesNothing(nothing())).toBe(true);
    expect(matchesNothing(everything())).toBe(false);
  });
});

// Upstream: TestRequirementConstructor
describe("newRequirement", () => {
  const cases: Array<[string, string, string[] | undefined, boolean]> = [
    ["x", "in", undefined, false],
    ["x", "notin", [], false],
    ["x", "in", ["foo"], true],
    ["x", "notin", ["foo"], true],
    ["x", "exists", undefined, true],
    ["x", "!", undefined, true],
    ["1foo", "in", ["bar"], true],
    ["1234", "in", ["bar"], true],
    ["y", "gt", ["1"], true],
    ["z", "lt", ["6"], true],
    ["foo", "gt", ["bar"], false],
    ["barz", "lt", ["blah"], false],
    ["a".repeat(254), "exists", undefined, false],
    ["x", "=", ["a", "b"], false],
    ["x", "exists", ["a"], false],
    ["x", "bogus", ["a"], false],
  ];
  it.each(cases)("%s %s %j → ok=%s", (key, op, vals, ok) => {
    if (ok) expect(newRequirement(key, op, vals).key).toBe(key);
    else expect(() => newRequirement(key, op, vals)).toThrow(InvalidRequirementError);
  });
  it("reports upstream's field errors", () => {
    expect(() => newRequirement("x", "in", undefined)).toThrow(
      "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty",
    );
    expect(() => newRequirement("x", "in", [])).toThrow(
      "values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty",
    );
    expect(() => newRequirement("x", "exists", ["a", "b"])).toThrow(
      'values: Invalid value: []string{"a", "b"}: values set must be empty for exists and does not exist',
    );
    expect(() => newRequirement("x", "bogus", ["a"])).toThrow(
      'operator: Unsupported value: "bogus": supported values: "in", "notin", "=", "==", "!=", "gt", "lt", "exists", "!"',
    );
    let err: unknown;
    try {
      newRequirement("-k", "=", ["-v"]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InvalidRequirementError);
    const ire = err as InvalidRequirementError;
    expect(ire.causes).toHaveLength(2);
    expect(ire.message.startsWith('[key: Invalid value: "-k": name part must consist of')).toBe(true);
    expect(ire.causes[1].startsWith('values[0][-k]: Invalid value: "-v": a valid label must be')).toBe(true);
  });
});

// Upstream: TestToString
describe("toString", () => {
  const req = (k: string, op: Operator, vals: string[] = []) => newRequirement(k, op, vals);
  it.each([
    [[req("x", "in", ["abc", "def"]), req("y", "notin", ["jkl"]), req("z", "exists")], "x in (abc,def),y notin (jkl),z"],
    [[req("x", "notin", ["abc", "def"]), req("y", "!=", ["jkl"]), req("z", "!")], "x notin (abc,def),y!=jkl,!z"],
    [[req("x", "notin", ["abc"]), req("y", "in", ["jkl", "mno"]), req("z", "notin", [""])], "x notin (abc),y in (jkl,mno),z notin ()"],
    [[req("x", "=", ["abc"]), req("y", "==", ["jkl"]), req("z", "!=", ["a"]), req("z", "exists")], "x=abc,y==jkl,z!=a,z"],
    [[req("x", "gt", ["2"]), req("y", "lt", ["8"]), req("z", "exists")], "x>2,y<8,z"],
  ])("%#", (reqs, out) => {
    expect(everything().add(...reqs).toString()).toBe(out);
  });
  it("sorts values on output without mutating the requirement", () => {
    const r = newRequirement("x", "in", ["foo", "bar", "foo"]);
    expect(r.toString()).toBe("x in (bar,foo,foo)");
    expect(r.values).toEqual(["foo", "bar", "foo"]);
    expect(r.valueSet()).toEqual(["bar", "foo"]);
  });
});

// Upstream: TestRequirementSelectorMatching
describe("requirement matching", () => {
  const sel = (...rs: Requirement[]) => everything().add(...rs);
  it.each([
    [{ x: "foo", y: "baz" }, sel(newRequirement("x", "in", ["foo"]), newRequirement("y", "notin", ["alpha"])), true],
    [{ x: "foo", y: "baz" }, sel(newRequirement("x", "in", ["foo"]), newRequirement("y", "in", ["alpha"])), false],
    [{ y: "" }, sel(newRequirement("x", "notin", [""]), newRequirement("y", "exists", [])), true],
    [{ y: "" }, sel(newRequirement("x", "!", []), newRequirement("y", "exists", [])), true],
    [{ y: "" }, sel(newRequirement("x", "notin", [""]), newRequirement("y", "!", [])), false],
    [{ y: "baz" }, sel(newRequirement("x", "in", [""])), false],
    [{ z: "2" }, sel(newRequirement("z", "gt", ["1"])), true],
    [{ z: "v2" }, sel(newRequirement("z", "gt", ["1"])), false],
  ] as Array<[Labels, ReturnType<typeof sel>, boolean]>)("%j / %s → %s", (ls, s, want) => {
    expect(s.matches(ls)).toBe(want);
  });
  it("an unvalidated gt with a bad bound never matches", () => {
    expect(new Requirement("z", "gt", ["x"]).matches({ z: "5" })).toBe(false);
    expect(new Requirement("z", "gt", ["1", "2"]).matches({ z: "5" })).toBe(false);
  });
});

// Upstream: TestSetSelectorParser (canonical string of the expected selector)
describe("set-based parsing", () => {
  const good: Array<[string, string]> = [
    ["", ""],
    ["\rx", "x"],
    ["this-is-a-dns.domain.com/key-with-dash", "this-is-a-dns.domain.com/key-with-dash"],
    ["this-is-another-dns.domain.com/key-with-dash in (so,what)", "this-is-another-dns.domain.com/key-with-dash in (so,what)"],
    ["0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", "0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)"],
    ["foo  in\t (abc)", "foo in (abc)"],
    ["x notin\n (abc)", "x notin (abc)"],
    ["x  notin\t\t\t(abc,def)", "x notin (abc,def)"],
    ["x in (abc,def)", "x in (abc,def)"],
    ["x in (abc,)", "x in (,abc)"],
    ["x in ()", "x in ()"],
    ["x notin (abc,def),bar,z in (),w", "bar,w,x notin (abc,def),z in ()"],
    ["x,y in (a)", "x,y in (a)"],
    ["x=a", "x=a"],
    ["x>1", "x>1"],
    ["x<7", "x<7"],
    ["x=a,y!=b", "x=a,y!=b"],
    ["x=a,y!=b,z in (h,i,j)", "x=a,y!=b,z in (h,i,j)"],
    ["x notin ( )", "x notin ()"],
    ["x notin (, a)", "x notin (,a)"],
    ["a ", "a"],
    ["a in (x,y,notin, z,in)", "a in (in,notin,x,y,z)"],
    ["x in (a,,b)", "x in (,a,b)"],
    ["x in (b,a,b)", "x in (a,b)"],
    ["in,notin", "in,notin"],
    ["x=in", "x=in"],
  ];
  it.each(good)("%j → %j", (s, canonical) => expect(parseSelector(s).toString()).toBe(canonical));
  it.each(["x=a||y=b", "x,,y", ",x,y", "x nott in (y)", "a in (xyz),", "a in (xyz)b notin ()", "a in (xyz abc)", "a notin(", "a (", "("])(
    "rejects %j",
    (s) => expect(() => parseSelector(s)).toThrow(SelectorParseError),
  );
  it("parseToRequirements", () => {
    expect(parseToRequirements("b,a=1").map((r) => r.toString())).toEqual(["a=1", "b"]);
  });
});

describe("error messages name the token and position", () => {
  it.each([
    ["x=a (", "found '(', expected: ',' or 'end of string'", "(", 4],
    ["env IN (a)", "unable to parse requirement: found 'IN', expected: in, notin, =, ==, !=, gt, lt", "IN", 4],
    ["app=(", "unable to parse requirement: found '(', expected: identifier", "(", 4],
    ["a in (xyz),", "found '', expected: identifier after ','", "", 11],
    [",x", "found ',', expected: !, identifier, or 'end of string'", ",", 0],
    ["x in (=)", "unable to parse requirement: found '=', expected: ',', ')' or identifier", "=", 6],
    ["a in (xyz abc)", "unable to parse requirement: found 'abc', expected: ',' or ')'", "abc", 10],
    ["a notin(", "unable to parse requirement: found '', expected: ',', ')' or identifier", "", 8],
    ["a (", "unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt", "(", 2],
    ["x in a", "unable to parse requirement: found 'a' expected: '('", "a", 5],
    ["x==a==b", "found '==', expected: ',' or 'end of string'", "==", 4],
    ["!x=a", "found '=', expected: ',' or 'end of string'", "=", 2],
    ["x in (a,=)", "unable to parse requirement: found '=', expected: ',', or identifier", "=", 8],
    ["!", "unable to parse requirement: found '', expected: identifier", "", 1],
  ] as Array<[string, string, string, number]>)("%j", (s, msg, token, position) => {
    const err = parseError(s);
    expect(err.message).toBe(msg);
    expect(err.token).toBe(token);
    expect(err.position).toBe(position);
  });
  it("invalid keys carry upstream's <nil> path", () => {
    const err = parseError("x,-bad=1");
    expect(err.message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "-bad": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
    expect(err.position).toBe(2);
    expect(err.token).toBe("-bad");
  });
  it("invalid values point at the value", () => {
    const err = parseError("x in (ok, -bad)");
    expect(err.message).toBe(
      `unable to parse requirement: values[0][x]: Invalid value: "-bad": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
    expect(err.position).toBe(10);
    expect(err.token).toBe("-bad");
  });
  it("an invalid value in an exact match names the value", () => {
    const err = parseError("x=a||y=b");
    expect(err.message.startsWith('unable to parse requirement: values[0][x]: Invalid value: "a||y": a valid label must')).toBe(true);
    expect(err.token).toBe("a||y");
    expect(err.position).toBe(2);
    expect(parseError("x>-1").token).toBe("-1");
  });
  it("gt needs an integer", () => {
    const err = parseError("x<a");
    expect(err.message).toBe(`unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`);
    expect(err.position).toBe(2);
  });
  it("gt rejects integers beyond int64", () => {
    expect(() => parseSelector("x>9223372036854775808")).toThrow(SelectorParseError);
    expect(parseSelector("x>9223372036854775807").toString()).toBe("x>9223372036854775807");
  });
  it("a NUL ends the input as upstream's byte reader does", () => {
    expect(parseSelector("a\u0000").toString()).toBe("a");
    expect(parseError("a,\u0000").message).toBe("found '', expected: identifier after ','");
  });
});

describe("requiresExactMatch", () => {
  it.each([
    ["x=a", "x", "a"],
    ["x==a", "x", "a"],
    ["x in (a)", "x", "a"],
    ["x in (a,b)", "x", undefined],
    ["x!=a", "x", undefined],
    ["y=a", "x", undefined],
    ["x", "x", undefined],
  ])("%j requires %s = %j", (s, label, want) => expect(parseSelector(s).requiresExactMatch(label)).toBe(want));
});

// Upstream: TestAdd
describe("add", () => {
  it("copies and sorts by key", () => {
    const base = everything();
    const one = base.add(newRequirement("key", "in", ["value"]));
    expect(one.toString()).toBe("key in (value)");
    const two = one.add(newRequirement("key2", "=", ["value2"]));
    expect(two.toString()).toBe("key in (value),key2=value2");
    expect(one.toString()).toBe("key in (value)");
    expect(base.empty()).toBe(true);
    expect(everything().add(newRequirement("b", "exists", []), newRequirement("a", "exists", [])).toString()).toBe("a,b");
  });
});

// Upstream: apis/meta/v1/helpers_test.go TestLabelSelectorAsSelector
describe("labelSelectorAsSelector", () => {
  const matchExpressions = [{ key: "baz", operator: "In", values: ["qux", "norf"] }];
  it("nil is nothing, empty is everything", () => {
    expect(labelSelectorAsSelector(undefined)).toBe(nothing());
    expect(labelSelectorAsSelector(null)).toBe(nothing());
    expect(labelSelectorAsSelector({})).toBe(everything());
    expect(labelSelectorAsSelector({ matchLabels: {}, matchExpressions: [] })).toBe(everything());
  });
  it.each([
    [{ matchLabels: { foo: "bar" } }, "foo=bar"],
    [{ matchExpressions }, "baz in (norf,qux)"],
    [{ matchLabels: { foo: "bar" }, matchExpressions }, "baz in (norf,qux),foo=bar"],
    [{ matchExpressions: [{ key: "a", operator: "Exists" }, { key: "b", operator: "DoesNotExist" }] }, "a,!b"],
    [{ matchExpressions: [{ key: "a", operator: "NotIn", values: ["x"] }] }, "a notin (x)"],
  ])("%j → %s", (ps, out) => {
    const sel = labelSelectorAsSelector(ps);
    expect(sel.toString()).toBe(out);
    expect(parseSelector(out).toString()).toBe(sel.toString());
  });
  it.each([
    [{ matchExpressions: [{ key: "baz", operator: "Exists", values: ["qux", "norf"] }] }, 'values: Invalid value: []string{"qux", "norf"}: values set must be empty for exists and does not exist'],
    [{ matchExpressions: [{ key: "baz", operator: "In" }] }, "values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"],
    [{ matchExpressions: [{ key: "baz", operator: "Seriously" }] }, '"Seriously" is not a valid label selector operator'],
    [{ matchLabels: { "-x": "a" } }, 'key: Invalid value: "-x": name part'],
  ])("rejects %j", (ps, msg) => {
    expect(() => labelSelectorAsSelector(ps)).toThrow(InvalidRequirementError);
    expect(() => labelSelectorAsSelector(ps)).toThrow(msg);
  });
  it("matches", () => {
    const sel = labelSelectorAsSelector({ matchLabels: { app: "web" }, matchExpressions: [{ key: "tier", operator: "NotIn", values: ["db"] }] });
    expect(sel.matches({ app: "web" })).toBe(true);
    expect(sel.matches({ app: "web", tier: "db" })).toBe(false);
    expect(sel.matches({ app: "api" })).toBe(false);
  });
});

describe("label set helpers (labels.go)", () => {
  it("labelsToString / formatLabels", () => {
    expect(labelsToString({ b: "2", a: "1" })).toBe("a=1,b=2");
    expect(formatLabels({})).toBe("<none>");
    expect(formatLabels(undefined)).toBe("<none>");
    expect(formatLabels({ x: "y" })).toBe("x=y");
  });
  it("conflicts, merge, equals", () => {
    expect(labelsConflict({ a: "1" }, { a: "2" })).toBe(true);
    expect(labelsConflict({ a: "1" }, { a: "1", b: "2" })).toBe(false);
    expect(labelsConflict({ a: "1" }, { b: "1" })).toBe(false);
    expect(mergeLabels({ a: "1", b: "1" }, { b: "2" })).toEqual({ a: "1", b: "2" });
    expect(labelsEqual({ a: "1" }, { a: "1" })).toBe(true);
    expect(labelsEqual({ a: "1" }, { a: "2" })).toBe(false);
    expect(labelsEqual({ a: "1" }, { b: "1" })).toBe(false);
    expect(labelsEqual({}, undefined)).toBe(true);
  });
  it("convertSelectorToLabelsMap", () => {
    expect(convertSelectorToLabelsMap("")).toEqual({});
    expect(convertSelectorToLabelsMap("a=b, c = d")).toEqual({ a: "b", c: "d" });
    expect(() => convertSelectorToLabelsMap("a")).toThrow("invalid selector: [a]");
    expect(() => convertSelectorToLabelsMap("a=b=c")).toThrow("invalid selector: [a b c]");
    expect(() => convertSelectorToLabelsMap("-a=b")).toThrow(InvalidRequirementError);
    expect(() => convertSelectorToLabelsMap("a=-b")).toThrow(InvalidRequirementError);
  });
  it("goQuote follows Go's %q", () => {
    expect(goQuote('a"b\\c\n\u0000é')).toBe('"a\\"b\\\\c\\n\\x00é"');
  });
});

// ---------------------------------------------------------------------------------------------
// Properties

const keyArb = fc.oneof(
  fc.constantFrom("a", "b", "app", "tier", "example.com/x", "in", "notin", "k8s.io/name", "x_y.z-1"),
  fc.stringMatching(/^[a-z0-9]([-a-z0-9_.]{0,10}[a-z0-9])?$/),
);
const valueArb = fc.oneof(fc.constantFrom("", "a", "b", "in", "notin", "1", "v1.2"), fc.stringMatching(/^([A-Za-z0-9]([-A-Za-z0-9_.]{0,8}[A-Za-z0-9])?)?$/));
const intArb = fc.integer({ min: 0, max: 1000 }).map(String);
const reqArb: fc.Arbitrary<Requirement> = fc.oneof(
  fc.tuple(keyArb, fc.constantFrom<Operator>("=", "==", "!="), valueArb).map(([k, op, v]) => newRequirement(k, op, [v])),
  fc.tuple(keyArb, fc.constantFrom<Operator>("in", "notin"), fc.uniqueArray(valueArb, { minLength: 1, maxLength: 4 })).map(([k, op, vs]) =>
    newRequirement(k, op, vs),
  ),
  fc.tuple(keyArb, fc.constantFrom<Operator>("exists", "!")).map(([k, op]) => newRequirement(k, op, [])),
  fc.tuple(keyArb, fc.constantFrom<Operator>("gt", "lt"), intArb).map(([k, op, v]) => newRequirement(k, op, [v])),
);
const labelsArb: fc.Arbitrary<Record<string, string>> = fc.dictionary(keyArb, fc.oneof(valueArb, intArb), { maxKeys: 6 });

/** An independent reference implementation of Requirement.Matches, straight from its doc. */
function referenceMatch(r: Requirement, ls: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(ls, r.key);
  const v = has ? ls[r.key] : undefined;
  switch (r.operator) {
    case "=":
    case "==":
    case "in":
      return has && r.values.includes(v as string);
    case "!=":
    case "notin":
      return !has || !r.values.includes(v as string);
    case "exists":
      return has;
    case "!":
      return !has;
    case "gt":
    case "lt":
      if (!has || !/^[+-]?\d+$/.test(v as string)) return false;
      return r.operator === "gt" ? BigInt(v as string) > BigInt(r.values[0]) : BigInt(v as string) < BigInt(r.values[0]);
  }
}

describe("properties", () => {
  it("toString re-parses to the same selector", () => {
    fc.assert(
      fc.property(fc.array(reqArb, { maxLength: 5 }), (reqs) => {
        const sel = everything().add(...reqs);
        const again = parseSelector(sel.toString());
        expect(again.toString()).toBe(sel.toString());
        expect(parseSelector(again.toString()).toString()).toBe(again.toString());
      }),
      { numRuns: 2000 },
    );
  });
  it("matching agrees with a reference implementation, before and after a round trip", () => {
    fc.assert(
      fc.property(fc.array(reqArb, { maxLength: 5 }), labelsArb, (reqs, ls) => {
        const want = reqs.every((r) => referenceMatch(r, ls));
        const sel = everything().add(...reqs);
        expect(sel.matches(ls)).toBe(want);
        expect(parseSelector(sel.toString()).matches(ls)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
  it("labelSelectorAsSelector agrees with the requirement semantics", () => {
    fc.assert(
      fc.property(fc.dictionary(keyArb, valueArb, { maxKeys: 3 }), labelsArb, (ml, ls) => {
        const sel = labelSelectorAsSelector({ matchLabels: ml });
        const want = Object.keys(ml).every((k) => Object.prototype.hasOwnProperty.call(ls, k) && ls[k] === ml[k]);
        expect(sel.matches(ls)).toBe(want);
      }),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Fuzz: any input parses or throws SelectorParseError, never anything else, never hangs.

function parsesOrTypedError(s: string): void {
  try {
    const sel = parseSelector(s);
    // Whatever parsed must print to something that parses to the same thing.
    expect(parseSelector(sel.toString()).toString()).toBe(sel.toString());
  } catch (err) {
    if (!(err instanceof SelectorParseError)) throw err;
    expect(err.position).toBeGreaterThanOrEqual(0);
    expect(err.position).toBeLessThanOrEqual(s.length);
  }
}

const tokenArb = fc.constantFrom(
  "a", "b", "x", "in", "notin", "=", "==", "!=", "!", "(", ")", ",", ">", "<", " ", "\t", "\n", "1", "-1", "example.com/k",
  "", "-", ".", "_", "/", "\u0000", "é", "a b", "===", "!(", "))",
);

describe("fuzz", () => {
  it("random strings (10,000 runs)", () => {
    fc.assert(fc.property(fc.string({ maxLength: 40 }), parsesOrTypedError), { numRuns: 10_000 });
  });
  it("random full-unicode strings (10,000 runs)", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 20 }), parsesOrTypedError), { numRuns: 10_000 });
  });
  it("random token soups (10,000 runs)", () => {
    fc.assert(
      fc.property(fc.array(tokenArb, { maxLength: 16 }), (toks) => parsesOrTypedError(toks.join(""))),
      { numRuns: 10_000 },
    );
  });
  it("long inputs stay linear", () => {
    const big = Array.from({ length: 2000 }, (_, i) => `k${i} in (a,b,c)`).join(",");
    const start = performance.now();
    expect(parseSelector(big).requirements()).toHaveLength(2000);
    expect(performance.now() - start).toBeLessThan(2000);
  });
});

describe("labelSelectorAsMap (apimachinery TestLabelSelectorAsMap)", () => {
  const matchLabels = { foo: "bar" };
  const expr = (operator: string, values?: string[]) => [{ key: "baz", operator, ...(values ? { values } : {}) }];
  const cases: Array<{ name: string; in: Parameters<typeof labelSelectorAsMap>[0]; out?: Record<string, string>; err?: string }> = [
    { name: "nil", in: undefined, out: undefined },
    { name: "matchLabels", in: { matchLabels }, out: { foo: "bar" } },
    { name: "In with one value", in: { matchLabels, matchExpressions: expr("In", ["qux"]) }, out: { foo: "bar", baz: "qux" } },
    { name: "In with two values", in: { matchLabels, matchExpressions: expr("In", ["qux", "norf"]) }, err: 'operator "In" without a single value cannot be converted into the old label selector format' },
    { name: "NotIn", in: { matchLabels, matchExpressions: expr("NotIn", ["qux"]) }, err: 'operator "NotIn" cannot be converted into the old label selector format' },
    { name: "Exists", in: { matchLabels, matchExpressions: expr("Exists") }, err: 'operator "Exists" cannot be converted into the old label selector format' },
    { name: "DoesNotExist", in: { matchLabels, matchExpressions: expr("DoesNotExist") }, err: 'operator "DoesNotExist" cannot be converted into the old label selector format' },
    { name: "invalid operator", in: { matchLabels, matchExpressions: expr("invalid", ["qux"]) }, err: '"invalid" is not a valid selector operator' },
  ];
  it.each(cases)("$name", (c) => {
    if (c.err) {
      let thrown: unknown;
      try {
        labelSelectorAsMap(c.in);
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(LabelSelectorConversionError);
      expect((thrown as Error).message).toBe(c.err);
      expect((thrown as LabelSelectorConversionError).partial).toEqual({ foo: "bar" });
    } else {
      expect(labelSelectorAsMap(c.in)).toEqual(c.out);
    }
  });
});
