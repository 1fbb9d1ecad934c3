/**
 * Table tests of the built-in admission plugins, restated from upstream's tests
 * (lifecycle/admission_test.go, serviceaccount/admission_test.go, limitranger/admission_test.go,
 * resourcequota/admission_test.go, setdefault/admission_test.go, nodetaint/admission_test.go,
 * defaulttolerationseconds/admission_test.go), each plugin on its own against a memory storage.
 */
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../apimachinery/clock.js";
import { StatusError } from "../../../apimachinery/errors.js";
import type { KubeObject } from "../../../apimachinery/types.js";
import { objectKey } from "../../rest/keys.js";
import { ResourceRegistry } from "../../server/resources.js";
import { MemoryStorage } from "../../storage/memory.js";
import { newAttributes } from "../attributes.js";
import type { AdmissionPluginContext, AnyAdmissionPlugin } from "../chain.js";
import type { AdmissionOperation } from "../interfaces.js";
import { defaultStorageClassPlugin } from "./defaultstorageclass.js";
import { defaultTolerationSecondsPlugin } from "./defaulttolerationseconds.js";
import { limitRangerPlugin, limitRequestRatioConstraint, maxConstraint, minConstraint } from "./limitranger.js";
import { namespaceLifecyclePlugin } from "./namespacelifecycle.js";
import { podConstraints, resourceQuotaPlugin, usageOf } from "./resourcequota.js";
import { mountServiceAccountToken, serviceAccountPlugin, tokenVolumeSource } from "./serviceaccount.js";
import { taintNodesByConditionPlugin } from "./taintnodesbycondition.js";
import { quantity } from "../quantity.js";

function context(): AdmissionPluginContext & { storage: MemoryStorage } {
  return { storage: new MemoryStorage(), registry: () => new ResourceRegistry(), clock: new FakeClock() };
}

async function put(ctx: { storage: MemoryStorage }, group: string, resource: string, obj: KubeObject): Promise<void> {
  await ctx.storage.create(objectKey(group, resource, obj.metadata?.namespace, obj.metadata?.name ?? ""), obj);
}

const gvr = (resource: string, group = "", version = "v1") => ({ group, version, resource });
const kindOf: Record<string, string> = { pods: "Pod", namespaces: "Namespace", configmaps: "ConfigMap", persistentvolumeclaims: "PersistentVolumeClaim", nodes: "Node", services: "Service" };

function attrs(op: AdmissionOperation, resource: string, object: KubeObject | undefined, extra: { namespace?: string; name?: string; old?: KubeObject; subresource?: string; dryRun?: boolean } = {}) {
  return newAttributes({
    operation: op,
    kind: { group: "", version: "v1", kind: kindOf[resource] ?? "Thing" },
    resource: gvr(resource),
    namespace: extra.namespace ?? (resource === "namespaces" || resource === "nodes" ? "" : "ns"),
    name: extra.name ?? object?.metadata?.name ?? extra.old?.metadata?.name ?? "",
    object,
    oldObject: extra.old,
    subresource: extra.subresource,
    dryRun: extra.dryRun,
  });
}

async function admitAndValidate(p: AnyAdmissionPlugin, a: ReturnType<typeof attrs>): Promise<void> {
  if (p.handles(a.operation)) {
    await p.admit?.(a, new AbortController().signal);
    await p.validate?.(a, new AbortController().signal);
  }
}

async function errorOf(p: Promise<unknown>): Promise<StatusError | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    if (err instanceof StatusError) return err;
    throw err;
  }
}

const pod = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "ns", ...meta },
  spec: { containers: [{ name: "c", image: "nginx" }], ...spec },
});

