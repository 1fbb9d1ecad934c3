/**
 * The Pod Security checks, restated from k8s.io/pod-security-admission v0.36 policy/check_*_test.go
 * (pods as JSON), plus the level/version registry (order, overrides, versions) and the label policy.
 */
import { describe, expect, it } from "vitest";
import { checksFor, evaluatePod, forbiddenDetail, maxCheckVersion, runCheck } from "./checks.js";
import { latest, levelVersionString, parseVersion, policyToEvaluate, type Policy } from "./policy.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
type Spec = Record<string, any>;
interface Case {
  check: string;
  name: string;
  version?: string;
  meta?: { annotations?: Record<string, string> };
  spec: Spec;
  reason?: string;
  detail?: string;
}

const c = (name: string, securityContext?: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, ...(securityContext ? { securityContext } : {}), ...extra });

const cases: Case[] = [
  { check: "hostNamespaces", name: "multiple host namespaces", spec: { hostNetwork: true, hostIPC: true, hostPID: true }, reason: "host namespaces", detail: "hostNetwork=true, hostPID=true, hostIPC=true" },
  {
    check: "privileged",
    name: "privileged",
    spec: { containers: [c("a"), c("b", {}), c("c", { privileged: false }), c("d", { privileged: true }), c("e", { privileged: true })] },
    reason: "privileged",
    detail: 'containers "d", "e" must not set securityContext.privileged=true',
  },
  {
    check: "capabilities_baseline",
    name: "multiple containers",
    spec: { containers: [c("a", { capabilities: { add: ["FOO", "BAR"] } }), c("b", { capabilities: { add: ["BAR", "BAZ"] } }), c("c", { capabilities: { add: ["NET_BIND_SERVICE", "CHOWN"], drop: ["ALL", "FOO"] } })] },
    reason: "non-default capabilities",
    detail: 'containers "a", "b" must not include "BAR", "BAZ", "FOO" in securityContext.capabilities.add',
  },
  {
    check: "hostPathVolumes",
    name: "host path volumes",
    spec: { volumes: [{ name: "a", hostPath: {} }, { name: "b", hostPath: {} }, { name: "c", emptyDir: {} }] },
    reason: "hostPath volumes",
    detail: 'volumes "a", "b"',
  },
  { check: "hostPorts", name: "one container, one host port", spec: { containers: [c("a", undefined, { ports: [{ hostPort: 0 }] }), c("b", undefined, { ports: [{ hostPort: 0 }, { hostPort: 20 }] })] }, reason: "hostPort", detail: 'container "b" uses hostPort 20' },
  {
    check: "hostPorts",
    name: "multiple containers, multiple host port",
    spec: {
      containers: [c("a", undefined, { ports: [{ hostPort: 0 }] }), c("b", undefined, { ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 20 }] }), c("c", undefined, { ports: [{ hostPort: 0 }, { hostPort: 10 }, { hostPort: 30 }] })],
    },
    reason: "hostPort",
    detail: 'containers "b", "c" use hostPorts 10, 20, 30',
  },
  { check: "hostProbesAndHostLifecycle", name: "valid pod with unset hosts", spec: { containers: [c("a", undefined, { livenessProbe: { httpGet: {} }, lifecycle: { postStart: { tcpSocket: {} } } })] } },
  {
    check: "hostProbesAndHostLifecycle",
    name: "invalid pod with local host IP as probe host",
    spec: { containers: [c("a", undefined, { livenessProbe: { httpGet: { host: "127.0.0.1" } }, readinessProbe: { tcpSocket: { host: "::1" } }, lifecycle: { preStop: { httpGet: { host: "localhost" } } } })] },
    reason: "probe or lifecycle host",
    detail: 'container "a" uses probe or lifecycle hosts "127.0.0.1", "::1", "localhost"',
  },
  {
    check: "seLinuxOptions",
    name: "invalid pod and containers",
    spec: {
      securityContext: { seLinuxOptions: { type: "foo", user: "bar", role: "baz" } },
      containers: [
        c("a", { seLinuxOptions: { type: "container_t" } }),
        c("b", { seLinuxOptions: { type: "container_init_t" } }),
        c("c", { seLinuxOptions: { type: "container_kvm_t" } }),
        c("d", { seLinuxOptions: { type: "container_engine_t" } }),
        c("e", { seLinuxOptions: { type: "bar" } }),
        c("f", { seLinuxOptions: { user: "bar" } }),
        c("g", { seLinuxOptions: { role: "baz" } }),
      ],
    },
    reason: "seLinuxOptions",
    detail: 'pod and containers "e", "f", "g" set forbidden securityContext.seLinuxOptions: types "bar", "foo"; user may not be set; role may not be set',
  },
  {
    check: "seLinuxOptions",
    name: "container_engine_t is forbidden before 1.31",
    version: "v1.30",
    spec: { containers: [c("d", { seLinuxOptions: { type: "container_engine_t" } })] },
    reason: "seLinuxOptions",
    detail: 'container "d" set forbidden securityContext.seLinuxOptions: type "container_engine_t"',
  },
  {
    check: "procMount",
    name: "procMount",
    spec: { containers: [c("a"), c("b", {}), c("c", { procMount: "Default" }), c("d", { procMount: "Unmasked" }), c("e", { procMount: "other" })] },
    reason: "procMount",
    detail: 'containers "d", "e" must not set securityContext.procMount to "Unmasked", "other"',
  },
  { check: "procMount", name: "procMount with userns", spec: { hostUsers: false, containers: [c("d", { procMount: "Unmasked" })] } },
  {
    check: "procMount_restricted",
    name: "restricted procMount ignores user namespaces",
    spec: { hostUsers: false, containers: [c("d", { procMount: "Unmasked" })] },
    reason: "procMount",
    detail: 'container "d" must not set securityContext.procMount to "Unmasked"',
  },
  {
    check: "seccompProfile_baseline",
    name: "pod seccomp annotation invalid",
    version: "v1.18",
    meta: { annotations: { "seccomp.security.alpha.kubernetes.io/pod": "unconfined" } },
    spec: {},
    reason: "seccompProfile",
    detail: 'forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"',
  },
  {
    check: "seccompProfile_baseline",
    name: "pod and containers seccomp annotations invalid",
    version: "v1.18",
    meta: {
      annotations: {
        "seccomp.security.alpha.kubernetes.io/pod": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/a": "unconfined",
        "container.seccomp.security.alpha.kubernetes.io/b": "unknown",
        "container.seccomp.security.alpha.kubernetes.io/c": "runtime/default",
      },
    },
    spec: { containers: [c("a"), c("b"), c("c")] },
    reason: "seccompProfile",
    detail:
      'forbidden annotations container.seccomp.security.alpha.kubernetes.io/a="unconfined", container.seccomp.security.alpha.kubernetes.io/b="unknown", seccomp.security.alpha.kubernetes.io/pod="unconfined"',
  },
  {
    check: "seccompProfile_baseline",
    name: "pod seccomp invalid",
    spec: { securityContext: { seccompProfile: { type: "Unconfined" } }, containers: [c("a")] },
    reason: "seccompProfile",
    detail: 'pod must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  { check: "sysctls", name: "forbidden sysctls", spec: { securityContext: { sysctls: [{ name: "a" }, { name: "b" }] } }, reason: "forbidden sysctls", detail: "a, b" },
  { check: "sysctls", name: "net.ipv4.ip_local_reserved_ports before 1.27", version: "v1.26", spec: { securityContext: { sysctls: [{ name: "net.ipv4.ip_local_reserved_ports" }] } }, reason: "forbidden sysctls", detail: "net.ipv4.ip_local_reserved_ports" },
  { check: "sysctls", name: "net.ipv4.tcp_keepalive_time before 1.29", version: "v1.28", spec: { securityContext: { sysctls: [{ name: "net.ipv4.tcp_keepalive_time" }] } }, reason: "forbidden sysctls", detail: "net.ipv4.tcp_keepalive_time" },
  { check: "sysctls", name: "net.ipv4.tcp_rmem since 1.32", spec: { securityContext: { sysctls: [{ name: "net.ipv4.tcp_rmem" }, { name: "net.ipv4.tcp_wmem" }] } } },
  {
    check: "windowsHostProcess",
    name: "host process",
    spec: {
      securityContext: { windowsOptions: { hostProcess: true } },
      containers: [c("a"), c("b", {}), c("c", { windowsOptions: {} }), c("d", { windowsOptions: { hostProcess: false } }), c("e", { windowsOptions: { hostProcess: true } }), c("f", { windowsOptions: { hostProcess: true } })],
    },
    reason: "hostProcess",
    detail: 'pod and containers "e", "f" must not set securityContext.windowsOptions.hostProcess=true',
  },
  {
    check: "appArmorProfile",
    name: "pod, containers and annotations",
    meta: { annotations: { "container.apparmor.security.beta.kubernetes.io/x": "unconfined", "container.apparmor.security.beta.kubernetes.io/y": "localhost/foo" } },
    spec: { securityContext: { appArmorProfile: { type: "Unconfined" } }, containers: [c("a", { appArmorProfile: { type: "RuntimeDefault" } }), c("b", { appArmorProfile: { type: "Unconfined" } })] },
    reason: "forbidden AppArmor profiles",
    detail: 'pod and container "b" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/x="unconfined""',
  },
  {
    check: "restrictedVolumes",
    name: "every volume type",
    spec: {
      volumes: [
        ...["emptyDir", "secret", "persistentVolumeClaim", "downwardAPI", "configMap", "projected", "csi", "ephemeral", "image"].map((k, i) => ({ name: `a${i + 1}`, [k]: {} })),
        ...[
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
        ].map((k, i) => ({ name: `b${i + 1}`, [k]: {} })),
        { name: "c1" },
      ],
    },
    reason: "restricted volume types",
    detail:
      'volumes "b1", "b2", "b3", "b4", "b5", "b6", "b7", "b8", "b9", "b10", "b11", "b12", "b13", "b14", "b15", "b16", "b17", "b18", "b19", "b20", "b21", "c1" use restricted volume types ' +
      '"awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", ' +
      '"hostPath", "iscsi", "nfs", "photonPersistentDisk", "portworxVolume", "quobyte", "rbd", "scaleIO", "storageos", "unknown", "vsphereVolume"',
  },
  {
    check: "allowPrivilegeEscalation",
    name: "multiple containers",
    spec: { containers: [c("a"), c("b", { allowPrivilegeEscalation: null }), c("c", { allowPrivilegeEscalation: true }), c("d", { allowPrivilegeEscalation: false })] },
    reason: "allowPrivilegeEscalation != false",
    detail: 'containers "a", "b", "c" must set securityContext.allowPrivilegeEscalation=false',
  },
  { check: "allowPrivilegeEscalation", name: "windows pod, admit without checking privilegeEscalation", spec: { os: { name: "windows" }, containers: [c("a")] } },
  { check: "allowPrivilegeEscalation", name: "windows pods were checked before 1.25", version: "v1.24", spec: { os: { name: "windows" }, containers: [c("a")] }, reason: "allowPrivilegeEscalation != false", detail: 'container "a" must set securityContext.allowPrivilegeEscalation=false' },
  { check: "runAsNonRoot", name: "no explicit runAsNonRoot", spec: { containers: [c("a")] }, reason: "runAsNonRoot != true", detail: 'pod or container "a" must set securityContext.runAsNonRoot=true' },
  { check: "runAsNonRoot", name: "pod runAsNonRoot=false", spec: { securityContext: { runAsNonRoot: false }, containers: [c("a")] }, reason: "runAsNonRoot != true", detail: "pod must not set securityContext.runAsNonRoot=false" },
  {
    check: "runAsNonRoot",
    name: "containers runAsNonRoot=false",
    spec: { securityContext: { runAsNonRoot: true }, containers: [c("a"), c("b", {}), c("c", { runAsNonRoot: false }), c("d", { runAsNonRoot: false }), c("e", { runAsNonRoot: true }), c("f", { runAsNonRoot: true })] },
    reason: "runAsNonRoot != true",
    detail: 'containers "c", "d" must not set securityContext.runAsNonRoot=false',
  },
  {
    check: "runAsNonRoot",
    name: "pod nil, container fallthrough",
    spec: { containers: [c("a"), c("b", {}), c("d", { runAsNonRoot: true }), c("e", { runAsNonRoot: true })] },
    reason: "runAsNonRoot != true",
    detail: 'pod or containers "a", "b" must set securityContext.runAsNonRoot=true',
  },
  { check: "runAsNonRoot", name: "host users false allowed", spec: { hostUsers: false } },
  { check: "runAsUser", name: "pod runAsUser=0", spec: { securityContext: { runAsUser: 0 }, containers: [c("a")] }, reason: "runAsUser=0", detail: "pod must not set runAsUser=0" },
  { check: "runAsUser", name: "pod runAsUser=non-zero", spec: { securityContext: { runAsUser: 1000 }, containers: [c("a")] } },
  {
    check: "runAsUser",
    name: "containers runAsUser=0",
    spec: { securityContext: { runAsUser: 1000 }, containers: [c("a"), c("b", {}), c("c", { runAsUser: 0 }), c("d", { runAsUser: 0 }), c("e", { runAsUser: 1 }), c("f", { runAsUser: 1 })] },
    reason: "runAsUser=0",
    detail: 'containers "c", "d" must not set runAsUser=0',
  },
  { check: "runAsUser", name: "host users false allowed", spec: { hostUsers: false, securityContext: { runAsUser: 0 } } },
  {
    check: "seccompProfile_restricted",
    name: "no explicit seccomp",
    spec: { containers: [c("a"), c("b")] },
    reason: "seccompProfile",
    detail: 'pod or containers "a", "b" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"',
  },
  {
    check: "seccompProfile_restricted",
    name: "pod and container explicitly unconfined",
    spec: { securityContext: { seccompProfile: { type: "Unconfined" } }, containers: [c("a", { seccompProfile: { type: "Unconfined" } }), c("b", { seccompProfile: { type: "RuntimeDefault" } })] },
    reason: "seccompProfile",
    detail: 'pod and container "a" must not set securityContext.seccompProfile.type to "Unconfined"',
  },
  { check: "seccompProfile_restricted", name: "pod RuntimeDefault covers containers", spec: { securityContext: { seccompProfile: { type: "RuntimeDefault" } }, containers: [c("a")] } },
  {
    check: "capabilities_restricted",
    name: "multiple containers",
    spec: { containers: [c("a", { capabilities: { add: ["FOO", "BAR"] } }), c("b", { capabilities: { add: ["BAR", "BAZ"] } }), c("c", { capabilities: { add: ["NET_BIND_SERVICE", "CHOWN"], drop: ["ALL", "FOO"] } })] },
    reason: "unrestricted capabilities",
    detail: 'containers "a", "b" must set securityContext.capabilities.drop=["ALL"]; containers "a", "b", "c" must not include "BAR", "BAZ", "CHOWN", "FOO" in securityContext.capabilities.add',
  },
  { check: "capabilities_restricted", name: "windows pod, admit without checking capabilities", spec: { os: { name: "windows" }, containers: [c("a")] } },
  { check: "capabilities_restricted", name: "linux pod, reject if security context is not set", spec: { os: { name: "linux" }, containers: [c("a")] }, reason: "unrestricted capabilities", detail: 'container "a" must set securityContext.capabilities.drop=["ALL"]' },
];

