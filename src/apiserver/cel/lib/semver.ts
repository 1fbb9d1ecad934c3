/**
 * Kubernetes' semver library (library/semverlib.go, version 1): semver(s[, normalize]),
 * isSemver(s[, normalize]), major, minor, patch, compareTo, isGreaterThan, isLessThan, and
 * equality. Parsing is strict semver 2.0 (blang/semver); with normalize a leading "v", missing
 * minor/patch and leading zeros are accepted ("v1.2" is 1.2.0).
 */
import { Library, memberOverload, overload } from "../decls.js";
import { T } from "../types.js";
import { CelError, ExtensionValue, type CelObject, type Val } from "../values.js";

export const SemverType = T.object("kubernetes.Semver");

interface Version {
  major: bigint;
  minor: bigint;
  patch: bigint;
  pre: string[];
}

class SemverValue extends ExtensionValue {
  readonly celType = SemverType;
  constructor(readonly v: Version) {
    super();
  }
  equals(other: CelObject): boolean {
    return other instanceof SemverValue && compare(this.v, other.v) === 0;
  }
}

const numeric = /^(0|[1-9][0-9]*)$/;

function parseVersion(raw: string, normalize: boolean): Version {
  let s = raw;
  if (normalize) {
    if (s.startsWith("v")) s = s.slice(1);
    const core = /^([0-9]+)(?:\.([0-9]+))?(?:\.([0-9]+))?(.*)$/.exec(s);
    if (core) s = `${BigInt(core[1])}.${BigInt(core[2] ?? "0")}.${BigInt(core[3] ?? "0")}${core[4]}`;
  }
  const m = /^([^.+-]+)\.([^.+-]+)\.([^.+-]+)(?:-([^+]+))?(?:\+(.+))?$/.exec(s);
  if (!m) throw new CelError(`No Major.Minor.Patch elements found`);
  const parts = [m[1], m[2], m[3]];
  const names = ["major", "minor", "patch"];
  parts.forEach((p, i) => {
    if (!/^[0-9]+$/.test(p)) throw new CelError(`Invalid character(s) found in ${names[i]} number "${p}"`);
    if (!numeric.test(p)) throw new CelError(`${names[i][0].toUpperCase()}${names[i].slice(1)} number must not contain leading zeroes "${p}"`);
  });
  const pre = m[4] ? m[4].split(".") : [];
  for (const p of pre) {
    if (p === "") throw new CelError("Prerelease is empty");
    if (!/^[0-9A-Za-z-]+$/.test(p)) throw new CelError(`Invalid character(s) found in prerelease "${p}"`);
    if (/^[0-9]+$/.test(p) && !numeric.test(p)) throw new CelError(`Numeric PreRelease version must not contain leading zeroes "${p}"`);
  }
  if (m[5] !== undefined) {
    for (const b of m[5].split(".")) if (!/^[0-9A-Za-z-]+$/.test(b)) throw new CelError(`Invalid character(s) found in build meta data "${b}"`);
  }
  return { major: BigInt(parts[0]), minor: BigInt(parts[1]), patch: BigInt(parts[2]), pre };
}

function compare(a: Version, b: Version): number {
  for (const k of ["major", "minor", "patch"] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre.length === 0 || b.pre.length === 0) return a.pre.length === b.pre.length ? 0 : a.pre.length === 0 ? 1 : -1;
  for (let i = 0; i < Math.min(a.pre.length, b.pre.length); i++) {
    const x = a.pre[i];
    const y = b.pre[i];
    if (x === y) continue;
    const xn = /^[0-9]+$/.test(x);
    const yn = /^[0-9]+$/.test(y);
    if (xn && yn) return BigInt(x) < BigInt(y) ? -1 : 1;
    if (xn !== yn) return xn ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.pre.length === b.pre.length ? 0 : a.pre.length < b.pre.length ? -1 : 1;
}

function parse(s: string, normalize: boolean): SemverValue {
  try {
    return new SemverValue(parseVersion(s, normalize));
  } catch (e) {
    throw new CelError(`Semver parse error: ${(e as Error).message}`);
  }
}

function valid(s: string, normalize: boolean): boolean {
  try {
    parseVersion(s, normalize);
    return true;
  } catch {
    return false;
  }
}

const sv = (v: Val) => (v as SemverValue).v;

export function semverLibrary(): Library {
  const lib = new Library();
  lib.add(
    "semver",
    overload("string_to_semver", [T.string], SemverType, ([s]) => parse(s as string, false)),
    overload("string_bool_to_semver", [T.string, T.bool], SemverType, ([s, n]) => parse(s as string, n as boolean)),
  );
  lib.add(
    "isSemver",
    overload("is_semver_string", [T.string], T.bool, ([s]) => valid(s as string, false)),
    overload("is_semver_string_bool", [T.string, T.bool], T.bool, ([s, n]) => valid(s as string, n as boolean)),
  );
  lib.add("major", memberOverload("semver_major", [SemverType], T.int, ([v]) => sv(v).major));
  lib.add("minor", memberOverload("semver_minor", [SemverType], T.int, ([v]) => sv(v).minor));
  lib.add("patch", memberOverload("semver_patch", [SemverType], T.int, ([v]) => sv(v).patch));
  lib.add("isGreaterThan", memberOverload("semver_greater", [SemverType, SemverType], T.bool, ([a, b]) => compare(sv(a), sv(b)) > 0));
  lib.add("isLessThan", memberOverload("semver_less", [SemverType, SemverType], T.bool, ([a, b]) => compare(sv(a), sv(b)) < 0));
  lib.add("compareTo", memberOverload("semver_compare_to", [SemverType, SemverType], T.int, ([a, b]) => BigInt(compare(sv(a), sv(b)))));
  return lib;
}
