/**
 * The DaemonSet controller's sync, restating upstream's daemon_controller_test.go cases: launching
 * pods, node selectors and affinity, node names, taints and tolerations (the daemon tolerations
 * included), not-ready and unschedulable nodes, existing and failed pods, status and history.
 */
import type { DaemonSet } from "../../apimachinery/api/apps/v1.js";
import type { ControllerRevision } from "../../apimachinery/api/apps/v1.js";
import type { Node, Taint } from "../../apimachinery/api/core/v1.js";
import { describe, expect, it } from "vitest";
import { StatusError } from "../../apimachinery/errors.js";
import { builtin } from "../../client/typed.js";
import { DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY, FAILED_PODS_BACKOFF_INITIAL_MS } from "./constants.js";
import { shouldIgnoreNodeUpdate } from "./controller.js";
import { nodeShouldRunDaemonPod } from "./predicates.js";
import { daemonSetHash, daemonSetPatch, newDaemonSetRevision } from "./revisions.js";
import { affinityFor, DaemonSetHarness, newDaemonSet, newNode, newPod, nodes, simpleDaemonSetLabel, simpleDaemonSetLabel2, simpleNodeLabel, simpleNodeLabel2 } from "./fixture.js";

interface LaunchCase {
  name: string;
  nodes: () => Node[];
  ds?: (ds: DaemonSet) => void;
  creates: number;
  /** The nodes pods are created for, when it matters. */
  onNodes?: string[];
}

const noSchedule = (key: string, value = ""): Taint => ({ key, value, effect: "NoSchedule" });
const noExecute = (key: string, value = ""): Taint => ({ key, value, effect: "NoExecute" });

