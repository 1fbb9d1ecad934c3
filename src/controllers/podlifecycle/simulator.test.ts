import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Lease } from "../../apimachinery/api/coordination/v1.js";
import type { LifecycleHandler, Node, Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../apimachinery/clock.js";
import { StatusError } from "../../apimachinery/errors.js";
import { metaNamespaceKey } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { ReplicaSetController } from "../replicaset/replicaset.js";
import { FAULT_ANNOTATION } from "./faults.js";
import { observeStage } from "./podstatus.js";
import { PodLifecycleSimulator, type PodLifecycleSimulatorOptions } from "./simulator.js";

const zeroDelays = { schedule: 0, containerCreating: 0, running: 0, crashRunning: 0, crashBackOff: 0, crashBackOffMax: 0 };

function setup(opts: Partial<PodLifecycleSimulatorOptions> = {}) {
  const f = new ControllerFixture({ clock: new FakeClock() });
  const { clock, client, informers, recorder } = f;
  const sim = new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, ...opts, delays: { ...zeroDelays, ...opts.delays } });
  /**
   * Makes the caches show what the fake API holds, and delivers the pod notifications, as synced
   * informers would (the cache first, then the handler).
   */
  const refresh = () => {
    const before = new Map(sim.podInformer.indexer.list().map((p) => [metaNamespaceKey(p), p]));
    const pods = client.tracker.list(builtin.pods, "") as unknown as Pod[];
    sim.podInformer.indexer.replace(pods, "");
    sim.nodeInformer.indexer.replace(client.tracker.list(builtin.nodes, "") as unknown as Node[], "");
    for (const p of pods) {
      const key = metaNamespaceKey(p);
      const old = before.get(key);
      before.delete(key);
      if (!old) sim.podEvents.onAdd?.(p, false);
      else if (old.metadata?.resourceVersion !== p.metadata?.resourceVersion) sim.podEvents.onUpdate?.(old, p);
    }
    for (const old of before.values()) sim.podEvents.onDelete?.(old);
  };
  const step = async (key: string) => {
    const r = await sim.reconcile(key);
    refresh();
    return r;
  };
  const registerNodes = async () => {
    for (const n of sim.nodeNames) await step(n);
  };
  const addPod = (pod: Pod) => {
    client.seed(builtin.pods, pod);
    refresh();
  };
  const getPod = (name: string) => client.tracker.get(builtin.pods, "default", name) as unknown as Pod;
  /** Reconciles a pod until it asks to wait or nothing changes; returns the last result. */
  const settle = async (key: string) => {
    for (let i = 0; i < 20; i++) {
      const before = client.writeActions().length;
      const r = await step(key);
      if (r.requeueAfterMs !== undefined || client.writeActions().length === before) return r;
    }
    throw new Error("did not settle");
  };
  return { clock, client, informers, recorder, sim, refresh, step, registerNodes, addPod, getPod, settle };
}

function newPod(name: string, extra: { nodeSelector?: Record<string, string>; cpu?: string; image?: string; annotations?: Record<string, string> } = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "default", ...(extra.annotations ? { annotations: extra.annotations } : {}) },
    spec: {
      containers: [{ name: "app", image: extra.image ?? "nginx:1.27", ...(extra.cpu ? { resources: { requests: { cpu: extra.cpu } } } : {}) }],
      ...(extra.nodeSelector ? { nodeSelector: extra.nodeSelector } : {}),
      terminationGracePeriodSeconds: 30,
    },
    status: { phase: "Pending" },
  };
}

