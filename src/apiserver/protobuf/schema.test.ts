import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { protobufSchemas } from "./index.js";
import { SchemaRegistry } from "./schema.js";
import { KINDS, MESSAGES } from "./schemas/index.js";

/** The generator's input (shared/k8s-api-1.36 beside the repository, as on CI), if present. */
const k8sApi = [join("..", "shared", "k8s-api-1.36"), join("..", "..", "shared", "k8s-api-1.36")].find((d) =>
  existsSync(join(d, "api", "core", "v1", "generated.proto")),
);

describe("generated tables", () => {
  it.skipIf(k8sApi === undefined)("are what scripts/protobuf/generate.mjs writes from generated.proto (--check)", () => {
    const out = execFileSync(process.execPath, ["scripts/protobuf/generate.mjs", "--check", "--input", k8sApi!], { encoding: "utf8" });
    expect(out).toContain("up to date");
  });

  it("cover every group/version of Kubernetes 1.36, stable and pre-release", () => {
    for (const gv of ["v1", "apps/v1", "batch/v1", "autoscaling/v2", "resource.k8s.io/v1", "resource.k8s.io/v1beta2",
      "apiregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "storagemigration.k8s.io/v1beta1", "flowcontrol.apiserver.k8s.io/v1",
      "admissionregistration.k8s.io/v1alpha1", "coordination.k8s.io/v1alpha2"]) {
      expect(Object.keys(KINDS[gv] ?? {}).length, gv).toBeGreaterThan(0);
    }
    expect(KINDS["apiregistration.k8s.io/v1"]).toMatchObject({ APIService: "apiregistration/v1.APIService" });
  });

  it("compile: every type names a scalar, a special type or a known message", () => {
    const reg = new SchemaRegistry(MESSAGES, KINDS);
    for (const name of Object.keys(MESSAGES)) {
      const msg = reg.message(name);
      // Field numbers are unique within a message.
      expect(new Set(msg.fields.map((f) => f.number)).size).toBe(msg.fields.length);
      for (const f of msg.fields) {
        if (f.inline) expect(f.type.kind).toBe("message");
        expect(f.number).toBeGreaterThan(0);
      }
    }
    for (const byKind of Object.values(KINDS)) for (const m of Object.values(byKind)) expect(reg.has(m)).toBe(true);
  });

  it("serve the kinds kubectl and helm send", () => {
    const reg = protobufSchemas();
    const required: [string, string[]][] = [
      ["v1", ["Namespace", "ConfigMap", "Secret", "ServiceAccount", "Service", "Pod", "Endpoints", "Event", "Node", "ResourceQuota", "DeleteOptions"]],
      ["apps/v1", ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "DeleteOptions"]],
      ["batch/v1", ["Job", "CronJob"]],
      ["rbac.authorization.k8s.io/v1", ["Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"]],
      ["authorization.k8s.io/v1", ["SelfSubjectAccessReview", "SubjectAccessReview", "SelfSubjectRulesReview", "LocalSubjectAccessReview"]],
      ["authentication.k8s.io/v1", ["TokenRequest", "SelfSubjectReview", "TokenReview"]],
      ["coordination.k8s.io/v1", ["Lease"]],
      ["autoscaling/v1", ["Scale", "HorizontalPodAutoscaler"]],
      ["policy/v1", ["PodDisruptionBudget", "Eviction"]],
      ["scheduling.k8s.io/v1", ["PriorityClass"]],
      ["apiextensions.k8s.io/v1", ["CustomResourceDefinition"]],
      ["meta.k8s.io/v1", ["DeleteOptions"]],
    ];
    for (const [apiVersion, kinds] of required) {
      for (const kind of kinds) expect(reg.lookupKind(apiVersion, kind), `${apiVersion} ${kind}`).toBeDefined();
    }
  });

  it("agree with upstream generated.proto field numbers (spot checks)", () => {
    // From staging/src/k8s.io/api/apps/v1/generated.proto and meta/v1/generated.proto.
    const numbers = (m: string) => Object.fromEntries(MESSAGES[m].map(([n, json]) => [json, n]));
    expect(numbers("apps/v1.StatefulSetSpec")).toEqual({
      replicas: 1, selector: 2, template: 3, volumeClaimTemplates: 4, serviceName: 5, podManagementPolicy: 6,
      updateStrategy: 7, revisionHistoryLimit: 8, minReadySeconds: 9, persistentVolumeClaimRetentionPolicy: 10, ordinals: 11,
    });
    expect(numbers("meta/v1.ObjectMeta")).toMatchObject({
      name: 1, generateName: 2, namespace: 3, uid: 5, resourceVersion: 6, generation: 7, creationTimestamp: 8,
      deletionTimestamp: 9, labels: 11, annotations: 12, ownerReferences: 13, finalizers: 14, managedFields: 17,
    });
    expect(numbers("apps/v1.DeploymentStatus")).toMatchObject({ terminatingReplicas: 9, collisionCount: 8, conditions: 6 });
    expect(numbers("core/v1.PodSpec")).toMatchObject({ containers: 2, nodeSelector: 7, hostNetwork: 11, priority: 25, os: 36 });
  });

  it("carry Go pointer and omitempty facts", () => {
    const flags = (m: string, json: string) => MESSAGES[m].find((f) => f[1] === json)?.[3];
    expect(flags("apps/v1.DeploymentSpec", "replicas")).toContain("p");
    expect(flags("apps/v1.DeploymentSpec", "minReadySeconds")).not.toContain("p");
    expect(flags("core/v1.PodSpec", "hostNetwork")).toBe("o");
    expect(flags("core/v1.ContainerPort", "containerPort")).toBe("");
    expect(flags("meta/v1.ObjectMeta", "creationTimestamp")).toContain("z");
  });
});
