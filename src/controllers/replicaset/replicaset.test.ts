import type { ReplicaSet } from "../../apimachinery/api/apps/v1.js";
import type { Pod } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { builtin } from "../../client/typed.js";
import { DeletedFinalStateUnknown } from "../../informers/store.js";
import type { Action } from "../../testing/fakeclient.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { ReplicaSetController } from "./replicaset.js";
import { formatTime } from "./podutil.js";
import { SLOW_START_INITIAL_BATCH_SIZE } from "./slowstart.js";
import { EXPECTATIONS_TIMEOUT_MS } from "../../runtime/expectations.js";

const labelMap = { foo: "bar" };

function newReplicaSet(replicas: number, selector: Record<string, string> = labelMap, name = "foobar"): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name, namespace: "default", generation: 1, uid: `uid-${name}` },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...selector, name: "foo", type: "production" } },
        spec: { containers: [{ name: "c", image: "foo/bar" }], nodeSelector: { baz: "blah" } },
      },
    },
  };
}

interface PodOpts {
  phase?: string;
  ready?: boolean;
  readySince?: number;
  owned?: boolean;
  labels?: Record<string, string>;
  nodeName?: string;
}

function newPod(name: string, rs: ReplicaSet, o: PodOpts = {}): Pod {
  const phase = o.phase ?? "Running";
  const ready = o.ready ?? phase === "Running";
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: rs.metadata?.namespace,
      uid: `uid-${name}`,
      labels: o.labels ?? { ...(rs.spec?.selector?.matchLabels ?? {}) },
      ...(o.owned === false
        ? {}
        : {
            ownerReferences: [
              { apiVersion: "apps/v1", kind: "ReplicaSet", name: rs.metadata?.name ?? "", uid: rs.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true },
            ],
          }),
    },
    spec: { containers: [{ name: "c", image: "foo/bar" }], ...(o.nodeName ? { nodeName: o.nodeName } : {}) },
    status: {
      phase,
      ...(ready
        ? { conditions: [{ type: "Ready", status: "True", ...(o.readySince !== undefined ? { lastTransitionTime: formatTime(o.readySince) } : {}) }] }
        : {}),
    },
  };
}

function withMeta(pod: Pod, meta: Record<string, string>): Pod {
  return { ...pod, metadata: { ...pod.metadata, ...meta } };
}

function setup(burstReplicas?: number) {
  const f = new ControllerFixture();
  const rsc = new ReplicaSetController(f.manager, { burstReplicas });
  /** Stores an object in the fake API and in the informer cache, as a synced informer would. */
  const addRS = (rs: ReplicaSet): ReplicaSet => f.seed(builtin.replicaSets, rs)[0];
  const addPod = (pod: Pod): Pod => f.seed(builtin.pods, pod)[0];
  /** Replaces the cached ReplicaSet with the stored one (after a status write). */
  const refreshRS = (name = "foobar"): ReplicaSet => {
    const stored = f.client.tracker.get(builtin.replicaSets, "default", name) as unknown as ReplicaSet;
    rsc.rsInformer.indexer.update(stored);
    return stored;
  };
  return { f, clock: f.clock, client: f.client, informers: f.informers, recorder: f.recorder, rsc, addRS, addPod, refreshRS };
}

const verbs = (actions: Action[]) => actions.map((a) => `${a.verb} ${a.resource}${a.subresource ? `/${a.subresource}` : ""}`);
const count = (actions: Action[], verb: string, resource: string, sub?: string) =>
  actions.filter((a) => a.verb === verb && a.resource === resource && a.subresource === sub).length;

async function drainQueue(rsc: ReplicaSetController): Promise<string[]> {
  const keys: string[] = [];
  while (rsc.controller.queue.len() > 0) {
    const r = await rsc.controller.queue.get();
    if (r.shutdown) break;
    keys.push(r.item.toString());
    rsc.controller.queue.done(r.item);
  }
  return keys.sort();
}

