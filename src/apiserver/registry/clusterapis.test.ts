/**
 * Defaults and validation of the storage, scheduling, node, apiregistration, flowcontrol,
 * certificates and resource (DRA) strategies, restated from upstream's defaults_test.go and
 * validation_test.go tables for the cases users hit.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { createCertificateRequestPEM } from "../auth/csr.js";
import { generateKey } from "../auth/x509.js";
import type { WriteContext } from "../rest/context.js";
import { defaultWriteContext } from "../rest/context.js";
import { apiServiceHooks, apiServiceStrategy } from "./apiservices.js";
import { certificateSigningRequestHooks, certificateSigningRequestStrategy, csrCondition, validateSignerName } from "./certificates.js";
import { deviceClassStrategy, resourceClaimStrategy, resourceClaimTemplateStrategy, resourceSliceStrategy } from "./dra.js";
import { flowSchemaStrategy, priorityLevelConfigurationStrategy } from "./flowcontrol.js";
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from "./flowcontrolbootstrap.js";
import { priorityClassStrategy } from "./priorityclasses.js";
import { runtimeClassStrategy } from "./runtimeclasses.js";
import {
  csiDriverStrategy,
  csiNodeStrategy,
  csiStorageCapacityStrategy,
  storageClassStrategy,
  volumeAttachmentStrategy,
  volumeAttributesClassStrategy,
} from "./storage.js";
import type { ResourceStrategy } from "./strategy.js";

function create(s: ResourceStrategy, obj: KubeObject): string[] {
  s.defaults(obj);
  s.prepareForCreate(obj);
  return s.validate(obj).map(String);
}

function update(s: ResourceStrategy, old: KubeObject, mutate: (o: KubeObject) => void): { obj: KubeObject; errs: string[] } {
  s.defaults(old);
  s.prepareForCreate(old);
  Object.assign(old.metadata as object, { resourceVersion: "1", uid: "u" });
  const obj = structuredClone(old);
  mutate(obj);
  s.defaults(obj);
  s.prepareForUpdate(obj, old);
  return { obj, errs: s.validateUpdate(obj, old).map(String) };
}

type O = Record<string, unknown>;
const dnsSubdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

describe("PriorityClass", () => {
  const pc = (name: string, value: number, extra: O = {}): KubeObject => ({ metadata: { name }, value, ...extra });
  it("defaults preemptionPolicy", () => {
    const p = pc("high", 1000);
    expect(create(priorityClassStrategy, p)).toEqual([]);
    expect(p.preemptionPolicy).toBe("PreemptLowerPriority");
  });
  const cases: [string, KubeObject, string[]][] = [
    ["the system classes are valid as they are", pc("system-node-critical", 2000001000), []],
    [
      "other system- names are reserved",
      pc("system-foo", 1000),
      ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-foo is not a known system priority class"],
    ],
    [
      "a system class keeps its value",
      pc("system-cluster-critical", 5),
      ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-cluster-critical PriorityClass must be 2000000000"],
    ],
    [
      "a system class is not the global default",
      pc("system-cluster-critical", 2000000000, { globalDefault: true }),
      ["metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false"],
    ],
    ["user classes stay at or below one billion", pc("tier1", 1000000001), ["value: Forbidden: maximum allowed value of a user defined priority is 1000000000"]],
    ["preemptionPolicy is known", pc("tier1", 1, { preemptionPolicy: "Always" }), ['preemptionPolicy: Unsupported value: "Always": supported values: "Never", "PreemptLowerPriority"']],
  ];
  it.each(cases)("%s", (_, obj, want) => expect(create(priorityClassStrategy, obj)).toEqual(want));
  it("value and preemptionPolicy are immutable", () => {
    expect(update(priorityClassStrategy, pc("tier1", 1), (o) => (o.value = 2)).errs).toEqual(["value: Forbidden: may not be changed in an update."]);
    expect(update(priorityClassStrategy, pc("tier1", 1), (o) => (o.preemptionPolicy = "Never")).errs).toEqual(['preemptionPolicy: Invalid value: "Never": field is immutable']);
    expect(update(priorityClassStrategy, pc("tier1", 1), (o) => (o.description = "d")).errs).toEqual([]);
  });
});

describe("RuntimeClass", () => {
  it("handler is a DNS label and immutable; scheduling and overhead are checked", () => {
    expect(create(runtimeClassStrategy, { metadata: { name: "gvisor" }, handler: "runsc" })).toEqual([]);
    expect(create(runtimeClassStrategy, { metadata: { name: "x" }, handler: "Run.SC" })).toEqual([
      "handler: Invalid value: \"Run.SC\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ]);
    expect(
      create(runtimeClassStrategy, {
        metadata: { name: "x" },
        handler: "h",
        overhead: { podFixed: { cpu: "-1" } },
        scheduling: { tolerations: [{ key: "a", operator: "Exists" }, { key: "a", operator: "Exists" }] },
      }),
    ).toEqual(['overhead.podFixed[cpu]: Invalid value: "-1": must be greater than or equal to 0', 'scheduling.tolerations[1]: Duplicate value: {"key":"a","operator":"Exists"}']);
    expect(update(runtimeClassStrategy, { metadata: { name: "x" }, handler: "h" }, (o) => (o.handler = "g")).errs).toEqual(['handler: Invalid value: "g": field is immutable']);
  });
});

describe("StorageClass", () => {
  const sc = (extra: O = {}): KubeObject => ({ metadata: { name: "fast" }, provisioner: "kubernetes.io/foo-provisioner", ...extra });
  it("defaults reclaimPolicy and volumeBindingMode", () => {
    const s = sc();
    expect(create(storageClassStrategy, s)).toEqual([]);
    expect(s).toMatchObject({ reclaimPolicy: "Delete", volumeBindingMode: "Immediate" });
  });
  const cases: [string, KubeObject, string[]][] = [
    ["provisioner is required", sc({ provisioner: "" }), ["provisioner: Required value"]],
    [
      "provisioner is a qualified name",
      sc({ provisioner: "kubernetes.io/invalid/provisioner" }),
      [
        "provisioner: Invalid value: \"kubernetes.io/invalid/provisioner\": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
      ],
    ],
    ["parameter keys are not empty", sc({ parameters: { "": "value" } }), ['parameters: Invalid value: "": field can not be empty.']],
    ["reclaimPolicy is Delete or Retain", sc({ reclaimPolicy: "Recycle" }), ['reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"']],
    ["volumeBindingMode", sc({ volumeBindingMode: "Later" }), ['volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"']],
    [
      "allowed topologies need values and unique keys",
      sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: "zone", values: [] }, { key: "zone", values: ["a"] }] }] }),
      ["allowedTopologies[0].matchLabelExpressions[0].values: Required value", 'allowedTopologies[0].matchLabelExpressions[1].key: Duplicate value: "zone"'],
    ],
  ];
  it.each(cases)("%s", (_, obj, want) => expect(create(storageClassStrategy, obj)).toEqual(want));
  it("provisioner, parameters, reclaimPolicy and volumeBindingMode are immutable", () => {
    const old = sc({ parameters: { a: "1" } });
    expect(
      update(storageClassStrategy, old, (o) => {
        o.provisioner = "other.io/p";
        o.parameters = { a: "2" };
        o.reclaimPolicy = "Retain";
        o.volumeBindingMode = "WaitForFirstConsumer";
      }).errs,
    ).toEqual([
      "parameters: Forbidden: updates to parameters are forbidden.",
      "provisioner: Forbidden: updates to provisioner are forbidden.",
      "reclaimPolicy: Forbidden: updates to reclaimPolicy are forbidden.",
      'volumeBindingMode: Invalid value: "WaitForFirstConsumer": field is immutable',
    ]);
    expect(update(storageClassStrategy, old, (o) => (o.allowVolumeExpansion = true)).errs).toEqual([]);
  });
});

describe("CSIDriver, CSINode, CSIStorageCapacity, VolumeAttachment, VolumeAttributesClass", () => {
  it("CSIDriver defaults and immutability", () => {
    const d: KubeObject = { metadata: { name: "csi.example.com" }, spec: {} };
    expect(create(csiDriverStrategy, d)).toEqual([]);
    expect(d.spec).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      storageCapacity: false,
      fsGroupPolicy: "ReadWriteOnceWithFSType",
      volumeLifecycleModes: ["Persistent"],
      requiresRepublish: false,
      seLinuxMount: false,
    });
    expect(create(csiDriverStrategy, { metadata: { name: "d" }, spec: { volumeLifecycleModes: ["Other"], tokenRequests: [{ audience: "a", expirationSeconds: 10 }] } })).toEqual([
      "spec.tokenRequests[0].expirationSeconds: Invalid value: 10: may not specify a duration less than 10 minutes",
      'spec.volumeLifecycleModes: Unsupported value: "Other": supported values: "Persistent", "Ephemeral"',
    ]);
    const old: KubeObject = { metadata: { name: "d" }, spec: {} };
    expect(update(csiDriverStrategy, old, (o) => ((o.spec as O).attachRequired = false)).errs).toEqual(["spec.attachedRequired: Invalid value: false: field is immutable"]);
  });

  it("CSINode drivers", () => {
    const node = (drivers: O[]): KubeObject => ({ metadata: { name: "node-1" }, spec: { drivers } });
    expect(create(csiNodeStrategy, node([{ name: "csi.example.com", nodeID: "n1", topologyKeys: ["zone"] }]))).toEqual([]);
    expect(create(csiNodeStrategy, node([{ name: "a.io", nodeID: "" }, { name: "a.io", nodeID: "x".repeat(193) }]))).toEqual([
      "spec.drivers[0].nodeID: Required value",
      `spec.drivers[1].nodeID: Invalid value: "${"x".repeat(193)}": must be 192 characters or less`,
      'spec.drivers[1].name: Duplicate value: "a.io"',
    ]);
    const old = node([{ name: "a.io", nodeID: "n1", allocatable: { count: 1 } }]);
    expect(update(csiNodeStrategy, old, (o) => (((o.spec as O).drivers as O[])[0].allocatable = { count: 5 })).errs).toEqual([]);
    expect(update(csiNodeStrategy, old, (o) => (((o.spec as O).drivers as O[])[0].nodeID = "n2")).errs[0]).toMatch(/^spec\.drivers: Invalid value: .*: field is immutable$/);
  });

  it("CSIStorageCapacity", () => {
    const c = (extra: O): KubeObject => ({ metadata: { name: "cap", namespace: "default" }, storageClassName: "fast", ...extra });
    expect(create(csiStorageCapacityStrategy, c({ capacity: "1Gi", nodeTopology: { matchLabels: { zone: "a" } } }))).toEqual([]);
    expect(create(csiStorageCapacityStrategy, c({ capacity: "-1", storageClassName: "Fast" }))).toEqual([
      `storageClassName: Invalid value: "Fast": ${dnsSubdomainMsg}`,
      'capacity: Invalid value: "-1": must be greater than or equal to 0',
    ]);
    expect(update(csiStorageCapacityStrategy, c({}), (o) => (o.storageClassName = "slow")).errs).toEqual(['storageClassName: Invalid value: "slow": field is immutable']);
  });

  it("VolumeAttachment source, attacher, immutable spec and status", () => {
    const va = (spec: O): KubeObject => ({ metadata: { name: "va" }, spec: { attacher: "csi.example.com", nodeName: "node-1", source: { persistentVolumeName: "pv-1" }, ...spec } });
    expect(create(volumeAttachmentStrategy, va({}))).toEqual([]);
    expect(create(volumeAttachmentStrategy, va({ attacher: "", source: {} }))).toEqual([
      "spec.attacher: Required value",
      "spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName",
      "spec.attacher: Required value",
      `spec.attacher: Invalid value: "": ${dnsSubdomainMsg}`,
    ]);
    const old = va({});
    expect(update(volumeAttachmentStrategy, old, (o) => ((o.spec as O).nodeName = "node-2")).errs[0]).toMatch(/^spec: Invalid value: .*: field is immutable$/);
    // status only through /status: the main resource keeps the stored status.
    expect(update(volumeAttachmentStrategy, old, (o) => (o.status = { attached: true })).obj.status).toEqual({});
  });

  it("VolumeAttributesClass needs a driver and parameters, both immutable", () => {
    expect(create(volumeAttributesClassStrategy, { metadata: { name: "gold" }, driverName: "csi.example.com", parameters: { iops: "1000" } })).toEqual([]);
    expect(create(volumeAttributesClassStrategy, { metadata: { name: "gold" }, driverName: "" })).toEqual(["driverName: Required value", "parameters: Required value: must contain at least one key/value pair"]);
    const old: KubeObject = { metadata: { name: "gold" }, driverName: "a.io", parameters: { iops: "1" } };
    expect(update(volumeAttributesClassStrategy, old, (o) => (o.parameters = { iops: "2" })).errs).toEqual(["parameters: Forbidden: updates to parameters are forbidden."]);
  });
});

describe("APIService", () => {
  const svc = (name: string, spec: O): KubeObject => ({ metadata: { name }, spec: { groupPriorityMinimum: 1000, versionPriority: 15, ...spec } });
  it("local APIServices are available from creation", () => {
    const a = svc("v1.example.com", { group: "example.com", version: "v1" });
    expect(create(apiServiceStrategy, a)).toEqual([]);
    void apiServiceHooks(new FakeClock(Date.parse("2026-01-01T00:00:00Z"))).beforeCreate?.(a, defaultWriteContext());
    expect(a.status).toEqual({ conditions: [{ type: "Available", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z", reason: "Local", message: "Local APIServices are always available" }] });
  });
  const cases: [string, KubeObject, string[]][] = [
    ["the name is version.group", svc("v1.other.com", { group: "example.com", version: "v1" }), ['metadata.name: Invalid value: "v1.other.com": must be `spec.version+"."+spec.group`: "v1.example.com"']],
    ["the core group is v1 only", svc("v2.", { group: "", version: "v2" }), ["spec.group: Required value: only v1 may have an empty group and it better be legacy kube"]],
    [
      "priorities are bounded",
      svc("v1.a.io", { group: "a.io", version: "v1", groupPriorityMinimum: 20001, versionPriority: 0 }),
      ["spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000", "spec.versionPriority: Invalid value: 0: must be positive and less than 1000"],
    ],
    ["local APIServices have no caBundle", svc("v1.a.io", { group: "a.io", version: "v1", caBundle: "AAAA" }), ['spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle']],
    [
      "a service reference needs namespace and name",
      svc("v1.a.io", { group: "a.io", version: "v1", service: {}, insecureSkipTLSVerify: true, caBundle: "AAAA" }),
      ["spec.service.namespace: Required value", "spec.service.name: Required value", "spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present"],
    ],
  ];
  it.each(cases)("%s", (_, obj, want) => expect(create(apiServiceStrategy, obj)).toEqual(want));
  it("needs a resourceVersion to update; status keeps spec and labels", () => {
    expect(apiServiceStrategy.allowUnconditionalUpdate).toBe(false);
    const old = svc("v1.a.io", { group: "a.io", version: "v1" });
    old.metadata!.labels = { a: "b" };
    const st = structuredClone(old);
    st.metadata!.labels = { a: "c" };
    (st.spec as O).versionPriority = 99;
    apiServiceStrategy.prepareForStatusUpdate(st, old);
    expect(st.metadata?.labels).toEqual({ a: "b" });
    expect((st.spec as O).versionPriority).toBe(15);
  });
});

describe("FlowSchema and PriorityLevelConfiguration", () => {
  const fs = (name: string, spec: O): KubeObject => ({
    metadata: { name },
    spec: {
      priorityLevelConfiguration: { name: "system" },
      rules: [{ subjects: [{ kind: "Group", group: { name: "g" } }], resourceRules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods"], namespaces: ["default"] }] }],
      ...spec,
    },
  });
  it("defaults matchingPrecedence; the bootstrap objects validate", () => {
    const f = fs("mine", {});
    expect(create(flowSchemaStrategy, f)).toEqual([]);
    expect((f.spec as O).matchingPrecedence).toBe(1000);
    for (const o of [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()]) expect(create(flowSchemaStrategy, structuredClone(o))).toEqual([]);
    for (const o of [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()]) expect(create(priorityLevelConfigurationStrategy, structuredClone(o))).toEqual([]);
  });
  const cases: [string, KubeObject, string[]][] = [
    ["precedence 1 is for exempt", fs("mine", { matchingPrecedence: 1 }), ["spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"]],
    ["precedence at most 10000", fs("mine", { matchingPrecedence: 10001 }), ["spec.matchingPrecedence: Invalid value: 10001: must not be greater than 10000"]],
    ["a priority level is required", fs("mine", { priorityLevelConfiguration: {} }), ["spec.priorityLevelConfiguration.name: Required value: must reference a priority level"]],
    [
      "subjects and rules are required",
      fs("mine", { rules: [{}] }),
      ["spec.rules[0].subjects: Required value: subjects must contain at least one value", "spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty"],
    ],
    [
      "subject kinds",
      fs("mine", { rules: [{ subjects: [{ kind: "User" }, { kind: "Robot" }], nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/a/*/b"] }] }] }),
      [
        "spec.rules[0].subjects[0].user: Required value: user is required when subject kind is 'User'",
        'spec.rules[0].subjects[1].kind: Unsupported value: "Robot": supported values: "Group", "ServiceAccount", "User"',
        'spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "/a/*/b": wildcard can only do suffix matching',
      ],
    ],
    [
      "verbs and namespaces",
      fs("mine", { rules: [{ subjects: [{ kind: "Group", group: { name: "g" } }], resourceRules: [{ verbs: ["*", "get"], apiGroups: ["*"], resources: ["*"], namespaces: [] }] }] }),
      [
        'spec.rules[0].resourceRules[0].verbs: Invalid value: []string{"*", "get"}: if \'*\' is present, must not specify other verbs',
        "spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
      ],
    ],
    ["the mandatory schemas are fixed", fs("catch-all", { matchingPrecedence: 10000 }), []],
  ];
  it.each(cases)("%s", (_, obj, want) => {
    const errs = create(flowSchemaStrategy, obj);
    if (obj.metadata?.name === "catch-all") expect(errs[0]).toMatch(/^spec: Invalid value: .*: spec of 'catch-all' must equal the fixed value$/);
    else expect(errs).toEqual(want);
  });

  it("priority levels: defaults, type rules, queuing bounds", () => {
    const pl: KubeObject = { metadata: { name: "mine" }, spec: { type: "Limited", limited: { limitResponse: { type: "Queue", queuing: {} } } } };
    expect(create(priorityLevelConfigurationStrategy, pl)).toEqual([]);
    expect(pl.spec).toEqual({ type: "Limited", limited: { nominalConcurrencyShares: 30, lendablePercent: 0, limitResponse: { type: "Queue", queuing: { handSize: 8, queues: 64, queueLengthLimit: 50 } } } });
    expect(create(priorityLevelConfigurationStrategy, { metadata: { name: "mine" }, spec: { type: "Exempt" } })).toEqual(['spec.type: Invalid value: "Exempt": type must be \'Exempt\' if and only if name is \'exempt\'']);
    expect(
      create(priorityLevelConfigurationStrategy, {
        metadata: { name: "mine" },
        spec: { type: "Limited", limited: { lendablePercent: 101, limitResponse: { type: "Queue", queuing: { queues: 4, handSize: 8, queueLengthLimit: 1 } } } },
      }),
    ).toEqual(["spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive", "spec.limited.limitResponse.queuing.handSize: Invalid value: 8: should not be greater than queues (4)"]);
    expect(create(priorityLevelConfigurationStrategy, { metadata: { name: "mine" }, spec: { type: "Limited" } })).toEqual(["spec.limited: Required value: must not be empty when type is Limited"]);
    // The exempt level may be tuned, not turned into something else.
    const exempt = structuredClone(mandatoryPriorityLevels()[1]);
    ((exempt.spec as O).exempt as O).nominalConcurrencyShares = 10;
    expect(create(priorityLevelConfigurationStrategy, exempt)).toEqual([]);
  });
});