const launchCases: LaunchCase[] = [
  { name: "simple daemon set launches pods (5 nodes)", nodes: () => nodes(0, 5), creates: 5 },
  { name: "no nodes does nothing", nodes: () => [], creates: 0 },
  { name: "one node launches a pod", nodes: () => [newNode("only-node")], creates: 1, onNodes: ["only-node"] },
  { name: "a not-ready node still gets a daemon pod", nodes: () => [newNode("not-ready", undefined, { ready: false })], creates: 1 },
  { name: "an unschedulable node still gets a daemon pod", nodes: () => [newNode("cordoned", undefined, { unschedulable: true })], creates: 1 },
  {
    name: "node selector: only the matching nodes",
    nodes: () => [...nodes(0, 4), ...nodes(4, 3, { ...simpleNodeLabel })],
    ds: (ds) => (ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel }),
    creates: 3,
    onNodes: ["node-4", "node-5", "node-6"],
  },
  {
    name: "a node selector matching no node does nothing",
    nodes: () => [...nodes(0, 4), ...nodes(4, 1, { ...simpleNodeLabel })],
    ds: (ds) => (ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel2 }),
    creates: 0,
  },
  {
    name: "node name in the template: that node only",
    nodes: () => nodes(0, 5),
    ds: (ds) => (ds.spec!.template.spec!.nodeName = "node-0"),
    creates: 1,
    onNodes: ["node-0"],
  },
  { name: "a node name of no node does nothing", nodes: () => nodes(0, 5), ds: (ds) => (ds.spec!.template.spec!.nodeName = "node-10"), creates: 0 },
  {
    name: "node name and a consistent selector",
    nodes: () => [...nodes(0, 4), ...nodes(4, 3, { ...simpleNodeLabel })],
    ds: (ds) => {
      ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel };
      ds.spec!.template.spec!.nodeName = "node-6";
    },
    creates: 1,
    onNodes: ["node-6"],
  },
  {
    name: "node name and an inconsistent selector do nothing",
    nodes: () => [...nodes(0, 4), ...nodes(4, 3, { ...simpleNodeLabel })],
    ds: (ds) => {
      ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel };
      ds.spec!.template.spec!.nodeName = "node-0";
    },
    creates: 0,
  },
  {
    name: "required node affinity (matchExpressions) selects the nodes",
    nodes: () => [...nodes(0, 4), ...nodes(4, 3, { ...simpleNodeLabel })],
    ds: (ds) =>
      (ds.spec!.template.spec!.affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "color", operator: "In", values: ["blue"] }] }] } },
      }),
    creates: 3,
  },
  {
    name: "node affinity and node selector must both match",
    nodes: () => [...nodes(0, 4, { ...simpleNodeLabel2 }), ...nodes(4, 3, { ...simpleNodeLabel })],
    ds: (ds) => {
      ds.spec!.template.spec!.nodeSelector = { speed: "fast" };
      ds.spec!.template.spec!.affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "color", operator: "NotIn", values: ["blue"] }] }] } },
      };
    },
    creates: 4,
    onNodes: ["node-0", "node-1", "node-2", "node-3"],
  },
  { name: "a NoSchedule taint keeps an intolerant pod off", nodes: () => [newNode("tainted", undefined, { taints: [noSchedule("dedicated", "x")] })], creates: 0 },
  {
    name: "a tolerated NoSchedule taint does not",
    nodes: () => [newNode("tainted", undefined, { taints: [noSchedule("dedicated", "x")] })],
    ds: (ds) => (ds.spec!.template.spec!.tolerations = [{ key: "dedicated", operator: "Equal", value: "x", effect: "NoSchedule" }]),
    creates: 1,
  },
  { name: "a PreferNoSchedule taint does not keep pods off", nodes: () => [newNode("soft", undefined, { taints: [{ key: "dedicated", effect: "PreferNoSchedule" }] })], creates: 1 },
  { name: "not-ready NoExecute: tolerated by every daemon pod", nodes: () => [newNode("nr", undefined, { ready: false, taints: [noExecute("node.kubernetes.io/not-ready")] })], creates: 1 },
  { name: "unreachable NoExecute: tolerated by every daemon pod", nodes: () => [newNode("ur", undefined, { taints: [noExecute("node.kubernetes.io/unreachable")] })], creates: 1 },
  {
    name: "pressure and unschedulable taints: tolerated by every daemon pod",
    nodes: () => [
      newNode("pressure", undefined, {
        unschedulable: true,
        taints: [
          noSchedule("node.kubernetes.io/disk-pressure"),
          noSchedule("node.kubernetes.io/memory-pressure"),
          noSchedule("node.kubernetes.io/pid-pressure"),
          noSchedule("node.kubernetes.io/unschedulable"),
        ],
      }),
    ],
    creates: 1,
  },
  { name: "network-unavailable keeps a pod off", nodes: () => [newNode("nonet", undefined, { taints: [noSchedule("node.kubernetes.io/network-unavailable")] })], creates: 0 },
  {
    name: "network-unavailable: tolerated by host-network daemon pods",
    nodes: () => [newNode("nonet", undefined, { taints: [noSchedule("node.kubernetes.io/network-unavailable")] })],
    ds: (ds) => (ds.spec!.template.spec!.hostNetwork = true),
    creates: 1,
  },
];

describe("DaemonSet sync: which nodes get a pod (daemon_controller_test)", () => {
  it.each(launchCases)("$name", async (c) => {
    const ds = newDaemonSet("foo");
    c.ds?.(ds);
    const h = new DaemonSetHarness(ds, c.nodes());
    expect(await h.sync()).toEqual({ creates: c.creates, deletes: 0, events: 0 });
    if (c.onNodes) expect(h.createdNodes().sort()).toEqual([...c.onNodes].sort());
  });
});

