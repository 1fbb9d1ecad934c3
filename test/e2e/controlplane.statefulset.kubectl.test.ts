/**
 * StatefulSets end to end with the real kubectl: the StatefulSet controller and the simulated
 * kubelet on the control plane — apply, `rollout status`, an image change rolled out in reverse
 * ordinal order, `rollout history` and `rollout undo` through ControllerRevisions, scale down, and
 * the claims of volumeClaimTemplates (Pending without a volume binder; the simulated kubelet does
 * not wait for them).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { RunningControlPlane } from "../../src/controlplane/index.js";
import { missingResources } from "../../src/controllers/registry.js";
import type { Kubectl } from "./kubectl.js";
import { eventually, startTestControlPlane } from "./controlplane-env.js";

let cp: RunningControlPlane;
let k: Kubectl;

beforeAll(async () => {
  ({ cp, k } = await startTestControlPlane());
  expect(await missingResources("statefulset", cp.client.discoveryClient)).toBeUndefined();
}, 60_000);

afterAll(async () => {
  await cp?.stop();
});

interface PodJSON {
  metadata: { name: string; labels: Record<string, string> };
  spec: { hostname?: string; subdomain?: string; containers: Array<{ image: string }>; volumes?: Array<{ name: string; persistentVolumeClaim?: { claimName: string } }> };
  status: { phase?: string };
}

const manifest = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  clusterIP: None
  selector: { app: web }
  ports:
  - port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: web
  replicas: 3
  selector:
    matchLabels: { app: web }
  template:
    metadata:
      labels: { app: web }
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: nginx
        image: nginx:1.27
  volumeClaimTemplates:
  - metadata:
      name: www
    spec:
      accessModes: [ReadWriteOnce]
      resources:
        requests:
          storage: 1Gi
`;

async function pods(): Promise<PodJSON[]> {
  const list = JSON.parse(await k.ok(["get", "pods", "-l", "app=web", "-o", "json"])) as { items: PodJSON[] };
  return list.items.sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}

it("kubectl apply of a StatefulSet → rollout status completes; pods web-0..2 with their identity and claims", async () => {
  const file = await k.manifest("sts.yaml", manifest);
  await k.ok(["apply", "-f", file]);
  const r = await k.run(["rollout", "status", "statefulset/web", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  // The API server defaults rollingUpdate.partition to 0, so kubectl reports a partitioned roll out (as on a cluster).
  expect(r.stdout).toContain("partitioned roll out complete: 3 new pods have been updated...");

  const ps = await pods();
  expect(ps.map((p) => p.metadata.name)).toEqual(["web-0", "web-1", "web-2"]);
  for (const [i, p] of ps.entries()) {
    expect(p.status.phase).toBe("Running");
    expect(p.spec.hostname).toBe(`web-${i}`);
    expect(p.spec.subdomain).toBe("web");
    expect(p.metadata.labels).toMatchObject({ "statefulset.kubernetes.io/pod-name": `web-${i}`, "apps.kubernetes.io/pod-index": String(i) });
    expect(p.spec.volumes?.find((v) => v.name === "www")?.persistentVolumeClaim?.claimName).toBe(`www-web-${i}`);
  }
  const claims = (await k.ok(["get", "pvc", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"])).trim().split("\n").sort();
  expect(claims).toEqual(["www-web-0", "www-web-1", "www-web-2"]);

  const sts = JSON.parse(await k.ok(["get", "statefulset", "web", "-o", "json"])) as { status: Record<string, unknown> };
  expect(sts.status).toMatchObject({ replicas: 3, readyReplicas: 3, availableReplicas: 3, currentReplicas: 3, updatedReplicas: 3, observedGeneration: 1 });
  expect(sts.status.currentRevision).toBe(sts.status.updateRevision);
  // Events are written asynchronously by the recorder: wait for them.
  await eventually("the StatefulSet's creation events", async () => {
    const events = await k.ok(["get", "events", "--field-selector", "involvedObject.kind=StatefulSet,involvedObject.name=web", "-o", "jsonpath={range .items[*]}{.reason}: {.message}{\"\\n\"}{end}"]);
    return events.includes("SuccessfulCreate: create Pod web-0 in StatefulSet web successful") &&
      events.includes("SuccessfulCreate: create Claim www-web-0 Pod web-0 in StatefulSet web success")
      ? events
      : undefined;
  });
}, 90_000);

it("kubectl set image → rollout status completes with every pod on the new image; rollout history lists both revisions", async () => {
  const before = (await k.ok(["get", "statefulset", "web", "-o", "jsonpath={.status.updateRevision}"])).trim();
  await k.ok(["set", "image", "statefulset/web", "nginx=nginx:1.28"]);
  const r = await k.run(["rollout", "status", "statefulset/web", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("partitioned roll out complete: 3 new pods have been updated...");
  const after = (await k.ok(["get", "statefulset", "web", "-o", "jsonpath={.status.updateRevision}"])).trim();
  expect(after).not.toBe(before);
  expect((await k.ok(["get", "statefulset", "web", "-o", "jsonpath={.status.currentRevision}"])).trim()).toBe(after);
  expect((await pods()).map((p) => p.spec.containers[0].image)).toEqual(["nginx:1.28", "nginx:1.28", "nginx:1.28"]);

  const history = await k.ok(["rollout", "history", "statefulset/web"]);
  expect(history).toMatch(/REVISION\s+CHANGE-CAUSE/);
  expect(history).toMatch(/^1\s/m);
  expect(history).toMatch(/^2\s/m);
  const revisions = (await k.ok(["get", "controllerrevisions", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"])).trim().split("\n").sort();
  expect(revisions).toEqual([before, after].sort());
}, 90_000);

it("kubectl rollout undo goes back to the first revision (renumbered, not recreated)", async () => {
  const beforeUndo = (await k.ok(["get", "statefulset", "web", "-o", "jsonpath={.status.currentRevision}"])).trim();
  await k.ok(["rollout", "undo", "statefulset/web"]);
  const r = await k.run(["rollout", "status", "statefulset/web", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  expect((await pods()).map((p) => p.spec.containers[0].image)).toEqual(["nginx:1.27", "nginx:1.27", "nginx:1.27"]);
  const revisions = (await k.ok(["get", "controllerrevisions", "-o", "jsonpath={range .items[*]}{.revision}{\"\\n\"}{end}"])).trim().split("\n").sort();
  expect(revisions).toEqual(["2", "3"]);
  expect((await k.ok(["get", "statefulset", "web", "-o", "jsonpath={.status.updateRevision}"])).trim()).not.toBe(beforeUndo);
}, 90_000);

it("kubectl scale --replicas=1 removes web-2, then web-1; the claims stay (Retain)", async () => {
  await k.ok(["scale", "statefulset/web", "--replicas=1"]);
  await eventually("web-1 and web-2 to be gone", async () => {
    const names = (await pods()).map((p) => p.metadata.name);
    return names.length === 1 && names[0] === "web-0" ? names : undefined;
  }, 60_000);
  const r = await k.run(["rollout", "status", "statefulset/web", "--timeout=60s"], undefined, 70_000);
  expect(r.stderr).toBe("");
  const claims = (await k.ok(["get", "pvc", "-o", "jsonpath={range .items[*]}{.metadata.name}{\"\\n\"}{end}"])).trim().split("\n").sort();
  expect(claims).toEqual(["www-web-0", "www-web-1", "www-web-2"]);
}, 90_000);
