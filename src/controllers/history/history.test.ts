/**
 * Upstream's controller_history_test.go tables, restated: ListControllerRevisions,
 * CreateControllerRevision (renames on collision), UpdateControllerRevision (no-op, error,
 * conflict), DeleteControllerRevision, Adopt/ReleaseControllerRevision, FindEqualRevisions,
 * SortControllerRevisions — over the FakeClient (the "real" history; upstream's fake history is
 * the same contract over an indexer, so one table each suffices), with and without a lister.
 */
import { describe, expect, it } from "vitest";
import type { ControllerRevision, StatefulSet } from "../../apimachinery/api/apps/v1.js";
import type { PodTemplateSpec } from "../../apimachinery/api/core/v1.js";
import { deepCopy } from "../../apimachinery/deepcopy.js";
import { isNotFound, StatusError } from "../../apimachinery/errors.js";
import type { GroupVersionKind } from "../../apimachinery/gvk.js";
import { labelSelectorAsSelector } from "../../apimachinery/labels.js";
import { AlreadyOwnedError, isControlledBy } from "../../apimachinery/ownerrefs.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { Lister } from "../../informers/lister.js";
import { CacheIndexer, metaNamespaceIndexFunc, NAMESPACE_INDEX } from "../../informers/store.js";
import { FakeClient } from "../../testing/fakeclient.js";
import {
  CONTROLLER_REVISION_HASH_LABEL,
  controllerRevisionName,
  equalRevision,
  findEqualRevisions,
  fnv1_32,
  hashControllerRevision,
  newControllerRevision,
  nextRevision,
  RevisionHistory,
  sortControllerRevisions,
} from "./index.js";

const parentKind: GroupVersionKind = { group: "apps", version: "v1", kind: "StatefulSet" };

/** Upstream's newStatefulSet: set-based selector only, a volume claim template, a governing service. */
function newStatefulSet(replicas: number, name: string, uid: string, labels: Record<string, string>): StatefulSet {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name, namespace: "default", uid },
    spec: {
      selector: { matchExpressions: Object.entries(labels).map(([key, v]) => ({ key, operator: "In", values: [v] })) },
      replicas,
      template: {
        metadata: { labels: { ...labels } },
        spec: {
          containers: [
            {
              name: "nginx",
              image: "nginx",
              volumeMounts: [
                { name: "datadir", mountPath: "/tmp/" },
                { name: "home", mountPath: "/home" },
              ],
            },
          ],
          volumes: [{ name: "home", hostPath: { path: "/tmp/home" } }],
        },
      },
      volumeClaimTemplates: [{ metadata: { name: "datadir" }, spec: { resources: { requests: { storage: "1" } } } }],
      serviceName: "governingsvc",
    },
  };
}

function rawTemplate(t: PodTemplateSpec | undefined): unknown {
  return deepCopy(t);
}

function rev(ss: StatefulSet, revision: number, collisionCount?: number, template = ss.spec!.template): ControllerRevision {
  const r = newControllerRevision(ss, parentKind, ss.spec!.template.metadata?.labels, rawTemplate(template), revision, collisionCount);
  r.metadata!.namespace = ss.metadata!.namespace;
  return r;
}

const ss1 = newStatefulSet(3, "ss1", "ss1", { foo: "bar" });
const ss2 = newStatefulSet(3, "ss2", "ss2", { goo: "car" });
const sel1 = labelSelectorAsSelector(ss1.spec!.selector);

function listerOf(revisions: ControllerRevision[]): Lister<ControllerRevision> {
  const idx = new CacheIndexer<ControllerRevision>(undefined, { [NAMESPACE_INDEX]: metaNamespaceIndexFunc });
  for (const r of revisions) idx.add(r);
  return new Lister(idx, builtin.controllerRevisions);
}