describe("DaemonSet pods as created", () => {
  it("are pinned by node affinity, carry the daemon tolerations, the hash label and a controller reference; events as RealPodControl", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.template.spec!.tolerations = [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 5 }];
    ds.metadata!.annotations = { "deprecated.daemonset.template.generation": "3" };
    const h = new DaemonSetHarness(ds, [newNode("node-0")], { realPodControl: true });
    await h.sync();
    const created = h.f.actions().filter((a) => a.verb === "create" && a.resource === "pods");
    expect(created).toHaveLength(1);
    const pod = created[0].object as import("../../apimachinery/api/core/v1.js").Pod;
    expect(pod.metadata?.generateName).toBe("foo-");
    expect(pod.spec?.nodeName).toBeUndefined();
    expect(pod.spec?.affinity).toEqual(affinityFor("node-0"));
    expect(pod.metadata?.labels).toEqual({ ...simpleDaemonSetLabel, "pod-template-generation": "3", [DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]: daemonSetHash(h.ds) });
    expect(pod.metadata?.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "DaemonSet", name: "foo", uid: h.ds.metadata?.uid, controller: true, blockOwnerDeletion: true }]);
    // The user's not-ready toleration (with tolerationSeconds) is replaced by the daemon one.
    expect(pod.spec?.tolerations).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute" },
      { key: "node.kubernetes.io/disk-pressure", operator: "Exists", effect: "NoSchedule" },
      { key: "node.kubernetes.io/memory-pressure", operator: "Exists", effect: "NoSchedule" },
      { key: "node.kubernetes.io/pid-pressure", operator: "Exists", effect: "NoSchedule" },
      { key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" },
    ]);
    expect(h.f.recorder.events).toEqual([expect.stringMatching(/^Normal SuccessfulCreate Created pod: foo-/)]);
  });

  it("keeps a user's preferred node affinity and replaces the required one", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.template.spec!.affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "color", operator: "In", values: ["blue"] }] }] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: "speed", operator: "In", values: ["fast"] }] } }],
      },
    };
    const h = new DaemonSetHarness(ds, [newNode("node-0", { ...simpleNodeLabel })]);
    await h.sync();
    expect(h.created[0].spec?.affinity?.nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["node-0"] }] }] },
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchExpressions: [{ key: "speed", operator: "In", values: ["fast"] }] } }],
    });
    // The DaemonSet's template is untouched.
    expect(h.ds.spec?.template.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms[0].matchExpressions).toHaveLength(1);
  });

  it("an empty selector: a SelectingAll warning, nothing else", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.selector = {};
    const h = new DaemonSetHarness(ds, nodes(0, 2));
    expect(await h.sync()).toEqual({ creates: 0, deletes: 0, events: 1 });
    expect(h.f.recorder.events).toEqual(["Warning SelectingAll This daemon set is selecting all pods. A non-empty selector is required."]);
  });

  it("a DaemonSet being deleted is not synced (TestDaemonSetRespectsTermination)", async () => {
    const ds = newDaemonSet("foo");
    ds.metadata!.deletionTimestamp = "2026-01-01T00:00:00Z";
    ds.metadata!.finalizers = ["test/keep"];
    const h = new DaemonSetHarness(ds, nodes(0, 3));
    expect(await h.sync()).toEqual({ creates: 0, deletes: 0, events: 0 });
    expect(h.f.writeActions()).toEqual([]);
  });

  it("burstReplicas caps the creates of one sync; the expectations hold the next sync back", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 10), { burstReplicas: 3 });
    expect((await h.sync()).creates).toBe(3);
    h.clearExpectations();
    expect((await h.sync()).creates).toBe(3);
  });

  it("a failed create: FailedCreate, slow start stops, the pods never tried are not expected (TestSimpleDaemonSetPodCreateErrors)", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 5), { realPodControl: true });
    h.f.client.failNth("create", "pods", 2, StatusError.forbidden(builtin.pods, "", "exceeded quota"));
    await expect(h.sync()).rejects.toThrow(/exceeded quota/);
    // Batch 1 (one create) went through, batch 2 (two creates) had a failure: the last two never tried.
    expect(h.f.actions().filter((a) => a.verb === "create" && a.resource === "pods")).toHaveLength(3);
    expect(h.f.recorder.events.filter((e) => e.startsWith("Warning FailedCreate Error creating: "))).toHaveLength(1);
    // The one create that succeeded is still expected; the informer would observe it.
    expect(h.dsc.expectations.getExpectations(h.key)).toMatchObject({ add: 2, del: 0 });
  });

  it("unsatisfied expectations: only the status is written, without observedGeneration", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 2));
    h.dsc.expectations.setExpectations(h.key, 1, 0);
    expect(await h.sync()).toEqual({ creates: 0, deletes: 0, events: 0 });
    expect(h.stored().status).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 0, numberUnavailable: 2 });
    expect(h.stored().status?.observedGeneration).toBeUndefined();
  });
});