describe("nodes", () => {
  it("registers the simulated nodes, Ready, with capacity, addresses and nodeInfo", async () => {
    const { client, registerNodes, sim } = setup();
    await registerNodes();
    const nodes = client.tracker.list(builtin.nodes, "") as unknown as Node[];
    expect(nodes.map((n) => n.metadata?.name)).toEqual(["kubeloop-node-1", "kubeloop-node-2", "kubeloop-node-3"]);
    const n = nodes[1];
    expect(n.metadata?.annotations?.["kubeloop.dev/simulated"]).toBe("true");
    expect(n.metadata?.labels?.["kubernetes.io/hostname"]).toBe("kubeloop-node-2");
    expect(n.status?.capacity).toEqual({ cpu: "4", memory: "8Gi", pods: "110" });
    expect(n.status?.allocatable).toEqual({ cpu: "4", memory: "8Gi", pods: "110" });
    expect(n.status?.addresses).toEqual([
      { type: "InternalIP", address: "172.18.0.2" },
      { type: "Hostname", address: "kubeloop-node-2" },
    ]);
    expect(n.status?.nodeInfo?.kubeletVersion).toMatch(/^v1\.\d+/);
    expect(n.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "True", reason: "KubeletReady" });
    // Registered once: reconciling again writes nothing.
    client.clearActions();
    await registerNodes();
    expect(client.writeActions()).toEqual([]);
    expect(sim.nodeNames).toHaveLength(3);
  });

  it("repairs a simulated node marked NotReady, and leaves non-simulated nodes of the same name alone", async () => {
    const { client, registerNodes, step, refresh } = setup({ nodes: 2 });
    client.tracker.create(builtin.nodes, "", { apiVersion: "v1", kind: "Node", metadata: { name: "kubeloop-node-2" }, status: {} });
    await registerNodes();
    const n1 = client.tracker.get(builtin.nodes, "", "kubeloop-node-1") as unknown as Node;
    client.tracker.update(builtin.nodes, "", {
      ...(n1),
      status: { ...n1.status, conditions: [{ type: "Ready", status: "Unknown", reason: "NodeStatusUnknown" }] },
    });
    refresh();
    client.clearActions();
    await step("kubeloop-node-1");
    await step("kubeloop-node-2");
    expect(client.writeActions().map((a) => `${a.verb} ${a.name} ${a.subresource ?? ""}`)).toEqual(["update kubeloop-node-1 status"]);
    const repaired = client.tracker.get(builtin.nodes, "", "kubeloop-node-1") as unknown as Node;
    expect(repaired.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("renews leases in kube-node-lease and node heartbeats on the interval", async () => {
    const { client, clock, sim, registerNodes, refresh } = setup({ nodes: 1, heartbeatIntervalMs: 10_000 });
    await registerNodes();
    await sim.heartbeat();
    refresh();
    const lease = client.tracker.get(builtin.leases, "kube-node-lease", "kubeloop-node-1") as unknown as Lease;
    expect(lease.spec).toMatchObject({ holderIdentity: "kubeloop-node-1", leaseDurationSeconds: 40 });
    expect(lease.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Node", name: "kubeloop-node-1" });
    expect(client.tracker.get(builtin.namespaces, "", "kube-node-lease").metadata?.name).toBe("kube-node-lease");
    const first = lease.spec?.renewTime;
    clock.step(10_000);
    await sim.heartbeat();
    refresh();
    const renewed = client.tracker.get(builtin.leases, "kube-node-lease", "kubeloop-node-1") as unknown as Lease;
    expect(renewed.spec?.renewTime).not.toBe(first);
    expect(Date.parse(renewed.spec?.renewTime ?? "") - Date.parse(first ?? "")).toBe(10_000);
    const node = client.tracker.get(builtin.nodes, "", "kubeloop-node-1") as unknown as Node;
    const ready = node.status?.conditions?.find((c) => c.type === "Ready");
    expect(Date.parse(ready?.lastHeartbeatTime ?? "")).toBe(Math.floor(clock.now() / 1000) * 1000);
  });
});

describe("scheduling", () => {
  it("honours nodeSelector", async () => {
    const { registerNodes, addPod, step, getPod, recorder } = setup();
    await registerNodes();
    addPod(newPod("p", { nodeSelector: { "kubernetes.io/hostname": "kubeloop-node-2" } }));
    await step("default/p");
    expect(getPod("p").spec?.nodeName).toBe("kubeloop-node-2");
    expect(recorder.events).toContain("Normal Scheduled Successfully assigned default/p to kubeloop-node-2");
  });

  it("reports pods nothing fits as Unschedulable, once", async () => {
    const { client, registerNodes, addPod, step, getPod, recorder } = setup();
    await registerNodes();
    addPod(newPod("p", { nodeSelector: { disk: "ssd" } }));
    await step("default/p");
    const cond = getPod("p").status?.conditions?.find((c) => c.type === "PodScheduled");
    expect(cond).toMatchObject({ status: "False", reason: "Unschedulable", message: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector." });
    expect(recorder.events).toEqual(["Warning FailedScheduling 0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."]);
    client.clearActions();
    await step("default/p");
    expect(client.writeActions()).toEqual([]);
  });

  it("respects capacity, spreads to the least loaded node, and retries when room frees up", async () => {
    const { client, registerNodes, addPod, sim, refresh, step, getPod } = setup({ capacity: { cpu: "1" } });
    await registerNodes();
    for (const n of ["a", "b", "c", "d"]) addPod(newPod(n, { cpu: "600m" }));
    // Decided without the cache catching up in between: the assumed placements count.
    for (const n of ["a", "b", "c", "d"]) await sim.reconcile(`default/${n}`);
    refresh();
    const nodes = ["a", "b", "c"].map((n) => getPod(n).spec?.nodeName);
    expect(new Set(nodes).size).toBe(3);
    expect(getPod("d").spec?.nodeName).toBeUndefined();
    expect(getPod("d").status?.conditions?.find((c) => c.type === "PodScheduled")?.message).toBe("0/3 nodes are available: 3 Insufficient cpu.");
    // Free a node: the pending pod goes there.
    const freed = getPod("b").spec?.nodeName;
    client.tracker.delete(builtin.pods, "default", "b");
    refresh();
    await step("default/d");
    expect(getPod("d").spec?.nodeName).toBe(freed);
  });

  it("counts pods against the node's pod capacity", async () => {
    const { registerNodes, addPod, step, getPod } = setup({ nodes: 1, capacity: { pods: "1" } });
    await registerNodes();
    addPod(newPod("a"));
    addPod(newPod("b"));
    await step("default/a");
    await step("default/b");
    expect(getPod("a").spec?.nodeName).toBe("kubeloop-node-1");
    expect(getPod("b").status?.conditions?.[0]?.message).toBe("0/1 nodes are available: 1 Too many pods.");
  });

  it("leaves pods for other schedulers, gated pods and pods on foreign nodes alone", async () => {
    const { client, registerNodes, addPod, step } = setup();
    await registerNodes();
    const other = newPod("other");
    addPod({ ...other, spec: { ...other.spec!, schedulerName: "my-scheduler" } });
    const gated = newPod("gated");
    addPod({ ...gated, spec: { ...gated.spec!, schedulingGates: [{ name: "wait" }] } });
    const foreign = newPod("foreign");
    addPod({ ...foreign, spec: { ...foreign.spec!, nodeName: "real-node" } });
    client.clearActions();
    for (const n of ["other", "gated", "foreign"]) await step(`default/${n}`);
    expect(client.writeActions()).toEqual([]);
  });

  it("falls back to status placement when the server refuses spec.nodeName updates", async () => {
    const { client, registerNodes, addPod, settle, getPod, sim } = setup({ nodes: 1 });
    await registerNodes();
    client.prependReactor("update", "pods", (a) =>
      a.subresource === undefined ? { handled: true, error: StatusError.invalid({ group: "", kind: "Pod" }, a.name ?? "", []) } : { handled: false },
    );
    addPod(newPod("p"));
    await settle("default/p");
    const pod = getPod("p");
    expect(sim.placement).toBe("status");
    expect(pod.spec?.nodeName).toBeUndefined();
    expect(pod.status?.nominatedNodeName).toBe("kubeloop-node-1");
    expect(pod.status).toMatchObject({ phase: "Running", hostIP: "172.18.0.1", podIP: "10.244.1.2" });
    expect(observeStage(pod)).toBe("Ready");
  });
});

describe("pod phases", () => {
  it("walks Pending → ContainerCreating → Running/Ready after the configured delays", async () => {
    const { clock, registerNodes, addPod, step, getPod } = setup({ delays: { schedule: 100, containerCreating: 200, running: 300 } });
    await registerNodes();
    addPod(newPod("p"));
    expect(await step("default/p")).toEqual({ requeueAfterMs: 100 });
    clock.step(100);
    await step("default/p");
    const node = getPod("p").spec?.nodeName;
    expect(node).toBe("kubeloop-node-1");

    expect(await step("default/p")).toEqual({ requeueAfterMs: 200 });
    clock.step(200);
    await step("default/p");
    let pod = getPod("p");
    expect(pod.status?.phase).toBe("Pending");
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ name: "app", ready: false, started: false, restartCount: 0, state: { waiting: { reason: "ContainerCreating" } } });
    expect(pod.status?.hostIP).toBe("172.18.0.1");
    expect(pod.status?.conditions?.find((c) => c.type === "PodScheduled")?.status).toBe("True");

    expect(await step("default/p")).toEqual({ requeueAfterMs: 300 });
    clock.step(300);
    await step("default/p");
    pod = getPod("p");
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.podIP).toBe("10.244.1.2");
    expect(pod.status?.podIPs).toEqual([{ ip: "10.244.1.2" }]);
    expect(pod.status?.hostIPs).toEqual([{ ip: "172.18.0.1" }]);
    const cs = pod.status?.containerStatuses?.[0];
    expect(cs).toMatchObject({ ready: true, started: true, restartCount: 0, image: "nginx:1.27" });
    expect(cs?.imageID).toMatch(/^docker\.io\/library\/nginx@sha256:[0-9a-f]{64}$/);
    expect(cs?.containerID).toMatch(/^containerd:\/\/[0-9a-f]{64}$/);
    expect(cs?.state?.running?.startedAt).toBeDefined();
    const types = Object.fromEntries((pod.status?.conditions ?? []).map((c) => [c.type, c.status]));
    expect(types).toEqual({ PodReadyToStartContainers: "True", Initialized: "True", Ready: "True", ContainersReady: "True", PodScheduled: "True" });
    const ready = pod.status?.conditions?.find((c) => c.type === "Ready");
    expect(Date.parse(ready?.lastTransitionTime ?? "")).toBe(Math.floor(clock.now() / 1000) * 1000);
    // Steady state.
    expect(await step("default/p")).toEqual({});
  });

  it("gives pods on the same node distinct IPs", async () => {
    const { registerNodes, addPod, settle, getPod } = setup({ nodes: 1 });
    await registerNodes();
    addPod(newPod("a"));
    addPod(newPod("b"));
    await settle("default/a");
    await settle("default/b");
    expect([getPod("a").status?.podIP, getPod("b").status?.podIP]).toEqual(["10.244.1.2", "10.244.1.3"]);
  });

  it("never-ready: runs but never becomes ready (annotation)", async () => {
    const { registerNodes, addPod, settle, getPod } = setup();
    await registerNodes();
    addPod(newPod("p", { annotations: { [FAULT_ANNOTATION]: "never-ready" } }));
    await settle("default/p");
    const pod = getPod("p");
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: false, started: true });
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
  });

  it("crash-loop: restartCount grows through CrashLoopBackOff with doubling back-off (image name)", async () => {
    const { clock, registerNodes, addPod, step, settle, getPod, recorder } = setup({ delays: { crashRunning: 1000, crashBackOff: 2000, crashBackOffMax: 5000 } });
    await registerNodes();
    addPod(newPod("p", { image: "example/crashloop:1" }));
    expect(await settle("default/p")).toEqual({ requeueAfterMs: 1000 });
    let pod = getPod("p");
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: false, started: true, restartCount: 0 });

    clock.step(1000);
    expect(await settle("default/p")).toEqual({ requeueAfterMs: 2000 });
    pod = getPod("p");
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ ready: false, restartCount: 1, state: { waiting: { reason: "CrashLoopBackOff" } } });
    expect(pod.status?.containerStatuses?.[0].lastState?.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    expect(recorder.events).toContain("Warning BackOff Back-off restarting failed container");

    clock.step(2000); // restarted, runs 1 s, crashes again
    expect(await step("default/p")).toEqual({});
    expect(getPod("p").status?.containerStatuses?.[0].state?.running).toBeDefined();
    expect(await step("default/p")).toEqual({ requeueAfterMs: 1000 });
    clock.step(1000);
    expect(await settle("default/p")).toEqual({ requeueAfterMs: 4000 });
    expect(getPod("p").status?.containerStatuses?.[0].restartCount).toBe(2);
  });

  it("fail-after: ready, then Failed after the given seconds", async () => {
    const { clock, registerNodes, addPod, settle, getPod } = setup();
    await registerNodes();
    addPod(newPod("p", { annotations: { [FAULT_ANNOTATION]: "fail-after=5" } }));
    expect(await settle("default/p")).toEqual({ requeueAfterMs: 5000 });
    expect(observeStage(getPod("p"))).toBe("Ready");
    clock.step(5000);
    await settle("default/p");
    const pod = getPod("p");
    expect(pod.status?.phase).toBe("Failed");
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("False");
  });

  it("fail-after from the image name, and invalid annotations are ignored", async () => {
    const { clock, registerNodes, addPod, settle, getPod } = setup();
    await registerNodes();
    addPod(newPod("img", { image: "example/app:fail-after-2s" }));
    expect(await settle("default/img")).toEqual({ requeueAfterMs: 2000 });
    clock.step(2000);
    await settle("default/img");
    expect(getPod("img").status?.phase).toBe("Failed");
    addPod(newPod("bad", { annotations: { [FAULT_ANNOTATION]: "explode" } }));
    await settle("default/bad");
    expect(observeStage(getPod("bad"))).toBe("Ready");
  });
});

