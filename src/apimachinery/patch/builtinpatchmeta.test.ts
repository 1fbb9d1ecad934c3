import { describe, expect, it } from "vitest";
import { builtinPatchTypes, patchMetaForKind, patchMetaForType, rootTypeForKind } from "./builtinpatchmeta.js";
import { applyStrategicMergePatch, createTwoWayMergePatch } from "./strategicpatch.js";

describe("rootTypeForKind", () => {
  const table: [string, string, string, string | undefined][] = [
    ["apps", "v1", "Deployment", "io.k8s.api.apps.v1.Deployment"],
    ["", "v1", "Pod", "io.k8s.api.core.v1.Pod"],
    ["", "v1", "ConfigMap", "io.k8s.api.core.v1.ConfigMap"],
    ["batch", "v1", "CronJob", "io.k8s.api.batch.v1.CronJob"],
    ["rbac.authorization.k8s.io", "v1", "ClusterRole", "io.k8s.api.rbac.v1.ClusterRole"],
    ["networking.k8s.io", "v1", "Ingress", "io.k8s.api.networking.v1.Ingress"],
    ["coordination.k8s.io", "v1", "Lease", "io.k8s.api.coordination.v1.Lease"],
    ["apiextensions.k8s.io", "v1", "CustomResourceDefinition", "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition"],
    ["apiregistration.k8s.io", "v1", "APIService", "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.APIService"],
    ["flowcontrol.apiserver.k8s.io", "v1", "FlowSchema", "io.k8s.api.flowcontrol.v1.FlowSchema"],
    ["autoscaling", "v2", "HorizontalPodAutoscaler", "io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler"],
    ["resource.k8s.io", "v1", "ResourceClaim", "io.k8s.api.resource.v1.ResourceClaim"],
    ["admissionregistration.k8s.io", "v1", "MutatingAdmissionPolicy", "io.k8s.api.admissionregistration.v1.MutatingAdmissionPolicy"],
    // Every group version of the 1.36 API is in the table, served by default or not.
    ["apps", "v1beta1", "Deployment", "io.k8s.api.apps.v1beta1.Deployment"],
    ["example.com", "v1", "Widget", undefined],
    ["apps", "v1", "Widget", undefined],
    ["", "v1", "Status", undefined],
  ];
  for (const [group, version, kind, want] of table) {
    it(`${group || "core"}/${version} ${kind}`, () => expect(rootTypeForKind(group, version, kind)).toBe(want));
  }
});

