import type { Pod } from "../apimachinery/api/core/v1.js";
import type { ReplicaSet } from "../apimachinery/api/apps/v1.js";
import type { LabelSelector } from "../apimachinery/api/meta/v1.js";
import { describe, expect, it } from "vitest";
import { StatusError } from "../apimachinery/errors.js";
import { fieldErrors } from "../apimachinery/fielderrors.js";
import type { GroupVersionKind } from "../apimachinery/gvk.js";
import { selectorFromSet } from "../apimachinery/labels.js";
import { newControllerRef } from "../apimachinery/ownerrefs.js";
import { builtin } from "../client/typed.js";
import { FakeClient } from "../testing/fakeclient.js";
import { ControllerFixture } from "../testing/fixture.js";
import {
  ControllerRefManager,
  adoptPatch,
  deleteOwnerRefStrategicMergePatch,
  recheckDeletionTimestamp,
  releasePatch,
  resolveControllerRef,
  selectingOwners,
} from "./controllerrefmanager.js";

const productionLabel = { type: "production" };
const testLabel = { type: "testing" };
const productionSelector = selectorFromSet(productionLabel);
const controllerUID = "123";
const rsGVK: GroupVersionKind = { group: "apps", version: "v1", kind: "ReplicaSet" };
const NOW = "2026-01-01T00:00:00Z";

function newController(uid = controllerUID, opts: { deleting?: boolean; name?: string; namespace?: string } = {}): ReplicaSet {
  return {
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: { name: opts.name ?? "rs", namespace: opts.namespace ?? "default", uid, ...(opts.deleting ? { deletionTimestamp: NOW } : {}) },
    spec: { selector: { matchLabels: productionLabel }, template: {} },
  };
}

function newPod(name: string, labels: Record<string, string>, owner?: ReplicaSet, opts: { deleting?: boolean; namespace?: string } = {}): Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: opts.namespace ?? "default",
      uid: `uid-${name}`,
      labels,
      ...(owner ? { ownerReferences: [newControllerRef(owner, rsGVK)] } : {}),
      ...(opts.deleting ? { deletionTimestamp: NOW, finalizers: ["test/keep"] } : {}),
    },
    spec: { containers: [{ name: "c", image: "foo/bar" }] },
  };
}

interface Case {
  name: string;
  controller: ReplicaSet;
  pods: Pod[];
  filters?: Array<(p: Pod) => boolean>;
  finalizers?: string[];
  claimed: string[];
  /** Names patched, in order, with the kind of patch. */
  patches: Array<[string, "adopt" | "release"]>;
}

