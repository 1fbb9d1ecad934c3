/**
 * Issue 16, end to end with the real kubectl 1.35: the control plane's default StorageClass
 * (`standard`, minikube's choice: Immediate binding, reclaim Delete), a claim that names no class
 * getting it (DefaultStorageClass admission), provisioned by the simulated provisioner and Bound,
 * with `kubectl get pvc,pv` columns as upstream prints them and the events `describe` shows; a
 * static volume bound by the binder through a selector and released (Retain) when its claim goes;
 * a WaitForFirstConsumer claim waiting; Delete removing a provisioned volume with its claim.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";
import type { Kubectl } from "./kubectl.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

const row = (table: string, name: string) => table.split("\n").find((l) => l.startsWith(`${name} `));

it("the default class provisions and binds a claim that names no class; deleting the claim deletes the volume", async () => {
  const sc = await k.ok(["get", "storageclass"]);
  expect(sc).toMatch(/^NAME\s+PROVISIONER\s+RECLAIMPOLICY\s+VOLUMEBINDINGMODE\s+ALLOWVOLUMEEXPANSION\s+AGE/m);
  expect(row(sc, "standard")).toMatch(/^standard \(default\)\s+sim\.kubeloop\.dev\/hostpath\s+Delete\s+Immediate\s+false\s+/);

  const ns = "e2e-pvc";
  await k.ok(["create", "namespace", ns]);
  const manifest = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`;
  await k.ok(["-n", ns, "apply", "-f", "-"], manifest);
  const line = await eventually("the claim Bound", async () => {
    const l = row(await k.ok(["-n", ns, "get", "pvc"]), "data");
    return l && /\sBound\s/.test(l) ? l : undefined;
  });
  const uid = (await k.ok(["-n", ns, "get", "pvc", "data", "-o", "jsonpath={.metadata.uid}"])).trim();
  expect(line).toMatch(new RegExp(`^data\\s+Bound\\s+pvc-${uid}\\s+1Gi\\s+RWO\\s+standard\\s+<unset>\\s+\\S+$`));
  const header = (await k.ok(["-n", ns, "get", "pvc"])).split("\n")[0];
  expect(header).toMatch(/^NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE$/);

  const pvs = await eventually("the volume Bound", async () => {
    const t = await k.ok(["get", "pv"]);
    return /\sBound\s/.test(row(t, `pvc-${uid}`) ?? "") ? t : undefined;
  });
  expect(pvs.split("\n")[0]).toMatch(/^NAME\s+CAPACITY\s+ACCESS MODES\s+RECLAIM POLICY\s+STATUS\s+CLAIM\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+REASON\s+AGE$/);
  expect(row(pvs, `pvc-${uid}`)).toMatch(new RegExp(`^pvc-${uid}\\s+1Gi\\s+RWO\\s+Delete\\s+Bound\\s+${ns}/data\\s+standard\\s+<unset>\\s+\\S+$`));

  const claim = JSON.parse(await k.ok(["-n", ns, "get", "pvc", "data", "-o", "json"])) as { metadata: { annotations: Record<string, string> }; spec: { storageClassName: string } };
  expect(claim.spec.storageClassName).toBe("standard");
  expect(claim.metadata.annotations).toMatchObject({
    "pv.kubernetes.io/bind-completed": "yes",
    "pv.kubernetes.io/bound-by-controller": "yes",
    "volume.kubernetes.io/storage-provisioner": "sim.kubeloop.dev/hostpath",
  });
  const pv = JSON.parse(await k.ok(["get", "pv", `pvc-${uid}`, "-o", "json"])) as { metadata: { annotations: Record<string, string> } };
  expect(pv.metadata.annotations["pv.kubernetes.io/provisioned-by"]).toBe("sim.kubeloop.dev/hostpath");

  const described = await eventually("the provisioning events", async () => {
    const d = await k.ok(["-n", ns, "describe", "pvc", "data"]);
    return d.includes("ProvisioningSucceeded") ? d : undefined;
  });
  expect(described).toMatch(/Normal\s+ExternalProvisioning\s+.*persistentvolume-controller\s+Waiting for a volume to be created either by the external provisioner 'sim\.kubeloop\.dev\/hostpath'/);
  expect(described).toMatch(new RegExp(`Normal\\s+ProvisioningSucceeded\\s+.*sim\\.kubeloop\\.dev/hostpath_kubeloop\\s+Successfully provisioned volume pvc-${uid}`));

  await k.ok(["-n", ns, "delete", "pvc", "data"]);
  await eventually("the provisioned volume deleted (reclaim policy Delete)", async () => {
    const r = await k.run(["get", "pv", `pvc-${uid}`]);
    return r.code !== 0 && r.stderr.includes("NotFound") ? true : undefined;
  });
}, 120_000);

it("a static volume binds through the claim's selector and is Released (Retain) when the claim goes; WaitForFirstConsumer waits", async () => {
  const ns = "e2e-static-pv";
  await k.ok(["create", "namespace", ns]);
  await k.ok(
    ["apply", "-f", "-"],
    `apiVersion: v1
kind: PersistentVolume
metadata: {name: e2e-static-big, labels: {tier: fast}}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  hostPath: {path: /tmp/e2e-static-big}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: e2e-static-small, labels: {tier: slow}}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  hostPath: {path: /tmp/e2e-static-small}
`,
  );
  await eventually("both volumes Available", async () => {
    const t = await k.ok(["get", "pv", "e2e-static-big", "e2e-static-small"]);
    return (t.match(/\sAvailable\s/g) ?? []).length === 2 ? t : undefined;
  });
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: fast}
spec:
  storageClassName: ""
  selector: {matchLabels: {tier: fast}}
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`,
  );
  const line = await eventually("the claim bound to the labelled volume", async () => {
    const l = row(await k.ok(["-n", ns, "get", "pvc"]), "fast");
    return l && /\sBound\s/.test(l) ? l : undefined;
  });
  expect(line).toMatch(/^fast\s+Bound\s+e2e-static-big\s+5Gi\s+RWO\s+<unset>\s+\S+$/);
  await k.ok(["-n", ns, "delete", "pvc", "fast"]);
  const released = await eventually("the volume Released", async () => {
    const l = row(await k.ok(["get", "pv"]), "e2e-static-big");
    return l && /\sReleased\s/.test(l) ? l : undefined;
  });
  expect(released).toMatch(new RegExp(`^e2e-static-big\\s+5Gi\\s+RWO\\s+Retain\\s+Released\\s+${ns}/fast\\s+`));

  await k.ok(
    ["apply", "-f", "-"],
    `apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: e2e-local}
provisioner: sim.kubeloop.dev/hostpath
volumeBindingMode: WaitForFirstConsumer
`,
  );
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: later}
spec:
  storageClassName: e2e-local
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
`,
  );
  const d = await eventually("the WaitForFirstConsumer event", async () => {
    const out = await k.ok(["-n", ns, "describe", "pvc", "later"]);
    return out.includes("WaitForFirstConsumer") ? out : undefined;
  });
  expect(d).toMatch(/Normal\s+WaitForFirstConsumer\s+.*persistentvolume-controller\s+waiting for first consumer to be created before binding/);
  expect(row(await k.ok(["-n", ns, "get", "pvc"]), "later")).toMatch(/^later\s+Pending\s+e2e-local\s+<unset>\s+\S+$/);

  // The first consumer: the scheduler picks a node and writes it on the claim, the provisioner
  // provisions there, the binder binds, and then the pod is bound to that node.
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: Pod
metadata: {name: consumer}
spec:
  containers: [{name: c, image: nginx:1.27, volumeMounts: [{name: data, mountPath: /data}]}]
  volumes: [{name: data, persistentVolumeClaim: {claimName: later}}]
`,
  );
  await eventually("the pod Running", async () => ((await k.ok(["-n", ns, "get", "pod", "consumer", "-o", "jsonpath={.status.phase}"])) === "Running" ? true : undefined), 40_000);
  const node = await k.ok(["-n", ns, "get", "pod", "consumer", "-o", "jsonpath={.spec.nodeName}"]);
  const later = JSON.parse(await k.ok(["-n", ns, "get", "pvc", "later", "-o", "json"])) as { metadata: { annotations: Record<string, string> }; spec: { volumeName: string }; status: { phase: string } };
  expect(later.status.phase).toBe("Bound");
  expect(later.metadata.annotations["volume.kubernetes.io/selected-node"]).toBe(node);
  const pinned = JSON.parse(await k.ok(["get", "pv", later.spec.volumeName, "-o", "json"])) as { spec: { nodeAffinity: unknown } };
  expect(pinned.spec.nodeAffinity).toEqual({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "In", values: [node] }] }] } });
}, 150_000);
