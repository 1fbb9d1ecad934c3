/**
 * Cases restated from upstream pkg/controller/volume/persistentvolume binder_test.go (TestSync:
 * the 1-x unbound-claim, 2-x pre-bound claim, 3-x bound-claim, 4-x volume and 5-x misbound cases),
 * provision_test.go (external provisioning: the claim handed to the class's provisioner, missing
 * class) and delete_test.go (reclaim policies) — one sync of the claim or the volume, then the
 * stored objects and the events. Time is the fixture's FakeClock.
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import type { StorageClass } from "../../apimachinery/api/storage/v1.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { formatTime } from "../../apimachinery/time.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture, FIXTURE_START_TIME } from "../../testing/fixture.js";
import { ANN_BETA_STORAGE_PROVISIONER, ANN_BIND_COMPLETED, ANN_BOUND_BY_CONTROLLER, ANN_DYNAMICALLY_PROVISIONED, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER, Messages } from "./constants.js";
import { PersistentVolumeController } from "./controller.js";
import { findBestMatchForClaim } from "./match.js";

const yes = "yes";

interface VolOpts {
  size?: string;
  modes?: string[];
  phase?: string;
  claim?: { name: string; uid?: string };
  cls?: string;
  policy?: string;
  ann?: Record<string, string>;
  labels?: Record<string, string>;
  mode?: string;
}

function volume(name: string, o: VolOpts = {}): PersistentVolume {
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name, uid: `uid-${name}`, ...(o.ann ? { annotations: o.ann } : {}), ...(o.labels ? { labels: o.labels } : {}) },
    spec: {
      capacity: { storage: o.size ?? "10Gi" },
      accessModes: o.modes ?? ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: o.policy ?? "Retain",
      ...(o.cls ? { storageClassName: o.cls } : {}),
      ...(o.mode ? { volumeMode: o.mode } : {}),
      ...(o.claim ? { claimRef: { kind: "PersistentVolumeClaim", apiVersion: "v1", namespace: "default", name: o.claim.name, ...(o.claim.uid !== undefined ? { uid: o.claim.uid } : {}) } } : {}),
      hostPath: { path: "/tmp/x" },
    },
    status: { phase: o.phase ?? "Available" },
  };
}

interface ClaimOpts {
  size?: string;
  modes?: string[];
  phase?: string;
  volumeName?: string;
  cls?: string;
  ann?: Record<string, string>;
  selector?: PersistentVolumeClaim["spec"] extends infer S ? (S extends { selector?: infer L } ? L : never) : never;
  mode?: string;
}

function claim(name: string, o: ClaimOpts = {}): PersistentVolumeClaim {
  return {
    apiVersion: "v1",
    kind: "PersistentVolumeClaim",
    metadata: { name, namespace: "default", uid: `uid-${name}`, ...(o.ann ? { annotations: o.ann } : {}) },
    spec: {
      accessModes: o.modes ?? ["ReadWriteOnce"],
      resources: { requests: { storage: o.size ?? "1Gi" } },
      ...(o.volumeName ? { volumeName: o.volumeName } : {}),
      ...(o.cls !== undefined ? { storageClassName: o.cls } : {}),
      ...(o.selector ? { selector: o.selector } : {}),
      ...(o.mode ? { volumeMode: o.mode } : {}),
    },
    status: { phase: o.phase ?? "Pending" },
  };
}

const sc = (name: string, mode = "Immediate", provisioner = "sim.kubeloop.dev/hostpath"): StorageClass => ({
  apiVersion: "storage.k8s.io/v1",
  kind: "StorageClass",
  metadata: { name },
  provisioner,
  reclaimPolicy: "Delete",
  volumeBindingMode: mode,
});

function setup(o: { volumes?: PersistentVolume[]; claims?: PersistentVolumeClaim[]; classes?: StorageClass[] }) {
  const f = new ControllerFixture();
  const c = new PersistentVolumeController(f.manager);
  f.seed(builtin.persistentVolumes, ...(o.volumes ?? []));
  f.seed(builtin.persistentVolumeClaims, ...(o.claims ?? []));
  f.seed(builtin.storageClasses, ...(o.classes ?? []));
  const pv = (name: string) => f.client.tracker.get(builtin.persistentVolumes, "", name) as unknown as PersistentVolume | undefined;
  const pvc = (name: string) => f.client.tracker.get(builtin.persistentVolumeClaims, "default", name) as unknown as PersistentVolumeClaim | undefined;
  const syncClaim = (name: string) => c.sync(new ObjectName("default", name), f.client);
  const syncVolume = (name: string) => c.sync(new ObjectName("", name), f.client);
  return { f, c, pv, pvc, syncClaim, syncVolume };
}

/** What the tests compare: phase, the binding fields and the binder's annotations. */
const volState = (v: PersistentVolume | undefined) =>
  v && {
    phase: v.status?.phase,
    claim: v.spec?.claimRef ? `${v.spec.claimRef.name}/${v.spec.claimRef.uid ?? ""}` : undefined,
    boundByController: v.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER],
  };
