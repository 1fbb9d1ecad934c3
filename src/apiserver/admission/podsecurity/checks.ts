/**
 * The Pod Security Standards checks of k8s.io/pod-security-admission 1.36 (policy/check_*.go):
 * each check has an ID, a level (baseline or restricted) and versions (from which Kubernetes
 * minor a behaviour applies); a restricted check may override baseline checks. Results carry
 * upstream's forbidden reason and detail texts, which the plugin joins as
 * `reason (detail), reason (detail)`.
 *
 * Evaluation order is upstream's: the baseline checks by ID, then the restricted ones by ID
 * (byte order), overridden baseline checks left out at the restricted level.
 */
import type { Level, Version } from "./policy.js";

export interface CheckResult {
  allowed: boolean;
  forbiddenReason?: string;
  forbiddenDetail?: string;
}

/* eslint-disable @typescript-eslint/no-explicit-any -- pod specs are read as JSON, field by field */
type Meta = { annotations?: Record<string, string> } | undefined;
type Spec = Record<string, any>;
type CheckFn = (meta: Meta, spec: Spec) => CheckResult;

interface VersionedCheck {
  min: [number, number];
  check: CheckFn;
  overrides?: string[];
}

export interface Check {
  id: string;
  level: "baseline" | "restricted";
  versions: VersionedCheck[];
}

const allowed: CheckResult = { allowed: true };
const deny = (reason: string, detail: string): CheckResult => ({ allowed: false, forbiddenReason: reason, forbiddenDetail: detail });

function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? "" : `"${items.join('", "')}"`;
}
function pluralize(singular: string, plural: string, n: number): string {
  return n === 1 ? singular : plural;
}
/** Go's %q of a string (enough for annotation keys and values). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}
function sortedUnique(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

interface Container {
  name?: string;
  securityContext?: Record<string, any>;
  ports?: { hostPort?: number }[];
  livenessProbe?: Record<string, any>;
  readinessProbe?: Record<string, any>;
  startupProbe?: Record<string, any>;
  lifecycle?: { postStart?: Record<string, any>; preStop?: Record<string, any> };
}

/** Init containers, containers, then ephemeral containers (visitContainers). */
function containers(spec: Spec): Container[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...(spec.ephemeralContainers ?? [])] as Container[];
}
const nameOf = (c: Container) => c.name ?? "";
const isWindows = (spec: Spec) => spec.os?.name === "windows";
/** hostUsers: false (a user namespace) relaxes some restricted checks from 1.35 on. */
const userNamespacePod = (spec: Spec) => spec.hostUsers === false;

function badSettersText(pod: boolean, badContainers: readonly string[]): string[] {
  const out = pod ? ["pod"] : [];
  if (badContainers.length) out.push(`${pluralize("container", "containers", badContainers.length)} ${joinQuote(badContainers)}`);
  return out;
}

// ---- baseline --------------------------------------------------------------------------------

const hostNamespaces: CheckFn = (_m, spec) => {
  const found: string[] = [];
  if (spec.hostNetwork === true) found.push("hostNetwork=true");
  if (spec.hostPID === true) found.push("hostPID=true");
  if (spec.hostIPC === true) found.push("hostIPC=true");
  return found.length ? deny("host namespaces", found.join(", ")) : allowed;
};

const privileged: CheckFn = (_m, spec) => {
  const bad = containers(spec).filter((c) => c.securityContext?.privileged === true).map(nameOf);
  return bad.length ? deny("privileged", `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must not set securityContext.privileged=true`) : allowed;
};

const defaultCapabilities = new Set(["AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"]);

const capabilitiesBaseline: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of containers(spec)) {
    const add: string[] = c.securityContext?.capabilities?.add ?? [];
    const forbidden = add.filter((x) => !defaultCapabilities.has(x));
    if (forbidden.length) {
      bad.push(nameOf(c));
      caps.push(...forbidden);
    }
  }
  if (!bad.length) return allowed;
  return deny("non-default capabilities", `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add`);
};

const hostPathVolumes: CheckFn = (_m, spec) => {
  const bad = ((spec.volumes ?? []) as Record<string, any>[]).filter((v) => v.hostPath != null).map((v) => String(v.name ?? ""));
  return bad.length ? deny("hostPath volumes", `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)}`) : allowed;
};