describe("Pod Security checks", () => {
  for (const tc of cases) {
    it(`${tc.check}: ${tc.name}`, () => {
      const version = tc.version ? parseVersion(tc.version)! : latest;
      const r = runCheck(tc.check, version, tc.meta, tc.spec);
      expect(r).toBeDefined();
      expect(r!.allowed).toBe(tc.reason === undefined);
      expect(r!.forbiddenReason).toBe(tc.reason);
      expect(r!.forbiddenDetail).toBe(tc.detail);
    });
  }
});

describe("the check registry", () => {
  it("evaluates baseline checks first, each level in ID order, with restricted overrides", () => {
    expect(maxCheckVersion).toEqual([1, 35]);
    const privileged = { containers: [{ name: "c", securityContext: { privileged: true } }] };
    expect(forbiddenDetail(evaluatePod("restricted", latest, undefined, privileged))).toBe(
      'privileged (container "c" must not set securityContext.privileged=true), allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")',
    );
    expect(forbiddenDetail(evaluatePod("baseline", latest, undefined, privileged))).toBe('privileged (container "c" must not set securityContext.privileged=true)');
    expect(evaluatePod("privileged", latest, undefined, privileged)).toEqual([]);
    // hostPath at restricted is reported once, by restrictedVolumes.
    const hostPath = { volumes: [{ name: "h", hostPath: { path: "/" } }], securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } }, containers: [] };
    expect(forbiddenDetail(evaluatePod("restricted", latest, undefined, hostPath))).toBe('restricted volume types (volume "h" uses restricted volume type "hostPath")');
  });

  it("applies checks from their minimum version", () => {
    const n = (v: string) => checksFor("restricted", parseVersion(v)!).length;
    // v1.0: 11 baseline checks (hostProbesAndHostLifecycle comes in 1.34); restricted adds restrictedVolumes
    // (overriding hostPathVolumes) and runAsNonRoot: 12. v1.35: 12 baseline checks, 7 restricted ones overriding 4.
    expect(checksFor("baseline", parseVersion("v1.0")!).length).toBe(11);
    expect(checksFor("baseline", parseVersion("v1.34")!).length).toBe(12);
    expect(n("v1.0")).toBe(12);
    expect(n("v1.35")).toBe(15);
    expect(n("v1.99")).toBe(n("v1.35"));
    expect(n("latest")).toBe(n("v1.35"));
  });
});