describe("existing pods (TestDealsWithExistingPods and friends)", () => {
  it("creates where missing, deletes extras beyond the oldest, leaves other DaemonSets' pods", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 5));
    h.addDaemonPods("node-1", 1);
    h.addDaemonPods("node-2", 2);
    h.addDaemonPods("node-3", 5);
    // Not selected: orphans with other labels are no daemon pods.
    h.addPods(newPod("other-", "node-4", { ...simpleDaemonSetLabel2 }), newPod("other-", "node-4", { ...simpleDaemonSetLabel2 }));
    expect(await h.sync()).toEqual({ creates: 2, deletes: 5, events: 0 });
    expect(h.createdNodes().sort()).toEqual(["node-0", "node-4"]);
  });

  it("selector change: pods on unselected nodes go (TestSelectorDaemonDeletesUnselectedPods)", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel };
    const h = new DaemonSetHarness(ds, [...nodes(0, 5), ...nodes(5, 5, { ...simpleNodeLabel })]);
    h.addDaemonPods("node-0", 2);
    h.addDaemonPods("node-1", 1);
    h.addDaemonPods("node-5", 1);
    expect(await h.sync()).toEqual({ creates: 4, deletes: 3, events: 0 });
    expect(h.stored().status).toMatchObject({ desiredNumberScheduled: 5, currentNumberScheduled: 5, numberMisscheduled: 0 });
  });

  it("orphans matching the selector are adopted, not duplicated", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 2));
    h.addPods(newPod("orphan-", "node-0", { ...simpleDaemonSetLabel }));
    expect(await h.sync()).toEqual({ creates: 1, deletes: 0, events: 0 });
    const adopt = h.f.actions().filter((a) => a.verb === "patch" && a.resource === "pods");
    expect(adopt.length).toBeGreaterThan(0);
    expect(JSON.stringify(adopt[0].patch)).toContain(h.ds.metadata?.uid ?? "?");
  });

  it("a NoSchedule taint added later does not evict a running intolerant pod; NoExecute does", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), [newNode("ns", undefined, { taints: [noSchedule("dedicated")] }), newNode("ne", undefined, { taints: [noExecute("dedicated")] })]);
    h.addDaemonPods("ns", 1);
    const [evicted] = h.addDaemonPods("ne", 1);
    expect(await h.sync()).toEqual({ creates: 0, deletes: 1, events: 0 });
    expect(h.deleted).toEqual([evicted.metadata?.name]);
    // The pod on the NoSchedule node is misscheduled but stays.
    expect(h.stored().status).toMatchObject({ desiredNumberScheduled: 0, numberMisscheduled: 1 });
  });

  it("unscheduled pods for nodes that no longer exist are deleted (TestDeleteUnscheduledPodForNotExistingNode)", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    h.addDaemonPods("node-0", 1);
    const gone = newPod("gone-", "", { ...simpleDaemonSetLabel }, h.ds);
    gone.spec = { containers: [{ name: "foo", image: "foo/bar" }], affinity: affinityFor("node-1") };
    const scheduledGone = newPod("gone-", "node-2", { ...simpleDaemonSetLabel }, h.ds);
    h.addPods(gone, scheduledGone);
    expect(await h.sync()).toEqual({ creates: 0, deletes: 1, events: 0 });
    expect(h.deleted).toEqual([gone.metadata?.name]);
  });
});

interface FailedCase {
  name: string;
  failed: number;
  normal: number;
  creates: number;
  deletes: number;
  events: number;
}

// TestDaemonKillFailedPods.
const failedCases: FailedCase[] = [
  { name: "normal (do nothing)", failed: 0, normal: 1, creates: 0, deletes: 0, events: 0 },
  { name: "no pods (create 1)", failed: 0, normal: 0, creates: 1, deletes: 0, events: 0 },
  { name: "1 failed pod (kill 1), 0 normal pod (create 0; will create in the next sync)", failed: 1, normal: 0, creates: 0, deletes: 1, events: 1 },
  { name: "1 failed pod (kill 1), 3 normal pods (kill 2)", failed: 1, normal: 3, creates: 0, deletes: 3, events: 1 },
];