const claimState = (c: PersistentVolumeClaim | undefined) =>
  c && {
    phase: c.status?.phase,
    volumeName: c.spec?.volumeName,
    bindCompleted: c.metadata?.annotations?.[ANN_BIND_COMPLETED],
    boundByController: c.metadata?.annotations?.[ANN_BOUND_BY_CONTROLLER],
  };

const completed = { [ANN_BIND_COMPLETED]: yes };
const completedByController = { [ANN_BIND_COMPLETED]: yes, [ANN_BOUND_BY_CONTROLLER]: yes };

describe("PersistentVolumeController: syncing a claim (binder_test TestSync 1-x, 2-x, 3-x)", () => {
  it.each([
    {
      name: "1-1 no volume, no class: the claim stays Pending",
      volumes: [],
      claims: [claim("claim1-1", { cls: "" })],
      sync: "claim1-1",
      claim: { phase: "Pending", volumeName: undefined, bindCompleted: undefined, boundByController: undefined },
      events: [`Normal FailedBinding ${Messages.noVolumeNoClass}`],
    },
    {
      name: "1-2 an unbound claim binds to the matching Available volume",
      volumes: [volume("volume1-2")],
      claims: [claim("claim1-2")],
      sync: "claim1-2",
      claim: { phase: "Bound", volumeName: "volume1-2", bindCompleted: yes, boundByController: yes },
      volume: ["volume1-2", { phase: "Bound", claim: "claim1-2/uid-claim1-2", boundByController: yes }],
      events: [],
    },
    {
      name: "1-3 the smallest volume that is big enough wins",
      volumes: [volume("volume1-3-big", { size: "100Gi" }), volume("volume1-3-small", { size: "5Gi" }), volume("volume1-3-tiny", { size: "500Mi" })],
      claims: [claim("claim1-3")],
      sync: "claim1-3",
      claim: { phase: "Bound", volumeName: "volume1-3-small", bindCompleted: yes, boundByController: yes },
      volume: ["volume1-3-small", { phase: "Bound", claim: "claim1-3/uid-claim1-3", boundByController: yes }],
      events: [],
    },
    {
      name: "1-4 a volume bound to another claim is not taken",
      volumes: [volume("volume1-4", { phase: "Bound", claim: { name: "other", uid: "uid-other" } })],
      claims: [claim("claim1-4", { cls: "" })],
      sync: "claim1-4",
      claim: { phase: "Pending", volumeName: undefined, bindCompleted: undefined, boundByController: undefined },
      events: [`Normal FailedBinding ${Messages.noVolumeNoClass}`],
    },
    {
      name: "1-5 a volume pre-bound by the user to the claim (claimRef without UID) binds without bound-by-controller",
      volumes: [volume("volume1-5", { claim: { name: "claim1-5" } })],
      claims: [claim("claim1-5")],
      sync: "claim1-5",
      claim: { phase: "Bound", volumeName: "volume1-5", bindCompleted: yes, boundByController: yes },
      volume: ["volume1-5", { phase: "Bound", claim: "claim1-5/uid-claim1-5", boundByController: undefined }],
      events: [],
    },
    {
      name: "1-6 the claim's selector filters volumes by label",
      volumes: [volume("volume1-6-a", { size: "1Gi", labels: { tier: "slow" } }), volume("volume1-6-b", { size: "50Gi", labels: { tier: "fast" } })],
      claims: [claim("claim1-6", { selector: { matchLabels: { tier: "fast" } } })],
      sync: "claim1-6",
      claim: { phase: "Bound", volumeName: "volume1-6-b", bindCompleted: yes, boundByController: yes },
      volume: ["volume1-6-b", { phase: "Bound", claim: "claim1-6/uid-claim1-6", boundByController: yes }],
      events: [],
    },
    {
      name: "1-7 the class must match: a class-less volume is not for a claim of class gold",
      volumes: [volume("volume1-7")],
      claims: [claim("claim1-7", { cls: "gold" })],
      classes: [sc("gold")],
      sync: "claim1-7",
      claim: { phase: "Pending", volumeName: undefined, bindCompleted: undefined, boundByController: undefined },
      events: [`Normal ExternalProvisioning ${Messages.externalProvisioning("sim.kubeloop.dev/hostpath")}`],
    },
    {
      name: "1-8 volumeMode must match (Block claim, Filesystem volume)",
      volumes: [volume("volume1-8")],
      claims: [claim("claim1-8", { cls: "", mode: "Block" })],
      sync: "claim1-8",
      claim: { phase: "Pending", volumeName: undefined, bindCompleted: undefined, boundByController: undefined },
      events: [`Normal FailedBinding ${Messages.noVolumeNoClass}`],
    },
    {
      name: "1-9 a Released volume is not Available",
      volumes: [volume("volume1-9", { phase: "Released" })],
      claims: [claim("claim1-9", { cls: "" })],
      sync: "claim1-9",
      claim: { phase: "Pending", volumeName: undefined, bindCompleted: undefined, boundByController: undefined },
      events: [`Normal FailedBinding ${Messages.noVolumeNoClass}`],
    },
    {
      name: "2-1 a claim pre-bound to a missing volume stays Pending",
      volumes: [],
      claims: [claim("claim2-1", { volumeName: "volume2-1" })],
      sync: "claim2-1",
      claim: { phase: "Pending", volumeName: "volume2-1", bindCompleted: undefined, boundByController: undefined },
      events: [],
    },
    {
      name: "2-2 a claim pre-bound to an unbound volume binds; the volume is bound by the controller, the claim by the user",
      volumes: [volume("volume2-2")],
      claims: [claim("claim2-2", { volumeName: "volume2-2" })],
      sync: "claim2-2",
      claim: { phase: "Bound", volumeName: "volume2-2", bindCompleted: yes, boundByController: undefined },
      volume: ["volume2-2", { phase: "Bound", claim: "claim2-2/uid-claim2-2", boundByController: yes }],
      events: [],
    },
    {
      name: "2-3 a claim pre-bound to a volume bound elsewhere waits",
      volumes: [volume("volume2-3", { phase: "Bound", claim: { name: "other", uid: "uid-other" } })],
      claims: [claim("claim2-3", { volumeName: "volume2-3" })],
      sync: "claim2-3",
      claim: { phase: "Pending", volumeName: "volume2-3", bindCompleted: undefined, boundByController: undefined },
      events: [`Warning FailedBinding ${Messages.volumeBoundElsewhere("volume2-3")}`],
    },
    {
      name: "2-4 a claim pre-bound to a volume too small for it: VolumeMismatch",
      volumes: [volume("volume2-4", { size: "1Gi" })],
      claims: [claim("claim2-4", { volumeName: "volume2-4", size: "5Gi" })],
      sync: "claim2-4",
      claim: { phase: "Pending", volumeName: "volume2-4", bindCompleted: undefined, boundByController: undefined },
      events: [`Warning VolumeMismatch ${Messages.cannotBind("volume2-4", "requested PV is too small")}`],
    },
    {
      name: "2-5 a claim pre-bound to a volume of another class: VolumeMismatch",
      volumes: [volume("volume2-5", { cls: "silver" })],
      claims: [claim("claim2-5", { volumeName: "volume2-5", cls: "gold" })],
      sync: "claim2-5",
      claim: { phase: "Pending", volumeName: "volume2-5", bindCompleted: undefined, boundByController: undefined },
      events: [`Warning VolumeMismatch ${Messages.cannotBind("volume2-5", "storageClassName does not match")}`],
    },
    {
      name: "3-1 a bound claim whose volume is gone is Lost",
      volumes: [],
      claims: [claim("claim3-1", { volumeName: "volume3-1", phase: "Bound", ann: completedByController })],
      sync: "claim3-1",
      claim: { phase: "Lost", volumeName: "volume3-1", bindCompleted: yes, boundByController: yes },
      events: [`Warning ClaimLost ${Messages.claimLostVolume}`],
    },
    {
      name: "3-2 a bound claim that lost its volumeName is Lost",
      volumes: [],
      claims: [claim("claim3-2", { phase: "Bound", ann: completed })],
      sync: "claim3-2",
      claim: { phase: "Lost", volumeName: undefined, bindCompleted: yes, boundByController: undefined },
      events: [`Warning ClaimLost ${Messages.claimLostReference}`],
    },
    {
      name: "3-3 a bound claim whose volume lost its claimRef binds it again",
      volumes: [volume("volume3-3", { phase: "Available" })],
      claims: [claim("claim3-3", { volumeName: "volume3-3", phase: "Bound", ann: completedByController })],
      sync: "claim3-3",
      claim: { phase: "Bound", volumeName: "volume3-3", bindCompleted: yes, boundByController: yes },
      volume: ["volume3-3", { phase: "Bound", claim: "claim3-3/uid-claim3-3", boundByController: yes }],
      events: [],
    },
    {
      name: "3-4 a Pending claim marked bound with a correctly bound volume turns Bound",
      volumes: [volume("volume3-4", { phase: "Bound", claim: { name: "claim3-4", uid: "uid-claim3-4" }, ann: { [ANN_BOUND_BY_CONTROLLER]: yes } })],
      claims: [claim("claim3-4", { volumeName: "volume3-4", phase: "Pending", ann: completedByController })],
      sync: "claim3-4",
      claim: { phase: "Bound", volumeName: "volume3-4", bindCompleted: yes, boundByController: yes },
      volume: ["volume3-4", { phase: "Bound", claim: "claim3-4/uid-claim3-4", boundByController: yes }],
      events: [],
    },
    {
      name: "3-5 a bound claim whose volume is bound to another claim is misbound",
      volumes: [volume("volume3-5", { phase: "Bound", claim: { name: "other", uid: "uid-other" } })],
      claims: [claim("claim3-5", { volumeName: "volume3-5", phase: "Bound", ann: completedByController })],
      sync: "claim3-5",
      claim: { phase: "Lost", volumeName: "volume3-5", bindCompleted: yes, boundByController: yes },
      events: [`Warning ClaimMisbound ${Messages.claimMisbound}`],
    },
  ] as Array<{
    name: string;
    volumes: PersistentVolume[];
    claims: PersistentVolumeClaim[];
    classes?: StorageClass[];
    sync: string;
    claim: ReturnType<typeof claimState>;
    volume?: [string, ReturnType<typeof volState>];
    events: string[];
  }>)("$name", async (t) => {
    const env = setup(t);
    await env.syncClaim(t.sync);
    expect(claimState(env.pvc(t.sync))).toEqual(t.claim);
    if (t.volume) expect(volState(env.pv(t.volume[0]))).toEqual(t.volume[1]);
    expect(env.f.recorder.events).toEqual(t.events);
  });

  it("a bound claim copies the volume's capacity and access modes into its status", async () => {
    const env = setup({ volumes: [volume("v", { size: "20Gi", modes: ["ReadWriteOnce", "ReadOnlyMany"] })], claims: [claim("c")] });
    await env.syncClaim("c");
    expect(env.pvc("c")?.status).toEqual({ phase: "Bound", capacity: { storage: "20Gi" }, accessModes: ["ReadWriteOnce", "ReadOnlyMany"] });
    expect(env.pv("v")?.status?.lastPhaseTransitionTime).toBe(formatTime(FIXTURE_START_TIME));
  });

  it("steady state: a bound pair is synced with no writes", async () => {
    const env = setup({ volumes: [volume("v")], claims: [claim("c")] });
    await env.syncClaim("c");
    // The caches catch up with what was written; the next syncs of both find nothing to do.
    env.f.seedCache(builtin.persistentVolumes, env.pv("v")!);
    env.f.seedCache(builtin.persistentVolumeClaims, env.pvc("c")!);
    env.f.client.clearActions();
    await env.syncClaim("c");
    await env.syncVolume("v");
    expect(env.f.writeActions()).toEqual([]);
  });
});