describe("ReplicaSetController.syncReplicaSet", () => {
  it("does nothing when the pods and status already match", async () => {
    const { client, rsc, addRS, addPod } = setup();
    const rs: ReplicaSet = {
      ...newReplicaSet(2),
      status: { replicas: 2, fullyLabeledReplicas: 0, readyReplicas: 2, availableReplicas: 2, observedGeneration: 1, terminatingReplicas: 0 } as ReplicaSet["status"],
    };
    addRS(rs);
    addPod(newPod("pod0", rs));
    addPod(newPod("pod1", rs));
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(client.writeActions()).toEqual([]);
  });

  // DeploymentReplicaSetTerminatingReplicas (on by default since 1.35): the owned pods being
  // deleted that are not terminal yet, a pointer (absent with the gate off, 0 is a value).
  const deleting = (pod: Pod): Pod => ({ ...pod, metadata: { ...pod.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } });
  const rsFor = newReplicaSet(2);
  it.each([
    ["no pods being deleted", [newPod("a", rsFor), newPod("b", rsFor)], true, 0],
    ["a running pod being deleted", [newPod("a", rsFor), newPod("b", rsFor), deleting(newPod("c", rsFor))], true, 1],
    ["a pending pod being deleted", [newPod("a", rsFor), newPod("b", rsFor), deleting(newPod("c", rsFor, { phase: "Pending" }))], true, 1],
    ["terminal pods being deleted do not count", [newPod("a", rsFor), newPod("b", rsFor), deleting(newPod("c", rsFor, { phase: "Succeeded" })), deleting(newPod("d", rsFor, { phase: "Failed" }))], true, 0],
    ["a deleting pod of another controller does not count", [newPod("a", rsFor), newPod("b", rsFor), deleting(newPod("c", newReplicaSet(1, labelMap, "other")))], true, 0],
    ["a deleting orphan does not count (never adopted)", [newPod("a", rsFor), newPod("b", rsFor), deleting(newPod("c", rsFor, { owned: false }))], true, 0],
    ["the gate off: absent", [newPod("a", rsFor), newPod("b", rsFor), deleting(newPod("c", rsFor))], false, undefined],
  ] as Array<[string, Pod[], boolean, number | undefined]>)("status.terminatingReplicas: %s", async (_n, pods, gate, expected) => {
    const f = new ControllerFixture();
    const rsc = new ReplicaSetController(f.manager, { terminatingReplicas: gate });
    f.seed(builtin.replicaSets, newReplicaSet(2));
    for (const p of pods) f.seed(builtin.pods, p);
    f.client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    const status = f.client.writeActions().find((a) => a.subresource === "status")?.object as unknown as ReplicaSet;
    expect(status.status).toMatchObject({ replicas: 2 });
    expect((status.status as { terminatingReplicas?: number }).terminatingReplicas).toBe(expected);
    expect(f.client.writeActions().filter((a) => a.resource === "pods")).toEqual([]);
  });

  it("creates the missing pods from the template with the controller reference, and writes status", async () => {
    const { client, recorder, rsc, addRS } = setup();
    addRS(newReplicaSet(3));
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    const writes = client.writeActions();
    expect(verbs(writes)).toEqual(["create pods", "create pods", "create pods", "update replicasets/status"]);
    for (const a of writes.slice(0, 3)) {
      const pod = a.object as unknown as Pod;
      expect(a.namespace).toBe("default");
      expect(pod.metadata?.generateName).toBe("foobar-");
      expect(pod.metadata?.labels).toEqual({ foo: "bar", name: "foo", type: "production" });
      expect(pod.metadata?.ownerReferences).toEqual([
        { apiVersion: "apps/v1", kind: "ReplicaSet", name: "foobar", uid: "uid-foobar", controller: true, blockOwnerDeletion: true },
      ]);
      expect(pod.spec?.nodeSelector).toEqual({ baz: "blah" });
    }
    const status = (writes[3].object as unknown as ReplicaSet).status;
    expect(status).toEqual({ replicas: 0, fullyLabeledReplicas: 0, readyReplicas: 0, availableReplicas: 0, observedGeneration: 1, terminatingReplicas: 0 });
    expect(recorder.events).toHaveLength(3);
    for (const e of recorder.events) expect(e).toMatch(/^Normal SuccessfulCreate Created pod: foobar-[a-z0-9]{5}$/);
    expect(rsc.expectations.getExpectations("default/foobar")).toMatchObject({ add: 3, del: 0 });
  });

  it("does not create again while creations are expected (dormancy), and resumes once observed", async () => {
    const { client, clock, rsc, addRS, refreshRS } = setup();
    const rs = addRS(newReplicaSet(2));
    await rsc.syncReplicaSet("default/foobar");
    expect(count(client.writeActions(), "create", "pods")).toBe(2);
    refreshRS();

    // The cache has not seen the pods yet: a second sync must not create more.
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(count(client.writeActions(), "create", "pods")).toBe(0);

    // One creation observed: still waiting for the other.
    const created = client.tracker.list(builtin.pods, "default") as unknown as Pod[];
    rsc.podInformer.indexer.add(created[0]);
    rsc.addPod(created[0]);
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(false);
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(count(client.writeActions(), "create", "pods")).toBe(0);

    // The pod is deleted behind our back before the other shows up: after the expectations
    // expire, the ReplicaSet syncs again and replaces what is missing.
    clock.step(EXPECTATIONS_TIMEOUT_MS + 1);
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(true);
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    // One pod is in the cache, one is missing.
    expect(count(client.writeActions(), "create", "pods")).toBe(1);
    expect(rs.metadata?.name).toBe("foobar");
  });

  it("creates at most burstReplicas per sync, then the rest after the creations are observed", async () => {
    const { client, rsc, addRS } = setup(3);
    addRS(newReplicaSet(5));
    await rsc.syncReplicaSet("default/foobar");
    expect(count(client.writeActions(), "create", "pods")).toBe(3);
    for (const p of client.tracker.list(builtin.pods, "default") as unknown as Pod[]) {
      rsc.podInformer.indexer.add(p);
      rsc.addPod(p);
    }
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(count(client.writeActions(), "create", "pods")).toBe(2);
  });

  it("slow-starts creations and stops at the first failing batch, lowering expectations for the skipped", async () => {
    const { client, recorder, rsc, addRS } = setup();
    const createLimit = 10;
    addRS(newReplicaSet(createLimit * 10));
    let calls = 0;
    client.prependReactor("create", "pods", () => {
      calls++;
      return calls > createLimit ? { handled: true, error: StatusError.forbidden(builtin.pods, "", "exceeded quota") } : { handled: false };
    });
    client.clearActions();
    await expect(rsc.syncReplicaSet("default/foobar")).rejects.toThrow(/exceeded quota/);
    // Batches 1, 2, 4, 8: the fourth fails after 3 successes; nothing after it.
    let expectedLimit = 0;
    for (let pass = 0; expectedLimit <= createLimit; pass++) expectedLimit += SLOW_START_INITIAL_BATCH_SIZE << pass;
    expect(calls).toBeLessThanOrEqual(expectedLimit);
    expect(calls).toBe(15);
    expect(client.tracker.list(builtin.pods, "default")).toHaveLength(createLimit);
    // 100 expected, 90 never created: only the 10 real ones are awaited.
    expect(rsc.expectations.getExpectations("default/foobar")).toMatchObject({ add: createLimit });
    expect(recorder.events.filter((e) => e.startsWith("Normal SuccessfulCreate"))).toHaveLength(10);
    const failed = recorder.events.filter((e) => e.startsWith("Warning FailedCreate"));
    expect(failed).toHaveLength(5);
    expect(failed[0]).toContain("Error creating: ");
    expect(failed[0]).toContain("exceeded quota");
    // Status reports the failure.
    const statusWrite = client.writeActions().find((a) => a.subresource === "status");
    const cond = (statusWrite?.object as unknown as ReplicaSet).status?.conditions?.[0];
    expect(cond).toMatchObject({ type: "ReplicaFailure", status: "True", reason: "FailedCreate" });
    expect(cond?.message).toContain("exceeded quota");
  });

  it("clears the ReplicaFailure condition once pods can be managed again", async () => {
    const { client, rsc, addRS } = setup();
    const rs: ReplicaSet = {
      ...newReplicaSet(1),
      status: {
        replicas: 0,
        observedGeneration: 1,
        conditions: [{ type: "ReplicaFailure", status: "True", reason: "FailedCreate", message: "boom", lastTransitionTime: "2025-01-01T00:00:00Z" }],
      },
    };
    addRS(rs);
    await rsc.syncReplicaSet("default/foobar");
    const status = (client.writeActions().find((a) => a.subresource === "status")?.object as unknown as ReplicaSet).status;
    expect(status?.conditions).toBeUndefined();
  });

  it("treats creates refused for a terminating namespace as done, without events", async () => {
    const { client, recorder, rsc, addRS } = setup();
    addRS(newReplicaSet(2));
    const err = StatusError.forbidden(builtin.pods, "", "namespace default is being terminated");
    err.status.details = { ...err.status.details, causes: [{ reason: "NamespaceTerminating", message: "namespace default is being terminated" }] };
    client.prependReactor("create", "pods", () => ({ handled: true, error: err }));
    await rsc.syncReplicaSet("default/foobar");
    expect(recorder.events).toEqual([]);
  });

  it("deletes the excess pods, lowest ranked first, tracking them by key", async () => {
    const { client, recorder, rsc, addRS, addPod } = setup();
    const rs = addRS(newReplicaSet(2));
    const now = Date.UTC(2026, 0, 1);
    addPod(newPod("ready-old", rs, { nodeName: "n1", readySince: now - 86_400_000 }));
    addPod(newPod("ready-new", rs, { nodeName: "n2", readySince: now - 60_000 }));
    addPod(newPod("pending", rs, { phase: "Pending", nodeName: "n1" }));
    addPod(newPod("unscheduled", rs, { phase: "Pending" }));
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    const deletes = client.writeActions().filter((a) => a.verb === "delete");
    expect(deletes.map((a) => a.name).sort()).toEqual(["pending", "unscheduled"]);
    expect(recorder.events.sort()).toEqual(["Normal SuccessfulDelete Deleted pod: pending", "Normal SuccessfulDelete Deleted pod: unscheduled"]);
    expect([...(rsc.expectations.getSet("default/foobar") ?? [])].sort()).toEqual(["default/pending", "default/unscheduled"]);

    // A deletion seen twice (deletionTimestamp update, then the delete) is counted once.
    const pending = rsc.podInformer.indexer.getByKey("default/pending")!;
    rsc.deletePod(pending);
    rsc.deletePod(pending);
    expect(rsc.expectations.getExpectations("default/foobar")).toMatchObject({ del: 1 });
    rsc.deletePod(new DeletedFinalStateUnknown("default/unscheduled", rsc.podInformer.indexer.getByKey("default/unscheduled")));
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(true);
  });

  it("stops waiting for deletions that failed, and reports the first error", async () => {
    const { client, recorder, rsc, addRS, addPod } = setup();
    const rs = addRS(newReplicaSet(0));
    addPod(newPod("a", rs));
    addPod(newPod("b", rs));
    client.prependReactor("delete", "pods", (a) =>
      a.name === "a" ? { handled: true, error: StatusError.internalError(new Error("etcd is down")) } : { handled: true, error: StatusError.notFound(builtin.pods, a.name ?? "") },
    );
    await expect(rsc.syncReplicaSet("default/foobar")).rejects.toThrow(/unable to delete pods/);
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(true);
    expect(recorder.events).toEqual([expect.stringMatching(/^Warning FailedDelete Error deleting: .*etcd is down/)]);
    const status = (client.writeActions().find((a) => a.subresource === "status")?.object as unknown as ReplicaSet).status;
    expect(status?.conditions?.[0]).toMatchObject({ type: "ReplicaFailure", reason: "FailedDelete" });
  });

  it("adopts matching orphans after re-reading the ReplicaSet, and ignores pods of other owners", async () => {
    const { client, rsc, addRS, addPod } = setup();
    const rs = addRS(newReplicaSet(2));
    addPod(newPod("orphan", rs, { owned: false }));
    const other = newReplicaSet(1, labelMap, "other");
    addPod(newPod("theirs", other));
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    const actions = client.actions();
    expect(actions.filter((a) => a.verb === "get" && a.resource === "replicasets").map((a) => a.name)).toEqual(["foobar"]);
    const patches = actions.filter((a) => a.verb === "patch");
    expect(patches.map((a) => a.name)).toEqual(["orphan"]);
    expect(client.tracker.get(builtin.pods, "default", "orphan").metadata?.ownerReferences?.[0]).toMatchObject({ uid: "uid-foobar", controller: true });
    // The adopted pod counts: one more pod is created, not two.
    expect(count(client.writeActions(), "create", "pods")).toBe(1);
    expect(client.tracker.get(builtin.pods, "default", "theirs").metadata?.ownerReferences?.[0]?.uid).toBe("uid-other");
  });

  it("releases owned pods whose labels no longer match", async () => {
    const { client, rsc, addRS, addPod } = setup();
    const rs = addRS(newReplicaSet(1));
    addPod(newPod("stray", rs, { labels: { foo: "baz" } }));
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(client.writeActions().filter((a) => a.verb === "patch").map((a) => a.name)).toEqual(["stray"]);
    expect(client.tracker.get(builtin.pods, "default", "stray").metadata?.ownerReferences ?? []).toEqual([]);
    // It no longer counts: a replacement is created.
    expect(count(client.writeActions(), "create", "pods")).toBe(1);
  });

  it("takes no action for a ReplicaSet being deleted, but still writes status", async () => {
    const { client, rsc, addRS, addPod } = setup();
    const rs = newReplicaSet(3);
    rs.metadata = { ...rs.metadata, deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["foregroundDeletion"] };
    const stored = addRS(rs);
    addPod(newPod("pod0", stored));
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(verbs(client.writeActions())).toEqual(["update replicasets/status"]);
  });

  it("forgets the expectations of a deleted ReplicaSet", async () => {
    const { rsc } = setup();
    rsc.expectations.expectCreations("default/gone", 3);
    await rsc.syncReplicaSet("default/gone");
    expect(rsc.expectations.getExpectations("default/gone")).toBeUndefined();
  });

  it("computes ready and available replicas with minReadySeconds and requeues until available", async () => {
    const { client, clock, rsc, addRS, addPod } = setup();
    const rs = newReplicaSet(2);
    rs.spec = { ...rs.spec!, minReadySeconds: 10 };
    const stored = addRS(rs);
    const now = clock.now();
    addPod(newPod("long-ready", stored, { readySince: now - 60_000 }));
    addPod(newPod("just-ready", stored, { readySince: now - 1_000 }));
    const r = await rsc.syncReplicaSet("default/foobar");
    const status = (client.writeActions().find((a) => a.subresource === "status")?.object as unknown as ReplicaSet).status;
    expect(status).toMatchObject({ replicas: 2, readyReplicas: 2, availableReplicas: 1, fullyLabeledReplicas: 0 });
    expect(r).toEqual({ requeueAfterMs: 10_000 });
  });

  it("counts fully labeled replicas against the template labels", async () => {
    const { client, rsc, addRS, addPod } = setup();
    const rs = addRS(newReplicaSet(2));
    addPod(newPod("full", rs, { labels: { foo: "bar", name: "foo", type: "production", extra: "x" } }));
    addPod(newPod("partial", rs));
    await rsc.syncReplicaSet("default/foobar");
    const status = (client.writeActions().find((a) => a.subresource === "status")?.object as unknown as ReplicaSet).status;
    expect(status).toMatchObject({ replicas: 2, fullyLabeledReplicas: 1 });
  });

  it("ignores inactive pods (failed, succeeded, terminating)", async () => {
    const { client, rsc, addRS, addPod } = setup();
    const rs = addRS(newReplicaSet(1));
    addPod(newPod("failed", rs, { phase: "Failed" }));
    addPod(newPod("done", rs, { phase: "Succeeded" }));
    const terminating = newPod("terminating", rs);
    terminating.metadata = { ...terminating.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" };
    addPod(terminating);
    client.clearActions();
    await rsc.syncReplicaSet("default/foobar");
    expect(count(client.writeActions(), "create", "pods")).toBe(1);
  });

  it("retries a failed status update once after a fresh GET (1 get, 2 updates)", async () => {
    const { client, rsc, addRS } = setup();
    addRS(newReplicaSet(0));
    client.prependReactor("update", "replicasets", (a) => (a.subresource === "status" ? { handled: true, error: new Error("failed to update status") } : { handled: false }));
    client.clearActions();
    await expect(rsc.syncReplicaSet("default/foobar")).rejects.toThrow("failed to update status");
    const rsActions = client.actions().filter((a) => a.resource === "replicasets");
    expect(verbs(rsActions)).toEqual(["update replicasets/status", "get replicasets", "update replicasets/status"]);
  });
});

describe("ReplicaSetController event handlers", () => {
  it("observes creations of owned pods and enqueues the owner", async () => {
    const { rsc, addRS } = setup();
    const rs = addRS(newReplicaSet(1));
    rsc.expectations.expectCreations("default/foobar", 1);
    rsc.addPod(newPod("p", rs));
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(true);
    expect(await drainQueue(rsc)).toEqual(["default/foobar"]);
  });

  it("a pod whose controller reference points at a replaced ReplicaSet (other UID) is nobody's", async () => {
    const { rsc, addRS } = setup();
    const rs = addRS(newReplicaSet(1));
    const p = newPod("p", rs);
    p.metadata!.ownerReferences![0].uid = "some-other-uid";
    rsc.expectations.expectCreations("default/foobar", 1);
    rsc.addPod(p);
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(false);
    expect(await drainQueue(rsc)).toEqual([]);
  });

  it("an orphan pod wakes every ReplicaSet whose selector matches (TestPodControllerLookup)", async () => {
    const { rsc, addRS } = setup();
    const a = addRS(newReplicaSet(1, { foo: "bar" }, "a"));
    addRS(newReplicaSet(1, { foo: "bar" }, "b"));
    addRS(newReplicaSet(1, { other: "x" }, "c"));
    rsc.addPod(newPod("orphan", a, { owned: false }));
    expect(await drainQueue(rsc)).toEqual(["default/a", "default/b"]);
    // No labels: no ReplicaSet.
    rsc.addPod(newPod("bare", a, { owned: false, labels: {} }));
    expect(await drainQueue(rsc)).toEqual([]);
    // Matching labels in another namespace: no ReplicaSet.
    const elsewhere = newPod("elsewhere", a, { owned: false });
    elsewhere.metadata!.namespace = "ns";
    rsc.addPod(elsewhere);
    expect(await drainQueue(rsc)).toEqual([]);
  });

  it("a pod added while terminating counts as a deletion", () => {
    const { rsc, addRS } = setup();
    const rs = addRS(newReplicaSet(1));
    rsc.expectations.expectDeletions("default/foobar", ["default/p"]);
    rsc.addPod(withMeta(newPod("p", rs), { deletionTimestamp: "2026-01-01T00:00:00Z" }));
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(true);
  });

  // Upstream TestUpdatePods.
  it("wakes the right ReplicaSets on pod updates", async () => {
    const { rsc, addRS } = setup();
    const rs1 = addRS(newReplicaSet(1, { foo: "bar" }, "rs1"));
    const rs2 = addRS(newReplicaSet(1, { bar: "foo" }, "rs2"));
    const ref = (rs: ReplicaSet) => ({ apiVersion: "apps/v1", kind: "ReplicaSet", name: rs.metadata!.name!, uid: rs.metadata!.uid!, controller: true });
    const pod = (labels: Record<string, string>, owner: ReplicaSet | undefined, rv: string): Pod => ({
      metadata: { name: "pod", namespace: "default", labels, resourceVersion: rv, ...(owner ? { ownerReferences: [ref(owner)] } : {}) },
      status: { phase: "Running" },
    });

    // 1: a pod with a controller reference changes labels: only its owner syncs.
    rsc.updatePod(pod({ foo: "bar" }, rs1, "1"), pod({ bar: "foo" }, rs1, "2"));
    expect(await drainQueue(rsc)).toEqual(["default/rs1"]);
    // 2: the controller reference is removed: the former owner and label-matching ReplicaSets sync.
    rsc.updatePod(pod({ bar: "foo" }, rs1, "1"), pod({ bar: "foo" }, undefined, "2"));
    expect(await drainQueue(rsc)).toEqual(["default/rs1", "default/rs2"]);
    // 3: an orphan's labels change: matching ReplicaSets sync.
    rsc.updatePod(pod({ x: "y" }, undefined, "1"), pod({ bar: "foo" }, undefined, "2"));
    expect(await drainQueue(rsc)).toEqual(["default/rs2"]);
    // 4: the owner changes: both sync.
    rsc.updatePod(pod({ foo: "bar" }, rs1, "1"), pod({ foo: "bar" }, rs2, "2"));
    expect(await drainQueue(rsc)).toEqual(["default/rs1", "default/rs2"]);
    // Same resourceVersion (a resync): nothing.
    rsc.updatePod(pod({ foo: "bar" }, rs1, "3"), pod({ foo: "bar" }, rs1, "3"));
    expect(await drainQueue(rsc)).toEqual([]);
  });

  it("a pod getting a deletionTimestamp counts as deleted right away", () => {
    const { rsc, addRS } = setup();
    const rs = addRS(newReplicaSet(1));
    rsc.expectations.expectDeletions("default/foobar", ["default/p"]);
    const old = withMeta(newPod("p", rs), { resourceVersion: "1" });
    const cur = withMeta(newPod("p", rs), { resourceVersion: "2", deletionTimestamp: "2026-01-01T00:00:00Z" });
    rsc.updatePod(old, cur);
    expect(rsc.expectations.satisfiedExpectations("default/foobar")).toBe(true);
  });

  it("requeues after minReadySeconds (+1s) when a pod becomes ready", async () => {
    const { clock, rsc, addRS } = setup();
    const rs = newReplicaSet(1);
    rs.spec = { ...rs.spec!, minReadySeconds: 5 };
    const stored = addRS(rs);
    const old = withMeta(newPod("p", stored, { ready: false }), { resourceVersion: "1" });
    const cur = withMeta(newPod("p", stored, { ready: true }), { resourceVersion: "2" });
    rsc.updatePod(old, cur);
    expect(await drainQueue(rsc)).toEqual(["default/foobar"]);
    clock.step(5_999);
    expect(rsc.controller.queue.len()).toBe(0);
    clock.step(1);
    expect(await drainQueue(rsc)).toEqual(["default/foobar"]);
  });

  it("deleting a ReplicaSet (or a tombstone of it) forgets its expectations and enqueues it", async () => {
    const { rsc, addRS } = setup();
    const rs = addRS(newReplicaSet(1));
    rsc.expectations.expectCreations("default/foobar", 2);
    rsc.deleteRS(new DeletedFinalStateUnknown("default/foobar", rs));
    expect(rsc.expectations.getExpectations("default/foobar")).toBeUndefined();
    expect(await drainQueue(rsc)).toEqual(["default/foobar"]);
  });

  it("an update with a new UID is a deletion of the old ReplicaSet", async () => {
    const { rsc, addRS } = setup();
    const rs = addRS(newReplicaSet(1));
    rsc.expectations.expectCreations("default/foobar", 2);
    rsc.updateRS(rs, { ...rs, metadata: { ...rs.metadata, uid: "new-uid" } });
    expect(rsc.expectations.getExpectations("default/foobar")).toBeUndefined();
    expect(await drainQueue(rsc)).toEqual(["default/foobar"]);
  });
});

describe("the ReplicaSet controller running", () => {
  it("brings a ReplicaSet to its replica count through informers and workers", async () => {
    const f = new ControllerFixture();
    new ReplicaSetController(f.manager, { workers: 2 });
    f.seedAPI(builtin.replicaSets, newReplicaSet(3));
    await f.start();
    const current = () => f.client.tracker.get(builtin.replicaSets, "default", "foobar") as unknown as ReplicaSet;
    await f.eventually(() => f.client.tracker.list(builtin.pods, "default").length === 3 && current().status?.replicas === 3);
    await f.stop();
    expect(current().status).toMatchObject({ replicas: 3, observedGeneration: 1 });
    expect(f.recorder.events.filter((e) => e.includes("SuccessfulCreate"))).toHaveLength(3);
  });
});