describe("failed and succeeded daemon pods", () => {
  it.each(failedCases)("$name", async (c) => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    h.addDaemonPods("node-0", c.normal);
    h.addDaemonPods("node-0", c.failed, undefined, { phase: "Failed" });
    expect(await h.sync()).toEqual({ creates: c.creates, deletes: c.deletes, events: c.events });
    if (c.failed) expect(h.f.recorder.events[0]).toMatch(/^Warning FailedDaemonPod Found failed daemon pod default\/node-0-\d+ on node node-0, will try to kill it$/);
  });

  it("deleting failed pods backs off per node on the clock (TestDaemonKillFailedPodsBackoff)", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    const failAgain = () => h.addDaemonPods("node-0", 1, undefined, { phase: "Failed" });
    failAgain();
    expect(await h.sync()).toEqual({ creates: 0, deletes: 1, events: 1 });
    const key = `${h.ds.metadata?.uid}/0/node-0`;
    expect(h.dsc.failedPodsBackoff.get(key)).toBe(FAILED_PODS_BACKOFF_INITIAL_MS);

    // The kubelet rejects the replacement at once: within the back-off it is left alone.
    h.clearExpectations();
    failAgain();
    expect(await h.sync()).toEqual({ creates: 0, deletes: 0, events: 0 });
    // …and the DaemonSet is looked at again when the delay ends (enqueueDaemonSetAfter on the clock).
    expect(h.f.clock.hasWaiters()).toBe(true);

    // Past the delay it is deleted, and the next delay doubles.
    h.f.clock.step(FAILED_PODS_BACKOFF_INITIAL_MS);
    h.clearExpectations();
    expect(await h.sync()).toEqual({ creates: 0, deletes: 1, events: 1 });
    expect(h.dsc.failedPodsBackoff.get(key)).toBe(2 * FAILED_PODS_BACKOFF_INITIAL_MS);
  });

  it("a succeeded daemon pod is deleted with a SucceededDaemonPod event", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    h.addDaemonPods("node-0", 1, undefined, { phase: "Succeeded" });
    expect(await h.sync()).toEqual({ creates: 0, deletes: 1, events: 1 });
    expect(h.f.recorder.events[0]).toMatch(/^Normal SucceededDaemonPod Found succeeded daemon pod default\/node-0-\d+ on node node-0, will try to delete it$/);
  });
});

describe("status (TestNumberReadyStatus, TestObservedGeneration, minReadySeconds)", () => {
  it("counts scheduled, ready, available and updated pods; observedGeneration follows the generation", async () => {
    const ds = newDaemonSet("foo");
    ds.metadata!.generation = 4;
    const h = new DaemonSetHarness(ds, nodes(0, 3));
    expect((await h.sync()).creates).toBe(3);
    expect(h.stored().status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      numberReady: 0,
      updatedNumberScheduled: 3,
      numberAvailable: 0,
      numberUnavailable: 3,
      observedGeneration: 4,
    });
    h.markPodsReady();
    h.clearExpectations();
    await h.sync();
    expect(h.stored().status).toMatchObject({ numberReady: 3, numberAvailable: 3, numberUnavailable: 0 });
  });

  it("minReadySeconds: ready pods become available on the fake clock", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.minReadySeconds = 10;
    const h = new DaemonSetHarness(ds, nodes(0, 2));
    await h.sync();
    h.markPodsReady();
    h.clearExpectations();
    await h.sync();
    expect(h.stored().status).toMatchObject({ numberReady: 2, numberAvailable: 0, numberUnavailable: 2 });
    // Available strictly after lastTransitionTime + minReadySeconds.
    h.f.clock.step(10_000);
    h.clearExpectations();
    await h.sync();
    expect(h.stored().status).toMatchObject({ numberAvailable: 0 });
    h.f.clock.step(1000);
    h.clearExpectations();
    await h.sync();
    expect(h.stored().status).toMatchObject({ numberReady: 2, numberAvailable: 2, numberUnavailable: 0 });
  });

  it("writes nothing when the status already says so", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    await h.sync();
    h.f.informers.forResource(builtin.daemonSets).getIndexer().update(h.stored());
    h.ds = h.stored();
    h.clearExpectations();
    h.f.client.clearActions();
    await h.sync();
    expect(h.f.writeActions().filter((a) => a.resource === "daemonsets")).toEqual([]);
  });
});