describe("PersistentVolumeController: provisioning (provision_test)", () => {
  it("a claim of a class with a provisioner is handed to it: annotations and ExternalProvisioning", async () => {
    const env = setup({ claims: [claim("c", { cls: "standard" })], classes: [sc("standard")] });
    const r = await env.syncClaim("c");
    const a = env.pvc("c")?.metadata?.annotations ?? {};
    expect([a[ANN_STORAGE_PROVISIONER], a[ANN_BETA_STORAGE_PROVISIONER]]).toEqual(["sim.kubeloop.dev/hostpath", "sim.kubeloop.dev/hostpath"]);
    expect(env.pvc("c")?.status?.phase).toBe("Pending");
    expect(env.f.recorder.events).toEqual([`Normal ExternalProvisioning ${Messages.externalProvisioning("sim.kubeloop.dev/hostpath")}`]);
    // Looked at again on upstream's resync period.
    expect(r).toEqual({ requeueAfterMs: 15_000 });
  });

  it("a claim of a missing class: ProvisioningFailed", async () => {
    const env = setup({ claims: [claim("c", { cls: "nope" })] });
    await env.syncClaim("c");
    expect(env.f.recorder.events).toEqual(['Warning ProvisioningFailed storageclass.storage.k8s.io "nope" not found']);
    expect(env.pvc("c")?.metadata?.annotations?.[ANN_STORAGE_PROVISIONER]).toBeUndefined();
  });

  it("WaitForFirstConsumer: no binding, no provisioning until a node is selected", async () => {
    const env = setup({ volumes: [volume("v", { cls: "local" })], claims: [claim("c", { cls: "local" })], classes: [sc("local", "WaitForFirstConsumer")] });
    await env.syncClaim("c");
    expect(claimState(env.pvc("c"))?.phase).toBe("Pending");
    expect(env.pv("v")?.spec?.claimRef).toBeUndefined();
    expect(env.f.recorder.events).toEqual([`Normal WaitForFirstConsumer ${Messages.waitForFirstConsumer}`]);
  });

  it("WaitForFirstConsumer with a selected node: provisioned like Immediate", async () => {
    const env = setup({ claims: [claim("c", { cls: "local", ann: { [ANN_SELECTED_NODE]: "node-1" } })], classes: [sc("local", "WaitForFirstConsumer")] });
    await env.syncClaim("c");
    expect(env.pvc("c")?.metadata?.annotations?.[ANN_STORAGE_PROVISIONER]).toBe("sim.kubeloop.dev/hostpath");
    expect(env.f.recorder.events.map((e) => e.split(" ")[1])).toEqual(["ExternalProvisioning"]);
  });

  it("a provisioned volume with claimRef to an unbound claim binds it (the claim bound by the controller)", async () => {
    const pv = volume("pvc-uid-c", { cls: "standard", policy: "Delete", phase: "Pending", claim: { name: "c", uid: "uid-c" }, ann: { [ANN_DYNAMICALLY_PROVISIONED]: "sim.kubeloop.dev/hostpath" } });
    const env = setup({ volumes: [pv], claims: [claim("c", { cls: "standard" })], classes: [sc("standard")] });
    await env.syncVolume("pvc-uid-c");
    expect(claimState(env.pvc("c"))).toEqual({ phase: "Bound", volumeName: "pvc-uid-c", bindCompleted: yes, boundByController: yes });
    expect(volState(env.pv("pvc-uid-c"))).toEqual({ phase: "Bound", claim: "c/uid-c", boundByController: undefined });
  });
});

