/**
 * The Kubernetes CEL libraries, table-driven as upstream's library tests are
 * (k8s.io/apiserver/pkg/cel/library/*_test.go): each expression with its value, or the error it
 * fails with (compile or runtime).
 */
import { describe, expect, it } from "vitest";
import { kubernetesEnv } from "./kubernetes.js";
import { CelMap, CelOptional, CelUint, type Val } from "./values.js";

type Expect = { value: unknown } | { error: string } | { compileError: string };

function plain(v: Val): unknown {
  if (v instanceof CelUint) return `${v.v}u`;
  if (Array.isArray(v)) return v.map(plain);
  if (v instanceof CelMap) return Object.fromEntries(v.keys().map((k) => [String(k), plain(v.get(k)!)]));
  if (v instanceof CelOptional) return v.hasValue() ? { some: plain(v.value!) } : "none";
  return v;
}

function run(expr: string): Expect {
  const env = kubernetesEnv();
  let ast;
  try {
    ast = env.compile(expr);
  } catch (e) {
    return { compileError: (e as Error).message };
  }
  const r = env.program(ast).eval({});
  if (r.error) return { error: r.error.message };
  return { value: plain(r.value!) };
}

const table: Record<string, [string, Expect][]> = {
  strings: [
    ["'abc'.charAt(1)", { value: "b" }],
    ["'abc'.charAt(3)", { value: "" }],
    ["'abc'.charAt(4)", { error: "index out of range: 4" }],
    ["'hello mellow'.indexOf('ello')", { value: 1n }],
    ["'hello mellow'.indexOf('ello', 2)", { value: 7n }],
    ["'hello mellow'.lastIndexOf('ello')", { value: 7n }],
    ["'ÄbC'.lowerAscii()", { value: "Äbc" }],
    ["'ÄbC'.upperAscii()", { value: "ÄBC" }],
    ["'a-b-c'.replace('-', '+')", { value: "a+b+c" }],
    ["'a-b-c'.replace('-', '+', 1)", { value: "a+b-c" }],
    ["'a,b,c'.split(',')", { value: ["a", "b", "c"] }],
    ["'a,b,c'.split(',', 2)", { value: ["a", "b,c"] }],
    ["'tacocat'.substring(4)", { value: "cat" }],
    ["'tacocat'.substring(0, 4)", { value: "taco" }],
    ["'tacocat'.substring(4, 2)", { error: "invalid substring range. start: 4, end: 2" }],
    ["'  \\ttrim\\n '.trim()", { value: "trim" }],
    ["['a', 'b'].join()", { value: "ab" }],
    ["['a', 'b'].join('-')", { value: "a-b" }],
    ["'%s is %d years'.format(['Ana', 30])", { value: "Ana is 30 years" }],
    ["'%.2f'.format([1.005])", { value: "1.00" }],
    ["strings.quote('a\"b')", { value: '"a\\"b"' }],
    ["'abc'.reverse()", { compileError: "undeclared reference to 'reverse'" }],
  ],
  lists: [
    ["[1, 2, 3].isSorted()", { value: true }],
    ["['b', 'a'].isSorted()", { value: false }],
    ["[1, 2, 3].sum()", { value: 6n }],
    ["[1.5, 2.5].sum()", { value: 4 }],
    ["[duration('1s'), duration('2s')].sum() == duration('3s')", { value: true }],
    ["[3, 1, 2].min()", { value: 1n }],
    ["[3, 1, 2].max()", { value: 3n }],
    ["[].min()", { error: "min called on empty list" }],
    ["[1, 2, 1].indexOf(1)", { value: 0n }],
    ["[1, 2, 1].lastIndexOf(1)", { value: 2n }],
    ["[1, 2].indexOf(3)", { value: -1n }],
    ["[9223372036854775807, 1].sum()", { error: "integer overflow" }],
  ],
  sets: [
    ["sets.contains([1, 2, 3], [3, 1])", { value: true }],
    ["sets.contains([1, 2], [3])", { value: false }],
    ["sets.equivalent([1, 2, 2], [2, 1])", { value: true }],
    ["sets.intersects([1, 2], [2, 5])", { value: true }],
    ["sets.intersects([1], [])", { value: false }],
  ],
  regex: [
    ["'abc 123'.find('[0-9]+')", { value: "123" }],
    ["'abc'.find('[0-9]+')", { value: "" }],
    ["'1 22 333'.findAll('[0-9]+')", { value: ["1", "22", "333"] }],
    ["'1 22 333'.findAll('[0-9]+', 2)", { value: ["1", "22"] }],
    ["'kube'.matches('^k.*e$')", { value: true }],
    ["'x'.matches('(?=x)')", { compileError: "invalid matches argument" }],
  ],
  url: [
    ["url('https://example.com:8080/path?k=v&k=w').getScheme()", { value: "https" }],
    ["url('https://example.com:8080/path').getHost()", { value: "example.com:8080" }],
    ["url('https://example.com:8080/path').getHostname()", { value: "example.com" }],
    ["url('https://[::1]:80/').getHostname()", { value: "::1" }],
    ["url('https://example.com:8080/path').getPort()", { value: "8080" }],
    ["url('https://example.com/a%20b').getEscapedPath()", { value: "/a%20b" }],
    ["url('https://example.com/?k=v&k=w&x').getQuery()", { value: { k: ["v", "w"], x: [""] } }],
    ["url('/absolute/path').getScheme()", { value: "" }],
    ["isURL('https://example.com')", { value: true }],
    ["isURL('relative/path')", { value: false }],
    ["url('relative')", { error: 'URL parse error during conversion from string: parse "relative": invalid URI for request' }],
  ],
  quantity: [
    ["quantity('1.5Gi').isGreaterThan(quantity('1Gi'))", { value: true }],
    ["quantity('500m').isLessThan(quantity('1'))", { value: true }],
    ["quantity('1k').compareTo(quantity('1000'))", { value: 0n }],
    ["quantity('1k') == quantity('1000')", { value: true }],
    ["quantity('-2').sign()", { value: -1n }],
    ["quantity('2').isInteger()", { value: true }],
    ["quantity('1.5').isInteger()", { value: false }],
    ["quantity('2Ki').asInteger()", { value: 2048n }],
    ["quantity('1.5').asInteger()", { error: "cannot convert value to integer" }],
    ["quantity('250m').asApproximateFloat()", { value: 0.25 }],
    ["quantity('1').add(quantity('500m')) == quantity('1500m')", { value: true }],
    ["quantity('1').add(2) == quantity('3')", { value: true }],
    ["quantity('3').sub(1) == quantity('2')", { value: true }],
    ["isQuantity('1Gi')", { value: true }],
    ["isQuantity('1 Gi')", { value: false }],
    ["quantity('x')", { error: "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'" }],
  ],
  ip: [
    ["ip('192.168.0.1').family()", { value: 4n }],
    ["ip('2001:db8::1').family()", { value: 6n }],
    ["ip('127.0.0.1').isLoopback()", { value: true }],
    ["ip('::').isUnspecified()", { value: true }],
    ["ip('224.0.0.1').isLinkLocalMulticast()", { value: true }],
    ["ip('fe80::1').isLinkLocalUnicast()", { value: true }],
    ["ip('8.8.8.8').isGlobalUnicast()", { value: true }],
    ["string(ip('2001:0db8:0:0:0:0:0:1'))", { value: "2001:db8::1" }],
    ["ip.isCanonical('2001:db8::1')", { value: true }],
    ["ip.isCanonical('2001:DB8::1')", { value: false }],
    ["isIP('10.0.0.01')", { value: false }],
    ["isIP('::ffff:1.2.3.4')", { value: false }],
    ["ip('fe80::1%eth0')", { error: 'IP address "fe80::1%eth0" with zone value is not allowed' }],
    ["ip('1.2.3.4') == ip('1.2.3.4')", { value: true }],
  ],
  cidr: [
    ["cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", { value: true }],
    ["cidr('10.0.0.0/8').containsIP('11.0.0.1')", { value: false }],
    ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", { value: true }],
    ["cidr('10.1.0.0/16').containsCIDR(cidr('10.0.0.0/8'))", { value: false }],
    ["cidr('192.168.1.5/24').masked() == cidr('192.168.1.0/24')", { value: true }],
    ["string(cidr('192.168.1.5/24').ip())", { value: "192.168.1.5" }],
    ["cidr('2001:db8::/32').prefixLength()", { value: 32n }],
    ["isCIDR('10.0.0.0/33')", { value: false }],
    ["string(cidr('2001:db8::/32'))", { value: "2001:db8::/32" }],
  ],
  format: [
    ["format.dns1123Label().validate('my-name')", { value: "none" }],
    ["format.dns1123Label().validate('My_Name')", { value: { some: ["a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"] } }],
    ["format.named('dns1035Label').hasValue()", { value: true }],
    ["format.named('nope').hasValue()", { value: false }],
    ["format.labelValue().validate('ok.value-1') == optional.none()", { value: true }],
    ["format.uuid().validate('not-a-uuid').hasValue()", { value: true }],
    ["format.dns1123LabelPrefix().validate('prefix-') == optional.none()", { value: true }],
  ],
  semver: [
    ["semver('1.2.3').major()", { value: 1n }],
    ["semver('1.2.3').minor()", { value: 2n }],
    ["semver('1.2.3').patch()", { value: 3n }],
    ["semver('1.2.3').isLessThan(semver('1.10.0'))", { value: true }],
    ["semver('1.0.0-alpha').isLessThan(semver('1.0.0'))", { value: true }],
    ["semver('1.0.0-alpha.1').compareTo(semver('1.0.0-alpha.beta'))", { value: -1n }],
    ["semver('1.2.3+build') == semver('1.2.3')", { value: true }],
    ["isSemver('1.2')", { value: false }],
    ["isSemver('v1.2', true)", { value: true }],
    ["semver('v1.2', true) == semver('1.2.0')", { value: true }],
    ["isSemver('01.2.3')", { value: false }],
  ],
  optional: [
    ["optional.of(1).value()", { value: 1n }],
    ["optional.none().hasValue()", { value: false }],
    ["optional.none().orValue(5)", { value: 5n }],
    ["optional.none().or(optional.of('x')).value()", { value: "x" }],
    ["optional.ofNonZeroValue('').hasValue()", { value: false }],
    ["{'a': 1}.?a.orValue(0)", { value: 1n }],
    ["{'a': 1}.?b.orValue(0)", { value: 0n }],
    ["[1, 2][?5].hasValue()", { value: false }],
    ["[?optional.of(1), ?optional.none()]", { value: [1n] }],
    ["{?'k': optional.none()}.size()", { value: 0n }],
    ["optional.of(2).optMap(x, x * 10).value()", { value: 20n }],
    ["optional.none().value()", { error: "optional.none() dereference" }],
  ],
  "two-variable comprehensions and bind": [
    ["[10, 20].all(i, v, v > i)", { value: true }],
    ["{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)", { value: true }],
    ["[1, 2, 3].existsOne(i, v, v == 2)", { value: true }],
    ["[1, 2].transformList(i, v, v * i)", { value: [0n, 2n] }],
    ["{'a': 1}.transformMap(k, v, v + 1)", { value: { a: 2n } }],
    ["cel.bind(x, 'ab', x + x)", { value: "abab" }],
  ],
  "Kubernetes environment options": [
    ["[1, 'a']", { compileError: "expected type 'int' but found 'string'" }],
    ["1 < 2.5 && 2u > 1", { value: true }],
    ["duration('1h') > duration('59m')", { value: true }],
    ["duration('bogus')", { compileError: "invalid duration argument" }],
    ["timestamp('nope')", { compileError: "invalid timestamp argument" }],
    ["timestamp('2024-02-29T12:00:00Z').getDayOfYear()", { value: 59n }],
  ],
};

describe("Kubernetes CEL libraries", () => {
  for (const [lib, cases] of Object.entries(table)) {
    describe(lib, () => {
      for (const [expr, want] of cases) {
        it(expr, () => {
          const got = run(expr);
          if ("compileError" in want) {
            expect(got).toHaveProperty("compileError");
            expect((got as { compileError: string }).compileError).toContain(want.compileError);
          } else expect(got).toEqual(want);
        });
      }
    });
  }
});