describe("hash and name", () => {
  it("is FNV-1 (Go's fnv.New32), not FNV-1a", () => {
    // Reference values of FNV-1 32: "" → offset basis, "a" → 0x050c5d7e.
    expect(fnv1_32(new Uint8Array())).toBe(0x811c9dc5);
    expect(fnv1_32(new TextEncoder().encode("a"))).toBe(0x050c5d7e);
  });

  it("differs per collision count and is stable", () => {
    const r = rev(ss1, 1);
    expect(hashControllerRevision(r, 0)).not.toBe(hashControllerRevision(r, 1));
    expect(hashControllerRevision(r)).not.toBe(hashControllerRevision(r, 0));
    expect(hashControllerRevision(r, 2)).toBe(hashControllerRevision(deepCopy(r), 2));
    expect(hashControllerRevision(r)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
  });

  it("names prefix-hash with the prefix cut to 223 characters", () => {
    expect(controllerRevisionName("web", "abc")).toBe("web-abc");
    const long = "x".repeat(300);
    expect(controllerRevisionName(long, "h")).toBe(`${"x".repeat(223)}-h`);
  });

  it("newControllerRevision: controller reference, template labels plus the hash label, name from the hash", () => {
    const r = newControllerRevision(ss1, parentKind, { foo: "bar" }, { a: 1 }, 7, 0);
    const hash = hashControllerRevision(r, 0);
    expect(r.metadata?.name).toBe(`ss1-${hash}`);
    expect(r.metadata?.labels).toEqual({ foo: "bar", [CONTROLLER_REVISION_HASH_LABEL]: hash });
    expect(r.revision).toBe(7);
    expect(r.metadata?.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "StatefulSet", name: "ss1", uid: "ss1", controller: true, blockOwnerDeletion: true }]);
  });

  it("hashes data by content, not key order", () => {
    expect(hashControllerRevision({ data: { a: 1, b: { c: 2, d: 3 } } })).toBe(hashControllerRevision({ data: { b: { d: 3, c: 2 }, a: 1 } }));
  });
});

describe("ListControllerRevisions", () => {
  const ss1Rev1 = rev(ss1, 1);
  const ss1Rev2 = rev(ss1, 2);
  const ss2Rev1 = rev(ss2, 1);
  const ss1Orphan = rev(ss1, 3);
  delete ss1Orphan.metadata!.ownerReferences;
  // Distinct names (upstream's same-data revisions share a name but live only in an indexer keyed by name, so rename).
  ss1Rev2.metadata!.name += "-2";
  ss1Orphan.metadata!.name += "-orphan";
  const cases: Array<{ name: string; revisions: ControllerRevision[]; want: string[] }> = [
    { name: "selects none", revisions: [], want: [] },
    { name: "selects all", revisions: [ss1Rev1, ss1Rev2], want: [ss1Rev1.metadata!.name!, ss1Rev2.metadata!.name!] },
    { name: "doesn't select another Objects history", revisions: [ss1Rev1, ss1Rev2, ss2Rev1], want: [ss1Rev1.metadata!.name!, ss1Rev2.metadata!.name!] },
    {
      name: "selects orphans",
      revisions: [ss1Rev1, ss1Rev2, ss1Orphan],
      want: [ss1Rev1.metadata!.name!, ss1Rev2.metadata!.name!, ss1Orphan.metadata!.name!],
    },
  ];
  for (const tc of cases) {
    it(`${tc.name} (lister)`, async () => {
      const h = new RevisionHistory(new FakeClient(), { lister: listerOf(tc.revisions) });
      const got = (await h.list(ss1, sel1)).map((r) => r.metadata?.name).sort();
      expect(got).toEqual([...tc.want].sort());
    });
    it(`${tc.name} (API)`, async () => {
      const client = new FakeClient();
      client.seed(builtin.controllerRevisions, ...tc.revisions);
      const h = new RevisionHistory(client);
      const got = (await h.list(ss1, sel1, AbortSignal.timeout(60_000))).map((r) => r.metadata?.name).sort();
      expect(got).toEqual([...tc.want].sort());
      expect(client.actions()[0]).toMatchObject({ verb: "list", resource: "controllerrevisions", namespace: "default" });
    });
  }

  it("returns copies, never the cached objects", async () => {
    const lister = listerOf([ss1Rev1]);
    const [got] = await new RevisionHistory(new FakeClient(), { lister }).list(ss1, sel1);
    got.revision = 99;
    expect(lister.namespace("default").get(ss1Rev1.metadata!.name!).revision).toBe(1);
  });
});

