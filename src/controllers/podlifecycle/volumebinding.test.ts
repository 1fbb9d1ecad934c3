/**
 * The scheduler's VolumeBinding reasons (kube-scheduler volumebinding: ErrReasonBindConflict's
 * siblings "pod has unbound immediate PersistentVolumeClaims", `persistentvolumeclaim "x" not
 * found`, `... is being deleted`) and PreBind's selected-node annotation.
 */
import { describe, expect, it } from "vitest";
import type { PersistentVolumeClaim, Pod } from "../../apimachinery/api/core/v1.js";
import type { StorageClass } from "../../apimachinery/api/storage/v1.js";
import { builtin } from "../../client/typed.js";
import { FakeClient } from "../../testing/fakeclient.js";
import { podVolumes, selectNode, UNBOUND_IMMEDIATE } from "./volumebinding.js";

const pod = (...claims: string[]): Pod => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace: "ns" },
  spec: { containers: [{ name: "c" }], volumes: claims.map((c) => ({ name: c, persistentVolumeClaim: { claimName: c } })) },
});
const claim = (name: string, cls: string, o: { volumeName?: string; node?: string; deleting?: boolean } = {}): PersistentVolumeClaim => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name, namespace: "ns", ...(o.node ? { annotations: { "volume.kubernetes.io/selected-node": o.node } } : {}), ...(o.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["x"] } : {}) },
  spec: { storageClassName: cls, accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...(o.volumeName ? { volumeName: o.volumeName } : {}) },
});
const sc = (name: string, mode: string): StorageClass => ({ apiVersion: "storage.k8s.io/v1", kind: "StorageClass", metadata: { name }, provisioner: "p", volumeBindingMode: mode });

function client(claims: PersistentVolumeClaim[]) {
  const c = new FakeClient();
  c.seed(builtin.storageClasses, sc("now", "Immediate"), sc("later", "WaitForFirstConsumer"));
  c.seed(builtin.persistentVolumeClaims, ...claims);
  return c;
}

describe("podVolumes", () => {
  it.each([
    { name: "a missing claim", claims: [], pod: pod("a"), want: { unschedulable: 'persistentvolumeclaim "a" not found', delayed: [] } },
    { name: "a claim being deleted", claims: [claim("a", "now", { deleting: true })], pod: pod("a"), want: { unschedulable: 'persistentvolumeclaim "a" is being deleted', delayed: [] } },
    { name: "an unbound Immediate claim", claims: [claim("a", "now")], pod: pod("a"), want: { unschedulable: UNBOUND_IMMEDIATE, delayed: [] } },
    { name: "bound claims", claims: [claim("a", "now", { volumeName: "v" })], pod: pod("a"), want: { delayed: [] } },
    { name: "an unbound WaitForFirstConsumer claim", claims: [claim("a", "later")], pod: pod("a"), want: { delayed: ["a"] } },
    { name: "a claim with a selected node pins the pod", claims: [claim("a", "later", { node: "n2" })], pod: pod("a"), want: { delayed: ["a"], pinnedNode: "n2" } },
  ])("$name", async (t) => {
    const r = await podVolumes(t.pod, client(t.claims));
    expect({ ...r, delayed: r.delayed.map((c) => c.metadata?.name) }).toEqual(t.want);
  });

  it("selectNode annotates the claims that have no node yet", async () => {
    const c = client([claim("a", "later")]);
    const { delayed } = await podVolumes(pod("a"), c);
    await selectNode(delayed, "n1", c);
    const stored = await c.resource(builtin.persistentVolumeClaims, "ns").get("a");
    expect(stored.metadata?.annotations?.["volume.kubernetes.io/selected-node"]).toBe("n1");
  });
});