describe("CertificateSigningRequest", () => {
  const key = generateKey();
  const request = Buffer.from(createCertificateRequestPEM({ commonName: "alice", organizations: ["dev"] }, key)).toString("base64");
  const csr = (spec: O = {}): KubeObject => ({ metadata: { name: "alice" }, spec: { request, signerName: "kubernetes.io/kube-apiserver-client", usages: ["client auth"], ...spec } });
  const ctx = (user?: WriteContext["user"], subresource?: string): WriteContext => ({ ...defaultWriteContext(), user, subresource });
  const clock = new FakeClock(Date.parse("2026-01-01T00:00:00Z"));

  it("takes the identity from the requesting user and starts with an empty status", async () => {
    const c = csr({ username: "mallory", groups: ["system:masters"] });
    c.status = { conditions: [{ type: "Approved", status: "True" }] };
    certificateSigningRequestStrategy.prepareForCreate(c);
    await certificateSigningRequestHooks({ clock }).beforeCreate?.(c, ctx({ username: "alice", uid: "1", groups: ["dev"] }));
    expect(c.spec).toMatchObject({ username: "alice", uid: "1", groups: ["dev"] });
    expect(c.status).toEqual({});
    expect(certificateSigningRequestStrategy.validate(c).map(String)).toEqual([]);
  });

  const cases: [string, KubeObject, string[]][] = [
    ["usages are required", csr({ usages: [] }), ["spec.usages: Required value"]],
    ["usages are known", csr({ usages: ["client auth", "flying"] }), [expect.stringMatching(/^spec\.usages\[1\]: Unsupported value: "flying": supported values: "any", "cert sign", /) as unknown as string]],
    ["usages are unique", csr({ usages: ["client auth", "client auth"] }), ['spec.usages[1]: Duplicate value: "client auth"']],
    ["signerName is required", csr({ signerName: "" }), ["spec.signerName: Required value"]],
    ["signerName is domain/path", csr({ signerName: "example.com" }), ["spec.signerName: Invalid value: \"example.com\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ["the domain has two segments", csr({ signerName: "example/signer" }), ['spec.signerName: Invalid value: "example": should be a domain with at least two segments separated by dots']],
    ["not the legacy signer", csr({ signerName: "kubernetes.io/legacy-unknown" }), ['spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version']],
    ["expiration at least ten minutes", csr({ expirationSeconds: 599 }), ["spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 600 seconds (10 minutes)"]],
  ];
  it.each(cases)("%s", (_, obj, want) => expect(create(certificateSigningRequestStrategy, obj)).toEqual(want));

  it("rejects a request that is not a signed PEM CSR, printing the bytes as Go does", () => {
    const errs = create(certificateSigningRequestStrategy, csr({ request: Buffer.from("hi").toString("base64") }));
    expect(errs).toEqual(["spec.request: Invalid value: []byte{0x68, 0x69}: PEM block type must be CERTIFICATE REQUEST"]);
    // A request whose signature does not verify (another key signed it).
    const other = createCertificateRequestPEM({ commonName: "bob" }, generateKey());
    const good = Buffer.from(createCertificateRequestPEM({ commonName: "alice" }, key));
    const forged = Buffer.from(other.replace(/-----BEGIN CERTIFICATE REQUEST-----\n([\s\S]*)-----END/, (_, b64: string) => {
      const der = Buffer.from(b64.replace(/\n/g, ""), "base64");
      der[der.length - 5] ^= 0xff;
      return `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString("base64")}\n-----END`;
    }));
    expect(create(certificateSigningRequestStrategy, csr({ request: good.toString("base64") }))).toEqual([]);
    expect(create(certificateSigningRequestStrategy, csr({ request: forged.toString("base64") }))[0]).toMatch(/^spec\.request: Invalid value: \[\]byte\{0x2d, .*: x509: ECDSA verification failure$/);
  });

  it("the approval subresource sets conditions only; Approved and Denied exclude each other", () => {
    const old = csr();
    certificateSigningRequestStrategy.prepareForCreate(old);
    Object.assign(old.metadata!, { resourceVersion: "1", uid: "u" });
    const approval = certificateSigningRequestStrategy.subresources.updates!.approval;
    const obj = structuredClone(old);
    obj.status = { conditions: [{ type: "Approved", status: "True", reason: "KubectlApprove" }], certificate: "AAAA" };
    (obj.spec as O).signerName = "example.com/other";
    approval.prepareForUpdate(obj, old);
    expect((obj.spec as O).signerName).toBe("kubernetes.io/kube-apiserver-client");
    expect(obj.status).toEqual({ conditions: [{ type: "Approved", status: "True", reason: "KubectlApprove" }] });
    expect(approval.validateUpdate(obj, old).map(String)).toEqual([]);
    expect(csrCondition(obj)).toBe("Approved");
    const both = structuredClone(obj);
    both.status = { conditions: [{ type: "Approved", status: "True" }, { type: "Denied", status: "True" }] };
    expect(approval.validateUpdate(both, old).map(String)).toEqual(['status.conditions: Invalid value: "Denied": Approved and Denied conditions are mutually exclusive']);
    // The main resource and /status may not approve.
    expect(certificateSigningRequestStrategy.validateStatusUpdate(obj, old).map(String)).toEqual(['status.conditions: Forbidden: updates may not add a condition of type "Approved"']);
    // Once approved, the condition stays.
    const removed = structuredClone(obj);
    removed.status = {};
    expect(approval.validateUpdate(removed, obj).map(String)).toEqual(['status.conditions: Forbidden: updates may not remove a condition of type "Approved"']);
  });

  it("admission: approve/sign authorization, subject restriction, condition times", async () => {
    const denyAll = certificateSigningRequestHooks({ clock, authorize: () => false });
    const old = csr();
    const obj = structuredClone(old);
    obj.status = { conditions: [{ type: "Approved", status: "True" }] };
    await expect((async () => denyAll.beforeUpdate?.(obj, old, ctx({ username: "bob", groups: [] }, "approval")))()).rejects.toThrow(
      'certificatesigningrequests.certificates.k8s.io "alice" is forbidden: user not permitted to approve requests with signerName "kubernetes.io/kube-apiserver-client"',
    );
    const wildcard = certificateSigningRequestHooks({ clock, authorize: (_u, verb, name) => verb === "approve" && name === "kubernetes.io/*" });
    await wildcard.beforeUpdate?.(obj, old, ctx({ username: "bob", groups: [] }, "approval"));
    expect((obj.status as O).conditions).toEqual([{ type: "Approved", status: "True", lastUpdateTime: "2026-01-01T00:00:00Z", lastTransitionTime: "2026-01-01T00:00:00Z" }]);
    const masters = csr({ request: Buffer.from(createCertificateRequestPEM({ commonName: "x", organizations: ["system:masters"] }, key)).toString("base64") });
    await expect((async () => denyAll.beforeCreate?.(masters, ctx()))()).rejects.toThrow("use of kubernetes.io/kube-apiserver-client signer with system:masters group is not allowed");
  });

  it("signer names", () => {
    expect(validateSignerName("example.com/my-signer", "f")).toEqual([]);
    expect(validateSignerName("a/b/c", "f").map(String)).toEqual(["f: Invalid value: \"a/b/c\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]);
  });
});

describe("resource.k8s.io (DRA)", () => {
  const claim = (devices: O): KubeObject => ({ metadata: { name: "c", namespace: "default" }, spec: { devices } });
  const exact = (extra: O = {}) => ({ name: "gpu", exactly: { deviceClassName: "gpu.example.com", ...extra } });
  it("defaults allocationMode and count", () => {
    const c = claim({ requests: [exact(), { name: "alt", firstAvailable: [{ name: "a", deviceClassName: "x" }] }] });
    expect(create(resourceClaimStrategy, c)).toEqual([]);
    const reqs = (c.spec as { devices: { requests: O[] } }).devices.requests;
    expect(reqs[0].exactly).toEqual({ deviceClassName: "gpu.example.com", allocationMode: "ExactCount", count: 1 });
    expect((reqs[1].firstAvailable as O[])[0]).toMatchObject({ allocationMode: "ExactCount", count: 1 });
    expect(c.status).toEqual({});
  });
  const cases: [string, O, string[]][] = [
    ["exactly one request type", { requests: [{ name: "gpu" }] }, ["spec.devices.requests[0]: Required value: exactly one of `exactly` or `firstAvailable` is required"]],
    ["device class is required", { requests: [exact({ deviceClassName: "" })] }, ["spec.devices.requests[0].exactly.deviceClassName: Required value"]],
    ["count must be positive", { requests: [exact({ count: -1 })] }, ["spec.devices.requests[0].exactly.count: Invalid value: -1: must be greater than zero"]],
    ["All takes no count", { requests: [exact({ allocationMode: "All", count: 2 })] }, ["spec.devices.requests[0].exactly.count: Invalid value: 2: must not be specified when allocationMode is 'All'"]],
    ["request names are unique", { requests: [exact(), exact()] }, ['spec.devices.requests[1]: Duplicate value: "gpu"']],
    [
      "constraints name known requests",
      { requests: [exact()], constraints: [{ requests: ["cpu"], matchAttribute: "model" }] },
      [
        "spec.devices.constraints[0].requests[0]: Invalid value: \"cpu\": must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
        'spec.devices.constraints[0].matchAttribute: Invalid value: "model": must include a domain',
      ],
    ],
    [
      "opaque parameters are a JSON object",
      { requests: [exact()], config: [{ opaque: { driver: "gpu.example.com", parameters: [1] } }] },
      ['spec.devices.config[0].opaque.parameters: Invalid value: "<value omitted>": must be a valid JSON object'],
    ],
    ["selectors carry CEL", { requests: [exact({ selectors: [{}] })] }, ["spec.devices.requests[0].exactly.selectors[0].cel: Required value"]],
  ];
  it.each(cases)("claims: %s", (_, devices, want) => expect(create(resourceClaimStrategy, claim(devices))).toEqual(want));

  it("claim and template specs are immutable; status is checked", () => {
    const old = claim({ requests: [exact()] });
    expect(update(resourceClaimStrategy, old, (o) => (((o.spec as O).devices as O).requests = [exact({ count: 2 })])).errs[0]).toMatch(/^spec: Invalid value: .*: field is immutable$/);
    const st = structuredClone(old);
    st.status = { reservedFor: [{ resource: "pods", name: "p", uid: "1" }] };
    expect(resourceClaimStrategy.validateStatusUpdate(st, old).map(String)).toEqual(["status.reservedFor: Forbidden: may not be specified when `allocated` is not set"]);
    st.status = { allocation: { devices: { results: [{ request: "gpu", driver: "gpu.example.com", pool: "node-1", device: "gpu-0" }] } } };
    expect(resourceClaimStrategy.validateStatusUpdate(st, old).map(String)).toEqual([]);
    const tmpl: KubeObject = { metadata: { name: "t", namespace: "default" }, spec: { spec: { devices: { requests: [exact()] } } } };
    expect(create(resourceClaimTemplateStrategy, tmpl)).toEqual([]);
    expect(update(resourceClaimTemplateStrategy, tmpl, (o) => ((o.spec as O).metadata = { labels: { a: "b" } })).errs[0]).toMatch(/field is immutable$/);
  });

  it("device classes", () => {
    expect(create(deviceClassStrategy, { metadata: { name: "gpu.example.com" }, spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] } })).toEqual([]);
    expect(create(deviceClassStrategy, { metadata: { name: "x" }, spec: { config: [{}], extendedResourceName: "gpu" } })).toEqual([
      "spec.config[0].opaque: Required value",
      'spec.extendedResourceName: Invalid value: "gpu": must be a valid extended resource name',
    ]);
  });

  it("resource slices", () => {
    const slice = (spec: O): KubeObject => ({ metadata: { name: "s" }, spec: { driver: "gpu.example.com", pool: { name: "node-1", generation: 1, resourceSliceCount: 1 }, ...spec } });
    expect(create(resourceSliceStrategy, slice({ nodeName: "node-1", devices: [{ name: "gpu-0", attributes: { model: { string: "a100" } } }] }))).toEqual([]);
    expect(create(resourceSliceStrategy, slice({}))).toEqual(["spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"]);
    expect(create(resourceSliceStrategy, slice({ nodeName: "n", allNodes: true }))).toEqual([
      'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required, but multiple fields are set',
    ]);
    expect(create(resourceSliceStrategy, slice({ allNodes: true, pool: { name: "", resourceSliceCount: 0 }, devices: [{ name: "d", attributes: { a: {} } }, { name: "d" }] }))).toEqual([
      "spec.pool.name: Required value",
      "spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
      'spec.devices[0].attributes[a]: Invalid value: "": exactly one value must be specified',
      'spec.devices[1]: Duplicate value: "d"',
    ]);
    const s = slice({ nodeName: "node-1" });
    expect(update(resourceSliceStrategy, s, (o) => ((o.spec as O).driver = "other.example.com")).errs).toEqual(['spec.driver: Invalid value: "other.example.com": field is immutable']);
    expect(resourceSliceStrategy.fieldSet(s)).toMatchObject({ "spec.nodeName": "node-1", "spec.driver": "gpu.example.com" });
  });
});
