/**
 * Printer columns of the workload-side kinds, restated from upstream's printers_test.go
 * (TestPrintJob, TestPrintCronJob, TestPrintHPA, TestPrintControllerRevision, TestPrintDaemonSet,
 * TestPrintStatefulSet, TestPrintPersistentVolume(Claim), TestPrintEndpointSlice, TestPrintIngress,
 * TestPrintIngressClass, TestPrintPodDisruptionBudget, TestPrintComponentStatus, ...) with the
 * columns 1.36 prints (Job STATUS, CronJob TIMEZONE, PV/PVC VOLUMEATTRIBUTESCLASS, "cpu: " in
 * HPA targets). Upstream offsets timestamps from time.Now(); here from a fixed `now`.
 */
import { describe, expect, test } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { printerFor, toTable } from "./index.js";

const NOW = Date.UTC(2026, 0, 10, 12, 0, 0);
const at = (ms: number) => new Date(NOW + ms).toISOString();
const S = 1000;
const M = 60 * S;
const TEN_YEARS = -10 * 365 * 24 * 60 * M - 3 * 24 * 60 * M;

const print = (group: string, kind: string, obj: object) => printerFor({ group, kind }).print(obj as KubeObject, { now: NOW, wide: true }).cells;
/** The cells kubectl shows without -o wide. */
const narrow = (group: string, kind: string, obj: object) => {
  const p = printerFor({ group, kind });
  return print(group, kind, obj).slice(0, p.columns.filter((c) => c.priority === 0).length);
};
const headers = (group: string, kind: string) => printerFor({ group, kind }).columns.map((c) => (c.priority ? `${c.name}*` : c.name));

const twoContainers = (prefix: string) => ({
  containers: [
    { name: `${prefix}-container1`, image: `${prefix}-image1` },
    { name: `${prefix}-container2`, image: `${prefix}-image2` },
  ],
});

describe("batch/v1 Job", () => {
  const job = (spec: object, status: object, creation = at(1.9 * S)) => ({ metadata: { name: "job1", creationTimestamp: creation }, spec, status });
  test("columns", () => {
    expect(headers("batch", "Job")).toEqual(["Name", "Status", "Completions", "Duration", "Age", "Containers*", "Images*", "Selector*"]);
  });
  test.each<[string, object, unknown[]]>([
    [
      "completions and wide columns",
      job({ completions: 2, template: { spec: twoContainers("fake-job") }, selector: { matchLabels: { "job-label": "job-label-value" } } }, { succeeded: 1 }),
      ["job1", "Running", "1/2", "", "0s", "fake-job-container1,fake-job-container2", "fake-job-image1,fake-job-image2", "job-label=job-label-value"],
    ],
    ["ten years old, no completions", job({}, { succeeded: 0 }, at(TEN_YEARS)), ["job1", "Running", "0/1", "", "10y", "", "", "<none>"]],
    ["duration of a finished job", job({}, { startTime: at(M), completionTime: at(31 * M) }, at(TEN_YEARS)), ["job1", "Running", "0/1", "30m", "10y", "", "", "<none>"]],
    ["duration of a running job", job({}, { startTime: at(-20 * M) }, at(TEN_YEARS)), ["job1", "Running", "0/1", "20m", "10y", "", "", "<none>"]],
    ["parallel work queue", job({ parallelism: 3 }, { succeeded: 1 }), ["job1", "Running", "1/1 of 3", "", "0s", "", "", "<none>"]],
  ])("%s", (_n, obj, want) => {
    expect(print("batch", "Job", obj)).toEqual(want);
  });
  test.each<[string, object, string]>([
    ["complete", { status: { conditions: [{ type: "Complete", status: "True" }] } }, "Complete"],
    ["failed", { status: { conditions: [{ type: "Failed", status: "True" }] } }, "Failed"],
    ["terminating", { metadata: { name: "j", deletionTimestamp: at(0) }, status: {} }, "Terminating"],
    ["suspended", { status: { conditions: [{ type: "Suspended", status: "True" }] } }, "Suspended"],
    ["failure target", { status: { conditions: [{ type: "FailureTarget", status: "True" }] } }, "FailureTarget"],
    ["false conditions are ignored", { status: { conditions: [{ type: "Complete", status: "False" }] } }, "Running"],
  ])("status: %s", (_n, obj, want) => {
    expect(print("batch", "Job", { metadata: { name: "j" }, ...obj })[1]).toBe(want);
  });
});

