import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../apimachinery/types.js";
import { deploymentStrategy } from "./deployments.js";
import { replicaSetStrategy } from "./replicasets.js";

function deployment(): KubeObject {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "web", namespace: "default" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "nginx", image: "nginx:1.27" }] } },
    },
  };
}

/** Defaults and create-preparation, as the handler would run them. */
function created(obj: KubeObject, s = deploymentStrategy): KubeObject {
  s.defaults(obj);
  s.prepareForCreate(obj);
  return obj;
}

type Mutate = (o: KubeObject & { spec: Record<string, unknown> & { template: { metadata: Record<string, unknown>; spec: Record<string, unknown> } } }) => void;

describe("Deployment defaults", () => {
  it("fills upstream's defaults", () => {
    const d = created(deployment());
    expect(d.spec).toMatchObject({
      replicas: 1,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: {
        spec: {
          restartPolicy: "Always",
          dnsPolicy: "ClusterFirst",
          terminationGracePeriodSeconds: 30,
          schedulerName: "default-scheduler",
          securityContext: {},
          containers: [
            {
              name: "nginx",
              imagePullPolicy: "IfNotPresent",
              terminationMessagePath: "/dev/termination-log",
              terminationMessagePolicy: "File",
              resources: {},
            },
          ],
        },
      },
    });
    // Templates do not get the pod-only defaults.
    expect((d.spec as { template: { spec: Record<string, unknown> } }).template.spec.enableServiceLinks).toBeUndefined();
    expect(d.metadata?.generation).toBe(1);
    expect(d.status).toEqual({});
  });
  it("does not add rollingUpdate to Recreate", () => {
    const d = deployment();
    (d.spec as Record<string, unknown>).strategy = { type: "Recreate" };
    created(d);
    expect((d.spec as { strategy: unknown }).strategy).toEqual({ type: "Recreate" });
  });
});

describe("Deployment validation", () => {
  const cases: { name: string; mutate: Mutate; want: string[] }[] = [
    { name: "valid", mutate: () => {}, want: [] },
    { name: "negative replicas", mutate: (d) => (d.spec.replicas = -1), want: ["spec.replicas: Invalid value: -1: must be greater than or equal to 0"] },
    {
      name: "selector required",
      mutate: (d) => delete d.spec.selector,
      want: ["spec.selector: Required value", "spec.template.metadata.labels: Invalid value: {\"app\":\"web\"}: `selector` does not match template `labels`"],
    },
    {
      name: "empty selector",
      mutate: (d) => (d.spec.selector = {}),
      want: ["spec.selector: Invalid value: {}: empty selector is invalid for deployment"],
    },
    {
      name: "selector does not match",
      mutate: (d) => (d.spec.template.metadata.labels = { app: "other" }),
      want: ["spec.template.metadata.labels: Invalid value: {\"app\":\"other\"}: `selector` does not match template `labels`"],
    },
    {
      name: "restartPolicy must be Always",
      mutate: (d) => (d.spec.template.spec.restartPolicy = "Never"),
      want: ['spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'],
    },
    {
      name: "both surge and unavailable zero",
      mutate: (d) => (d.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: "0%" } }),
      want: ["spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0"],
    },
    {
      name: "bad percent and over 100%",
      mutate: (d) => (d.spec.strategy = { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "150%", maxSurge: "x" } }),
      want: [
        "spec.strategy.rollingUpdate.maxSurge: Invalid value: \"x\": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "150%": must not be greater than 100%',
      ],
    },
    {
      name: "rollingUpdate with Recreate",
      mutate: (d) => (d.spec.strategy = { type: "Recreate", rollingUpdate: {} }),
      want: ["spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"],
    },
    {
      name: "unknown strategy type",
      mutate: (d) => (d.spec.strategy = { type: "BlueGreen" }),
      want: ['spec.strategy: Unsupported value: {"type":"BlueGreen"}: supported values: "Recreate", "RollingUpdate"'],
    },
    {
      name: "negative revisionHistoryLimit",
      mutate: (d) => (d.spec.revisionHistoryLimit = -1),
      want: ["spec.revisionHistoryLimit: Invalid value: -1: must be greater than or equal to 0"],
    },
    {
      name: "progress deadline not above minReadySeconds",
      mutate: (d) => {
        d.spec.minReadySeconds = 10;
        d.spec.progressDeadlineSeconds = 10;
      },
      want: ["spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds"],
    },
    {
      name: "containers required",
      mutate: (d) => (d.spec.template.spec.containers = []),
      want: ["spec.template.spec.containers: Required value"],
    },
    {
      name: "container image required and duplicate names",
      mutate: (d) => {
        const c = { imagePullPolicy: "Always", terminationMessagePolicy: "File" };
        d.spec.template.spec.containers = [{ name: "a", image: "x", ...c }, { name: "a", ...c }];
      },
      want: ["spec.template.spec.containers[1].image: Required value", 'spec.template.spec.containers[1].name: Duplicate value: "a"'],
    },
    {
      name: "activeDeadlineSeconds forbidden",
      mutate: (d) => (d.spec.template.spec.activeDeadlineSeconds = 5),
      want: ["spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = deployment();
      deploymentStrategy.defaults(d);
      c.mutate(d as Parameters<Mutate>[0]);
      deploymentStrategy.prepareForCreate(d);
      expect(deploymentStrategy.validate(d).map(String)).toEqual(c.want);
    });
  }
});

function stored(): KubeObject {
  const d = created(deployment());
  const meta = d.metadata as Record<string, unknown>;
  meta.resourceVersion = "10";
  meta.uid = "uid-1";
  d.status = { replicas: 1, observedGeneration: 1 };
  return d;
}

