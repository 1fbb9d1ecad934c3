/**
 * Cases restated from upstream pvc_protection_controller_test.go (TestPVCProtectionController) and
 * pv_protection_controller_test.go (TestPVProtectionController): an event is simulated, the keys it
 * yields are reconciled until none fails (the queue's retries), then the client's actions compared.
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolume, PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import { StatusError } from "../../apimachinery/errors.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { PV_PROTECTION_FINALIZER, PVC_PROTECTION_FINALIZER } from "./constants.js";
import { claimsForPodEvent, isPodTerminated, podPVCIndexKeys, podUsesPVC, PVCProtectionController, pvcNeedsSync } from "./pvcprotection.js";
import { PVProtectionController, pvNeedsSync } from "./pvprotection.js";

const NS = "default";
const DELETED = "2026-01-01T00:00:00Z";

function pod(): Pod {
  return { apiVersion: "v1", kind: "Pod", metadata: { name: "pod1", namespace: NS, uid: "uid1" }, spec: { nodeName: "node1", containers: [] }, status: { phase: "Pending" } };
}
const unscheduled = (p: Pod): Pod => ({ ...p, spec: { ...p.spec!, nodeName: undefined } });
const withPVC = (claim: string, p: Pod): Pod => ({ ...p, spec: { ...p.spec!, volumes: [...(p.spec?.volumes ?? []), { name: claim, persistentVolumeClaim: { claimName: claim } }] } });
const withEmptyDir = (p: Pod): Pod => ({ ...p, spec: { ...p.spec!, volumes: [...(p.spec?.volumes ?? []), { name: "emptyDir", emptyDir: {} }] } });
const withStatus = (phase: string, p: Pod): Pod => ({ ...p, status: { ...p.status, phase } });
const withUID = (uid: string, p: Pod): Pod => ({ ...p, metadata: { ...p.metadata, uid } });

function pvc(): PersistentVolumeClaim {
  return { apiVersion: "v1", kind: "PersistentVolumeClaim", metadata: { name: "pvc1", namespace: NS }, spec: {} };
}
const withFinalizer = <T extends PersistentVolumeClaim | PersistentVolume>(o: T, f: string): T => ({ ...o, metadata: { ...o.metadata, finalizers: [...(o.metadata?.finalizers ?? []), f] } });
const deleted = <T extends PersistentVolumeClaim | PersistentVolume>(o: T): T => ({ ...o, metadata: { ...o.metadata, deletionTimestamp: DELETED } });
const protectedPVC = (c: PersistentVolumeClaim) => withFinalizer(c, PVC_PROTECTION_FINALIZER);

const LIST = "list pods default";
const UPDATE = "update persistentvolumeclaims default/pvc1";

/** Reconciles the keys, each again after a failure (at most `tries` times), as the rate-limited queue would. */
async function drain(f: ControllerFixture, controller: PVCProtectionController["controller"] | PVProtectionController["controller"], keys: readonly string[], tries = 5): Promise<void> {
  for (const key of new Set(keys)) {
    for (let i = 0; i < tries; i++) {
      try {
        await f.reconcile(controller, key);
        break;
      } catch {
        // retried
      }
    }
  }
}

/**
 * The PVC controller's queue is per namespace: the claim keys go into their namespace's batch, then
 * each namespace is reconciled until none fails, as the rate-limited queue would.
 */
async function drainClaims(f: ControllerFixture, c: PVCProtectionController, keys: readonly string[], tries = 5): Promise<void> {
  const namespaces = new Set<string>();
  for (const key of keys) {
    const [ns, name] = key.split("/");
    c.batches.add(ns, name);
    namespaces.add(ns);
  }
  await drain(f, c.controller, [...namespaces], tries);
}

const described = (f: ControllerFixture) =>
  f.client
    .actions()
    .filter((a) => a.verb !== "watch")
    .map((a) => `${a.verb} ${a.resource}${a.namespace || a.name ? " " : ""}${[a.namespace, a.name ?? (a.object as { metadata?: { name?: string } } | undefined)?.metadata?.name].filter(Boolean).join("/")}`);

function failUpdates(f: ControllerFixture, resource: string, n: number): void {
  let count = 0;
  f.client.prependReactor("update", resource, () => (++count <= n ? { handled: true, error: StatusError.forbidden({ group: "", resource }, "x", "Mock error") } : { handled: false }));
}