describe("PersistentVolumeController: syncing a volume (TestSync 4-x, 5-x; delete_test, recycle_test)", () => {
  it.each([
    { name: "4-1 an unused Pending volume becomes Available", volume: volume("v", { phase: "Pending" }), claims: [], want: { phase: "Available", claim: undefined, boundByController: undefined }, events: [] },
    { name: "4-2 a volume pre-bound by the user to a missing claim stays Available", volume: volume("v", { phase: "Pending", claim: { name: "c" } }), claims: [], want: { phase: "Available", claim: "c/", boundByController: undefined }, events: [] },
    {
      name: "4-3 a bound volume whose claim is gone, Retain: Released",
      volume: volume("v", { phase: "Bound", claim: { name: "c", uid: "uid-c" } }),
      claims: [],
      want: { phase: "Released", claim: "c/uid-c", boundByController: undefined },
      events: [],
    },
    {
      name: "4-4 the claim was deleted and created again (another UID): Released",
      volume: volume("v", { phase: "Bound", claim: { name: "c", uid: "uid-old" } }),
      claims: [claim("c")],
      want: { phase: "Released", claim: "c/uid-old", boundByController: undefined },
      events: [],
    },
    {
      name: "4-5 Delete without a provisioner (a static volume): Failed, no deleter plugin",
      volume: volume("v", { phase: "Bound", policy: "Delete", claim: { name: "c", uid: "uid-c" } }),
      claims: [],
      want: { phase: "Failed", claim: "c/uid-c", boundByController: undefined },
      events: ['Warning VolumeFailedDelete error getting deleter volume plugin for volume "v": no deletable volume plugin matched'],
    },
    {
      name: "4-6 Delete of a provisioned volume: Released, left to its provisioner",
      volume: volume("v", { phase: "Bound", policy: "Delete", claim: { name: "c", uid: "uid-c" }, ann: { [ANN_DYNAMICALLY_PROVISIONED]: "sim.kubeloop.dev/hostpath" } }),
      claims: [],
      want: { phase: "Released", claim: "c/uid-c", boundByController: undefined },
      events: [],
    },
    {
      name: "4-7 Recycle: no recycler here, Failed",
      volume: volume("v", { phase: "Bound", policy: "Recycle", claim: { name: "c", uid: "uid-c" } }),
      claims: [],
      want: { phase: "Failed", claim: "c/uid-c", boundByController: undefined },
      events: ["Warning VolumeFailedRecycle No recycler plugin found for the volume!"],
    },
    {
      name: "4-8 a volume whose claim is bound to it: Bound",
      volume: volume("v", { phase: "Available", claim: { name: "c", uid: "uid-c" } }),
      claims: [claim("c", { volumeName: "v", phase: "Bound", ann: completed })],
      want: { phase: "Bound", claim: "c/uid-c", boundByController: undefined },
      events: [],
    },
    {
      name: "5-1 bound by the controller to a claim bound elsewhere: unbound, Available",
      volume: volume("v", { phase: "Bound", claim: { name: "c", uid: "uid-c" }, ann: { [ANN_BOUND_BY_CONTROLLER]: yes } }),
      claims: [claim("c", { volumeName: "other", phase: "Bound", ann: completed })],
      want: { phase: "Available", claim: undefined, boundByController: undefined },
      events: [],
    },
    {
      name: "5-2 pre-bound by the user to a claim bound elsewhere: keeps the claim's name, loses its UID",
      volume: volume("v", { phase: "Bound", claim: { name: "c", uid: "uid-c" } }),
      claims: [claim("c", { volumeName: "other", phase: "Bound", ann: completed })],
      want: { phase: "Available", claim: "c/", boundByController: undefined },
      events: [],
    },
    {
      name: "5-3 provisioned for a claim that bound elsewhere, Delete: Released for its provisioner",
      volume: volume("v", { phase: "Bound", policy: "Delete", claim: { name: "c", uid: "uid-c" }, ann: { [ANN_DYNAMICALLY_PROVISIONED]: "p" } }),
      claims: [claim("c", { volumeName: "other", phase: "Bound", ann: completed })],
      want: { phase: "Released", claim: "c/uid-c", boundByController: undefined },
      events: [],
    },
  ] as Array<{ name: string; volume: PersistentVolume; claims: PersistentVolumeClaim[]; want: ReturnType<typeof volState>; events: string[] }>)("$name", async (t) => {
    const env = setup({ volumes: [t.volume], claims: t.claims });
    await env.syncVolume("v");
    expect(volState(env.pv("v"))).toEqual(t.want);
    expect(env.f.recorder.events).toEqual(t.events);
  });
});