describe("NamespaceLifecycle", () => {
  const cases: { name: string; ns?: KubeObject; op: AdmissionOperation; resource: string; object?: KubeObject; code?: number; message?: string }[] = [
    { name: "create in an active namespace", ns: { metadata: { name: "ns" }, status: { phase: "Active" } }, op: "CREATE", resource: "configmaps", object: { metadata: { name: "a" } } },
    { name: "create in a missing namespace", op: "CREATE", resource: "configmaps", object: { metadata: { name: "a" } }, code: 404, message: 'namespaces "ns" not found' },
    {
      name: "create in a terminating namespace",
      ns: { metadata: { name: "ns" }, status: { phase: "Terminating" } },
      op: "CREATE",
      resource: "configmaps",
      object: { metadata: { name: "a" } },
      code: 403,
      message: 'configmaps "a" is forbidden: unable to create new content in namespace ns because it is being terminated',
    },
    {
      name: "create with generateName in a namespace with a deletionTimestamp",
      ns: { metadata: { name: "ns", deletionTimestamp: "2026-01-01T00:00:00Z" } },
      op: "CREATE",
      resource: "pods",
      object: { metadata: { generateName: "web-" } },
      code: 403,
      message: 'pods "web-" is forbidden: unable to create new content in namespace ns because it is being terminated',
    },
    { name: "update in a terminating namespace", ns: { metadata: { name: "ns" }, status: { phase: "Terminating" } }, op: "UPDATE", resource: "configmaps", object: { metadata: { name: "a" } } },
    { name: "delete in a missing namespace", op: "DELETE", resource: "configmaps" },
    { name: "delete of kube-system", op: "DELETE", resource: "namespaces", code: 403, message: 'namespaces "kube-system" is forbidden: this namespace may not be deleted' },
    { name: "create of a namespace", op: "CREATE", resource: "namespaces", object: { metadata: { name: "new" } } },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const ctx = context();
      if (c.ns) await put(ctx, "", "namespaces", { apiVersion: "v1", kind: "Namespace", ...c.ns });
      const p = namespaceLifecyclePlugin(ctx);
      const a = attrs(c.op, c.resource, c.object, c.resource === "namespaces" && c.op === "DELETE" ? { name: "kube-system" } : {});
      const err = await errorOf(admitAndValidate(p, a));
      expect(err?.code).toBe(c.code);
      if (c.message) expect(err?.message).toBe(c.message);
      if (c.code === 403 && c.resource !== "namespaces") {
        expect(err?.status.details?.causes).toEqual([{ reason: "NamespaceTerminating", message: "namespace ns is being terminated", field: "metadata.namespace" }]);
      }
    });
  }
});

