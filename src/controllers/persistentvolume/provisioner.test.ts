/**
 * The simulated provisioner (sig-storage-lib-external-provisioner's controller: shouldProvision,
 * provisionClaimOperation, shouldDelete), then the binder and the provisioner together on the
 * fake API: a claim of the default class ends Bound to `pvc-<uid>`, and the volume goes once the
 * claim is deleted.
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolume, PersistentVolumeClaim } from "../../apimachinery/api/core/v1.js";
import type { StorageClass } from "../../apimachinery/api/storage/v1.js";
import { ObjectName } from "../../apimachinery/objectname.js";
import { builtin } from "../../client/typed.js";
import { ControllerFixture } from "../../testing/fixture.js";
import { ANN_DYNAMICALLY_PROVISIONED, ANN_SELECTED_NODE, ANN_STORAGE_PROVISIONER } from "./constants.js";
import { PersistentVolumeController } from "./controller.js";
import { SIMULATED_PROVISIONER, SimulatedProvisioner } from "./provisioner.js";
import { defaultStorageClass } from "./storageclass.js";

const claim = (name: string, cls: string, ann: Record<string, string> = {}): PersistentVolumeClaim => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: "default", uid: `uid-${name}`, annotations: ann },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "2Gi" } }, storageClassName: cls },
  status: { phase: "Pending" },
});
const wffc: StorageClass = { apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name: "local" }, provisioner: SIMULATED_PROVISIONER, reclaimPolicy: "Retain", volumeBindingMode: "WaitForFirstConsumer" };
const mine = { [ANN_STORAGE_PROVISIONER]: SIMULATED_PROVISIONER };

function setup(claims: PersistentVolumeClaim[], volumes: PersistentVolume[] = []) {
  const f = new ControllerFixture();
  const p = new SimulatedProvisioner(f.manager);
  f.seed(builtin.storageClasses, defaultStorageClass(), wffc);
  f.seed(builtin.persistentVolumeClaims, ...claims);
  f.seed(builtin.persistentVolumes, ...volumes);
  const pv = (name: string): PersistentVolume | undefined => {
    try {
      return f.client.tracker.get(builtin.persistentVolumes, "", name) as unknown as PersistentVolume;
    } catch {
      return undefined;
    }
  };
  return { f, p, pv };
}

describe("SimulatedProvisioner", () => {
  it("provisions pvc-<uid> for a claim handed to it, with the class's policy and a claimRef", async () => {
    const { f, p, pv } = setup([claim("data", "standard", mine)]);
    await p.sync(new ObjectName("default", "data"), f.client);
    const v = pv("pvc-uid-data");
    expect(v?.metadata?.annotations?.[ANN_DYNAMICALLY_PROVISIONED]).toBe(SIMULATED_PROVISIONER);
    expect(v?.spec).toMatchObject({
      capacity: { storage: "2Gi" },
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Delete",
      storageClassName: "standard",
      volumeMode: "Filesystem",
      claimRef: { kind: "PersistentVolumeClaim", namespace: "default", name: "data", uid: "uid-data" },
      hostPath: { path: "/tmp/hostpath-provisioner/default/data" },
    });
    expect(v?.spec?.nodeAffinity).toBeUndefined();
    expect(f.recorder.events).toEqual(['Normal Provisioning External provisioner is provisioning volume for claim "default/data"', "Normal ProvisioningSucceeded Successfully provisioned volume pvc-uid-data"]);
  });

  it("leaves claims not handed to it, and WaitForFirstConsumer claims without a node", async () => {
    const { f, p } = setup([claim("other", "standard", { [ANN_STORAGE_PROVISIONER]: "ebs.csi.aws.com" }), claim("nobody", "standard"), claim("wait", "local", mine)]);
    for (const n of ["other", "nobody", "wait"]) await p.sync(new ObjectName("default", n), f.client);
    expect(f.writeActions()).toEqual([]);
  });

  it("a WaitForFirstConsumer claim with a selected node gets a volume pinned to that node", async () => {
    const { f, p, pv } = setup([claim("wait", "local", { ...mine, [ANN_SELECTED_NODE]: "node-1" })]);
    await p.sync(new ObjectName("default", "wait"), f.client);
    expect(pv("pvc-uid-wait")?.spec?.nodeAffinity?.required?.nodeSelectorTerms).toEqual([{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: ["node-1"] }] }]);
    expect(pv("pvc-uid-wait")?.spec?.persistentVolumeReclaimPolicy).toBe("Retain");
  });

  it("deletes its Released volumes with policy Delete, not Retain ones nor others'", async () => {
    const vol = (name: string, policy: string, by: string, phase = "Released"): PersistentVolume => ({
      apiVersion: "v1",
      kind: "PersistentVolume",
      metadata: { name, uid: `uid-${name}`, annotations: { [ANN_DYNAMICALLY_PROVISIONED]: by } },
      spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], persistentVolumeReclaimPolicy: policy, hostPath: { path: "/x" } },
      status: { phase },
    });
    const { f, p, pv } = setup([], [vol("del", "Delete", SIMULATED_PROVISIONER), vol("keep", "Retain", SIMULATED_PROVISIONER), vol("theirs", "Delete", "x.csi"), vol("bound", "Delete", SIMULATED_PROVISIONER, "Bound")]);
    for (const n of ["del", "keep", "theirs", "bound"]) await p.sync(new ObjectName("", n), f.client);
    expect(["del", "keep", "theirs", "bound"].map((n) => pv(n) !== undefined)).toEqual([false, true, true, true]);
  });
});

describe("binder and provisioner together (informers and workers on the fake API)", () => {
  it("a claim of the default class is Bound to its provisioned volume, and the volume is deleted with the claim", async () => {
    const f = new ControllerFixture();
    new PersistentVolumeController(f.manager);
    new SimulatedProvisioner(f.manager);
    f.seedAPI(builtin.storageClasses, defaultStorageClass());
    f.seedAPI(builtin.persistentVolumeClaims, claim("data", "standard"));
    await f.start();
    try {
      const pvcs = f.client.resource(builtin.persistentVolumeClaims, "default");
      const pvs = f.client.resource(builtin.persistentVolumes);
      const bound = await f.eventually(async () => {
        const c = await pvcs.get("data");
        return c.status?.phase === "Bound" && c;
      });
      expect(bound.spec?.volumeName).toBe("pvc-uid-data");
      await f.eventually(async () => (await pvs.get("pvc-uid-data")).status?.phase === "Bound");
      await pvcs.delete("data");
      await f.eventually(async () => !(await pvs.list()).items.some((v) => v.metadata?.name === "pvc-uid-data"));
    } finally {
      await f.stop();
    }
  });
});