describe("findBestMatchForClaim (index_test)", () => {
  it("volumes with the fewest access modes are searched first", () => {
    const rwo = volume("rwo", { size: "100Gi", modes: ["ReadWriteOnce"] });
    const rwoRox = volume("rwo-rox", { size: "1Gi", modes: ["ReadWriteOnce", "ReadOnlyMany"] });
    expect(findBestMatchForClaim(claim("c"), [rwoRox, rwo], false)?.metadata?.name).toBe("rwo");
    expect(findBestMatchForClaim(claim("c", { modes: ["ReadOnlyMany"] }), [rwoRox, rwo], false)?.metadata?.name).toBe("rwo-rox");
  });

  it("a volume pre-bound to the claim wins even when delayed", () => {
    const pre = volume("pre", { claim: { name: "c" } });
    expect(findBestMatchForClaim(claim("c"), [volume("free"), pre], true)?.metadata?.name).toBe("pre");
    expect(findBestMatchForClaim(claim("c"), [volume("free")], true)).toBeUndefined();
  });

  it("a volume being deleted or with too little capacity is skipped", () => {
    const deleting = { ...volume("gone"), metadata: { name: "gone", deletionTimestamp: "2026-01-01T00:00:00Z" } };
    expect(findBestMatchForClaim(claim("c", { size: "5Gi" }), [deleting, volume("small", { size: "1Gi" })], false)).toBeUndefined();
  });
});