describe("builtinPatchTypes", () => {
  it("records the upstream struct tags", () => {
    const core = "io.k8s.api.core.v1.";
    const tags: [string, string, string | undefined, string | undefined][] = [
      ["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "ownerReferences", "merge", "uid"],
      ["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "finalizers", "merge", undefined],
      [`${core}PodSpec`, "containers", "merge", "name"],
      [`${core}PodSpec`, "initContainers", "merge", "name"],
      [`${core}PodSpec`, "ephemeralContainers", "merge", "name"],
      [`${core}PodSpec`, "volumes", "merge,retainKeys", "name"],
      [`${core}PodSpec`, "imagePullSecrets", "merge", "name"],
      [`${core}PodSpec`, "hostAliases", "merge", "ip"],
      [`${core}PodSpec`, "topologySpreadConstraints", "merge", "topologyKey"],
      [`${core}PodSpec`, "schedulingGates", "merge", "name"],
      [`${core}PodSpec`, "resourceClaims", "merge,retainKeys", "name"],
      [`${core}Container`, "ports", "merge", "containerPort"],
      [`${core}Container`, "env", "merge", "name"],
      [`${core}Container`, "volumeMounts", "merge", "mountPath"],
      [`${core}Container`, "volumeDevices", "merge", "devicePath"],
      [`${core}PodStatus`, "conditions", "merge", "type"],
      [`${core}PodStatus`, "podIPs", "merge", "ip"],
      [`${core}ServiceSpec`, "ports", "merge", "port"],
      [`${core}NodeStatus`, "addresses", "merge", "type"],
      [`${core}NodeSpec`, "podCIDRs", "merge", undefined],
      [`${core}ServiceAccount`, "secrets", "merge", "name"],
      ["io.k8s.api.apps.v1.DeploymentSpec", "strategy", "retainKeys", undefined],
      ["io.k8s.api.apps.v1.DeploymentStatus", "conditions", "merge", "type"],
      ["io.k8s.api.batch.v1.JobStatus", "conditions", "merge", "type"],
      ["io.k8s.api.storage.v1.CSINodeSpec", "drivers", "merge", "name"],
      ["io.k8s.api.core.v1.PodSpec", "resourceClaims", "merge,retainKeys", "name"],
      ["io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps", "x-kubernetes-validations", "merge", "rule"],
      ["io.k8s.api.admissionregistration.v1.ValidatingWebhook", "matchConditions", "merge", "name"],
      ["io.k8s.api.admissionregistration.v1.ValidatingWebhookConfiguration", "webhooks", "merge", "name"],
      ["io.k8s.api.admissionregistration.v1.MutatingWebhook", "matchConditions", "merge", "name"],
      ["io.k8s.api.admissionregistration.v1.ValidatingAdmissionPolicySpec", "variables", "merge", "name"],
      ["io.k8s.api.flowcontrol.v1.FlowSchemaStatus", "conditions", "merge", "type"],
      ["io.k8s.api.resource.v1.ResourceClaimStatus", "reservedFor", "merge", "uid"],
    ];
    for (const [type, field, strategy, key] of tags) {
      const entry = builtinPatchTypes[type]?.[field];
      expect(entry, `${type}.${field}`).toBeDefined();
      expect(entry?.patchStrategy, `${type}.${field}`).toBe(strategy);
      expect(entry?.patchMergeKey, `${type}.${field}`).toBe(key);
    }
  });

  it("has no patch strategy where upstream has none", () => {
    expect(builtinPatchTypes["io.k8s.api.core.v1.PodSpec"].tolerations).toBeUndefined();
    expect(builtinPatchTypes["io.k8s.api.core.v1.Container"].envFrom).toBeUndefined();
    expect(builtinPatchTypes["io.k8s.api.rbac.v1.ClusterRole"].rules).toBeUndefined();
  });

  it("only references types that are in the table, and every kind root has metadata", () => {
    for (const [type, fields] of Object.entries(builtinPatchTypes)) {
      for (const [field, info] of Object.entries(fields)) {
        if (info.type !== undefined) expect(builtinPatchTypes[info.type], `${type}.${field} → ${info.type}`).toBeDefined();
        if (info.patchMergeKey !== undefined) expect(info.patchStrategy ?? "").toContain("merge");
      }
    }
    expect(builtinPatchTypes["io.k8s.api.core.v1.ConfigMap"].metadata.type).toBe("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta");
  });

  it("is frozen", () => {
    expect(Object.isFrozen(builtinPatchTypes)).toBe(true);
    expect(Object.isFrozen(builtinPatchTypes["io.k8s.api.core.v1.PodSpec"])).toBe(true);
  });
});

describe("patchMetaForKind", () => {
  it("builds the nested tree (lists under items, structs under fields) and caches it", () => {
    const meta = patchMetaForKind("apps", "v1", "Deployment")!;
    const containers = meta.fields!.spec.fields!.template.fields!.spec.fields!.containers;
    expect(containers.patchStrategy).toBe("merge");
    expect(containers.patchMergeKey).toBe("name");
    expect(containers.items!.fields!.env).toEqual({ patchStrategy: "merge", patchMergeKey: "name" });
    expect(meta.fields!.metadata.fields!.ownerReferences.patchMergeKey).toBe("uid");
    expect(meta.fields!.spec.fields!.strategy.patchStrategy).toBe("retainKeys");
    expect(patchMetaForKind("apps", "v1", "Deployment")).toBe(meta);
    expect(Object.isFrozen(meta)).toBe(true);
  });

  it("returns undefined for custom resources", () => {
    expect(patchMetaForKind("example.com", "v1", "Widget")).toBeUndefined();
  });

  it("gives types without entries an empty field set", () => {
    expect(patchMetaForType("io.k8s.api.core.v1.Toleration")).toEqual({ fields: {} });
  });
});

const deployment = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: {
    name: "web",
    finalizers: ["a"],
    ownerReferences: [{ apiVersion: "v1", kind: "X", name: "o", uid: "u1" }],
  },
  spec: {
    replicas: 1,
    strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: "web" } },
      spec: {
        containers: [
          {
            name: "app",
            image: "nginx:1",
            env: [
              { name: "A", value: "1" },
              { name: "B", value: "2" },
            ],
            ports: [{ containerPort: 80 }],
          },
          { name: "sidecar", image: "busybox" },
        ],
        volumes: [{ name: "data", emptyDir: {} }],
        tolerations: [{ key: "k1", operator: "Exists" }],
      },
    },
  },
};