describe("PVCProtectionController (TestPVCProtectionController)", () => {
  interface Case {
    name: string;
    initialObjects?: Array<Pod | PersistentVolumeClaim>;
    informersAreLate?: boolean;
    failedUpdates?: number;
    updatedPVC?: PersistentVolumeClaim;
    updatedPod?: Pod;
    deletedPod?: Pod;
    want: string[];
    /** The finalizers the claim has at the end (when it still exists). */
    finalizers?: string[];
  }
  const cases: Case[] = [
    // PVC events
    { name: "PVC without finalizer -> finalizer is added", updatedPVC: pvc(), want: [UPDATE], finalizers: [PVC_PROTECTION_FINALIZER] },
    { name: "PVC with finalizer -> no action", updatedPVC: protectedPVC(pvc()), want: [] },
    { name: "saving PVC finalizer fails -> controller retries", updatedPVC: pvc(), failedUpdates: 2, want: [UPDATE, UPDATE, UPDATE], finalizers: [PVC_PROTECTION_FINALIZER] },
    { name: "deleted PVC with finalizer -> finalizer is removed", updatedPVC: deleted(protectedPVC(pvc())), want: [LIST, UPDATE] },
    { name: "finalizer removal fails -> controller retries", updatedPVC: deleted(protectedPVC(pvc())), failedUpdates: 2, want: [LIST, UPDATE, LIST, UPDATE, LIST, UPDATE] },
    {
      name: "deleted PVC with finalizer + pod with the PVC exists -> finalizer is not removed",
      initialObjects: [withPVC("pvc1", pod())],
      updatedPVC: deleted(protectedPVC(pvc())),
      want: [],
      finalizers: [PVC_PROTECTION_FINALIZER],
    },
    {
      name: "deleted PVC with finalizer + pod with unrelated PVC and EmptyDir exists -> finalizer is removed",
      initialObjects: [withEmptyDir(withPVC("unrelatedPVC", pod()))],
      updatedPVC: deleted(protectedPVC(pvc())),
      want: [LIST, UPDATE],
    },
    {
      name: "deleted PVC with finalizer + pod with the PVC finished but is not deleted -> finalizer is not removed",
      initialObjects: [withStatus("Failed", withPVC("pvc1", pod()))],
      updatedPVC: deleted(protectedPVC(pvc())),
      want: [],
    },
    {
      name: "deleted PVC with finalizer + pod with the PVC exists but is not in the Informer's cache yet -> finalizer is not removed",
      initialObjects: [withPVC("pvc1", pod())],
      informersAreLate: true,
      updatedPVC: deleted(protectedPVC(pvc())),
      want: [LIST],
      finalizers: [PVC_PROTECTION_FINALIZER],
    },
    // Pod events
    { name: "updated running Pod -> no action", initialObjects: [deleted(protectedPVC(pvc()))], updatedPod: withStatus("Running", withPVC("pvc1", pod())), want: [] },
    { name: "updated finished Pod -> finalizer is not removed", initialObjects: [deleted(protectedPVC(pvc()))], updatedPod: withStatus("Succeeded", withPVC("pvc1", pod())), want: [] },
    { name: "updated unscheduled Pod -> finalizer is removed", initialObjects: [deleted(protectedPVC(pvc()))], updatedPod: unscheduled(withPVC("pvc1", pod())), want: [LIST, UPDATE] },
    { name: "deleted running Pod -> finalizer is removed", initialObjects: [deleted(protectedPVC(pvc()))], deletedPod: withStatus("Running", withPVC("pvc1", pod())), want: [LIST, UPDATE] },
    {
      name: "pod delete and create with same namespaced name seen as an update, old pod used deleted PVC -> finalizer is removed",
      initialObjects: [deleted(protectedPVC(pvc()))],
      deletedPod: withPVC("pvc1", pod()),
      updatedPod: withUID("uid2", pod()),
      want: [LIST, UPDATE],
    },
    {
      name: "pod delete and create with same namespaced name seen as an update, old pod used non-deleted PVC -> finalizer is not removed",
      initialObjects: [protectedPVC(pvc())],
      deletedPod: withPVC("pvc1", pod()),
      updatedPod: withUID("uid2", pod()),
      want: [],
    },
    {
      name: "pod delete and create with same namespaced name seen as an update, both pods reference deleted PVC -> finalizer is not removed",
      initialObjects: [deleted(protectedPVC(pvc()))],
      deletedPod: withPVC("pvc1", pod()),
      updatedPod: withUID("uid2", withPVC("pvc1", pod())),
      want: [],
    },
    {
      name: "pod update from unscheduled to scheduled, deleted PVC is referenced -> finalizer is not removed",
      initialObjects: [deleted(protectedPVC(pvc()))],
      deletedPod: unscheduled(withPVC("pvc1", pod())),
      updatedPod: withPVC("pvc1", pod()),
      want: [],
    },
  ];

  it.each(cases)("$name", async (t) => {
    const f = new ControllerFixture();
    const c = new PVCProtectionController(f.manager);
    const claims = [t.updatedPVC, ...(t.initialObjects ?? [])].filter((o): o is PersistentVolumeClaim => o?.kind === "PersistentVolumeClaim");
    const pods = [t.updatedPod, ...(t.initialObjects ?? [])].filter((o): o is Pod => o?.kind === "Pod");
    f.seedAPI(builtin.persistentVolumeClaims, ...claims);
    f.seedAPI(builtin.pods, ...pods);
    const late = new Set(t.informersAreLate ? t.initialObjects : []);
    f.seedCache(builtin.persistentVolumeClaims, ...claims.filter((o) => !late.has(o)));
    f.seedCache(builtin.pods, ...pods.filter((o) => !late.has(o)));
    if (t.failedUpdates) failUpdates(f, "persistentvolumeclaims", t.failedUpdates);

    const keys: string[] = [];
    if (t.updatedPVC && pvcNeedsSync(t.updatedPVC)) keys.push("default/pvc1");
    if (t.deletedPod && t.updatedPod) keys.push(...claimsForPodEvent(t.deletedPod, t.updatedPod, false));
    else if (t.updatedPod) keys.push(...claimsForPodEvent(undefined, t.updatedPod, false));
    else if (t.deletedPod) keys.push(...claimsForPodEvent(undefined, t.deletedPod, true));
    await drainClaims(f, c, keys);

    expect(described(f)).toEqual(t.want);
    if (t.finalizers) {
      const stored = f.client.tracker.get(builtin.persistentVolumeClaims, NS, "pvc1") as unknown as PersistentVolumeClaim;
      expect(stored.metadata?.finalizers).toEqual(t.finalizers);
    }
  });

  it("claims of one namespace are processed as a batch: one live list for all the deleted claims the index finds unused", async () => {
    const f = new ControllerFixture();
    const c = new PVCProtectionController(f.manager);
    const named = (n: string) => deleted(protectedPVC({ ...pvc(), metadata: { ...pvc().metadata, name: n } }));
    f.seed(builtin.persistentVolumeClaims, named("a"), named("b"), named("c"), named("used"));
    f.seed(builtin.pods, withPVC("used", pod()));
    for (const n of ["a", "b", "used", "c"]) c.batches.add(NS, n);
    await f.reconcile(c.controller, NS);
    // "used" is answered by the pod index alone; a, b and c share the one live list.
    expect(described(f)).toEqual([LIST, "update persistentvolumeclaims default/a", "update persistentvolumeclaims default/b", "update persistentvolumeclaims default/c"]);
  });

  it("running: pod and claim events queue namespaces; each namespace's claims are freed, the used one kept", async () => {
    const f = new ControllerFixture();
    new PVCProtectionController(f.manager);
    const named = (n: string, ns = NS) => deleted(protectedPVC({ ...pvc(), metadata: { ...pvc().metadata, name: n, namespace: ns } }));
    f.seedAPI(builtin.persistentVolumeClaims, named("a"), named("b"), named("used"), named("x", "other"));
    f.seedAPI(builtin.pods, withPVC("used", pod()));
    await f.start();
    try {
      await f.eventually(() => (f.client.tracker.list(builtin.persistentVolumeClaims, "") as unknown as PersistentVolumeClaim[]).length === 1);
    } finally {
      await f.stop();
    }
    const left = f.client.tracker.list(builtin.persistentVolumeClaims, "") as unknown as PersistentVolumeClaim[];
    expect(left.map((x) => x.metadata?.name)).toEqual(["used"]);
    expect(left[0].metadata?.finalizers).toEqual([PVC_PROTECTION_FINALIZER]);
  });

  it("a claim that fails goes back into its namespace's batch; the others of the batch are done", async () => {
    const f = new ControllerFixture();
    const c = new PVCProtectionController(f.manager);
    const named = (n: string) => deleted(protectedPVC({ ...pvc(), metadata: { ...pvc().metadata, name: n } }));
    f.seed(builtin.persistentVolumeClaims, named("a"), named("b"));
    failUpdates(f, "persistentvolumeclaims", 1);
    c.batches.add(NS, "a");
    c.batches.add(NS, "b");
    await expect(f.reconcile(c.controller, NS)).rejects.toThrow("Mock error");
    expect(c.batches.pending(NS)).toEqual(["a"]);
    expect(described(f)).toEqual([LIST, "update persistentvolumeclaims default/a", "update persistentvolumeclaims default/b"]);
    await f.reconcile(c.controller, NS);
    expect(c.batches.pending(NS)).toEqual([]);
    expect(described(f).slice(3)).toEqual([LIST, "update persistentvolumeclaims default/a"]);
  });

  it("a pod shut down (deleted with grace 0) frees a generic ephemeral claim; a claim it does not control is not its own", () => {
    const p: Pod = { ...pod(), spec: { nodeName: "node1", containers: [], volumes: [{ name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } }] } };
    const claim: PersistentVolumeClaim = { ...pvc(), metadata: { name: "pod1-scratch", namespace: NS, ownerReferences: [{ apiVersion: "v1", kind: "Pod", name: "pod1", uid: "uid1", controller: true }] } };
    expect(podPVCIndexKeys(p)).toEqual(["default/pod1-scratch"]);
    expect(podUsesPVC(p, claim)).toBe(true);
    expect(podUsesPVC({ ...p, metadata: { ...p.metadata, deletionTimestamp: DELETED, deletionGracePeriodSeconds: 0 } }, claim)).toBe(false);
    expect(podUsesPVC(p, { ...claim, metadata: { ...claim.metadata, ownerReferences: [] } })).toBe(false);
  });

  it.each([
    { name: "Succeeded", pod: withStatus("Succeeded", pod()), want: true },
    { name: "Running", pod: withStatus("Running", pod()), want: false },
    { name: "deleted, a container still running", pod: { ...pod(), metadata: { ...pod().metadata, deletionTimestamp: DELETED }, status: { phase: "Running", containerStatuses: [{ name: "c", image: "i", imageID: "", ready: true, restartCount: 0, state: { running: {} } }] } } as Pod, want: false },
    { name: "deleted, every container terminated", pod: { ...pod(), metadata: { ...pod().metadata, deletionTimestamp: DELETED }, status: { phase: "Running", containerStatuses: [{ name: "c", image: "i", imageID: "", ready: false, restartCount: 0, state: { terminated: { exitCode: 0 } } }] } } as Pod, want: true },
  ])("isPodTerminated: $name", ({ pod: p, want }) => {
    expect(isPodTerminated(p)).toBe(want);
  });
});

