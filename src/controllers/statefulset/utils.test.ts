/**
 * stateful_set_utils_test.go tables, restated: ordinals from names, identity and storage
 * matching, claims, maxUnavailable arithmetic, claim owner references under each retention policy,
 * the versioned pod for an ordinal, revisions as template patches.
 */
import { describe, expect, it } from "vitest";
import type { StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import type { OwnerReference } from "../../apimachinery/api/meta/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import type { IntOrString } from "../../apimachinery/types.js";
import {
  applyRevision,
  getParentNameAndOrdinal,
  getPersistentVolumeClaims,
  getStatefulSetMaxUnavailable,
  identityMatches,
  isClaimOwnerUpToDate,
  newRevision,
  newStatefulSetPod,
  newVersionedStatefulSetPod,
  getPodRevision,
  storageMatches,
  updateClaimOwnerRefForSetAndPod,
  updateIdentity,
  updateStorage,
} from "./utils.js";

function newSet(replicas = 3): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "foo", namespace: "default", uid: "set-uid" },
    spec: {
      replicas,
      serviceName: "governingsvc",
      selector: { matchLabels: { foo: "bar" } },
      template: {
        metadata: { labels: { foo: "bar" } },
        spec: { containers: [{ name: "nginx", image: "nginx", volumeMounts: [{ name: "datadir", mountPath: "/tmp/" }] }], volumes: [{ name: "home", hostPath: { path: "/tmp/home" } }] },
      },
      volumeClaimTemplates: [{ metadata: { name: "datadir" }, spec: { resources: { requests: { storage: "1" } } } }],
    },
  };
}

describe("getParentNameAndOrdinal", () => {
  const cases: Array<[string, string, number]> = [
    ["foo-1", "foo", 1],
    ["foo-bar-12", "foo-bar", 12],
    ["foo", "", -1],
    ["foo-", "", -1],
    ["foo-99999999999", "foo", -1],
  ];
  for (const [name, parent, ordinal] of cases) {
    it(name, () => expect(getParentNameAndOrdinal({ metadata: { name } })).toEqual({ parent, ordinal }));
  }
});

describe("identityMatches / storageMatches (TestIdentityMatches, TestStorageMatches)", () => {
  const set = newSet();
  const pod = newStatefulSetPod(set, 1);
  it("a new pod matches", () => {
    expect(identityMatches(set, pod)).toBe(true);
    expect(storageMatches(set, pod)).toBe(true);
  });
  const identity: Array<[string, (p: Pod) => void]> = [
    ["another name", (p) => (p.metadata!.name = "foo-bar-1")],
    ["another namespace", (p) => (p.metadata!.namespace = "other")],
    ["no pod-name label", (p) => delete p.metadata!.labels!["statefulset.kubernetes.io/pod-name"]],
  ];
  for (const [name, mutate] of identity) {
    it(`identity: ${name} does not match, and updateIdentity repairs it`, () => {
      const p = deepCopy(pod);
      mutate(p);
      expect(identityMatches(set, p)).toBe(false);
      if (name !== "another name") {
        updateIdentity(set, p);
        expect(identityMatches(set, p)).toBe(true);
      }
    });
  }
  const storage: Array<[string, (p: Pod) => void]> = [
    ["no volumes", (p) => (p.spec!.volumes = [])],
    ["the claim volume is a hostPath", (p) => (p.spec!.volumes = [{ name: "datadir", hostPath: { path: "/tmp" } }])],
    ["the claim volume names another claim", (p) => (p.spec!.volumes = [{ name: "datadir", persistentVolumeClaim: { claimName: "foo" } }])],
  ];
  for (const [name, mutate] of storage) {
    it(`storage: ${name} does not match, and updateStorage repairs it keeping other volumes`, () => {
      const p = deepCopy(pod);
      mutate(p);
      expect(storageMatches(set, p)).toBe(false);
      updateStorage(set, p);
      expect(storageMatches(set, p)).toBe(true);
    });
  }
  it("updateStorage keeps the pod's own volumes after the claims", () => {
    expect(pod.spec?.volumes?.map((v) => v.name)).toEqual(["datadir", "home"]);
  });
});

it("getPersistentVolumeClaims: named per ordinal, in the set's namespace, labelled with the selector's matchLabels", () => {
  const set = newSet();
  set.spec!.volumeClaimTemplates![0].metadata!.labels = { extra: "x" };
  const claims = getPersistentVolumeClaims(set, newStatefulSetPod(set, 2));
  expect([...claims.keys()]).toEqual(["datadir"]);
  expect(claims.get("datadir")?.metadata).toEqual({ name: "datadir-foo-2", namespace: "default", labels: { extra: "x", foo: "bar" } });
});

describe("getStatefulSetMaxUnavailable (TestGetStatefulSetMaxUnavailable)", () => {
  const cases: Array<[IntOrString | undefined, number, number]> = [
    [undefined, 10, 1],
    [3, 10, 3],
    [3, 0, 3],
    [0, 0, 1],
    ["10%", 25, 2],
    ["100%", 5, 5],
    ["50%", 5, 2],
    ["10%", 5, 1],
    ["1%", 0, 1],
    ["0%", 0, 1],
  ];
  for (const [mu, replicas, want] of cases) {
    it(`${String(mu)} of ${replicas} → ${want}`, () => expect(getStatefulSetMaxUnavailable(mu, replicas)).toBe(want));
  }
});