describe("ControllerRevision history (update.go constructHistory, snapshot, cleanupHistory)", () => {
  it("the first sync snapshots the template as revision 1, named <ds>-<hash>, data a replace patch", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    await h.sync();
    const hash = daemonSetHash(h.ds);
    const rev = h.f.client.tracker.get(builtin.controllerRevisions, "default", `foo-${hash}`) as unknown as ControllerRevision;
    expect(rev.revision).toBe(1);
    expect(rev.metadata?.labels).toEqual({ ...simpleDaemonSetLabel, [DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]: hash });
    expect(rev.data).toEqual({ spec: { template: { ...h.ds.spec?.template, $patch: "replace" } } });
    expect(rev.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "DaemonSet", name: "foo", controller: true });
    expect(h.created[0].metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]).toBe(hash);
  });

  it("a new template gets the next revision number; old revisions beyond revisionHistoryLimit that no pod uses go, oldest first", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.revisionHistoryLimit = 1;
    const h = new DaemonSetHarness(ds, nodes(0, 1));
    const olds = [1, 2, 3].map((n) => {
      const variant: DaemonSet = JSON.parse(JSON.stringify(h.ds));
      variant.spec!.template.spec!.containers[0].image = `foo/bar:${n}`;
      return newDaemonSetRevision(variant, n);
    });
    h.f.seed(builtin.controllerRevisions, ...olds);
    // A pod still runs revision 1's template: its revision stays; 3 old − limit 1 = 2 go (2 and 3).
    h.addDaemonPods("node-0", 1, { ...simpleDaemonSetLabel, [DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]: olds[0].metadata!.labels![DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY] });
    await h.sync();
    const revs = (h.f.client.tracker.list(builtin.controllerRevisions, "default") as unknown as ControllerRevision[]).map((r) => [r.metadata?.name, r.revision]);
    expect(revs.sort()).toEqual([
      [olds[0].metadata?.name, 1],
      [`foo-${daemonSetHash(h.ds)}`, 4],
    ].sort());
  });

  it("an existing current revision with a lower number is renumbered", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    const variant: DaemonSet = JSON.parse(JSON.stringify(h.ds));
    variant.spec!.template.spec!.containers[0].image = "foo/old";
    h.f.seed(builtin.controllerRevisions, newDaemonSetRevision(h.ds, 1), newDaemonSetRevision(variant, 2));
    await h.sync();
    const cur = h.f.client.tracker.get(builtin.controllerRevisions, "default", `foo-${daemonSetHash(h.ds)}`) as unknown as ControllerRevision;
    expect(cur.revision).toBe(3);
  });

  it("a name clash with another template bumps status.collisionCount and fails the sync for a retry", async () => {
    const h = new DaemonSetHarness(newDaemonSet("foo"), nodes(0, 1));
    const clash = newDaemonSetRevision(h.ds, 1);
    clash.data = { spec: { template: { metadata: {}, spec: { containers: [{ name: "x", image: "other" }] }, $patch: "replace" } } };
    h.f.seedAPI(builtin.controllerRevisions, clash);
    await expect(h.sync()).rejects.toThrow(/already exists/);
    expect(h.stored().status?.collisionCount).toBe(1);
    expect(h.created).toEqual([]);
    // With the new count the hash (and the name) differ.
    h.ds = h.stored();
    h.f.informers.forResource(builtin.daemonSets).getIndexer().update(h.ds);
    await h.sync();
    expect(h.created[0].metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]).toBe(daemonSetHash(h.ds));
    expect(daemonSetHash(h.ds)).not.toBe(clash.metadata?.labels?.[DEFAULT_DAEMONSET_UNIQUE_LABEL_KEY]);
  });

  it("the stored patch is the template with $patch: replace", () => {
    const ds = newDaemonSet("foo");
    expect(daemonSetPatch(ds)).toEqual({ spec: { template: { ...ds.spec?.template, $patch: "replace" } } });
  });
});

interface ShouldRunCase {
  name: string;
  node: Node;
  ds: (ds: DaemonSet) => void;
  shouldRun: boolean;
  shouldContinueRunning: boolean;
}