// Upstream TestClaimPods, plus the release/adopt requests each case must (not) send.
const cases: Case[] = [
  (() => {
    const c = newController();
    return {
      name: "Claim pods with correct label",
      controller: c,
      pods: [newPod("pod1", productionLabel), newPod("pod2", testLabel)],
      claimed: ["pod1"],
      patches: [["pod1", "adopt"]] as Case["patches"],
    };
  })(),
  (() => {
    const c = newController(controllerUID, { deleting: true });
    return {
      name: "Controller marked for deletion can not claim pods",
      controller: c,
      pods: [newPod("pod1", productionLabel), newPod("pod2", productionLabel)],
      claimed: [],
      patches: [],
    };
  })(),
  (() => {
    const c = newController(controllerUID, { deleting: true });
    return {
      name: "Controller marked for deletion can not claim new pods",
      controller: c,
      pods: [newPod("pod1", productionLabel, c), newPod("pod2", productionLabel)],
      claimed: ["pod1"],
      patches: [],
    };
  })(),
  (() => {
    const c = newController();
    const c2 = newController("AAAAA", { name: "rs2" });
    return {
      name: "Controller can not claim pods owned by another controller",
      controller: c,
      pods: [newPod("pod1", productionLabel, c), newPod("pod2", productionLabel, c2)],
      claimed: ["pod1"],
      patches: [],
    };
  })(),
  (() => {
    const c = newController();
    return {
      name: "Controller releases claimed pods when selector doesn't match",
      controller: c,
      pods: [newPod("pod1", productionLabel, c), newPod("pod2", testLabel, c)],
      claimed: ["pod1"],
      patches: [["pod2", "release"]] as Case["patches"],
    };
  })(),
  (() => {
    const c = newController(controllerUID, { deleting: true });
    return {
      name: "Controller being deleted does not release non-matching pods",
      controller: c,
      pods: [newPod("pod1", testLabel, c)],
      claimed: [],
      patches: [],
    };
  })(),
  (() => {
    const c = newController();
    return {
      name: "Controller does not claim orphaned pods marked for deletion",
      controller: c,
      pods: [newPod("pod1", productionLabel, c, { deleting: true }), newPod("pod2", productionLabel, undefined, { deleting: true })],
      claimed: ["pod1"],
      patches: [],
    };
  })(),
  (() => {
    const c = newController();
    return {
      name: "Controller claims or release pods according to selector with finalizers",
      controller: c,
      finalizers: ["foo-finalizer", "bar-finalizer"],
      pods: [newPod("pod1", productionLabel, c), newPod("pod2", testLabel, c), newPod("pod3", productionLabel)],
      claimed: ["pod1", "pod3"],
      patches: [
        ["pod2", "release"],
        ["pod3", "adopt"],
      ] as Case["patches"],
    };
  })(),
  (() => {
    const c = newController();
    return {
      name: "Controller does not claim pods of different namespace",
      controller: c,
      pods: [newPod("pod1", productionLabel), newPod("pod2", productionLabel, undefined, { namespace: "fakens" })],
      claimed: ["pod1"],
      patches: [["pod1", "adopt"]] as Case["patches"],
    };
  })(),
  (() => {
    const c = newController(controllerUID, { namespace: "" });
    return {
      name: "Cluster scoped controller claims pods of specified namespace",
      controller: c,
      pods: [newPod("pod1", productionLabel), newPod("pod2", productionLabel, undefined, { namespace: "fakens" })],
      claimed: ["pod1", "pod2"],
      patches: [
        ["pod1", "adopt"],
        ["pod2", "adopt"],
      ] as Case["patches"],
    };
  })(),
  (() => {
    const c = newController();
    return {
      name: "Filters narrow what is claimed",
      controller: c,
      pods: [newPod("pod1", productionLabel), newPod("pod2", productionLabel), newPod("pod3", productionLabel, c)],
      filters: [(p: Pod) => p.metadata?.name !== "pod2" && p.metadata?.name !== "pod3"],
      claimed: ["pod1"],
      patches: [
        ["pod1", "adopt"],
        ["pod3", "release"],
      ] as Case["patches"],
    };
  })(),
];

function setup(controller: ReplicaSet, pods: Pod[], finalizers?: string[]) {
  const fake = new FakeClient();
  fake.seed(builtin.replicaSets, controller);
  fake.seed(builtin.pods, ...pods);
  // A cluster-scoped owner's client reads every namespace; a patch names the pod's own.
  const podClient = fake.resource(builtin.pods, "default");
  const rsClient = fake.resource(builtin.replicaSets, controller.metadata?.namespace || "default");
  let canAdoptCalls = 0;
  const recheck = recheckDeletionTimestamp(() => rsClient.get(controller.metadata!.name!), controller.metadata!.uid!);
  const canAdopt = async () => {
    canAdoptCalls++;
    await recheck();
  };
  const mgr = new ControllerRefManager<Pod>({
    owner: controller,
    ownerGVK: rsGVK,
    selector: productionSelector,
    client: (pod: Pod) => fake.resource(builtin.pods, pod.metadata?.namespace ?? ""),
    canAdopt,
    finalizers,
  });
  return { fake, podClient, rsClient, mgr, canAdoptCalls: () => canAdoptCalls };
}

