/**
 * Storage object in use protection, end to end with the real kubectl 1.35: a claim gets
 * `kubernetes.io/pvc-protection` and its provisioned volume `kubernetes.io/pv-protection`
 * (StorageObjectInUseProtection admission); `kubectl delete pvc` of a claim a pod uses leaves it
 * Terminating until the pod is gone (the PVC protection controller), then the claim and its volume
 * (reclaim Delete, once the volume is no longer Bound: the PV protection controller) go.
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

it("a claim used by a pod stays Terminating until the pod is gone; then the claim and its volume go", async () => {
  const ns = "e2e-protect";
  await k.ok(["create", "namespace", ns]);
  await k.ok(
    ["-n", ns, "apply", "-f", "-"],
    `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: user}
spec:
  terminationGracePeriodSeconds: 0
  containers: [{name: c, image: busybox, command: [sleep, "3600"]}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
`,
  );
  expect((await k.ok(["-n", ns, "get", "pvc", "data", "-o", "jsonpath={.metadata.finalizers}"])).trim()).toBe('["kubernetes.io/pvc-protection"]');
  const volume = await eventually("the claim Bound", async () => {
    const v = (await k.ok(["-n", ns, "get", "pvc", "data", "-o", "jsonpath={.spec.volumeName}"])).trim();
    return v || undefined;
  });
  expect((await k.ok(["get", "pv", volume, "-o", "jsonpath={.metadata.finalizers}"])).trim()).toBe('["kubernetes.io/pv-protection"]');
  await eventually("the pod scheduled", async () => ((await k.ok(["-n", ns, "get", "pod", "user", "-o", "jsonpath={.spec.nodeName}"])).trim() ? true : undefined));

  await k.ok(["-n", ns, "delete", "pvc", "data", "--wait=false"]);
  const table = await k.ok(["-n", ns, "get", "pvc"]);
  expect(row(table, "data")).toMatch(/^data\s+Terminating\s/);
  const described = await k.ok(["-n", ns, "describe", "pvc", "data"]);
  expect(described).toMatch(/Finalizers:\s+\[kubernetes\.io\/pvc-protection\]/);
  expect(described).toMatch(/Used By:\s+user/);
  // Still there after the controllers have had their say (the pod uses it).
  await cp.ready;
  expect(row(await k.ok(["-n", ns, "get", "pvc"]), "data")).toMatch(/^data\s+Terminating\s/);

  await k.ok(["-n", ns, "delete", "pod", "user"]);
  await eventually("the claim gone", async () => {
    const r = await k.run(["-n", ns, "get", "pvc", "data"]);
    return r.code !== 0 && r.stderr.includes("NotFound") ? true : undefined;
  });
  await eventually("the volume gone", async () => {
    const r = await k.run(["get", "pv", volume]);
    return r.code !== 0 && r.stderr.includes("NotFound") ? true : undefined;
  });
}, 120_000);

it("kubectl delete pv of a Bound volume waits for the binder to release it", async () => {
  await k.ok(
    ["apply", "-f", "-"],
    `apiVersion: v1
kind: PersistentVolume
metadata: {name: static-protect, labels: {for: protect}}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  persistentVolumeReclaimPolicy: Retain
  storageClassName: ""
  hostPath: {path: /tmp/static-protect}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: static, namespace: default}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  selector: {matchLabels: {for: protect}}
  resources: {requests: {storage: 1Gi}}
`,
  );
  await eventually("the static volume Bound", async () => (/\sBound\s/.test(row(await k.ok(["get", "pv"]), "static-protect") ?? "") ? true : undefined));
  await k.ok(["delete", "pv", "static-protect", "--wait=false"]);
  expect(row(await k.ok(["get", "pv"]), "static-protect")).toMatch(/\sTerminating\s/);
  await k.ok(["-n", "default", "delete", "pvc", "static"]);
  await eventually("the volume gone once Released", async () => {
    const r = await k.run(["get", "pv", "static-protect"]);
    return r.code !== 0 && r.stderr.includes("NotFound") ? true : undefined;
  });
}, 120_000);
