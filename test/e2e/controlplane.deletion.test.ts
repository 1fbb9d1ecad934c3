/**
 * Issue 8, end to end: deletion through the real kubectl v1.35 against the embedded control
 * plane — cascading deletion of a Deployment in the foreground, background and orphan modes (the
 * garbage collector at work), and deleting a whole namespace with contents.
 *
 * Pods carry terminationGracePeriodSeconds 100, which the simulated kubelet (speedFactor 0.01)
 * turns into one second of Terminating: long enough to see a foreground deletion wait.
 */
import type { Deployment, ReplicaSet } from "../../src/apimachinery/api/apps/v1.js";
import type { ConfigMap, Pod } from "../../src/apimachinery/api/core/v1.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isNotFound } from "../../src/apimachinery/errors.js";
import { builtin } from "../../src/client/typed.js";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, sleep, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const deployments = (ns: string) => cp.client.resource<Deployment>(builtin.deployments, ns);
const replicaSets = (ns: string) => cp.client.resource<ReplicaSet>(builtin.replicaSets, ns);
const pods = (ns: string) => cp.client.resource<Pod>(builtin.pods, ns);
const configMaps = (ns: string) => cp.client.resource<ConfigMap>(builtin.configMaps, ns);

async function getOrUndefined<T>(get: () => Promise<T>): Promise<T | undefined> {
  try {
    return await get();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

const deploymentYaml = (ns: string, name: string, replicas: number) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  namespace: ${ns}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      terminationGracePeriodSeconds: 100
      containers:
      - name: ${name}
        image: nginx:1.27
`;

/** A namespace with a rolled-out Deployment `web` of `replicas`. */
async function deployed(ns: string, replicas = 3): Promise<{ d: Deployment; rs: ReplicaSet; pods: Pod[] }> {
  await k.ok(["create", "namespace", ns]);
  await k.ok(["apply", "-f", await k.manifest(`${ns}.yaml`, deploymentYaml(ns, "web", replicas))]);
  const r = await k.run(["-n", ns, "rollout", "status", "deployment/web", "--timeout=60s"], undefined, 70_000);
  expect(r.code).toBe(0);
  const rss = (await replicaSets(ns).list()).items;
  expect(rss).toHaveLength(1);
  const ps = (await pods(ns).list()).items;
  expect(ps).toHaveLength(replicas);
  return { d: await deployments(ns).get("web"), rs: rss[0], pods: ps };
}

describe("cascading deletion with kubectl delete --cascade", () => {
  it("--cascade=foreground: the Deployment waits, with deletionTimestamp and the foregroundDeletion finalizer, until its ReplicaSet and pods are gone", async () => {
    const ns = "e2e-foreground";
    const { d, rs } = await deployed(ns);

    // A watch on the Deployment, from before the delete, to see when it really goes.
    const ac = new AbortController();
    const stream = await deployments(ns).watch({ resourceVersion: d.metadata?.resourceVersion, signal: ac.signal });
    const gone = (async () => {
      for await (const ev of stream) {
        if (ev.type === "DELETED") {
          // At the moment the owner disappears, no dependent is left.
          const [rsLeft, podsLeft] = await Promise.all([replicaSets(ns).list(), pods(ns).list()]);
          return { rs: rsLeft.items.length, pods: podsLeft.items.length };
        }
      }
      return undefined;
    })();

    const out = await k.ok(["-n", ns, "delete", "deployment", "web", "--cascade=foreground", "--wait=false"]);
    expect(out).toMatch(/deployment\.apps "web" deleted/);

    const deleting = await deployments(ns).get("web");
    expect(deleting.metadata?.deletionTimestamp).toBeTruthy();
    expect(deleting.metadata?.finalizers).toContain("foregroundDeletion");
    // The ReplicaSet (an owner itself) is deleted in the foreground too, and the pods terminate.
    const rsDeleting = await eventually("the ReplicaSet to be deleted in the foreground", async () => {
      const cur = await getOrUndefined(() => replicaSets(ns).get(rs.metadata?.name ?? ""));
      return cur?.metadata?.deletionTimestamp ? cur : undefined;
    });
    expect(rsDeleting.metadata?.finalizers).toContain("foregroundDeletion");
    await eventually("the pods to be terminating", async () => {
      const ps = (await pods(ns).list()).items;
      return ps.length > 0 && ps.every((p) => p.metadata?.deletionTimestamp) ? true : undefined;
    });
    // While pods terminate (one second), the Deployment is still there.
    const still = await deployments(ns).get("web");
    expect(still.metadata?.deletionTimestamp).toBe(deleting.metadata?.deletionTimestamp);
    expect(still.metadata?.finalizers).toContain("foregroundDeletion");
    const podsStill = (await pods(ns).list()).items;
    expect(podsStill.length).toBeGreaterThan(0);

    const left = await Promise.race([gone, sleep(30_000).then(() => "timeout" as const)]);
    ac.abort();
    expect(left).toEqual({ rs: 0, pods: 0 });
    expect(await getOrUndefined(() => deployments(ns).get("web"))).toBeUndefined();
  }, 90_000);

  it("--cascade=orphan: the Deployment goes, the ReplicaSet stays with no ownerReference, its pods keep running", async () => {
    const ns = "e2e-orphan";
    const { rs, pods: before } = await deployed(ns);
    const out = await k.ok(["-n", ns, "delete", "deployment", "web", "--cascade=orphan", "--timeout=30s"]);
    expect(out).toMatch(/deployment\.apps "web" deleted/);
    expect(await getOrUndefined(() => deployments(ns).get("web"))).toBeUndefined();
    // kubectl waited for the Deployment to go, which the orphan finalizer held until the
    // references were removed.
    const orphan = await replicaSets(ns).get(rs.metadata?.name ?? "");
    expect(orphan.metadata?.uid).toBe(rs.metadata?.uid);
    expect(orphan.metadata?.ownerReferences ?? []).toEqual([]);
    expect(orphan.metadata?.deletionTimestamp).toBeUndefined();
    expect(orphan.spec?.replicas).toBe(3);
    // Nothing comes to collect them later.
    await sleep(500);
    const ps = (await pods(ns).list()).items;
    expect(ps.map((p) => p.metadata?.uid).sort()).toEqual(before.map((p) => p.metadata?.uid).sort());
    for (const p of ps) {
      expect(p.metadata?.deletionTimestamp).toBeUndefined();
      expect(p.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "ReplicaSet", uid: rs.metadata?.uid });
    }
    expect((await replicaSets(ns).list()).items).toHaveLength(1);
    // A new Deployment with the same selector adopts the orphan instead of creating another.
    await k.ok(["apply", "-f", await k.manifest(`${ns}-again.yaml`, deploymentYaml(ns, "web", 3))]);
    const again = await deployments(ns).get("web");
    const adopted = await eventually("the orphan to be adopted", async () => {
      const cur = await replicaSets(ns).get(rs.metadata?.name ?? "");
      return cur.metadata?.ownerReferences?.[0]?.uid === again.metadata?.uid ? cur : undefined;
    });
    expect(adopted.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Deployment", name: "web", controller: true, blockOwnerDeletion: true });
    expect((await replicaSets(ns).list()).items).toHaveLength(1);
  }, 90_000);

  it("default (background): the Deployment goes at once, then the collector deletes the ReplicaSet and its pods", async () => {
    const ns = "e2e-background";
    const { rs } = await deployed(ns);
    const out = await k.ok(["-n", ns, "delete", "deployment", "web", "--timeout=30s"]);
    expect(out).toMatch(/deployment\.apps "web" deleted/);
    expect(await getOrUndefined(() => deployments(ns).get("web"))).toBeUndefined();
    await eventually("the ReplicaSet to be collected", async () =>
      (await getOrUndefined(() => replicaSets(ns).get(rs.metadata?.name ?? ""))) === undefined ? true : undefined,
    );
    await eventually("the pods to be collected", async () => ((await pods(ns).list()).items.length === 0 ? true : undefined));
  }, 90_000);
});

describe("namespace deletion", () => {
  it("deleting a namespace with a Deployment, a bare pod and ConfigMaps removes everything, then the namespace", async () => {
    const ns = "e2e-nsdelete";
    await deployed(ns);
    await k.ok(["-n", ns, "run", "bare", "--image=busybox", "--restart=Never"]);
    await k.ok(["-n", ns, "create", "configmap", "settings", "--from-literal=a=1"]);
    await k.ok(["-n", ns, "create", "configmap", "more", "--from-literal=b=2"]);
    await k.ok(["-n", ns, "expose", "deployment", "web", "--port=80"]);
    await eventually("the bare pod to run", async () => ((await pods(ns).get("bare")).status?.phase === "Running" ? true : undefined));

    const r = await k.run(["delete", "namespace", ns, "--wait=false"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`namespace "${ns}" deleted`));
    // Terminating while its contents go (the pods take a second to terminate); nothing new may
    // be created there meanwhile.
    const phase = await k.run(["get", "namespace", ns, "-o", "jsonpath={.status.phase}"]);
    expect(phase).toMatchObject({ code: 0, stdout: "Terminating" });
    const refused = await k.run(["-n", ns, "create", "configmap", "late", "--from-literal=c=3"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`unable to create new content in namespace ${ns} because it is being terminated`);

    const w = await k.run(["wait", "--for=delete", `namespace/${ns}`, "--timeout=60s"], undefined, 70_000);
    expect(w.code).toBe(0);
    const get = await k.run(["get", "namespace", ns]);
    expect(get.code).toBe(1);
    expect(get.stderr.trim()).toBe(`Error from server (NotFound): namespaces "${ns}" not found`);
    const [ds, rss, ps, cms] = await Promise.all([deployments(ns).list(), replicaSets(ns).list(), pods(ns).list(), configMaps(ns).list()]);
    expect([ds.items.length, rss.items.length, ps.items.length, cms.items.length]).toEqual([0, 0, 0, 0]);
    const svc = await k.run(["-n", ns, "get", "services,endpoints", "-o", "name"]);
    expect(svc.stdout.trim()).toBe("");
    // The controllers do not bring anything back.
    await sleep(300);
    expect((await pods(ns).list()).items).toHaveLength(0);
    expect((await replicaSets(ns).list()).items).toHaveLength(0);
  }, 120_000);
});
