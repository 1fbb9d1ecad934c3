/**
 * apps/v1 StatefulSets, DaemonSets and ControllerRevisions: defaults (apps/v1 defaults_test.go),
 * validation (apps/validation's TestValidateStatefulSet, TestValidateStatefulSetUpdate,
 * TestValidateDaemonSet*, TestValidateControllerRevision*), generations and the template
 * generation annotation of DaemonSets.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { controllerRevisionStrategy } from "./controllerrevisions.js";
import { daemonSetStrategy, templateGenerationAnnotation } from "./daemonsets.js";
import { statefulSetStrategy } from "./statefulsets.js";
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

const template = (labels: Record<string, string> = { app: "db" }) => ({
  metadata: { labels },
  spec: { containers: [{ name: "c", image: "postgres:16" }] },
});

const sts = (spec: Record<string, unknown> = {}, name = "db"): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "StatefulSet",
  metadata: { name, namespace: "default" },
  spec: { selector: { matchLabels: { app: "db" } }, template: template(), serviceName: "db", ...spec },
});

type Spec = Record<string, unknown>;
const spec = (o: KubeObject) => o.spec as Spec;

describe("StatefulSet defaults (SetDefaults_StatefulSet)", () => {
  it("fills the policies, replicas and history, and PVC template defaults", () => {
    const { obj, errs } = created(
      statefulSetStrategy,
      sts({ volumeClaimTemplates: [{ metadata: { name: "data" }, spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } } }] }),
    );
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0, maxUnavailable: 1 } },
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
      replicas: 1,
      revisionHistoryLimit: 10,
      template: { spec: { restartPolicy: "Always", dnsPolicy: "ClusterFirst" } },
      volumeClaimTemplates: [{ spec: { volumeMode: "Filesystem" } }],
    });
    expect(obj.metadata?.generation).toBe(1);
    expect(obj.status).toEqual({ replicas: 0, availableReplicas: 0 });
  });
  it("leaves OnDelete without rollingUpdate", () => {
    const { obj } = created(statefulSetStrategy, sts({ updateStrategy: { type: "OnDelete" } }));
    expect(spec(obj).updateStrategy).toEqual({ type: "OnDelete" });
  });
});

describe("StatefulSet validation (TestValidateStatefulSet)", () => {
  it.each<[string, KubeObject, string[]]>([
    // Pods are named after the set: the name is a DNS label (1.35's message for dots).
    ["name must be a DNS label", sts({}, "db.primary"), ['metadata.name: Invalid value: "db.primary": must not contain dots']],
    [
      "selector required (a nil selector also matches no template)",
      sts({ selector: undefined }),
      ["spec.selector: Required value", 'spec.template.metadata.labels: Invalid value: {"app":"db"}: `selector` does not match template `labels`'],
    ],
    ["empty selector", sts({ selector: {} }), ["spec.selector: Invalid value: {}: empty selector is invalid for statefulset"]],
    [
      "selector must match the template",
      sts({ template: template({ app: "web" }) }),
      ['spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`'],
    ],
    ["negative replicas", sts({ replicas: -1 }), ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"]],
    ["bad podManagementPolicy", sts({ podManagementPolicy: "Random" }), ['spec.podManagementPolicy: Invalid value: "Random": must be \'OrderedReady\' or \'Parallel\'']],
    [
      "rollingUpdate with OnDelete",
      sts({ updateStrategy: { type: "OnDelete", rollingUpdate: { partition: 1 } } }),
      ['spec.updateStrategy.rollingUpdate: Invalid value: {"partition":1}: only allowed for updateStrategy \'RollingUpdate\''],
    ],
    ["negative partition", sts({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: -1 } } }), ["spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"]],
    ["maxUnavailable 0", sts({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0 } } }), ["spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"]],
    [
      "maxUnavailable over 100%",
      sts({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "101%" } } }),
      ['spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%'],
    ],
    [
      "unknown PVC retention policy",
      sts({ persistentVolumeClaimRetentionPolicy: { whenDeleted: "Keep", whenScaled: "Retain" } }),
      ['spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"'],
    ],
    ["negative ordinals.start", sts({ ordinals: { start: -1 } }), ["spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"]],
  ])("%s", (_name, obj, want) => {
    expect(created(statefulSetStrategy, obj).errs).toEqual(want);
  });

  it("requires restartPolicy Always", () => {
    const o = sts();
    (o.spec as { template: { spec: Spec } }).template.spec.restartPolicy = "OnFailure";
    expect(created(statefulSetStrategy, o).errs).toEqual(['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']);
  });
});

describe("StatefulSet updates (TestValidateStatefulSetUpdate)", () => {
  const base = () => created(statefulSetStrategy, sts()).obj;
  it("allows replicas, template, updateStrategy, minReadySeconds and retention changes", () => {
    const { obj, errs } = updated(statefulSetStrategy, base(), (o) => {
      Object.assign(o.spec as object, { replicas: 3, minReadySeconds: 5, updateStrategy: { type: "OnDelete" } });
      (o.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = "postgres:17";
    });
    expect(errs).toEqual([]);
    expect(obj.metadata?.generation).toBe(2);
  });
  it("forbids the rest", () => {
    expect(updated(statefulSetStrategy, base(), (o) => ((o.spec as Spec).serviceName = "other")).errs).toEqual([
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });
  it("validates the status and keeps collisionCount from going down", () => {
    const old = base();
    old.status = { replicas: 2, collisionCount: 2 };
    const obj = structuredClone(old);
    obj.metadata = { ...obj.metadata, resourceVersion: "1" };
    obj.status = { replicas: 1, readyReplicas: 2, collisionCount: 1 };
    statefulSetStrategy.prepareForStatusUpdate(obj, old);
    expect(statefulSetStrategy.validateStatusUpdate(obj, old).map(String)).toEqual([
      "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
      "status.collisionCount: Invalid value: 1: cannot be decremented",
    ]);
  });
});

const ds = (specPatch: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name: "agent", namespace: "kube-system" },
  spec: { selector: { matchLabels: { app: "db" } }, template: template(), ...specPatch },
});

describe("DaemonSets", () => {
  it("defaults RollingUpdate 1/0 and history 10, template generation 1 (SetDefaults_DaemonSet)", () => {
    const { obj, errs } = created(daemonSetStrategy, ds());
    expect(errs).toEqual([]);
    expect(obj.spec).toMatchObject({ updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, revisionHistoryLimit: 10 });
    expect(obj.metadata?.annotations?.[templateGenerationAnnotation]).toBe("1");
    expect(obj.status).toEqual({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 });
  });

  it.each<[string, Record<string, unknown>, string[]]>([
    ["selector must match", { template: template({ app: "x" }) }, ['spec.template.metadata.labels: Invalid value: {"app":"x"}: `selector` does not match template `labels`']],
    ["empty selector", { selector: {} }, ["spec.selector: Invalid value: {}: empty selector is invalid for daemonset"]],
    [
      "maxSurge and maxUnavailable both set",
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } },
      ["spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: 1: may not be set when maxUnavailable is non-zero"],
    ],
    [
      "both zero",
      { updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } },
      ["spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"],
    ],
    ["unknown strategy", { updateStrategy: { type: "Blue" } }, ['spec.updateStrategy: Unsupported value: {"type":"Blue"}: supported values: "RollingUpdate", "OnDelete"']],
  ])("validation: %s", (_name, patch, want) => {
    expect(created(daemonSetStrategy, ds(patch)).errs).toEqual(want);
  });

  it("moves the template generation on template changes only, ignoring the client's value", () => {
    const old = created(daemonSetStrategy, ds()).obj;
    const a = updated(daemonSetStrategy, old, (o) => {
      (o.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0].image = "x";
      o.metadata!.annotations = { [templateGenerationAnnotation]: "9" };
    });
    expect(a.errs).toEqual([]);
    expect(a.obj.metadata?.annotations?.[templateGenerationAnnotation]).toBe("2");
    expect(a.obj.metadata?.generation).toBe(2);
    const b = updated(daemonSetStrategy, old, (o) => ((o.spec as Spec).minReadySeconds = 3));
    expect(b.obj.metadata?.annotations?.[templateGenerationAnnotation]).toBe("1");
    expect(b.obj.metadata?.generation).toBe(2);
  });
});

describe("ControllerRevisions", () => {
  const rev = (extra: Record<string, unknown>): KubeObject => ({ apiVersion: "apps/v1", kind: "ControllerRevision", metadata: { name: "r", namespace: "default" }, ...extra });
  it("requires data and a non-negative revision; data is immutable", () => {
    expect(created(controllerRevisionStrategy, rev({ revision: -1 })).errs).toEqual([
      "data: Required value: data is mandatory",
      "revision: Invalid value: -1: must be greater than or equal to 0",
    ]);
    const old = created(controllerRevisionStrategy, rev({ data: { spec: 1 }, revision: 1 })).obj;
    expect(updated(controllerRevisionStrategy, old, (o) => (o.revision = 2)).errs).toEqual([]);
    expect(updated(controllerRevisionStrategy, old, (o) => (o.data = { spec: 2 })).errs).toEqual(['data: Invalid value: {"spec":2}: field is immutable']);
  });
});
