/**
 * Cases restated from upstream resource_quota_controller_test.go (TestSyncResourceQuota: pods
 * with terminal ones left out of compute usage, a spec.hard change, an unchanged quota written
 * nothing, scopes; TestSyncResourceQuotaWithMissingReplenishment's services and PVCs) and the
 * replenishment handlers (a deleted pod gives its usage back).
 */
import { describe, expect, it } from "vitest";
import type { ConfigMap, PersistentVolumeClaim, Pod, ResourceQuota, Service } from "../../apimachinery/api/core/v1.js";
import type { Deployment } from "../../apimachinery/api/apps/v1.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { ResourceQuotaController } from "./controller.js";

const pod = (name: string, o: { cpu?: string; memory?: string; limitsCpu?: string; phase?: string; deadline?: number } = {}): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name, namespace: "testing" },
  spec: {
    ...(o.deadline !== undefined ? { activeDeadlineSeconds: o.deadline } : {}),
    containers: [
      {
        name: "c",
        resources: {
          requests: { ...(o.cpu ? { cpu: o.cpu } : {}), ...(o.memory ? { memory: o.memory } : {}) },
          ...(o.limitsCpu ? { limits: { cpu: o.limitsCpu } } : {}),
        },
      },
    ],
  },
  status: { phase: o.phase ?? "Running" },
});

const quota = (hard: Record<string, string>, status?: ResourceQuota["status"], scopes?: string[]): ResourceQuota => ({
  apiVersion: "v1",
  kind: "ResourceQuota",
  metadata: { name: "quota", namespace: "testing" },
  spec: { hard, ...(scopes ? { scopes } : {}) },
  ...(status ? { status } : {}),
});

function setup(q: ResourceQuota, objects: { pods?: Pod[]; services?: Service[]; pvcs?: PersistentVolumeClaim[]; configMaps?: ConfigMap[]; deployments?: Deployment[] } = {}) {
  const f = new ControllerFixture();
  const c = new ResourceQuotaController(f.manager);
  f.seed(builtin.resourceQuotas, q);
  f.seed(builtin.pods, ...(objects.pods ?? []));
  f.seed(builtin.services, ...(objects.services ?? []));
  f.seed(builtin.persistentVolumeClaims, ...(objects.pvcs ?? []));
  f.seed(builtin.configMaps, ...(objects.configMaps ?? []));
  f.seed(builtin.deployments, ...(objects.deployments ?? []));
  const stored = () => f.client.tracker.get(builtin.resourceQuotas, "testing", "quota") as unknown as ResourceQuota;
  return { f, c, stored, sync: () => c.sync(new ObjectName("testing", "quota"), f.client) };
}

describe("ResourceQuotaController.sync (TestSyncResourceQuota)", () => {
  it.each([
    {
      name: "pods: terminal pods count nothing of compute, running ones their requests and limits",
      quota: quota({ cpu: "3", memory: "100Gi", pods: "5", "limits.cpu": "10" }),
      pods: [pod("a", { cpu: "100m", memory: "1Gi", limitsCpu: "1" }), pod("b", { cpu: "100m", memory: "1Gi" }), pod("done", { cpu: "2", memory: "50Gi", phase: "Succeeded" })],
      used: { cpu: "200m", memory: "2Gi", pods: "2", "limits.cpu": "1" },
    },
    {
      name: "quota with no objects: every counted resource at zero",
      quota: quota({ pods: "5", "requests.storage": "10Gi", services: "2", configmaps: "3" }),
      pods: [],
      used: { pods: "0", "requests.storage": "0", services: "0", configmaps: "0" },
    },
    {
      name: "scopes: a Terminating quota counts pods with activeDeadlineSeconds only",
      quota: quota({ pods: "5" }, undefined, ["Terminating"]),
      pods: [pod("a", { deadline: 60 }), pod("b")],
      used: { pods: "1" },
    },
    {
      name: "count/ of a built-in resource and a custom resource no evaluator counts",
      quota: quota({ "count/deployments.apps": "2", "count/widgets.example.com": "1", "count/pods": "9" }),
      pods: [pod("a"), pod("done", { phase: "Failed" })],
      used: { "count/deployments.apps": "1", "count/pods": "2" },
    },
  ])("$name", async (t) => {
    const dep: Deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "d", namespace: "testing" }, spec: { selector: {}, template: {} } };
    const env = setup(t.quota, { pods: t.pods, deployments: [dep], configMaps: [] });
    await env.sync();
    expect(env.stored().status).toEqual({ hard: t.quota.spec?.hard, used: t.used });
  });

  it("services and persistentvolumeclaims with requests.storage and per-class usage", async () => {
    const svc = (name: string, type?: string): Service => ({ apiVersion: "v1", kind: "Service", metadata: { name, namespace: "testing" }, spec: { ...(type ? { type } : {}), ports: [{ port: 80 }] } });
    const pvc = (name: string, size: string, cls: string): PersistentVolumeClaim => ({
      apiVersion: "v1",
      kind: "PersistentVolumeClaim",
      metadata: { name, namespace: "testing" },
      spec: { storageClassName: cls, accessModes: ["ReadWriteOnce"], resources: { requests: { storage: size } } },
    });
    const env = setup(quota({ services: "5", "services.nodeports": "5", persistentvolumeclaims: "5", "requests.storage": "100Gi", "gold.storageclass.storage.k8s.io/requests.storage": "10Gi" }), {
      services: [svc("a"), svc("b", "NodePort")],
      pvcs: [pvc("x", "1Gi", "gold"), pvc("y", "2Gi", "standard")],
    });
    await env.sync();
    expect(env.stored().status?.used).toEqual({ services: "2", "services.nodeports": "1", persistentvolumeclaims: "2", "requests.storage": "3Gi", "gold.storageclass.storage.k8s.io/requests.storage": "1Gi" });
  });

  it("a quota whose status is current is not written; a spec.hard change is", async () => {
    const env = setup(quota({ pods: "5" }, { hard: { pods: "5" }, used: { pods: "1" } }), { pods: [pod("a")] });
    const r = await env.sync();
    expect(env.f.writeActions()).toEqual([]);
    expect(r).toEqual({ requeueAfterMs: 5 * 60 * 1000 });

    const changed = setup(quota({ pods: "10" }, { hard: { pods: "5" }, used: { pods: "1" } }), { pods: [pod("a")] });
    await changed.sync();
    expect(changed.stored().status).toEqual({ hard: { pods: "10" }, used: { pods: "1" } });
  });
});

describe("replenishment (informers and workers on the fake API)", () => {
  it("a deleted pod's usage is given back", async () => {
    const f = new ControllerFixture();
    new ResourceQuotaController(f.manager);
    f.seedAPI(builtin.resourceQuotas, quota({ pods: "5", "requests.cpu": "2" }));
    f.seedAPI(builtin.pods, pod("a", { cpu: "500m" }), pod("b", { cpu: "250m" }));
    await f.start();
    try {
      const quotas = f.client.resource(builtin.resourceQuotas, "testing");
      await f.eventually(async () => (await quotas.get("quota")).status?.used?.pods === "2");
      expect((await quotas.get("quota")).status?.used?.["requests.cpu"]).toBe("750m");
      await f.client.resource(builtin.pods, "testing").delete("a");
      await f.eventually(async () => (await quotas.get("quota")).status?.used?.pods === "1");
      expect((await quotas.get("quota")).status?.used?.["requests.cpu"]).toBe("250m");
    } finally {
      await f.stop();
    }
  });
});
