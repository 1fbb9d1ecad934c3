import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { configMapStrategy } from "./configmaps.js";
import { endpointsStrategy } from "./endpoints.js";
import { coreEventStrategy, coreEventToEventsV1, eventsV1EventStrategy, eventsV1ToCoreEvent } from "./events.js";
import { builtinStrategies } from "./index.js";
import { leaseStrategy } from "./leases.js";
import { namespaceStrategy } from "./namespaces.js";
import { nodeStrategy } from "./nodes.js";
import { secretStrategy } from "./secrets.js";
import type { ResourceStrategy } from "./strategy.js";

function run(s: ResourceStrategy, obj: KubeObject): string[] {
  s.defaults(obj);
  s.prepareForCreate(obj);
  return s.validate(obj).map(String);
}

function update(s: ResourceStrategy, old: KubeObject, mutate: (o: KubeObject) => void): { obj: KubeObject; errs: string[] } {
  Object.assign(old.metadata as object, { resourceVersion: "1", uid: "u" });
  const obj = structuredClone(old);
  mutate(obj);
  s.defaults(obj);
  s.prepareForUpdate(obj, old);
  return { obj, errs: s.validateUpdate(obj, old).map(String) };
}

const meta = (name = "x", namespace: string | null = "default") => ({ name, ...(namespace ? { namespace } : {}) });

describe("ConfigMap", () => {
  it("validates keys", () => {
    expect(run(configMapStrategy, { metadata: meta(), data: { "good.key": "v", "bad key": "v" }, binaryData: { "good.key": "AA==" } })).toEqual([
      'data[good.key]: Invalid value: "good.key": duplicate of key present in binaryData',
      "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
    ]);
  });
  it("honours immutable", () => {
    const old: KubeObject = { metadata: meta(), data: { a: "1" }, immutable: true };
    expect(update(configMapStrategy, old, (o) => ((o.data as Record<string, string>).a = "2")).errs).toEqual([
      "data: Forbidden: field is immutable when `immutable` is set",
    ]);
    expect(update(configMapStrategy, old, (o) => delete o.immutable).errs).toEqual(["immutable: Forbidden: field is immutable when `immutable` is set"]);
  });
  it("limits the total size", () => {
    const errs = run(configMapStrategy, { metadata: meta(), data: { a: "x".repeat(1024 * 1024 + 1) } });
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^: Too long: .*1048576 bytes$/);
  });
});

describe("Secret", () => {
  it("defaults type, merges stringData, selects by type", () => {
    const s: KubeObject = { metadata: meta(), stringData: { user: "me" } };
    expect(run(secretStrategy, s)).toEqual([]);
    expect(s.type).toBe("Opaque");
    expect(s.data).toEqual({ user: Buffer.from("me").toString("base64") });
    expect(s.stringData).toBeUndefined();
    expect(secretStrategy.fieldSet(s)).toMatchObject({ type: "Opaque" });
  });
  it("type-specific keys and immutable type", () => {
    expect(run(secretStrategy, { metadata: meta(), type: "kubernetes.io/tls", data: { "tls.crt": "" } })).toEqual(["data[tls.key]: Required value"]);
    const old: KubeObject = { metadata: meta(), type: "Opaque", data: {} };
    // Upstream order: metadata, type immutability, then ValidateSecret of the new object.
    expect(update(secretStrategy, old, (o) => (o.type = "kubernetes.io/basic-auth")).errs).toEqual([
      'type: Invalid value: "kubernetes.io/basic-auth": field is immutable',
      "data[username]: Required value",
      "data[password]: Required value",
    ]);
  });
});