describe("namespace labels", () => {
  const privileged: Policy = { enforce: { level: "privileged", version: latest }, audit: { level: "privileged", version: latest }, warn: { level: "privileged", version: latest } };
  const p = "pod-security.kubernetes.io/";
  it("reads levels and versions, lets warn follow a stricter enforce, and reports bad labels", () => {
    const a = policyToEvaluate({ [`${p}enforce`]: "restricted", [`${p}enforce-version`]: "v1.30" }, privileged);
    expect(levelVersionString(a.policy.enforce)).toBe("restricted:v1.30");
    expect(levelVersionString(a.policy.warn)).toBe("restricted:v1.30");
    expect(levelVersionString(a.policy.audit)).toBe("privileged:latest");
    const b = policyToEvaluate({ [`${p}enforce`]: "baseline", [`${p}warn`]: "restricted" }, privileged);
    expect(levelVersionString(b.policy.warn)).toBe("restricted:latest");
    const bad = policyToEvaluate({ [`${p}enforce`]: "strict", [`${p}warn`]: "loud", [`${p}audit-version`]: "1.2" }, privileged);
    expect(levelVersionString(bad.policy.enforce)).toBe("restricted:latest");
    expect(bad.policy.warn.level).toBe("privileged");
    expect(bad.errors.map((e) => `${e.label}=${e.value}: ${e.detail}`)).toEqual([
      `${p}enforce=strict: must be one of privileged, baseline, restricted`,
      `${p}audit-version=1.2: must be "latest" or "v1.x"`,
      `${p}warn=loud: must be one of privileged, baseline, restricted`,
    ]);
  });
});