describe("graceful deletion", () => {
  it("deletes a terminating pod with grace 0 after terminationGracePeriodSeconds × speedFactor", async () => {
    const { client, clock, registerNodes, addPod, settle, step, refresh, recorder } = setup({ speedFactor: 0.1 });
    await registerNodes();
    addPod(newPod("p"));
    await settle("default/p");
    // Mark it terminating as the API server does (deletionTimestamp + grace), bypassing the fake's delete.
    const pod = client.tracker.get(builtin.pods, "default", "p");
    client.tracker.delete(builtin.pods, "default", "p");
    client.tracker.create(builtin.pods, "default", {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: undefined, deletionTimestamp: new Date(clock.now() + 30_000).toISOString(), deletionGracePeriodSeconds: 30 },
    });
    refresh();
    client.clearActions();
    expect(await step("default/p")).toEqual({ requeueAfterMs: 3000 });
    clock.step(2999);
    expect(await step("default/p")).toEqual({ requeueAfterMs: 1 });
    expect(client.writeActions()).toEqual([]);
    clock.step(1);
    await step("default/p");
    const writes = client.writeActions();
    expect(writes).toHaveLength(2);
    // The terminal phase first, as a kubelet writes it before the delete.
    expect(writes[0]).toMatchObject({ verb: "update", subresource: "status", name: "p" });
    expect((writes[0].object as Pod).status?.phase).toBe("Failed");
    expect(writes[1]).toMatchObject({ verb: "delete", name: "p", options: { gracePeriodSeconds: 0, preconditions: { uid: pod.metadata?.uid } } });
    expect(client.tracker.list(builtin.pods, "default")).toEqual([]);
    expect(recorder.events).toContain("Normal Killing Stopping container app");
  });

  it("a deleted pod kept by a finalizer ends Failed: containers killed (137), DisruptionTarget kept", async () => {
    const { client, clock, registerNodes, addPod, settle, step, refresh } = setup({ speedFactor: 0.1 });
    await registerNodes();
    addPod(newPod("p"));
    await settle("default/p");
    const pod = client.tracker.get(builtin.pods, "default", "p") as unknown as Pod;
    client.tracker.delete(builtin.pods, "default", "p");
    const disruption = { type: "DisruptionTarget", status: "True", reason: "EvictionByEvictionAPI", message: "Eviction API: evicting" };
    client.tracker.create(builtin.pods, "default", {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: undefined, finalizers: ["batch.kubernetes.io/job-tracking"], deletionTimestamp: new Date(clock.now() + 1000).toISOString(), deletionGracePeriodSeconds: 1 },
      status: { ...pod.status, conditions: [...(pod.status?.conditions ?? []), disruption] },
    });
    refresh();
    // 1 s of grace × speedFactor 0.1 from when the kubelet first sees the deletion.
    expect(await step("default/p")).toEqual({ requeueAfterMs: 100 });
    clock.step(100);
    await step("default/p");
    const kept = client.tracker.get(builtin.pods, "default", "p") as unknown as Pod;
    expect(kept.status?.phase).toBe("Failed");
    expect(kept.status?.containerStatuses?.map((c) => c.state?.terminated)).toEqual([expect.objectContaining({ exitCode: 137, reason: "Error" })]);
    expect(kept.status?.conditions?.find((c) => c.type === "DisruptionTarget")).toMatchObject({ status: "True", reason: "EvictionByEvictionAPI" });
    expect(kept.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "PodFailed" });
  });
});

