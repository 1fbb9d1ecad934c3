/**
 * Printer columns of the cluster-side kinds, after upstream's printers_test.go (and
 * kube-aggregator's APIService table): column names and types as `kubectl get` shows them, and
 * the cells for the cases upstream tests.
 */
import { describe, expect, test } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { printerFor, toTable } from "./index.js";

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const created = new Date(NOW - 5 * 60_000).toISOString();
const meta = (name: string, extra: object = {}) => ({ name, creationTimestamp: created, ...extra });
const print = (group: string, kind: string, obj: object) => printerFor({ group, kind }).print(obj as KubeObject, { now: NOW, wide: true }).cells;
const columns = (group: string, kind: string) => printerFor({ group, kind }).columns.map((c) => `${c.name}:${c.type}${c.priority ? ":wide" : ""}`);

describe("column definitions", () => {
  test.each([
    ["admissionregistration.k8s.io", "ValidatingWebhookConfiguration", ["Name:string", "Webhooks:integer", "Age:string"]],
    ["admissionregistration.k8s.io", "MutatingWebhookConfiguration", ["Name:string", "Webhooks:integer", "Age:string"]],
    ["admissionregistration.k8s.io", "ValidatingAdmissionPolicy", ["Name:string", "Validations:integer", "ParamKind:string", "Age:string"]],
    ["admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", ["Name:string", "PolicyName:string", "ParamRef:string", "Age:string"]],
    ["admissionregistration.k8s.io", "MutatingAdmissionPolicy", ["Name:string", "Mutations:integer", "ParamKind:string", "Age:string"]],
    ["admissionregistration.k8s.io", "MutatingAdmissionPolicyBinding", ["Name:string", "PolicyName:string", "ParamRef:string", "Age:string"]],
    ["apiregistration.k8s.io", "APIService", ["Name:string", "Service:string", "Available:string", "Age:string"]],
    ["certificates.k8s.io", "CertificateSigningRequest", ["Name:string", "Age:string", "SignerName:string", "Requestor:string", "RequestedDuration:string", "Condition:string"]],
    ["flowcontrol.apiserver.k8s.io", "FlowSchema", ["Name:string", "PriorityLevel:string", "MatchingPrecedence:string", "DistinguisherMethod:string", "Age:string", "MissingPL:string"]],
    [
      "flowcontrol.apiserver.k8s.io",
      "PriorityLevelConfiguration",
      ["Name:string", "Type:string", "NominalConcurrencyShares:string", "Queues:string", "HandSize:string", "QueueLengthLimit:string", "Age:string"],
    ],
    ["node.k8s.io", "RuntimeClass", ["Name:string", "Handler:string", "Age:string"]],
    ["scheduling.k8s.io", "PriorityClass", ["Name:string", "Value:integer", "Global-Default:boolean", "Age:string", "PreemptionPolicy:string"]],
    ["storage.k8s.io", "StorageClass", ["Name:string", "Provisioner:string", "ReclaimPolicy:string", "VolumeBindingMode:string", "AllowVolumeExpansion:string", "Age:string"]],
    [
      "storage.k8s.io",
      "CSIDriver",
      ["Name:string", "AttachRequired:boolean", "PodInfoOnMount:boolean", "StorageCapacity:boolean", "TokenRequests:string", "RequiresRepublish:boolean", "Modes:string", "Age:string"],
    ],
    ["storage.k8s.io", "CSINode", ["Name:string", "Drivers:integer", "Age:string"]],
    ["storage.k8s.io", "CSIStorageCapacity", ["Name:string", "StorageClassName:string", "Capacity:string"]],
    ["storage.k8s.io", "VolumeAttachment", ["Name:string", "Attacher:string", "PV:string", "Node:string", "Attached:boolean", "Age:string"]],
    ["storage.k8s.io", "VolumeAttributesClass", ["Name:string", "DriverName:string", "Age:string"]],
    ["resource.k8s.io", "DeviceClass", ["Name:string", "Age:string"]],
    ["resource.k8s.io", "ResourceClaim", ["Name:string", "State:string", "Age:string"]],
    ["resource.k8s.io", "ResourceClaimTemplate", ["Name:string", "Age:string"]],
    ["resource.k8s.io", "ResourceSlice", ["Name:string", "Node:string", "Driver:string", "Pool:string", "Age:string"]],
  ])("%s %s", (group, kind, want) => {
    expect(columns(group, kind)).toEqual(want);
    expect(printerFor({ group, kind }).columns[0].format).toBe("name");
  });
});