describe("CreateControllerRevision", () => {
  const ss1Rev1 = rev(ss1, 1, 0);
  // Same name and hash label as ss1Rev1, other data: what a hash collision looks like.
  const modTemplate = deepCopy(ss1.spec!.template);
  modTemplate.metadata!.labels!.foo = "not_bar";
  const ss1Rev2 = rev(ss1, 2, 0, modTemplate);
  ss1Rev2.metadata!.name = ss1Rev1.metadata!.name;
  ss1Rev2.metadata!.labels![CONTROLLER_REVISION_HASH_LABEL] = ss1Rev1.metadata!.labels![CONTROLLER_REVISION_HASH_LABEL];
  const ss2Rev1 = rev(ss2, 1, 0);

  const cases: Array<{ name: string; parent: StatefulSet; revision: ControllerRevision; existing: ControllerRevision[]; rename: boolean }> = [
    { name: "creates new", parent: ss1, revision: ss1Rev1, existing: [], rename: false },
    { name: "create doesn't conflict when parents differ", parent: ss2, revision: ss2Rev1, existing: [ss1Rev1], rename: false },
    { name: "create renames on conflict", parent: ss1, revision: ss1Rev1, existing: [ss1Rev2], rename: true },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const client = new FakeClient();
      client.seed(builtin.controllerRevisions, ...tc.existing);
      const h = new RevisionHistory(client);
      const { revision: created, collisionCount } = await h.create(tc.parent, tc.revision, 0);
      if (tc.rename) {
        expect(created.metadata?.name).not.toBe(tc.revision.metadata?.name);
        expect(collisionCount).toBe(1);
        expect(created.metadata?.name).toBe(controllerRevisionName(tc.parent.metadata!.name!, hashControllerRevision(tc.revision, collisionCount)));
        // The second collision is with the identical revision just made: found, count unchanged.
        const again = await h.create(tc.parent, tc.revision, collisionCount);
        expect(again.collisionCount).toBe(1);
        expect(again.revision.metadata?.name).toBe(created.metadata?.name);
      } else {
        expect(created.metadata?.name).toBe(tc.revision.metadata?.name);
        expect(collisionCount).toBe(0);
      }
      expect(created.metadata?.namespace).toBe("default");
    });
  }

  it("a create that fails otherwise rejects with the API's error", async () => {
    const client = new FakeClient();
    client.failNth("create", "controllerrevisions", 1, StatusError.internalError(new Error("boom")));
    await expect(new RevisionHistory(client).create(ss1, ss1Rev1, 0)).rejects.toThrow(/boom/);
  });

  it("passes the signal to every call", async () => {
    const client = new FakeClient();
    client.seed(builtin.controllerRevisions, ss1Rev2);
    const signal = new AbortController().signal;
    await new RevisionHistory(client).create(ss1, ss1Rev1, 0, signal);
    const calls = client.actions();
    expect(calls.map((a) => a.verb)).toEqual(["create", "get", "create"]);
    for (const a of calls) expect(a.options?.signal).toBe(signal);
  });
});

describe("UpdateControllerRevision", () => {
  const ss1Rev1 = rev(ss1, 1, 0);
  const conflict = () => StatusError.conflict({ group: "apps", resource: "controllerrevisions" }, ss1Rev1.metadata!.name!, "conflict");
  const cases: Array<{ name: string; newRevision: number; failures: unknown[]; err: boolean }> = [
    { name: "update succeeds", newRevision: 2, failures: [], err: false },
    { name: "update succeeds no noop", newRevision: 1, failures: [], err: false },
    { name: "update fails on error", newRevision: 11, failures: [StatusError.internalError(new Error("internal error"))], err: true },
    { name: "update on succeeds on conflict", newRevision: 2, failures: [conflict(), conflict()], err: false },
    { name: "update gives up after repeated conflicts", newRevision: 2, failures: [conflict(), conflict(), conflict(), conflict()], err: true },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const client = new FakeClient();
      const [stored] = client.seed(builtin.controllerRevisions, ss1Rev1);
      const failures = [...tc.failures];
      client.prependReactor("update", "controllerrevisions", () => (failures.length > 0 ? { handled: true, error: failures.shift() } : { handled: false }));
      const h = new RevisionHistory(client);
      const p = h.updateRevision(stored, tc.newRevision);
      if (tc.err) {
        await expect(p).rejects.toBeInstanceOf(StatusError);
        return;
      }
      const updated = await p;
      expect(updated.revision).toBe(tc.newRevision);
      const stillThere = await client.resource(builtin.controllerRevisions, "default").get(ss1Rev1.metadata!.name!);
      expect(stillThere.revision).toBe(tc.newRevision);
      if (tc.newRevision === 1) expect(client.writeActions()).toEqual([]);
    });
  }
});