describe("Deployment updates", () => {
  it("keeps status, bumps generation on spec change", () => {
    const old = stored();
    const n = structuredClone(old);
    (n.spec as Record<string, unknown>).replicas = 3;
    n.status = { replicas: 99 };
    (n.metadata as Record<string, unknown>).generation = 42;
    deploymentStrategy.defaults(n);
    deploymentStrategy.prepareForUpdate(n, old);
    expect(n.metadata?.generation).toBe(2);
    expect(n.status).toEqual({ replicas: 1, observedGeneration: 1 });
    expect(deploymentStrategy.validateUpdate(n, old)).toEqual([]);
  });
  it("bumps generation on annotation change, not on label change", () => {
    const old = stored();
    const a = structuredClone(old);
    a.metadata = { ...a.metadata, annotations: { note: "x" } };
    deploymentStrategy.prepareForUpdate(a, old);
    expect(a.metadata?.generation).toBe(2);
    const l = structuredClone(old);
    l.metadata = { ...l.metadata, labels: { x: "y" } };
    deploymentStrategy.prepareForUpdate(l, old);
    expect(l.metadata?.generation).toBe(1);
  });
  it("selector is immutable", () => {
    const old = stored();
    const n = structuredClone(old);
    const spec = n.spec as { selector: unknown; template: { metadata: { labels: unknown } } };
    spec.selector = { matchLabels: { app: "web2" } };
    spec.template.metadata.labels = { app: "web2" };
    deploymentStrategy.prepareForUpdate(n, old);
    expect(deploymentStrategy.validateUpdate(n, old).map(String)).toEqual([
      'spec.selector: Invalid value: {"matchLabels":{"app":"web2"}}: field is immutable',
    ]);
  });
  it("status update keeps spec and labels, validates counts", () => {
    const old = stored();
    old.metadata = { ...old.metadata, labels: { a: "b" } };
    const n = structuredClone(old);
    (n.spec as Record<string, unknown>).replicas = 7;
    n.metadata = { ...n.metadata, labels: { changed: "yes" }, annotations: { ok: "1" } };
    n.status = { replicas: 1, readyReplicas: 2, availableReplicas: 1, collisionCount: 0 };
    (old.status as Record<string, unknown>).collisionCount = 1;
    deploymentStrategy.prepareForStatusUpdate(n, old);
    expect((n.spec as Record<string, unknown>).replicas).toBe(1);
    expect(n.metadata?.labels).toEqual({ a: "b" });
    expect(n.metadata?.annotations).toEqual({ ok: "1" });
    expect(deploymentStrategy.validateStatusUpdate(n, old).map(String)).toEqual([
      "status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
      "status.collisionCount: Invalid value: 0: cannot be decremented",
    ]);
  });
  it("describes discovery and scale", () => {
    expect(deploymentStrategy.names).toMatchObject({ resource: "deployments", shortNames: ["deploy"], categories: ["all"], listKind: "DeploymentList" });
    expect(deploymentStrategy.subresources.scale).toEqual({
      specReplicasPath: ".spec.replicas",
      statusReplicasPath: ".status.replicas",
      labelSelectorPath: ".spec.selector",
    });
    expect(deploymentStrategy.verbs).toEqual(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
  });
});

describe("ReplicaSet", () => {
  function rs(): KubeObject {
    return {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "web-1", namespace: "default" },
      spec: {
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "busybox" }] } },
      },
    };
  }
  it("defaults, status and generation on create", () => {
    const r = created(rs(), replicaSetStrategy);
    expect((r.spec as Record<string, unknown>).replicas).toBe(1);
    expect(((r.spec as { template: { spec: { containers: { imagePullPolicy: string }[] } } }).template.spec.containers[0]).imagePullPolicy).toBe("Always");
    expect(r.status).toEqual({ replicas: 0 });
    expect(r.metadata?.generation).toBe(1);
    expect(replicaSetStrategy.validate(r)).toEqual([]);
    expect(replicaSetStrategy.fieldSet(r)).toEqual({ "metadata.name": "web-1", "metadata.namespace": "default", "status.replicas": "0" });
  });
  it("uses upstream's messages", () => {
    const r = rs();
    (r.spec as Record<string, unknown>).selector = {};
    (r.spec as Record<string, unknown>).replicas = -2;
    created(r, replicaSetStrategy);
    expect(replicaSetStrategy.validate(r).map(String)).toEqual([
      "spec.replicas: Invalid value: -2: must be greater than or equal to 0",
      "spec.selector: Invalid value: {}: empty selector is invalid for deployment",
    ]);
  });
  it("status validation", () => {
    const old = created(rs(), replicaSetStrategy);
    (old.metadata as Record<string, unknown>).resourceVersion = "1";
    const n = structuredClone(old);
    n.status = { replicas: 1, fullyLabeledReplicas: 2, readyReplicas: 1, availableReplicas: 1, observedGeneration: -1 };
    replicaSetStrategy.prepareForStatusUpdate(n, old);
    expect(replicaSetStrategy.validateStatusUpdate(n, old).map(String)).toEqual([
      "status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
      "status.fullyLabeledReplicas: Invalid value: 2: cannot be greater than status.replicas",
    ]);
  });
  it("generation only on spec change", () => {
    const old = created(rs(), replicaSetStrategy);
    const n = structuredClone(old);
    n.metadata = { ...n.metadata, annotations: { a: "b" } };
    replicaSetStrategy.prepareForUpdate(n, old);
    expect(n.metadata?.generation).toBe(1);
    (n.spec as Record<string, unknown>).replicas = 4;
    replicaSetStrategy.prepareForUpdate(n, old);
    expect(n.metadata?.generation).toBe(2);
  });
});