describe("PVProtectionController (TestPVProtectionController)", () => {
  const pv = (): PersistentVolume => ({ apiVersion: "v1", kind: "PersistentVolume", metadata: { name: "pv1" }, spec: {}, status: { phase: "Available" } });
  const boundPV = (): PersistentVolume => ({ ...pv(), status: { phase: "Bound" } });
  const protectedPV = (p: PersistentVolume) => withFinalizer(p, PV_PROTECTION_FINALIZER);
  const PV_UPDATE = "update persistentvolumes pv1";
  it.each([
    { name: "PV without finalizer -> finalizer is added", updatedPV: pv(), want: [PV_UPDATE], finalizers: [PV_PROTECTION_FINALIZER] },
    { name: "PVC with finalizer -> no action", updatedPV: protectedPV(pv()), want: [] },
    { name: "saving PVC finalizer fails -> controller retries", updatedPV: pv(), failedUpdates: 2, want: [PV_UPDATE, PV_UPDATE, PV_UPDATE], finalizers: [PV_PROTECTION_FINALIZER] },
    { name: "deleted PV with finalizer -> finalizer is removed", updatedPV: deleted(protectedPV(pv())), want: [PV_UPDATE] },
    { name: "finalizer removal fails -> controller retries", updatedPV: deleted(protectedPV(pv())), failedUpdates: 2, want: [PV_UPDATE, PV_UPDATE, PV_UPDATE] },
    { name: "deleted PVC with finalizer + PV is bound -> finalizer is not removed", updatedPV: deleted(protectedPV(boundPV())), want: [], finalizers: [PV_PROTECTION_FINALIZER] },
  ])("$name", async (t) => {
    const f = new ControllerFixture();
    const c = new PVProtectionController(f.manager);
    f.seed(builtin.persistentVolumes, t.updatedPV);
    if (t.failedUpdates) failUpdates(f, "persistentvolumes", t.failedUpdates);
    await drain(f, c.controller, pvNeedsSync(t.updatedPV) ? ["pv1"] : []);
    expect(described(f)).toEqual(t.want);
    if (t.finalizers) {
      const stored = f.client.tracker.get(builtin.persistentVolumes, "", "pv1") as unknown as PersistentVolume;
      expect(stored.metadata?.finalizers).toEqual(t.finalizers);
    }
  });
});