const hostPorts: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of containers(spec)) {
    const hp = (c.ports ?? []).map((p) => p.hostPort ?? 0).filter((p) => p !== 0);
    if (hp.length) {
      bad.push(nameOf(c));
      ports.push(...hp.map(String));
    }
  }
  if (!bad.length) return allowed;
  const list = sortedUnique(ports);
  return deny(
    "hostPort",
    `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("hostPort", "hostPorts", list.length)} ${list.join(", ")}`,
  );
};

function handlerHosts(h: Record<string, any> | undefined): string[] {
  if (!h) return [];
  const out: string[] = [];
  if (h.httpGet?.host) out.push(String(h.httpGet.host));
  if (h.tcpSocket?.host) out.push(String(h.tcpSocket.host));
  return out;
}

const hostProbesAndHostLifecycle: CheckFn = (_m, spec) => {
  const bad = new Set<string>();
  const hosts = new Set<string>();
  for (const c of containers(spec)) {
    for (const h of [c.livenessProbe, c.readinessProbe, c.startupProbe, c.lifecycle?.postStart, c.lifecycle?.preStop]) {
      const found = handlerHosts(h);
      if (found.length) {
        bad.add(nameOf(c));
        for (const x of found) hosts.add(x);
      }
    }
  }
  if (!bad.size) return allowed;
  const names = sortedUnique(bad);
  const list = sortedUnique(hosts);
  return deny(
    "probe or lifecycle host",
    `${pluralize("container", "containers", names.length)} ${joinQuote(names)} ${pluralize("uses", "use", names.length)} ${pluralize("probe or lifecycle host", "probe or lifecycle hosts", list.length)} ${joinQuote(list)}`,
  );
};

const appArmorContainerAnnotationPrefix = "container.apparmor.security.beta.kubernetes.io/";
const allowedAppArmorType = (t: unknown) => t === "RuntimeDefault" || t === "Localhost";
const allowedAppArmorAnnotation = (v: string) => v === "" || v === "runtime/default" || v.startsWith("localhost/");

const appArmorProfile: CheckFn = (meta, spec) => {
  const setters: string[] = [];
  const values = new Set<string>();
  const podProfile = spec.securityContext?.appArmorProfile;
  if (podProfile != null && !allowedAppArmorType(podProfile.type)) {
    setters.push("pod");
    values.add(String(podProfile.type ?? ""));
  }
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const p = c.securityContext?.appArmorProfile;
    if (p != null && !allowedAppArmorType(p.type)) {
      bad.push(nameOf(c));
      values.add(String(p.type ?? ""));
    }
  }
  if (bad.length) setters.push(`${pluralize("container", "containers", bad.length)} ${joinQuote(bad)}`);
  const annotations = Object.entries(meta?.annotations ?? {})
    .filter(([k, v]) => k.startsWith(appArmorContainerAnnotationPrefix) && !allowedAppArmorAnnotation(v))
    .map(([k, v]) => `${k}=${goQuote(v)}`)
    .sort();
  const valueList = [...sortedUnique(values), ...annotations];
  if (annotations.length) setters.push(pluralize("annotation", "annotations", annotations.length));
  if (!setters.length) return allowed;
  return deny(
    pluralize("forbidden AppArmor profile", "forbidden AppArmor profiles", valueList.length),
    `${setters.join(" and ")} must not set AppArmor profile type to ${joinQuote(valueList)}`,
  );
};

function seLinuxOptions(allowedTypes: ReadonlySet<string>): CheckFn {
  return (_m, spec) => {
    const types = new Set<string>();
    let setUser = false;
    let setRole = false;
    const valid = (o: Record<string, any>): boolean => {
      let ok = true;
      const t = String(o.type ?? "");
      if (!allowedTypes.has(t)) {
        ok = false;
        types.add(t);
      }
      if (o.user) {
        ok = false;
        setUser = true;
      }
      if (o.role) {
        ok = false;
        setRole = true;
      }
      return ok;
    };
    const podOpts = spec.securityContext?.seLinuxOptions;
    const podBad = podOpts != null && !valid(podOpts);
    const bad = containers(spec)
      .filter((c) => c.securityContext?.seLinuxOptions != null && !valid(c.securityContext.seLinuxOptions))
      .map(nameOf);
    const setters = badSettersText(podBad, bad);
    if (!setters.length) return allowed;
    const data: string[] = [];
    if (types.size) data.push(`${pluralize("type", "types", types.size)} ${joinQuote(sortedUnique(types))}`);
    if (setUser) data.push("user may not be set");
    if (setRole) data.push("role may not be set");
    return deny("seLinuxOptions", `${setters.join(" and ")} set forbidden securityContext.seLinuxOptions: ${data.join("; ")}`);
  };
}
const seLinuxTypes1_0 = new Set(["", "container_t", "container_init_t", "container_kvm_t"]);
const seLinuxTypes1_31 = new Set([...seLinuxTypes1_0, "container_engine_t"]);