describe("ControllerRefManager.claim (upstream TestClaimPods)", () => {
  for (const tc of cases) {
    it(tc.name, async () => {
      const { fake, mgr } = setup(tc.controller, tc.pods, tc.finalizers);
      const claimed = await mgr.claim(tc.pods, tc.filters);
      expect(claimed.map((p) => p.metadata?.name)).toEqual(tc.claimed);
      const patches = fake.writeActions().map((a) => {
        expect(a.verb).toBe("patch");
        expect(a.patchType).toBe("strategic");
        const text = JSON.stringify(a.patch);
        // Upstream: every patch names the controller's UID and carries each finalizer.
        expect(text).toContain(controllerUID);
        for (const f of tc.finalizers ?? []) expect(text).toContain(f);
        const refs = (a.patch as { metadata: { ownerReferences: Array<Record<string, unknown>> } }).metadata.ownerReferences;
        return [a.name, refs[0].$patch === "delete" ? "release" : "adopt"];
      });
      expect(patches).toEqual(tc.patches);
      // The returned objects are the ones passed in, untouched.
      for (const p of claimed) expect(tc.pods).toContain(p);
    });
  }
});

describe("ControllerRefManager patches", () => {
  it("adopts with upstream's exact patch and the API object gains the controller reference", async () => {
    const rs = newController();
    const pod = newPod("pod1", productionLabel);
    const { fake, podClient, mgr } = setup(rs, [pod]);
    await mgr.claim([pod]);
    const patch = fake.writeActions()[0].patch;
    expect(JSON.stringify(patch)).toBe(
      `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"123","controller":true,"blockOwnerDeletion":true}],"uid":"uid-pod1"}}`,
    );
    const stored = await podClient.get("pod1");
    expect(stored.metadata?.ownerReferences).toEqual([
      { apiVersion: "apps/v1", kind: "ReplicaSet", name: "rs", uid: "123", controller: true, blockOwnerDeletion: true },
    ]);
  });

  it("releases with upstream's $patch:delete and the fake client's strategic patch removes only that reference", async () => {
    const rs = newController();
    const pod = newPod("pod2", testLabel, rs);
    pod.metadata!.ownerReferences = [
      { apiVersion: "v1", kind: "ConfigMap", name: "other", uid: "other-uid" },
      ...pod.metadata!.ownerReferences!,
    ];
    const { fake, podClient, mgr } = setup(rs, [pod]);
    expect(await mgr.claim([pod])).toEqual([]);
    expect(JSON.stringify(fake.writeActions()[0].patch)).toBe(`{"metadata":{"uid":"uid-pod2","ownerReferences":[{"$patch":"delete","uid":"123"}]}}`);
    const stored = await podClient.get("pod2");
    expect(stored.metadata?.ownerReferences).toEqual([{ apiVersion: "v1", kind: "ConfigMap", name: "other", uid: "other-uid" }]);
  });

  it("patch helpers build upstream's shapes", () => {
    expect(JSON.stringify(releasePatch("o", "d"))).toBe(`{"metadata":{"uid":"d","ownerReferences":[{"$patch":"delete","uid":"o"}]}}`);
    expect(JSON.stringify(adoptPatch(newController(), rsGVK, "d", ["f1"]))).toBe(
      `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"123","controller":true,"blockOwnerDeletion":true}],"uid":"d","finalizers":["f1"]}}`,
    );
    expect(() => adoptPatch({ metadata: { name: "x" } }, rsGVK, "d")).toThrow(/uid/);
  });

  // upstream TestGeneratePatchBytesForDelete: the exact bytes of the delete-owner-reference patch.
  it.each([
    ["check the structure of patch bytes", ["ss1"], "ss2", [], `{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1"}]}}`],
    ["check if parent uid is escaped", ['ss1"hello'], "ss2", [], `{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1\\"hello"}]}}`],
    ["check if revision uid uid is escaped", ["ss1"], 'ss2"hello', [], `{"metadata":{"uid":"ss2\\"hello","ownerReferences":[{"$patch":"delete","uid":"ss1"}]}}`],
    [
      "check the structure of patch bytes with multiple owners",
      ["ss1", "ss2"],
      "ss2",
      [],
      `{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1"},{"$patch":"delete","uid":"ss2"}]}}`,
    ],
    [
      "check the structure of patch bytes with a finalizer and multiple owners",
      ["ss1", "ss2"],
      "ss2",
      ["f1"],
      `{"metadata":{"uid":"ss2","ownerReferences":[{"$patch":"delete","uid":"ss1"},{"$patch":"delete","uid":"ss2"}],"$deleteFromPrimitiveList/finalizers":["f1"]}}`,
    ],
  ] as Array<[string, string[], string, string[], string]>)("%s", (_name, owners, dependent, finalizers, want) => {
    expect(JSON.stringify(deleteOwnerRefStrategicMergePatch(dependent, owners, ...finalizers))).toBe(want);
  });

  it("a release with finalizers removes them from the stored object", async () => {
    const rs = newController();
    const pod = newPod("pod2", testLabel, rs);
    pod.metadata!.finalizers = ["keep", "foo-finalizer"];
    const { fake, mgr } = setup(rs, [pod], ["foo-finalizer"]);
    await mgr.claim([pod]);
    const stored = fake.tracker.get(builtin.pods, "default", "pod2");
    expect(stored.metadata?.finalizers).toEqual(["keep"]);
    expect(stored.metadata?.ownerReferences ?? []).toEqual([]);
  });

  it("passes the field manager to its patches", async () => {
    const rs = newController();
    const pod = newPod("pod1", productionLabel);
    const fake = new FakeClient();
    fake.seed(builtin.pods, pod);
    const mgr = new ControllerRefManager<Pod>({
      owner: rs,
      ownerGVK: rsGVK,
      selector: productionSelector,
      client: fake.resource(builtin.pods, "default"),
      canAdopt: async () => {},
      fieldManager: "replicaset-controller",
    });
    await mgr.claim([pod]);
    expect(fake.writeActions()[0].options).toMatchObject({ fieldManager: "replicaset-controller" });
  });
});