describe("batch/v1 CronJob", () => {
  const spec = { schedule: "0/5 * * * ?", suspend: false, jobTemplate: { spec: { completions: 2, template: { spec: twoContainers("fake-job") }, selector: { matchLabels: { a: "b" } } } } };
  test.each<[string, object, unknown[]]>([
    [
      "basic, with the wide columns",
      { metadata: { name: "cronjob1", creationTimestamp: at(1.9 * S) }, spec, status: { lastScheduleTime: at(1.9 * S) } },
      ["cronjob1", "0/5 * * * ?", "<none>", "False", 0, "0s", "0s", "fake-job-container1,fake-job-container2", "fake-job-image1,fake-job-image2", "a=b"],
    ],
    [
      "last schedule and age",
      { metadata: { name: "cronjob2", creationTimestamp: at(-5 * M) }, spec: { schedule: "0/5 * * * ?", suspend: false }, status: { lastScheduleTime: at(-30 * S) } },
      ["cronjob2", "0/5 * * * ?", "<none>", "False", 0, "30s", "5m"],
    ],
    [
      "never scheduled, in a time zone, suspend unset",
      { metadata: { name: "cronjob3", creationTimestamp: at(-5 * M) }, spec: { schedule: "@hourly", timeZone: "Europe/Paris" }, status: { active: [{ name: "a" }] } },
      ["cronjob3", "@hourly", "Europe/Paris", "<unset>", 1, "<none>", "5m"],
    ],
  ])("%s", (_n, obj, want) => {
    const cells = print("batch", "CronJob", obj);
    expect(want.length === 10 ? cells : cells.slice(0, 7)).toEqual(want);
  });
});

