/**
 * Pod Security levels, versions and the namespace labels that choose them
 * (k8s.io/pod-security-admission/api): `pod-security.kubernetes.io/<mode>` with a level
 * (privileged, baseline, restricted) and `<mode>-version` (latest or v1.x) for the modes
 * enforce, audit and warn. Unset labels take the configured defaults; invalid ones are field
 * errors (enforce fails closed to restricted, audit and warn fail open to privileged); warn
 * follows enforce when only enforce is set and is stricter.
 */
export type Level = "privileged" | "baseline" | "restricted";

export interface Version {
  readonly latest: boolean;
  readonly major: number;
  readonly minor: number;
}

export interface LevelVersion {
  level: Level;
  version: Version;
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const labelPrefix = "pod-security.kubernetes.io/";
export const latest: Version = { latest: true, major: 0, minor: 0 };
const levels: readonly Level[] = ["privileged", "baseline", "restricted"];

export function versionString(v: Version): string {
  return v.latest ? "latest" : `v${v.major}.${v.minor}`;
}

/** "restricted:latest" (LevelVersion.String). */
export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.latest === b.version.latest && a.version.major === b.version.major && a.version.minor === b.version.minor;
}

/** LevelVersion.Equivalent: both privileged, or the same level and version. */
export function equivalent(a: LevelVersion, b: LevelVersion): boolean {
  return (a.level === "privileged" && b.level === "privileged") || sameLevelVersion(a, b);
}

export function parseLevel(s: string): Level | undefined {
  return (levels as readonly string[]).includes(s) ? (s as Level) : undefined;
}

export function parseVersion(s: string): Version | undefined {
  if (s === "latest") return latest;
  const m = /^v1\.([0-9]|[1-9][0-9]*)$/.exec(s);
  if (!m) return undefined;
  return { latest: false, major: 1, minor: Number(m[1]) };
}

export function compareLevels(a: Level, b: Level): number {
  return levels.indexOf(a) - levels.indexOf(b);
}

export function fullyPrivileged(p: Policy): boolean {
  return p.enforce.level === "privileged" && p.audit.level === "privileged" && p.warn.level === "privileged";
}

export interface LabelError {
  label: string;
  value: string;
  detail: string;
}

/** PolicyToEvaluate: the namespace's policy from its labels over `defaults`, and the label errors. */
export function policyToEvaluate(labels: Readonly<Record<string, string>> | undefined, defaults: Policy): { policy: Policy; errors: LabelError[] } {
  const p: Policy = { enforce: { ...defaults.enforce }, audit: { ...defaults.audit }, warn: { ...defaults.warn } };
  const errors: LabelError[] = [];
  if (!labels) return { policy: p, errors };
  const levelErr = "must be one of privileged, baseline, restricted";
  const versionErr = 'must be "latest" or "v1.x"';
  let hasEnforceLevel = false;
  let hasWarnLevel = false;
  let hasWarnVersion = false;
  const get = (mode: string) => labels[labelPrefix + mode];
  const enforceLevel = get("enforce");
  if (enforceLevel !== undefined) {
    const l = parseLevel(enforceLevel);
    p.enforce.level = l ?? "restricted";
    hasEnforceLevel = l !== undefined;
    if (!l) errors.push({ label: `${labelPrefix}enforce`, value: enforceLevel, detail: levelErr });
  }
  const enforceVersion = get("enforce-version");
  if (enforceVersion !== undefined) {
    const v = parseVersion(enforceVersion);
    p.enforce.version = v ?? latest;
    if (!v) errors.push({ label: `${labelPrefix}enforce-version`, value: enforceVersion, detail: versionErr });
  }
  const auditLevel = get("audit");
  if (auditLevel !== undefined) {
    const l = parseLevel(auditLevel);
    p.audit.level = l ?? "privileged";
    if (!l) errors.push({ label: `${labelPrefix}audit`, value: auditLevel, detail: levelErr });
  }
  const auditVersion = get("audit-version");
  if (auditVersion !== undefined) {
    const v = parseVersion(auditVersion);
    p.audit.version = v ?? latest;
    if (!v) errors.push({ label: `${labelPrefix}audit-version`, value: auditVersion, detail: versionErr });
  }
  const warnLevel = get("warn");
  if (warnLevel !== undefined) {
    hasWarnLevel = true;
    const l = parseLevel(warnLevel);
    p.warn.level = l ?? "privileged";
    if (!l) errors.push({ label: `${labelPrefix}warn`, value: warnLevel, detail: levelErr });
  }
  const warnVersion = get("warn-version");
  if (warnVersion !== undefined) {
    hasWarnVersion = true;
    const v = parseVersion(warnVersion);
    p.warn.version = v ?? latest;
    if (!v) errors.push({ label: `${labelPrefix}warn-version`, value: warnVersion, detail: versionErr });
  }
  if (!hasWarnLevel && hasEnforceLevel && compareLevels(p.enforce.level, p.warn.level) > 0) {
    p.warn.level = p.enforce.level;
    if (!hasWarnVersion) p.warn.version = p.enforce.version;
  }
  return { policy: p, errors };
}