describe("ControllerRefManager errors", () => {
  it("ignores a release that meets NotFound or Invalid", async () => {
    for (const error of [
      StatusError.notFound(builtin.pods, "pod2"),
      StatusError.invalid({ group: "", kind: "Pod" }, "pod2", [fieldErrors.invalid("metadata.uid", "uid-x", "field is immutable")]),
    ]) {
      const rs = newController();
      const pod = newPod("pod2", testLabel, rs);
      const { fake, mgr } = setup(rs, [pod]);
      fake.failNth("patch", "pods", 1, error);
      await expect(mgr.claim([pod])).resolves.toEqual([]);
    }
  });

  it("reports a release that fails otherwise", async () => {
    const rs = newController();
    const pod = newPod("pod2", testLabel, rs);
    const { fake, mgr } = setup(rs, [pod]);
    fake.failNth("patch", "pods", 1, StatusError.conflict(builtin.pods, "pod2", "boom"));
    await expect(mgr.claim([pod])).rejects.toSatisfy((e: unknown) => e instanceof StatusError && e.status.reason === "Conflict");
  });

  it("ignores an adoption that meets NotFound, and does not claim the object", async () => {
    const rs = newController();
    const pod = newPod("pod1", productionLabel);
    const { fake, mgr } = setup(rs, [pod]);
    fake.failNth("patch", "pods", 1, StatusError.notFound(builtin.pods, "pod1"));
    await expect(mgr.claim([pod])).resolves.toEqual([]);
  });

  it("fails the claim when an adoption fails, after visiting every object", async () => {
    const rs = newController();
    const pods = [newPod("pod1", productionLabel), newPod("pod2", productionLabel), newPod("pod3", productionLabel, rs)];
    const { fake, mgr } = setup(rs, pods);
    fake.failNth("patch", "pods", 1, StatusError.conflict(builtin.pods, "pod1", "taken"));
    await expect(mgr.claim(pods)).rejects.toSatisfy((e: unknown) => e instanceof StatusError);
    expect(fake.writeActions().map((a) => a.name)).toEqual(["pod1", "pod2"]);
  });

  it("aggregates several errors", async () => {
    const rs = newController();
    const pods = [newPod("pod1", productionLabel), newPod("pod2", productionLabel)];
    const { fake, mgr } = setup(rs, pods);
    fake.prependReactor("patch", "pods", (a) => ({ handled: true, error: new Error(`no ${a.name}`) }));
    await expect(mgr.claim(pods)).rejects.toThrow("[no pod1, no pod2]");
  });

  it("calls canAdopt once per claim call, and only when adopting", async () => {
    const rs = newController();
    const pods = [newPod("pod1", productionLabel), newPod("pod2", productionLabel), newPod("pod3", testLabel)];
    const { mgr, canAdoptCalls } = setup(rs, pods);
    await mgr.claim([pods[2]]);
    expect(canAdoptCalls()).toBe(0);
    await mgr.claim(pods);
    expect(canAdoptCalls()).toBe(1);
    await mgr.claim(pods);
    expect(canAdoptCalls()).toBe(2);
  });

  it("refuses adoption when the fresh owner is being deleted", async () => {
    const rs = newController();
    const pod = newPod("pod1", productionLabel);
    const { fake, rsClient, mgr } = setup(rs, [pod]);
    // The cache still shows a live owner; the API already has a deletionTimestamp.
    await rsClient.update({ ...rs, metadata: { ...rs.metadata, finalizers: ["x/y"] } });
    await rsClient.delete("rs");
    fake.clearActions();
    await expect(mgr.claim([pod])).rejects.toThrow(/^can't adopt Pod default\/pod1 \(uid-pod1\): default\/rs has just been deleted at /);
    expect(fake.writeActions()).toEqual([]);
  });

  it("refuses adoption when the owner was recreated with another UID", async () => {
    const rs = newController();
    const pod = newPod("pod1", productionLabel);
    const { fake, rsClient, mgr } = setup(rs, [pod]);
    await rsClient.delete("rs");
    await rsClient.create({ ...newController("456"), metadata: { name: "rs", namespace: "default", uid: "456" } });
    fake.clearActions();
    await expect(mgr.claim([pod])).rejects.toThrow(
      "can't adopt Pod default/pod1 (uid-pod1): can't recheck DeletionTimestamp: original ReplicaSet default/rs is gone: got uid 456, wanted 123",
    );
    expect(fake.writeActions()).toEqual([]);
  });

  it("refuses adoption when the owner is gone", async () => {
    const rs = newController();
    const pod = newPod("pod1", productionLabel);
    const { rsClient, mgr } = setup(rs, [pod]);
    await rsClient.delete("rs");
    await expect(mgr.claim([pod])).rejects.toThrow(/can't recheck DeletionTimestamp: .*not found/);
  });
});

describe("resolveControllerRef and selectingOwners", () => {
  it("resolves only a reference of the kind whose cached object has the reference's UID", () => {
    const f = new ControllerFixture();
    const [rs] = f.seed(builtin.replicaSets, newController());
    const lister = f.informers.forResource(builtin.replicaSets).lister();
    const ref = newControllerRef(rs, rsGVK);
    expect(resolveControllerRef(lister, "default", ref, "ReplicaSet")?.metadata?.name).toBe("rs");
    expect(resolveControllerRef(lister, "default", { ...ref, uid: "other" }, "ReplicaSet")).toBeUndefined();
    expect(resolveControllerRef(lister, "default", { ...ref, kind: "Deployment" }, "ReplicaSet")).toBeUndefined();
    expect(resolveControllerRef(lister, "default", { ...ref, name: "gone" }, "ReplicaSet")).toBeUndefined();
  });

  it("selects the owners whose non-empty, valid selector matches the labels", () => {
    const owner = (name: string, selector?: LabelSelector) => ({ metadata: { name }, spec: { selector } });
    const owners = [
      owner("match", { matchLabels: { type: "production" } }),
      owner("other", { matchLabels: { type: "testing" } }),
      owner("empty", {}),
      owner("invalid", { matchExpressions: [{ key: "type", operator: "Bogus" }] }),
      owner("absent"),
    ];
    expect(selectingOwners(owners, productionLabel).map((o) => o.metadata?.name)).toEqual(["match"]);
    expect(selectingOwners(owners, {})).toEqual([]);
    expect(selectingOwners(owners, undefined)).toEqual([]);
  });
});