describe("strategic merge patch of built-in kinds", () => {
  const meta = patchMetaForKind("apps", "v1", "Deployment")!;

  it("kubectl set image: merges containers by name", () => {
    const patch = { spec: { template: { spec: { containers: [{ name: "app", image: "nginx:2" }] } } } };
    const out = applyStrategicMergePatch(deployment, patch, meta) as typeof deployment;
    expect(out.spec.template.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ["app", "nginx:2"],
      ["sidecar", "busybox"],
    ]);
    expect(out.spec.template.spec.containers[0].env).toEqual(deployment.spec.template.spec.containers[0].env);
  });

  it("merges env by name and ports by containerPort inside a container", () => {
    const patch = {
      spec: { template: { spec: { containers: [{ name: "app", env: [{ name: "B", value: "3" }, { name: "C", value: "4" }], ports: [{ containerPort: 443 }] }] } } },
    };
    const out = applyStrategicMergePatch(deployment, patch, meta) as typeof deployment;
    expect(out.spec.template.spec.containers[0].env).toEqual([
      { name: "A", value: "1" },
      { name: "B", value: "3" },
      { name: "C", value: "4" },
    ]);
    // Without $setElementOrder, upstream places patch elements not in the live list first.
    expect(out.spec.template.spec.containers[0].ports).toEqual([{ containerPort: 443 }, { containerPort: 80 }]);
  });

  it("replaces tolerations (no patch strategy upstream)", () => {
    const patch = { spec: { template: { spec: { tolerations: [{ key: "k2", operator: "Exists" }] } } } };
    const out = applyStrategicMergePatch(deployment, patch, meta) as typeof deployment;
    expect(out.spec.template.spec.tolerations).toEqual([{ key: "k2", operator: "Exists" }]);
  });

  it("switches a volume source with $retainKeys (volumes are merge,retainKeys)", () => {
    const patch = { spec: { template: { spec: { volumes: [{ name: "data", $retainKeys: ["configMap", "name"], configMap: { name: "cm" } }] } } } };
    const out = applyStrategicMergePatch(deployment, patch, meta) as typeof deployment;
    expect(out.spec.template.spec.volumes).toEqual([{ name: "data", configMap: { name: "cm" } }]);
  });

  it("switches the rollout strategy with $retainKeys (strategy is retainKeys)", () => {
    const patch = { spec: { strategy: { $retainKeys: ["type"], type: "Recreate" } } };
    const out = applyStrategicMergePatch(deployment, patch, meta) as typeof deployment;
    expect(out.spec.strategy).toEqual({ type: "Recreate" });
  });

  it("adds finalizers as a set and removes them with $deleteFromPrimitiveList", () => {
    const added = applyStrategicMergePatch(deployment, { metadata: { finalizers: ["b", "a"] } }, meta) as typeof deployment;
    expect(added.metadata.finalizers).toEqual(["b", "a"]);
    const removed = applyStrategicMergePatch(deployment, { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } }, meta) as typeof deployment;
    expect(removed.metadata.finalizers).toEqual([]);
  });

  it("merges ownerReferences by uid", () => {
    const patch = { metadata: { ownerReferences: [{ apiVersion: "v1", kind: "Y", name: "p", uid: "u2" }] } };
    const out = applyStrategicMergePatch(deployment, patch, meta) as typeof deployment;
    expect(out.metadata.ownerReferences.map((r) => r.uid)).toEqual(["u2", "u1"]);
    const ordered = applyStrategicMergePatch(deployment, { metadata: { ...patch.metadata, "$setElementOrder/ownerReferences": [{ uid: "u1" }, { uid: "u2" }] } }, meta);
    expect((ordered.metadata as typeof deployment.metadata).ownerReferences.map((r) => r.uid)).toEqual(["u1", "u2"]);
  });

  it("kubectl rollout pause / resume / restart", () => {
    const paused = applyStrategicMergePatch(deployment, { spec: { paused: true } }, meta);
    expect((paused.spec as { paused: boolean }).paused).toBe(true);
    const resumed = applyStrategicMergePatch(paused, { spec: { paused: null } }, meta);
    expect("paused" in (resumed.spec as object)).toBe(false);
    const restarted = applyStrategicMergePatch(
      deployment,
      { spec: { template: { metadata: { annotations: { "kubectl.kubernetes.io/restartedAt": "2024-01-01T00:00:00Z" } } } } },
      meta,
    ) as typeof deployment & { spec: { template: { metadata: { annotations: Record<string, string> } } } };
    expect(restarted.spec.template.metadata).toEqual({ labels: { app: "web" }, annotations: { "kubectl.kubernetes.io/restartedAt": "2024-01-01T00:00:00Z" } });
  });

  it("round-trips createTwoWayMergePatch on a realistic edit", () => {
    const modified = structuredClone(deployment) as typeof deployment;
    modified.spec.replicas = 3;
    modified.spec.template.spec.containers.reverse();
    modified.spec.template.spec.containers[1].env = [{ name: "B", value: "2" }, { name: "Z", value: "9" }];
    modified.spec.template.spec.volumes = [];
    const patch = createTwoWayMergePatch(deployment, modified, meta);
    expect(applyStrategicMergePatch(deployment, patch, meta)).toEqual(modified);
  });
});

describe("strategic merge patch of Pod status and Node status", () => {
  it("merges pod conditions by type", () => {
    const meta = patchMetaForKind("", "v1", "Pod")!;
    const pod = { status: { conditions: [{ type: "Ready", status: "False" }, { type: "PodScheduled", status: "True" }] } };
    const out = applyStrategicMergePatch(pod, { status: { conditions: [{ type: "Ready", status: "True" }] } }, meta);
    expect(out).toEqual({ status: { conditions: [{ type: "Ready", status: "True" }, { type: "PodScheduled", status: "True" }] } });
  });

  it("merges node addresses by type", () => {
    const meta = patchMetaForKind("", "v1", "Node")!;
    const node = { status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }, { type: "Hostname", address: "n1" }] } };
    const out = applyStrategicMergePatch(node, { status: { addresses: [{ type: "InternalIP", address: "10.0.0.2" }] } }, meta);
    expect(out).toEqual({ status: { addresses: [{ type: "InternalIP", address: "10.0.0.2" }, { type: "Hostname", address: "n1" }] } });
  });
});