const procMount1_0: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containers(spec)) {
    const pm = c.securityContext?.procMount;
    if (pm == null) continue;
    if (pm !== "Default") {
      bad.push(nameOf(c));
      types.push(String(pm));
    }
  }
  if (!bad.length) return allowed;
  return deny("procMount", `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(types))}`);
};
const procMount1_35Baseline: CheckFn = (m, spec) => (userNamespacePod(spec) ? allowed : procMount1_0(m, spec));

const seccompPodAnnotation = "seccomp.security.alpha.kubernetes.io/pod";
const seccompContainerAnnotationPrefix = "container.seccomp.security.alpha.kubernetes.io/";
const validSeccompType = (t: unknown) => t === "Localhost" || t === "RuntimeDefault";
const validSeccompAnnotation = (v: string) => v === "runtime/default" || v === "docker/default" || v.startsWith("localhost/");

const seccompBaseline1_0: CheckFn = (meta, spec) => {
  const forbidden = new Set<string>();
  const ann = meta?.annotations ?? {};
  if (seccompPodAnnotation in ann && !validSeccompAnnotation(ann[seccompPodAnnotation])) forbidden.add(`${seccompPodAnnotation}=${goQuote(ann[seccompPodAnnotation])}`);
  for (const c of containers(spec)) {
    const key = seccompContainerAnnotationPrefix + nameOf(c);
    if (key in ann && !validSeccompAnnotation(ann[key])) forbidden.add(`${key}=${goQuote(ann[key])}`);
  }
  if (!forbidden.size) return allowed;
  return deny("seccompProfile", `forbidden ${pluralize("annotation", "annotations", forbidden.size)} ${sortedUnique(forbidden).join(", ")}`);
};

const seccompBaseline1_19: CheckFn = (_m, spec) => {
  const values = new Set<string>();
  const podProfile = spec.securityContext?.seccompProfile;
  const podBad = podProfile != null && !validSeccompType(podProfile.type);
  if (podBad) values.add(String(podProfile.type ?? ""));
  const bad: string[] = [];
  for (const c of containers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p != null && !validSeccompType(p.type)) {
      bad.push(nameOf(c));
      values.add(String(p.type ?? ""));
    }
  }
  const setters = badSettersText(podBad, bad);
  if (!setters.length) return allowed;
  return deny("seccompProfile", `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}`);
};

function sysctls(allowedNames: ReadonlySet<string>): CheckFn {
  return (_m, spec) => {
    const forbidden = ((spec.securityContext?.sysctls ?? []) as { name?: string }[]).map((s) => s.name ?? "").filter((n) => !allowedNames.has(n));
    return forbidden.length ? deny("forbidden sysctls", forbidden.join(", ")) : allowed;
  };
}
const sysctls1_0 = new Set(["kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_unprivileged_port_start"]);
const sysctls1_27 = new Set([...sysctls1_0, "net.ipv4.ip_local_reserved_ports"]);
const sysctls1_29 = new Set([...sysctls1_27, "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl", "net.ipv4.tcp_keepalive_probes"]);
const sysctls1_32 = new Set([...sysctls1_29, "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"]);

const windowsHostProcess: CheckFn = (_m, spec) => {
  const bad = containers(spec).filter((c) => c.securityContext?.windowsOptions?.hostProcess === true).map(nameOf);
  const podBad = spec.securityContext?.windowsOptions?.hostProcess === true;
  const setters = badSettersText(podBad, bad);
  return setters.length ? deny("hostProcess", `${setters.join(" and ")} must not set securityContext.windowsOptions.hostProcess=true`) : allowed;
};