describe("autoscaling HorizontalPodAutoscaler (TestPrintHPA)", () => {
  const hpa = (spec: object, status: object = {}) => ({
    apiVersion: "autoscaling/v2",
    metadata: { name: "some-hpa" },
    spec: { scaleTargetRef: { name: "some-rc", kind: "ReplicationController" }, minReplicas: 2, maxReplicas: 10, ...spec },
    status: { currentReplicas: 4, desiredReplicas: 5, ...status },
  });
  const selector = { matchLabels: { label: "value" } };
  const external = (target: object) => ({ type: "External", external: { metric: { name: "some-external-metric", selector }, target } });
  const extStatus = (current: object) => ({ type: "External", external: { metric: { name: "some-external-metric", selector }, current } });
  const cpu = (target: object) => ({ type: "Resource", resource: { name: "cpu", target } });
  const cpuStatus = (current: object) => ({ type: "Resource", resource: { name: "cpu", current } });
  const pods = (name: string, averageValue: string) => ({ type: "Pods", pods: { metric: { name }, target: { type: "AverageValue", averageValue } } });
  const podsStatus = (name: string, averageValue: string) => ({ type: "Pods", pods: { metric: { name }, current: { averageValue } } });
  const object = { type: "Object", object: { describedObject: { name: "some-service", kind: "Service" }, metric: { name: "some-service-metric" }, target: { type: "Value", value: "100m" } } };
  const objectStatus = { type: "Object", object: { describedObject: { name: "some-service", kind: "Service" }, metric: { name: "some-service-metric" }, current: { value: "50m" } } };

  test.each<[string, object, string]>([
    ["no metrics", hpa({}), "<none>"],
    ["external average value, no current", hpa({ metrics: [external({ type: "AverageValue", averageValue: "100m" })] }), "<unknown>/100m (avg)"],
    ["external average value", hpa({ metrics: [external({ type: "AverageValue", averageValue: "100m" })] }, { currentMetrics: [extStatus({ averageValue: "50m" })] }), "50m/100m (avg)"],
    ["external value, no current", hpa({ metrics: [external({ type: "Value", value: "100m" })] }), "<unknown>/100m"],
    ["external value", hpa({ metrics: [external({ type: "Value", value: "100m" })] }, { currentMetrics: [extStatus({ value: "50m" })] }), "50m/100m"],
    ["pods, no current", hpa({ metrics: [pods("some-pods-metric", "100m")] }), "<unknown>/100m"],
    ["pods", hpa({ metrics: [pods("some-pods-metric", "100m")] }, { currentMetrics: [podsStatus("some-pods-metric", "50m")] }), "50m/100m"],
    ["object, no current", hpa({ metrics: [object] }), "<unknown>/100m"],
    ["object", hpa({ metrics: [object] }, { currentMetrics: [objectStatus] }), "50m/100m"],
    ["resource value, no current", hpa({ metrics: [cpu({ type: "AverageValue", averageValue: "100m" })] }), "cpu: <unknown>/100m"],
    ["resource value", hpa({ metrics: [cpu({ type: "AverageValue", averageValue: "100m" })] }, { currentMetrics: [cpuStatus({ averageValue: "50m" })] }), "cpu: 50m/100m"],
    ["resource utilization, no current", hpa({ metrics: [cpu({ type: "Utilization", averageUtilization: 80 })] }), "cpu: <unknown>/80%"],
    [
      "resource utilization",
      hpa({ metrics: [cpu({ type: "Utilization", averageUtilization: 80 })] }, { currentMetrics: [cpuStatus({ averageUtilization: 50, averageValue: "40m" })] }),
      "cpu: 50%/80%",
    ],
    [
      "multiple metrics",
      hpa(
        { metrics: [pods("some-pods-metric", "100m"), cpu({ type: "Utilization", averageUtilization: 80 }), pods("other-pods-metric", "400m")] },
        { currentMetrics: [podsStatus("some-pods-metric", "50m"), cpuStatus({ averageUtilization: 50, averageValue: "40m" })] },
      ),
      "50m/100m, cpu: 50%/80% + 1 more...",
    ],
  ])("%s", (_n, obj, targets) => {
    expect(print("autoscaling", "HorizontalPodAutoscaler", obj)).toEqual(["some-hpa", "ReplicationController/some-rc", targets, "2", 10, 4, "<unknown>"]);
  });
  test("minReplicas unset prints <unset>", () => {
    const obj = hpa({});
    delete (obj.spec as { minReplicas?: number }).minReplicas;
    expect(print("autoscaling", "HorizontalPodAutoscaler", obj)[3]).toBe("<unset>");
  });
  test("an autoscaling/v1 object prints through its v2 form", () => {
    const v1 = {
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "web" },
      spec: { scaleTargetRef: { kind: "Deployment", name: "web" }, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 70 },
      status: { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 35 },
    };
    expect(print("autoscaling", "HorizontalPodAutoscaler", v1)).toEqual(["web", "Deployment/web", "cpu: 35%/70%", "1", 5, 2, "<unknown>"]);
  });
});