describe("rows", () => {
  test("webhook configurations count their webhooks", () => {
    expect(print("admissionregistration.k8s.io", "ValidatingWebhookConfiguration", { metadata: meta("v"), webhooks: [{}, {}] })).toEqual(["v", 2, "5m"]);
    expect(print("admissionregistration.k8s.io", "MutatingWebhookConfiguration", { metadata: meta("m") })).toEqual(["m", 0, "5m"]);
  });

  test("admission policies and bindings", () => {
    expect(print("admissionregistration.k8s.io", "ValidatingAdmissionPolicy", { metadata: meta("p"), spec: { validations: [{}], paramKind: { apiVersion: "v1", kind: "ConfigMap" } } })).toEqual([
      "p",
      1,
      "v1/ConfigMap",
      "5m",
    ]);
    expect(print("admissionregistration.k8s.io", "ValidatingAdmissionPolicy", { metadata: meta("p"), spec: {} })).toEqual(["p", 0, "<unset>", "5m"]);
    const binding = (paramRef?: object) => print("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding", { metadata: meta("b"), spec: { policyName: "p", paramRef } });
    expect(binding()).toEqual(["b", "p", "<unset>", "5m"]);
    expect(binding({ name: "cfg", namespace: "ns" })[2]).toBe("ns/cfg");
    expect(binding({ name: "cfg" })[2]).toBe("*/cfg");
    expect(binding({ selector: { matchLabels: { b: "2", a: "1" }, matchExpressions: [{ key: "k", operator: "In", values: ["x", "y"] }] } })[2]).toBe(
      "&LabelSelector{MatchLabels:map[string]string{a: 1,b: 2,},MatchExpressions:[]LabelSelectorRequirement{LabelSelectorRequirement{Key:k,Operator:In,Values:[x y],},},}",
    );
    expect(print("admissionregistration.k8s.io", "MutatingAdmissionPolicy", { metadata: meta("m"), spec: { mutations: [{}, {}] } })).toEqual(["m", 2, "<unset>", "5m"]);
  });

  test("APIServices: Local or namespace/name, Available or the failing reason", () => {
    const svc = (spec: object, conditions?: object[]) => print("apiregistration.k8s.io", "APIService", { metadata: meta("v1.a.io"), spec, status: { conditions } });
    expect(svc({}, [{ type: "Available", status: "True", reason: "Local" }])).toEqual(["v1.a.io", "Local", "True", "5m"]);
    expect(svc({ service: { namespace: "kube-system", name: "metrics" } }, [{ type: "Available", status: "False", reason: "ServiceNotFound" }])).toEqual([
      "v1.a.io",
      "kube-system/metrics",
      "False (ServiceNotFound)",
      "5m",
    ]);
    expect(svc({})[2]).toBe("Unknown");
  });

  test("CertificateSigningRequests: requestor, duration and condition", () => {
    const csr = (spec: object, status: object) => print("certificates.k8s.io", "CertificateSigningRequest", { metadata: meta("c"), spec, status });
    expect(csr({ signerName: "example.com/s", username: "alice", expirationSeconds: 86400 }, {})).toEqual(["c", "5m", "example.com/s", "alice", "24h", "Pending"]);
    expect(csr({}, { conditions: [{ type: "Approved" }], certificate: "AAAA" }).slice(2)).toEqual(["<none>", "", "<none>", "Approved,Issued"]);
    expect(csr({}, { conditions: [{ type: "Approved" }, { type: "Denied" }, { type: "Failed" }] })[5]).toBe("Denied,Failed");
  });

  test("FlowSchemas sort by precedence and show the Dangling status; priority levels", () => {
    const fs = (name: string, mp: number, status?: string) => ({
      metadata: meta(name),
      spec: { priorityLevelConfiguration: { name: "pl" }, matchingPrecedence: mp, distinguisherMethod: mp > 5 ? { type: "ByUser" } : undefined },
      status: status ? { conditions: [{ type: "Dangling", status }] } : {},
    });
    const t = toTable({ group: "flowcontrol.apiserver.k8s.io", kind: "FlowSchema" }, [fs("z", 10, "True"), fs("b", 1), fs("a", 10, "False")] as KubeObject[], { now: NOW });
    expect(t.rows.map((r) => r.cells)).toEqual([
      ["b", "pl", 1, "<none>", "5m", "?"],
      ["a", "pl", 10, "ByUser", "5m", "False"],
      ["z", "pl", 10, "ByUser", "5m", "True"],
    ]);
    expect(print("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", { metadata: meta("exempt"), spec: { type: "Exempt", exempt: {} } })).toEqual([
      "exempt",
      "Exempt",
      "<none>",
      "<none>",
      "<none>",
      "<none>",
      "5m",
    ]);
    expect(
      print("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration", {
        metadata: meta("w"),
        spec: { type: "Limited", limited: { nominalConcurrencyShares: 40, limitResponse: { type: "Queue", queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } } } },
      }),
    ).toEqual(["w", "Limited", 40, 128, 6, 50, "5m"]);
  });

  test("RuntimeClasses and PriorityClasses", () => {
    expect(print("node.k8s.io", "RuntimeClass", { metadata: meta("gvisor"), handler: "runsc" })).toEqual(["gvisor", "runsc", "5m"]);
    expect(print("scheduling.k8s.io", "PriorityClass", { metadata: meta("high"), value: 1000, globalDefault: true, preemptionPolicy: "Never" })).toEqual(["high", 1000, true, "5m", "Never"]);
  });

  test("StorageClasses mark the default; storage kinds print upstream's defaults when fields are absent", () => {
    expect(
      print("storage.k8s.io", "StorageClass", { metadata: meta("standard", { annotations: { "storageclass.kubernetes.io/is-default-class": "true" } }), provisioner: "rancher.io/local-path" }),
    ).toEqual(["standard (default)", "rancher.io/local-path", "Delete", "Immediate", false, "5m"]);
    expect(print("storage.k8s.io", "StorageClass", { metadata: meta("fast"), provisioner: "p", reclaimPolicy: "Retain", volumeBindingMode: "WaitForFirstConsumer", allowVolumeExpansion: true })).toEqual([
      "fast",
      "p",
      "Retain",
      "WaitForFirstConsumer",
      true,
      "5m",
    ]);
    expect(print("storage.k8s.io", "CSIDriver", { metadata: meta("d"), spec: {} })).toEqual(["d", true, false, false, "<unset>", false, "<none>", "5m"]);
    expect(print("storage.k8s.io", "CSIDriver", { metadata: meta("d"), spec: { tokenRequests: [{ audience: "a" }, { audience: "b" }], volumeLifecycleModes: ["Persistent", "Ephemeral"] } })).toEqual([
      "d",
      true,
      false,
      false,
      "a,b",
      false,
      "Persistent,Ephemeral",
      "5m",
    ]);
    expect(print("storage.k8s.io", "CSINode", { metadata: meta("n"), spec: { drivers: [{}] } })).toEqual(["n", 1, "5m"]);
    expect(print("storage.k8s.io", "CSIStorageCapacity", { metadata: meta("c"), storageClassName: "sc" })).toEqual(["c", "sc", "<unset>"]);
    expect(print("storage.k8s.io", "VolumeAttachment", { metadata: meta("va"), spec: { attacher: "a", nodeName: "n", source: { persistentVolumeName: "pv" } }, status: { attached: true } })).toEqual([
      "va",
      "a",
      "pv",
      "n",
      true,
      "5m",
    ]);
    expect(print("storage.k8s.io", "VolumeAttributesClass", { metadata: meta("gold", { annotations: { "storage.kubernetes.io/is-default-class": "true" } }), driverName: "d" })).toEqual([
      "gold (default)",
      "d",
      "5m",
    ]);
  });

  test("DRA: claim states and slices", () => {
    const claim = (extra: object) => print("resource.k8s.io", "ResourceClaim", { metadata: meta("c"), ...extra })[1];
    expect(claim({})).toBe("pending");
    expect(claim({ status: { allocation: {} } })).toBe("allocated");
    expect(claim({ status: { allocation: {}, reservedFor: [{}] } })).toBe("allocated,reserved");
    expect(claim({ metadata: meta("c", { deletionTimestamp: created }) })).toBe("deleted");
    expect(claim({ metadata: meta("c", { deletionTimestamp: created }), status: { allocation: {}, reservedFor: [{}] } })).toBe("deleted,allocated,reserved");
    expect(print("resource.k8s.io", "ResourceSlice", { metadata: meta("s"), spec: { nodeName: "n", driver: "d", pool: { name: "p" } } })).toEqual(["s", "n", "d", "p", "5m"]);
    expect(print("resource.k8s.io", "DeviceClass", { metadata: meta("gpu") })).toEqual(["gpu", "5m"]);
  });
});