describe("ServiceAccount", () => {
  const sa = (name: string, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace: "ns" }, ...extra });
  const noWait = { retryDelay: () => Promise.resolve(), attempts: 2, suffix: () => "abcde" };

  it("defaults the account, mounts the token volume in every container and init container, copies pull secrets", async () => {
    const ctx = context();
    await put(ctx, "", "serviceaccounts", sa("default", { imagePullSecrets: [{ name: "regcred" }] }));
    const p = pod("p", { initContainers: [{ name: "init", image: "busybox" }] });
    await admitAndValidate(serviceAccountPlugin(ctx, noWait), attrs("CREATE", "pods", p));
    const spec = p.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(spec.serviceAccountName).toBe("default");
    expect(spec.serviceAccount).toBe("default");
    expect(spec.volumes).toEqual([{ name: "kube-api-access-abcde", projected: tokenVolumeSource() }]);
    const mount = { name: "kube-api-access-abcde", readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" };
    expect(spec.containers[0].volumeMounts).toEqual([mount]);
    expect(spec.initContainers[0].volumeMounts).toEqual([mount]);
    expect(spec.imagePullSecrets).toEqual([{ name: "regcred" }]);
    expect(tokenVolumeSource()).toMatchObject({ defaultMode: 420, sources: [{ serviceAccountToken: { expirationSeconds: 3607, path: "token" } }, {}, {}] });
  });

  const automount: { name: string; pod?: boolean; sa?: boolean; mounted: boolean }[] = [
    { name: "both unset", mounted: true },
    { name: "account opts out", sa: false, mounted: false },
    { name: "pod opts in over the account", sa: false, pod: true, mounted: true },
    { name: "pod opts out", pod: false, sa: true, mounted: false },
  ];
  for (const c of automount) {
    it(`automount: ${c.name}`, async () => {
      const ctx = context();
      await put(ctx, "", "serviceaccounts", sa("default", c.sa === undefined ? {} : { automountServiceAccountToken: c.sa }));
      const p = pod("p", c.pod === undefined ? {} : { automountServiceAccountToken: c.pod });
      await admitAndValidate(serviceAccountPlugin(ctx, noWait), attrs("CREATE", "pods", p));
      expect((p.spec as { volumes?: unknown[] }).volumes !== undefined).toBe(c.mounted);
    });
  }

  it("keeps an existing mount at the token path and an existing token volume", () => {
    const spec = {
      volumes: [{ name: "kube-api-access-zzzzz", projected: {} }],
      containers: [{ name: "a", volumeMounts: [{ name: "mine", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }] }, { name: "b" }],
    };
    mountServiceAccountToken(spec, () => "xxxxx");
    expect(spec.volumes).toHaveLength(1);
    expect(spec.containers[0].volumeMounts).toEqual([{ name: "mine", mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }]);
    expect(spec.containers[1].volumeMounts).toEqual([{ name: "kube-api-access-zzzzz", readOnly: true, mountPath: "/var/run/secrets/kubernetes.io/serviceaccount" }]);
  });

  it("refuses a pod whose account does not exist, with upstream's text", async () => {
    const ctx = context();
    const err = await errorOf(admitAndValidate(serviceAccountPlugin(ctx, noWait), attrs("CREATE", "pods", pod("p", { serviceAccountName: "builder" }))));
    expect(err?.code).toBe(403);
    expect(err?.message).toBe('pods "p" is forbidden: error looking up service account ns/builder: serviceaccount "builder" not found');
  });

  it("waits for the default account the ServiceAccount loop is about to create", async () => {
    const ctx = context();
    let waits = 0;
    const plugin = serviceAccountPlugin(ctx, {
      attempts: 3,
      suffix: () => "abcde",
      retryDelay: async () => {
        waits++;
        if (waits === 2) await put(ctx, "", "serviceaccounts", sa("default"));
      },
    });
    await admitAndValidate(plugin, attrs("CREATE", "pods", pod("p")));
    expect(waits).toBe(2);
  });

  it("leaves mirror pods, updates and subresources alone", async () => {
    const ctx = context();
    const mirror = pod("m", {}, { annotations: { "kubernetes.io/config.mirror": "x" } });
    await admitAndValidate(serviceAccountPlugin(ctx, noWait), attrs("CREATE", "pods", mirror));
    expect((mirror.spec as { serviceAccountName?: string }).serviceAccountName).toBeUndefined();
    await admitAndValidate(serviceAccountPlugin(ctx, noWait), attrs("UPDATE", "pods", pod("u"), { old: pod("u") }));
    await admitAndValidate(serviceAccountPlugin(ctx, noWait), attrs("CREATE", "pods", pod("s"), { subresource: "binding" }));
  });
});

describe("DefaultTolerationSeconds", () => {
  const notReady = { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
  const unreachable = { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 };
  const cases: { name: string; given?: Record<string, unknown>[]; want: Record<string, unknown>[] }[] = [
    { name: "no tolerations", want: [notReady, unreachable] },
    { name: "not-ready already tolerated", given: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 60 }], want: [{ ...notReady, tolerationSeconds: 60 }, unreachable] },
    { name: "NoSchedule does not count", given: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoSchedule" }], want: [{ key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoSchedule" }, notReady, unreachable] },
    { name: "an empty effect tolerates every effect", given: [{ key: "node.kubernetes.io/not-ready", operator: "Exists" }], want: [{ key: "node.kubernetes.io/not-ready", operator: "Exists" }, unreachable] },
    { name: "an empty key tolerates every taint", given: [{ operator: "Exists" }], want: [{ operator: "Exists" }] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const p = pod("p", c.given ? { tolerations: c.given } : {});
      await admitAndValidate(defaultTolerationSecondsPlugin(), attrs("CREATE", "pods", p));
      expect((p.spec as { tolerations: unknown }).tolerations).toEqual(c.want);
    });
  }
});

describe("TaintNodesByCondition", () => {
  const cases: { name: string; taints?: Record<string, string>[]; want: Record<string, string>[] }[] = [
    { name: "no taints", want: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] },
    { name: "already tainted", taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }], want: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] },
    { name: "other taints kept", taints: [{ key: "a", value: "b", effect: "NoExecute" }], want: [{ key: "a", value: "b", effect: "NoExecute" }, { key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const node: KubeObject = { apiVersion: "v1", kind: "Node", metadata: { name: "n" }, spec: c.taints ? { taints: c.taints } : {} };
      await admitAndValidate(taintNodesByConditionPlugin(), attrs("CREATE", "nodes", node));
      expect((node.spec as { taints: unknown }).taints).toEqual(c.want);
    });
  }
});