describe("graceful deletion of pods whose containers stop by themselves", () => {
  /** Marks the pod terminating as the API server does (deletionTimestamp + grace), bypassing the fake's delete. */
  function markDeleted(h: ReturnType<typeof setup>, name: string, grace = 30) {
    const pod = h.client.tracker.get(builtin.pods, "default", name);
    h.client.tracker.delete(builtin.pods, "default", name);
    h.client.tracker.create(builtin.pods, "default", {
      ...pod,
      metadata: { ...pod.metadata, resourceVersion: undefined, deletionTimestamp: new Date(h.clock.now() + grace * 1000).toISOString(), deletionGracePeriodSeconds: grace },
    });
    h.refresh();
  }
  const cases: Array<{ name: string; command: string[]; runFirstMs: number; wantDueMs: number }> = [
    { name: "a program that ends within the grace period: the pod goes when it ends", command: ["sleep", "5"], runFirstMs: 4_000, wantDueMs: 1_000 },
    { name: "a program that would end after the grace period: the grace period", command: ["sleep", "60"], runFirstMs: 1_000, wantDueMs: 3_000 },
    { name: "a program that runs forever: the grace period", command: ["sleep", "infinity"], runFirstMs: 1_000, wantDueMs: 3_000 },
  ];
  it.each(cases)("$name", async (t) => {
    const h = setup({ speedFactor: 0.1 });
    await h.registerNodes();
    const p = newPod("p", { image: "busybox" });
    p.spec!.containers[0].command = t.command;
    h.addPod(p);
    await h.settle("default/p");
    await h.settle("default/p");
    expect(h.getPod("p").status?.containerStatuses?.[0].state?.running).toBeDefined();
    h.clock.step(t.runFirstMs);
    markDeleted(h, "p");
    expect(await h.step("default/p")).toEqual({ requeueAfterMs: t.wantDueMs });
    h.clock.step(t.wantDueMs);
    await h.step("default/p");
    expect(h.client.tracker.list(builtin.pods, "default")).toEqual([]);
  });

  it("a pod that finished goes at once", async () => {
    const h = setup({ speedFactor: 0.1 });
    await h.registerNodes();
    const p = newPod("done", { image: "busybox" });
    p.spec!.restartPolicy = "Never";
    p.spec!.containers[0].command = ["true"];
    h.addPod(p);
    for (let i = 0; i < 5; i++) await h.settle("default/done");
    expect(h.getPod("done").status?.phase).toBe("Succeeded");
    markDeleted(h, "done");
    await h.step("default/done");
    expect(h.client.tracker.list(builtin.pods, "default")).toEqual([]);
  });
});

describe("running on the manager", () => {
  it("with heartbeats off, writes nothing once pods are running", async () => {
    const f = new ControllerFixture({ clock: new FakeClock() });
    new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, workers: 2 });
    f.seedAPI(builtin.pods, newPod("a"), newPod("b"));
    await f.start();
    const running = () => (f.client.tracker.list(builtin.pods, "default") as unknown as Pod[]).every((p) => observeStage(p) === "Ready");
    await f.eventually(running, { stepMs: 50, maxSteps: 2000 });
    expect(f.client.tracker.list(builtin.nodes, "")).toHaveLength(3);
    f.client.clearActions();
    for (let i = 0; i < 20; i++) await f.clock.advance(30_000);
    expect(f.writeActions()).toEqual([]);
    await f.stop();
  });

  it("with heartbeats on, renews leases every interval", async () => {
    const f = new ControllerFixture({ clock: new FakeClock() });
    new PodLifecycleSimulator(f.manager, { nodes: 2, heartbeatIntervalMs: 10_000, workers: 1 });
    await f.start();
    await f.eventually(() => f.client.tracker.list(builtin.nodes, "").length === 2);
    // Align with the heartbeat timer: the next tick is the first after the nodes exist.
    f.client.clearActions();
    await f.clock.advance(10_000);
    await f.clock.advance(10_000);
    const leaseWrites = f.writeActions().filter((a) => a.resource === "leases");
    // The first tick creates both leases, the second renews them.
    expect(leaseWrites.map((a) => a.verb)).toEqual(["create", "create", "update", "update"]);
    expect(f.writeActions().filter((a) => a.resource === "nodes" && a.subresource === "status")).toHaveLength(4);
    await f.stop();
  });

  it("runs a ReplicaSet's pods to Ready together with the ReplicaSet controller", async () => {
    const f = new ControllerFixture({ clock: new FakeClock() });
    new PodLifecycleSimulator(f.manager, { heartbeatIntervalMs: 0, workers: 2 });
    new ReplicaSetController(f.manager, { workers: 2 });
    const rs: ReplicaSet = {
      apiVersion: "apps/v1",
      kind: "ReplicaSet",
      metadata: { name: "web", namespace: "default", generation: 1 },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: "web" } },
        template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:1.27" }] } },
      },
    };
    f.seedAPI(builtin.replicaSets, rs);
    await f.start();
    const rsNow = () => f.client.tracker.get(builtin.replicaSets, "default", "web") as unknown as ReplicaSet;
    await f.eventually(() => rsNow().status?.availableReplicas === 3, { maxSteps: 2000 });
    const pods = f.client.tracker.list(builtin.pods, "default") as unknown as Pod[];
    expect(pods).toHaveLength(3);
    expect(new Set(pods.map((p) => p.spec?.nodeName)).size).toBe(3);
    expect(rsNow().status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, fullyLabeledReplicas: 3 });
    await f.stop();
  });
});

