/**
 * core/v1 PersistentVolumes, PersistentVolumeClaims, ReplicationControllers, PodTemplates,
 * LimitRanges and ResourceQuotas: defaults (core/v1 defaults_test.go) and the validation cases of
 * core/validation's tests that users hit.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { limitRangeStrategy } from "./limitranges.js";
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from "./persistentvolumes.js";
import { podTemplateStrategy } from "./podtemplates.js";
import { replicationControllerStrategy } from "./replicationcontrollers.js";
import { resourceQuotaStrategy } from "./resourcequotas.js";
import type { ResourceStrategy } from "./strategy.js";

function created(s: ResourceStrategy, obj: KubeObject): { obj: KubeObject; errs: string[] } {
  s.defaults(obj);
  s.prepareForCreate(obj);
  return { obj, errs: s.validate(obj).map(String) };
}

function updated(s: ResourceStrategy, old: KubeObject, mutate: (o: KubeObject) => void): { obj: KubeObject; errs: string[] } {
  Object.assign(old.metadata as object, { resourceVersion: "1", uid: "u" });
  const obj = structuredClone(old);
  mutate(obj);
  s.defaults(obj);
  s.prepareForUpdate(obj, old);
  return { obj, errs: s.validateUpdate(obj, old).map(String) };
}

type Spec = Record<string, unknown>;

describe("PersistentVolumeClaims", () => {
  const pvc = (spec: Spec): KubeObject => ({ apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "data", namespace: "default" }, spec });
  const good = () => pvc({ accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } });
  it("defaults volumeMode and starts Pending", () => {
    const { obj, errs } = created(persistentVolumeClaimStrategy, good());
    expect(errs).toEqual([]);
    expect((obj.spec as Spec).volumeMode).toBe("Filesystem");
    expect(obj.status).toEqual({ phase: "Pending" });
  });
  it.each<[string, Spec, string[]]>([
    ["no access mode", { resources: { requests: { storage: "1Gi" } } }, ["spec.accessModes: Required value: at least 1 access mode is required"]],
    [
      "unknown access mode",
      { accessModes: ["ReadWriteSometimes"], resources: { requests: { storage: "1Gi" } } },
      ['spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'],
    ],
    [
      "ReadWriteOncePod with another mode",
      { accessModes: ["ReadWriteOncePod", "ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
      ["spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes"],
    ],
    ["no storage request", { accessModes: ["ReadWriteOnce"] }, ["spec.resources[storage]: Required value"]],
    ["zero storage", { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "0" } } }, ['spec.resources[storage]: Invalid value: "0": must be greater than zero']],
    [
      "bad volume mode",
      { accessModes: ["ReadWriteOnce"], volumeMode: "Raw", resources: { requests: { storage: "1Gi" } } },
      ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"'],
    ],
  ])("%s", (_name, spec, want) => {
    expect(created(persistentVolumeClaimStrategy, pvc(spec)).errs).toEqual(want);
  });
  it("is immutable except requests (up) and, once, the volume name", () => {
    const old = created(persistentVolumeClaimStrategy, good()).obj;
    expect(updated(persistentVolumeClaimStrategy, old, (o) => ((o.spec as Spec).volumeName = "pv-1")).errs).toEqual([]);
    expect(updated(persistentVolumeClaimStrategy, old, (o) => ((o.spec as { resources: { requests: Spec } }).resources.requests.storage = "2Gi")).errs).toEqual([]);
    expect(updated(persistentVolumeClaimStrategy, old, (o) => ((o.spec as { resources: { requests: Spec } }).resources.requests.storage = "512Mi")).errs).toEqual([
      "spec.resources.requests.storage: Forbidden: field can not be less than previous value",
    ]);
    const modes = updated(persistentVolumeClaimStrategy, old, (o) => ((o.spec as Spec).accessModes = ["ReadWriteMany"])).errs;
    expect(modes).toHaveLength(1);
    expect(modes[0]).toMatch(/^spec: Forbidden: spec is immutable after creation except resources\.requests and volumeAttributesClassName for bound claims\n/);
  });
});

describe("PersistentVolumes", () => {
  const pv = (spec: Spec): KubeObject => ({ apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "pv-1" }, spec });
  const good = () => pv({ capacity: { storage: "10Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/data" } });
  it("defaults the reclaim policy and volume mode and starts Pending", () => {
    const { obj, errs } = created(persistentVolumeStrategy, good());
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({ persistentVolumeReclaimPolicy: "Retain", volumeMode: "Filesystem" });
    expect(obj.status).toEqual({ phase: "Pending" });
  });
  it.each<[string, Spec, string[]]>([
    ["no capacity", { accessModes: ["ReadWriteOnce"], hostPath: { path: "/d" } }, ["spec.capacity: Required value", 'spec.capacity: Unsupported value: null: supported values: "storage"']],
    [
      "cpu capacity",
      { capacity: { cpu: "1" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/d" } },
      ['spec.capacity: Unsupported value: {"cpu":"1"}: supported values: "storage"'],
    ],
    ["no source", { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"] }, ["spec: Required value: must specify a volume type"]],
    [
      "two sources",
      { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/d" }, nfs: { server: "s", path: "/e" } },
      ["spec.nfs: Forbidden: may not specify more than 1 volume type"],
    ],
    [
      "bad reclaim policy",
      { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/d" }, persistentVolumeReclaimPolicy: "Keep" },
      ['spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"'],
    ],
    [
      "recycling /",
      { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/" }, persistentVolumeReclaimPolicy: "Recycle" },
      ["spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'"],
    ],
  ])("%s", (_name, spec, want) => {
    expect(created(persistentVolumeStrategy, pv(spec)).errs).toEqual(want);
  });
  it("keeps the source immutable", () => {
    const old = created(persistentVolumeStrategy, good()).obj;
    const errs = updated(persistentVolumeStrategy, old, (o) => ((o.spec as Spec).hostPath = { path: "/other" })).errs;
    expect(errs).toHaveLength(1);
    expect(errs[0]).toMatch(/^spec\.persistentvolumesource: Forbidden: spec\.persistentvolumesource is immutable after creation\n/);
  });
});

describe("ReplicationControllers", () => {
  const rc = (spec: Spec): KubeObject => ({ apiVersion: "v1", kind: "ReplicationController", metadata: { name: "web", namespace: "default" }, spec });
  const template = (labels: Record<string, string> = { app: "web" }) => ({ metadata: { labels }, spec: { containers: [{ name: "c", image: "nginx" }] } });
  it("takes its selector and labels from the template and replicas 1 (SetDefaults_ReplicationController)", () => {
    const { obj, errs } = created(replicationControllerStrategy, rc({ template: template() }));
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({ selector: { app: "web" }, replicas: 1 });
    expect(obj.metadata?.labels).toEqual({ app: "web" });
    expect(obj.status).toEqual({ replicas: 0 });
  });
  it.each<[string, Spec, string[]]>([
    ["no selector, no labels", { template: template({}) }, ["spec.selector: Required value"]],
    ["mismatch", { selector: { app: "x" }, template: template() }, ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`']],
    ["negative replicas", { replicas: -1, template: template() }, ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]],
    ["no template", { selector: { app: "web" } }, ["spec.template: Required value"]],
  ])("%s", (_name, spec, want) => {
    expect(created(replicationControllerStrategy, rc(spec)).errs).toEqual(want);
  });
  it("lets the selector change and bumps the generation", () => {
    const old = created(replicationControllerStrategy, rc({ template: template({ app: "web", tier: "fe" }) })).obj;
    const { obj, errs } = updated(replicationControllerStrategy, old, (o) => ((o.spec as Spec).selector = { app: "web" }));
    expect(errs).toEqual([]);
    expect(obj.metadata?.generation).toBe(2);
  });
  it("serves a scale whose selector is the label map", () => {
    expect(replicationControllerStrategy.subresources.scale).toMatchObject({ labelSelectorPath: ".spec.selector", selectorIsMap: true });
  });
});

describe("PodTemplates", () => {
  const pt = (template: unknown): KubeObject => ({ apiVersion: "v1", kind: "PodTemplate", metadata: { name: "t", namespace: "default" }, template });
  it("defaults and validates the template, bumping the generation when it changes", () => {
    const { obj, errs } = created(podTemplateStrategy, pt({ metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "nginx" }] } }));
    expect(errs).toEqual([]);
    expect(obj.template).toMatchObject({ spec: { restartPolicy: "Always", containers: [{ imagePullPolicy: "Always" }] } });
    expect(obj.metadata?.generation).toBe(1);
    const u = updated(podTemplateStrategy, obj, (o) => ((o.template as { metadata: { labels: Spec } }).metadata.labels.a = "c"));
    expect(u.obj.metadata?.generation).toBe(2);
    expect(created(podTemplateStrategy, pt({ spec: { containers: [{ name: "c" }] } })).errs).toContain("template.spec.containers[0].image: Required value");
  });
});

describe("LimitRanges", () => {
  const lr = (limits: unknown[]): KubeObject => ({ apiVersion: "v1", kind: "LimitRange", metadata: { name: "l", namespace: "default" }, spec: { limits } });
  it("defaults container limits from max and requests from them (SetDefaults_LimitRangeItem)", () => {
    const { obj, errs } = created(limitRangeStrategy, lr([{ type: "Container", max: { cpu: "2" }, min: { memory: "64Mi" } }]));
    expect(errs).toEqual([]);
    expect((obj.spec as { limits: unknown[] }).limits[0]).toEqual({
      type: "Container",
      max: { cpu: "2" },
      min: { memory: "64Mi" },
      default: { cpu: "2" },
      defaultRequest: { cpu: "2", memory: "64Mi" },
    });
  });
  it.each<[string, unknown[], string[]]>([
    [
      "min above max (the defaults filled from max then disagree too)",
      [{ type: "Container", min: { cpu: "2" }, max: { cpu: "1" } }],
      [
        'spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1',
        'spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1',
        'spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1',
      ],
    ],
    ["pod defaults", [{ type: "Pod", default: { cpu: "1" } }], ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]],
    ["duplicate types", [{ type: "Pod" }, { type: "Pod" }], ['spec.limits[1].type: Duplicate value: "Pod"']],
    [
      "pvc without storage bounds",
      [{ type: "PersistentVolumeClaim", max: { cpu: "1" } }],
      ["spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided"],
    ],
    ["ratio below 1", [{ type: "Container", maxLimitRequestRatio: { cpu: "500m" } }], ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']],
  ])("%s", (_name, limits, want) => {
    expect(created(limitRangeStrategy, lr(limits)).errs).toEqual(want);
  });
});

describe("ResourceQuotas", () => {
  const rq = (spec: Spec): KubeObject => ({ apiVersion: "v1", kind: "ResourceQuota", metadata: { name: "q", namespace: "default" }, spec });
  it.each<[string, Spec, string[]]>([
    ["valid", { hard: { pods: "10", "requests.cpu": "4", "count/deployments.apps": "5" } }, []],
    ["unknown resource", { hard: { widgets: "1" } }, ['spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota']],
    ["negative", { hard: { cpu: "-1" } }, ['spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0']],
    ["fractional pods", { hard: { pods: "1.5" } }, ['spec.hard[pods]: Invalid value: "1.5": must be an integer']],
    ["conflicting scopes", { hard: { pods: "1" }, scopes: ["BestEffort", "NotBestEffort"] }, ['spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes']],
  ])("%s", (_name, spec, want) => {
    expect(created(resourceQuotaStrategy, rq(spec)).errs).toEqual(want);
  });
  it("leaves the status to the quota controller", () => {
    const obj = rq({ hard: { pods: "1" } });
    obj.status = { hard: { pods: "1" }, used: { pods: "0" } };
    expect(created(resourceQuotaStrategy, obj).obj.status).toEqual({});
  });
});