describe("DefaultStorageClass", () => {
  const sc = (name: string, isDefault: boolean, created = "2026-01-01T00:00:00Z"): KubeObject => ({
    apiVersion: "storage.k8s.io/v1",
    kind: "StorageClass",
    metadata: { name, creationTimestamp: created, annotations: isDefault ? { "storageclass.kubernetes.io/is-default-class": "true" } : {} },
    provisioner: "x",
  });
  const cases: { name: string; classes: KubeObject[]; claim: Record<string, unknown>; annotations?: Record<string, string>; want: string | null | undefined }[] = [
    { name: "no default class", classes: [sc("slow", false)], claim: {}, want: undefined },
    { name: "one default class", classes: [sc("slow", false), sc("fast", true)], claim: {}, want: "fast" },
    { name: "the newest of two defaults", classes: [sc("old", true, "2026-01-01T00:00:00Z"), sc("new", true, "2026-02-01T00:00:00Z")], claim: {}, want: "new" },
    { name: "the first by name of two of the same age", classes: [sc("b", true), sc("a", true)], claim: {}, want: "a" },
    { name: "an explicit class is kept", classes: [sc("fast", true)], claim: { storageClassName: "slow" }, want: "slow" },
    { name: "an explicit empty class is kept", classes: [sc("fast", true)], claim: { storageClassName: "" }, want: "" },
    { name: "the beta annotation counts as a class", classes: [sc("fast", true)], claim: {}, annotations: { "volume.beta.kubernetes.io/storage-class": "x" }, want: undefined },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const ctx = context();
      for (const s of c.classes) await put(ctx, "storage.k8s.io", "storageclasses", s);
      const pvc: KubeObject = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c", namespace: "ns", annotations: c.annotations }, spec: { ...c.claim } };
      await admitAndValidate(defaultStorageClassPlugin(ctx), attrs("CREATE", "persistentvolumeclaims", pvc));
      expect((pvc.spec as { storageClassName?: string }).storageClassName).toBe(c.want);
    });
  }
});