describe("pods that finish (programs)", () => {
  function jobPod(name: string, o: { command?: string[]; restartPolicy?: string; annotations?: Record<string, string>; init?: Array<{ name: string; command: string[] }> } = {}): Pod {
    const p = newPod(name, { image: "busybox", annotations: o.annotations });
    p.spec!.containers[0].command = o.command;
    p.spec!.restartPolicy = o.restartPolicy ?? "Never";
    if (o.init) p.spec!.initContainers = o.init.map((c) => ({ name: c.name, image: "busybox", command: c.command }));
    return p;
  }
  /** Reconciles the pod, stepping the fake clock to each requested time, until it stops asking. */
  async function runToEnd(h: ReturnType<typeof setup>, key: string, limitMs = 3_600_000) {
    const start = h.clock.now();
    for (let i = 0; i < 200; i++) {
      const r = await h.settle(key);
      if (r.requeueAfterMs === undefined) return;
      if (h.clock.now() - start > limitMs) return;
      h.clock.step(r.requeueAfterMs);
    }
    throw new Error("did not finish");
  }

  it("sh -c 'exit 0' under Never: Succeeded, terminated Completed, PodCompleted conditions", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(jobPod("ok", { command: ["sh", "-c", "exit 0"] }));
    await runToEnd(h, "default/ok");
    const pod = h.getPod("ok");
    expect(pod.status?.phase).toBe("Succeeded");
    const cs = pod.status?.containerStatuses?.[0];
    expect(cs).toMatchObject({ ready: false, started: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } });
    expect(cs?.state?.terminated?.containerID).toMatch(/^containerd:\/\//);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "PodCompleted" });
    expect(pod.status?.conditions?.find((c) => c.type === "PodReadyToStartContainers")?.status).toBe("False");
    expect(h.recorder.events).toContain("Normal Started Started container app");
  });

  it("runs for the simulated duration on the clock, then fails with the exit code (annotations)", async () => {
    const h = setup({ delays: { containerCreating: 100, running: 200 } });
    await h.registerNodes();
    h.addPod(jobPod("bad", { annotations: { "sim.kubeloop.dev/exit-code": "3", "sim.kubeloop.dev/run-seconds": "30" } }));
    const t0 = h.clock.now();
    await runToEnd(h, "default/bad");
    const pod = h.getPod("bad");
    expect(pod.status?.phase).toBe("Failed");
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 3, reason: "Error" });
    // containerCreating + running delays, then 30 s of running.
    expect(h.clock.now() - t0).toBe(100 + 200 + 30_000);
    const t = pod.status?.containerStatuses?.[0].state?.terminated;
    expect(Date.parse(t?.finishedAt ?? "") - Date.parse(t?.startedAt ?? "")).toBe(30_000);
  });

  it("OnFailure restarts a failing container with back-off 0, 10 s, 20 s … in CrashLoopBackOff, pod Running", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(jobPod("crash", { command: ["sh", "-c", "sleep 1; exit 1"], restartPolicy: "OnFailure" }));
    const restartsAt: number[] = [];
    const t0 = h.clock.now();
    let last = 0;
    for (let i = 0; i < 100 && restartsAt.length < 4; i++) {
      const r = await h.settle("default/crash");
      const cs = h.getPod("crash").status?.containerStatuses?.[0];
      if ((cs?.restartCount ?? 0) > last) {
        last = cs?.restartCount ?? 0;
        restartsAt.push(h.clock.now() - t0);
      }
      h.clock.step(r.requeueAfterMs ?? 0);
    }
    // Runs 1 s each time; restart 1 at once, then 10 s, 20 s, 40 s of back-off.
    expect(restartsAt).toEqual([1000, 1000 + 1000 + 10_000, 12_000 + 1000 + 20_000, 33_000 + 1000 + 40_000]);
    const pod = h.getPod("crash");
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.containerStatuses?.[0].lastState?.terminated).toMatchObject({ exitCode: 1, reason: "Error" });
    // After the 5th exit, the container waits in CrashLoopBackOff with 80 s.
    h.clock.step(1000);
    await h.settle("default/crash");
    const cs = h.getPod("crash").status?.containerStatuses?.[0];
    expect(cs?.state?.waiting?.reason).toBe("CrashLoopBackOff");
    expect(cs?.state?.waiting?.message).toMatch(/^back-off 1m20s restarting failed container=app pod=crash_default\(/);
    expect(h.recorder.events.filter((e) => e.startsWith("Warning BackOff")).length).toBeGreaterThan(0);
  });

  it("OnFailure: a container that exits 0 ends the pod Succeeded", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(jobPod("done", { command: ["sleep", "5"], restartPolicy: "OnFailure" }));
    await runToEnd(h, "default/done");
    expect(h.getPod("done").status?.phase).toBe("Succeeded");
  });

  it("Always restarts even a container that exits 0", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(jobPod("again", { command: ["true"], restartPolicy: "Always" }));
    await runToEnd(h, "default/again", 60_000);
    const pod = h.getPod("again");
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.containerStatuses?.[0].restartCount).toBeGreaterThanOrEqual(3);
  });

  it("runs init containers in order before the containers; a failing one fails the pod under Never", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(jobPod("init", { command: ["true"], init: [{ name: "one", command: ["sleep", "2"] }, { name: "two", command: ["sleep", "3"] }] }));
    await h.settle("default/init");
    expect(h.getPod("init").status?.initContainerStatuses?.map((s) => Object.keys(s.state ?? {})[0])).toEqual(["running", "waiting"]);
    expect(h.getPod("init").status?.containerStatuses?.[0].state?.waiting?.reason).toBe("PodInitializing");
    expect(h.getPod("init").status?.conditions?.find((c) => c.type === "Initialized")).toMatchObject({
      status: "False",
      reason: "ContainersNotInitialized",
      message: "containers with incomplete status: [one two]",
    });
    h.clock.step(2000);
    await h.settle("default/init");
    expect(h.getPod("init").status?.initContainerStatuses?.map((s) => Object.keys(s.state ?? {})[0])).toEqual(["terminated", "running"]);
    expect(h.getPod("init").status?.phase).toBe("Pending");
    await runToEnd(h, "default/init");
    const pod = h.getPod("init");
    expect(pod.status?.phase).toBe("Succeeded");
    const t = (n: number) => Date.parse(pod.status?.initContainerStatuses?.[n].state?.terminated?.finishedAt ?? "");
    expect(t(1) - t(0)).toBe(3000);

    h.addPod(jobPod("badinit", { command: ["true"], init: [{ name: "one", command: ["false"] }] }));
    await runToEnd(h, "default/badinit");
    const bad = h.getPod("badinit");
    expect(bad.status?.phase).toBe("Failed");
    expect(bad.status?.containerStatuses?.[0].state?.waiting?.reason).toBe("PodInitializing");
  });

  /** Steps the clock to each due time until `done` or `limitMs` passed; returns the pod. */
  async function runUntil(h: ReturnType<typeof setup>, name: string, done: (p: Pod) => boolean, limitMs = 600_000) {
    const start = h.clock.now();
    for (let i = 0; i < 500; i++) {
      const r = await h.settle(`default/${name}`);
      const pod = h.getPod(name);
      if (done(pod)) return pod;
      if (r.requeueAfterMs === undefined || h.clock.now() - start > limitMs) break;
      h.clock.step(r.requeueAfterMs);
    }
    throw new Error(`${name} did not get there: ${JSON.stringify(h.getPod(name).status)}`);
  }
  const restarts = (p: Pod, i = 0) => p.status?.containerStatuses?.[i].restartCount ?? 0;

  it("liveness: failureThreshold failures kill the container (137, Error) after the grace period; it restarts, restartCount+1", async () => {
    const h = setup();
    await h.registerNodes();
    const p = newPod("live", { annotations: { "sim.kubeloop.dev/probe.app.liveness": "fail" } });
    p.spec!.containers[0].livenessProbe = { httpGet: { path: "/healthz", port: 80 } };
    h.addPod(p);
    const t0 = h.clock.now();
    let pod = await runUntil(h, "live", (x) => x.status?.containerStatuses?.[0].state?.running !== undefined);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    pod = await runUntil(h, "live", (x) => restarts(x) === 1);
    // Ticks at 0, 10, 20 s: the third failure counts; grace 30 s × speedFactor 0.1; first restart at once.
    expect(h.clock.now() - t0).toBe(20_000 + 3_000);
    expect(pod.status?.containerStatuses?.[0].lastState?.terminated).toMatchObject({ exitCode: 137, reason: "Error" });
    expect(pod.status?.phase).toBe("Running");
    // Three for the first container, one for the new container's first tick (at its start).
    expect(h.recorder.events.filter((e) => e === "Warning Unhealthy Liveness probe failed: HTTP probe failed with statuscode: 500")).toHaveLength(4);
    expect(h.recorder.events).toContain("Normal Killing Container app failed liveness probe, will be restarted");
    pod = await runUntil(h, "live", (x) => restarts(x) === 2);
    // The second restart waits out the 10 s back-off.
    expect(h.clock.now() - t0).toBe(2 * 23_000 + 10_000);
  });

  it("liveness under restartPolicy Never: killed, not restarted, the pod fails", async () => {
    const h = setup();
    await h.registerNodes();
    const p = newPod("once", { annotations: { "sim.kubeloop.dev/probe.app.liveness": "fail" } });
    p.spec!.restartPolicy = "Never";
    p.spec!.terminationGracePeriodSeconds = 0;
    p.spec!.containers[0].livenessProbe = { exec: { command: ["true"] }, periodSeconds: 1, failureThreshold: 1 };
    h.addPod(p);
    const pod = await runUntil(h, "once", (x) => x.status?.phase === "Failed");
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137, reason: "Error" });
    expect(h.recorder.events).toContain("Normal Killing Container app failed liveness probe");
  });

  it("readiness: not ready until the probe passes, not ready again when it fails (ContainersNotReady)", async () => {
    const h = setup();
    await h.registerNodes();
    const p = newPod("ready", { annotations: { "sim.kubeloop.dev/probe.app.readiness": "fail-after=60" } });
    p.spec!.containers[0].readinessProbe = { httpGet: { path: "/readyz", port: 80 }, initialDelaySeconds: 5, periodSeconds: 5 };
    h.addPod(p);
    const t0 = h.clock.now();
    let pod = await runUntil(h, "ready", (x) => x.status?.containerStatuses?.[0].state?.running !== undefined);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ started: true, ready: false });
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady", message: "containers with unready status: [app]" });
    pod = await runUntil(h, "ready", (x) => x.status?.containerStatuses?.[0].ready === true);
    expect(h.clock.now() - t0).toBe(5_000);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    pod = await runUntil(h, "ready", (x) => x.status?.containerStatuses?.[0].ready === false);
    // Fails from 60 s on: ticks at 60, 65, 70 s; the third counts.
    expect(h.clock.now() - t0).toBe(70_000);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady" });
    expect(restarts(pod)).toBe(0);
    expect(h.recorder.events.filter((e) => e.startsWith("Warning Unhealthy Readiness probe failed: HTTP probe failed with statuscode: 500"))).toHaveLength(3);
  });

  it("startup: the container is not started (nor ready) until the startup probe passes; liveness waits for it", async () => {
    const h = setup();
    await h.registerNodes();
    const p = newPod("slow", { annotations: { "sim.kubeloop.dev/probe.app.startup": "pass-after=25", "sim.kubeloop.dev/probe.app.liveness": "fail" } });
    p.spec!.containers[0].startupProbe = { httpGet: { port: 80 }, periodSeconds: 10, failureThreshold: 30 };
    p.spec!.containers[0].livenessProbe = { httpGet: { port: 80 }, periodSeconds: 10, failureThreshold: 1 };
    h.addPod(p);
    const t0 = h.clock.now();
    let pod = await runUntil(h, "slow", (x) => x.status?.containerStatuses?.[0].state?.running !== undefined);
    expect(pod.status?.containerStatuses?.[0]).toMatchObject({ started: false, ready: false });
    pod = await runUntil(h, "slow", (x) => x.status?.containerStatuses?.[0].started === true);
    expect(h.clock.now() - t0).toBe(30_000);
    expect(pod.status?.containerStatuses?.[0].ready).toBe(true);
    // Liveness runs from the next tick after startup: killed at 40 s.
    pod = await runUntil(h, "slow", (x) => restarts(x) === 1);
    expect(h.clock.now() - t0).toBe(40_000 + 3_000);
  });

  it("a pod without probes keeps its timing and writes nothing once running", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(newPod("plain"));
    await runToEnd(h, "default/plain");
    h.client.clearActions();
    h.clock.step(600_000);
    expect((await h.settle("default/plain")).requeueAfterMs).toBeUndefined();
    expect(h.client.writeActions()).toEqual([]);
  });

  it("activeDeadlineSeconds: the pod fails with DeadlineExceeded and its containers are killed", async () => {
    const h = setup();
    await h.registerNodes();
    const p = jobPod("late", { command: ["sleep", "600"] });
    p.spec!.activeDeadlineSeconds = 30;
    h.addPod(p);
    const pod = await runUntil(h, "late", (x) => x.status?.phase === "Failed");
    expect(pod.status).toMatchObject({ reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" });
    expect(pod.status?.containerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137 });
    expect(h.recorder.events).toContain("Warning DeadlineExceeded Pod was active on the node longer than the specified deadline");
  });

  it("leaves pods without finite programs running forever", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(newPod("web"));
    await runToEnd(h, "default/web");
    h.clock.step(3_600_000);
    await h.settle("default/web");
    expect(h.getPod("web").status?.phase).toBe("Running");
    expect(observeStage(h.getPod("web"))).toBe("Ready");
  });
});