describe("Namespace", () => {
  it("label, finalizer, phase on create; name is a DNS label", () => {
    const ns: KubeObject = { metadata: meta("team-a", null) };
    expect(run(namespaceStrategy, ns)).toEqual([]);
    expect(ns.metadata?.labels).toEqual({ "kubernetes.io/metadata.name": "team-a" });
    expect(ns.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(ns.status).toEqual({ phase: "Active" });
    expect(namespaceStrategy.fieldSet(ns)).toEqual({ "metadata.name": "team-a", "status.phase": "Active", name: "team-a" });
    expect(run(namespaceStrategy, { metadata: meta("a.b", null) })).toEqual(['metadata.name: Invalid value: "a.b": must not contain dots']);
    expect(namespaceStrategy.verbs).not.toContain("deletecollection");
  });
  it("update keeps finalizers and status; status phase rules", () => {
    const old: KubeObject = { metadata: meta("ns", null), spec: { finalizers: ["kubernetes"] }, status: { phase: "Active" } };
    const { obj } = update(namespaceStrategy, old, (o) => {
      o.spec = {};
      o.status = { phase: "Terminating" };
    });
    expect(obj.spec).toEqual({ finalizers: ["kubernetes"] });
    expect(obj.status).toEqual({ phase: "Active" });
    const st = structuredClone(old);
    st.status = { phase: "Terminating" };
    namespaceStrategy.prepareForStatusUpdate(st, old);
    expect(namespaceStrategy.validateStatusUpdate(st, old).map(String)).toEqual([
      "status.Phase: Invalid value: \"Terminating\": may only be 'Active' if `deletionTimestamp` is empty",
    ]);
  });
});

describe("Node", () => {
  it("keeps status on create, validates taints, selects unschedulable", () => {
    const n: KubeObject = {
      metadata: meta("node-1", null),
      spec: { unschedulable: true, taints: [{ key: "a", effect: "NoSchedule" }, { key: "a", effect: "NoSchedule" }] },
      status: { capacity: { cpu: "4" } },
    };
    expect(run(nodeStrategy, n)).toEqual(['metadata.taints[1]: Duplicate value: {"key":"a","effect":"NoSchedule"}: taints must be unique by key and effect pair']);
    expect(n.status).toEqual({ capacity: { cpu: "4" }, allocatable: { cpu: "4" } });
    expect(nodeStrategy.fieldSet(n)).toEqual({ "metadata.name": "node-1", "spec.unschedulable": "true" });
  });
  it("podCIDRs are set once", () => {
    const old: KubeObject = { metadata: meta("n", null), spec: { podCIDRs: ["10.244.0.0/24"] } };
    expect(update(nodeStrategy, old, (o) => ((o.spec as Record<string, unknown>).podCIDRs = ["10.244.1.0/24"])).errs).toEqual([
      'spec.podCIDRs: Forbidden: node updates may not change podCIDR except from "" to valid',
    ]);
  });
});

describe("Endpoints", () => {
  it("validates subsets, allows create on update", () => {
    expect(endpointsStrategy.allowCreateOnUpdate).toBe(true);
    expect(
      run(endpointsStrategy, {
        metadata: meta("web"),
        subsets: [{ addresses: [{ ip: "127.0.0.1" }], ports: [{ port: 80 }] }, { ports: [{ port: 0, protocol: "TCP" }] }],
      }),
    ).toEqual([
      'subsets[0].addresses[0].ip: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
      "subsets[1]: Required value: must specify `addresses` or `notReadyAddresses`",
      "subsets[1].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
    ]);
  });
});

describe("Events", () => {
  const coreEvent = {
    apiVersion: "v1",
    kind: "Event",
    metadata: meta("web.1"),
    involvedObject: { kind: "Pod", namespace: "default", name: "web", uid: "u1" },
    reason: "Started",
    message: "started",
    source: { component: "kubelet" },
    type: "Normal",
  };
  it("core events: legacy validation and field set", () => {
    const e = structuredClone(coreEvent) as KubeObject;
    expect(run(coreEventStrategy, e)).toEqual([]);
    expect(coreEventStrategy.fieldSet(e)).toMatchObject({ "involvedObject.name": "web", source: "kubelet", reason: "Started", type: "Normal" });
    const bad = structuredClone(coreEvent) as KubeObject;
    (bad.involvedObject as Record<string, unknown>).namespace = "other";
    expect(run(coreEventStrategy, bad)).toEqual(['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
  });
  it("events.k8s.io: strict validation and immutability", () => {
    const e: KubeObject = {
      apiVersion: "events.k8s.io/v1",
      kind: "Event",
      metadata: meta("web.2"),
      eventTime: "2024-01-01T00:00:00.000000Z",
      reportingController: "example.com/ctrl",
      reportingInstance: "ctrl-1",
      action: "Scale",
      reason: "Scaled",
      regarding: { kind: "Deployment", namespace: "default", name: "web" },
      type: "Normal",
    };
    expect(run(eventsV1EventStrategy, e)).toEqual([]);
    const bad = { ...structuredClone(e), type: "Info", deprecatedCount: 3, reportingController: "" } as KubeObject;
    // Upstream also runs IsQualifiedName on the empty controller name.
    expect(run(eventsV1EventStrategy, bad)).toEqual([
      "reportingController: Required value",
      'reportingController: Invalid value: "": name part must be non-empty',
      expect.stringMatching(/^reportingController: Invalid value: "": name part must consist of alphanumeric characters/),
      'type: Invalid value: "": has invalid value: Info',
      'count: Invalid value: "": needs to be unset',
    ]);
    expect(update(eventsV1EventStrategy, e, (o) => (o.note = "changed")).errs).toEqual(['message: Invalid value: "changed": field is immutable']);
  });
  it("converts between the two shapes", () => {
    const v1 = coreEventToEventsV1(structuredClone(coreEvent) as never);
    expect(v1).toMatchObject({ regarding: coreEvent.involvedObject, note: "started", deprecatedSource: { component: "kubelet" } });
    expect(eventsV1ToCoreEvent(v1)).toMatchObject({ involvedObject: coreEvent.involvedObject, message: "started", source: { component: "kubelet" } });
  });
});

describe("Lease", () => {
  it("validates spec numbers", () => {
    expect(run(leaseStrategy, { metadata: meta("l"), spec: { leaseDurationSeconds: 0, leaseTransitions: -1, preferredHolder: "a" } })).toEqual([
      "spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0",
      "spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0",
      "spec.preferredHolder: Forbidden: may only be specified if `strategy` is defined",
    ]);
    expect(run(leaseStrategy, { metadata: meta("l"), spec: { holderIdentity: "me", leaseDurationSeconds: 15 } })).toEqual([]);
  });
});

describe("builtinStrategies", () => {
  it("lists every resource once with upstream's names", () => {
    const all = builtinStrategies().map(
      (s) => `${s.names.group}/${s.names.version}/${s.names.resource}:${s.names.shortNames.join(",")}:${s.names.categories.join(",")}`,
    );
    expect(new Set(all).size).toBe(all.length);
    expect(all.map((x) => x.replace(/\/v[0-9a-z]+\//, "/")).slice(0, 13)).toEqual([
      "/configmaps:cm:",
      "/endpoints:ep:",
      "/events:ev:",
      "/namespaces:ns:",
      "/nodes:no:",
      "/pods:po:all",
      "/secrets::",
      "/serviceaccounts:sa:",
      "/services:svc:all",
      "apps/deployments:deploy:all",
      "apps/replicasets:rs:all",
      "coordination.k8s.io/leases::",
      "events.k8s.io/events:ev:",
    ]);
  });
});
