/**
 * Wrong-typed input never makes a strategy fail with anything but a proper Status: for each
 * resource of issue 14, every field of a valid object (to some depth) is replaced in turn by a
 * string, a number, a boolean, null, a list and a map, and the object is defaulted, prepared and
 * validated for create and for update. Decoding against the schema normally stops such bodies
 * first (a 400); the strategies must still answer field errors or a 400, never throw.
 */
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import type { KubeObject } from "../../apimachinery/types.js";
import { controllerRevisionStrategy } from "./controllerrevisions.js";
import { cronJobStrategy } from "./cronjobs.js";
import { daemonSetStrategy } from "./daemonsets.js";
import { endpointSliceStrategy } from "./endpointslices.js";
import { horizontalPodAutoscalerStrategy, horizontalPodAutoscalerV1Strategy } from "./horizontalpodautoscalers.js";
import { ingressClassStrategy } from "./ingressclasses.js";
import { ingressStrategy } from "./ingresses.js";
import { ipAddressStrategy, serviceCIDRStrategy } from "./ipaddresses.js";
import { jobStrategy } from "./jobs.js";
import { limitRangeStrategy } from "./limitranges.js";
import { networkPolicyStrategy } from "./networkpolicies.js";
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from "./persistentvolumes.js";
import { podDisruptionBudgetStrategy } from "./poddisruptionbudgets.js";
import { podTemplateStrategy } from "./podtemplates.js";
import { replicationControllerStrategy } from "./replicationcontrollers.js";
import { resourceQuotaStrategy } from "./resourcequotas.js";
import { statefulSetStrategy } from "./statefulsets.js";
import type { ResourceStrategy } from "./strategy.js";

const podSpec = { restartPolicy: "Always", containers: [{ name: "c", image: "nginx", ports: [{ containerPort: 80 }], env: [{ name: "A", value: "b" }] }] };
const template = { metadata: { labels: { app: "a" } }, spec: podSpec };
const jobTemplate = { metadata: { labels: { app: "a" } }, spec: { ...podSpec, restartPolicy: "Never" } };
const meta = { name: "x", namespace: "default", labels: { app: "a" } };