describe("apps/v1 StatefulSet, DaemonSet, ControllerRevision", () => {
  test("StatefulSet (TestPrintStatefulSet)", () => {
    const sts = { metadata: { name: "test1", creationTimestamp: at(1.9 * S) }, spec: { replicas: 5, template: { spec: twoContainers("fake") } }, status: { replicas: 5, readyReplicas: 2 } };
    expect(narrow("apps", "StatefulSet", sts)).toEqual(["test1", "2/5", "0s"]);
    expect(print("apps", "StatefulSet", sts)).toEqual(["test1", "2/5", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2"]);
  });
  test("DaemonSet (TestPrintDaemonSet)", () => {
    const ds = {
      metadata: { name: "test1", creationTimestamp: at(1.9 * S) },
      spec: { selector: { matchLabels: { foo: "bar" } }, template: { spec: twoContainers("fake") } },
      status: { currentNumberScheduled: 2, desiredNumberScheduled: 3, numberReady: 1, updatedNumberScheduled: 2, numberAvailable: 0 },
    };
    expect(headers("apps", "DaemonSet")).toEqual(["Name", "Desired", "Current", "Ready", "Up-to-date", "Available", "Node Selector", "Age", "Containers*", "Images*", "Selector*"]);
    expect(print("apps", "DaemonSet", ds)).toEqual(["test1", 3, 2, 1, 2, 0, "<none>", "0s", "fake-container1,fake-container2", "fake-image1,fake-image2", "foo=bar"]);
    const withNodeSelector = { ...ds, spec: { ...ds.spec, template: { spec: { ...ds.spec.template.spec, nodeSelector: { "kubernetes.io/os": "linux" } } } } };
    expect(print("apps", "DaemonSet", withNodeSelector)[6]).toBe("kubernetes.io/os=linux");
  });
  test.each<[string, object[] | undefined, string]>([
    ["controller", [{ controller: true, apiVersion: "apps/v1", kind: "DaemonSet", name: "foo" }], "daemonset.apps/foo"],
    ["not a controller", [{ controller: false, kind: "ABC", name: "foo" }], "<none>"],
    ["no owners", [], "<none>"],
    ["nil owners", undefined, "<none>"],
    ["core group controller", [{ controller: true, apiVersion: "v1", kind: "ReplicationController", name: "rc" }], "replicationcontroller/rc"],
  ])("ControllerRevision: %s", (_n, ownerReferences, controller) => {
    const cr = { metadata: { name: "test1", creationTimestamp: at(1.9 * S), ownerReferences }, revision: 3 };
    expect(print("apps", "ControllerRevision", cr)).toEqual(["test1", controller, 3, "0s"]);
  });
});

describe("core/v1 PersistentVolume and PersistentVolumeClaim", () => {
  const claimRef = { name: "test", namespace: "default" };
  test.each<[string, object, object, unknown[]]>([
    ["bound", { claimRef, accessModes: ["ReadOnlyMany"], capacity: { storage: "4Gi" } }, { phase: "Bound" }, ["test1", "4Gi", "ROX", "", "Bound", "default/test", "", "<unset>", "", "<unknown>", "<unset>"]],
    ["failed", { claimRef, accessModes: ["ReadOnlyMany"], capacity: { storage: "4Gi" } }, { phase: "Failed" }, ["test1", "4Gi", "ROX", "", "Failed", "default/test", "", "<unset>", "", "<unknown>", "<unset>"]],
    [
      "pending with a storage class",
      { claimRef, storageClassName: "my-scn", accessModes: ["ReadWriteOnce"], capacity: { storage: "10Gi" } },
      { phase: "Pending" },
      ["test1", "10Gi", "RWO", "", "Pending", "default/test", "my-scn", "<unset>", "", "<unknown>", "<unset>"],
    ],
    [
      "every access mode, reclaim policy, reason, volume mode",
      {
        accessModes: ["ReadWriteOncePod", "ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteOnce"],
        capacity: { storage: "1Gi" },
        persistentVolumeReclaimPolicy: "Retain",
        volumeAttributesClassName: "gold",
        volumeMode: "Block",
      },
      { phase: "Released", reason: "Gone" },
      ["test1", "1Gi", "RWO,ROX,RWX,RWOP", "Retain", "Released", "", "", "gold", "Gone", "<unknown>", "Block"],
    ],
  ])("PV %s", (_n, spec, status, want) => {
    expect(print("", "PersistentVolume", { metadata: { name: "test1" }, spec, status })).toEqual(want);
  });
  test("a PV being deleted is Terminating; the beta annotation names the class", () => {
    const pv = { metadata: { name: "p", deletionTimestamp: at(0), annotations: { "volume.beta.kubernetes.io/storage-class": "old" } }, spec: { storageClassName: "new" }, status: { phase: "Bound" } };
    const cells = print("", "PersistentVolume", pv);
    expect([cells[4], cells[6]]).toEqual(["Terminating", "old"]);
  });
  test.each<[string, object, object, unknown[]]>([
    ["bound", { volumeName: "my-volume", volumeMode: "Filesystem" }, { phase: "Bound", accessModes: ["ReadOnlyMany"], capacity: { storage: "4Gi" } }, ["test1", "Bound", "my-volume", "4Gi", "ROX", "", "<unset>", "<unknown>", "Filesystem"]],
    ["lost (no volume: no capacity or modes)", { volumeMode: "Filesystem" }, { phase: "Lost", accessModes: ["ReadOnlyMany"], capacity: { storage: "4Gi" } }, ["test1", "Lost", "", "", "", "", "<unset>", "<unknown>", "Filesystem"]],
    [
      "storage class",
      { volumeName: "my-volume", storageClassName: "my-scn", volumeMode: "Filesystem" },
      { phase: "Pending", accessModes: ["ReadWriteOnce"], capacity: { storage: "10Gi" } },
      ["test1", "Pending", "my-volume", "10Gi", "RWO", "my-scn", "<unset>", "<unknown>", "Filesystem"],
    ],
    [
      "no volume mode",
      { volumeName: "my-volume", storageClassName: "my-scn" },
      { phase: "Pending", accessModes: ["ReadWriteOnce"], capacity: { storage: "10Gi" } },
      ["test1", "Pending", "my-volume", "10Gi", "RWO", "my-scn", "<unset>", "<unknown>", "<unset>"],
    ],
  ])("PVC %s", (_n, spec, status, want) => {
    expect(print("", "PersistentVolumeClaim", { metadata: { name: "test1" }, spec, status })).toEqual(want);
  });
});

describe("core/v1 ReplicationController, PodTemplate, ResourceQuota, ComponentStatus", () => {
  test("ReplicationController (TestPrintReplicationController)", () => {
    const rc = { metadata: { name: "rc1", namespace: "test" }, spec: { replicas: 5, selector: { a: "b" }, template: { spec: twoContainers("fake") } }, status: { replicas: 5, readyReplicas: 2 } };
    expect(narrow("", "ReplicationController", rc)).toEqual(["rc1", 5, 5, 2, "<unknown>"]);
    expect(print("", "ReplicationController", rc)).toEqual(["rc1", 5, 5, 2, "<unknown>", "fake-container1,fake-container2", "fake-image1,fake-image2", "a=b"]);
  });
  test.each<[object, unknown[]]>([
    [{ metadata: { name: "pod-template-1" }, template: { metadata: { labels: { foo: "bar" } }, spec: { containers: [{ name: "fake-container1", image: "fake-image1" }] } } }, ["pod-template-1", "fake-container1", "fake-image1", "foo=bar"]],
    [{ metadata: { name: "pod-template-2" }, template: { metadata: { labels: { a: "b" } }, spec: twoContainers("fake") } }, ["pod-template-2", "fake-container1,fake-container2", "fake-image1,fake-image2", "a=b"]],
  ])("PodTemplate (TestPrintPodTemplate) %#", (obj, want) => {
    expect(print("", "PodTemplate", obj)).toEqual(want);
  });
  test("ResourceQuota: AGE second, then requests and limits (sorted, unused as 0)", () => {
    expect(headers("", "ResourceQuota")).toEqual(["Name", "Age", "Request", "Limit"]);
    const rq = {
      metadata: { name: "compute", creationTimestamp: at(-5 * M) },
      status: { hard: { pods: "10", "limits.cpu": "2", "requests.cpu": "1", "limits.memory": "2Gi" }, used: { pods: "3", "limits.cpu": "500m" } },
    };
    expect(print("", "ResourceQuota", rq)).toEqual(["compute", "5m", "pods: 3/10, requests.cpu: 0/1", "limits.cpu: 500m/2, limits.memory: 0/2Gi"]);
  });
  test.each<[string, object[], unknown[]]>([
    ["healthy", [{ type: "Healthy", status: "True", message: "test message", error: "test error" }], ["cs1", "Healthy", "test message", "test error"]],
    ["unhealthy", [{ type: "Healthy", status: "False", message: "test message", error: "test error" }], ["cs1", "Unhealthy", "test message", "test error"]],
    ["unknown condition", [{ type: "InvalidType", status: "True", message: "test message", error: "test error" }], ["cs1", "Unknown", "", ""]],
  ])("ComponentStatus (TestPrintComponentStatus) %s", (_n, conditions, want) => {
    expect(print("", "ComponentStatus", { metadata: { name: "cs1" }, conditions })).toEqual(want);
  });
  test("LimitRanges keep the default NAME / CREATED AT table, as upstream", () => {
    expect(headers("", "LimitRange")).toEqual(["Name", "Created At"]);
  });
});

describe("policy/v1 PodDisruptionBudget (TestPrintPodDisruptionBudget)", () => {
  test.each<[object, unknown[]]>([
    [{ minAvailable: 22 }, ["pdb1", "22", "N/A", 5, "0s"]],
    [{ maxUnavailable: 11 }, ["pdb1", "N/A", "11", 5, "0s"]],
    [{ maxUnavailable: "25%" }, ["pdb1", "N/A", "25%", 5, "0s"]],
  ])("%j", (spec, want) => {
    expect(print("policy", "PodDisruptionBudget", { metadata: { name: "pdb1", namespace: "ns1", creationTimestamp: at(1.9 * S) }, spec, status: { disruptionsAllowed: 5 } })).toEqual(want);
  });
});

describe("discovery/v1 EndpointSlice (TestPrintEndpointSlice)", () => {
  const port = (name: string, p: number) => ({ name, port: p, protocol: "TCP" });
  const endpoints = [{ addresses: ["10.1.2.3", "2001:db8::1234:5678"] }, { addresses: ["10.2.3.4", "2001:db8::2345:6789"] }];
  test.each<[string, object, unknown[]]>([
    ["one endpoint", { metadata: { name: "abcslice.123", creationTimestamp: at(1.9 * S) }, addressType: "IPv4", ports: [port("http", 80)], endpoints: [endpoints[0]] }, ["abcslice.123", "IPv4", "80", "10.1.2.3,2001:db8::1234:5678", "0s"]],
    [
      "more endpoints than three",
      { metadata: { name: "longerslicename.123", creationTimestamp: at(-5 * M) }, addressType: "IPv4", ports: [port("http", 80), port("https", 443)], endpoints },
      ["longerslicename.123", "IPv4", "80,443", "10.1.2.3,2001:db8::1234:5678,10.2.3.4 + 1 more...", "5m"],
    ],
    [
      "more ports than three",
      { metadata: { name: "multiportslice.123", creationTimestamp: at(-5 * M) }, addressType: "IPv4", ports: [port("http", 80), port("https", 443), port("extra1", 3000), port("extra2", 3001)], endpoints },
      ["multiportslice.123", "IPv4", "80,443,3000 + 1 more...", "10.1.2.3,2001:db8::1234:5678,10.2.3.4 + 1 more...", "5m"],
    ],
    ["no ports or endpoints; a port without a number", { metadata: { name: "e" }, addressType: "FQDN", endpoints: [] }, ["e", "FQDN", "<unset>", "<unset>", "<unknown>"]],
    ["a named port without a number, an unnamed one", { metadata: { name: "e" }, addressType: "IPv6", ports: [{ name: "http" }, {}] }, ["e", "IPv6", "http,*", "<unset>", "<unknown>"]],
  ])("%s", (_n, obj, want) => {
    expect(print("discovery.k8s.io", "EndpointSlice", obj)).toEqual(want);
  });
});

describe("networking.k8s.io/v1", () => {
  test("Ingress (TestPrintIngress)", () => {
    const ing = {
      metadata: { name: "test1", creationTimestamp: at(TEN_YEARS) },
      spec: { ingressClassName: "foo", defaultBackend: { service: { name: "default-backend", port: { name: "default-backend", number: 80 } } } },
      status: { loadBalancer: { ingress: [{ ip: "2.3.4.5", hostname: "localhost.localdomain" }] } },
    };
    expect(print("networking.k8s.io", "Ingress", ing)).toEqual(["test1", "foo", "*", "2.3.4.5", "80", "10y"]);
  });
  test.each<[object[], string]>([
    [[{ host: "a.com" }, { host: "b.com" }], "a.com,b.com"],
    [[{ host: "a" }, {}, { host: "c" }, { host: "d" }, { host: "e" }], "a,c,d + 2 more..."],
    [[{}], "*"],
  ])("Ingress hosts %j", (rules, hosts) => {
    const cells = print("networking.k8s.io", "Ingress", { metadata: { name: "i" }, spec: { rules, tls: [{ hosts: ["a"] }] } });
    expect([cells[1], cells[2], cells[3], cells[4]]).toEqual(["<none>", hosts, "", "80, 443"]);
  });
  test.each<[object | undefined, string]>([
    [{ kind: "customgroup", name: "example" }, "customgroup/example"],
    [{ kind: "customgroup", name: "example", apiGroup: "example.com" }, "customgroup.example.com/example"],
    [undefined, "<none>"],
  ])("IngressClass (TestPrintIngressClass) %j", (parameters, want) => {
    const ic = { metadata: { name: "test1", creationTimestamp: at(TEN_YEARS) }, spec: { controller: "example.com/controller", parameters } };
    expect(print("networking.k8s.io", "IngressClass", ic)).toEqual(["test1", "example.com/controller", want, "10y"]);
  });
  test.each<[object, string]>([
    [{ podSelector: {} }, "<none>"],
    [{ podSelector: { matchLabels: { app: "web" } } }, "app=web"],
    [{ podSelector: { matchExpressions: [{ key: "tier", operator: "In", values: ["fe", "be"] }] } }, "tier in (be,fe)"],
  ])("NetworkPolicy %j", (spec, selector) => {
    expect(print("networking.k8s.io", "NetworkPolicy", { metadata: { name: "np", creationTimestamp: at(-5 * M) }, spec })).toEqual(["np", selector, "5m"]);
  });
  test.each<[object | undefined, string]>([
    [{ group: "mygroup", resource: "myresource", namespace: "mynamespace", name: "myname" }, "myresource.mygroup/mynamespace/myname"],
    [{ group: "", resource: "services", namespace: "default", name: "kubernetes" }, "services/default/kubernetes"],
    [{ resource: "Nodes", name: "n1" }, "nodes/n1"],
  ])("IPAddress %j", (parentRef, want) => {
    expect(print("networking.k8s.io", "IPAddress", { metadata: { name: "192.168.2.2" }, spec: { parentRef } })).toEqual(["192.168.2.2", want]);
  });
  test.each<[string[], string]>([
    [["10.1.0.0/16"], "10.1.0.0/16"],
    [["10.1.0.0/16", "fd00:1:1::/64"], "10.1.0.0/16,fd00:1:1::/64"],
  ])("ServiceCIDR (TestPrintServiceCIDR) %j", (cidrs, want) => {
    expect(print("networking.k8s.io", "ServiceCIDR", { metadata: { name: "test1", creationTimestamp: at(1.9 * S) }, spec: { cidrs } })).toEqual(["test1", want, "0s"]);
  });
});

describe("wrong shapes never throw from a printer", () => {
  const kinds: Array<[string, string]> = [
    ["batch", "Job"],
    ["batch", "CronJob"],
    ["autoscaling", "HorizontalPodAutoscaler"],
    ["apps", "StatefulSet"],
    ["apps", "DaemonSet"],
    ["apps", "ControllerRevision"],
    ["", "PersistentVolume"],
    ["", "PersistentVolumeClaim"],
    ["", "ReplicationController"],
    ["", "PodTemplate"],
    ["", "ResourceQuota"],
    ["", "ComponentStatus"],
    ["policy", "PodDisruptionBudget"],
    ["discovery.k8s.io", "EndpointSlice"],
    ["networking.k8s.io", "Ingress"],
    ["networking.k8s.io", "IngressClass"],
    ["networking.k8s.io", "NetworkPolicy"],
    ["networking.k8s.io", "IPAddress"],
    ["networking.k8s.io", "ServiceCIDR"],
  ];
  test.each(kinds)("%s %s", (group, kind) => {
    const table = toTable({ group, kind }, [{ apiVersion: "v1", kind, metadata: { name: "x" } } as KubeObject], { now: NOW });
    expect(table.rows[0].cells.length).toBeLessThanOrEqual(table.columnDefinitions.length);
    expect(table.rows[0].cells[0]).toBe("x");
  });
});