describe("sidecars (restartPolicy Always init containers, KEP-753)", () => {
  function sidecarPod(name: string, o: { main: string[]; restartPolicy?: string; sidecar?: string[]; startup?: boolean; after?: string[] }): Pod {
    const p = newPod(name, { image: "busybox" });
    p.spec!.restartPolicy = o.restartPolicy ?? "Never";
    p.spec!.containers[0].command = o.main;
    p.spec!.initContainers = [
      { name: "proxy", image: "envoy", restartPolicy: "Always", ...(o.sidecar ? { command: o.sidecar } : {}), ...(o.startup ? { startupProbe: { httpGet: { port: 80 }, periodSeconds: 5, failureThreshold: 10 } } : {}) },
      ...(o.after ? [{ name: "setup", image: "busybox", command: o.after }] : []),
    ];
    return p;
  }
  async function run(h: ReturnType<typeof setup>, name: string, done: (p: Pod) => boolean) {
    for (let i = 0; i < 300; i++) {
      const r = await h.settle(`default/${name}`);
      if (done(h.getPod(name))) return h.getPod(name);
      if (r.requeueAfterMs === undefined) break;
      h.clock.step(r.requeueAfterMs);
    }
    throw new Error(`${name}: ${JSON.stringify(h.getPod(name).status)}`);
  }
  const state = (p: Pod) => [...(p.status?.initContainerStatuses ?? []), ...(p.status?.containerStatuses ?? [])].map((s) => `${s.name}:${Object.keys(s.state ?? {})[0]}`).join(" ");

  it("a Job-style pod: the sidecar starts first, keeps running beside the main container, is stopped when it finishes; Succeeded", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(sidecarPod("job", { main: ["sh", "-c", "sleep 5"] }));
    const t0 = h.clock.now();
    let pod = await run(h, "job", (p) => p.status?.containerStatuses?.[0].state?.running !== undefined);
    expect(state(pod)).toBe("proxy:running app:running");
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
    pod = await run(h, "job", (p) => p.status?.containerStatuses?.[0].state?.terminated !== undefined);
    // The main container is done; the sidecar runs on through the grace period (30 s × 0.1).
    expect(state(pod)).toBe("proxy:running app:terminated");
    expect(pod.status?.phase).toBe("Running");
    pod = await run(h, "job", (p) => p.status?.phase === "Succeeded");
    expect(h.clock.now() - t0).toBe(5_000 + 3_000);
    expect(pod.status?.initContainerStatuses?.[0].state?.terminated).toMatchObject({ exitCode: 137, reason: "Error" });
    expect(h.recorder.events).toContain("Normal Killing Stopping container proxy");
  });

  it("the pod's phase follows the main containers only: a failing main container fails the pod", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(sidecarPod("bad2", { main: ["sh", "-c", "exit 2"] }));
    const pod = await run(h, "bad2", (p) => p.status?.phase === "Failed");
    expect(pod.status?.containerStatuses?.[0].state?.terminated?.exitCode).toBe(2);
  });

  it("a sidecar that exits is restarted even under restartPolicy Never", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(sidecarPod("flaky", { main: ["sleep", "100"], sidecar: ["sh", "-c", "sleep 2; exit 1"] }));
    const pod = await run(h, "flaky", (p) => (p.status?.initContainerStatuses?.[0].restartCount ?? 0) >= 2);
    expect(pod.status?.phase).toBe("Running");
    expect(pod.status?.containerStatuses?.[0].restartCount).toBe(0);
  });

  it("the next init container waits until the sidecar's startup probe passed", async () => {
    const h = setup();
    await h.registerNodes();
    const p = sidecarPod("gated", { main: ["true"], startup: true, after: ["true"] });
    p.metadata!.annotations = { "sim.kubeloop.dev/probe.proxy.startup": "pass-after=12" };
    h.addPod(p);
    const t0 = h.clock.now();
    let pod = await run(h, "gated", (x) => x.status?.initContainerStatuses?.[0].state?.running !== undefined);
    expect(state(pod)).toBe("proxy:running setup:waiting app:waiting");
    expect(pod.status?.conditions?.find((c) => c.type === "Initialized")).toMatchObject({ status: "False", message: "containers with incomplete status: [proxy setup]" });
    pod = await run(h, "gated", (x) => x.status?.initContainerStatuses?.[1].state?.waiting === undefined);
    // Startup ticks at 0, 5, 10, 15 s: passes at 15.
    expect(h.clock.now() - t0).toBe(15_000);
    pod = await run(h, "gated", (x) => x.status?.phase === "Succeeded");
  });

  it("a sidecar stopped at the end runs its preStop hook first: one that outlives the grace period is cut off, then 2 s", async () => {
    const h = setup();
    await h.registerNodes();
    const p = sidecarPod("hooked", { main: ["sh", "-c", "sleep 5"] });
    p.spec!.initContainers![0].lifecycle = { preStop: { exec: { command: ["sh", "-c", "sleep 60; exit 1"] } } };
    h.addPod(p);
    const t0 = h.clock.now();
    const pod = await run(h, "hooked", (x) => x.status?.phase === "Succeeded");
    // 5 s of main container, then (30 s of grace + the 2 s minimum) × speedFactor 0.1.
    expect(h.clock.now() - t0).toBe(5_000 + 3_200);
    expect(pod.status?.initContainerStatuses?.[0].state?.terminated?.exitCode).toBe(137);
    // Cut off: its failure comes too late to count.
    expect(h.recorder.events).not.toContain("Warning FailedPreStopHook PreStopHook failed");
  });

  it("an unready sidecar makes the pod unready", async () => {
    const h = setup();
    await h.registerNodes();
    const p = sidecarPod("unready", { main: ["sleep", "100"] });
    p.spec!.initContainers![0].readinessProbe = { httpGet: { port: 80 } };
    p.metadata!.annotations = { "sim.kubeloop.dev/probe.proxy.readiness": "fail" };
    h.addPod(p);
    const pod = await run(h, "unready", (x) => x.status?.containerStatuses?.[0].state?.running !== undefined);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")).toMatchObject({ status: "False", reason: "ContainersNotReady", message: "containers with unready status: [proxy]" });
  });
});