const samples: Array<[string, ResourceStrategy, KubeObject]> = [
  ["StatefulSet", statefulSetStrategy, { metadata: meta, spec: { selector: { matchLabels: { app: "a" } }, template, volumeClaimTemplates: [{ spec: { accessModes: ["ReadWriteOnce"] } }] } }],
  ["DaemonSet", daemonSetStrategy, { metadata: meta, spec: { selector: { matchLabels: { app: "a" } }, template, updateStrategy: { rollingUpdate: { maxUnavailable: 1 } } } }],
  ["ControllerRevision", controllerRevisionStrategy, { metadata: meta, data: { a: 1 }, revision: 1 }],
  ["Job", jobStrategy, { metadata: meta, spec: { template: jobTemplate, podFailurePolicy: { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [1] } }] } } }],
  ["CronJob", cronJobStrategy, { metadata: meta, spec: { schedule: "* * * * *", timeZone: "UTC", jobTemplate: { spec: { template: jobTemplate } } } }],
  [
    "HPA v2",
    horizontalPodAutoscalerStrategy,
    {
      metadata: meta,
      spec: {
        scaleTargetRef: { kind: "Deployment", name: "a" },
        maxReplicas: 3,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 5 } } }],
        behavior: { scaleUp: { policies: [{ type: "Pods", value: 1, periodSeconds: 15 }] } },
      },
    },
  ],
  ["PDB", podDisruptionBudgetStrategy, { metadata: meta, spec: { minAvailable: 1, selector: { matchLabels: { app: "a" } } } }],
  ["EndpointSlice", endpointSliceStrategy, { metadata: meta, addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.1"], conditions: { ready: true } }], ports: [{ port: 80 }] }],
  [
    "Ingress",
    ingressStrategy,
    { metadata: meta, spec: { rules: [{ host: "a.io", http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "s", port: { number: 80 } } } }] } }], tls: [{ hosts: ["a.io"] }] } },
  ],
  ["IngressClass", ingressClassStrategy, { metadata: { name: "c" }, spec: { controller: "a.io/b", parameters: { kind: "K", name: "n" } } }],
  ["NetworkPolicy", networkPolicyStrategy, { metadata: meta, spec: { podSelector: {}, ingress: [{ from: [{ ipBlock: { cidr: "10.0.0.0/8", except: ["10.1.0.0/16"] } }], ports: [{ port: 80 }] }] } }],
  ["IPAddress", ipAddressStrategy, { metadata: { name: "10.0.0.1" }, spec: { parentRef: { resource: "services", name: "s" } } }],
  ["ServiceCIDR", serviceCIDRStrategy, { metadata: { name: "c" }, spec: { cidrs: ["10.0.0.0/16"] } }],
  ["PVC", persistentVolumeClaimStrategy, { metadata: meta, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }],
  ["PV", persistentVolumeStrategy, { metadata: { name: "pv" }, spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/d" } } }],
  ["ReplicationController", replicationControllerStrategy, { metadata: meta, spec: { selector: { app: "a" }, template } }],
  ["PodTemplate", podTemplateStrategy, { metadata: meta, template }],
  ["LimitRange", limitRangeStrategy, { metadata: meta, spec: { limits: [{ type: "Container", max: { cpu: "1" } }] } }],
  ["ResourceQuota", resourceQuotaStrategy, { metadata: meta, spec: { hard: { pods: "1" }, scopeSelector: { matchExpressions: [{ scopeName: "PriorityClass", operator: "In", values: ["a"] }] } } }],
];

const wrong: unknown[] = ["x", 7, true, null, [], [1], {}, { y: 1 }];

/** Every path below the root (not through metadata's system fields), up to `depth`. */
function paths(v: unknown, depth: number, prefix: (string | number)[] = []): (string | number)[][] {
  if (depth === 0 || typeof v !== "object" || v === null) return [];
  const out: (string | number)[][] = [];
  const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((x, i) => [i, x]) : Object.entries(v);
  for (const [k, x] of entries) {
    out.push([...prefix, k]);
    out.push(...paths(x, depth - 1, [...prefix, k]));
  }
  return out;
}

function withValue(obj: KubeObject, path: (string | number)[], value: unknown): KubeObject {
  const copy = structuredClone(obj) as Record<string, unknown>;
  let cur = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[path[path.length - 1]] = structuredClone(value);
  return copy as KubeObject;
}

/** Runs `fn`; a StatusError must be a 4xx, anything else fails. */
function attempt(fn: () => void): "ok" | "status" {
  try {
    fn();
    return "ok";
  } catch (err) {
    if (err instanceof StatusError && err.code >= 400 && err.code < 500) return "status";
    throw err;
  }
}

describe("strategies never throw on unexpected shapes", () => {
  it.each(samples)("%s", (_name, s, sample) => {
    const base = structuredClone(sample);
    s.defaults(base);
    s.prepareForCreate(base);
    Object.assign(base.metadata as object, { uid: "u", resourceVersion: "1" });
    let runs = 0;
    let rejected = 0;
    for (const path of paths(sample, 6)) {
      if (path[0] === "metadata" && path.length === 1) continue;
      for (const value of wrong) {
        const obj = withValue(sample, path, value);
        runs++;
        const create = attempt(() => {
          s.defaults(obj);
          s.prepareForCreate(obj);
          s.validate(obj);
        });
        const next = withValue(base, path, value);
        const update = attempt(() => {
          s.defaults(next);
          s.prepareForUpdate(next, base);
          s.validateUpdate(next, base);
          s.prepareForStatusUpdate(next, base);
          s.validateStatusUpdate(next, base);
          s.fieldSet(next);
        });
        if (create === "status" || update === "status") rejected++;
      }
    }
    expect(runs).toBeGreaterThan(0);
    // Most shapes get field errors. The 400s come mostly from the shared pod-spec defaulting
    // (wrong-typed containers/ports), where upstream's decoder answers 400 as well.
    expect(rejected / runs).toBeLessThanOrEqual(0.3);
  });

  it("the v1 HPA conversion copes too", () => {
    const v1: KubeObject = { metadata: meta, spec: { scaleTargetRef: { kind: "Deployment", name: "a" }, maxReplicas: 2, targetCPUUtilizationPercentage: 5 } };
    for (const path of paths(v1, 4)) {
      for (const value of wrong) {
        const obj = withValue(v1, path, value);
        attempt(() => {
          horizontalPodAutoscalerV1Strategy.defaults(obj);
          const stored = horizontalPodAutoscalerV1Strategy.conversion!.toStorage(obj);
          horizontalPodAutoscalerV1Strategy.validate(stored);
          horizontalPodAutoscalerV1Strategy.conversion!.fromStorage(stored);
        });
      }
    }
  });
});