describe("isClaimOwnerUpToDate / updateClaimOwnerRefForSetAndPod (TestIsClaimOwnerUpToDate, TestUpdateClaimOwnerRefForSetAndPod)", () => {
  const setRef = (uid = "set-uid"): OwnerReference => ({ apiVersion: "apps/v1", kind: "StatefulSet", name: "foo", uid, controller: true, blockOwnerDeletion: true });
  const podRef = (uid = "pod-uid"): OwnerReference => ({ apiVersion: "v1", kind: "Pod", name: "foo-2", uid, controller: true, blockOwnerDeletion: true });
  const other: OwnerReference = { apiVersion: "v1", kind: "ConfigMap", name: "x", uid: "x", controller: true };
  type P = "Retain" | "Delete";
  const cases: Array<{ name: string; whenDeleted: P; whenScaled: P; replicas: number; refs: OwnerReference[]; upToDate: boolean; after?: string[] }> = [
    { name: "retain/retain, no refs", whenDeleted: "Retain", whenScaled: "Retain", replicas: 3, refs: [], upToDate: true, after: [] },
    { name: "retain/retain, a set ref is removed", whenDeleted: "Retain", whenScaled: "Retain", replicas: 3, refs: [setRef()], upToDate: false, after: [] },
    { name: "delete on set deletion, set ref wanted", whenDeleted: "Delete", whenScaled: "Retain", replicas: 3, refs: [], upToDate: false, after: ["StatefulSet/foo"] },
    { name: "delete on set deletion, set ref present", whenDeleted: "Delete", whenScaled: "Retain", replicas: 3, refs: [setRef()], upToDate: true, after: ["StatefulSet/foo"] },
    { name: "delete on scale, in range: no refs", whenDeleted: "Retain", whenScaled: "Delete", replicas: 3, refs: [], upToDate: true, after: [] },
    { name: "delete on scale, scaled down: pod ref wanted", whenDeleted: "Retain", whenScaled: "Delete", replicas: 2, refs: [], upToDate: false, after: ["Pod/foo-2"] },
    { name: "delete/delete, in range: set ref", whenDeleted: "Delete", whenScaled: "Delete", replicas: 3, refs: [podRef()], upToDate: false, after: ["StatefulSet/foo"] },
    { name: "delete/delete, scaled down: pod ref, not set", whenDeleted: "Delete", whenScaled: "Delete", replicas: 2, refs: [setRef()], upToDate: false, after: ["Pod/foo-2"] },
    { name: "a stale set ref (other UID) leaves the claim alone", whenDeleted: "Delete", whenScaled: "Delete", replicas: 3, refs: [setRef("old")], upToDate: true },
    { name: "another controller and no refs of ours: left alone", whenDeleted: "Delete", whenScaled: "Delete", replicas: 3, refs: [other], upToDate: true, after: ["ConfigMap/x"] },
    { name: "another controller and a ref of ours: ours scrubbed", whenDeleted: "Delete", whenScaled: "Delete", replicas: 3, refs: [other, setRef()], upToDate: false, after: ["ConfigMap/x"] },
    {
      name: "a non-controller ref of ours needs an update",
      whenDeleted: "Delete",
      whenScaled: "Retain",
      replicas: 3,
      refs: [{ ...setRef(), controller: false }],
      upToDate: false,
      after: ["StatefulSet/foo"],
    },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const set = newSet(tc.replicas);
      set.spec!.persistentVolumeClaimRetentionPolicy = { whenDeleted: tc.whenDeleted, whenScaled: tc.whenScaled };
      const pod = newStatefulSetPod(set, 2);
      pod.metadata!.uid = "pod-uid";
      const claim: PersistentVolumeClaim = { metadata: { name: "datadir-foo-2", namespace: "default", ownerReferences: tc.refs } };
      expect(isClaimOwnerUpToDate(claim, set, pod)).toBe(tc.upToDate);
      if (tc.after) {
        const c = deepCopy(claim);
        updateClaimOwnerRefForSetAndPod(c, set, pod);
        expect((c.metadata?.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}`).sort()).toEqual(tc.after);
        expect(isClaimOwnerUpToDate(c, set, pod)).toBe(true);
      }
    });
  }
});

describe("newVersionedStatefulSetPod (the revision per ordinal)", () => {
  const cases: Array<{ name: string; strategy: NonNullable<StatefulSet["spec"]>["updateStrategy"]; currentReplicas: number; current: number[] }> = [
    { name: "RollingUpdate with partition 2: ordinals 0,1 current", strategy: { type: "RollingUpdate", rollingUpdate: { partition: 2 } }, currentReplicas: 0, current: [0, 1] },
    { name: "RollingUpdate without a block: below currentReplicas current", strategy: { type: "RollingUpdate" }, currentReplicas: 1, current: [0] },
    { name: "OnDelete: every new pod at the update revision", strategy: { type: "OnDelete" }, currentReplicas: 3, current: [] },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      const set = newSet();
      set.spec!.updateStrategy = tc.strategy;
      set.status = { replicas: 3, currentReplicas: tc.currentReplicas };
      const got = [0, 1, 2].filter((o) => getPodRevision(newVersionedStatefulSetPod(set, set, "cur", "upd", o)) === "cur");
      expect(got).toEqual(tc.current);
    });
  }
});

it("newRevision / applyRevision: the revision holds the template as a replace patch and restores it", () => {
  const set = newSet();
  set.metadata!.annotations = { a: "b" };
  const rev = newRevision(set, 1, 0);
  expect(rev.metadata?.annotations).toEqual({ a: "b" });
  expect((rev.data as { spec: { template: { $patch: string } } }).spec.template.$patch).toBe("replace");
  const changed = deepCopy(set);
  changed.spec!.template.spec!.containers[0].image = "other";
  changed.spec!.template.metadata!.labels = { foo: "bar", extra: "1" };
  const restored = applyRevision(changed, rev);
  expect(restored.spec?.template).toEqual(set.spec?.template);
  expect(restored.spec?.replicas).toBe(3);
});