// ---- restricted ------------------------------------------------------------------------------

const allowedVolumeSources = ["configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "image", "persistentVolumeClaim", "projected", "secret"];
const restrictedVolumeSources = [
  "hostPath",
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "gitRepo",
  "nfs",
  "iscsi",
  "glusterfs",
  "rbd",
  "flexVolume",
  "cinder",
  "cephfs",
  "flocker",
  "fc",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "storageos",
];

const restrictedVolumes: CheckFn = (_m, spec) => {
  const bad: string[] = [];
  const types = new Set<string>();
  for (const v of (spec.volumes ?? []) as Record<string, any>[]) {
    if (allowedVolumeSources.some((k) => v[k] != null)) continue;
    bad.push(String(v.name ?? ""));
    types.add(restrictedVolumeSources.find((k) => v[k] != null) ?? "unknown");
  }
  if (!bad.length) return allowed;
  const list = sortedUnique(types);
  return deny(
    "restricted volume types",
    `${pluralize("volume", "volumes", bad.length)} ${joinQuote(bad)} ${pluralize("uses", "use", bad.length)} ${pluralize("restricted volume type", "restricted volume types", list.length)} ${joinQuote(list)}`,
  );
};

const allowPrivilegeEscalation1_8: CheckFn = (_m, spec) => {
  const bad = containers(spec)
    .filter((c) => c.securityContext?.allowPrivilegeEscalation == null || c.securityContext.allowPrivilegeEscalation === true)
    .map(nameOf);
  if (!bad.length) return allowed;
  return deny("allowPrivilegeEscalation != false", `${pluralize("container", "containers", bad.length)} ${joinQuote(bad)} must set securityContext.allowPrivilegeEscalation=false`);
};
const allowPrivilegeEscalation1_25: CheckFn = (m, spec) => (isWindows(spec) ? allowed : allowPrivilegeEscalation1_8(m, spec));

const runAsNonRoot1_0: CheckFn = (_m, spec) => {
  const podValue = spec.securityContext?.runAsNonRoot;
  const podBad = podValue === false;
  const podOK = podValue === true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = c.securityContext?.runAsNonRoot;
    if (v != null) {
      if (v === false) explicit.push(nameOf(c));
    } else if (!podOK) {
      implicit.push(nameOf(c));
    }
  }
  const setters = badSettersText(podBad, explicit);
  if (setters.length) return deny("runAsNonRoot != true", `${setters.join(" and ")} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length) return deny("runAsNonRoot != true", `pod or ${pluralize("container", "containers", implicit.length)} ${joinQuote(implicit)} must set securityContext.runAsNonRoot=true`);
  return allowed;
};
const runAsNonRoot1_35: CheckFn = (m, spec) => (userNamespacePod(spec) ? allowed : runAsNonRoot1_0(m, spec));

const runAsUser1_23: CheckFn = (_m, spec) => {
  const podBad = spec.securityContext?.runAsUser === 0;
  const bad = containers(spec).filter((c) => c.securityContext?.runAsUser === 0).map(nameOf);
  const setters = badSettersText(podBad, bad);
  return setters.length ? deny("runAsUser=0", `${setters.join(" and ")} must not set runAsUser=0`) : allowed;
};
const runAsUser1_35: CheckFn = (m, spec) => (userNamespacePod(spec) ? allowed : runAsUser1_23(m, spec));

const seccompRestricted1_19: CheckFn = (_m, spec) => {
  const values = new Set<string>();
  const podProfile = spec.securityContext?.seccompProfile;
  let podSet = false;
  let podBad = false;
  if (podProfile != null) {
    if (!validSeccompType(podProfile.type)) {
      podBad = true;
      values.add(String(podProfile.type ?? ""));
    } else {
      podSet = true;
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const p = c.securityContext?.seccompProfile;
    if (p != null) {
      if (!validSeccompType(p.type)) {
        explicit.push(nameOf(c));
        values.add(String(p.type ?? ""));
      }
    } else if (!podSet) {
      implicit.push(nameOf(c));
    }
  }
  const setters = badSettersText(podBad, explicit);
  if (setters.length) return deny("seccompProfile", `${setters.join(" and ")} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}`);
  if (implicit.length) {
    return deny("seccompProfile", `pod or ${pluralize("container", "containers", implicit.length)} ${joinQuote(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return allowed;
};
const seccompRestricted1_25: CheckFn = (m, spec) => (isWindows(spec) ? allowed : seccompRestricted1_19(m, spec));

const capabilitiesRestricted1_22: CheckFn = (_m, spec) => {
  const missingDropAll: string[] = [];
  const adding: string[] = [];
  const caps = new Set<string>();
  for (const c of containers(spec)) {
    const cap = c.securityContext?.capabilities;
    if (cap == null) {
      missingDropAll.push(nameOf(c));
      continue;
    }
    if (!((cap.drop ?? []) as string[]).includes("ALL")) missingDropAll.push(nameOf(c));
    const forbidden = ((cap.add ?? []) as string[]).filter((x) => x !== "NET_BIND_SERVICE");
    if (forbidden.length) {
      adding.push(nameOf(c));
      for (const x of forbidden) caps.add(x);
    }
  }
  const details: string[] = [];
  if (missingDropAll.length) details.push(`${pluralize("container", "containers", missingDropAll.length)} ${joinQuote(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (adding.length) details.push(`${pluralize("container", "containers", adding.length)} ${joinQuote(adding)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add`);
  return details.length ? deny("unrestricted capabilities", details.join("; ")) : allowed;
};
const capabilitiesRestricted1_25: CheckFn = (m, spec) => (isWindows(spec) ? allowed : capabilitiesRestricted1_22(m, spec));

/** Every check of 1.36 (DefaultChecks). */
export const checks: readonly Check[] = [
  { id: "appArmorProfile", level: "baseline", versions: [{ min: [1, 0], check: appArmorProfile }] },
  { id: "capabilities_baseline", level: "baseline", versions: [{ min: [1, 0], check: capabilitiesBaseline }] },
  { id: "hostNamespaces", level: "baseline", versions: [{ min: [1, 0], check: hostNamespaces }] },
  { id: "hostPathVolumes", level: "baseline", versions: [{ min: [1, 0], check: hostPathVolumes }] },
  { id: "hostPorts", level: "baseline", versions: [{ min: [1, 0], check: hostPorts }] },
  { id: "hostProbesAndHostLifecycle", level: "baseline", versions: [{ min: [1, 34], check: hostProbesAndHostLifecycle }] },
  { id: "privileged", level: "baseline", versions: [{ min: [1, 0], check: privileged }] },
  {
    id: "procMount",
    level: "baseline",
    versions: [
      { min: [1, 0], check: procMount1_0 },
      { min: [1, 35], check: procMount1_35Baseline },
    ],
  },
  {
    id: "seLinuxOptions",
    level: "baseline",
    versions: [
      { min: [1, 0], check: seLinuxOptions(seLinuxTypes1_0) },
      { min: [1, 31], check: seLinuxOptions(seLinuxTypes1_31) },
    ],
  },
  {
    id: "seccompProfile_baseline",
    level: "baseline",
    versions: [
      { min: [1, 0], check: seccompBaseline1_0 },
      { min: [1, 19], check: seccompBaseline1_19 },
    ],
  },
  {
    id: "sysctls",
    level: "baseline",
    versions: [
      { min: [1, 0], check: sysctls(sysctls1_0) },
      { min: [1, 27], check: sysctls(sysctls1_27) },
      { min: [1, 29], check: sysctls(sysctls1_29) },
      { min: [1, 32], check: sysctls(sysctls1_32) },
    ],
  },
  { id: "windowsHostProcess", level: "baseline", versions: [{ min: [1, 0], check: windowsHostProcess }] },
  {
    id: "allowPrivilegeEscalation",
    level: "restricted",
    versions: [
      { min: [1, 8], check: allowPrivilegeEscalation1_8 },
      { min: [1, 25], check: allowPrivilegeEscalation1_25 },
    ],
  },
  {
    id: "capabilities_restricted",
    level: "restricted",
    versions: [
      { min: [1, 22], check: capabilitiesRestricted1_22, overrides: ["capabilities_baseline"] },
      { min: [1, 25], check: capabilitiesRestricted1_25, overrides: ["capabilities_baseline"] },
    ],
  },
  { id: "procMount_restricted", level: "restricted", versions: [{ min: [1, 35], check: procMount1_0, overrides: ["procMount"] }] },
  { id: "restrictedVolumes", level: "restricted", versions: [{ min: [1, 0], check: restrictedVolumes, overrides: ["hostPathVolumes"] }] },
  {
    id: "runAsNonRoot",
    level: "restricted",
    versions: [
      { min: [1, 0], check: runAsNonRoot1_0 },
      { min: [1, 35], check: runAsNonRoot1_35 },
    ],
  },
  {
    id: "runAsUser",
    level: "restricted",
    versions: [
      { min: [1, 23], check: runAsUser1_23 },
      { min: [1, 35], check: runAsUser1_35 },
    ],
  },
  {
    id: "seccompProfile_restricted",
    level: "restricted",
    versions: [
      { min: [1, 19], check: seccompRestricted1_19, overrides: ["seccompProfile_baseline"] },
      { min: [1, 25], check: seccompRestricted1_25, overrides: ["seccompProfile_baseline"] },
    ],
  },
];

/** The newest minimum version of any check: "latest" and newer versions evaluate as this one. */
export const maxCheckVersion: [number, number] = checks
  .flatMap((c) => c.versions.map((v) => v.min))
  .reduce((a, b) => (b[0] > a[0] || (b[0] === a[0] && b[1] > a[1]) ? b : a), [1, 0] as [number, number]);

const older = (a: readonly [number, number], b: readonly [number, number]) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
const byteOrder = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const orderedIDs = [
  ...checks.filter((c) => c.level === "baseline").map((c) => c.id).sort(byteOrder),
  ...checks.filter((c) => c.level === "restricted").map((c) => c.id).sort(byteOrder),
];

/** The version entry of `check` in force at `v`, if any. */
function atVersion(check: Check, v: readonly [number, number]): VersionedCheck | undefined {
  let found: VersionedCheck | undefined;
  for (const entry of check.versions) if (!older(v, entry.min)) found = entry;
  return found;
}

const cache = new Map<string, CheckFn[]>();

/** The check functions of a level at a version, in evaluation order. */
export function checksFor(level: "baseline" | "restricted", version: Version): CheckFn[] {
  let v: [number, number] = version.latest ? maxCheckVersion : [version.major, version.minor];
  if (older(maxCheckVersion, v)) v = maxCheckVersion;
  const key = `${level}:${v[0]}.${v[1]}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const active = new Map<string, VersionedCheck>();
  for (const c of checks) {
    if (level === "baseline" && c.level !== "baseline") continue;
    const entry = atVersion(c, v);
    if (entry) active.set(c.id, entry);
  }
  if (level === "restricted") for (const entry of [...active.values()]) for (const o of entry.overrides ?? []) active.delete(o);
  const fns = orderedIDs.filter((id) => active.has(id)).map((id) => active.get(id)!.check);
  cache.set(key, fns);
  return fns;
}

/** One check (by ID) as it behaves at a version (tests, and tools that explain a single check). */
export function runCheck(id: string, version: Version, meta: Meta, spec: Spec): CheckResult | undefined {
  const check = checks.find((c) => c.id === id);
  const v: [number, number] = version.latest ? maxCheckVersion : [version.major, version.minor];
  return check ? atVersion(check, v)?.check(meta, spec) : undefined;
}

/** Every result of evaluating the pod(-template) at `level`:`version` (empty for privileged). */
export function evaluatePod(level: Level, version: Version, meta: Meta, spec: Spec): CheckResult[] {
  if (level === "privileged") return [];
  return checksFor(level, version).map((fn) => fn(meta, spec));
}

/** AggregateCheckResult.ForbiddenDetail: `reason (detail), reason (detail)`; undefined when allowed. */
export function forbiddenDetail(results: readonly CheckResult[]): string | undefined {
  const failed = results.filter((r) => !r.allowed);
  if (!failed.length) return undefined;
  return failed.map((r) => `${r.forbiddenReason || "unknown forbidden reason"}${r.forbiddenDetail ? ` (${r.forbiddenDetail})` : ""}`).join(", ");
}

/** AggregateCheckResult.ForbiddenReason: the reasons alone. */
export function forbiddenReasons(results: readonly CheckResult[]): string | undefined {
  const failed = results.filter((r) => !r.allowed);
  return failed.length ? failed.map((r) => r.forbiddenReason || "unknown forbidden reason").join(", ") : undefined;
}