describe("lifecycle hooks (postStart, preStop)", () => {
  function hookPod(name: string, o: { postStart?: LifecycleHandler; preStop?: LifecycleHandler; command?: string[]; restartPolicy?: string; annotations?: Record<string, string>; grace?: number } = {}): Pod {
    const p = newPod(name, { image: "busybox", annotations: o.annotations });
    const c = p.spec!.containers[0];
    if (o.command) c.command = o.command;
    c.lifecycle = { ...(o.postStart ? { postStart: o.postStart } : {}), ...(o.preStop ? { preStop: o.preStop } : {}) };
    if (o.restartPolicy) p.spec!.restartPolicy = o.restartPolicy;
    if (o.grace !== undefined) p.spec!.terminationGracePeriodSeconds = o.grace;
    return p;
  }
  async function runUntil(h: ReturnType<typeof setup>, name: string, done: (p: Pod) => boolean, limitMs = 600_000) {
    const start = h.clock.now();
    for (let i = 0; i < 500; i++) {
      const r = await h.settle(`default/${name}`);
      const pod = h.getPod(name);
      if (done(pod)) return pod;
      if (r.requeueAfterMs === undefined || h.clock.now() - start > limitMs) break;
      h.clock.step(r.requeueAfterMs);
    }
    throw new Error(`${name} did not get there: ${JSON.stringify(h.getPod(name).status)}`);
  }
  const app = (p: Pod, i = 0) => p.status?.containerStatuses?.[i];
  const runningNow = (p: Pod) => app(p)?.state?.running !== undefined;

  it("postStart: the container shows ContainerCreating until the hook returns, then runs since its start", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(hookPod("slow", { postStart: { sleep: { seconds: 5 } } }));
    const t0 = h.clock.now();
    await h.settle("default/slow");
    expect(await h.settle("default/slow")).toEqual({ requeueAfterMs: 5000 });
    expect(app(h.getPod("slow"))?.state?.waiting?.reason).toBe("ContainerCreating");
    expect(h.recorder.events).toContain("Normal Started Started container app");
    const pod = await runUntil(h, "slow", runningNow);
    expect(h.clock.now() - t0).toBe(5000);
    expect(Date.parse(app(pod)?.state?.running?.startedAt ?? "")).toBe(t0);
    expect(pod.status?.conditions?.find((c) => c.type === "Ready")?.status).toBe("True");
  });

  it("postStart holds the probes back: the first tick counted is the first one after the hook", async () => {
    const h = setup();
    await h.registerNodes();
    const p = hookPod("probed", { postStart: { exec: { command: ["sh", "-c", "sleep 15"] } } });
    p.spec!.containers[0].readinessProbe = { httpGet: { port: 80 }, periodSeconds: 10 };
    h.addPod(p);
    const t0 = h.clock.now();
    let pod = await runUntil(h, "probed", runningNow);
    expect(h.clock.now() - t0).toBe(15_000);
    expect(app(pod)?.ready).toBe(false);
    // Ticks at 0, 10, 20 s from the start: 20 s is the first after the hook.
    pod = await runUntil(h, "probed", (x) => app(x)?.ready === true);
    expect(h.clock.now() - t0).toBe(20_000);
  });

  it("the kubelet starts containers one after another: the next waits for the previous one's postStart", async () => {
    const h = setup();
    await h.registerNodes();
    const p = hookPod("two", { postStart: { sleep: { seconds: 4 } } });
    p.spec!.containers.push({ name: "second", image: "busybox" });
    h.addPod(p);
    const t0 = h.clock.now();
    const pod = await runUntil(h, "two", (x) => app(x, 1)?.state?.running !== undefined);
    expect(h.clock.now() - t0).toBe(4000);
    expect(Date.parse(app(pod, 1)?.state?.running?.startedAt ?? "") - t0).toBe(4000);
  });

  it("a failing postStart: FailedPostStartHook, killed after the grace period, PostStartHookError, then restarted with the back-off", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(hookPod("bad", { postStart: { exec: { command: ["sh", "-c", "sleep 2; exit 1"] } } }));
    const t0 = h.clock.now();
    let pod = await runUntil(h, "bad", (x) => app(x)?.state?.waiting?.reason === "PostStartHookError");
    // 2 s of hook, then the kill: 30 s of grace × speedFactor 0.1, ignored by the program.
    expect(h.clock.now() - t0).toBe(2000 + 3000);
    expect(app(pod)).toMatchObject({
      restartCount: 0,
      ready: false,
      state: { waiting: { reason: "PostStartHookError", message: expect.stringMatching(/^Exec lifecycle hook \(\[sh -c sleep 2; exit 1\]\) for Container "app" in Pod "bad_default\(.*\)" failed - error: command 'sh -c sleep 2; exit 1' exited with 1: , message: ""$/) } },
      lastState: { terminated: { exitCode: 137, reason: "Error" } },
    });
    expect(h.recorder.events).toEqual(expect.arrayContaining(["Warning FailedPostStartHook PostStartHook failed", "Normal Killing FailedPostStartHook"]));
    expect(h.recorder.events.indexOf("Warning FailedPostStartHook PostStartHook failed")).toBeLessThan(h.recorder.events.indexOf("Normal Killing FailedPostStartHook"));
    // The first restart is at once; its hook fails again; the second waits out 10 s in CrashLoopBackOff.
    pod = await runUntil(h, "bad", (x) => app(x)?.state?.waiting?.reason === "CrashLoopBackOff");
    expect(app(pod)?.restartCount).toBe(1);
    expect(h.clock.now() - t0).toBe(2 * 5000);
    // The third container starts after the back-off; it shows only once its hook and kill are over.
    pod = await runUntil(h, "bad", (x) => (app(x)?.restartCount ?? 0) === 2);
    expect(h.clock.now() - t0).toBe(2 * 5000 + 10_000 + 5000);
    expect(app(pod)?.state?.waiting?.message).toMatch(/^back-off 20s restarting failed container=app /);
    expect(h.recorder.events.filter((e) => e === "Warning FailedPostStartHook PostStartHook failed")).toHaveLength(3);
    expect(pod.status?.phase).toBe("Running");
  });

  it("a failing postStart under restartPolicy Never: the container stays terminated (137), the pod fails", async () => {
    const h = setup();
    await h.registerNodes();
    h.addPod(hookPod("once", { postStart: { httpGet: { path: "/warm", port: 80 } }, restartPolicy: "Never", annotations: { "sim.kubeloop.dev/hook.app.postStart": "fail" } }));
    const pod = await runUntil(h, "once", (x) => x.status?.phase === "Failed");
    expect(app(pod)?.state?.terminated).toMatchObject({ exitCode: 137, reason: "Error" });
    expect(app(pod)?.restartCount).toBe(0);
    expect(h.recorder.events).toContain("Warning FailedPostStartHook PostStartHook failed");
  });

  it("the kill after a failing postStart runs the preStop hook first", async () => {
    const h = setup();
    await h.registerNodes();
    // A preStop hook that outlives the 30 s grace period: cut off, then the 2 s minimum (× 0.1).
    h.addPod(hookPod("both", { postStart: { tcpSocket: { port: 80 } }, preStop: { sleep: { seconds: 60 } }, restartPolicy: "Never" }));
    const t0 = h.clock.now();
    const pod = await runUntil(h, "both", (x) => x.status?.phase === "Failed");
    expect(h.clock.now() - t0).toBe(3200);
    expect(app(pod)?.state?.terminated?.exitCode).toBe(137);
  });

  it("a liveness kill runs the preStop hook (its failure: FailedPreStopHook) before the container is stopped", async () => {
    const h = setup();
    await h.registerNodes();
    const p = hookPod("live", { preStop: { exec: { command: ["sh", "-c", "sleep 10; exit 1"] } }, annotations: { "sim.kubeloop.dev/probe.app.liveness": "fail" } });
    p.spec!.containers[0].livenessProbe = { httpGet: { path: "/healthz", port: 80 }, periodSeconds: 1, failureThreshold: 1 };
    h.addPod(p);
    const t0 = h.clock.now();
    await runUntil(h, "live", (x) => (app(x)?.restartCount ?? 0) === 1);
    // Killed at the first tick; the hook fails after 10 s × 0.1; the container gets 20 s × 0.1 more.
    expect(h.clock.now() - t0).toBe(3000);
    const killing = h.recorder.events.indexOf("Normal Killing Container app failed liveness probe, will be restarted");
    expect(killing).toBeGreaterThanOrEqual(0);
    expect(h.recorder.events.indexOf("Warning FailedPreStopHook PreStopHook failed")).toBeGreaterThan(killing);
  });

  describe("on deletion", () => {
    function markDeleted(h: ReturnType<typeof setup>, name: string) {
      const pod = h.client.tracker.get(builtin.pods, "default", name) as unknown as Pod;
      const grace = pod.spec?.terminationGracePeriodSeconds ?? 30;
      h.client.tracker.delete(builtin.pods, "default", name);
      h.client.tracker.create(builtin.pods, "default", {
        ...pod,
        metadata: { ...pod.metadata, resourceVersion: undefined, deletionTimestamp: new Date(h.clock.now() + grace * 1000).toISOString(), deletionGracePeriodSeconds: grace },
      } as never);
      h.refresh();
    }
    const cases: Array<{ name: string; preStop: LifecycleHandler; grace?: number; command?: string[]; runFirstMs?: number; annotations?: Record<string, string>; wantGoneMs: number; wantFailedAtMs?: number }> = [
      { name: "preStop sleep 5 within 30 s: the hook's time counts against the grace period (gone at 30 s × 0.1)", preStop: { sleep: { seconds: 5 } }, wantGoneMs: 3000 },
      { name: "an exec preStop of 5 s with 3 s of grace: cut off at 3 s, then the 2 s minimum", preStop: { exec: { command: ["sh", "-c", "sleep 5"] } }, grace: 3, wantGoneMs: 500 },
      { name: "preStop sleep 5 with 5 s of grace: the hook's 5 s, then the 2 s minimum", preStop: { sleep: { seconds: 5 } }, grace: 5, wantGoneMs: 700 },
      { name: "preStop sleep 29 of 30: what is left is below the 2 s minimum", preStop: { sleep: { seconds: 29 } }, wantGoneMs: 3100 },
      { name: "a failing exec preStop: FailedPreStopHook when it fails, the pod still waits out its grace", preStop: { exec: { command: ["sh", "-c", "sleep 4; exit 2"] } }, wantGoneMs: 3000, wantFailedAtMs: 400 },
      { name: "a failing httpGet preStop (annotation fail-after=1)", preStop: { httpGet: { path: "/drain", port: 80 } }, annotations: { "sim.kubeloop.dev/hook.app.preStop": "fail-after=1" }, wantGoneMs: 3000, wantFailedAtMs: 100 },
      { name: "tcpSocket fails at once", preStop: { tcpSocket: { port: 80 } }, wantGoneMs: 3000, wantFailedAtMs: 0 },
      { name: "a program that ends during the hook: the kubelet still waits for the hook", preStop: { sleep: { seconds: 20 } }, command: ["sleep", "5"], runFirstMs: 4000, wantGoneMs: 2000 },
      { name: "a program that ends after the hook: the pod goes when it ends", preStop: { sleep: { seconds: 2 } }, command: ["sleep", "5"], runFirstMs: 4000, wantGoneMs: 1000 },
    ];
    it.each(cases)("$name", async (t) => {
      const h = setup({ speedFactor: 0.1 });
      await h.registerNodes();
      h.addPod(hookPod("p", { preStop: t.preStop, grace: t.grace, command: t.command ?? ["sleep", "infinity"], annotations: t.annotations }));
      await runUntil(h, "p", runningNow);
      h.clock.step(t.runFirstMs ?? 1000);
      markDeleted(h, "p");
      const t0 = h.clock.now();
      const failed = () => h.recorder.events.filter((e) => e === "Warning FailedPreStopHook PreStopHook failed").length;
      for (let i = 0; i < 20 && h.client.tracker.list(builtin.pods, "default").length > 0; i++) {
        const r = await h.step("default/p");
        if (t.wantFailedAtMs !== undefined && h.clock.now() - t0 < t.wantFailedAtMs) expect(failed()).toBe(0);
        if (r.requeueAfterMs === undefined) break;
        h.clock.step(r.requeueAfterMs);
      }
      expect(h.client.tracker.list(builtin.pods, "default")).toEqual([]);
      expect(h.clock.now() - t0).toBe(t.wantGoneMs);
      expect(failed()).toBe(t.wantFailedAtMs === undefined ? 0 : 1);
      if (t.wantFailedAtMs !== undefined) expect(h.recorder.events.indexOf("Normal Killing Stopping container app")).toBeLessThan(h.recorder.events.indexOf("Warning FailedPreStopHook PreStopHook failed"));
    });
  });
});