describe("DeleteControllerRevision", () => {
  const ss1Rev1 = rev(ss1, 1, 0);
  const ss2Rev1 = rev(ss2, 1, 0);
  const ss2Rev2 = rev(ss2, 2, 0);
  ss2Rev2.metadata!.name += "-2";
  const cases: Array<{ name: string; existing: ControllerRevision[]; err: boolean }> = [
    { name: "delete empty fails", existing: [], err: true },
    { name: "delete existing succeeds", existing: [ss1Rev1], err: false },
    { name: "delete non-existing fails", existing: [ss2Rev1, ss2Rev2], err: true },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const client = new FakeClient();
      client.seed(builtin.controllerRevisions, ...tc.existing);
      const p = new RevisionHistory(client).delete(ss1Rev1);
      if (tc.err) await expect(p).rejects.toSatisfy(isNotFound);
      else await p;
    });
  }
});

describe("AdoptControllerRevision", () => {
  const ss1Rev2 = rev(ss1, 2, 0);
  ss1Rev2.metadata!.ownerReferences = [];
  const ss2Rev1 = rev(ss2, 1, 0);
  const cases: Array<{ name: string; revision: ControllerRevision; existing: ControllerRevision[]; err: unknown }> = [
    { name: "adopting an orphan succeeds", revision: ss1Rev2, existing: [ss1Rev2], err: undefined },
    { name: "adopting an owned revision fails", revision: ss2Rev1, existing: [ss2Rev1], err: AlreadyOwnedError },
    { name: "adopting a non-existent revision fails", revision: ss1Rev2, existing: [], err: StatusError },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const client = new FakeClient();
      const stored = client.seed(builtin.controllerRevisions, ...tc.existing);
      const target = stored[0] ?? { ...tc.revision, metadata: { ...tc.revision.metadata, uid: "gone" } };
      const p = new RevisionHistory(client).adopt(ss1, parentKind, target);
      if (tc.err) {
        await expect(p).rejects.toBeInstanceOf(tc.err);
        return;
      }
      const adopted = await p;
      expect(isControlledBy(adopted, ss1)).toBe(true);
      expect(client.writeActions()[0]).toMatchObject({
        verb: "patch",
        patchType: "strategic",
        patch: {
          metadata: {
            ownerReferences: [{ apiVersion: "apps/v1", kind: "StatefulSet", name: "ss1", uid: "ss1", controller: true, blockOwnerDeletion: true }],
            uid: target.metadata?.uid,
          },
        },
      });
    });
  }
});

describe("ReleaseControllerRevision", () => {
  const ss1Rev1 = rev(ss1, 1);
  const ss1Rev2 = rev(ss1, 2);
  ss1Rev2.metadata!.name += "-2";
  ss1Rev2.metadata!.ownerReferences = [];
  const ss2Rev1 = rev(ss2, 1);
  const cases: Array<{ name: string; revision: ControllerRevision; existing: ControllerRevision[] }> = [
    { name: "releasing an owned revision succeeds", revision: ss1Rev1, existing: [ss1Rev1] },
    { name: "releasing an orphan succeeds", revision: ss1Rev2, existing: [ss1Rev2] },
    { name: "releasing a revision owned by another controller succeeds", revision: ss2Rev1, existing: [ss2Rev1] },
    { name: "releasing a non-existent revision succeeds", revision: ss1Rev1, existing: [] },
  ];
  for (const tc of cases) {
    it(tc.name, async () => {
      const client = new FakeClient();
      const stored = client.seed(builtin.controllerRevisions, ...tc.existing);
      const released = await new RevisionHistory(client).release(ss1, stored[0] ?? tc.revision);
      if (tc.existing.length === 0) {
        expect(released).toBeUndefined();
        return;
      }
      expect(released).toBeDefined();
      expect(isControlledBy(released!, ss1)).toBe(false);
    });
  }

  it("a revision recreated under the same name (UID precondition fails) is ignored", async () => {
    const client = new FakeClient();
    const [stored] = client.seed(builtin.controllerRevisions, ss1Rev1);
    const stale = { ...stored, metadata: { ...stored.metadata, uid: "another-uid" } };
    expect(await new RevisionHistory(client).release(ss1, stale)).toBeUndefined();
  });
});