// TestNodeShouldRunDaemonPod.
const shouldRunCases: ShouldRunCase[] = [
  { name: "a plain node", node: newNode("n"), ds: () => {}, shouldRun: true, shouldContinueRunning: true },
  { name: "node selector mismatch", node: newNode("n"), ds: (ds) => (ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel }), shouldRun: false, shouldContinueRunning: false },
  { name: "node selector match", node: newNode("n", { ...simpleNodeLabel }), ds: (ds) => (ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel }), shouldRun: true, shouldContinueRunning: true },
  { name: "node name mismatch", node: newNode("n"), ds: (ds) => (ds.spec!.template.spec!.nodeName = "other"), shouldRun: false, shouldContinueRunning: false },
  { name: "node name match", node: newNode("n"), ds: (ds) => (ds.spec!.template.spec!.nodeName = "n"), shouldRun: true, shouldContinueRunning: true },
  { name: "untolerated NoSchedule: not started, keeps running", node: newNode("n", undefined, { taints: [noSchedule("k", "v")] }), ds: () => {}, shouldRun: false, shouldContinueRunning: true },
  { name: "untolerated NoExecute: neither", node: newNode("n", undefined, { taints: [noExecute("k", "v")] }), ds: () => {}, shouldRun: false, shouldContinueRunning: false },
  {
    name: "tolerated NoExecute",
    node: newNode("n", undefined, { taints: [noExecute("k", "v")] }),
    ds: (ds) => (ds.spec!.template.spec!.tolerations = [{ key: "k", operator: "Exists", effect: "NoExecute" }]),
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: "matchFields metadata.name NotIn the node",
    node: newNode("n"),
    ds: (ds) =>
      (ds.spec!.template.spec!.affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "NotIn", values: ["n"] }] }] } },
      }),
    shouldRun: false,
    shouldContinueRunning: false,
  },
  {
    name: "terms are ORed",
    node: newNode("n", { zone: "a" }),
    ds: (ds) =>
      (ds.spec!.template.spec!.affinity = {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] }, { matchExpressions: [{ key: "zone", operator: "Exists" }] }],
          },
        },
      }),
    shouldRun: true,
    shouldContinueRunning: true,
  },
  {
    name: "Gt over a label",
    node: newNode("n", { cores: "8" }),
    ds: (ds) =>
      (ds.spec!.template.spec!.affinity = {
        nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "cores", operator: "Gt", values: ["16"] }] }] } },
      }),
    shouldRun: false,
    shouldContinueRunning: false,
  },
];

describe("nodeShouldRunDaemonPod (TestNodeShouldRunDaemonPod)", () => {
  it.each(shouldRunCases)("$name", (c) => {
    const ds = newDaemonSet("foo");
    c.ds(ds);
    expect(nodeShouldRunDaemonPod(c.node, ds)).toEqual({ shouldRun: c.shouldRun, shouldContinueRunning: c.shouldContinueRunning });
  });
});

describe("node updates (TestUpdateNode)", () => {
  it.each([
    { name: "nothing relevant changed", old: newNode("n", { a: "1" }), cur: { ...newNode("n", { a: "1" }), status: { conditions: [{ type: "Ready", status: "False" }] } }, ignore: true },
    { name: "labels changed", old: newNode("n", { a: "1" }), cur: newNode("n", { a: "2" }), ignore: false },
    { name: "taints changed", old: newNode("n"), cur: newNode("n", undefined, { taints: [noSchedule("k")] }), ignore: false },
  ])("$name", ({ old, cur, ignore }) => {
    expect(shouldIgnoreNodeUpdate(old, cur as Node)).toBe(ignore);
  });

  it("a node that starts matching, or holds a misscheduled pod, enqueues the DaemonSet", async () => {
    const ds = newDaemonSet("foo");
    ds.spec!.template.spec!.nodeSelector = { ...simpleNodeLabel };
    const h = new DaemonSetHarness(ds, [newNode("plain"), newNode("blue", { ...simpleNodeLabel })]);
    const q = h.dsc.controller.queue;
    h.dsc.syncNodeUpdate("plain");
    expect(q.len()).toBe(0);
    h.dsc.syncNodeUpdate("blue");
    expect(q.len()).toBe(1);
  });
});