describe("LimitRanger", () => {
  const q = (s: string) => quantity(s)!;
  const req = (o: Record<string, string>) => new Map(Object.entries(o).map(([k, v]) => [k, q(v)]));
  const constraints: { name: string; got: string | undefined; want: string | undefined }[] = [
    { name: "min: no request", got: minConstraint("Container", "cpu", q("100m"), req({}), req({})), want: "minimum cpu usage per Container is 100m.  No request is specified" },
    { name: "min: request below", got: minConstraint("Container", "cpu", q("100m"), req({ cpu: "50m" }), req({})), want: "minimum cpu usage per Container is 100m, but request is 50m" },
    { name: "min: limit below", got: minConstraint("Container", "cpu", q("100m"), req({ cpu: "200m" }), req({ cpu: "50m" })), want: "minimum cpu usage per Container is 100m, but limit is 50m" },
    { name: "min: fine", got: minConstraint("Container", "memory", q("1Mi"), req({ memory: "2Mi" }), req({})), want: undefined },
    { name: "max: no limit", got: maxConstraint("Pod", "memory", q("1Gi"), req({}), req({})), want: "maximum memory usage per Pod is 1Gi.  No limit is specified" },
    { name: "max: limit above", got: maxConstraint("Container", "cpu", q("1"), req({}), req({ cpu: "2" })), want: "maximum cpu usage per Container is 1, but limit is 2" },
    { name: "max: request above", got: maxConstraint("Container", "cpu", q("1"), req({ cpu: "1500m" }), req({ cpu: "1" })), want: "maximum cpu usage per Container is 1, but request is 1500m" },
    { name: "ratio: no request", got: limitRequestRatioConstraint("Container", "cpu", q("2"), req({}), req({ cpu: "1" })), want: "cpu max limit to request ratio per Container is 2, but no request is specified or request is 0" },
    { name: "ratio: no limit", got: limitRequestRatioConstraint("Container", "cpu", q("2"), req({ cpu: "1" }), req({})), want: "cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0" },
    { name: "ratio: above", got: limitRequestRatioConstraint("Container", "cpu", q("2"), req({ cpu: "100m" }), req({ cpu: "400m" })), want: "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000" },
    { name: "ratio: equal", got: limitRequestRatioConstraint("Container", "memory", q("2"), req({ memory: "1Gi" }), req({ memory: "2Gi" })), want: undefined },
  ];
  for (const c of constraints) it(c.name, () => expect(c.got).toBe(c.want));

  const limitRange = (limits: unknown[]): KubeObject => ({ apiVersion: "v1", kind: "LimitRange", metadata: { name: "lr", namespace: "ns" }, spec: { limits } });

  it("defaults requests and limits and annotates the pod", async () => {
    const ctx = context();
    await put(ctx, "", "limitranges", limitRange([{ type: "Container", default: { cpu: "500m", memory: "256Mi" }, defaultRequest: { cpu: "100m", memory: "128Mi" } }]));
    const p = pod("p", { containers: [{ name: "a", image: "x", resources: { limits: { cpu: "1" } } }], initContainers: [{ name: "i", image: "x" }] });
    await admitAndValidate(limitRangerPlugin(ctx), attrs("CREATE", "pods", p));
    const spec = p.spec as { containers: { resources: unknown }[]; initContainers: { resources: unknown }[] };
    expect(spec.containers[0].resources).toEqual({ limits: { cpu: "1", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(spec.initContainers[0].resources).toEqual({ limits: { cpu: "500m", memory: "256Mi" }, requests: { cpu: "100m", memory: "128Mi" } });
    expect(p.metadata?.annotations?.["kubernetes.io/limit-ranger"]).toBe(
      "LimitRanger plugin set: cpu, memory request for container a; memory limit for container a; cpu, memory request for init container i; cpu, memory limit for init container i",
    );
  });

  it("refuses pods outside min/max with every violation, and claims outside their bounds", async () => {
    const ctx = context();
    await put(ctx, "", "limitranges", limitRange([{ type: "Container", min: { cpu: "100m" }, max: { cpu: "1" } }, { type: "Pod", max: { memory: "1Gi" } }, { type: "PersistentVolumeClaim", min: { storage: "1Gi" }, max: { storage: "10Gi" } }]));
    const p = pod("p", { containers: [{ name: "a", image: "x", resources: { requests: { cpu: "50m" }, limits: { cpu: "2", memory: "2Gi" } } }] });
    const err = await errorOf(admitAndValidate(limitRangerPlugin(ctx), attrs("CREATE", "pods", p)));
    expect(err?.code).toBe(403);
    expect(err?.message).toBe('pods "p" is forbidden: [minimum cpu usage per Container is 100m, but request is 50m, maximum cpu usage per Container is 1, but limit is 2, maximum memory usage per Pod is 1Gi, but limit is 2Gi]');
    const claim: KubeObject = { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "c", namespace: "ns" }, spec: { resources: { requests: { storage: "500Mi" } } } };
    const cerr = await errorOf(admitAndValidate(limitRangerPlugin(ctx), attrs("CREATE", "persistentvolumeclaims", claim)));
    expect(cerr?.message).toBe('persistentvolumeclaims "c" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi');
    // Pod updates are not checked (containers cannot change).
    await admitAndValidate(limitRangerPlugin(ctx), attrs("UPDATE", "pods", p, { old: p }));
  });
});

describe("ResourceQuota", () => {
  const quota = (hard: Record<string, string>, extra: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject => ({
    apiVersion: "v1",
    kind: "ResourceQuota",
    metadata: { name: "compute", namespace: "ns" },
    spec: { hard, ...extra },
    ...(status ? { status } : {}),
  });
  const withResources = (name: string, requests: Record<string, string>, limits: Record<string, string> = {}) => pod(name, { containers: [{ name: "c", image: "x", resources: { requests, limits } }] });

  it("counts usage as the evaluators do", () => {
    const p = pod("p", {
      containers: [
        { name: "a", resources: { requests: { cpu: "100m", memory: "64Mi", "nvidia.com/gpu": "1" }, limits: { cpu: "200m" } } },
        { name: "b", resources: { requests: { cpu: "150m", memory: "64Mi" } } },
      ],
      initContainers: [{ name: "i", resources: { requests: { cpu: "1" } } }],
    });
    const u = usageOf("", "pods", p);
    const text = Object.fromEntries([...u].map(([k, v]) => [k, `${v.n}`]));
    expect(Object.keys(text).sort()).toEqual(["count/pods", "cpu", "limits.cpu", "memory", "pods", "requests.cpu", "requests.memory", "requests.nvidia.com/gpu"]);
    expect(u.get("requests.cpu")?.n).toBe(1_000_000_000n); // the init container's 1 > 250m
    expect(usageOf("", "pods", { ...p, status: { phase: "Succeeded" } }).size).toBe(1); // count/pods only
    expect([...usageOf("apps", "deployments", { metadata: {} }).keys()]).toEqual(["count/deployments.apps"]);
    expect([...usageOf("", "services", { spec: { type: "NodePort", ports: [{}, {}] } }).keys()].sort()).toEqual(["count/services", "services", "services.nodeports"]);
  });

  it("names the containers that miss a required request or limit", () => {
    const p = pod("p", { containers: [{ name: "a" }, { name: "b", resources: { limits: { cpu: "1" } } }] });
    expect(podConstraints(["limits.cpu", "limits.memory", "pods"], p)).toBe("must specify limits.cpu for: a; limits.memory for: a,b");
    expect(podConstraints(["pods", "count/pods"], p)).toBeUndefined();
  });

  it("charges creates to status.used and refuses the one past the limit with upstream's text", async () => {
    const ctx = context();
    await put(ctx, "", "resourcequotas", quota({ pods: "2", "requests.cpu": "1" }));
    const plugin = resourceQuotaPlugin(ctx);
    await admitAndValidate(plugin, attrs("CREATE", "pods", withResources("a", { cpu: "400m" })));
    const stored = await ctx.storage.get(objectKey("", "resourcequotas", "ns", "compute"));
    expect(stored?.object.status).toEqual({ hard: { pods: "2", "requests.cpu": "1" }, used: { pods: "1", "requests.cpu": "400m" } });
    // A dry run checks but does not charge.
    await admitAndValidate(plugin, attrs("CREATE", "pods", withResources("d", { cpu: "100m" }), { dryRun: true }));
    await admitAndValidate(plugin, attrs("CREATE", "pods", withResources("b", { cpu: "500m" })));
    const err = await errorOf(admitAndValidate(plugin, attrs("CREATE", "pods", withResources("c", { cpu: "200m" }))));
    expect(err?.code).toBe(403);
    expect(err?.message).toBe('pods "c" is forbidden: exceeded quota: compute, requested: pods=1,requests.cpu=200m, used: pods=2,requests.cpu=900m, limited: pods=2,requests.cpu=1');
  });

  it("recounts stored objects before refusing (usage freed by a delete is seen)", async () => {
    const ctx = context();
    await put(ctx, "", "resourcequotas", quota({ pods: "1" }, {}, { hard: { pods: "1" }, used: { pods: "1" } }));
    const err = await errorOf(admitAndValidate(resourceQuotaPlugin(ctx), attrs("CREATE", "pods", pod("x"))));
    expect(err).toBeUndefined();
    await put(ctx, "", "pods", pod("x"));
    const again = await errorOf(admitAndValidate(resourceQuotaPlugin(ctx), attrs("CREATE", "pods", pod("y"))));
    expect(again?.message).toBe('pods "y" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=1, limited: pods=1');
  });

  it("requires limits a quota constrains, honours scopes, and serializes concurrent creates", async () => {
    const ctx = context();
    await put(ctx, "", "resourcequotas", quota({ "limits.memory": "1Gi" }));
    const err = await errorOf(admitAndValidate(resourceQuotaPlugin(ctx), attrs("CREATE", "pods", pod("p"))));
    expect(err?.message).toBe('pods "p" is forbidden: failed quota: compute: must specify limits.memory for: c');

    const scoped = context();
    await put(scoped, "", "resourcequotas", quota({ pods: "1" }, { scopes: ["BestEffort"] }));
    const plugin = resourceQuotaPlugin(scoped);
    // Burstable pods are outside a BestEffort quota; configmaps are outside any scoped quota.
    await admitAndValidate(plugin, attrs("CREATE", "pods", withResources("burst", { cpu: "1" })));
    await admitAndValidate(plugin, attrs("CREATE", "configmaps", { metadata: { name: "c", namespace: "ns" } }));
    const results = await Promise.allSettled([admitAndValidate(plugin, attrs("CREATE", "pods", pod("one"))), admitAndValidate(plugin, attrs("CREATE", "pods", pod("two")))]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
  });
});