describe("FindEqualRevisions", () => {
  const ss1Rev1 = rev(ss1, 1, 0);
  const ss1Rev2 = rev(ss1, 2, 0);
  ss1Rev2.metadata!.ownerReferences = [];
  const ss2Rev1 = rev(ss2, 1, 0);
  const ss2Rev2 = rev(ss2, 2, 0);
  const cases: Array<{ name: string; revision: ControllerRevision; revisions: ControllerRevision[]; want: ControllerRevision[] }> = [
    { name: "finds equivalent", revision: ss1Rev1, revisions: [ss1Rev1, ss2Rev1, ss2Rev2], want: [ss1Rev1] },
    { name: "finds nothing when empty", revision: ss1Rev1, revisions: [], want: [] },
    { name: "finds nothing with no matches", revision: ss1Rev1, revisions: [ss2Rev2, ss2Rev1], want: [] },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect(findEqualRevisions(tc.revisions, tc.revision)).toEqual(tc.want);
    });
  }

  it("equalRevision: both absent are equal, one absent is not, equal data with other key order is", () => {
    expect(equalRevision(undefined, undefined)).toBe(true);
    expect(equalRevision(ss1Rev1, undefined)).toBe(false);
    expect(equalRevision({ revision: 1, data: { a: 1, b: 2 } }, { revision: 2, data: { b: 2, a: 1 } })).toBe(true);
    // Hash labels that parse as integers and differ decide at once.
    expect(equalRevision({ revision: 1, metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: "1" } }, data: {} }, { revision: 1, metadata: { labels: { [CONTROLLER_REVISION_HASH_LABEL]: "2" } }, data: {} })).toBe(false);
  });
});

describe("SortControllerRevisions", () => {
  const t0 = Date.UTC(2026, 0, 1);
  const at = (r: ControllerRevision, ms: number, name?: string): ControllerRevision => ({
    ...r,
    metadata: { ...r.metadata, creationTimestamp: formatTime(ms), name: name ?? r.metadata?.name },
  });
  const ss1Rev1 = at(rev(ss1, 1, 0), t0, "rev1");
  const ss1Rev2 = at(rev(ss1, 2, 0), t0, "rev2");
  const ss1Rev3 = at(rev(ss1, 3, 0), t0, "rev3");
  const ss1Rev3Time2 = at(rev(ss1, 3, 0), t0 + 1000, "rev3-time2");
  const ss1Rev3Time2Name2 = at(rev(ss1, 3, 0), t0 + 1000, "rev3-time2-name2");
  const name = (r: ControllerRevision) => r.metadata!.name!;
  const cases: Array<{ name: string; revisions: ControllerRevision[]; want: string[] }> = [
    { name: "out of order", revisions: [ss1Rev2, ss1Rev1, ss1Rev3], want: ["rev1", "rev2", "rev3"] },
    { name: "sorted", revisions: [ss1Rev1, ss1Rev2, ss1Rev3], want: ["rev1", "rev2", "rev3"] },
    { name: "reversed", revisions: [ss1Rev3, ss1Rev2, ss1Rev1], want: ["rev1", "rev2", "rev3"] },
    {
      name: "with ties",
      revisions: [ss1Rev3Time2Name2, ss1Rev3, ss1Rev3Time2, ss1Rev2, ss1Rev1],
      want: ["rev1", "rev2", "rev3", "rev3-time2", "rev3-time2-name2"],
    },
    { name: "empty", revisions: [], want: [] },
  ];
  for (const tc of cases) {
    it(tc.name, () => {
      expect(sortControllerRevisions([...tc.revisions]).map(name)).toEqual(tc.want);
    });
  }

  it("nextRevision: 1 for none, last + 1 otherwise", () => {
    expect(nextRevision([])).toBe(1);
    expect(nextRevision([ss1Rev1, ss1Rev3])).toBe(4);
  });
});
